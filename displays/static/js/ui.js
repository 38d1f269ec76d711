// Small DOM helpers shared by the pages: elements, the 90-number board, a card's grid.

import { t, tOr } from './i18n.js';

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') element.className = value;
    else if (name === 'text') element.textContent = value;
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  element.append(...children.filter((child) => child !== null && child !== undefined));
  return element;
}

// The hall's board: 90 cells in nine rows of ten (1-10, 11-20, ... 81-90).
export function buildBoard(container) {
  container.replaceChildren(
    ...Array.from({ length: 90 }, (_, index) =>
      el('div', { class: 'cell', dataset: { n: String(index + 1) }, text: String(index + 1) }),
    ),
  );
}

export function updateBoard(container, calledSet, last) {
  for (const cell of container.children) {
    const n = Number(cell.dataset.n);
    cell.classList.toggle('drawn', calledSet.has(n));
    cell.classList.toggle('last', n === last);
  }
}

// A card's grid; numbers called are marked; `rows` (indexes) are highlighted as the winning
// rows; `missing` numbers are flagged.
export function cardGrid(grid, calledSet, { rows = [], missing = [] } = {}) {
  const missingSet = new Set(missing);
  return el(
    'table',
    { class: 'card-grid' },
    el(
      'tbody',
      {},
      ...grid.map((row, r) =>
        el(
          'tr',
          { class: rows.includes(r) ? 'win-row' : null },
          ...row.map((n) => {
            if (!n) return el('td', { class: 'blank' });
            const classes = [calledSet.has(n) ? 'marked' : '', missingSet.has(n) ? 'missing' : '']
              .filter(Boolean)
              .join(' ');
            return el('td', { class: classes || null, dataset: { n: String(n) }, text: String(n) });
          }),
        ),
      ),
    ),
  );
}

export function phaseText(phase) {
  return t(`phase.${phase}`);
}

export function cardLabel(seriesId, number) {
  return t('card.label', { series: seriesId, number });
}

// Re-render at most once per animation frame.
export function scheduler(render) {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      render();
    });
  };
}

// The hub's refusal as people read it: what was refused and why, in the page's language
// (a refusal of the hub's catalogue is `refusal.<reason>`; any other, the hub's message).
export function errorText(command, error) {
  const what = t(`command.${command}`);
  const code = t(`error.${error.code}`);
  const message = error.reason ? tOr(`refusal.${error.reason}`, error.params || {}, error.message) : error.message;
  return t('error.refused', { what, code, message });
}

// Device tokens arrive in the URL fragment (#token=...), never in the query, and are kept
// by the kiosk's browser so it comes back by itself after a restart.
export function deviceToken(storageKey) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (token) {
    localStorage.setItem(storageKey, token);
    history.replaceState(null, '', location.pathname + location.search);
    return token;
  }
  return localStorage.getItem(storageKey);
}

// The page's connection badge (`selector`) as the hub client reports its state; a refused
// credential (`auth_failed`) also calls onAuthFailed with why, in the page's language, and the
// hub's code for it. Use it as the Hub's onStatus.
export function connectionStatus(selector, onAuthFailed = () => {}) {
  return (state, refusal) => {
    const badge = $(selector);
    badge.dataset.state = state;
    badge.textContent = t(`conn.${state}`);
    if (state === 'auth_failed') onAuthFailed(loginRefusal(refusal), refusal && refusal.code);
  };
}

// The hub's `auth_invalid` as people read it: its code in words, else its message.
function loginRefusal(refusal) {
  if (!refusal) return '';
  return refusal.code ? tOr(`error.${refusal.code}`, {}, refusal.message || '') : refusal.message || '';
}

// A page's toasts in the container `selector`: toast(text, kind) shows one, an error for 12 s
// or an «ok» for 4 s; a click takes it away.
export function toasts(selector) {
  return (text, kind = 'error') => {
    const note = el('div', { class: `toast ${kind === 'ok' ? 'ok' : ''}`, text, dataset: { kind } });
    note.addEventListener('click', () => note.remove());
    $(selector).append(note);
    setTimeout(() => note.remove(), kind === 'ok' ? 4000 : 12000);
  };
}

// A command given from one of the page's controls: the control (`source`, an id in the page's
// `busy` set) is busy until the hub answers, `changed()` redraws, and a refusal is shown in
// words with `show(text)` (or `failed(error)`, when given). Resolves with the command's result,
// or null when it was refused.
export async function runCommand(hub, command, args, { busy, source, changed, show, failed }) {
  busy.add(source);
  changed();
  try {
    return await hub.command(command, args);
  } catch (error) {
    if (failed) failed(error);
    else show(errorText(command, error));
    return null;
  } finally {
    busy.delete(source);
    changed();
  }
}
