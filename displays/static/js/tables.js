// The hall's casino tables on a public panel (docs/tables.md): for each table its name and game,
// its phase in words, the coup and the last-coup announcement, the outcome with its colour, the
// last 20 outcomes and the limits. A table starts from the hub's `tables` answer (its
// TableStateMessage) and is kept by its stream's events, folded as the hub folds them
// (bingo_hall/tables/evolve.py, hub/table_service.py). Bets, colour chips and payments are
// never kept: a monitor shows nothing of a player's, and the hub sends it none (the tables'
// public view, docs/tables.md).

import { money, setText } from './i18n.js';
import { el } from './ui.js';

const RECENT_OUTCOMES = 20; // TableStateMessage.recent_outcomes

// The public part of a TableStateMessage a panel shows, under the same names (not the croupier's
// station's spinning fields).
const PUBLIC = [
  'table',
  'name',
  'seq',
  'game',
  'profile',
  'currency',
  'phase',
  'session',
  'coup',
  'last_coup',
  'last_coups_left',
  'outcome',
  'previous_outcome',
  'recent_outcomes',
  'limits',
];

export function tableFrom(state) {
  const table = Object.fromEntries(PUBLIC.map((field) => [field, state[field]]));
  table.recent_outcomes = [...state.recent_outcomes];
  table.voided = false; // the coup was declared void and no outcome has come since
  return table;
}

// One event of the table's stream.
export function applyTableEvent(table, envelope) {
  const p = envelope.payload;
  table.seq = envelope.seq;
  switch (envelope.event) {
    case 'table_opened':
      Object.assign(table, {
        phase: 'idle',
        session: p.session_id,
        game: p.table.game,
        profile: p.table.profile_id,
        currency: p.table.currency,
        coup: 0,
        last_coup: false,
        last_coups_left: null,
        outcome: null,
        previous_outcome: null,
        recent_outcomes: [],
        limits: p.limits,
        voided: false,
      });
      break;
    case 'table_last_coups_announced':
      table.last_coup = table.last_coup || (p.counting_current && p.coups === 1);
      table.last_coups_left = p.coups;
      break;
    case 'table_limits_changed':
      table.limits = p.limits;
      break;
    case 'table_bets_opened':
      Object.assign(table, { phase: 'betting', coup: p.coup, last_coup: p.last_coup, outcome: null, voided: false });
      break;
    case 'table_no_more_bets':
      table.phase = 'no_more_bets';
      break;
    case 'table_coup_voided':
      Object.assign(table, { phase: p.bets_open ? 'betting' : 'no_more_bets', outcome: null, voided: true });
      break;
    case 'table_outcome_recorded':
      Object.assign(table, { phase: 'outcome', outcome: p.outcome, voided: false });
      table.recent_outcomes = [...table.recent_outcomes, p.outcome].slice(-RECENT_OUTCOMES);
      break;
    case 'table_coup_settled':
      table.phase = 'settled';
      break;
    case 'table_coup_paid':
      Object.assign(table, {
        phase: 'idle',
        previous_outcome: table.outcome,
        outcome: null,
        last_coups_left: table.last_coups_left === null ? null : table.last_coups_left - 1,
      });
      break;
    case 'table_suspended': // closed for a while, its float locked at it (EUS L306)
      table.phase = 'suspended';
      break;
    case 'table_resumed':
      table.phase = 'idle';
      break;
    case 'table_closed':
      Object.assign(table, {
        phase: 'closed',
        session: null,
        coup: 0,
        last_coup: false,
        last_coups_left: null,
        outcome: null,
        previous_outcome: null,
        limits: null,
        voided: false,
      });
      break;
    default:
      break; // bets, colour chips, zero choices, settlement, announced limits: not shown
  }
}

// The colour an outcome shows in. Roulette: N79 L107, «los números cuya suma de cifras sea par
// son siempre negros, así como el 10 y el 29 y a excepción del 19», the zeros green (the same
// rule as bingo_hall/tables/wheels.py). Boule: red 2 4 7 9, black 1 3 6 8, 5 the house number
// (tables/bets.py BOULE_SETS). Wheel of fortune: its segment's own colour.
export function outcomeColour(game, outcome) {
  if (outcome === null || outcome === undefined) return null;
  if (game === 'wheel-of-fortune') return `segment-${outcome}`;
  const n = Number(outcome);
  if (game === 'boule') return n === 5 ? 'house' : [2, 4, 7, 9].includes(n) ? 'red' : 'black';
  if (outcome === '0' || outcome === '00') return 'green';
  const digits = String(n)
    .split('')
    .reduce((sum, digit) => sum + Number(digit), 0);
  const black = (digits % 2 === 0 || n === 10 || n === 29) && n !== 19;
  return black ? 'black' : 'red';
}

function pocket(tag, game, outcome, className) {
  return el(tag, {
    class: `${className}${outcome.length > 2 ? ' word' : ''}`,
    dataset: { colour: outcomeColour(game, outcome) },
    text: outcome,
  });
}

// The limits people read at the table: minimum, straight-up maximum (a boule number, a wheel of
// fortune segment) and even-chance maximum, in the table's currency.
export function limitRows(table) {
  const limits = table.limits;
  if (!limits) return [];
  const groups = limits.groups;
  const single = groups.straight || groups.number;
  const rows = [['table.limit.minimum', limits.table_minimum]];
  if (single) rows.push(['table.limit.straight', single.maximum]);
  else if (groups.segment) rows.push(['table.limit.maximum', groups.segment.maximum]);
  if (groups.even_chance) rows.push(['table.limit.even', groups.even_chance.maximum]);
  return rows.map(([key, amount]) => ({ key, amount: money(amount, table.currency) }));
}

function announcement(table) {
  if (table.voided) return 'table.void';
  if (table.last_coups_left === 0) return 'table.coups_over';
  if (table.last_coup) return 'table.last_coup';
  if (table.last_coups_left) return 'table.last_coups';
  return null;
}

// A text of the translation files (with the second language beneath, where the page has one).
function text(tag, className, key, vars = {}) {
  const element = el(tag, { class: className, 'data-bilingual': true });
  setText(element, key, vars);
  return element;
}

function tableSection(table) {
  const shown = table.outcome ?? table.previous_outcome;
  const note = announcement(table);
  const recent = [...table.recent_outcomes].reverse();
  return el(
    'section',
    { class: 'm-table', dataset: { table: table.table, phase: table.phase } },
    el(
      'header',
      { class: 'm-table-head' },
      el('div', { class: 'm-table-name', text: table.name || table.table }),
      text('div', 'm-table-game', `table.game.${table.game}`),
    ),
    el(
      'div',
      { class: 'm-table-now' },
      shown === null || shown === undefined
        ? el('div', { class: 'm-table-outcome empty' })
        : pocket('div', table.game, shown, `m-table-outcome${table.outcome === null ? ' previous' : ''}`),
      el(
        'div',
        { class: 'm-table-status' },
        text('div', 'm-table-phase', `table.phase.${table.phase}`),
        table.session !== null && table.coup > 0 ? text('div', 'm-table-coup', 'table.coup', { n: table.coup }) : null,
        note ? text('div', `m-table-note${table.voided ? ' void' : ''}`, note, { n: table.last_coups_left }) : null,
      ),
    ),
    el(
      'div',
      { class: 'm-table-recent-box' },
      text('div', 'm-table-label', 'table.recent'),
      el('ol', { class: 'm-table-recent' }, ...recent.map((outcome) => pocket('li', table.game, outcome, 'm-pocket'))),
    ),
    el(
      'dl',
      { class: 'm-table-limits' },
      ...limitRows(table).map(({ key, amount }) =>
        el('div', { class: 'm-table-limit', dataset: { limit: key.split('.').pop() } }, text('dt', '', key), el('dd', { text: amount })),
      ),
    ),
  );
}

// The tables' view: one section per table, in the hub's order; none without tables. Two or more
// share the column's height: their sizes scale by --tk.
export function renderTables(container, tables) {
  const count = tables.length;
  container.hidden = count === 0;
  container.style.setProperty('--tk', String(count <= 1 ? 1 : count === 2 ? 0.85 : 1.8 / count));
  container.replaceChildren(...tables.map(tableSection));
}
