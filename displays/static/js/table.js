// A casino table's station (docs/screens.md, docs/tables.md): the croupiers, the table's head
// and its own device run the table from here. A staff member logs in with his name and
// password and chooses the table; the table's device comes with its token (#token=…) and is
// bound to its table. What the table is comes from the hub alone: after each event of the
// table's stream the page asks the hub for the table's state (`tables`: the bets, the
// settlement, who spins), so it never folds the events itself. Which actions appear is the
// role's (auth_ok.table_commands); which are enabled is the phase's (/api/start table_legal).
// Every refusal of the hub is shown in the page's language where the hub gives its reason.

import { fetchStart, Hub } from './hub.js';
import { applyTranslations, initialLanguage, languagePicker, money, setLanguage, t } from './i18n.js';
import { limitRows, outcomeColour } from './tables.js';
import { $, connectionStatus, deviceToken, el, runCommand, scheduler, toasts } from './ui.js';

const LANG_KEY = 'bingo.table.lang';
const TOKEN_KEY = 'bingo.table.token';
const CHOICE_KEY = 'bingo.table.choice';
const EVEN_CHANCES = ['red', 'black', 'even', 'odd', 'low', 'high'];

let start = null; // /api/start
let hub = null;
let principal = null;
let token = null;
let tableId = null; // the table this station runs
const states = new Map(); // table id -> the hub's TableStateMessage
const busy = new Set();
const returning = new Map(); // colour -> the stack being changed back, as typed
let refreshing = false;
let refreshAgain = false;

window.bingoTable = {
  state: () => states.get(tableId) || null,
  principal: () => principal,
  ready: false,
};

function spec() {
  return start ? start.tables.find((table) => table.table_id === tableId) || null : null;
}

function current() {
  return states.get(tableId) || null;
}

// --- permissions: role (what appears) and phase (what is enabled) ---------------------------

function may(command) {
  return Boolean(principal && (principal.table_commands || []).includes(command));
}

function legal(command) {
  const state = current();
  const phases = start && start.table_legal[command];
  return Boolean(state && phases && phases.includes(state.phase));
}

// Conditions besides role and phase, by element id: the coup's spin comes before «no va más»
// and the outcome, and one spin at a time.
const EXTRA = {
  't-spin': (state) => !state.spinning,
  't-no-more-bets': (state) => state.spinning,
  't-outcome-form': (state) => state.spinning,
};

// Actions only some games have, by element id: the table's station data (/api/start) says.
const OFFERED = {
  't-colour-issue': (table) => table.colour_chips,
  't-value-chips-allow': (table) => table.value_chips_controlled,
  't-value-chips-stop': (table) => table.value_chips_controlled,
  't-top-up': (table) => table.keeps_float,
};

function updateActions(table) {
  const state = current();
  for (const element of document.querySelectorAll('[data-cmd]')) {
    const command = element.dataset.cmd;
    const offered = OFFERED[element.id];
    element.hidden = !may(command) || (offered !== undefined && !offered(table));
    const extra = EXTRA[element.id];
    const enabled = legal(command) && !busy.has(element.id) && (!extra || extra(state));
    if (element.tagName === 'FORM') {
      for (const field of element.elements) {
        field.disabled = field.tagName === 'BUTTON' ? !enabled : !legal(command);
      }
    } else {
      element.disabled = !enabled;
    }
    element.classList.toggle('busy', busy.has(element.id));
  }
  for (const panel of ['#p-coup', '#p-bets', '#p-cash', '#p-direction']) {
    const section = $(panel);
    section.hidden = ![...section.querySelectorAll('[data-cmd]')].some((element) => !element.hidden);
  }
}

// --- commands -------------------------------------------------------------------------------

const toast = toasts('#t-toasts');

// A command to this station's table; resolves with its result, or null when refused (said in
// a toast).
function run(command, args, sourceId) {
  const table = { command: (name, given) => hub.tableCommand(tableId, name, given) };
  return runCommand(table, command, args, { busy, source: sourceId, changed: rerender, show: toast });
}

// A money amount as typed (a comma or a point for the decimals), as the hub takes it: a
// decimal string; null when it is none.
function amountOf(text) {
  const typed = text.trim().replace(',', '.');
  return /^\d+(\.\d+)?$/.test(typed) ? typed : null;
}

// The numbers of a bet as typed: «17», «17-20», «0 1 2 3», «1,2».
function numbersOf(text) {
  return text
    .split(/[\s,;/-]+/)
    .map((part) => part.trim())
    .filter(Boolean);
}

// A whole number of chips as typed, or null.
function chipsOf(text) {
  const typed = text.trim();
  return /^[1-9]\d*$/.test(typed) ? Number(typed) : null;
}

// A field typed wrong: the page has said so in a toast, and sends nothing.
class Mistyped extends Error {}

// The money amount typed in field `id`; with `optional`, undefined when it is left empty.
function amountIn(id, optional = false) {
  const typed = $(id).value;
  if (optional && typed.trim() === '') return undefined;
  const amount = amountOf(typed);
  if (amount === null) {
    toast(t('station.bad_amount', { text: typed }));
    throw new Mistyped();
  }
  return amount;
}

// The whole number of chips typed in field `id`.
function chipsIn(id) {
  const typed = $(id).value;
  const chips = chipsOf(typed);
  if (chips === null) {
    toast(t('station.bad_chips', { text: typed }));
    throw new Mistyped();
  }
  return chips;
}

// `args[key]`: the text typed in field `id`, where there is one.
function setTyped(args, key, id) {
  const typed = $(id).value.trim();
  if (typed) args[key] = typed;
}

function newBetId(state) {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return `${state.coup}-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// Commands whose effect the table's state does not show (money and a head's setting): the
// station says they were done.
const QUIET = new Set(['exchange_at_table', 'top_up_float', 'set_value_chip_bets']);

async function act(command, args, source) {
  const result = await run(command, args, source);
  if (result && QUIET.has(command)) toast(t('station.done', { what: t(`command.${command}`) }), 'ok');
  return result;
}

function onForm(id, build) {
  $(id).addEventListener('submit', async (event) => {
    event.preventDefault();
    let built;
    try {
      built = build();
    } catch (error) {
      if (error instanceof Mistyped) return;
      throw error;
    }
    const [command, args, after] = built;
    const result = await act(command, args, id);
    if (result && after) after();
  });
}

function onButton(id, command, args = () => ({})) {
  $(id).addEventListener('click', () => act(command, args(), id));
}

function bindActions() {
  onButton('#t-open-bets', 'open_bets');
  onButton('#t-no-more-bets', 'call_no_more_bets');
  onButton('#t-settle', 'settle');
  onButton('#t-pay', 'pay_coup');
  onButton('#t-take', 'take_table');
  onButton('#t-last-coups', 'announce_last_coups');
  onForm('#t-spin', () => {
    const args = {};
    const direction = $('#t-direction').value;
    if (direction) args.direction = direction;
    if (principal.role === 'table') args.spun_by = $('#t-spun-by').value;
    return ['spin', args];
  });
  onForm('#t-outcome-form', () => {
    const args = { outcome: $('#t-outcome-value').value };
    const revolutions = $('#t-revolutions');
    if (!revolutions.hidden && revolutions.value !== '') args.revolutions = Number(revolutions.value);
    return ['record_outcome', args, () => (revolutions.value = '')];
  });
  onForm('#t-void', () => {
    const args = { reason: $('#t-void-reason').value };
    if (!$('#t-no-head-box').hidden && $('#t-no-head').checked) args.no_head_present = true;
    return ['declare_void', args, () => ($('#t-no-head').checked = false)];
  });
  onForm('#t-bet', () => {
    const state = current();
    const bet = { id: newBetId(state), type: $('#t-bet-type').value, numbers: numbersOf($('#t-bet-numbers').value) };
    const colour = $('#t-bet-colour').hidden ? '' : $('#t-bet-colour').value;
    if (colour) {
      // a stack of the player's colour: the amount is its number of chips
      Object.assign(bet, { colour, chips: chipsIn('#t-bet-amount') });
    } else {
      bet.amount = amountIn('#t-bet-amount');
    }
    setTyped(bet, 'player', '#t-bet-player');
    return [
      'place_bet',
      { bet },
      () => {
        $('#t-bet-numbers').value = '';
        $('#t-bet-amount').value = '';
      },
    ];
  });
  onForm('#t-exchange', () => {
    const args = { kind: $('#t-exchange-kind').value, amount: amountIn('#t-exchange-amount') };
    setTyped(args, 'player', '#t-exchange-player');
    if (!$('#t-exchange-croupier').hidden) args.croupier = $('#t-exchange-croupier').value.trim();
    return ['exchange_at_table', args, () => ($('#t-exchange-amount').value = $('#t-exchange-player').value = '')];
  });
  onForm('#t-colour-issue', () => {
    const args = {
      colour: $('#t-colour-name').value.trim(),
      player: $('#t-colour-player').value.trim(),
      chips: chipsIn('#t-colour-chips'),
      unit_value: amountIn('#t-colour-value', true), // none: the table minimum
    };
    return [
      'issue_colour_chips',
      args,
      () => {
        for (const id of ['#t-colour-name', '#t-colour-player', '#t-colour-chips', '#t-colour-value']) $(id).value = '';
      },
    ];
  });
  onButton('#t-value-chips-allow', 'set_value_chip_bets', () => ({ allowed: true }));
  onButton('#t-value-chips-stop', 'set_value_chip_bets', () => ({ allowed: false }));
  onForm('#t-limits-form', () => {
    const limits = { minimum: amountIn('#t-limits-minimum') };
    const table = spec();
    if (table.limits_by === 'tier' && $('#t-limits-tier').value !== '') limits.tier = Number($('#t-limits-tier').value);
    if (table.limits_by === 'maximum') limits.maximum = amountIn('#t-limits-maximum', true);
    const args = { limits };
    setTyped(args, 'authorisation', '#t-limits-authorisation');
    return ['change_limits', args];
  });
  onForm('#t-top-up', () => {
    return ['top_up_float', { amount: amountIn('#t-top-up-amount') }, () => ($('#t-top-up-amount').value = '')];
  });
  onButton('#t-suspend', 'suspend_table');
  onForm('#t-resume', () => [
    'resume_table',
    { croupier: $('#t-resume-croupier').value.trim(), head: $('#t-resume-head').value.trim() },
    () => ($('#t-resume-croupier').value = $('#t-resume-head').value = ''),
  ]);
  onForm('#t-open', () => {
    const args = {};
    setTyped(args, 'seal_found', '#t-seal-found');
    setTyped(args, 'seal_note', '#t-seal-note');
    return ['open_table', args, () => ($('#t-seal-found').value = $('#t-seal-note').value = '')];
  });
  onForm('#t-rotation', () => {
    const croupiers = $('#t-rotation-croupiers')
      .value.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    return ['set_spin_rotation', { croupiers }, () => ($('#t-rotation-croupiers').value = '')];
  });
  onForm('#t-close', () => {
    const args = {
      seal: $('#t-close-seal').value.trim(),
      float_count: amountIn('#t-float-count', true),
      tips: amountIn('#t-tips', true),
    };
    return [
      'close_table',
      args,
      () => {
        for (const id of ['#t-close-seal', '#t-float-count', '#t-tips']) $(id).value = '';
      },
    ];
  });
}

// --- the table's state, from the hub --------------------------------------------------------

async function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    do {
      refreshAgain = false;
      const answer = await hub.tables();
      for (const state of answer.tables) states.set(state.table, state);
      rerender();
    } while (refreshAgain);
  } catch {
    // the connection went: the next one asks again (onTables)
  } finally {
    refreshing = false;
  }
}

// --- rendering ------------------------------------------------------------------------------

// A select's options; `preferred` (who spins now, the direction due) is selected when it
// changes or the options do, and what was chosen by hand stays meanwhile.
function options(select, values, label, preferred = null) {
  const wanted = values.map(String);
  const same =
    select.options.length === wanted.length && [...select.options].every((option, i) => option.value === wanted[i]);
  if (!same) {
    const kept = select.value;
    select.replaceChildren(...wanted.map((value) => el('option', { value, text: label(value) })));
    if (wanted.includes(kept)) select.value = kept;
  } else {
    for (const option of select.options) option.textContent = label(option.value);
  }
  const wish = preferred === null ? null : String(preferred);
  if (wish !== null && (!same || select.dataset.preferred !== wish) && wanted.includes(wish)) {
    select.value = wish;
  }
  select.dataset.preferred = wish ?? '';
}

function fact(id, value) {
  $(id).textContent = value === null || value === undefined || value === '' ? '—' : String(value);
}

function renderStatus(state, table) {
  $('#t-phase').textContent = t(`table.phase.${state.phase}`);
  $('#t-name').textContent = `${state.name} (${state.table})`;
  $('#t-game').textContent = t('station.game', { game: t(`table.game.${state.game}`), profile: state.profile });
  const shown = state.outcome ?? state.previous_outcome;
  const outcome = $('#t-outcome');
  outcome.textContent = shown ?? '';
  outcome.className = `t-outcome${shown === null || shown === undefined ? ' empty' : ''}${state.outcome === null ? ' previous' : ''}`;
  outcome.dataset.colour = outcomeColour(state.game, shown) || '';
  fact('#t-session', state.session);
  fact('#t-coup', state.session === null ? null : state.coup);
  fact('#t-spinner', state.next_spinner);
  fact('#t-direction-due', state.direction_due ? t(`station.dir.${state.direction_due}`) : t('station.dir.either'));
  fact('#t-head', state.head);
  const note = $('#t-note');
  const key = state.spinning
    ? 'station.spinning'
    : state.last_coups_left === 0
      ? 'table.coups_over'
      : state.last_coup
        ? 'table.last_coup'
        : state.last_coups_left
          ? 'table.last_coups'
          : null;
  note.hidden = key === null;
  if (key) note.textContent = t(key, { n: state.last_coups_left });
  $('#t-recent').replaceChildren(
    ...[...state.recent_outcomes]
      .reverse()
      .map((shownOutcome) =>
        el('li', { class: 't-pocket', dataset: { colour: outcomeColour(state.game, shownOutcome) }, text: shownOutcome }),
      ),
  );
  $('#t-limits').replaceChildren(
    ...limitRows(state).map(({ key: limit, amount }) => el('div', {}, el('dt', { text: t(limit) }), el('dd', { text: amount }))),
  );
  options($('#t-direction'), ['', 'clockwise', 'anticlockwise'], (value) => t(`station.dir.${value || 'auto'}`), state.direction_due || '');
  $('#t-spun-by-box').hidden = principal.role !== 'table';
  options($('#t-spun-by'), state.spin_rotation, (name) => name, state.next_spinner);
  options($('#t-outcome-value'), table.outcomes, (value) => value);
  $('#t-revolutions').hidden = !table.revolutions;
  options($('#t-void-reason'), table.void_reasons, (reason) => t(`table.void_reason.${reason}`));
  $('#t-no-head-box').hidden = !(table.void_in_absence_by.includes('croupier') && ['croupier', 'table'].includes(principal.role));
  options($('#t-bet-type'), table.bet_types, (type) => t(`table.bet_type.${type}`));
  const held = state.colour_chips; // the colours players hold now
  $('#t-bet-colour').hidden = !table.colour_chips;
  options($('#t-bet-colour'), ['', ...held.map((colour) => colour.colour)], (colour) =>
    colour ? t('station.bet.colour_of', { colour, player: held.find((c) => c.colour === colour).player }) : t('station.bet.value_chips'),
  );
  options($('#t-exchange-kind'), ['banknotes', 'chips'], (kind) => t(`station.exchange.${kind}`));
  $('#t-exchange-croupier').hidden = principal.role !== 'table';
  $('#t-limits-tier').hidden = table.limits_by !== 'tier';
  $('#t-limits-maximum').hidden = table.limits_by !== 'maximum';
  $('#t-float-count').hidden = !table.keeps_float;
}

// The colours players hold (a colour whose player left is no longer held), each with its
// stacks issued and changed back, and the change back of a stack (or of the last one, as the
// player leaves).
function renderColours(state) {
  const colours = state.colour_chips;
  $('#t-colours').hidden = colours.length === 0;
  $('#t-colours tbody').replaceChildren(
    ...colours.map((colour) => {
      const source = `return-${colour.colour}`;
      // what is typed survives the redraws other stations' events bring
      const typed = returning.get(colour.colour) || { chips: '0', leaves: true };
      const keep = () => returning.set(colour.colour, { chips: count.value, leaves: leaves.checked });
      const count = el('input', {
        type: 'number',
        min: '0',
        step: '1',
        class: 'small',
        value: typed.chips,
        'aria-label': t('station.colour.chips'),
        oninput: keep,
      });
      const leaves = el('input', { type: 'checkbox', checked: typed.leaves, onchange: keep });
      const actions =
        may('return_colour_chips') && legal('return_colour_chips')
          ? [
              count,
              el('label', {}, leaves, ` ${t('station.colour.leaves')}`),
              el('button', {
                type: 'button',
                class: 'small',
                dataset: { action: 'return' },
                text: t('command.return_colour_chips'),
                disabled: busy.has(source),
                onclick: () => {
                  const chips = count.value.trim() === '0' ? 0 : chipsOf(count.value);
                  if (chips === null) {
                    toast(t('station.bad_chips', { text: count.value }));
                    return;
                  }
                  const args = { colour: colour.colour, chips, leaves: leaves.checked };
                  run('return_colour_chips', args, source).then((result) => {
                    if (!result) return;
                    returning.delete(colour.colour);
                    rerender();
                  });
                },
              }),
            ]
          : [];
      return el(
        'tr',
        { dataset: { colour: colour.colour } },
        el('td', { text: colour.colour }),
        el('td', { text: colour.player }),
        el('td', { class: 'money', text: money(colour.unit_value, state.currency) }),
        el('td', { text: `${colour.issued} (${money(colour.issued_value, state.currency)})` }),
        el('td', { text: `${colour.returned} (${money(colour.returned_value, state.currency)})` }),
        el('td', { class: 't-bet-actions' }, ...actions),
      );
    }),
  );
}

function betNumbers(bet) {
  return bet.numbers.length ? bet.numbers.join('-') : '—';
}

function betActions(state, table, bet) {
  const actions = [];
  if (may('withdraw_bet') && state.phase === 'betting' && !bet.prison) {
    actions.push(
      el('button', {
        type: 'button',
        class: 'small',
        dataset: { action: 'withdraw' },
        text: t('command.withdraw_bet'),
        disabled: busy.has(`withdraw-${bet.id}`),
        onclick: () => run('withdraw_bet', { bet_id: bet.id }, `withdraw-${bet.id}`),
      }),
    );
  }
  const zero = state.phase === 'outcome' && table.zero_choices && state.outcome === '0';
  if (zero && may('choose_zero_option') && EVEN_CHANCES.includes(bet.type)) {
    for (const choice of ['half', 'prison']) {
      const source = `zero-${bet.id}-${choice}`;
      actions.push(
        el('button', {
          type: 'button',
          class: `small${state.zero_choices[bet.id] === choice ? ' chosen' : ''}`,
          dataset: { action: `zero-${choice}` },
          text: t(`station.zero.${choice}`),
          disabled: busy.has(source),
          onclick: () =>
            run('choose_zero_option', { bet_id: bet.id, choice, declared_by: bet.player || principal.principal }, source),
        }),
      );
    }
  }
  return actions;
}

function renderBets(state, table) {
  const currency = state.currency;
  $('#t-bets tbody').replaceChildren(
    ...state.bets.map((bet) =>
      el(
        'tr',
        { dataset: { bet: bet.id } },
        el('td', { text: bet.id }),
        el('td', { text: bet.player || '—' }),
        el('td', { text: t(`table.bet_type.${bet.type}`) }),
        el('td', { text: betNumbers(bet) }),
        el(
          'td',
          { class: 'money' },
          money(bet.amount, currency),
          bet.prison ? el('span', { class: 't-prison', text: ` ${t('station.in_prison', { n: bet.prison })}` }) : null,
        ),
        el('td', { class: 't-bet-actions' }, ...betActions(state, table, bet)),
      ),
    ),
  );
  const total = state.bets.reduce((sum, bet) => sum + Math.round(Number(bet.amount) * 100), 0);
  $('#t-bets-total').textContent = t('station.bets_total', {
    n: state.bets.length,
    amount: money((total / 100).toFixed(2), currency),
  });
}

function renderSettlement(state) {
  const settlement = state.settlement;
  $('#p-settlement').hidden = !settlement;
  if (!settlement) return;
  const currency = state.currency;
  const totals = settlement.totals;
  $('#t-settlement-totals').replaceChildren(
    ...['staked', 'returns', 'carried', 'bank_result'].map((name) =>
      el('div', { dataset: { total: name } }, el('dt', { text: t(`station.total.${name}`) }), el('dd', { text: money(totals[name], currency) })),
    ),
  );
  $('#t-results tbody').replaceChildren(
    ...settlement.results.map((result) =>
      el(
        'tr',
        { dataset: { bet: result.id, status: result.status } },
        el('td', { text: result.id }),
        el('td', { text: result.player || '—' }),
        el('td', { text: `${t(`table.bet_type.${result.type}`)} ${result.numbers.join('-')}`.trim() }),
        el('td', { class: 'money', text: money(result.stake, currency) }),
        el('td', { text: t(`station.status.${result.status}`) }),
        el('td', { class: 'money', text: money(result.returns, currency) }),
      ),
    ),
  );
  $('#t-collected').textContent = settlement.collected.length
    ? t('station.collected', { bets: settlement.collected.join(', ') })
    : t('station.collected_none');
  $('#t-payments').replaceChildren(
    ...settlement.payment_order.map((payment) =>
      el('li', {
        dataset: { bet: payment.bet },
        text: t('station.payment', {
          bet: payment.bet,
          kind: t(`table.bet_type.${payment.kind}`),
          amount: money(payment.amount, currency),
          player: payment.player || '—',
        }),
      }),
    ),
  );
}

function render() {
  if (!principal || !start) return;
  $('#t-who').textContent = t('login.who', { user: principal.principal, role: t(`role.${principal.role}`) });
  const state = current();
  const table = spec();
  $('#t-no-table').hidden = Boolean(state && table);
  for (const id of ['#p-status', '#p-coup', '#p-bets', '#p-cash', '#p-direction', '#p-settlement']) {
    if (!state || !table) $(id).hidden = true;
  }
  if (!state || !table) {
    $('#t-phase').textContent = '';
    return;
  }
  $('#p-status').hidden = false;
  $('#p-status').dataset.seq = String(state.seq); // the table's event it shows
  renderStatus(state, table);
  renderBets(state, table);
  renderSettlement(state);
  renderColours(state);
  updateActions(table);
}

const rerender = scheduler(render);

// --- connection -----------------------------------------------------------------------------

function chooseTable() {
  const select = $('#t-table');
  const own = principal && principal.table;
  $('#t-table-choice').hidden = Boolean(own) || start.tables.length < 2;
  const ids = start.tables.map((table) => table.table_id);
  const saved = localStorage.getItem(CHOICE_KEY);
  tableId = own || (ids.includes(tableId) ? tableId : ids.includes(saved) ? saved : ids[0] || null);
  select.replaceChildren(
    ...start.tables.map((table) =>
      el('option', { value: table.table_id, text: `${table.table_id} — ${t(`table.game.${table.game}`)}` }),
    ),
  );
  if (tableId) select.value = tableId;
}

const onStatus = connectionStatus('#t-conn', (why, code) => {
  principal = null;
  $('#t-app').hidden = true;
  $('#t-logout').hidden = true;
  if (token) {
    // a revoked or unknown device token: the staff log in instead
    localStorage.removeItem(TOKEN_KEY);
    token = null;
  }
  $('#t-login').hidden = false;
  $('#t-login-error').textContent = code === 'unauthorized' ? t('login.failed') : why;
  $('#t-login-submit').disabled = false;
});

function onAuth(message) {
  principal = message;
  $('#t-login').hidden = true;
  $('#t-app').hidden = false;
  $('#t-logout').hidden = Boolean(token);
  chooseTable();
  rerender();
}

async function connect(auth) {
  try {
    start = await fetchStart();
  } catch {
    $('#t-login-error').textContent = t('conn.reconnecting');
    $('#t-login-submit').disabled = false;
    return;
  }
  $('#t-hall').textContent = start.name || start.hall;
  states.clear();
  if (hub) hub.stop();
  hub = new Hub({
    auth,
    channel: 'caller',
    afterSeq: start.seq, // the hall's bingo is not this page's: only what comes from now on
    onStatus,
    onAuth,
    onTables: () => refresh(),
    onTableEvent: (message) => {
      if (message.table === tableId) refresh();
    },
  });
  hub.start();
}

async function login(event) {
  event.preventDefault();
  $('#t-login-error').textContent = '';
  $('#t-login-submit').disabled = true;
  const auth = { user: $('#t-user').value.trim(), password: $('#t-password').value };
  $('#t-password').value = '';
  await connect(auth);
  $('#t-login-submit').disabled = false;
}

function logout() {
  if (hub) hub.stop();
  hub = null;
  principal = null;
  states.clear();
  $('#t-app').hidden = true;
  $('#t-login').hidden = false;
  $('#t-logout').hidden = true;
  $('#t-phase').textContent = '';
  $('#t-who').textContent = '';
}

async function main() {
  // bound first: until then the browser would send the form itself, the password in the URL
  $('#t-login-form').addEventListener('submit', login);
  await setLanguage(initialLanguage(LANG_KEY), { storageKey: LANG_KEY });
  await languagePicker($('#t-lang'), async (code) => {
    await setLanguage(code, { storageKey: LANG_KEY });
    if (start) chooseTable();
    render();
  });
  applyTranslations(document);
  bindActions();
  $('#t-table').addEventListener('change', () => {
    tableId = $('#t-table').value;
    localStorage.setItem(CHOICE_KEY, tableId);
    render();
  });
  $('#t-logout').addEventListener('click', logout);
  $('#t-login-submit').disabled = false;
  token = deviceToken(TOKEN_KEY);
  if (token) {
    $('#t-login').hidden = true;
    await connect({ token });
  }
  window.bingoTable.ready = true;
}

main();
