// The hall monitor (a read-only device): the 90-number board, the last ball very large, the
// camera frame of the last ball, the last five, the count, the prizes, the verification with
// the master card, and the state of the game; beside the board, the hall's casino tables
// (tables.js), each followed on its own stream. Reconnects and resumes by itself.
//
//   /monitor#token=<device token>          a display panel: the "panel" channel, each ball
//                                          shown display_delay after it was announced
//   /monitor?sound=1#token=...             the sound monitor: the "caller" channel, speaks each
//                                          number at once (and shows it, for the deaf)
//   ?lang=es|eu|en   ?second=es|eu|en      language, and a second language beneath
//   ?voices=es,eu                          the languages the numbers are spoken in

import { awaitStart, Hub } from './hub.js';
import {
  applyTranslations,
  initialLanguage,
  language,
  money,
  setLanguage,
  setText,
  t,
} from './i18n.js';
import { apply, called, currentClaims, lastBall, newModel } from './model.js';
import { Announcer } from './speech.js';
import { applyTableEvent, renderTables, tableFrom } from './tables.js';
import { $, buildBoard, cardGrid, connectionStatus, deviceToken, el, scheduler, updateBoard } from './ui.js';

const params = new URLSearchParams(location.search);
const soundMode = ['1', 'true', 'on'].includes(params.get('sound'));
const STORE = soundMode ? 'bingo.sound' : 'bingo.monitor';
const FALSE_CLAIM_SHOWN_MS = 8000;

let model = newModel();
let tables = new Map(); // table id -> its public state (tables.js), in the hub's order
let start = null;
let falseNoticeUntil = 0; // a false claim's verdict stays up a while (local clock)
let hub = null;
const shown = []; // {n, at}: when each ball appeared on this screen (read by the tests)
const announcer = new Announcer({ onBlocked: () => ($('#m-sound-unlock').hidden = false) });
window.bingoMonitor = {
  shown,
  sound: announcer.log,
  model: () => model,
  tables: () => [...tables.values()],
  mode: soundMode ? 'sound' : 'panel',
};

function secondFor(lang) {
  const asked = params.get('second');
  if (asked !== null) return asked || null;
  return lang === 'eu' ? 'es' : null; // Basque material is bilingual (spec §4 E10)
}

function voicesFor(lang) {
  const asked = params.get('voices');
  if (asked) return asked.split(',').filter(Boolean);
  return lang === 'eu' ? ['es', 'eu'] : ['es'];
}

async function switchLanguage(lang) {
  await setLanguage(lang, { secondLanguage: secondFor(lang), storageKey: `${STORE}.lang` });
  announcer.setLanguages(voicesFor(lang));
  render();
}
window.bingoMonitor.setLanguage = switchLanguage;

function stateKey(game) {
  const phase = model.phase;
  if (phase === 'session_ready' && game && game.ended) return game.status === 'voided' ? 'monitor.state.voided' : 'monitor.state.finished';
  return `monitor.state.${phase}`;
}

function renderOverlay(game) {
  const overlay = $('#m-overlay');
  const claims = currentClaims(game);
  const checking = ['claim_paused', 'any_more_window'].includes(model.phase) && claims.length;
  const justFalse =
    !checking &&
    game &&
    game.resumed &&
    game.resumed.ordinal === game.balls.length &&
    Date.now() < falseNoticeUntil &&
    claims.length;
  if (!checking && !justFalse) {
    overlay.hidden = true;
    return;
  }
  overlay.hidden = false;
  const titleKey = model.phase === 'any_more_window' ? 'window.question' : justFalse ? 'monitor.claim_false' : 'monitor.verifying';
  setText($('#m-ov-title'), titleKey);
  const calledSet = called(game);
  const cards = $('#m-ov-cards');
  cards.classList.toggle('many', claims.length > 2);
  cards.replaceChildren(
    ...claims.map((claim) => {
      const status = claim.status;
      return el(
        'div',
        { class: 'm-ov-card', dataset: { claim: String(claim.claim_id), status } },
        el('h3', {
          text: t('claim.heading', {
            kind: t(`claim.kind.${claim.kind}`),
            series: claim.series_id,
            number: claim.card_number,
          }),
        }),
        cardGrid(claim.grid, calledSet, { rows: claim.rows || [], missing: claim.missing || [] }),
        el('div', { class: `m-ov-verdict verdict-${status}`, text: t(`claim.status.${status}`) }),
        claim.reason ? el('div', { class: 'm-ov-reason', text: t(`claim.reason.${claim.reason}`) }) : null,
      );
    }),
  );
}

function infoLines(game) {
  if (game.status === 'voided') {
    return [t('monitor.voided_info', { reason: t(`void.reason.${game.void.reason}`) })];
  }
  if (game.splits.length) {
    // one line a prize: a prize shared by many cards lists them all on its line
    return game.splits.map((split) => {
      const kind = t(`claim.kind.${split.kind}`);
      if (split.winners.length === 1) {
        const [w] = split.winners;
        return t('monitor.winner', { kind, series: w.series_id, number: w.card_number, share: money(split.share) });
      }
      const cards = split.winners.map((w) => `${w.series_id}-${w.card_number}`).join(', ');
      return t('monitor.winners', { kind, count: split.winners.length, share: money(split.share), cards });
    });
  }
  if (game.wording) {
    // 1977: the line that pays, as the Jefe de Mesa designated it (S77 L2472-2474)
    const paying = game.payingRow === null || game.payingRow === undefined ? [] : [t('monitor.paying_row', { row: t(`row.${game.payingRow}`) })];
    return [game.wording, ...paying];
  }
  if (['series_announced', 'selling', 'sale_closed'].includes(game.status)) {
    // each series with its card count and face value, as they are announced (S79 L1202)
    const series = game.series.map((s) => t('monitor.series_on_sale', { series: s.series_id, size: s.size, price: money(s.face_value) })).join(', ');
    return [t('monitor.on_sale', { series })];
  }
  return [];
}

function renderInfo(game) {
  const lines = game ? infoLines(game) : [];
  if (game && game.lastGame && !game.ended) lines.unshift(t('monitor.last_game'));
  const box = $('#m-info');
  box.replaceChildren(...lines.map((text) => el('div', { class: 'm-info-line', text })));
  fitText(box);
}

// Everything in the box is shown: its text is made smaller until it fits (never below a third
// of its size), rather than cut.
function fitText(box) {
  box.style.fontSize = '';
  const full = parseFloat(getComputedStyle(box).fontSize);
  for (let size = full; box.scrollHeight > box.clientHeight + 1 && size > full / 3; size *= 0.9) {
    box.style.fontSize = `${size * 0.9}px`;
  }
}

function render() {
  const game = model.game;
  const calledSet = called(game);
  const last = lastBall(game);
  document.body.dataset.phase = model.phase;
  document.body.dataset.gameState = game ? game.status : 'none';
  setText($('#m-state'), stateKey(game), { game: game ? game.id : '' });
  $('#m-hall').textContent = start ? start.name || start.hall : '';
  $('#m-count').textContent = String(game ? game.balls.length : 0);
  $('#m-last').textContent = last ? String(last.number) : '';
  updateBoard($('#m-board'), calledSet, last ? last.number : null);
  const five = game ? game.balls.slice(-5).reverse() : [];
  $('#m-last-five').replaceChildren(...five.map((ball) => el('li', { text: String(ball.number) })));
  const frame = last && last.camera && last.camera.frame;
  const image = $('#m-frame');
  if (frame) {
    const src = `/frames/${frame}.jpg`;
    if (image.getAttribute('src') !== src) image.src = src;
    image.alt = t('monitor.frame_alt', { n: last.number });
  }
  image.hidden = !frame;
  $('#m-frame-none').hidden = Boolean(frame);
  const check = last && last.check;
  $('#m-frame-check').hidden = !check;
  if (check) $('#m-frame-check').textContent = t(`check.${check}`);
  $('#m-line-prize').textContent = game && game.linePrize ? money(game.linePrize) : '—';
  $('#m-bingo-prize').textContent = game && game.bingoPrize ? money(game.bingoPrize) : '—';
  $('#m-hold').hidden = model.phase !== 'camera_hold';
  renderInfo(game);
  renderOverlay(game);
  document.body.classList.toggle('with-tables', tables.size > 0);
  renderTables($('#m-tables'), [...tables.values()]);
}

const rerender = scheduler(render);

function onEvent(envelope, { replay }) {
  apply(model, envelope);
  if (envelope.event === 'draw_resumed' && !replay) falseNoticeUntil = Date.now() + FALSE_CLAIM_SHOWN_MS;
  if (envelope.event === 'ball_drawn') {
    const n = envelope.payload.number;
    shown.push({ n, at: Date.now(), replay });
    if (soundMode && !replay) announcer.say(n);
  }
  rerender();
}

// The tables as the hub lists them: those followed already keep their state (their streams
// resume from the last seq seen), new ones start from the state the hub gave.
function onTables(fresh, ids) {
  const known = tables;
  for (const state of fresh) known.set(state.table, tableFrom(state));
  tables = new Map(ids.map((id) => [id, known.get(id)]));
  document.body.dataset.tables = String(ids.length);
  rerender();
}

function onTableEvent(envelope) {
  const table = tables.get(envelope.table);
  if (table) applyTableEvent(table, envelope);
  rerender();
}

const onStatus = connectionStatus('#m-conn', (message) => {
  $('#m-login').hidden = false;
  $('#m-login-error').textContent = message;
});

async function main() {
  document.body.classList.toggle('sound', soundMode);
  await switchLanguage(initialLanguage(`${STORE}.lang`));
  buildBoard($('#m-board'));
  applyTranslations(document);
  $('#m-sound-unlock').addEventListener('click', () => {
    $('#m-sound-unlock').hidden = true;
    const last = lastBall(model.game);
    if (last) announcer.say(last.number);
  });
  const token = deviceToken(`${STORE}.token`);
  if (!token) {
    $('#m-login').hidden = false;
    return;
  }
  start = await awaitStart(() => onStatus('reconnecting'));
  hub = new Hub({
    auth: { token },
    channel: soundMode ? 'caller' : 'panel',
    afterSeq: start.session_from,
    onEvent,
    onStatus,
    onTables,
    onTableEvent,
  });
  hub.start();
  setInterval(rerender, 1000); // the false-claim notice times out
  render();
  window.bingoMonitor.ready = true;
}

main();
window.bingoMonitor.language = language;
