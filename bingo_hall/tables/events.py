"""The facts of a table. Pydantic models with a `type`, whose payloads replay the state, so that
they go into the hall's hash-chained event log, on the table's own stream (hub/table_service.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from bingo_hall.tables.bets import Bet, BetRequest
from bingo_hall.tables.colours import ColourChips
from bingo_hall.tables.exchanges import ExchangeKind
from bingo_hall.tables.limits import LimitChoice, ResolvedLimits
from bingo_hall.tables.payment import Payment
from bingo_hall.tables.profiles import Role, SpinDirection, TableGame, VoidReason, ZeroChoice
from bingo_hall.tables.settlement import Settlement


class TableEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    type: ClassVar[str]

    def payload(self) -> dict:
        return self.model_dump(mode="json")


class TableOpened(TableEvent):
    """The table opens for a session with its game, its profile's rules and its limits."""

    type = "table_opened"
    table_id: str
    session_id: int
    table: TableGame
    choice: LimitChoice
    limits: ResolvedLimits
    head: str | None = None  # the head who opened it; None: the director did
    float_amount: Decimal | None = None  # handed by the cash desk; None: not kept here
    layouts: int = 1
    # the authorisation exempting its game from keeping a table at the minimum (N79 L216)
    minimum_exemption: str | None = None
    # the cylinder's seal: the one the last session closed it with (None: the table's first
    # session), the one found on it, and the note where they differ
    seal_expected: str | None = None
    seal_found: str | None = None
    seal_note: str | None = None


class SealMismatchFound(TableEvent):
    """At an opening, a seal on the cylinder that is not the one it was closed with, and no
    note of it yet: the table stays closed, and the finding is on the record."""

    type = "table_seal_mismatch_found"
    session_id: int  # the session that closed the cylinder with `expected`
    expected: str
    found: str
    reason: str


class HeadTaken(TableEvent):
    """The table's head (or, role deputy_head, its deputy head) from now on; `previous`, the
    one he relieves (None: it had none)."""

    type = "table_head_taken"
    head: str
    role: Role = Role.TABLE_HEAD
    previous: str | None = None


class ColourChipsIssued(TableEvent):
    type = "table_colour_chips_issued"
    colour: str
    player: str
    unit_value: Decimal
    chosen: bool  # False: the player chose no value, so a chip is worth the table minimum
    chips: int = 0  # in the stack (0: a stream from before stacks were counted)


class ColourChipsReturned(TableEvent):
    """Colour chips changed back into value chips, at the colour's value: a cash operation."""

    type = "table_colour_chips_returned"
    colour: str
    player: str
    chips: int
    unit_value: Decimal
    value: Decimal  # chips × unit_value, paid in value chips
    leaves: bool  # the colour is free for another player


class ExchangeMade(TableEvent):
    """An exchange at the table: banknotes into its cash box for value chips, or value chips
    for others; made by a croupier, controlled by the head or deputy head (N79 L125)."""

    type = "table_exchange_made"
    kind: ExchangeKind
    amount: Decimal
    croupier: str
    controlled_by: str
    player: str | None = None
    cash_box: Decimal  # the banknotes in the table's cash box this session, after it


class ValueChipBetsSet(TableEvent):
    """New bets in value chips allowed again, or stopped (EUS L338 c)."""

    type = "table_value_chip_bets_set"
    allowed: bool
    set_by: str


class LastCoupsAnnounced(TableEvent):
    """«Las últimas tres bolas» (EUS L2923), or the last coup marked (N79/AST, spec §12 Q3)."""

    type = "table_last_coups_announced"
    coups: int
    counting_current: bool  # announced while bets are open: this coup is the first of them


class LimitsChangeAnnounced(TableEvent):
    """EUS L304: the new limits apply after the last three balls at the old ones."""

    type = "table_limits_change_announced"
    choice: LimitChoice
    limits: ResolvedLimits
    requested_by: str
    old_limit_coups: int
    float_top_up: Decimal = Decimal(0)  # added to the float at the request
    previous: LimitChoice | None = None  # the limits it replaces (spec §2.7: old and new)


class LimitsChanged(TableEvent):
    type = "table_limits_changed"
    choice: LimitChoice
    limits: ResolvedLimits
    requested_by: str
    authorisation: str = ""
    float_top_up: Decimal = Decimal(0)  # added with it (N77); 0 when announced before (EUS)
    previous: LimitChoice | None = None  # the limits it replaces (spec §2.7: old and new)


class LimitsChangeRefused(TableEvent):
    """A change of limits asked for under a profile that freezes them for the session (N79
    L210-218, AST L258-279): refused, and kept on the record (spec §7 item 7)."""

    type = "table_limits_change_refused"
    choice: LimitChoice  # the limits asked for
    current: LimitChoice  # the limits the table keeps
    requested_by: str
    phase: str  # what the table was doing when it was asked
    reason: str


class FloatToppedUp(TableEvent):
    type = "table_float_topped_up"
    amount: Decimal
    ordered_by: str
    float_amount: Decimal | None  # the float after it (None: the hall keeps it elsewhere)


class TableSuspended(TableEvent):
    """Closed for a while, without customers: the float locked at the table (EUS L306)."""

    type = "table_suspended"
    key_held_by: str
    float_amount: Decimal | None = None
    # the casino's closing time it was closed ahead of, in the hall's local time with its UTC
    # offset (EUS L2931 d); None in streams written before it was recorded
    closes_at: AwareDatetime | None = None


class TableResumed(TableEvent):
    """Unlocked by the key's holder, with a croupier and its head (or inspector) there."""

    type = "table_resumed"
    unlocked_by: str
    croupier: str
    head: str
    head_role: Role = Role.TABLE_HEAD


class SpinRotationSet(TableEvent):
    """The croupiers who spin, in their order; the first of them spins the next coup."""

    type = "table_spin_rotation_set"
    croupiers: tuple[str, ...]
    set_by: str


class BetsOpened(TableEvent):
    type = "table_bets_opened"
    coup: int
    last_coup: bool


class BetPlaced(TableEvent):
    type = "table_bet_placed"
    coup: int
    bet: Bet


class BetWithdrawn(TableEvent):
    type = "table_bet_withdrawn"
    coup: int
    bet_id: str


class LateBetReturned(TableEvent):
    """A bet after «no va más»: refused and its chips pushed back (N79 L472)."""

    type = "table_late_bet_returned"
    coup: int
    request: BetRequest


class Spun(TableEvent):
    """The cylinder (or the wheel) set turning and the ball launched, by the croupier whose
    turn it was; `relaunch`: the same coup again after a void."""

    type = "table_spun"
    coup: int
    spun_by: str
    direction: SpinDirection | None = None
    relaunch: bool = False


class NoMoreBets(TableEvent):
    type = "table_no_more_bets"
    coup: int


class CoupVoided(TableEvent):
    """«Tirada nula»: nothing is settled, every bet stays as it was (spec §2.9, §6.5)."""

    type = "table_coup_voided"
    coup: int
    reason: VoidReason
    declared_by: str
    role: Role | None = None  # None: the rules voided it (too few revolutions)
    no_head_present: bool = False  # declared in the absence of the head and the inspector
    previous_outcome: str | None = None  # the ball goes back in the last coup's pocket
    revolutions: int | None = None
    bets_open: bool  # betting opens again (EUS, WOF) or the ball is relaunched on the bets


class OutcomeRecorded(TableEvent):
    type = "table_outcome_recorded"
    coup: int
    outcome: str
    revolutions: int | None = None


class ZeroOptionChosen(TableEvent):
    type = "table_zero_option_chosen"
    coup: int
    bet_id: str
    choice: ZeroChoice
    declared_by: str = Field(min_length=1)


class CoupSettled(TableEvent):
    type = "table_coup_settled"
    coup: int
    settlement: Settlement


class CoupPaid(TableEvent):
    """The winners were paid in order; the bets still in prison stay for the next coup."""

    type = "table_coup_paid"
    coup: int
    payments: tuple[Payment, ...]
    carried: tuple[Bet, ...]


class TableClosed(TableEvent):
    type = "table_closed"
    session_id: int
    coups: int
    seal: str  # the cylinder's lid key or sealed tag (N79 L234)
    spins: dict[str, int] = Field(default_factory=dict)  # the session's coups per croupier
    float_amount: Decimal | None = None  # the float, top-ups included, back to the cash desk
    suspended: bool = False  # closed for good while closed for a while
    colour_chips: tuple[ColourChips, ...] = ()  # the session's ledger, a line per holding
    cash_box: Decimal = Decimal(0)  # the banknotes exchanged at the table this session
    bank_result: Decimal = Decimal(0)  # the session's settlements: what the bank kept (+)
    float_count: Decimal | None = None  # the value chips counted in the float at the close
    float_expected: Decimal | None = None  # float + top-ups + bank_result − cash_box
    tips: Decimal | None = None  # the tips box counted (None: counted elsewhere)


EVENT_TYPES: dict[str, type[TableEvent]] = {
    cls.type: cls
    for cls in (
        TableOpened,
        SealMismatchFound,
        HeadTaken,
        ColourChipsIssued,
        ColourChipsReturned,
        ExchangeMade,
        ValueChipBetsSet,
        LastCoupsAnnounced,
        LimitsChangeAnnounced,
        LimitsChanged,
        LimitsChangeRefused,
        FloatToppedUp,
        TableSuspended,
        TableResumed,
        SpinRotationSet,
        BetsOpened,
        BetPlaced,
        BetWithdrawn,
        LateBetReturned,
        Spun,
        NoMoreBets,
        CoupVoided,
        OutcomeRecorded,
        ZeroOptionChosen,
        CoupSettled,
        CoupPaid,
        TableClosed,
    )
}


def event_from_payload(event_type: str, payload: dict) -> TableEvent:
    """Rebuild an event read back from a log."""
    return EVENT_TYPES[event_type].model_validate(payload)
