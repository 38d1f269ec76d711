"""The state of one table, rebuilt by folding its events. Immutable: every change is a new value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import Bet
from bingo_hall.tables.limits import LimitChoice, ResolvedLimits
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import TableGame, ZeroChoice
from bingo_hall.tables.settlement import Settlement

EMPTY: Mapping = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ColourChip:
    colour: str
    player: str
    unit_value: Decimal


@dataclass(frozen=True, slots=True)
class PendingLimits:
    choice: LimitChoice
    limits: ResolvedLimits
    requested_by: str
    coups_left: int  # coups still to play at the old limits


@dataclass(frozen=True, slots=True)
class TableState:
    phase: TablePhase = TablePhase.CLOSED
    table_id: str = ""
    session_id: int = 0
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
    colours: Mapping[str, ColourChip] = field(default_factory=lambda: EMPTY)
    pending_limits: PendingLimits | None = None

    def require_table(self) -> tuple[TableGame, ResolvedLimits]:
        if self.table is None or self.limits is None:
            raise RuleError("the table is not open")
        return self.table, self.limits

    @property
    def imprisoned(self) -> list[Bet]:
        return [bet for bet in self.bets.values() if bet.prison]
