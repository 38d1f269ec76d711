"""The state of one table, rebuilt by folding its events. Immutable: every change is a new value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import Bet
from bingo_hall.tables.colours import ColourChips
from bingo_hall.tables.limits import LimitChoice, ResolvedLimits
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import SpinDirection, TableGame, ZeroChoice
from bingo_hall.tables.settlement import Settlement

EMPTY: Mapping = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PendingLimits:
    choice: LimitChoice
    limits: ResolvedLimits
    requested_by: str
    coups_left: int  # coups still to play at the old limits


@dataclass(frozen=True, slots=True)
class CoupSpin:
    """Who spun the current coup, and which way."""

    spun_by: str
    direction: SpinDirection | None


@dataclass(frozen=True, slots=True)
class TableState:
    phase: TablePhase = TablePhase.CLOSED
    table_id: str = ""
    session_id: int = 0
    seal: str | None = None  # closed: the seal the cylinder was closed with (None: never here)
    table: TableGame | None = None
    choice: LimitChoice | None = None
    limits: ResolvedLimits | None = None
    authorised: LimitChoice | None = None  # the limits it opened with: its authorisation's
    coup: int = 0  # the current coup (or the last one) of the session; voids do not count
    last_coup: bool = False  # the current coup is the last of the session
    last_coups_left: int | None = None  # announced last coups not yet played; None: none
    bets: Mapping[str, Bet] = field(default_factory=lambda: EMPTY)  # in placement order
    outcome: str | None = None
    previous_outcome: str | None = None
    zero_choices: Mapping[str, ZeroChoice] = field(default_factory=lambda: EMPTY)
    settlement: Settlement | None = None
    colours: Mapping[str, ColourChips] = field(default_factory=lambda: EMPTY)  # held now
    colours_left: tuple[ColourChips, ...] = ()  # holdings whose players have left
    value_chip_bets_stopped: bool = False  # the head stopped new bets in value chips (EUS)
    pending_limits: PendingLimits | None = None
    head: str | None = None  # who directs the table now (None: no head has taken it)
    deputy: str | None = None  # a two-layout table's deputy head, beside its head
    layouts: int = 1
    rotation: tuple[str, ...] = ()  # the croupiers who spin, in the director's order
    turn: int = 0  # counted coups since the rotation was set: rotation[turn % len] spins next
    spin: CoupSpin | None = None  # the current coup's, kept through a void for the relaunch
    spinning: bool = False  # launched and not yet at rest nor voided
    last_direction: SpinDirection | None = None  # the cylinder's in the session's last coup
    spins: Mapping[str, int] = field(default_factory=lambda: EMPTY)  # counted coups a croupier
    float_amount: Decimal | None = None  # the float with its top-ups (None: not kept here)
    key_held_by: str | None = None  # while closed for a while: who holds the float's key
    cash_box: Decimal = Decimal(0)  # the banknotes exchanged at the table this session
    bank_result: Decimal = Decimal(0)  # the session's settlements: what the bank kept (+)

    def require_table(self) -> tuple[TableGame, ResolvedLimits]:
        if self.table is None or self.limits is None:
            raise RuleError.of("table_not_open")
        return self.table, self.limits

    @property
    def next_spinner(self) -> str | None:
        """Who spins now: the current coup's croupier again after a void, else whose turn it
        is in the rotation (None: no rotation is set)."""
        if self.spin is not None:
            return self.spin.spun_by
        if not self.rotation:
            return None
        return self.rotation[self.turn % len(self.rotation)]

    @property
    def imprisoned(self) -> list[Bet]:
        return [bet for bet in self.bets.values() if bet.prison]
