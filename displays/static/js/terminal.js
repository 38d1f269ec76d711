// The auxiliary terminal (a player's device, spec §8 item 5): buys electronic cards in the open
// sale, whole blocks, within the limit per machine and player; shows each card with its
// series and number, marked automatically once each ball is announced, what it still needs, the
// línea/bingo claim buttons and the prizes won.
//
//   /terminal#token=<device token>     ?lang=es|eu|en

import { awaitStart, Hub } from './hub.js';
import { applyTranslations, initialLanguage, languagePicker, money, setLanguage, t } from './i18n.js';
import { add, times } from './decimal.js';
import { apply, called, lastBall, marking, newModel, winners } from './model.js';
import { $, cardGrid, connectionStatus, deviceToken, el, errorText, runCommand, scheduler } from './ui.js';

const STORE = 'bingo.terminal';

let model = newModel();
let start = null;
let hub = null;
let cards = []; // my_cards: [{series, number, player, grid}]
let cardsGame = null;
const busy = new Set();

window.bingoTerminal = { model: () => model, cards: () => cards };

function legal(command) {
  const phases = start && start.legal[command];
  return Boolean(phases && (phases.includes('*') || phases.includes(model.phase)));
}

function player() {
  return $('#t-player').value.trim();
}

function message(text, ok = false) {
  const box = $('#t-message');
  box.textContent = text;
  box.classList.toggle('ok', ok);
  box.hidden = false;
  clearTimeout(message.timer);
  message.timer = setTimeout(() => (box.hidden = true), ok ? 4000 : 12000);
}

function run(command, args, sourceId) {
  return runCommand(hub, command, args, { busy, source: sourceId, changed: rerender, show: message });
}

// A purchase is named when the player presses and keeps its name until the hub answers: sent
// again after a lost answer (once the page is back online), the hub finds the block it
// recorded then rather than selling a second one. It names its game too, so that a purchase
// the hub never received is not made in a later game.
const PURCHASE = `${STORE}.purchase`;

function pendingPurchase() {
  try {
    return JSON.parse(localStorage.getItem(PURCHASE));
  } catch {
    return null;
  }
}

// A new purchase: the buy button is disabled while another one waits (render), so there is
// none to take the place of.
function newPurchase(game, series, name) {
  const bytes = crypto.getRandomValues(new Uint8Array(12)); // crypto.randomUUID needs https
  const id = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const purchase = { id, game, series, player: name };
  localStorage.setItem(PURCHASE, JSON.stringify(purchase));
  return purchase;
}

// `resent`: a purchase from before the connection was lost, sent again by the page itself.
async function buy(purchase, resent = false) {
  const failed = (error) => {
    if (error.code === 'disconnected') {
      message(t('terminal.buy_pending'));
      return;
    }
    localStorage.removeItem(PURCHASE);
    message(resent ? t('terminal.buy_not_made', { reason: errorText('buy_cards', error) }) : errorText('buy_cards', error));
  };
  const args = { player: purchase.player, series_id: purchase.series, purchase: purchase.id };
  if (purchase.game !== null) args.game = purchase.game;
  const result = await runCommand(hub, 'buy_cards', args, { busy, source: 'buy', changed: rerender, failed });
  if (result) {
    localStorage.removeItem(PURCHASE);
    message(t('terminal.bought', { size: blockSize() }), true);
    refreshCards(0);
  }
}

// Back online with a purchase whose answer was lost, once the page has caught up with the log
// (before that its game and phase are those from before the outage): sent again, the hub
// answers with the block it recorded, or buys it if the sale it was meant for is still open,
// or says why not.
let purchaseChecked = true;
let online = false;
function completePurchase() {
  if (purchaseChecked || !hub || hub.lastSeq < hub.headSeq || busy.has('buy')) return;
  purchaseChecked = true;
  const pending = pendingPurchase();
  if (pending) buy(pending, true);
}

let cardsTimer = null;
function refreshCards(delay = 100) {
  clearTimeout(cardsTimer);
  cardsTimer = setTimeout(async () => {
    if (!hub || !hub.principal) return;
    try {
      const mine = await hub.command('my_cards');
      if (mine.game !== null || !model.game || !model.game.ended) {
        cards = mine.cards;
        cardsGame = mine.game;
      }
      rerender();
    } catch {
      refreshCards(1000);
    }
  }, delay);
}

function blockSize() {
  return model.profile ? model.profile.terminal_block_size : 6;
}

// The machine's blocks in this game, whatever player names it gave: the limit is per machine.
function machineBlocks() {
  return cards.length / blockSize();
}

function claimsOf(card) {
  const game = model.game;
  if (!game) return [];
  return game.claims.filter((claim) => claim.series_id === card.series && claim.card_number === card.number);
}

// A card's face value: its series' in the game (series_announced).
function faceValue(game, seriesId) {
  const series = game ? game.series.find((s) => s.series_id === seriesId) : null;
  return series ? series.face_value : null;
}

// A voided game's card refunded by the Cajero (refund_paid: a range of a series).
function refunded(game, card) {
  return game.refundsPaid.some((r) => r.series_id === card.series && r.first <= card.number && card.number <= r.last);
}

// A voided game: said above the cards, with what its cards are refunded at the cash desk.
function renderVoid(game, mine) {
  const box = $('#t-void');
  const voided = game && game.status === 'voided' && mine.length > 0; // its own cards only
  box.hidden = !voided;
  if (!voided) return;
  const amount = mine.reduce((sum, card) => add(sum, faceValue(game, card.series) || '0'), '0');
  box.textContent = t('terminal.voided', { game: game.id, reason: t(`void.reason.${game.void.reason}`), amount: money(amount) });
}

function cardState(game, card, mark, lineOpen) {
  if (game.status === 'voided') return t(refunded(game, card) ? 'terminal.card_refunded' : 'terminal.card_voided');
  return lineOpen ? t('terminal.needs', { line: mark.lineNeeds, bingo: mark.bingoNeeds }) : t('terminal.needs_bingo', { bingo: mark.bingoNeeds });
}

function renderCards() {
  const game = model.game;
  const calledSet = called(game);
  const mine = game && cardsGame === game.id ? cards : [];
  const lineOpen = game && game.lineWonAt === null;
  const voided = game && game.status === 'voided';
  renderVoid(game, mine);
  $('#t-cards-count').textContent = t('terminal.cards_count', { count: mine.length });
  $('#t-cards').replaceChildren(
    ...mine.map((card) => {
      const mark = marking(card.grid, calledSet);
      const claims = claimsOf(card);
      const latest = claims[claims.length - 1];
      const id = `${card.series}-${card.number}`;
      const lineButton = el('button', { class: 'claim-line', type: 'button', text: t('terminal.claim_line') });
      const bingoButton = el('button', { class: 'claim-bingo', type: 'button', text: t('terminal.claim_bingo') });
      // the hub takes a terminal's claim only for a card that holds it with the numbers announced
      lineButton.disabled = !legal('call_claim') || !lineOpen || mark.lineNeeds > 0 || busy.has(`line-${id}`);
      bingoButton.disabled = !legal('call_claim') || mark.bingoNeeds > 0 || busy.has(`bingo-${id}`);
      lineButton.addEventListener('click', () =>
        run('call_claim', { kind: 'line', series_id: card.series, card_number: card.number }, `line-${id}`),
      );
      bingoButton.addEventListener('click', () =>
        run('call_claim', { kind: 'bingo', series_id: card.series, card_number: card.number }, `bingo-${id}`),
      );
      const classes = ['tcard'];
      if (voided) classes.push('voided');
      else if (mark.bingoNeeds === 0) classes.push('complete-bingo');
      else if (mark.lineNeeds === 0 && lineOpen) classes.push('complete-line');
      return el(
        'div',
        {
          class: classes.join(' '),
          dataset: { card: id, lineNeeds: String(mark.lineNeeds), bingoNeeds: String(mark.bingoNeeds), marked: mark.marked.join(',') },
        },
        el('h3', {}, el('span', { text: t('card.label', { series: card.series, number: card.number }) }), el('span', { class: 'owner', text: card.player })),
        cardGrid(card.grid, calledSet),
        el('div', { class: 'needs', text: cardState(game, card, mark, lineOpen) }),
        latest
          ? el('div', {
              class: 'claim-state',
              dataset: { status: latest.status },
              text: t('terminal.claim_state', {
                kind: t(`claim.kind.${latest.kind}`),
                status: t(`claim.status.${latest.status}`),
                reason: latest.reason ? t(`claim.reason.${latest.reason}`) : '',
              }),
            })
          : null,
        voided ? null : el('div', { class: 'buttons' }, lineButton, bingoButton),
      );
    }),
  );
}

function renderPrizes() {
  const game = model.game;
  const mine = new Set(cards.map((card) => `${card.series}-${card.number}`));
  if (game && game.status === 'voided') {
    // a void withdraws the game's prizes under some profiles (restitutions): those of my cards
    const withdrawn = (game.void.awards_withdrawn ? game.void.restitutions : []).filter((r) => mine.has(`${r.series_id}-${r.card_number}`));
    const paidFor = game.splits.flatMap((split) => split.winners.map((w) => [w.claim_id, split.kind]));
    const kinds = new Map(paidFor);
    $('#t-prizes').replaceChildren(
      ...(withdrawn.length
        ? withdrawn.map((r) =>
            el('li', {
              class: 'prize withdrawn',
              dataset: { card: `${r.series_id}-${r.card_number}` },
              text: t(r.paid ? 'terminal.prize_withdrawn_paid' : 'terminal.prize_withdrawn', {
                kind: kinds.has(r.claim_id) ? t(`claim.kind.${kinds.get(r.claim_id)}`) : '',
                series: r.series_id,
                number: r.card_number,
                amount: money(r.amount),
              }),
            }),
          )
        : [el('li', { class: 'none', text: t('terminal.no_prizes_void') })]),
    );
    return;
  }
  const won = winners(game).filter((w) => mine.has(`${w.series_id}-${w.card_number}`));
  $('#t-prizes').replaceChildren(
    ...(won.length
      ? won.map((w) =>
          el('li', {
            class: 'prize',
            dataset: { card: `${w.series_id}-${w.card_number}`, kind: w.kind },
            text: t('terminal.prize', {
              kind: t(`claim.kind.${w.kind}`),
              series: w.series_id,
              number: w.card_number,
              amount: money(w.share),
              paid: w.paid ? t('prizes.state.paid') : t('terminal.collect'),
            }),
          }),
        )
      : [el('li', { class: 'none', text: t('terminal.no_prizes') })]),
  );
}

function render() {
  const game = model.game;
  const last = lastBall(game);
  $('#t-hall').textContent = start ? start.name || start.hall : '';
  $('#t-state').textContent =
    game && game.ended ? t(game.status === 'voided' ? 'monitor.state.voided' : 'monitor.state.finished', { game: game.id }) : t(`monitor.state.${model.phase}`, { game: game ? game.id : '' });
  $('#t-last').textContent = last ? String(last.number) : '';
  $('#t-count').textContent = String(game ? game.balls.length : 0);
  $('#t-hold').hidden = model.phase !== 'camera_hold';
  const selling = model.phase === 'selling';
  const series = selling && game ? game.series.map((s) => s.series_id) : [];
  const select = $('#t-series');
  if ([...select.options].map((o) => o.value).join() !== series.join()) {
    select.replaceChildren(...series.map((id) => el('option', { value: id, text: id })));
  }
  const limit = model.profile ? model.profile.max_series_per_terminal_player : 0;
  const name = player();
  const bought = name && game && cardsGame === game.id ? machineBlocks() : 0;
  // the block's price: its cards at the chosen series' face value, exactly (decimal.js)
  const face = series.length ? faceValue(game, select.value) : null;
  $('#t-buy').textContent = face
    ? t('terminal.buy_price', { size: blockSize(), price: money(times(face, blockSize())) })
    : t('terminal.buy', { size: blockSize() });
  // Offline, a purchase could not be sent; and a new one would take the place of the one
  // still waiting to be completed (pendingPurchase), which the page sends first once back.
  const waiting = !online || pendingPurchase() !== null;
  $('#t-buy').disabled = !legal('buy_cards') || !name || !series.length || (limit && bought >= limit) || busy.has('buy') || waiting;
  $('#t-blocks').textContent = name && limit ? t('terminal.blocks', { player: name, bought, limit }) : t('terminal.name_first');
  $('#t-sale-note').textContent = selling ? t('terminal.sale_open') : t('terminal.sale_closed');
  // cards bought and the sale over: the purchase form is folded to its note, so that the
  // cards come first on a small screen (it opens again with the next sale)
  const playing = Boolean(game && cardsGame === game.id && cards.length);
  $('#t-buy-panel').classList.toggle('folded', playing && !selling);
  // the prizes once announced, as the monitors show them; none for a voided game
  const prizes = game && game.status !== 'voided' && game.linePrize ? { line: money(game.linePrize), bingo: money(game.bingoPrize) } : null;
  $('#t-game-prizes').hidden = !prizes;
  if (prizes) $('#t-game-prizes').textContent = t('terminal.game_prizes', prizes);
  renderCards();
  renderPrizes();
}

const rerender = scheduler(render);

function onEvent(envelope) {
  apply(model, envelope);
  const me = hub && hub.principal ? hub.principal.principal : null;
  if (envelope.event === 'series_announced') {
    cards = [];
    cardsGame = null;
  }
  if (envelope.event === 'sale_recorded' && me && envelope.actor === me) refreshCards();
  rerender();
  completePurchase();
}

const onStatus = connectionStatus('#t-conn', (text) => {
  $('#t-login').hidden = false;
  $('#t-login-error').textContent = text;
});

async function main() {
  await setLanguage(initialLanguage(`${STORE}.lang`), { storageKey: `${STORE}.lang` });
  await languagePicker($('#t-lang'), async (code) => {
    await setLanguage(code, { storageKey: `${STORE}.lang` });
    render();
  });
  applyTranslations(document);
  $('#t-player').value = localStorage.getItem(`${STORE}.player`) || '';
  $('#t-player').addEventListener('input', () => {
    localStorage.setItem(`${STORE}.player`, player());
    rerender();
  });
  $('#t-message').addEventListener('click', () => ($('#t-message').hidden = true));
  $('#t-series').addEventListener('change', rerender); // the price is the chosen series'
  $('#t-buy').addEventListener('click', () => buy(newPurchase(model.game ? model.game.id : null, $('#t-series').value, player())));
  const token = deviceToken(`${STORE}.token`);
  if (!token) {
    $('#t-login').hidden = false;
    return;
  }
  start = await awaitStart(() => onStatus('reconnecting'));
  hub = new Hub({
    auth: { token },
    // Marked once the number has been announced, as the panels show it (spec §5 G4: «sólo
    // después de haber sido anunciado cada número podrá … ser marcado»): the panel channel.
    channel: 'panel',
    afterSeq: start.session_from,
    onEvent,
    onStatus: (state, text) => {
      onStatus(state, text);
      online = state === 'live';
      rerender();
      $('#t-replaced').hidden = state !== 'replaced';
      if (state === 'live') {
        refreshCards(0);
        purchaseChecked = false;
        completePurchase();
      }
    },
  });
  $('#t-take-back').addEventListener('click', () => hub.start());
  hub.start();
  render();
  window.bingoTerminal.ready = true;
}

main();
