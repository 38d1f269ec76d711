"""Commands to a table: what the staff ask. Each names the phases where it is legal."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from bingo_hall.tables.bets import BetRequest
from bingo_hall.tables.exchanges import ExchangeKind
from bingo_hall.tables.limits import LimitChoice
from bingo_hall.tables.phases import PLAYING_PHASES, TablePhase
from bingo_hall.tables.profiles import Role, SpinDirection, TableGame, VoidReason, ZeroChoice

P = TablePhase


class TableCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: ClassVar[str]
    legal_in: ClassVar[frozenset[TablePhase]]


class OpenTable(TableCommand):
    name = "open_table"
    legal_in = frozenset({P.CLOSED})
    table_id: str = Field(min_length=1)
    table: TableGame
    limits: LimitChoice
    head: str | None = None  # who heads it from the opening (None: the director opens it)
    head_role: Role = Role.TABLE_HEAD  # the head's: a table head, or an inspector (EUS)
    float_amount: Decimal | None = None  # the float the cash desk hands it (None: not kept here)
    layouts: int = Field(default=1, ge=1, le=2)  # «a un paño», «a dos paños» (N79 L111)
    # the authorisation exempting its game from keeping a table at the minimum (N79 L216)
    minimum_exemption: str | None = None
    # the seal (or key) found on the cylinder, against the one it was closed with (N79 L234),
    # and where they differ, what was found and whom it was reported to
    seal_found: str | None = Field(default=None, max_length=100)
    seal_note: str | None = Field(default=None, max_length=500)


class TakeTable(TableCommand):
    """A head takes over the direction of the table (at the opening, or relieving another)."""

    name = "take_table"
    legal_in = PLAYING_PHASES
    head: str = Field(min_length=1, max_length=100)
    # a table head, an inspector where the profile lets him, or (role deputy_head) the deputy
    # head of a two-layout table
    role: Role = Role.TABLE_HEAD


class IssueColourChips(TableCommand):
    """American roulette: a stack of colour chips and the value the player gives them."""

    name = "issue_colour_chips"
    legal_in = frozenset({P.IDLE, P.BETTING})
    colour: str = Field(min_length=1, max_length=40)
    player: str = Field(min_length=1, max_length=100)
    chips: int = Field(ge=1, le=100_000)  # in the stack
    unit_value: Decimal | None = None  # None: the table minimum (N79 L270)


class ReturnColourChips(TableCommand):
    """A player changes the colour chips he holds back into value chips (spec §3.3); when he
    leaves, the colour is free for another player."""

    name = "return_colour_chips"
    legal_in = frozenset({P.IDLE, P.BETTING})
    colour: str = Field(min_length=1, max_length=40)
    chips: int = Field(ge=0, le=100_000)  # 0: he leaves with none left
    leaves: bool = True


class ExchangeAtTable(TableCommand):
    """A croupier changes a player's banknotes for value chips, or value chips for others of
    the same total, under the control of the table's head (N79 L125, L569)."""

    name = "exchange_at_table"
    legal_in = PLAYING_PHASES  # not at a table closed for a while: its cash box is locked
    kind: ExchangeKind
    amount: Decimal
    croupier: str = Field(min_length=1, max_length=100)
    player: str | None = Field(default=None, min_length=1, max_length=100)


class SetValueChipBets(TableCommand):
    """The head or inspector allows or stops new bets in value chips (EUS L338 c)."""

    name = "set_value_chip_bets"
    legal_in = frozenset({P.IDLE, P.BETTING})
    allowed: bool
    set_by: str = Field(min_length=1)


class AnnounceLastCoups(TableCommand):
    name = "announce_last_coups"
    legal_in = frozenset({P.IDLE, P.BETTING})


class ChangeLimits(TableCommand):
    name = "change_limits"
    legal_in = frozenset({P.IDLE})
    limits: LimitChoice
    requested_by: str = Field(min_length=1)
    authorisation: str = ""  # the authority's reference, where the profile needs one
    float_top_up: Decimal = Decimal(0)  # added to the float with the change (N77 L285, EUS L304)


class TopUpFloat(TableCommand):
    """The cash desk adds to the table's float, on the director's order."""

    name = "top_up_float"
    legal_in = PLAYING_PHASES  # not while it is locked at a table closed for a while
    amount: Decimal
    ordered_by: str = Field(min_length=1)


class SuspendTable(TableCommand):
    """A table left without customers closes for a while: its float stays locked at it, the
    director (or his deputy) holding the key (EUS L306, L2931 d)."""

    name = "suspend_table"
    legal_in = frozenset({P.IDLE})
    key_held_by: str = Field(min_length=1)
    # the casino's next closing, in the hall's local time, filled in by the hub from the
    # configuration (`closing_time`); None: none configured. Only with an hour left before it
    # (EUS L2931 d).
    closes_at: AwareDatetime | None = None


class ResumeTable(TableCommand):
    """Play resumes only with a croupier and the table's head or inspector there (EUS L306)."""

    name = "resume_table"
    legal_in = frozenset({P.SUSPENDED})
    unlocked_by: str = Field(min_length=1)
    croupier: str = Field(min_length=1, max_length=100)
    head: str = Field(min_length=1, max_length=100)
    head_role: Role = Role.TABLE_HEAD


class SetSpinRotation(TableCommand):
    """The director's order in which the croupiers spin, one coup each (N79 L127, L424)."""

    name = "set_spin_rotation"
    legal_in = frozenset({P.IDLE})
    croupiers: tuple[str, ...] = Field(min_length=1, max_length=20)
    set_by: str = Field(min_length=1)


class OpenBets(TableCommand):
    name = "open_bets"
    legal_in = frozenset({P.IDLE})
    role: Role = Role.CROUPIER  # of who announces «hagan sus apuestas» (the hub fills it in)


class PlaceBet(TableCommand):
    name = "place_bet"
    legal_in = frozenset({P.BETTING, P.NO_MORE_BETS})  # after «no va más»: returned
    bet: BetRequest


class WithdrawBet(TableCommand):
    name = "withdraw_bet"
    legal_in = frozenset({P.BETTING})
    bet_id: str


class Spin(TableCommand):
    """The croupier whose turn it is sets the cylinder (or the wheel) turning and launches the
    ball; after a void coup, he launches it again."""

    name = "spin"
    legal_in = frozenset({P.BETTING, P.NO_MORE_BETS})  # NO_MORE_BETS: relaunched on kept bets
    spun_by: str = Field(min_length=1, max_length=100)
    direction: SpinDirection | None = None  # the cylinder's; the ball goes the other way


class CallNoMoreBets(TableCommand):
    name = "call_no_more_bets"
    legal_in = frozenset({P.BETTING})


class DeclareVoid(TableCommand):
    name = "declare_void"
    legal_in = frozenset({P.BETTING, P.NO_MORE_BETS})
    reason: VoidReason
    declared_by: str = Field(min_length=1)
    role: Role
    # a role the profile lets declare only in the others' absence says they are not there
    no_head_present: bool = False


class RecordOutcome(TableCommand):
    name = "record_outcome"
    legal_in = frozenset({P.NO_MORE_BETS})
    outcome: str = Field(min_length=1)
    revolutions: int | None = Field(default=None, ge=0)  # wheel of fortune, after the impulse


class ChooseZeroOption(TableCommand):
    name = "choose_zero_option"
    legal_in = frozenset({P.OUTCOME})
    bet_id: str
    choice: ZeroChoice
    declared_by: str = Field(min_length=1)


class Settle(TableCommand):
    name = "settle"
    legal_in = frozenset({P.OUTCOME})


class PayCoup(TableCommand):
    name = "pay_coup"
    legal_in = frozenset({P.SETTLED})


class CloseTable(TableCommand):
    name = "close_table"
    legal_in = frozenset({P.IDLE, P.SUSPENDED})  # closed for good after a while
    seal: str = Field(min_length=1)
    # the count at the close: the value chips in the float (required where the table keeps
    # one) and the tips box (None: counted elsewhere)
    float_count: Decimal | None = None
    tips: Decimal | None = None


COMMAND_TYPES: dict[str, type[TableCommand]] = {
    cls.name: cls
    for cls in (
        OpenTable,
        TakeTable,
        IssueColourChips,
        ReturnColourChips,
        ExchangeAtTable,
        SetValueChipBets,
        AnnounceLastCoups,
        ChangeLimits,
        TopUpFloat,
        SuspendTable,
        ResumeTable,
        SetSpinRotation,
        OpenBets,
        PlaceBet,
        WithdrawBet,
        Spin,
        CallNoMoreBets,
        DeclareVoid,
        RecordOutcome,
        ChooseZeroOption,
        Settle,
        PayCoup,
        CloseTable,
    )
}


def commands_allowed_in(phase: TablePhase) -> list[str]:
    return [name for name, cls in COMMAND_TYPES.items() if phase in cls.legal_in]
