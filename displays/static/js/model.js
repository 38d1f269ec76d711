// The pages' picture of the hall: a fold of the hub's events (the same facts the hub's own
// state is folded from, bingo_hall/domain/evolve.py), plus what a screen shows that the hub's
// state forgets (the last game's result, the claims' verdicts, the camera readings).

import { add, times } from './decimal.js';

export function newModel() {
  return {
    seq: 0,
    phase: 'session_closed',
    session: null,
    profile: null,
    equipment: null,
    ballSetInService: null,
    lastGameAnnounced: false,
    lastGamePlayed: false, // after it, no new game may start: close the session
    closedReason: null,
    game: null, // the current game, or the last one of the session once it ended
    games: [], // every game of the session, in order
    requests: [], // players' requests and complaints taken down in the session
    answers: {}, // answers given in the session, by request number (earlier sessions' too)
  };
}

function newGame(payload, time) {
  return {
    id: payload.game_id,
    lastGame: payload.last_game,
    series: payload.series,
    status: 'series_announced',
    announcedAt: time,
    sales: [],
    ranges: [],
    cardsSold: 0,
    takings: '0',
    wording: null,
    linePrize: null,
    bingoPrize: null,
    payingRow: null,
    ballSet: null,
    balls: [],
    hold: null,
    claims: [],
    window: null,
    lineWonAt: null,
    lastOrder: null,
    resumed: null,
    splits: [],
    lineUnclaimed: null,
    void: null,
    payments: [],
    refundsPaid: [], // the Cajero's refunds of the game's cards, once voided
    ended: false,
  };
}

function findGame(model, id) {
  return model.games.find((game) => game.id === id) || null;
}

export function apply(model, envelope) {
  const p = envelope.payload;
  const time = Date.parse(envelope.time);
  const game = model.game;
  model.seq = envelope.seq;
  switch (envelope.event) {
    case 'session_opened':
      Object.assign(model, newModel(), {
        seq: envelope.seq,
        phase: 'equipment_check',
        session: { id: p.session_id, machineId: p.machine_id, machineKind: p.machine_kind, openedAt: time },
        profile: p.profile,
        ballSetInService: model.ballSetInService,
      });
      break;
    case 'equipment_checked':
      model.equipment = p;
      if (p.ok) model.phase = 'ball_loading';
      break;
    case 'session_closed':
      model.phase = 'session_closed';
      model.closedReason = p.reason;
      break;
    case 'ball_set_changed':
      model.ballSetInService = p.ball_set_id;
      model.phase = 'ball_loading';
      break;
    case 'balls_loaded':
      model.ballSetInService = p.ball_set_id;
      model.phase = 'session_ready';
      break;
    case 'last_game_announced':
      model.lastGameAnnounced = true;
      break;
    case 'series_announced':
      model.game = newGame(p, time);
      model.games.push(model.game);
      model.phase = 'series_announced';
      break;
    case 'sale_started':
      model.phase = 'selling';
      game.status = 'selling';
      break;
    case 'sale_recorded': {
      const sale = p.sale;
      const count = sale.last - sale.first + 1;
      game.sales.push({ ...sale, count, buyer: p.buyer, actor: envelope.actor, at: time });
      const range = game.ranges.find((r) => r.series_id === sale.series_id);
      if (range) range.last = sale.last;
      else game.ranges.push({ series_id: sale.series_id, first: sale.first, last: sale.last, face_value: sale.face_value });
      game.cardsSold += count;
      game.takings = add(game.takings, times(sale.face_value, count));
      break;
    }
    case 'sale_closed':
      model.phase = 'sale_closed';
      game.status = 'sale_closed';
      game.cardsSold = p.cards_sold;
      game.takings = p.takings;
      game.ranges = p.sold.map((range) => ({ ...range }));
      break;
    case 'prizes_announced':
      model.phase = 'announced';
      game.status = 'announced';
      game.wording = p.wording;
      game.takings = p.takings;
      game.linePrize = p.line_prize;
      game.bingoPrize = p.bingo_prize;
      game.payingRow = p.paying_row;
      break;
    case 'draw_started':
      model.phase = 'drawing';
      game.status = 'drawing';
      game.ballSet = p;
      break;
    case 'ball_held':
      model.phase = 'camera_hold';
      game.hold = { ...p, at: time };
      break;
    case 'hold_resolved':
      model.phase = 'drawing';
      game.hold = null;
      game.lastResolution = p;
      break;
    case 'ball_drawn':
      game.hold = null;
      game.balls.push({
        ordinal: p.ordinal,
        number: p.number,
        source: p.source,
        camera: p.camera || null,
        check: p.check || null,
        at: time,
      });
      break;
    case 'claim_called':
      game.claims.push({ ...p, status: 'pending', calledAt: time, actor: envelope.actor });
      // a ball the camera holds stays held while the claim is checked
      if (model.phase === 'drawing' || model.phase === 'camera_hold') model.phase = 'claim_paused';
      break;
    case 'claim_verified': {
      const claim = game.claims.find((c) => c.claim_id === p.claim_id);
      if (claim) Object.assign(claim, p, { status: p.valid ? 'valid' : 'invalid', verifiedAt: time });
      break;
    }
    case 'any_more_asked':
      model.phase = 'any_more_window';
      game.window = { ordinal: p.ordinal, openedAt: time };
      break;
    case 'draw_resumed':
      model.phase = game.hold ? 'camera_hold' : 'drawing';
      game.resumed = { ordinal: p.ordinal, at: time };
      break;
    case 'order_given': {
      const lines = game.claims.filter(
        (c) => c.kind === 'line' && c.status === 'valid' && c.ordinal === (game.window ? game.window.ordinal : p.ordinal),
      );
      if (game.lineWonAt === null && lines.length) game.lineWonAt = p.ordinal;
      model.phase = game.hold ? 'camera_hold' : 'drawing';
      game.window = null;
      game.lastOrder = { ...p, at: time };
      break;
    }
    case 'prize_split':
      game.splits.push(p);
      break;
    case 'line_prize_unclaimed':
      game.lineUnclaimed = p;
      break;
    case 'game_finished':
      model.phase = 'session_ready';
      game.status = 'finished';
      game.ended = true;
      model.lastGamePlayed = model.lastGamePlayed || game.lastGame;
      break;
    case 'game_voided':
      model.phase = 'session_ready';
      game.status = 'voided';
      game.void = p;
      game.ended = true;
      model.lastGamePlayed = model.lastGamePlayed || game.lastGame;
      break;
    case 'player_request_recorded':
      model.requests.push({ ...p, at: time, actor: envelope.actor });
      break;
    case 'player_request_answered':
      model.answers[p.request_id] = p.answer;
      break;
    case 'prize_paid': {
      const paidGame = findGame(model, p.game_id);
      if (paidGame) paidGame.payments.push({ ...p, at: time });
      break;
    }
    case 'refund_paid': {
      const voided = findGame(model, p.game_id);
      if (voided) voided.refundsPaid.push({ ...p, at: time, actor: envelope.actor });
      break;
    }
    default:
      break; // ball sets and series registered: the registers (control screen) ask /api/hall
  }
  return model;
}

export function called(game) {
  return new Set(game ? game.balls.map((ball) => ball.number) : []);
}

export function lastBall(game) {
  return game && game.balls.length ? game.balls[game.balls.length - 1] : null;
}

// The claims being checked now: those stamped with the last ball (pending or verified).
export function currentClaims(game) {
  if (!game) return [];
  const ordinal = game.balls.length;
  return game.claims.filter((claim) => claim.ordinal === ordinal);
}

// A card (3 x 9 grid, 0 for a blank) against the balls called: what is marked, and what it
// still needs for a line (its closest row) and for bingo.
export function marking(grid, calledSet) {
  const rows = grid.map((row) => row.filter((n) => n));
  const marked = rows.flat().filter((n) => calledSet.has(n));
  const missingByRow = rows.map((row) => row.filter((n) => !calledSet.has(n)));
  const lineNeeds = Math.min(...missingByRow.map((missing) => missing.length));
  return {
    marked,
    lineNeeds,
    bingoNeeds: 15 - marked.length,
    closestRow: missingByRow.findIndex((missing) => missing.length === lineNeeds),
    missingByRow,
  };
}

// The winners of a game's prizes: [{kind, series_id, card_number, claim_id, share, paid}].
export function winners(game) {
  if (!game) return [];
  const paid = new Set(game.payments.map((payment) => payment.claim_id));
  return game.splits.flatMap((split) =>
    split.winners.map((winner) => ({
      ...winner,
      kind: split.kind,
      share: split.share,
      pot: split.pot,
      residue: split.residue,
      ways: split.winners.length,
      paid: paid.has(winner.claim_id),
    })),
  );
}
