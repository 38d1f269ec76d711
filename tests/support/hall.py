"""An in-memory hall for rule tests: the pure engine with a hand-driven clock, no store."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from bingo_hall.config import load_profile
from bingo_hall.domain import HallState, decide, evolve
from bingo_hall.domain import commands as c
from bingo_hall.domain.events import BallShowing, CameraCheck, Event
from bingo_hall.domain.profiles import RuleProfile

PROFILES_DIR = Path(__file__).resolve().parents[2] / "config" / "profiles"

# A valid Spanish-layout card; rows: {1,22,41,63,80}, {13,34,52,74,85}, {7,18,29,57,90}.
CARD = (
    (1, 0, 22, 0, 41, 0, 63, 0, 80),
    (0, 13, 0, 34, 0, 52, 0, 74, 85),
    (7, 18, 29, 0, 0, 57, 0, 0, 90),
)
# A card sharing no number with CARD; rows: {2,23,42,64,81}, {14,31,53,75,86}, {8,19,36,58,89}.
OTHER = (
    (2, 0, 23, 0, 42, 0, 64, 0, 81),
    (0, 14, 0, 31, 0, 53, 0, 75, 86),
    (8, 19, 0, 36, 0, 58, 0, 0, 89),
)


def shown(
    number: int, reading: int | None = -1, guess: int | None = -1, confidence: float = 0.99999
) -> BallShowing:
    """Ball `number` shown to the camera: read as itself unless `reading`/`guess` say else."""
    reading = number if reading == -1 else reading
    guess = (reading if reading is not None else None) if guess == -1 else guess
    reason = None if reading is not None else "unsure"
    camera = CameraCheck(reading=reading, guess=guess, confidence=confidence, reason=reason)
    return BallShowing(number=number, camera=camera)


READ_RIGHT = tuple(shown(number) for number in range(1, 91))
"""Every ball of a set shown once and read as itself."""


def profile(name: str, **changes: object) -> RuleProfile:
    loaded = load_profile(PROFILES_DIR / f"{name}.toml")
    return RuleProfile.model_validate({**loaded.model_dump(), **changes})


def session_opening(
    rules: RuleProfile, machine_kind: str = "pneumatic", call_witness_floor: float | None = None
) -> c.OpenSession:
    """The opening of a session on the homologated machine EXT-1."""
    return c.OpenSession(
        machine_id="EXT-1",
        machine_homologation="CNJ-EXT-0001",
        machine_kind=machine_kind,
        profile=rules,
        call_witness_floor=call_witness_floor,
    )


@dataclass
class Hall:
    """Runs commands through decide/evolve and keeps every event, like the hub without I/O."""

    rules: RuleProfile
    machine_kind: str = "pneumatic"
    call_witness_floor: float | None = None
    state: HallState = field(default_factory=HallState)
    now: datetime = field(default_factory=lambda: datetime(2026, 11, 21, 18, 0, tzinfo=UTC))
    log: list[tuple[Event, datetime]] = field(default_factory=list)

    def run(self, command: c.Command, seconds: float = 1) -> list[Event]:
        self.now += timedelta(seconds=seconds)
        events = decide(self.state, command, self.now)
        for event in events:
            self.state = evolve(self.state, event, self.now)
            self.log.append((event, self.now))
        return events

    def opening(self, machine_kind: str | None = None) -> c.OpenSession:
        """The opening of a session on the homologated machine EXT-1, under this hall's rules."""
        return session_opening(
            self.rules, machine_kind or self.machine_kind, self.call_witness_floor
        )

    def open_ready(self, series: Iterable[tuple[str, str, int]] = (("A1", "1.50", 300),)) -> Hall:
        """Session open, material checked, balls loaded, series registered."""
        self.run(c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"))
        self.run(self.opening())
        self.run(c.RecordEquipmentCheck(ok=True))
        self.run(c.ChangeBallSet(ball_set_id="JB-1", reason="puesta en servicio"))
        self.run(c.LoadBalls())
        for series_id, face, size in series:
            self.run(c.RegisterSeries(series_id=series_id, face_value=Decimal(face), size=size))
        return self

    def commissioned(
        self, showings: tuple[BallShowing, ...] = READ_RIGHT, ball_set_id: str = "JB-1"
    ) -> Hall:
        """The set shown to the camera (every ball read right, unless `showings` say else)."""
        self.run(c.CommissionBallSet(ball_set_id=ball_set_id, showings=showings))
        return self

    def game_drawing(
        self,
        sales: Iterable[tuple[str, int, int]] = (("A1", 1, 100),),
        paying_row: int | None = None,
    ) -> Hall:
        """A game announced, sold, prizes announced, draw started."""
        series = tuple(dict.fromkeys(s for s, _, _ in sales))
        self.run(c.AnnounceSeries(series=series))
        self.run(c.StartSale())
        for series_id, first, last in sales:
            self.run(c.RecordSale(series_id=series_id, first=first, last=last))
        self.run(c.CloseSale())
        self.run(c.AnnouncePrizes(paying_row=paying_row))
        self.run(c.StartDraw())
        return self

    def draw(self, *numbers: int) -> Hall:
        for number in numbers:
            self.run(c.DrawBall(number=number))
        return self

    def claim(self, kind: str, number: int, grid=CARD, series_id: str = "A1") -> list[Event]:
        return self.run(c.CallClaim(kind=kind, series_id=series_id, card_number=number, grid=grid))

    def verify(self) -> list[Event]:
        return self.run(c.VerifyClaims())

    def order(self) -> list[Event]:
        return self.run(c.GiveOrder(), seconds=float(self.rules.min_any_more_window_seconds) + 1)
