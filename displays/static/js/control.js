// The Jefe de Mesa's control screen. Staff log in with their name and password; the role
// decides which actions appear (the hub's auth_ok lists the commands it may give), and the
// phase decides which are enabled (the rules engine's own table, from /api/start). Every
// refusal of the hub is shown with its message.

import { fetchStaff, fetchStart, Hub } from './hub.js';
import { add, percentageOf, times } from './decimal.js';
import {
  applyTranslations,
  initialLanguage,
  languagePicker,
  language,
  money,
  setLanguage,
  t,
} from './i18n.js';
import { apply, called, currentClaims, lastBall, newModel, winners } from './model.js';
import {
  $,
  buildBoard,
  cardGrid,
  connectionStatus,
  el,
  errorText,
  runCommand,
  scheduler,
  toasts,
  updateBoard,
} from './ui.js';

let model = newModel();
let start = null; // /api/start
let hall = null; // /api/hall: ball sets, series, unpaid prizes, refunds owed
let hub = null;
let credentials = null;
let principal = null;
let clockOffset = 0; // local clock minus the hub's, from the last live event
let voidArmed = false;
let saleFirstAuto = true;
let nextDrawAt = 0; // the next ball waits until the last one is on the panels (announce, show)
let showings = null; // the balls of a set shown so far to the camera, as the hub keeps them
let lastVerdict = null; // the last ball_set_commissioned payload seen
const busy = new Set();
const chosenSeries = new Set();
const eventLines = [];

window.bingoControl = {
  model: () => model,
  hall: () => hall,
  principal: () => principal,
  // what holds the actions back, for a failing test's report
  actions: () => ({
    phase: model.phase,
    busy: [...busy],
    nextDrawInMs: nextDrawAt - Date.now(),
    drawLegal: legal('draw_ball'),
    requestsAwaitingReply: hub ? hub.pending.size : null,
    socket: hub && hub.ws ? hub.ws.readyState : null,
  }),
};

// --- permissions: role (what appears) and phase (what is enabled) --------------------------

function may(command) {
  return Boolean(principal && principal.commands.includes(command));
}

function legal(command) {
  const phases = start && start.legal[command];
  return Boolean(phases && (phases.includes('*') || phases.includes(model.phase)));
}

function pendingClaims() {
  return model.game ? model.game.claims.filter((claim) => claim.status === 'pending') : [];
}

function windowRemaining() {
  const game = model.game;
  if (!game || !game.window || !model.profile) return 0;
  const minimum = Number(model.profile.min_any_more_window_seconds) * 1000;
  const hubNow = Date.now() - clockOffset;
  return Math.max(0, minimum - (hubNow - game.window.openedAt));
}

function orderIsFinish() {
  const game = model.game;
  if (!game || !game.window) return false;
  return game.claims.some(
    (claim) => claim.kind === 'bingo' && claim.status === 'valid' && claim.ordinal === game.window.ordinal,
  );
}

// Conditions besides role and phase, by element id.
const EXTRA = {
  'announce-series': () => {
    const most = model.profile ? model.profile.max_series_per_game : 0; // 0: no limit
    return chosenSeries.size > 0 && (!most || chosenSeries.size <= most) && !model.lastGamePlayed;
  },
  // the rules refuse these until what they need is there (a card sold; the last game announced
  // and played)
  'close-sale': () => Boolean(model.game && model.game.cardsSold > 0),
  // at ball loading, with a note saying why the balls are not loaded (it goes in the acta)
  'close-session': () =>
    model.phase === 'ball_loading'
      ? $('#close-note').value.trim() !== ''
      : !(model.profile && model.profile.last_game_announcement_required) || model.lastGamePlayed,
  'announce-last-game': () => !model.lastGameAnnounced,
  'verify-claims': () => pendingClaims().length > 0,
  'give-order': () => pendingClaims().length === 0 && windowRemaining() === 0,
  'hold-confirm': () => Boolean(model.game && model.game.hold && model.game.hold.called),
  'form-change-ball-set': () => $('#change-ball-set-id').options.length > 0,
  'form-show-ball': () => $('#commission-set').options.length > 0 && $('#commission-number').value !== '',
  // every ball shown (the rules refuse a set with any missing); a simulated camera is shown
  // every ball by the hub itself when none was shown by hand
  'commission-judge': () =>
    $('#commission-set').options.length > 0 &&
    (showings ? showings.balls_missing.length === 0 : start.camera === 'simulated'),
  'commission-discard': () => Boolean(showings),
  'form-draw': () => Date.now() >= nextDrawAt && (start.draw !== 'blower' || $('#blower-number').value !== ''),
};

function updateActions() {
  for (const element of document.querySelectorAll('[data-cmd]')) {
    const command = element.dataset.cmd;
    element.hidden = !may(command) && element.id !== 'void-confirm';
    const extra = EXTRA[element.id];
    const enabled = legal(command) && !busy.has(element.id) && (!extra || extra());
    if (element.tagName === 'FORM') {
      for (const field of element.elements) {
        if (field.tagName === 'BUTTON') field.disabled = !enabled;
        else field.disabled = !legal(command);
      }
    } else {
      element.disabled = !enabled;
    }
    element.classList.toggle('busy', busy.has(element.id));
  }
  $('#void-confirm').hidden = !voidArmed || !may('void_game');
  $('#void-cancel').hidden = !voidArmed;
  $('#void-game').hidden = voidArmed || !may('void_game');
  // the rules ask a note with the cause of every void
  $('#void-confirm').disabled =
    !legal('void_game') || busy.has('void-confirm') || $('#void-note').value.trim() === '';
  for (const button of document.querySelectorAll('button.pay')) {
    button.hidden = !may('pay_prize');
    button.disabled = !legal('pay_prize') || busy.has(button.id) || button.dataset.payable !== 'true';
  }
  for (const form of document.querySelectorAll('form.pay-refund')) {
    form.hidden = !may('pay_refund');
    const row = form.closest('tr');
    if (row) row.hidden = form.hidden; // no empty row for those who may not refund
    for (const field of form.elements) field.disabled = !legal('pay_refund') || busy.has(form.id);
  }
  $('#p-void').hidden = !may('void_game');
  $('#p-requests').hidden = !may('record_player_request');
  for (const form of document.querySelectorAll('form.answer-request')) {
    for (const field of form.elements) field.disabled = !legal('answer_player_request') || busy.has(form.id);
  }
  $('#p-acta').hidden = !(principal && principal.acta);
  $('#p-table-record').hidden = !(principal && principal.table_record && start.tables.length);
}

// --- commands -------------------------------------------------------------------------------

const toast = toasts('#c-toasts');

function run(command, args, sourceId) {
  return runCommand(hub, command, args, { busy, source: sourceId, changed: rerender, show: toast });
}

function bindButton(id, command, args = () => ({})) {
  $(`#${id}`).addEventListener('click', (event) => {
    event.preventDefault();
    run(command, args(), id);
  });
}

function bindForm(id, command, args, after = () => {}) {
  const form = $(`#${id}`);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const typed = new Map([...form.elements].map((field) => [field, field.value]));
    const result = await run(command, args(), id);
    if (result) {
      after(typed, result);
      rerender();
    }
  });
}

// Empties a field once its command is done, unless something else has been typed into it
// meanwhile: the reply can come after the event the command caused, and by then the caller
// may have keyed the next ball.
function emptyUnlessRetyped(selector) {
  return (typed) => {
    const field = $(selector);
    if (field.value === typed.get(field)) field.value = '';
  };
}

function bindActions() {
  bindButton('open-session', 'open_session');
  bindButton('equipment-ok', 'record_equipment_check', () => ({ ok: true, notes: $('#equipment-notes').value }));
  bindButton('equipment-fail', 'record_equipment_check', () => ({ ok: false, notes: $('#equipment-notes').value }));
  bindButton('load-balls', 'load_balls');
  bindButton('announce-last-game', 'announce_last_game');
  bindForm(
    'form-player-request',
    'record_player_request',
    () => {
      const answer = $('#request-answer').value;
      return {
        kind: $('#request-kind').value,
        player: $('#request-player').value,
        text: $('#request-text').value,
        ...(answer.trim() ? { answer } : {}),
      };
    },
    (typed) => ['#request-player', '#request-text', '#request-answer'].forEach((f) => emptyUnlessRetyped(f)(typed)),
  );
  bindButton('close-session', 'close_session', () =>
    model.phase === 'ball_loading' ? { note: $('#close-note').value } : {},
  );
  $('#close-note').addEventListener('input', rerender);
  bindForm(
    'form-register-ball-set',
    'register_ball_set',
    () => ({ ball_set_id: $('#ball-set-id').value.trim(), homologation: $('#ball-set-homologation').value.trim() }),
    () => $('#form-register-ball-set').reset(),
  );
  bindForm(
    'form-change-ball-set',
    'change_ball_set',
    () => ({ ball_set_id: $('#change-ball-set-id').value, reason: $('#change-ball-set-reason').value.trim() }),
    () => $('#form-change-ball-set').reset(),
  );
  $('#commission-number').addEventListener('input', rerender);
  bindForm(
    'form-show-ball',
    'show_ball_to_camera',
    () => ({ ball_set_id: $('#commission-set').value, number: Number($('#commission-number').value) }),
    (typed, result) => {
      showings = result.showings;
      emptyUnlessRetyped('#commission-number')(typed);
      $('#commission-number').focus(); // the next ball
    },
  );
  $('#commission-judge').addEventListener('click', async () => {
    const result = await run('commission_ball_set', { ball_set_id: $('#commission-set').value }, 'commission-judge');
    if (result) showings = null;
    rerender();
  });
  $('#commission-discard').addEventListener('click', async () => {
    const result = await run('discard_ball_showings', {}, 'commission-discard');
    if (result) showings = null;
    rerender();
  });
  bindForm(
    'form-register-series',
    'register_series',
    () => ({
      series_id: $('#series-id').value.trim().toUpperCase(),
      face_value: $('#series-face').value.trim().replace(',', '.'),
      size: Number($('#series-size').value),
    }),
    () => $('#form-register-series').reset(),
  );
  bindButton('announce-series', 'announce_series', () => ({ series: [...chosenSeries] }));
  bindButton('start-sale', 'start_sale');
  $('#sale-first').addEventListener('input', () => (saleFirstAuto = false));
  $('#sale-series').addEventListener('change', () => {
    saleFirstAuto = true;
    rerender();
  });
  bindForm(
    'form-record-sale',
    'record_sale',
    () => {
      const args = {
        series_id: $('#sale-series').value,
        first: Number($('#sale-first').value),
        last: Number($('#sale-last').value),
      };
      return args;
    },
    () => {
      $('#sale-last').value = '';
      saleFirstAuto = true;
    },
  );
  bindButton('close-sale', 'close_sale');
  bindButton('announce-prizes', 'announce_prizes', () => {
    const row = $('#paying-row').value;
    return row === '' ? {} : { paying_row: Number(row) };
  });
  bindButton('start-draw', 'start_draw');
  $('#blower-number').addEventListener('input', rerender);
  $('#void-note').addEventListener('input', rerender);
  bindForm(
    'form-draw',
    'draw_ball',
    () => (start.draw === 'blower' ? { number: Number($('#blower-number').value) } : {}),
    emptyUnlessRetyped('#blower-number'),
  );
  bindButton('hold-confirm', 'resolve_hold', () => ({ number: model.game.hold.called }));
  bindForm(
    'form-hold-correct',
    'resolve_hold',
    () => ({ number: Number($('#hold-correct-number').value) }),
    emptyUnlessRetyped('#hold-correct-number'),
  );
  bindForm(
    'form-claim',
    'call_claim',
    () => ({ kind: $('#claim-kind').value, series_id: $('#claim-series').value, card_number: Number($('#claim-card').value) }),
    emptyUnlessRetyped('#claim-card'),
  );
  bindButton('verify-claims', 'verify_claims');
  bindButton('give-order', 'give_order');
  $('#void-game').addEventListener('click', () => {
    voidArmed = true;
    rerender();
  });
  $('#void-cancel').addEventListener('click', () => {
    voidArmed = false;
    rerender();
  });
  $('#void-confirm').addEventListener('click', async () => {
    const result = await run('void_game', { reason: $('#void-reason').value, note: $('#void-note').value.trim() }, 'void-confirm');
    voidArmed = false;
    if (result) $('#void-note').value = '';
    rerender();
  });
  $('#acta-open').addEventListener('click', () => openActa({ game: Number($('#acta-game').value) }));
  $('#acta-session').addEventListener('click', () => model.session && openActa({ session: model.session.id }));
  $('#table-record-open').addEventListener('click', () => openTableRecord($('#table-record-table').value, $('#table-record-session').value));
  $('#acta-print').addEventListener('click', () => window.print());
  $('#acta-close').addEventListener('click', () => ($('#acta-view').hidden = true));
}

// --- the registers (/api/hall) ---------------------------------------------------------------

let hallTimer = null;
function refreshHall(delay = 250) {
  clearTimeout(hallTimer);
  hallTimer = setTimeout(async () => {
    try {
      hall = await fetchStaff('/api/hall', credentials.user, credentials.password);
      rerender();
      if (hall.seq < model.seq) refreshHall(500);
    } catch (error) {
      if (error.code !== 'unauthorized') refreshHall(2000);
    }
  }, delay);
}

// --- rendering -------------------------------------------------------------------------------

function fill(container, ...children) {
  container.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
}

function fillSelect(select, options) {
  const current = select.value;
  const same =
    select.options.length === options.length &&
    options.every(([value, label], index) => select.options[index].value === value && select.options[index].textContent === label);
  if (!same) {
    select.replaceChildren(...options.map(([value, label]) => el('option', { value, text: label })));
  }
  if (options.some(([value]) => value === current)) select.value = current;
}

function nextCard(game, seriesId) {
  const range = game.ranges.find((r) => r.series_id === seriesId);
  if (range) return range.last + 1;
  const announced = game.series.find((s) => s.series_id === seriesId);
  return announced ? announced.first_available : 1;
}

function renderSession() {
  const session = model.session;
  const info = [];
  if (session && model.phase !== 'session_closed') {
    info.push(
      t('session.info', {
        id: session.id,
        profile: model.profile.title,
        machine: session.machineId,
        kind: t(`machine.${session.machineKind}`),
      }),
    );
    if (model.equipment) info.push(t(model.equipment.ok ? 'session.equipment_ok' : 'session.equipment_failed'));
  } else {
    info.push(t(model.closedReason === 'equipment_check_failed' ? 'session.closed_failed' : 'session.closed'));
  }
  $('#session-info').textContent = info.join(' · ');
  $('#last-game-note').hidden = !model.lastGameAnnounced || model.phase === 'session_closed';
  $('#close-note').hidden = model.phase !== 'ball_loading';
}

function renderBallSets() {
  const body = $('#ball-sets tbody');
  const sets = hall ? hall.ball_sets : [];
  const limit = hall ? hall.ball_set_game_limit : 0;
  const inService = model.ballSetInService || (hall && hall.ball_set_in_service);
  body.replaceChildren(
    ...sets.map((set) => {
      const near = limit && set.games >= limit * 0.95;
      const state = set.retired ? 'retired' : set.ball_set_id === inService ? 'in_service' : 'registered';
      return el(
        'tr',
        { class: state.replace('_', '-'), dataset: { set: set.ball_set_id } },
        el('td', { text: set.ball_set_id }),
        el('td', { text: set.homologation || '—' }),
        el('td', { class: near ? 'warn' : null, text: limit ? t('ball_set.games_of', { games: set.games, limit }) : String(set.games) }),
        el('td', { text: t(`ball_set.state.${state}`) }),
        el('td', {
          class: set.camera_fit === false ? 'warn' : null,
          text: t(set.camera_fit === null || set.camera_fit === undefined ? 'ball_set.camera.untested' : set.camera_fit ? 'ball_set.camera.fit' : 'ball_set.camera.unfit'),
        }),
      );
    }),
  );
  fillSelect(
    $('#change-ball-set-id'),
    sets.filter((set) => !set.retired && set.ball_set_id !== inService).map((set) => [set.ball_set_id, set.ball_set_id]),
  );
  renderCommissioning(sets);
}

// The camera test of a ball set (spec §4): each ball put at the exit and keyed, the hub reads
// it; once every ball was shown, the set is judged.
function renderCommissioning(sets) {
  const camera = start ? start.camera : 'none';
  $('#commissioning').hidden = camera === 'none' || !may('commission_ball_set');
  if ($('#commissioning').hidden) return;
  $('#commissioning-how').textContent = t(`commissioning.how_${camera}`);
  const choices = showings ? [showings.ball_set_id] : sets.filter((set) => !set.retired).map((set) => set.ball_set_id);
  fillSelect($('#commission-set'), choices.map((id) => [id, id]));
  const shown = showings ? showings.showings : [];
  const read = shown.filter((s) => s.camera.reading === s.number).length;
  let progress = '';
  if (showings) {
    const missing = showings.balls_missing;
    progress = t('commissioning.progress', { set: showings.ball_set_id, shown: shown.length, balls: 90 - missing.length, read });
    if (missing.length) progress += ` · ${t('commissioning.missing', { balls: missing.length <= 12 ? missing.join(', ') : `${missing.slice(0, 12).join(', ')}…`, count: missing.length })}`;
  } else if (lastVerdict) {
    const v = lastVerdict;
    progress = t(v.fit ? 'commissioning.verdict_fit' : 'commissioning.verdict_unfit', { set: v.ball_set_id, read: v.read, shown: v.showings.length });
    if (v.refusals.length) progress += `: ${v.refusals.join('; ')}`;
  }
  $('#commissioning-progress').textContent = progress;
  $('#showings tbody').replaceChildren(
    ...shown
      .slice(-90)
      .reverse()
      .map((s) => {
        const c = s.camera;
        const seen = c.reading ?? c.guess;
        const wrong = seen !== null && seen !== undefined && seen !== s.number;
        const reading = c.reading ?? (c.guess !== null && c.guess !== undefined ? t('hold.guess', { n: c.guess }) : t(`hold.reason.${c.reason}`));
        return el(
          'tr',
          { class: wrong ? 'warn' : null, dataset: { ball: String(s.number) } },
          el('td', { text: String(s.number) }),
          el('td', { text: String(reading) }),
          el('td', { text: `${Math.floor(c.confidence * 100)} %` }),
        );
      }),
  );
}

function renderSeries() {
  const body = $('#series-table tbody');
  const series = hall ? hall.series : [];
  for (const id of [...chosenSeries]) if (!series.some((s) => s.series_id === id)) chosenSeries.delete(id);
  const canChoose = legal('announce_series') && may('announce_series');
  body.replaceChildren(
    ...series.map((s) => {
      const box = el('input', { type: 'checkbox', class: 'choose-series', dataset: { series: s.series_id } });
      box.checked = chosenSeries.has(s.series_id);
      box.disabled = !canChoose || s.remaining <= 0;
      box.addEventListener('change', () => {
        if (box.checked) chosenSeries.add(s.series_id);
        else chosenSeries.delete(s.series_id);
        rerender();
      });
      return el(
        'tr',
        { dataset: { series: s.series_id } },
        el('td', {}, box),
        el('td', { text: s.series_id }),
        el('td', { text: money(s.face_value) }),
        el('td', { text: String(s.size) }),
        el('td', { class: 'next', text: String(s.next_number) }),
        el('td', { text: String(s.remaining) }),
      );
    }),
  );
  const game = model.game;
  $('#game-series-info').textContent =
    game && !game.ended
      ? t('game.series_info', {
          game: game.id,
          series: game.series.map((s) => t('game.series_from', { series: s.series_id, first: s.first_available, face: money(s.face_value) })).join(', '),
        }) + (game.lastGame ? ` · ${t('game.last_game')}` : '')
      : '';
}

function renderSale() {
  const game = model.game && !model.game.ended ? model.game : null;
  fillSelect($('#sale-series'), game ? game.series.map((s) => [s.series_id, s.series_id]) : []);
  fillSelect($('#claim-series'), game ? game.series.map((s) => [s.series_id, s.series_id]) : []);
  if (game && saleFirstAuto && document.activeElement !== $('#sale-first')) {
    $('#sale-first').value = String(nextCard(game, $('#sale-series').value));
  }
  const shown = model.game;
  $('#sales tbody').replaceChildren(
    ...(shown ? shown.sales : []).map((sale) =>
      el(
        'tr',
        {},
        el('td', { text: sale.series_id }),
        el('td', { text: `${sale.first}–${sale.last}` }),
        el('td', { text: String(sale.count) }),
        el('td', { text: money(times(sale.face_value, sale.count)) }),
        el('td', { text: sale.buyer ? t('sale.terminal', { buyer: sale.buyer }) : sale.actor }),
      ),
    ),
  );
  $('#sale-total-cards').textContent = String(shown ? shown.cardsSold : 0);
  $('#sale-takings').textContent = shown ? money(shown.takings) : '—';
}

function wordingPreview(game, profile) {
  return (
    game.ranges
      .map((range, index) =>
        (index === 0 ? profile.sale_wording_first : profile.sale_wording_next)
          .replace('{series}', range.series_id)
          .replace('{first}', range.first)
          .replace('{last}', range.last),
      )
      .join('') + (profile.sale_wording_end || '')
  );
}

function renderAnnouncement() {
  const game = model.game;
  const profile = model.profile;
  const previewing = game && profile && !game.wording && ['selling', 'sale_closed'].includes(game.status) && game.ranges.length;
  $('#announce-preview').hidden = !previewing;
  if (previewing) {
    $('#preview-wording').textContent = wordingPreview(game, profile);
    $('#preview-prizes').textContent = t('announce.prizes', {
      line: money(percentageOf(game.takings, profile.line_prize_percent, profile.rounding_unit)),
      bingo: money(percentageOf(game.takings, profile.bingo_prize_percent, profile.rounding_unit)),
    });
  }
  $('#paying-row-box').hidden = !(profile && profile.designated_line_allowed);
  const announced = game && game.wording;
  $('#announcement').hidden = !announced;
  if (announced) {
    $('#announcement-wording').textContent = game.wording;
    $('#announcement-prizes').textContent =
      t('announce.prizes', { line: money(game.linePrize), bingo: money(game.bingoPrize) }) +
      (game.payingRow !== null && game.payingRow !== undefined ? ` · ${t('announce.paying_row_is', { row: t(`row.${game.payingRow}`) })}` : '');
    $('#announcement-start').textContent = t(game.status === 'announced' ? 'announce.start_next' : 'announce.started');
  }
}

function renderDraw() {
  $('#draw-mode').textContent = t(`draw.mode.${start.draw}`);
  $('#blower-number').hidden = start.draw !== 'blower';
  $('#blower-number').required = start.draw === 'blower';
  const game = model.game;
  const limit = hall ? hall.ball_set_game_limit : 0;
  $('#ball-set-line').textContent =
    game && game.ballSet
      ? t(limit ? 'draw.ball_set_of' : 'draw.ball_set', { set: game.ballSet.ball_set_id, games: game.ballSet.games_on_set, limit })
      : '';
}

function renderHold() {
  const game = model.game;
  const hold = model.phase === 'camera_hold' && game ? game.hold : null;
  $('#p-hold').hidden = !hold;
  if (!hold) return;
  const camera = hold.camera || {};
  $('#hold-called').textContent = hold.called ?? '—';
  $('#hold-reading').textContent =
    camera.reading ?? (camera.guess !== null && camera.guess !== undefined ? t('hold.guess', { n: camera.guess }) : '—');
  // Cut, never rounded up: a reading held at 0.996 must not show as a certain 100 %.
  const read = camera.reason !== 'no_picture' && camera.confidence !== undefined && camera.confidence !== null;
  $('#hold-confidence').textContent = read ? `${Math.floor(camera.confidence * 100)} %` : '—';
  const disagrees = camera.reading !== null && camera.reading !== undefined && camera.reading !== hold.called;
  // the camera (or the set's prints) names a ball already out: the ball before may still be in view
  const named = camera.set_ball ?? (camera.reason === 'unsure' ? camera.guess : null);
  const drawnBefore = Boolean(named) && called(game).has(named);
  $('#hold-reason').textContent = hold.cause === 'uncommissioned_set'
    ? t('hold.reason.uncommissioned_set')
    : camera.reason
    ? t(`hold.reason.${camera.reason}${drawnBefore ? '_drawn' : ''}`, { n: named })
    : disagrees
      ? t('hold.reason.disagrees')
      : '—';
  const frame = $('#hold-frame');
  if (camera.frame) {
    const src = `/frames/${camera.frame}.jpg`;
    if (frame.getAttribute('src') !== src) frame.src = src;
    frame.alt = t('hold.frame_alt');
  }
  frame.hidden = !camera.frame;
  $('#hold-confirm').textContent = t('hold.confirm', { n: hold.called ?? '' });
  // a ball already called is never offered as the correction, whichever reading names it
  const suggestion = [camera.reading, camera.guess].find((n) => n && !called(game).has(n));
  const field = $('#hold-correct-number');
  if (!field.value && document.activeElement !== field) {
    field.placeholder = suggestion ? t('hold.correct_to_n', { n: suggestion }) : t('hold.correct_to');
  }
}

function claimBox(claim, calledSet) {
  return el(
    'div',
    { class: 'claim-box', dataset: { claim: String(claim.claim_id), status: claim.status } },
    el('h3', { text: t('claim.heading', { kind: t(`claim.kind.${claim.kind}`), series: claim.series_id, number: claim.card_number }) }),
    el('div', { class: 'claim-meta', text: t('claim.meta', { ordinal: claim.ordinal, who: claim.actor }) }),
    cardGrid(claim.grid, calledSet, { rows: claim.rows || [], missing: claim.missing || [] }),
    el('div', { class: `verdict verdict-${claim.status}`, text: t(`claim.status.${claim.status}`) }),
    claim.reason ? el('div', { class: 'reason', text: t(`claim.reason.${claim.reason}`) }) : null,
    claim.missing && claim.missing.length ? el('div', { class: 'missing-list', text: t('claim.missing', { numbers: claim.missing.join(', ') }) }) : null,
  );
}

function renderClaims() {
  const game = model.game;
  const claims = currentClaims(game);
  const earlier = game ? game.claims.filter((claim) => !claims.includes(claim)) : [];
  const calledSet = called(game);
  fill(
    $('#verification'),
    ...claims.map((claim) => claimBox(claim, calledSet)),
    earlier.length
      ? el(
          'ul',
          { class: 'claims-history' },
          ...earlier.map((claim) =>
            el('li', {
              text: `${t('claim.heading', { kind: t(`claim.kind.${claim.kind}`), series: claim.series_id, number: claim.card_number })} — ${t(`claim.status.${claim.status}`)}`,
            }),
          ),
        )
      : null,
  );
}

function renderWindow() {
  const open = model.phase === 'any_more_window';
  $('#p-window').hidden = !open;
  if (!open) return;
  const remaining = windowRemaining();
  $('#window-countdown').textContent = remaining > 0 ? t('window.seconds', { s: Math.ceil(remaining / 1000) }) : t('window.may_order');
  $('#give-order').textContent = t(orderIsFinish() ? 'order.finish' : 'order.resume');
}

function renderVoid() {
  const game = model.game;
  // an error announcing a number needs a number announced (the hub refuses it before)
  const announced = Boolean(game && game.balls.length);
  const reasons = (model.profile ? model.profile.void_reasons : []).filter((reason) => announced || reason !== 'announcement_error');
  fillSelect($('#void-reason'), reasons.map((reason) => [reason, t(`void.reason.${reason}`)]));
  const result = $('#void-result');
  result.hidden = !(game && game.void);
  if (!game || !game.void) return;
  const v = game.void;
  const refunded = game.refundsPaid.reduce((sum, paid) => add(sum, paid.amount), '0');
  result.replaceChildren(
    el('p', { class: 'void-title', text: t('void.done', { game: game.id, reason: t(`void.reason.${v.reason}`), note: v.note }) }),
    el(
      'ul',
      { class: 'refunds' },
      ...v.refunds.map((r) =>
        el('li', {
          text: t('void.refund', {
            series: r.series_id,
            first: r.first,
            last: r.last,
            count: r.last - r.first + 1,
            amount: money(times(r.face_value, r.last - r.first + 1)),
          }),
        }),
      ),
    ),
    el('p', { class: 'refund-total', text: t('void.refund_total', { amount: money(v.refund_total) }) }),
    el('p', { class: 'refund-state', text: t('void.refunded', { paid: money(refunded), owed: money(add(v.refund_total, `-${refunded}`)) }) }),
    ...v.restitutions.map((r) =>
      el('p', {
        class: 'restitution',
        text: t(r.paid ? 'void.restitution_paid' : 'void.restitution_withdrawn', { series: r.series_id, number: r.card_number, amount: money(r.amount) }),
      }),
    ),
  );
}

function renderPayments() {
  const awards = hall ? hall.awards : [];
  $('#prizes tbody').replaceChildren(
    ...awards.map((award) => {
      const id = `pay-${award.game_id}-${award.claim_id}`;
      const state = award.status === 'paid' ? 'paid' : award.payable ? 'payable' : 'not_yet';
      const button = el('button', {
        id,
        class: 'pay',
        type: 'button',
        text: t('prizes.pay'),
        dataset: { payable: String(state === 'payable'), game: String(award.game_id), claim: String(award.claim_id) },
      });
      button.addEventListener('click', () => run('pay_prize', { game_id: award.game_id, claim_id: award.claim_id }, id));
      return el(
        'tr',
        { dataset: { game: String(award.game_id), claim: String(award.claim_id), state } },
        el('td', { text: String(award.game_id) }),
        el('td', { text: t(`claim.kind.${award.kind}`) }),
        el('td', { text: `${award.series_id}-${award.card_number}` }),
        el('td', { text: money(award.amount) }),
        el('td', { class: 'prize-state', text: t(`prizes.state.${state}`) }),
        el('td', {}, state === 'paid' ? null : button),
      );
    }),
  );
  const game = model.game;
  fill(
    $('#split-info'),
    ...(game ? game.splits : []).map((split) =>
      el('p', {
        class: 'split',
        dataset: { kind: split.kind },
        text: t('prizes.split', {
          kind: t(`claim.kind.${split.kind}`),
          pot: money(split.pot),
          ways: split.winners.length,
          share: money(split.share),
          residue: money(split.residue),
        }),
      }),
    ),
    game && game.lineUnclaimed
      ? el('p', { text: t(`prizes.line_unclaimed.${game.lineUnclaimed.disposition}`, { amount: money(game.lineUnclaimed.amount) }) })
      : null,
  );
}

// The refunds voided games owe (the registers: of any session, until every card is refunded),
// one row per game and series (a tbody: the row, and under it a form to refund a range, by
// default the first range still owed). Each is rebuilt only when what it shows changes, so that
// a range being typed is kept while the game goes on.
const refundRowCache = new Map(); // "game/series" -> { key, row }
function renderRefunds() {
  const rows = [];
  let owing = false;
  for (const ledger of hall ? hall.refunds || [] : []) {
    for (const sold of ledger.refunds) {
      const paid = ledger.paid.filter((r) => r.series_id === sold.series_id);
      const owed = ledger.owed.filter((r) => r.series_id === sold.series_id);
      owing = owing || owed.length > 0;
      const id = `${ledger.game_id}/${sold.series_id}`;
      const key = JSON.stringify([language(), model.session && model.session.id, ledger.session_id, sold, paid, owed]);
      const cached = refundRowCache.get(id);
      if (cached && cached.key === key) {
        rows.push(cached.row);
        continue;
      }
      const row = refundRow(ledger, sold, paid, owed);
      refundRowCache.set(id, { key, row });
      rows.push(row);
    }
  }
  placeRows($('#refunds'), rows, 'tbody');
  $('#refunds').hidden = rows.length === 0;
  $('#refunds-none').hidden = owing;
}

function rangeText(r) {
  return t('refunds.range', { first: r.first, last: r.last, count: r.cards, amount: money(r.amount) });
}

function refundRow(ledger, sold, paid, owed) {
  const earlier = model.session && ledger.session_id !== model.session.id;
  return el(
    'tbody',
    { class: 'refund', dataset: { game: String(ledger.game_id), series: sold.series_id, state: owed.length ? 'owed' : 'refunded' } },
    el(
      'tr',
      {},
      el('td', { class: 'refund-game', text: earlier ? `${ledger.game_id} (${t('refunds.of_session', { n: ledger.session_id })})` : String(ledger.game_id) }),
      el('td', { text: sold.series_id }),
      el('td', { class: 'refund-sold', text: rangeText(sold) }),
      el('td', { class: 'refund-paid', text: paid.map(rangeText).join('; ') || '—' }),
      el('td', { class: 'refund-owed', text: owed.map(rangeText).join('; ') || t('refunds.done') }),
    ),
    owed.length ? el('tr', { class: 'refund-form' }, el('td', { colspan: '5' }, refundForm(ledger.game_id, sold.series_id, owed[0]))) : null,
  );
}

function refundForm(gameId, seriesId, owed) {
  const id = `refund-${gameId}-${seriesId}`;
  const number = (name, value) =>
    el('input', { class: `refund-${name}`, type: 'number', min: '1', required: true, value: String(value), title: t(`refunds.${name}`), placeholder: t(`refunds.${name}`) });
  const first = number('first', owed.first);
  const last = number('last', owed.last);
  const form = el('form', { id, class: 'inline pay-refund' }, first, last, el('button', { type: 'submit', text: t('refunds.pay') }));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const args = { game_id: gameId, series_id: seriesId, first: Number(first.value), last: Number(last.value) };
    if (await run('pay_refund', args, id)) rerender();
  });
  return form;
}

// Puts `rows` (the container's children matching `selector`, after any others) in order: rows
// no longer shown go, new ones are put in place, and a row kept is never moved, so that a field
// being typed in keeps its focus as well as its text.
function placeRows(container, rows, selector = 'tr') {
  const kept = new Set(rows);
  for (const row of container.querySelectorAll(`:scope > ${selector}`)) if (!kept.has(row)) row.remove();
  let next = container.querySelector(`:scope > ${selector}`);
  for (const row of rows) {
    if (row === next) next = next.nextElementSibling;
    else container.insertBefore(row, next);
  }
}

function renderLive() {
  const game = model.game;
  const calledSet = called(game);
  const last = lastBall(game);
  $('#live-game').textContent = game ? t('live.game_n', { n: game.id }) + ` · ${t(`game.status.${game.status}`)}` : '—';
  $('#live-last').textContent = last ? String(last.number) : '';
  $('#live-count').textContent = String(game ? game.balls.length : 0);
  updateBoard($('#board'), calledSet, last ? last.number : null);
  $('#last-five').textContent = game ? game.balls.slice(-5).reverse().map((ball) => ball.number).join('  ') : '';
  $('#live-line-prize').textContent = game && game.linePrize ? money(game.linePrize) : '—';
  $('#live-bingo-prize').textContent = game && game.bingoPrize ? money(game.bingoPrize) : '—';
  $('#events-log').replaceChildren(...eventLines.slice(-60).reverse().map((line) => el('li', { value: line.seq, text: line.text })));
}

// The requests shown: this session's (its events), those still open (the registers, of any
// session) and earlier ones answered in this session. Each row is rebuilt only when its answer
// or the language changes, so that an answer being typed in another row is kept.
const earlierRequests = new Map(); // open requests seen in the registers, by number
const requestRowCache = new Map(); // number -> { key, row }
function renderRequests() {
  const rows = new Map(model.requests.map((r) => [r.request_id, { ...r, session_id: model.session && model.session.id }]));
  for (const r of hall ? hall.open_requests : []) {
    earlierRequests.set(r.request_id, r);
    if (!rows.has(r.request_id)) rows.set(r.request_id, { ...r, answer: null });
  }
  for (const [id, answer] of Object.entries(model.answers)) {
    const request = rows.get(Number(id)) || earlierRequests.get(Number(id));
    if (request) rows.set(Number(id), { ...request, answer });
  }
  const shown = [...rows.values()].sort((a, b) => b.request_id - a.request_id);
  const elements = shown.map((r) => {
    const key = JSON.stringify([language(), r.answer ?? null, model.session && model.session.id]);
    const cached = requestRowCache.get(r.request_id);
    if (cached && cached.key === key) return cached.row;
    const row = requestRow(r);
    requestRowCache.set(r.request_id, { key, row });
    return row;
  });
  placeRows($('#requests tbody'), elements);
}

function requestRow(r) {
  const earlier = model.session && r.session_id && r.session_id !== model.session.id;
  const answered = r.answer !== null && r.answer !== undefined;
  return el(
    'tr',
    { dataset: { request: String(r.request_id), answered: String(answered) } },
    el('td', { text: earlier ? `${r.request_id} (${t('request.of_session', { n: r.session_id })})` : String(r.request_id) }),
    el('td', { text: t(`request.kind.${r.kind}`) }),
    el('td', { text: r.player || '—' }),
    el('td', { class: 'request-text', text: r.text }),
    el('td', {}, answered ? r.answer : answerForm(r.request_id)),
  );
}

function answerForm(requestId) {
  const id = `answer-request-${requestId}`;
  const input = el('input', { maxlength: '2000', required: true, placeholder: t('request.answer_placeholder') });
  const form = el('form', { id, class: 'inline answer-request' }, input, el('button', { type: 'submit', text: t('request.reply') }));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = await run('answer_player_request', { request_id: requestId, answer: input.value }, id);
    if (result) rerender();
  });
  return form;
}

function eventSummary(envelope) {
  const p = envelope.payload;
  const name = t(`event.${envelope.event}`);
  const detail = {
    ball_drawn: () => ` ${p.number} (${p.ordinal})${p.check ? ` · ${t(`check.${p.check}`)}` : ''}`,
    ball_held: () => (p.called ? ` ${p.called}` : ''),
    claim_called: () => ` ${p.series_id}-${p.card_number}`,
    claim_verified: () => ` ${t(p.valid ? 'claim.status.valid' : 'claim.status.invalid')}`,
    sale_recorded: () => ` ${p.sale.series_id} ${p.sale.first}–${p.sale.last}`,
    prize_split: () => ` ${money(p.share)} × ${p.winners.length}`,
    order_given: () => ` ${t(`order.${p.order}`)}`,
    ball_set_commissioned: () => ` ${p.ball_set_id}: ${t(p.fit ? 'ball_set.camera.fit' : 'ball_set.camera.unfit')}`,
    ball_shown_to_camera: () => ` ${p.ball_set_id}: ${p.showing.number}`,
    ball_showings_discarded: () => ` ${p.ball_set_id} (${p.showings})`,
    player_request_recorded: () => ` nº ${p.request_id}`,
    player_request_answered: () => ` nº ${p.request_id}`,
    refund_paid: () => ` ${p.series_id} ${p.first}–${p.last} · ${money(p.amount)}`,
  }[envelope.event];
  return `${name}${detail ? detail() : ''}`;
}

function render() {
  if (!start || !principal) return;
  $('#c-hall').textContent = start.name || start.hall;
  $('#c-phase').textContent = t(`phase.${model.phase}`);
  $('#c-phase').dataset.phase = model.phase;
  $('#c-who').textContent = t('login.who', { user: principal.principal, role: t(`role.${principal.role}`) });
  renderSession();
  renderBallSets();
  renderSeries();
  renderSale();
  renderAnnouncement();
  renderDraw();
  renderHold();
  renderClaims();
  renderWindow();
  renderVoid();
  renderPayments();
  renderRefunds();
  renderRequests();
  renderTableChoice();
  renderLive();
  updateActions();
}

const rerender = scheduler(render);

// --- the acta ---------------------------------------------------------------------------------

function actaTable(rows) {
  return el('table', {}, el('tbody', {}, ...rows.map(([label, value]) => el('tr', {}, el('th', { text: label }), el('td', { text: value })))));
}

async function openActa(scope) {
  const query = scope.game ? `game=${scope.game}` : `session=${scope.session}`;
  if (!scope.game && !scope.session) {
    toast(t('acta.choose'));
    return;
  }
  let data;
  try {
    data = await fetchStaff(`/api/acta?${query}`, credentials.user, credentials.password);
  } catch (error) {
    toast(errorText('acta', error));
    return;
  }
  const acta = data.acta;
  const session = acta.session;
  const doc = $('#acta-doc');
  const parts = [
    el('h1', { text: scope.game ? t('acta.title_game', { game: scope.game, hall: acta.hall }) : t('acta.title_session', { session: scope.session, hall: acta.hall }) }),
    el('p', {
      class: acta.chain.ok ? 'chain-ok' : 'chain-bad',
      text: t(acta.chain.ok ? 'acta.chain_ok' : 'acta.chain_bad', { events: acta.chain.events, problem: acta.chain.problem || '' }),
    }),
    actaTable([
      [t('acta.session_id'), String(session.session_id)],
      [t('acta.profile'), session.profile.title],
      [t('acta.machine'), `${session.machine.id} (${t(`machine.${session.machine.kind}`)})`],
    ]),
  ];
  for (const game of session.games) {
    parts.push(el('h2', { text: t('live.game_n', { n: game.game_id }) + ` — ${t(`acta.status.${game.status}`)}` }));
    parts.push(
      actaTable([
        [t('sale.total_cards'), String(game.cards_sold)],
        [t('sale.takings'), money(game.takings)],
        [t('acta.announcement'), game.announcement || '—'],
        [t('prize.line'), money(game.line_prize)],
        [t('prize.bingo'), money(game.bingo_prize)],
        [t('acta.balls'), game.balls.map((ball) => `${ball.ordinal}:${ball.number}`).join(' ') || '—'],
        [
          t('acta.claims'),
          game.claims.map((c) => `${t(`claim.kind.${c.kind}`)} ${c.series_id}-${c.card_number} (${c.ordinal}): ${t(`claim.status.${c.result}`)}`).join('; ') || '—',
        ],
        [
          t('acta.prizes'),
          game.prizes
            .map((p) => t('prizes.split', { kind: t(`claim.kind.${p.kind}`), pot: money(p.pot), ways: p.winners.length, share: money(p.share), residue: money(p.residue) }))
            .join('; ') || '—',
        ],
        [t('acta.void'), game.void ? `${t(`void.reason.${game.void.reason}`)}: ${game.void.note} — ${t('void.refund_total', { amount: money(game.void.refund_total) })}` : '—'],
      ]),
    );
  }
  parts.push(el('h2', { text: t('acta.official') }));
  parts.push(el('pre', { class: 'official', text: data.text }));
  doc.replaceChildren(...parts);
  $('#acta-view').hidden = false;
}

// --- a casino table's record -----------------------------------------------------------------

function renderTableChoice() {
  const select = $('#table-record-table');
  const names = start.tables.map((table) => `${table.table_id} — ${t(`table.game.${table.game}`)}`);
  if ([...select.options].map((option) => option.text).join('\n') === names.join('\n')) return;
  const chosen = select.value;
  select.replaceChildren(...start.tables.map((table, index) => el('option', { value: table.table_id, text: names[index] })));
  if (chosen) select.value = chosen;
}

// The log's times are UTC; shown as the record's text shows them, to the millisecond.
function utc(at) {
  return `${at.slice(0, 10)} ${at.slice(11, 23)} UTC`;
}

// The seal found on the cylinder at the opening, against the last close's (none to check at
// a table's first session).
function openingSeal(seal) {
  if (seal.expected === null) return '—';
  if (seal.found === seal.expected) return t('table_record.seal_matches', { found: seal.found });
  return t('table_record.seal_differs', { found: seal.found, expected: seal.expected, note: seal.note });
}

function difference(count, currency) {
  if (count.difference === null) return '—';
  const amount = Number(count.difference);
  if (amount === 0) return t('table_record.count_agrees');
  return t(amount < 0 ? 'table_record.count_short' : 'table_record.count_over', { amount: money(count.difference.replace('-', ''), currency) });
}

async function openTableRecord(tableId, session) {
  if (session !== '' && !/^[1-9][0-9]{0,8}$/.test(session)) {
    toast(t('table_record.bad_session'));
    return;
  }
  const query = new URLSearchParams({ table: tableId });
  if (session !== '') query.set('session', session);
  let data;
  try {
    data = await fetchStaff(`/api/table-record?${query}`, credentials.user, credentials.password);
  } catch (error) {
    toast(errorText('table_record', error));
    return;
  }
  const { record } = data;
  const s = record.session;
  const totals = s.totals;
  const parts = [
    el('h1', { text: t('table_record.title', { table: record.table, session: s.session_id, hall: record.hall }) }),
    el('p', {
      class: record.chain.ok ? 'chain-ok' : 'chain-bad',
      text: t(record.chain.ok ? 'acta.chain_ok' : 'acta.chain_bad', { events: record.chain.events, problem: record.chain.problem || '' }),
    }),
    actaTable([
      [t('table_record.game'), `${t(`table.game.${s.game}`)} (${s.profile})`],
      [t('table_record.sessions'), record.sessions.join(', ')],
      [t('table_record.opened'), t('table_record.at_by', { at: utc(s.opened_at), by: s.opened_by })],
      [t('table_record.closed'), s.closed_at ? t('table_record.at_by', { at: utc(s.closed_at), by: s.closed_by }) : t('table_record.still_open')],
      [t('table_record.seal_at_opening'), openingSeal(s.seal_at_opening)],
      [t('table_record.seal'), s.seal || '—'],
      [t('table_record.coups'), String(totals.coups_settled)],
      [t('table_record.staked'), money(totals.staked, s.currency)],
      [t('table_record.returns'), money(totals.returns, s.currency)],
      [t('table_record.bank_result'), money(totals.bank_result, s.currency)],
      [t('table_record.float'), s.float.issued === null ? '—' : money(s.float.issued, s.currency)],
      [t('table_record.count'), s.count ? difference(s.count, s.currency) : '—'],
    ]),
    el('h2', { text: t('table_record.official') }),
    el('pre', { class: 'official', text: data.text }),
  ];
  $('#acta-doc').replaceChildren(...parts);
  $('#acta-view').hidden = false;
}

// --- connection -------------------------------------------------------------------------------

function onEvent(envelope, { replay }) {
  if (!replay) clockOffset = Date.now() - Date.parse(envelope.time);
  apply(model, envelope);
  eventLines.push({ seq: envelope.seq, text: eventSummary(envelope) });
  if (eventLines.length > 200) eventLines.splice(0, eventLines.length - 200);
  if (envelope.event === 'sale_recorded' || envelope.event === 'series_announced') saleFirstAuto = true;
  if (envelope.event === 'ball_set_commissioned') {
    lastVerdict = envelope.payload;
    // judged, from this page or another: the hub keeps none of that set's showings now
    if (!replay && showings && showings.ball_set_id === envelope.payload.ball_set_id) showings = null;
  }
  if (envelope.event === 'ball_drawn' && !replay) {
    const delay = (start.display_delay || 0) * 1000;
    nextDrawAt = Date.now() + delay;
    setTimeout(rerender, delay + 20);
  }
  refreshHall();
  rerender();
}

const onStatus = connectionStatus('#c-conn', (why, code) => {
  $('#c-login').hidden = false;
  $('#c-app').hidden = true;
  $('#c-login-error').textContent = code === 'unauthorized' ? t('login.failed') : why;
  $('#c-login-submit').disabled = false;
  principal = null;
  credentials = null;
});

function onAuth(message) {
  principal = message;
  $('#c-login').hidden = true;
  $('#c-app').hidden = false;
  $('#c-logout').hidden = false;
  watchCamera();
  refreshHall(0);
  if (may('ball_showings')) {
    // a set half shown from another control page, or before this page was reloaded
    hub.command('ball_showings', {}).then(
      (result) => {
        showings = result.showings;
        rerender();
      },
      () => {},
    );
  }
  rerender();
}

async function login(event) {
  event.preventDefault();
  $('#c-login-error').textContent = '';
  $('#c-login-submit').disabled = true;
  credentials = { user: $('#c-user').value.trim(), password: $('#c-password').value };
  $('#c-password').value = '';
  try {
    start = await fetchStart();
  } catch {
    $('#c-login-error').textContent = t('conn.reconnecting');
    $('#c-login-submit').disabled = false;
    return;
  }
  model = newModel();
  eventLines.length = 0;
  showings = null;
  lastVerdict = null;
  if (hub) hub.stop();
  hub = new Hub({
    auth: { user: credentials.user, password: credentials.password },
    channel: 'caller',
    afterSeq: start.session_from,
    onEvent,
    onStatus,
    onAuth,
    onShowings: (shown) => {
      showings = shown; // another control page showed a ball or discarded the showings
      rerender();
    },
  });
  hub.start();
  $('#c-login-submit').disabled = false;
}

const CAMERA_EVERY_MS = 2000;
let cameraPoller = null;

/** The exit camera's status from /health, in the header: the CCTV camera is mandatory (spec
 * §4), and a live one that stops giving pictures holds every call until it is back. */
async function showCamera() {
  let camera;
  try {
    const response = await fetch('/health', { cache: 'no-store' });
    camera = (await response.json()).camera;
  } catch {
    return; // the hub's own connection status says it is unreachable
  }
  const badge = $('#c-camera');
  badge.hidden = camera === null;
  if (camera === null) return;
  const state = camera.kind !== 'live' ? camera.kind : camera.receiving ? 'live' : 'no_picture';
  badge.dataset.state = state;
  badge.textContent = t(`camera.status.${state}`);
}

function watchCamera() {
  clearInterval(cameraPoller);
  showCamera();
  cameraPoller = setInterval(showCamera, CAMERA_EVERY_MS);
}

function logout() {
  clearInterval(cameraPoller);
  cameraPoller = null;
  $('#c-camera').hidden = true;
  if (hub) hub.stop();
  hub = null;
  principal = null;
  credentials = null;
  hall = null;
  $('#c-app').hidden = true;
  $('#c-login').hidden = false;
  $('#c-logout').hidden = true;
}

async function main() {
  // The login is the page's own from the start: until the script's handler is bound, the
  // browser would send the form itself, the password in the address. The button, disabled
  // in the page, is enabled once the texts are in place.
  $('#c-login-form').addEventListener('submit', login);
  await setLanguage(initialLanguage('bingo.control.lang'), { storageKey: 'bingo.control.lang' });
  await languagePicker($('#c-lang'), async (code) => {
    await setLanguage(code, { storageKey: 'bingo.control.lang' });
    render();
  });
  buildBoard($('#board'));
  applyTranslations(document);
  bindActions();
  $('#c-login-submit').disabled = false;
  $('#c-logout').addEventListener('click', logout);
  setInterval(() => {
    if (model.phase === 'any_more_window') rerender();
  }, 250);
  window.bingoControl.ready = true;
  window.bingoControl.language = language;
}

main();
