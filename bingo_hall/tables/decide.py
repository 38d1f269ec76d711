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
            what = "heads" if cmd.head == state.head else "is the deputy head of"
            raise RuleError(f"{cmd.head} {what} table {state.table_id} already")
        return [e.HeadTaken(head=cmd.head, role=cmd.role, previous=state.deputy)]
    _check_head_role(table, cmd.role)
    if cmd.head == state.head:
        raise RuleError(f"{cmd.head} heads table {state.table_id} already")
    return [e.HeadTaken(head=cmd.head, role=cmd.role, previous=state.head)]


def _check_head_role(table: TableGame, role: Role) -> None:
    if role not in table.rules.headed_by:
        raise RuleError(
            f"under {table.label} a table is headed by: "
            f"{', '.join(r.value for r in table.rules.headed_by)}; not by the {role.value}"
        )


@_handles(c.IssueColourChips)
def _colours(state: TableState, cmd: c.IssueColourChips, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    if not (isinstance(table.rules, RouletteRules) and table.rules.colour_chips):
        raise RuleError(f"{table.label} has no colour chips (American roulette: N79 L246)")
    held = state.colours.get(cmd.colour)
    if held is not None and held.player != cmd.player:
        raise RuleError(f"colour {cmd.colour} is already {held.player}'s")
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
        raise RuleError(f"colour {cmd.colour} is held by no player at this table")
    if cmd.leaves:
        on_layout = _bets_in(state, cmd.colour)
        if on_layout:
            raise RuleError(
                f"colour {cmd.colour}: {held.player}'s bets in it are on the layout "
                f"({', '.join(on_layout)}): he leaves the colour once they are settled"
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


def _check_no_colour_held(state: TableState, why: str) -> None:
    """Colour chips are the table's (spec §3.3): changed back before it stops."""
    if state.colours:
        held = ", ".join(f"{c.colour} ({c.player})" for c in state.colours.values())
        raise RuleError(
            f"colour chips are still held: {held}; {why}: change them back "
            "(return_colour_chips) first"
        )


def _check_colour_unplayed(state: TableState, colour: str, value: Decimal, new: Decimal) -> None:
    """A colour's value is fixed when its stack is received (N79 L270), and the marker at the
    wheel shows the value of every bet in it (§3.3): no new value while one is on the layout."""
    played = _bets_in(state, colour)
    if played:
        raise RuleError(
            f"colour {colour}: its chips are worth {value} and bets in it are on the layout "
            f"({', '.join(played)}); its value is fixed when the stack is received (N79 L270), "
            f"so it cannot become {new} before they are settled"
        )


@_handles(c.ExchangeAtTable)
def _exchange(state: TableState, cmd: c.ExchangeAtTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    check_amount(table, "an exchange", cmd.amount)
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
        raise RuleError(
            f"{table.label}: no one allows or stops bets in value chips under this profile "
            "(the Basque American table's head or inspector does, EUS L338)"
        )
    if cmd.allowed == (not state.value_chip_bets_stopped):
        raise RuleError(
            f"new bets in value chips are {'allowed' if cmd.allowed else 'stopped'} already"
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
        raise RuleError(
            f"bet {bet.id}: the head has stopped new bets in value chips at this table (EUS "
            "L338 c): bet in colour chips"
        )
    if bet.player is None:
        raise RuleError(
            f"bet {bet.id}: a bet in value chips names its player, who must stay identifiable "
            "(EUS L338 c)"
        )


@_handles(c.AnnounceLastCoups)
def _last(state: TableState, cmd: c.AnnounceLastCoups, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if state.last_coups_left is not None:
        raise RuleError("the last coups of this session have already been announced")
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
    message = (
        f"{table.label}: once a table is running its limits may not change during the "
        "session (N79 L210-218; AST L258-279); the attempt is on the record"
    )
    refused = e.LimitsChangeRefused(
        choice=command.limits,
        current=state.choice,
        requested_by=command.requested_by,
        phase=state.phase.value,
        reason=message,
    )
    raise RefusalOnRecord(RuleError(message), [refused])


@_handles(c.ChangeLimits)
def _change(state: TableState, cmd: c.ChangeLimits, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    rules = table.rules
    limits = resolve_limits(rules, cmd.limits)
    assert state.choice is not None, "an open table has its limits"
    old_minimum = state.choice.minimum
    if rules.limit_change is LimitChange.WITH_AUTHORISATION:
        _check_raised(table.label, state.choice, cmd.limits)
        check_top_up(table, state.float_amount, old_minimum, cmd.limits.minimum, cmd.float_top_up)
        if not cmd.authorisation.strip():
            raise RuleError(
                f"{table.label}: a new minimum needs the authority's authorisation, and cannot "
                "apply before it is granted (N77 L277-291): give its reference"
            )
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
        raise RuleError("a change of limits is already announced: its last balls are not over")
    _check_floor(table.label, state.authorised, cmd.limits)
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


def _check_raised(label: str, current: LimitChoice | None, new: LimitChoice) -> None:
    """N77 L277-291: the director may ask for a higher minimum («la elevación de las apuestas
    mínimas»), never a lower one; the maxima, multiples of the minimum, rise in proportion."""
    if current is not None and new.minimum <= current.minimum:
        raise RuleError(
            f"{label}: under this profile a table's minimum may only be raised (N77 L277-291), "
            f"not changed from {current.minimum} to {new.minimum}"
        )


def _check_floor(label: str, authorised: LimitChoice | None, new: LimitChoice) -> None:
    """The licence sets the table minimum (N79 L177, EUS L290): a change may raise it, or bring
    it back to it, never below. (N77's changes only raise it: `_check_raised`.)"""
    if authorised is not None and new.minimum < authorised.minimum:
        raise RuleError(
            f"{label}: a change may not take the minimum below the authorised "
            f"{authorised.minimum} (the licence sets it, EUS L290), not to {new.minimum}"
        )


@_handles(c.CloseTable)
def _close(state: TableState, cmd: c.CloseTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    prisoners = state.imprisoned
    if prisoners:
        raise RuleError(
            f"{len(prisoners)} bets are in prison ({', '.join(b.id for b in prisoners)}): play "
            "on until they are freed or lost; announce the last coup so that a zero refunds them"
        )
    rules = table.rules
    _check_no_colour_held(state, "they are the table's and it closes")
    suspended = state.phase is c.P.SUSPENDED  # no coup to announce: no one plays there
    if rules.last_coups_announcement_required and state.last_coups_left != 0 and not suspended:
        if state.last_coups_left is None:
            raise RuleError(
                f"{table.label}: announce the last {rules.last_coups_announced} balls of the "
                "session before closing (EUS L2923)"
            )
        raise RuleError(f"{state.last_coups_left} of the announced last coups are still to play")
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
    for what, amount in (("the float counted", cmd.float_count), ("the tips", cmd.tips)):
        if amount is not None:
            check_amount(table, what, amount, zero=True)
    if state.float_amount is None:
        return None
    if cmd.float_count is None:
        raise RuleError(
            f"{table.label}: count the float before closing (float_count): it goes back to "
            f"the cash desk against the {state.float_amount} handed and topped up"
        )
    return state.float_amount + state.bank_result - state.cash_box


@_handles(c.TopUpFloat)
def _top_up(state: TableState, cmd: c.TopUpFloat, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    check_amount(table, "a float top-up", cmd.amount)
    after = None if state.float_amount is None else state.float_amount + cmd.amount
    return [e.FloatToppedUp(amount=cmd.amount, ordered_by=cmd.ordered_by, float_amount=after)]


@_handles(c.SuspendTable)
def _suspend(state: TableState, cmd: c.SuspendTable, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if not table.rules.temporary_closure:
        raise RuleError(
            f"{table.label}: a table is not closed for a while during the session; only the "
            "Basque catalogue provides it (EUS L306): close it"
        )
    if state.bets:
        raise RuleError(
            f"bets are on the layout ({', '.join(state.bets)}): a table closes for a while "
            "only when left without customers («bezerorik gabe», EUS L306)"
        )
    _check_no_colour_held(state, "a player holding them is a customer at the table")
    if state.last_coups_left is not None:
        raise RuleError(
            "the session's last coups are announced: play them and close the table; a table "
            "closes for a while only with the session still to run (EUS L2931 d)"
        )
    if cmd.closes_at is None:
        raise RuleError(
            "the hall's closing time is not configured (closing_time): a table closes for a "
            "while only with at least an hour left before the casino's closing time (EUS "
            "L2931 d); set it in the hall's configuration"
        )
    left = cmd.closes_at - now
    if left < CLOSURE_NOTICE:
        raise RuleError(
            f"the casino closes at {_wall_time(cmd.closes_at)}, {_minutes(left)} from now: a "
            "table closes for a while only with at least an hour left before the closing time "
            "(EUS L2931 d); keep it open, or close it"
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


def _minutes(span: timedelta) -> str:
    """Whole minutes, none below zero (the closing time may pass while the command waits)."""
    minutes = max(0, int(span.total_seconds() // 60))
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


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
        raise RuleError(
            f"under {table.label} «hagan sus apuestas» is announced by: "
            f"{', '.join(r.value for r in table.rules.bets_opened_by)}; not by the "
            f"{cmd.role.value}"
        )
    if state.last_coups_left == 0:
        raise RuleError("the announced last coup has been played: close the table")
    if not state.rotation:  # else the coup could not be spun, nor the rotation set, until void
        raise RuleError.of("table_no_rotation")
    return [e.BetsOpened(coup=state.coup + 1, last_coup=state.last_coups_left == 1)]


@_handles(c.PlaceBet)
def _place(state: TableState, cmd: c.PlaceBet, now: datetime) -> list[e.TableEvent]:
    table, limits = state.require_table()
    if state.phase is c.P.NO_MORE_BETS:
        return [e.LateBetReturned(coup=state.coup, request=cmd.bet)]
    if cmd.bet.id in state.bets:
        raise RuleError(f"bet id {cmd.bet.id!r} is already on the layout")
    if cmd.bet.prison:
        raise RuleError(f"bet {cmd.bet.id}: a bet goes to prison only on a zero, not when placed")
    colours = {colour: chip.unit_value for colour, chip in state.colours.items()}
    if cmd.bet.colour is not None:
        held = state.colours.get(cmd.bet.colour)
        if held is None or (cmd.bet.player is not None and held.player != cmd.bet.player):
            raise RuleError(f"bet {cmd.bet.id}: colour {cmd.bet.colour} was not issued to it")
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
        raise RuleError(f"there is no bet {cmd.bet_id!r} on the layout")
    if bet.prison:
        raise RuleError(f"bet {cmd.bet_id} is in prison and cannot be withdrawn (spec §2.5)")
    return [e.BetWithdrawn(coup=state.coup, bet_id=cmd.bet_id)]


@_handles(c.Spin)
def _spin(state: TableState, cmd: c.Spin, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    if state.spinning:
        raise RuleError(
            f"coup {state.coup} is already spinning: record where the ball stops (after «no "
            "va más»), or declare the coup void"
        )
    check_spinner(state, cmd.spun_by)
    direction = spin_direction(table, state, cmd.direction)
    relaunch = state.spin is not None
    return [e.Spun(coup=state.coup, spun_by=cmd.spun_by, direction=direction, relaunch=relaunch)]


def _require_spinning(state: TableState, what: str) -> None:
    if not state.spinning:
        raise RuleError(
            f"coup {state.coup} has not been spun{' again after its void' if state.spin else ''}"
            f": {state.next_spinner or 'the croupier whose turn it is'} spins before {what}"
        )


@_handles(c.CallNoMoreBets)
def _no_more(state: TableState, cmd: c.CallNoMoreBets, now: datetime) -> list[e.TableEvent]:
    _require_spinning(state, "«no va más» (N79 L226: it is called as the ball slows)")
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
        raise RuleError(
            f"{table.label} has no void coup for {cmd.reason.value} (its reasons: "
            f"{', '.join(r.value for r in rules.void_reasons)})"
        )
    heads = rules.void_declared_by
    in_absence = cmd.role in rules.void_declared_in_absence_by
    if in_absence and not cmd.no_head_present:
        raise RuleError(
            f"under {table.label} the {cmd.role.value} declares a void coup only when no "
            f"{' or '.join(r.value for r in heads)} is at the table: say that none is "
            "(no_head_present), or let them declare it"
        )
    if cmd.no_head_present and not in_absence:
        raise RuleError(
            f"no_head_present is for a role that declares a void coup only in the head's "
            f"absence; under {table.label} the {cmd.role.value} declares it as such"
        )
    if not in_absence and cmd.role not in heads:
        absent = ", ".join(r.value for r in rules.void_declared_in_absence_by)
        raise RuleError(
            f"under {table.label} a void coup is declared by: "
            f"{', '.join(r.value for r in heads)}"
            + (f" (or, when none is there, {absent})" if absent else "")
            + f"; not by the {cmd.role.value}"
        )
    return [_voided(state, cmd.reason, cmd.declared_by, cmd.role, no_head_present=in_absence)]


@_handles(c.RecordOutcome)
def _outcome(state: TableState, cmd: c.RecordOutcome, now: datetime) -> list[e.TableEvent]:
    table, _ = state.require_table()
    _require_spinning(state, "the outcome is recorded")
    outcome = check_outcome(table, cmd.outcome)
    rules = table.rules
    if isinstance(rules, FortuneRules) and rules.min_revolutions:
        if cmd.revolutions is None:
            raise RuleError(
                f"{table.label}: record the wheel's complete revolutions after the second "
                f"impulse (at least {rules.min_revolutions}, WOF L27)"
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
        raise RuleError(f"there is no bet {cmd.bet_id!r} on the layout")
    if not (
        isinstance(rules, RouletteRules)
        and rules.zero_rule is ZeroRule.HALF_OR_PRISON
        and bet.is_even_chance
    ):
        raise RuleError(f"bet {bet.id}: only even chances at French roulette choose on a zero")
    assert state.outcome is not None and rules.prison is not None
    if state.outcome not in rules.wheel().zeros:
        raise RuleError(f"the outcome is {state.outcome}, not a zero: there is nothing to choose")
    allowed, forced = options(
        bet.amount, bet.prison, rules.prison, limits.table_minimum, state.last_coup
    )
    if cmd.choice not in allowed:
        why = {
            "last_coup": "on the last coup of the session the half is refunded (N79 L171)",
            "below_minimum": "its value is below the table minimum, so it stays in prison "
            "(N79 L169)",
        }[forced or ""]
        raise RuleError(f"bet {bet.id} cannot choose {cmd.choice.value}: {why}")
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
