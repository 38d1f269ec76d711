// The hall monitor (a read-only device): the 90-number board, the last ball very large, the
// camera frame of the last ball, the last five, the count, the prizes, the verification with
// the master card, and the state of the game; beside the board, the hall's casino tables
// (tables.js), each followed on its own stream. Reconnects and resumes by itself.
//
//   /monitor#token=<device token>          a display panel: the "panel" channel, each ball
//                                          shown display_delay after it was announced
//   /monitor?sound=1#token=...             the sound monitor: the "caller" channel, speaks each
//                                          number at once (and shows it, for the deaf)
//   /monitor?camera=1#token=...            a CCTV receiver: the camera's frame of each ball as
//                                          large as the screen allows, with the ball's number,
//                                          so that every player reads it (S79 L1190)
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
import { parse } from './decimal.js';
import { apply, called, currentClaims, lastBall, newModel } from './model.js';
import { Announcer } from './speech.js';
import { applyTableEvent, renderTables, tableFrom } from './tables.js';
import { $, buildBoard, cardGrid, connectionStatus, deviceToken, el, scheduler, updateBoard } from './ui.js';

const params = new URLSearchParams(location.search);
const soundMode = ['1', 'true', 'on'].includes(params.get('sound'));
const cameraMode = ['1', 'true', 'on'].includes(params.get('camera'));
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
  cards.replaceChildren(
    ...claims.map((claim) => {
      const status = claim.status;
      return el(
        'div',
        { class: 'm-ov-card', dataset: { claim: String(claim.claim_id), status } },
        bilingual('h3', '', 'claim.heading', {
          kind: { key: `claim.kind.${claim.kind}` },
          series: claim.series_id,
          number: claim.card_number,
        }),
        cardGrid(claim.grid, calledSet, { rows: claim.rows || [], missing: claim.missing || [] }),
        bilingual('div', `m-ov-verdict verdict-${status}`, `claim.status.${status}`),
        claim.reason ? bilingual('div', 'm-ov-reason', `claim.reason.${claim.reason}`) : null,
      );
    }),
  );
  fitCards(cards);
}

// A text of the translation files, with the second language beneath where the monitor has one.
function bilingual(tag, className, key, vars = {}) {
  const element = el(tag, { class: className || null, 'data-bilingual': true });
  setText(element, key, vars);
  return element;
}

// Every master card checked on the ball is shown whole, as large as the screen allows: the
// cards' sizes all follow one cell size (--cell), and the columns are those that give the
// largest cell for this many cards on this screen. A card measured at the largest size scales
// with the cell (its texts and their widths too), so the columns are chosen from that measure;
// then the size is made smaller while anything still leaves the screen.
const CARD_GAP = 0.45; // the space between cards, in cells (monitor.css)
const LARGEST_CELL = 8.5; // in hundredths of a 16:9 screen's height (--u, monitor.css)

function fitCards(cards) {
  const overlay = $('#m-overlay');
  cards.style.removeProperty('--cell');
  cards.style.setProperty('--cols', '1');
  const count = cards.children.length;
  if (!count) return;
  const largest = LARGEST_CELL * Math.min(innerHeight / 100, (innerWidth / 100) * 0.5625); // --u
  cards.style.setProperty('--cell', `${largest}px`);
  const boxes = [...cards.children].map((card) => card.getBoundingClientRect());
  const width = Math.max(...boxes.map((box) => box.width)) / largest;
  const height = Math.max(...boxes.map((box) => box.height)) / largest;
  const style = getComputedStyle(overlay);
  const title = $('#m-ov-title').getBoundingClientRect().height;
  const spaceX = overlay.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const spaceY =
    overlay.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - title - parseFloat(style.rowGap || 0);
  let best = { cols: 1, cell: 0 };
  for (let cols = 1; cols <= count; cols += 1) {
    const rows = Math.ceil(count / cols);
    const cell = Math.min(spaceX / (cols * width + (cols - 1) * CARD_GAP), spaceY / (rows * height + (rows - 1) * CARD_GAP));
    if (cell > best.cell) best = { cols, cell };
  }
  cards.style.setProperty('--cols', String(best.cols));
  let cell = Math.min(largest, Math.floor(best.cell * 0.98));
  cards.style.setProperty('--cell', `${cell}px`);
  for (let tries = 0; tries < 20 && !fits(overlay, cards); tries += 1) {
    cell *= 0.95;
    cards.style.setProperty('--cell', `${cell}px`);
  }
}

function fits(overlay, cards) {
  const screen = overlay.getBoundingClientRect();
  const inside = (box) => box.top >= screen.top - 1 && box.bottom <= screen.bottom + 1 && box.left >= screen.left - 1 && box.right <= screen.right + 1;
  return inside($('#m-ov-title').getBoundingClientRect()) && [...cards.children].every((card) => inside(card.getBoundingClientRect()));
}

// The lines under the prizes: each a key of the translation files with its values (shown in
// both languages on a bilingual monitor), or a text as the hub recorded it (the sale's wording).
function infoLines(game) {
  if (game.status === 'voided') {
    // void: the cards sold are refunded at face value (S79 L1222), and under a profile that
    // withdraws the game's prizes, they are withdrawn (S77 L2518-2524)
    const lines = [{ key: 'monitor.voided_info', vars: { reason: { key: `void.reason.${game.void.reason}` } } }];
    if (parse(game.void.refund_total) > 0n) {
      lines.push({ key: 'monitor.void_refund', vars: { total: money(game.void.refund_total) } }); // none sold: none owed
    }
    const withdrawn = game.void.restitutions || [];
    if (game.void.awards_withdrawn && withdrawn.length) {
      const cards = withdrawn.map((r) => `${r.series_id}-${r.card_number} (${money(r.amount)})`).join(', ');
      lines.push({ key: 'monitor.void_prizes_withdrawn', vars: { cards } });
    }
    return lines;
  }
  if (game.splits.length) {
    // one line a prize: a prize shared by many cards lists them all on its line
    return game.splits.map((split) => {
      const kind = { key: `claim.kind.${split.kind}` };
      if (split.winners.length === 1) {
        const [w] = split.winners;
        return { key: 'monitor.winner', vars: { kind, series: w.series_id, number: w.card_number, share: money(split.share) } };
      }
      const cards = split.winners.map((w) => `${w.series_id}-${w.card_number}`).join(', ');
      return { key: 'monitor.winners', vars: { kind, count: split.winners.length, share: money(split.share), cards } };
    });
  }
  if (game.wording) {
    // 1977: the line that pays, as the Jefe de Mesa designated it (S77 L2472-2474)
    const paying =
      game.payingRow === null || game.payingRow === undefined ? [] : [{ key: 'monitor.paying_row', vars: { row: { key: `row.${game.payingRow}` } } }];
    return [{ text: game.wording }, ...paying];
  }
  if (['series_announced', 'selling'].includes(game.status)) {
    // each series with its card count and face value, as they are announced (S79 L1202), while
    // they may be bought: not once the sale is closed
    const series = game.series.map((s) => ({
      key: 'monitor.series_on_sale',
      vars: { series: s.series_id, size: s.size, price: money(s.face_value) },
    }));
    return [{ key: 'monitor.on_sale', vars: { series } }];
  }
  return [];
}

function renderInfo(game) {
  const lines = game ? infoLines(game) : [];
  const box = $('#m-info');
  box.replaceChildren(
    ...lines.map((line) => (line.key ? bilingual('div', 'm-info-line', line.key, line.vars) : el('div', { class: 'm-info-line', text: line.text }))),
  );
  fitText(box);
}

// The last game of the session (S77 L2498-2500), from its announcement until it ends: while an
// earlier game is still played, that the next one is the last.
function renderLastGame(game) {
  const banner = $('#m-last-game');
  const shown = model.lastGameAnnounced && !model.lastGamePlayed && model.phase !== 'session_closed';
  banner.hidden = !shown;
  $('#m-hall').hidden = shown;
  if (!shown) return;
  // announced between games: the game on the screen (ended) is not the last, the next one is
  const playing = game && game.lastGame && !game.ended;
  setText(banner, playing ? 'monitor.last_game' : 'monitor.next_is_last');
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
  if (check) setText($('#m-frame-check'), `check.${check}`);
  // a voided game's prizes are not played for: no amount is shown (monitor.css hides them)
  const live = game && game.status !== 'voided';
  $('#m-line-prize').textContent = live && game.linePrize ? money(game.linePrize) : '—';
  $('#m-bingo-prize').textContent = live && game.bingoPrize ? money(game.bingoPrize) : '—';
  $('#m-hold').hidden = model.phase !== 'camera_hold';
  renderLastGame(game);
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
  document.body.classList.toggle('camera-view', cameraMode);
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
  addEventListener('resize', rerender); // the overlay's cards and the info's text are fitted
  render();
  window.bingoMonitor.ready = true;
}

main();
window.bingoMonitor.language = language;
