"""evolve(state, event) -> state: how each fact changes a table. Replay is a fold of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from decimal import Decimal
from types import MappingProxyType

from bingo_hall.registry import registrar
from bingo_hall.tables import events as e
from bingo_hall.tables.colours import ColourChips
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import Role
from bingo_hall.tables.state import EMPTY, CoupSpin, PendingLimits, TableState

Applier = Callable[[TableState, e.TableEvent], TableState]
_APPLIERS: dict[type[e.TableEvent], Applier] = {}
_applies = registrar(_APPLIERS)


def evolve(state: TableState, event: e.TableEvent) -> TableState:
    return _APPLIERS[type(event)](state, event)


def replay(events: Iterable[e.TableEvent], state: TableState | None = None) -> TableState:
    """Fold a table's events into its state."""
    state = state or TableState()
    for event in events:
        state = evolve(state, event)
    return state


def _frozen(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


@_applies(e.TableOpened)
def _(state: TableState, ev: e.TableOpened) -> TableState:
    return TableState(
        phase=TablePhase.IDLE,
        table_id=ev.table_id,
        session_id=ev.session_id,
        table=ev.table,
        choice=ev.choice,
        limits=ev.limits,
        authorised=ev.choice,
        head=ev.head,
        float_amount=ev.float_amount,
        layouts=ev.layouts,
    )


@_applies(e.SealMismatchFound)
def _(state: TableState, ev: e.SealMismatchFound) -> TableState:
    return state  # on the record only: the table stays closed


@_applies(e.HeadTaken)
def _(state: TableState, ev: e.HeadTaken) -> TableState:
    """A deputy head who becomes the head is no longer the deputy."""
    if ev.role is Role.DEPUTY_HEAD:
        return replace(state, deputy=ev.head)
    return replace(state, head=ev.head, deputy=None if state.deputy == ev.head else state.deputy)


@_applies(e.ColourChipsIssued)
def _(state: TableState, ev: e.ColourChipsIssued) -> TableState:
    held = state.colours.get(ev.colour) or ColourChips(
        colour=ev.colour, player=ev.player, unit_value=ev.unit_value
    )
    holding = held.with_issue(ev.chips, ev.unit_value)
    return replace(state, colours=_frozen({**state.colours, ev.colour: holding}))


@_applies(e.ColourChipsReturned)
def _(state: TableState, ev: e.ColourChipsReturned) -> TableState:
    holding = state.colours[ev.colour].with_return(ev.chips, ev.leaves)
    if not ev.leaves:
        return replace(state, colours=_frozen({**state.colours, ev.colour: holding}))
    held = {colour: h for colour, h in state.colours.items() if colour != ev.colour}
    return replace(state, colours=_frozen(held), colours_left=(*state.colours_left, holding))


@_applies(e.ExchangeMade)
def _(state: TableState, ev: e.ExchangeMade) -> TableState:
    return replace(state, cash_box=ev.cash_box)


@_applies(e.ValueChipBetsSet)
def _(state: TableState, ev: e.ValueChipBetsSet) -> TableState:
    return replace(state, value_chip_bets_stopped=not ev.allowed)


@_applies(e.LastCoupsAnnounced)
def _(state: TableState, ev: e.LastCoupsAnnounced) -> TableState:
    last = state.last_coup or (ev.counting_current and ev.coups == 1)
    return replace(state, last_coups_left=ev.coups, last_coup=last)


@_applies(e.LimitsChangeAnnounced)
def _(state: TableState, ev: e.LimitsChangeAnnounced) -> TableState:
    pending = PendingLimits(ev.choice, ev.limits, ev.requested_by, ev.old_limit_coups)
    return replace(state, pending_limits=pending, **_topped_up(state, ev.float_top_up))


@_applies(e.LimitsChanged)
def _(state: TableState, ev: e.LimitsChanged) -> TableState:
    topped = _topped_up(state, ev.float_top_up)
    return replace(state, choice=ev.choice, limits=ev.limits, pending_limits=None, **topped)


@_applies(e.LimitsChangeRefused)
def _(state: TableState, ev: e.LimitsChangeRefused) -> TableState:
    return state  # on the record only: the table keeps its limits


def _topped_up(state: TableState, amount: Decimal) -> dict:
    """The float after a top-up; a table whose float is not kept here keeps none."""
    if not amount or state.float_amount is None:
        return {}
    return {"float_amount": state.float_amount + amount}


@_applies(e.FloatToppedUp)
def _(state: TableState, ev: e.FloatToppedUp) -> TableState:
    return replace(state, float_amount=ev.float_amount)


@_applies(e.TableSuspended)
def _(state: TableState, ev: e.TableSuspended) -> TableState:
    """No one heads a table closed for a while: its head comes back with play (EUS L306)."""
    return replace(
        state, phase=TablePhase.SUSPENDED, key_held_by=ev.key_held_by, head=None, deputy=None
    )


@_applies(e.TableResumed)
def _(state: TableState, ev: e.TableResumed) -> TableState:
    return replace(state, phase=TablePhase.IDLE, key_held_by=None, head=ev.head)


@_applies(e.SpinRotationSet)
def _(state: TableState, ev: e.SpinRotationSet) -> TableState:
    return replace(state, rotation=ev.croupiers, turn=0)


@_applies(e.BetsOpened)
def _(state: TableState, ev: e.BetsOpened) -> TableState:
    return replace(
        state,
        phase=TablePhase.BETTING,
        coup=ev.coup,
        last_coup=ev.last_coup,
        outcome=None,
        zero_choices=EMPTY,
        settlement=None,
        spin=None,
        spinning=False,
    )


@_applies(e.Spun)
def _(state: TableState, ev: e.Spun) -> TableState:
    return replace(state, spin=CoupSpin(ev.spun_by, ev.direction), spinning=True)


@_applies(e.BetPlaced)
def _(state: TableState, ev: e.BetPlaced) -> TableState:
    return replace(state, bets=_frozen({**state.bets, ev.bet.id: ev.bet}))


@_applies(e.BetWithdrawn)
def _(state: TableState, ev: e.BetWithdrawn) -> TableState:
    return replace(state, bets=_frozen({k: v for k, v in state.bets.items() if k != ev.bet_id}))


@_applies(e.LateBetReturned)
def _(state: TableState, ev: e.LateBetReturned) -> TableState:
    return state


@_applies(e.NoMoreBets)
def _(state: TableState, ev: e.NoMoreBets) -> TableState:
    return replace(state, phase=TablePhase.NO_MORE_BETS)


@_applies(e.CoupVoided)
def _(state: TableState, ev: e.CoupVoided) -> TableState:
    phase = TablePhase.BETTING if ev.bets_open else TablePhase.NO_MORE_BETS
    return replace(state, phase=phase, outcome=None, spinning=False)


@_applies(e.OutcomeRecorded)
def _(state: TableState, ev: e.OutcomeRecorded) -> TableState:
    """The coup counts: the turn passes to the next croupier of the rotation."""
    spin = state.spin
    counted = {} if spin is None else {spin.spun_by: state.spins.get(spin.spun_by, 0) + 1}
    return replace(
        state,
        phase=TablePhase.OUTCOME,
        outcome=ev.outcome,
        spin=None,
        spinning=False,
        turn=state.turn + 1,
        last_direction=spin.direction if spin and spin.direction else state.last_direction,
        spins=_frozen({**state.spins, **counted}),
    )


@_applies(e.ZeroOptionChosen)
def _(state: TableState, ev: e.ZeroOptionChosen) -> TableState:
    return replace(state, zero_choices=_frozen({**state.zero_choices, ev.bet_id: ev.choice}))


@_applies(e.CoupSettled)
def _(state: TableState, ev: e.CoupSettled) -> TableState:
    return replace(
        state,
        phase=TablePhase.SETTLED,
        settlement=ev.settlement,
        bank_result=state.bank_result + ev.settlement.totals.bank_result,
    )


@_applies(e.CoupPaid)
def _(state: TableState, ev: e.CoupPaid) -> TableState:
    pending = state.pending_limits
    if pending is not None:
        pending = replace(pending, coups_left=pending.coups_left - 1)
    left = state.last_coups_left
    return replace(
        state,
        phase=TablePhase.IDLE,
        bets=_frozen({bet.id: bet for bet in ev.carried}),
        previous_outcome=state.outcome,
        outcome=None,
        zero_choices=EMPTY,
        settlement=None,
        last_coups_left=None if left is None else left - 1,
        pending_limits=pending,
    )


@_applies(e.TableClosed)
def _(state: TableState, ev: e.TableClosed) -> TableState:
    return TableState(
        phase=TablePhase.CLOSED, table_id=state.table_id, session_id=ev.session_id, seal=ev.seal
    )
