"""The state of a hall, rebuilt by folding its events. Immutable: every change is a new value."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal

from bingo_hall.domain.call_check import CameraVerdict, camera_verdict
from bingo_hall.domain.cards import Card
from bingo_hall.domain.events import (
    BallHeld,
    BallShowing,
    CameraCheck,
    ClaimKind,
    MachineKind,
    PlayerRequestKind,
    SoldRange,
)
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.profiles import RuleProfile

ClaimStatus = Literal["pending", "valid", "invalid"]
AwardStatus = Literal["awarded", "paid"]


KeptFrames = tuple[tuple[int, str], ...]  # (ball, frame hash) of each showing of a set


@dataclass(frozen=True, slots=True)
class BallSet:
    ball_set_id: str
    homologation: str
    games: int = 0
    retired: bool = False
    camera_fit: bool | None = None  # the last commissioning's verdict; None: never commissioned
    # (ball, frame hash) of each showing of the last commissioning, when it passed: the set's
    # own prints, the references the camera reads its balls against (`vision.set_references`)
    camera_references: KeptFrames = ()


@dataclass(frozen=True, slots=True)
class ShowingsInProgress:
    """The balls of one set shown so far to the camera, one at a time, until the set is
    judged or its showings are discarded."""

    ball_set_id: str
    showings: tuple[BallShowing, ...] = ()

    def times_shown(self, number: int) -> int:
        return sum(1 for showing in self.showings if showing.number == number)


@dataclass(frozen=True, slots=True)
class Series:
    series_id: str
    face_value: Decimal
    size: int
    commitment: str
    next_number: int = 1  # first card not yet sold (or voided) in any game

    @property
    def remaining(self) -> int:
        return self.size - self.next_number + 1


@dataclass(frozen=True, slots=True)
class Claim:
    claim_id: int
    kind: ClaimKind
    series_id: str
    card_number: int
    card: Card
    ordinal: int
    status: ClaimStatus = "pending"
    reason: str | None = None
    rows: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Award:
    game_id: int
    claim_id: int
    kind: ClaimKind
    series_id: str
    card_number: int
    amount: Decimal
    payable: bool
    status: AwardStatus = "awarded"


@dataclass(frozen=True, slots=True)
class PaidRefund:
    """A range of a voided game's cards the Cajero refunded."""

    series_id: str
    first: int
    last: int
    amount: Decimal


@dataclass(frozen=True, slots=True)
class VoidRefunds:
    """What a voided game owes its players: every card it sold, at face value (the refund
    ledger of its `game_voided`), less the ranges the Cajero has refunded. Kept across sessions
    until every card is refunded (then until the next game is announced, as a paid prize)."""

    game_id: int
    session_id: int
    refunds: tuple[SoldRange, ...]
    paid: tuple[PaidRefund, ...] = ()

    def owed(self) -> tuple[SoldRange, ...]:
        """The cards not refunded yet, as ranges of each sold range in card order."""
        pieces = []
        for sold in self.refunds:
            taken = sorted((p.first, p.last) for p in self.paid if p.series_id == sold.series_id)
            start = sold.first
            for first, last in taken:
                if first > start:
                    pieces.append(sold.model_copy(update={"first": start, "last": first - 1}))
                start = max(start, last + 1)
            if start <= sold.last:
                pieces.append(sold.model_copy(update={"first": start, "last": sold.last}))
        return tuple(pieces)

    @property
    def owed_total(self) -> Decimal:
        return sum((r.amount for r in self.owed()), Decimal(0))

    @property
    def paid_total(self) -> Decimal:
        return sum((p.amount for p in self.paid), Decimal(0))

    @property
    def settled(self) -> bool:
        return not self.owed()


@dataclass(frozen=True, slots=True)
class OpenRequest:
    """A player's request for information or complaint not answered yet: it stays open across
    sessions until the Jefe de Mesa answers it."""

    request_id: int
    kind: PlayerRequestKind
    player: str
    text: str
    session_id: int
    game_id: int | None


@dataclass(frozen=True, slots=True)
class Holding:
    """Cards an auxiliary terminal bought in a game: a whole block of one series."""

    buyer: str  # "terminal/player"
    series_id: str
    first: int
    last: int
    purchase: str | None = None  # the terminal's name for the purchase, if it gave one

    @property
    def terminal(self) -> str:
        return self.buyer.split("/", 1)[0]

    @property
    def player(self) -> str:
        return self.buyer.split("/", 1)[1]


@dataclass(frozen=True, slots=True)
class Game:
    game_id: int
    series: tuple[str, ...]
    last_game: bool = False
    sales: tuple[SoldRange, ...] = ()
    holdings: tuple[Holding, ...] = ()
    takings: Decimal = Decimal(0)
    line_prize: Decimal = Decimal(0)
    bingo_prize: Decimal = Decimal(0)
    paying_row: int | None = None
    calls: tuple[int, ...] = ()
    claims: tuple[Claim, ...] = ()
    line_won_at: int | None = None
    rights_closed_through: int = 0  # ordinal of the last order given: claims up to it are closed
    window_ordinal: int | None = None
    window_opened_at: datetime | None = None
    held: BallHeld | None = None  # the ball the camera check holds, until it is resolved

    @property
    def ordinal(self) -> int:
        return len(self.calls)

    def sold_range(self, series_id: str, card_number: int) -> SoldRange | None:
        for sale in self.sales:
            if sale.series_id == series_id and card_number in sale:
                return sale
        return None

    def buyer_of(self, series_id: str, card_number: int) -> str | None:
        """The terminal/player that bought a card in this game, if a terminal did."""
        for holding in self.holdings:
            if holding.series_id == series_id and holding.first <= card_number <= holding.last:
                return holding.buyer
        return None

    def purchase_of(self, terminal: str, purchase: str) -> Holding | None:
        """The block a terminal bought under its name for the purchase, if it did."""
        for holding in self.holdings:
            if holding.purchase == purchase and holding.terminal == terminal:
                return holding
        return None

    def unsettled(self, claim: Claim) -> bool:
        """The claim was called after the last order: an order settles every claim on its ball
        and closes every right on it (a valid line claim stays valid, and paid, after it)."""
        return claim.ordinal > self.rights_closed_through

    def claims_at_window(self, kind: ClaimKind) -> list[Claim]:
        return [
            c
            for c in self.claims
            if c.kind == kind
            and c.status == "valid"
            and c.ordinal == self.window_ordinal
            and self.unsettled(c)
        ]


@dataclass(frozen=True, slots=True)
class HallState:
    phase: Phase = Phase.SESSION_CLOSED
    profile: RuleProfile | None = None
    session_id: int = 0
    machine_id: str = ""
    machine_kind: MachineKind = "drum"
    call_witness_floor: float | None = None  # the session's, `domain.call_check`
    ball_sets: dict[str, BallSet] = field(default_factory=dict)
    ball_set_in_service: str | None = None
    showings: ShowingsInProgress | None = None  # a set being shown to the camera
    series: dict[str, Series] = field(default_factory=dict)
    games_started: int = 0
    session_games: int = 0  # games opened in the current session
    game: Game | None = None
    ended_game: Game | None = None  # the last game finished or voided, until another ends
    last_game_announced: bool = False
    last_game_played: bool = False
    awards: dict[tuple[int, int], Award] = field(default_factory=dict)  # unpaid, by (game, claim)
    # the refunds voided games owe (and those settled, until the next game is announced)
    refunds: dict[int, VoidRefunds] = field(default_factory=dict)
    voided_games: frozenset[int] = frozenset()
    player_requests: int = 0  # requests and complaints recorded in the hall, ever
    open_requests: dict[int, OpenRequest] = field(default_factory=dict)  # not answered yet

    @property
    def camera_may_confirm(self) -> bool:
        """The set in service passed its camera commissioning: the camera may confirm calls."""
        in_service = self.ball_sets.get(self.ball_set_in_service or "")
        return in_service is not None and in_service.camera_fit is True

    def camera_verdict(self, check: CameraCheck, called: int) -> CameraVerdict | None:
        """How the camera confirms a call on the set in service; None: the ball is held."""
        if not self.camera_may_confirm:
            return None
        return camera_verdict(check, called, self.call_witness_floor)

    @property
    def camera_references(self) -> KeptFrames:
        """The frames of the passed commissioning of the set in service; () when it has none."""
        if not self.camera_may_confirm:
            return ()
        return self.ball_sets[self.ball_set_in_service or ""].camera_references

    def require_profile(self) -> RuleProfile:
        assert self.profile is not None, "a session is open whenever a profile is needed"
        return self.profile
