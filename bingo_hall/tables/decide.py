"""decide(state, command, now) -> events: the rules of a table as a pure function.

No clock and no randomness: the outcome comes in with RecordOutcome, the time from the shell
(for the hub's envelope, and for the hour a temporary closure needs before the casino's
closing time, which the hub fills into SuspendTable). A rejected command raises a RuleError
and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

from bingo_hall.domain.errors import RefusalOnRecord, RuleError, require_legal_phase
from bingo_hall.domain.refusals import Param, Term
from bingo_hall.registry import registrar
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.bets import BetRequest, check_bet, check_colour_value, check_positions
from bingo_hall.tables.exchanges import ExchangeKind, exchange_controller
from bingo_hall.tables.floats import check_amount, check_float, check_top_up
from bingo_hall.tables.heads import check_deputy, check_layouts
from bingo_hall.tables.limits import LimitChoice, resolve_limits
from bingo_hall.tables.profiles import (
    BetsAfterVoid,
    FortuneRules,
    LimitChange,
    Role,
    RouletteRules,
    TableGame,
    ValueChipBets,
    VoidReason,
    ZeroRule,
    role_term,
    role_terms,
)
from bingo_hall.tables.settlement import BetStatus, check_outcome, settle
from bingo_hall.tables.spinning import (
    check_rotation,
    check_spinner,
    spin_direction,
)
from bingo_hall.tables.state import TableState
from bingo_hall.tables.zero_rule import options

CLOSURE_NOTICE = timedelta(hours=1)
"""What must be left before the casino's closing time to close a table for a while: «oraindik,
gutxienez, … ixteko ezarritako ordutegia betetzeko ordubete geratzen denean» (EUS L2931 d)."""

Handler = Callable[[TableState, c.TableCommand, datetime], list[e.TableEvent]]
_HANDLERS: dict[type[c.TableCommand], Handler] = {}
_handles = registrar(_HANDLERS)


def decide(state: TableState, command: c.TableCommand, now: datetime) -> list[e.TableEvent]:
    """The events a command produces in this state, or a RuleError naming what is wrong."""
    _refuse_frozen_limits(state, command)
    require_legal_phase(
        command.name, state.phase, command.legal_in, c.commands_allowed_in, "table.phase"
    )
    return _HANDLERS[type(command)](state, command, now)


# --- the table's session --------------------------------------------------------------------


@_handles(c.OpenTable)
def _open(state: TableState, cmd: c.OpenTable, now: datetime) -> list[e.TableEvent]:
    limits = resolve_limits(cmd.table.rules, cmd.limits)
    if cmd.head is not None:
        _check_head_role(cmd.table, cmd.head_role)
    check_float(cmd.table, cmd.limits.minimum, cmd.float_amount)
    check_layouts(cmd.table, cmd.layouts)
    expected, found, note = _check_seal(state, cmd)
    return [
        e.TableOpened(
            table_id=cmd.table_id,
            session_id=state.session_id + 1,
            table=cmd.table,
            choice=cmd.limits,
            limits=limits,
            head=cmd.head,
            float_amount=cmd.float_amount,
            layouts=cmd.layouts,
            minimum_exemption=cmd.minimum_exemption,
            seal_expected=expected,
            seal_found=found,
            seal_note=note,
        )
    ]


def _check_seal(state: TableState, cmd: c.OpenTable) -> tuple[str | None, str | None, str | None]:
    """The seal the last session closed the cylinder with, the seal found on it and the note
    of a difference, checked against each other («provista de llave o precinto sellado», N79
    L234; AST L333-335; spec §2.12). A seal that differs, with no note of it, is refused and
    recorded: the cylinder may have been opened while the table was closed."""
    found = (cmd.seal_found or "").strip() or None
    note = (cmd.seal_note or "").strip() or None
    expected = (state.seal or "").strip() or None  # as typed at the close, spaces aside
    if expected is None:
        return expected, found, note
    if found is None:
        raise RuleError.of("table_seal_needed", seal=expected)
    if found == expected or note is not None:
        return expected, found, note
    refusal = RuleError.of("table_seal_mismatch", found=found, expected=expected)
    finding = e.SealMismatchFound(
        session_id=state.session_id, expected=expected, found=found, reason=refusal.message
    )
    raise RefusalOnRecord(refusal, [finding])


@_handles(c.TakeTable)
def _take(state: TableState, cmd: c.TakeTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if cmd.role is Role.DEPUTY_HEAD:
        check_deputy(table, state.layouts)
        if cmd.head in (state.head, state.deputy):
            reason = "table_heads_already" if cmd.head == state.head else "table_deputy_already"
            raise RuleError.of(reason, head=cmd.head, table=state.table_id)
        return [e.HeadTaken(head=cmd.head, role=cmd.role, previous=state.deputy)]
    _check_head_role(table, cmd.role)
    if cmd.head == state.head:
        raise RuleError.of("table_heads_already", head=cmd.head, table=state.table_id)
    return [e.HeadTaken(head=cmd.head, role=cmd.role, previous=state.head)]


def _check_head_role(table: TableGame, role: Role) -> None:
    if role not in table.rules.headed_by:
        raise RuleError.of(
            "table_not_headed_by",
            **table.named,
            roles=role_terms(table.rules.headed_by),
            role=role_term(role),
        )


@_handles(c.IssueColourChips)
def _colours(state: TableState, cmd: c.IssueColourChips, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    if not (isinstance(table.rules, RouletteRules) and table.rules.colour_chips):
        raise RuleError.of("table_no_colour_chips", **table.named)
    held = state.colours.get(cmd.colour)
    if held is not None and held.player != cmd.player:
        raise RuleError.of("table_colour_taken", colour=cmd.colour, player=held.player)
    value = cmd.unit_value if cmd.unit_value is not None else limits.table_minimum
    check_colour_value(limits, cmd.colour, value, table.rounding_unit)
    if held is not None and value != held.unit_value:
        _check_colour_unplayed(state, cmd.colour, held.unit_value, value)
    return [
        e.ColourChipsIssued(
            colour=cmd.colour,
            player=cmd.player,
            unit_value=value,
            chosen=cmd.unit_value is not None,
            chips=cmd.chips,
        )
    ]


@_handles(c.ReturnColourChips)
def _return_colours(
    state: TableState, cmd: c.ReturnColourChips, now: datetime
) -> list[e.TableEvent]:
    state.require_table()
    held = state.colours.get(cmd.colour)
    if held is None:
        raise RuleError.of("table_colour_not_held", colour=cmd.colour)
    if cmd.leaves:
        on_layout = _bets_in(state, cmd.colour)
        if on_layout:
            raise RuleError.of(
                "table_colour_bets_on_layout",
                colour=cmd.colour,
                player=held.player,
                bets=on_layout,
            )
    return [
        e.ColourChipsReturned(
            colour=cmd.colour,
            player=held.player,
            chips=cmd.chips,
            unit_value=held.unit_value,
            value=cmd.chips * held.unit_value,
            leaves=cmd.leaves,
        )
    ]


def _bets_in(state: TableState, colour: str) -> list[str]:
    """The ids of the bets in a colour on the layout."""
    return [bet.id for bet in state.bets.values() if bet.colour == colour]


def _check_no_colour_held(state: TableState, reason: str) -> None:
    """Colour chips are the table's (spec §3.3): changed back before it stops (`reason`: the
    refusal that says why)."""
    if state.colours:
        held = [f"{c.colour} ({c.player})" for c in state.colours.values()]
        raise RuleError.of(reason, held=held)


def _check_colour_unplayed(state: TableState, colour: str, value: Decimal, new: Decimal) -> None:
    """A colour's value is fixed when its stack is received (N79 L270), and the marker at the
    wheel shows the value of every bet in it (§3.3): no new value while one is on the layout."""
    played = _bets_in(state, colour)
    if played:
        raise RuleError.of(
            "table_colour_value_fixed",
            colour=colour,
            value=str(value),
            bets=played,
            new=str(new),
        )


@_handles(c.ExchangeAtTable)
def _exchange(state: TableState, cmd: c.ExchangeAtTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    check_amount(table, "exchange", cmd.amount)
    controller = exchange_controller(state.head, state.deputy)
    banknotes = cmd.amount if cmd.kind is ExchangeKind.BANKNOTES else Decimal(0)
    return [
        e.ExchangeMade(
            kind=cmd.kind,
            amount=cmd.amount,
            croupier=cmd.croupier,
            controlled_by=controller,
            player=cmd.player,
            cash_box=state.cash_box + banknotes,
        )
    ]


@_handles(c.SetValueChipBets)
def _value_chips(state: TableState, cmd: c.SetValueChipBets, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if not _head_controls_value_chips(table):
        raise RuleError.of("table_value_chips_not_controlled", **table.named)
    if cmd.allowed == (not state.value_chip_bets_stopped):
        raise RuleError.of(
            "table_value_chips_allowed_already"
            if cmd.allowed
            else "table_value_chips_stopped_already"
        )
    return [e.ValueChipBetsSet(allowed=cmd.allowed, set_by=cmd.set_by)]


def _head_controls_value_chips(table: TableGame) -> bool:
    rules = table.rules
    return (
        isinstance(rules, RouletteRules) and rules.value_chip_bets is ValueChipBets.HEAD_CONTROLLED
    )


def _check_value_chip_bet(state: TableState, table: TableGame, bet: BetRequest) -> None:
    """EUS L338 c: a bet in value chips at a table of colour chips names its player (the
    bettor must stay identifiable), and none is placed while the head has stopped them."""
    if bet.colour is not None or not _head_controls_value_chips(table):
        return
    if state.value_chip_bets_stopped:
        raise RuleError.of("table_value_chip_bets_stopped", bet=bet.id)
    if bet.player is None:
        raise RuleError.of("table_value_chip_bet_names_player", bet=bet.id)


@_handles(c.AnnounceLastCoups)
def _last(state: TableState, cmd: c.AnnounceLastCoups, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if state.last_coups_left is not None:
        raise RuleError.of("table_last_coups_announced_already")
    return [
        e.LastCoupsAnnounced(
            coups=table.rules.last_coups_announced,
            counting_current=state.phase is c.P.BETTING,
        )
    ]


def _refuse_frozen_limits(state: TableState, command: c.TableCommand) -> None:
    """N79 L210-218, AST L258-279: a table's limits stay as it opened for the whole session.
    An attempt at changing them, whatever the table is doing, is refused and kept on the
    record (spec §7 item 7); a malformed request is refused as such, and not recorded."""
    table = state.table
    if not isinstance(command, c.ChangeLimits) or state.phase is c.P.CLOSED or table is None:
        return
    if table.rules.limit_change is not LimitChange.FORBIDDEN:
        return
    resolve_limits(table.rules, command.limits)
    assert state.choice is not None, "an open table has its limits"
    refusal = RuleError.of("table_limits_frozen", **table.named)
    refused = e.LimitsChangeRefused(
        choice=command.limits,
        current=state.choice,
        requested_by=command.requested_by,
        phase=state.phase.value,
        reason=refusal.message,
    )
    raise RefusalOnRecord(refusal, [refused])


@_handles(c.ChangeLimits)
def _change(state: TableState, cmd: c.ChangeLimits, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    rules = table.rules
    limits = resolve_limits(rules, cmd.limits)
    assert state.choice is not None, "an open table has its limits"
    old_minimum = state.choice.minimum
    if rules.limit_change is LimitChange.WITH_AUTHORISATION:
        _check_raised(table, state.choice, cmd.limits)
        check_top_up(table, state.float_amount, old_minimum, cmd.limits.minimum, cmd.float_top_up)
        if not cmd.authorisation.strip():
            raise RuleError.of("table_authorisation_needed", **table.named)
        return [
            e.LimitsChanged(
                choice=cmd.limits,
                limits=limits,
                requested_by=cmd.requested_by,
                authorisation=cmd.authorisation,
                float_top_up=cmd.float_top_up,
                previous=state.choice,
            )
        ]
    if state.pending_limits is not None:
        raise RuleError.of("table_limits_change_pending")
    _check_floor(table, state.authorised, cmd.limits)
    check_top_up(table, state.float_amount, old_minimum, cmd.limits.minimum, cmd.float_top_up)
    return [
        e.LimitsChangeAnnounced(
            choice=cmd.limits,
            limits=limits,
            requested_by=cmd.requested_by,
            old_limit_coups=rules.old_limit_coups,
            float_top_up=cmd.float_top_up,
            previous=state.choice,
        )
    ]


def _check_raised(table: TableGame, current: LimitChoice | None, new: LimitChoice) -> None:
    """N77 L277-291: the director may ask for a higher minimum («la elevación de las apuestas
    mínimas»), never a lower one; the maxima, multiples of the minimum, rise in proportion."""
    if current is not None and new.minimum <= current.minimum:
        raise RuleError.of(
            "table_minimum_only_raised",
            **table.named,
            old=str(current.minimum),
            new=str(new.minimum),
        )


def _check_floor(table: TableGame, authorised: LimitChoice | None, new: LimitChoice) -> None:
    """The licence sets the table minimum (N79 L177, EUS L290): a change may raise it, or bring
    it back to it, never below. (N77's changes only raise it: `_check_raised`.)"""
    if authorised is not None and new.minimum < authorised.minimum:
        raise RuleError.of(
            "table_minimum_below_authorised",
            **table.named,
            authorised=str(authorised.minimum),
            new=str(new.minimum),
        )


@_handles(c.CloseTable)
def _close(state: TableState, cmd: c.CloseTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    prisoners = state.imprisoned
    if prisoners:
        raise RuleError.of(
            "table_bets_in_prison", count=len(prisoners), bets=[b.id for b in prisoners]
        )
    rules = table.rules
    _check_no_colour_held(state, "table_colours_held_at_close")
    suspended = state.phase is c.P.SUSPENDED  # no coup to announce: no one plays there
    if rules.last_coups_announcement_required and state.last_coups_left != 0 and not suspended:
        if state.last_coups_left is None:
            raise RuleError.of(
                "table_last_coups_not_announced", **table.named, count=rules.last_coups_announced
            )
        raise RuleError.of("table_last_coups_to_play", count=state.last_coups_left)
    expected = _float_expected(table, state, cmd)
    return [
        e.TableClosed(
            session_id=state.session_id,
            coups=state.coup,
            seal=cmd.seal,
            spins=dict(state.spins),
            float_amount=state.float_amount,
            suspended=suspended,
            colour_chips=state.colours_left,
            cash_box=state.cash_box,
            bank_result=state.bank_result,
            float_count=cmd.float_count,
            float_expected=expected,
            tips=cmd.tips,
        )
    ]


def _float_expected(table: TableGame, state: TableState, cmd: c.CloseTable) -> Decimal | None:
    """What the float should hold at the close, against which its count is recorded: the float
    handed and topped up, plus what the bank kept in the session's settlements, less the value
    chips given for banknotes (their money is in the cash box). None where no float is kept.

    Chips a player brings from the cash desk enter the float only as what he loses, and colour
    chips, all changed back before the close, leave only what their bets won or lost, so the
    settlements account for both."""
    for what, amount in (("float_count", cmd.float_count), ("tips", cmd.tips)):
        if amount is not None:
            check_amount(table, what, amount, zero=True)
    if state.float_amount is None:
        return None
    if cmd.float_count is None:
        raise RuleError.of(
            "table_float_count_needed", **table.named, amount=str(state.float_amount)
        )
    return state.float_amount + state.bank_result - state.cash_box


@_handles(c.TopUpFloat)
def _top_up(state: TableState, cmd: c.TopUpFloat, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    check_amount(table, "top_up", cmd.amount)
    after = None if state.float_amount is None else state.float_amount + cmd.amount
    return [e.FloatToppedUp(amount=cmd.amount, ordered_by=cmd.ordered_by, float_amount=after)]


@_handles(c.SuspendTable)
def _suspend(state: TableState, cmd: c.SuspendTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if not table.rules.temporary_closure:
        raise RuleError.of("table_no_temporary_closure", **table.named)
    if state.bets:
        raise RuleError.of("table_suspend_with_bets", bets=list(state.bets))
    _check_no_colour_held(state, "table_colours_held_at_suspension")
    if state.last_coups_left is not None:
        raise RuleError.of("table_suspend_after_last_coups")
    if cmd.closes_at is None:
        raise RuleError.of("table_closing_time_unknown")
    left = cmd.closes_at - now
    if left < CLOSURE_NOTICE:
        minutes = _minutes(left)
        raise RuleError.of(
            "table_closing_in_a_minute" if minutes == 1 else "table_closing_too_soon",
            at=_wall_time(cmd.closes_at),
            minutes=minutes,
        )
    return [
        e.TableSuspended(
            key_held_by=cmd.key_held_by, float_amount=state.float_amount, closes_at=cmd.closes_at
        )
    ]


def _wall_time(instant: datetime) -> str:
    """«04:00 (UTC+02:00)»: the time of day the hall's clocks show, and their offset."""
    offset = instant.utcoffset() or timedelta(0)
    sign, offset = ("-", -offset) if offset < timedelta(0) else ("+", offset)
    hours, minutes = divmod(int(offset.total_seconds()) // 60, 60)
    zone = f"UTC{sign}{hours:02}:{minutes:02}" if offset else "UTC"
    return f"{instant:%H:%M} ({zone})"


def _minutes(span: timedelta) -> int:
    """Whole minutes, none below zero (the closing time may pass while the command waits)."""
    return max(0, int(span.total_seconds() // 60))


@_handles(c.ResumeTable)
def _resume(state: TableState, cmd: c.ResumeTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    _check_head_role(table, cmd.head_role)
    return [
        e.TableResumed(
            unlocked_by=cmd.unlocked_by,
            croupier=cmd.croupier,
            head=cmd.head,
            head_role=cmd.head_role,
        )
    ]


@_handles(c.SetSpinRotation)
def _rotation(state: TableState, cmd: c.SetSpinRotation, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    croupiers = check_rotation(table, cmd.croupiers)
    return [e.SpinRotationSet(croupiers=croupiers, set_by=cmd.set_by)]


# --- the coup ---------------------------------------------------------------------------------


@_handles(c.OpenBets)
def _open_bets(state: TableState, cmd: c.OpenBets, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if cmd.role not in table.rules.bets_opened_by:
        raise RuleError.of(
            "table_bets_not_opened_by",
            **table.named,
            roles=role_terms(table.rules.bets_opened_by),
            role=role_term(cmd.role),
        )
    if state.last_coups_left == 0:
        raise RuleError.of("table_last_coup_played")
    if not state.rotation:  # else the coup could not be spun, nor the rotation set, until void
        raise RuleError.of("table_no_rotation")
    return [e.BetsOpened(coup=state.coup + 1, last_coup=state.last_coups_left == 1)]


@_handles(c.PlaceBet)
def _place(state: TableState, cmd: c.PlaceBet, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    if state.phase is c.P.NO_MORE_BETS:
        return [e.LateBetReturned(coup=state.coup, request=cmd.bet)]
    if cmd.bet.id in state.bets:
        raise RuleError.of("table_bet_id_taken", bet=repr(cmd.bet.id))
    if cmd.bet.prison:
        raise RuleError.of("table_bet_placed_in_prison", bet=cmd.bet.id)
    colours = {colour: chip.unit_value for colour, chip in state.colours.items()}
    if cmd.bet.colour is not None:
        held = state.colours.get(cmd.bet.colour)
        if held is None or (cmd.bet.player is not None and held.player != cmd.bet.player):
            raise RuleError.of("table_bet_colour_not_issued", bet=cmd.bet.id, colour=cmd.bet.colour)
    _check_value_chip_bet(state, table, cmd.bet)
    bet = check_bet(table, limits, cmd.bet, colours)
    if bet.colour is not None and bet.player is None:
        bet = bet.model_copy(update={"player": state.colours[bet.colour].player})
    check_positions([*state.bets.values(), bet], limits)
    return [e.BetPlaced(coup=state.coup, bet=bet)]


@_handles(c.WithdrawBet)
def _withdraw(state: TableState, cmd: c.WithdrawBet, now: datetime) -> list[e.TableEvent]:
    bet = state.bets.get(cmd.bet_id)
    if bet is None:
        raise RuleError.of("table_no_such_bet", bet=repr(cmd.bet_id))
    if bet.prison:
        raise RuleError.of("table_bet_in_prison_stays", bet=cmd.bet_id)
    return [e.BetWithdrawn(coup=state.coup, bet_id=cmd.bet_id)]


@_handles(c.Spin)
def _spin(state: TableState, cmd: c.Spin, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if state.spinning:
        raise RuleError.of("table_already_spinning", coup=state.coup)
    check_spinner(state, cmd.spun_by)
    direction = spin_direction(table, state, cmd.direction)
    relaunch = state.spin is not None
    return [e.Spun(coup=state.coup, spun_by=cmd.spun_by, direction=direction, relaunch=relaunch)]


def _require_spinning(state: TableState, refusals: tuple[str, str]) -> None:
    """The coup spins; else `refusals` say who spins it first (the second: again, after its
    void)."""
    if state.spinning:
        return
    due = state.next_spinner
    if due is None:
        raise RuleError.of("table_no_rotation")
    first, again = refusals
    raise RuleError.of(again if state.spin else first, coup=state.coup, due=due)


@_handles(c.CallNoMoreBets)
def _no_more(state: TableState, cmd: c.CallNoMoreBets, now: datetime) -> list[e.TableEvent]:
    _require_spinning(state, ("table_spin_before_no_more", "table_spin_again_before_no_more"))
    return [e.NoMoreBets(coup=state.coup)]


def _voided(
    state: TableState,
    reason: VoidReason,
    declared_by: str,
    role: c.Role | None,
    revolutions: int | None = None,
    no_head_present: bool = False,
) -> e.CoupVoided:
    table, _ = state.require_table()
    reopen = table.rules.bets_after_void is BetsAfterVoid.OPEN or state.phase is c.P.BETTING
    return e.CoupVoided(
        coup=state.coup,
        reason=reason,
        declared_by=declared_by,
        role=role,
        previous_outcome=state.previous_outcome,
        revolutions=revolutions,
        bets_open=reopen,
        no_head_present=no_head_present,
    )


@_handles(c.DeclareVoid)
def _void(state: TableState, cmd: c.DeclareVoid, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    rules = table.rules
    if cmd.reason not in rules.void_reasons:
        raise RuleError.of(
            "table_void_reason_not_in_profile",
            **table.named,
            reason=_void_reason(cmd.reason),
            reasons=[_void_reason(reason) for reason in rules.void_reasons],
        )
    heads = rules.void_declared_by
    in_absence = cmd.role in rules.void_declared_in_absence_by
    if in_absence and not cmd.no_head_present:
        raise _void_only_in_absence(table, cmd.role, heads)
    if cmd.no_head_present and not in_absence:
        raise RuleError.of(
            "table_no_head_present_not_for_role", **table.named, role=role_term(cmd.role)
        )
    if not in_absence and cmd.role not in heads:
        params: dict[str, Param] = {
            **table.named,
            "heads": role_terms(heads),
            "role": role_term(cmd.role),
        }
        absent = rules.void_declared_in_absence_by
        if absent:
            raise RuleError.of(
                "table_void_declared_by_or_absent", **params, absent=role_terms(absent)
            )
        raise RuleError.of("table_void_declared_by", **params)
    return [_voided(state, cmd.reason, cmd.declared_by, cmd.role, no_head_present=in_absence)]


def _void_reason(reason: VoidReason) -> Term:
    return Term("table.void_reason", reason.value)


def _void_only_in_absence(table: TableGame, role: Role, heads: tuple[Role, ...]) -> RuleError:
    """A role that declares a void coup only when none of the `heads` is at the table, and has
    not said that none is: «no table_head or inspector»."""
    *others, last = role_terms(heads)
    params: dict[str, Param] = {**table.named, "role": role_term(role), "head": last}
    if others:
        return RuleError.of("table_void_only_when_no_heads", **params, heads=others)
    return RuleError.of("table_void_only_when_no_head", **params)


@_handles(c.RecordOutcome)
def _outcome(state: TableState, cmd: c.RecordOutcome, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    _require_spinning(state, ("table_spin_before_outcome", "table_spin_again_before_outcome"))
    outcome = check_outcome(table, cmd.outcome)
    rules = table.rules
    if isinstance(rules, FortuneRules) and rules.min_revolutions:
        if cmd.revolutions is None:
            raise RuleError.of(
                "table_revolutions_needed", **table.named, least=rules.min_revolutions
            )
        if cmd.revolutions < rules.min_revolutions:
            return [_voided(state, VoidReason.TOO_FEW_REVOLUTIONS, "rules", None, cmd.revolutions)]
    return [e.OutcomeRecorded(coup=state.coup, outcome=outcome, revolutions=cmd.revolutions)]


@_handles(c.ChooseZeroOption)
def _zero(state: TableState, cmd: c.ChooseZeroOption, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    rules = table.rules
    bet = state.bets.get(cmd.bet_id)
    if bet is None:
        raise RuleError.of("table_no_such_bet", bet=repr(cmd.bet_id))
    if not (
        isinstance(rules, RouletteRules)
        and rules.zero_rule is ZeroRule.HALF_OR_PRISON
        and bet.is_even_chance
    ):
        raise RuleError.of("table_zero_choice_even_chances_only", bet=bet.id)
    assert state.outcome is not None and rules.prison is not None
    if state.outcome not in rules.wheel().zeros:
        raise RuleError.of("table_outcome_not_a_zero", outcome=state.outcome)
    allowed, forced = options(
        bet.amount, bet.prison, rules.prison, limits.table_minimum, state.last_coup
    )
    if cmd.choice not in allowed:
        reason = {
            "last_coup": "table_zero_choice_last_coup",
            "below_minimum": "table_zero_choice_below_minimum",
        }[forced or ""]
        raise RuleError.of(reason, bet=bet.id, choice=Term("station.zero", cmd.choice.value))
    return [
        e.ZeroOptionChosen(
            coup=state.coup, bet_id=bet.id, choice=cmd.choice, declared_by=cmd.declared_by
        )
    ]


@_handles(c.Settle)
def _settle(state: TableState, cmd: c.Settle, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    assert state.outcome is not None
    settlement = settle(
        table,
        limits,
        list(state.bets.values()),
        state.outcome,
        last_coup=state.last_coup,
        zero_choices=state.zero_choices,
    )
    return [e.CoupSettled(coup=state.coup, settlement=settlement)]


@_handles(c.PayCoup)
def _pay(state: TableState, cmd: c.PayCoup, now: datetime) -> list[e.TableEvent]:
    assert state.settlement is not None
    carried = tuple(
        state.bets[r.id].model_copy(update={"prison": r.prison, "zero_choice": None})
        for r in state.settlement.results
        if r.status is BetStatus.PRISON
    )
    events: list[e.TableEvent] = [
        e.CoupPaid(coup=state.coup, payments=state.settlement.payment_order, carried=carried)
    ]
    pending = state.pending_limits
    if pending is not None and pending.coups_left == 1:
        events.append(
            e.LimitsChanged(
                choice=pending.choice,
                limits=pending.limits,
                requested_by=pending.requested_by,
                previous=state.choice,
            )
        )
    return events
