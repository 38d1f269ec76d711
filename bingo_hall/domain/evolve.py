"""evolve(state, event, time) -> state: how each fact changes the hall. Replay is a fold of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime

from bingo_hall.domain import events as e
from bingo_hall.domain.cards import Card
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.profiles import LinePrizePayable
from bingo_hall.domain.state import (
    Award,
    BallSet,
    Claim,
    Game,
    HallState,
    Holding,
    OpenRequest,
    PaidRefund,
    Series,
    ShowingsInProgress,
    VoidRefunds,
)
from bingo_hall.registry import registrar

Applier = Callable[[HallState, e.Event, datetime], HallState]
_APPLIERS: dict[type[e.Event], Applier] = {}


def evolve(state: HallState, event: e.Event, time: datetime) -> HallState:
    return _APPLIERS[type(event)](state, event, time)


def replay(events: Iterable[tuple[e.Event, datetime]], state: HallState | None = None) -> HallState:
    """Fold events (with their envelope time) into the hall state."""
    state = state or HallState()
    for event, time in events:
        state = evolve(state, event, time)
    return state


_applies = registrar(_APPLIERS)


def _with_game(state: HallState, **changes: object) -> HallState:
    assert state.game is not None
    return replace(state, game=replace(state.game, **changes))


def _end_game(state: HallState) -> HallState:
    assert state.game is not None
    return replace(
        state,
        phase=Phase.SESSION_READY,
        game=None,
        ended_game=state.game,
        last_game_played=state.last_game_played or state.game.last_game,
    )


@_applies(e.SessionOpened)
def _(state: HallState, ev: e.SessionOpened, time: datetime) -> HallState:
    return replace(
        state,
        phase=Phase.EQUIPMENT_CHECK,
        profile=ev.profile,
        session_id=ev.session_id,
        machine_id=ev.machine_id,
        machine_kind=ev.machine_kind,
        call_witness_floor=ev.call_witness_floor,
        last_game_announced=False,
        last_game_played=False,
        session_games=0,
    )


@_applies(e.EquipmentChecked)
def _(state: HallState, ev: e.EquipmentChecked, time: datetime) -> HallState:
    return replace(state, phase=Phase.BALL_LOADING) if ev.ok else state


@_applies(e.SessionClosed)
def _(state: HallState, ev: e.SessionClosed, time: datetime) -> HallState:
    return replace(state, phase=Phase.SESSION_CLOSED)


@_applies(e.BallSetRegistered)
def _(state: HallState, ev: e.BallSetRegistered, time: datetime) -> HallState:
    ball_set = BallSet(ev.ball_set_id, ev.homologation)
    return replace(state, ball_sets={**state.ball_sets, ev.ball_set_id: ball_set})


@_applies(e.BallSetChanged)
def _(state: HallState, ev: e.BallSetChanged, time: datetime) -> HallState:
    ball_sets = dict(state.ball_sets)
    if ev.previous is not None:
        ball_sets[ev.previous] = replace(ball_sets[ev.previous], retired=True)
    return replace(
        state,
        ball_sets=ball_sets,
        ball_set_in_service=ev.ball_set_id,
        phase=Phase.BALL_LOADING,
        showings=_showings_without(state.showings, ev.previous),  # a retired set is not judged
    )


def _showings_without(
    showings: ShowingsInProgress | None, ball_set_id: str | None
) -> ShowingsInProgress | None:
    """The showings kept, unless they are of that set (their facts stay in the log)."""
    return None if showings is not None and showings.ball_set_id == ball_set_id else showings


@_applies(e.BallShownToCamera)
def _(state: HallState, ev: e.BallShownToCamera, time: datetime) -> HallState:
    kept = state.showings or ShowingsInProgress(ev.ball_set_id)
    return replace(state, showings=replace(kept, showings=(*kept.showings, ev.showing)))


@_applies(e.BallShowingsDiscarded)
def _(state: HallState, ev: e.BallShowingsDiscarded, time: datetime) -> HallState:
    return replace(state, showings=None)


@_applies(e.BallSetCommissioned)
def _(state: HallState, ev: e.BallSetCommissioned, time: datetime) -> HallState:
    references = tuple(
        (showing.number, showing.camera.frame)
        for showing in ev.showings
        if ev.fit and showing.camera.frame is not None
    )
    ball_set = replace(
        state.ball_sets[ev.ball_set_id], camera_fit=ev.fit, camera_references=references
    )
    return replace(
        state,
        ball_sets={**state.ball_sets, ev.ball_set_id: ball_set},
        showings=_showings_without(state.showings, ev.ball_set_id),  # judged
    )


@_applies(e.BallsLoaded)
def _(state: HallState, ev: e.BallsLoaded, time: datetime) -> HallState:
    return replace(state, phase=Phase.SESSION_READY)


@_applies(e.SeriesRegistered)
def _(state: HallState, ev: e.SeriesRegistered, time: datetime) -> HallState:
    series = Series(ev.series_id, ev.face_value, ev.size, ev.commitment)
    return replace(state, series={**state.series, ev.series_id: series})


@_applies(e.LastGameAnnounced)
def _(state: HallState, ev: e.LastGameAnnounced, time: datetime) -> HallState:
    return replace(state, last_game_announced=True)


@_applies(e.SeriesAnnounced)
def _(state: HallState, ev: e.SeriesAnnounced, time: datetime) -> HallState:
    game = Game(ev.game_id, tuple(s.series_id for s in ev.series), last_game=ev.last_game)
    unpaid = {key: award for key, award in state.awards.items() if award.status != "paid"}
    owed = {game_id: ledger for game_id, ledger in state.refunds.items() if not ledger.settled}
    return replace(
        state,
        phase=Phase.SERIES_ANNOUNCED,
        game=game,
        games_started=ev.game_id,
        session_games=state.session_games + 1,
        awards=unpaid,
        refunds=owed,
    )


@_applies(e.SaleStarted)
def _(state: HallState, ev: e.SaleStarted, time: datetime) -> HallState:
    return replace(state, phase=Phase.SELLING)


@_applies(e.SaleRecorded)
def _(state: HallState, ev: e.SaleRecorded, time: datetime) -> HallState:
    assert state.game is not None
    sale = ev.sale
    sales = list(state.game.sales)
    for index, earlier in enumerate(sales):
        if earlier.series_id == sale.series_id:  # consecutive: extend the series' one range
            sales[index] = earlier.model_copy(update={"last": sale.last})
            break
    else:
        sales.append(sale)
    series = state.series[sale.series_id]
    state = replace(
        state,
        series={**state.series, sale.series_id: replace(series, next_number=sale.last + 1)},
    )
    holdings = state.game.holdings
    if ev.buyer is not None:
        holding = Holding(ev.buyer, sale.series_id, sale.first, sale.last, ev.purchase)
        holdings = (*holdings, holding)
    return _with_game(
        state, sales=tuple(sales), takings=state.game.takings + sale.amount, holdings=holdings
    )


@_applies(e.SaleClosed)
def _(state: HallState, ev: e.SaleClosed, time: datetime) -> HallState:
    return replace(state, phase=Phase.SALE_CLOSED)


@_applies(e.PrizesAnnounced)
def _(state: HallState, ev: e.PrizesAnnounced, time: datetime) -> HallState:
    state = replace(state, phase=Phase.ANNOUNCED)
    return _with_game(
        state, line_prize=ev.line_prize, bingo_prize=ev.bingo_prize, paying_row=ev.paying_row
    )


@_applies(e.DrawStarted)
def _(state: HallState, ev: e.DrawStarted, time: datetime) -> HallState:
    ball_set = replace(state.ball_sets[ev.ball_set_id], games=ev.games_on_set)
    return replace(
        state, phase=Phase.DRAWING, ball_sets={**state.ball_sets, ev.ball_set_id: ball_set}
    )


@_applies(e.BallDrawn)
def _(state: HallState, ev: e.BallDrawn, time: datetime) -> HallState:
    assert state.game is not None
    return _with_game(state, calls=(*state.game.calls, ev.number))


@_applies(e.BallHeld)
def _(state: HallState, ev: e.BallHeld, time: datetime) -> HallState:
    return _with_game(replace(state, phase=Phase.CAMERA_HOLD), held=ev)


@_applies(e.HoldResolved)
def _(state: HallState, ev: e.HoldResolved, time: datetime) -> HallState:
    return _with_game(replace(state, phase=Phase.DRAWING), held=None)


@_applies(e.ClaimCalled)
def _(state: HallState, ev: e.ClaimCalled, time: datetime) -> HallState:
    assert state.game is not None
    claim = Claim(ev.claim_id, ev.kind, ev.series_id, ev.card_number, Card(ev.grid), ev.ordinal)
    if state.phase in (Phase.DRAWING, Phase.CAMERA_HOLD):  # a held ball stays held
        state = replace(state, phase=Phase.CLAIM_PAUSED)
    return _with_game(state, claims=(*state.game.claims, claim))


@_applies(e.ClaimVerified)
def _(state: HallState, ev: e.ClaimVerified, time: datetime) -> HallState:
    assert state.game is not None
    claims = tuple(
        replace(
            claim,
            status="valid" if ev.valid else "invalid",
            reason=ev.reason,
            rows=ev.rows,
        )
        if claim.claim_id == ev.claim_id
        else claim
        for claim in state.game.claims
    )
    return _with_game(state, claims=claims)


@_applies(e.AnyMoreAsked)
def _(state: HallState, ev: e.AnyMoreAsked, time: datetime) -> HallState:
    state = replace(state, phase=Phase.ANY_MORE_WINDOW)
    return _with_game(state, window_ordinal=ev.ordinal, window_opened_at=time)


@_applies(e.DrawResumed)
def _(state: HallState, ev: e.DrawResumed, time: datetime) -> HallState:
    return replace(state, phase=_drawing_again(state))


def _drawing_again(state: HallState) -> Phase:
    """Where the draw goes on after claims: back to a ball the camera still holds, if one is."""
    assert state.game is not None
    return Phase.CAMERA_HOLD if state.game.held is not None else Phase.DRAWING


@_applies(e.OrderGiven)
def _(state: HallState, ev: e.OrderGiven, time: datetime) -> HallState:
    assert state.game is not None
    line_won = state.game.line_won_at
    if line_won is None and state.game.claims_at_window("line"):
        line_won = ev.ordinal
    state = replace(state, phase=_drawing_again(state))
    return _with_game(
        state,
        line_won_at=line_won,
        rights_closed_through=ev.ordinal,
        window_ordinal=None,
        window_opened_at=None,
    )


@_applies(e.PrizeSplit)
def _(state: HallState, ev: e.PrizeSplit, time: datetime) -> HallState:
    assert state.game is not None
    profile = state.require_profile()
    payable = ev.kind == "bingo" or (profile.line_prize_payable is LinePrizePayable.AT_VERIFICATION)
    awards = dict(state.awards)
    for winner in ev.winners:
        awards[(state.game.game_id, winner.claim_id)] = Award(
            state.game.game_id,
            winner.claim_id,
            ev.kind,
            winner.series_id,
            winner.card_number,
            ev.share,
            payable,
        )
    return replace(state, awards=awards)


@_applies(e.LinePrizeUnclaimed)
def _(state: HallState, ev: e.LinePrizeUnclaimed, time: datetime) -> HallState:
    return state


def _release_awards(state: HallState, game_id: int, keep: bool) -> HallState:
    """At the end of a game its prizes become payable (kept) or are withdrawn (void)."""
    awards = {}
    for key, award in state.awards.items():
        if award.game_id != game_id:
            awards[key] = award
        elif keep:
            awards[key] = replace(award, payable=True)
        elif award.status == "paid":
            awards[key] = award  # paid and owed back: the restitution is in the void event
    return replace(state, awards=awards)


@_applies(e.GameFinished)
def _(state: HallState, ev: e.GameFinished, time: datetime) -> HallState:
    return _end_game(_release_awards(state, ev.game_id, keep=True))


@_applies(e.GameVoided)
def _(state: HallState, ev: e.GameVoided, time: datetime) -> HallState:
    """The game's refund ledger is owed until the Cajero has refunded every card of it."""
    ledger = VoidRefunds(ev.game_id, state.session_id, ev.refunds)
    state = replace(
        state,
        refunds={**state.refunds, ev.game_id: ledger},
        voided_games=state.voided_games | {ev.game_id},
    )
    return _end_game(_release_awards(state, ev.game_id, keep=not ev.awards_withdrawn))


@_applies(e.PlayerRequestRecorded)
def _(state: HallState, ev: e.PlayerRequestRecorded, time: datetime) -> HallState:
    open_requests = state.open_requests
    if ev.answer is None:
        game_id = state.game.game_id if state.game is not None else None
        request = OpenRequest(ev.request_id, ev.kind, ev.player, ev.text, state.session_id, game_id)
        open_requests = {**open_requests, ev.request_id: request}
    return replace(state, player_requests=ev.request_id, open_requests=open_requests)


@_applies(e.PlayerRequestAnswered)
def _(state: HallState, ev: e.PlayerRequestAnswered, time: datetime) -> HallState:
    open_requests = {k: v for k, v in state.open_requests.items() if k != ev.request_id}
    return replace(state, open_requests=open_requests)


@_applies(e.RefundPaid)
def _(state: HallState, ev: e.RefundPaid, time: datetime) -> HallState:
    ledger = state.refunds[ev.game_id]
    paid = PaidRefund(ev.series_id, ev.first, ev.last, ev.amount)
    ledger = replace(ledger, paid=(*ledger.paid, paid))
    return replace(state, refunds={**state.refunds, ev.game_id: ledger})


@_applies(e.PrizePaid)
def _(state: HallState, ev: e.PrizePaid, time: datetime) -> HallState:
    key = (ev.game_id, ev.claim_id)
    return replace(state, awards={**state.awards, key: replace(state.awards[key], status="paid")})
