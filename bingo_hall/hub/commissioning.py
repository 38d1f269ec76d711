"""Commissioning a ball set: every ball shown to the hall's camera, read as in play.

The staff show each ball at the exit and key its number: at the control page while the hub
runs (`show_ball_to_camera`, the showings kept by the hub until the set is judged), or at the
hub's console with the hub stopped (`bingo-hall commission-ball-set`); a simulated camera is
shown each ball by the hub itself. The readings go to the rules in one `CommissionBallSet`,
which judge whether the camera may confirm the set's calls (`bingo_hall.domain.commissioning`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from bingo_hall.domain.commands import CommissionBallSet
from bingo_hall.domain.commissioning import missing_balls
from bingo_hall.domain.events import BallShowing
from bingo_hall.hub.ball_check import BallCheck

ALL_BALLS = tuple(range(1, 91))
MAX_SHOWINGS_PER_BALL = 10


def show_balls(
    check: BallCheck, numbers: Iterable[int], present: Callable[[int], None] | None = None
) -> Iterator[BallShowing]:
    """Read each ball as it is shown (every ball of the set is a candidate); `present` puts it
    in front of a simulated camera."""
    for number in numbers:
        if present is not None:
            present(number)
        yield BallShowing(number=number, camera=check.check(number, ALL_BALLS))


@dataclass
class ShowingsInProgress:
    """The balls of one set shown so far to the camera, kept by the running hub until the set
    is judged (`commission_ball_set`) or the showings are discarded. They are not a fact of
    the log until judged: a hub restarted in between has the staff show the set again."""

    ball_set_id: str
    showings: list[BallShowing] = field(default_factory=list)

    def times_shown(self, number: int) -> int:
        return sum(1 for showing in self.showings if showing.number == number)

    def command(self) -> CommissionBallSet:
        return CommissionBallSet(ball_set_id=self.ball_set_id, showings=tuple(self.showings))

    def as_json(self) -> dict[str, Any]:
        return {
            "ball_set_id": self.ball_set_id,
            "showings": [showing.model_dump(mode="json") for showing in self.showings],
            "balls_missing": missing_balls(self.showings),
        }


def simulated_commissioning(
    check: BallCheck,
    ball_set_id: str,
    showings_per_ball: int = 1,
    present: Callable[[int], None] | None = None,
) -> CommissionBallSet:
    """Every ball shown `showings_per_ball` times to a simulated camera: `present`, or the
    camera the check stages itself."""
    if present is None and check.stage is None:
        raise ValueError(
            "a real camera is shown each ball by the staff: show_ball_to_camera for every "
            "ball (or `bingo-hall commission-ball-set` at the hub), then commission_ball_set"
        )
    if not 1 <= showings_per_ball <= MAX_SHOWINGS_PER_BALL:
        raise ValueError(f"showings_per_ball must be 1 to {MAX_SHOWINGS_PER_BALL}")
    order = [number for _ in range(showings_per_ball) for number in ALL_BALLS]
    showings = tuple(show_balls(check, order, present))
    return CommissionBallSet(ball_set_id=ball_set_id, showings=showings)


def keyed_numbers(lines: TextIO, prompt: TextIO | None = None) -> Iterator[int]:
    """The numbers the staff key, one per line, as they show each ball; blank lines are
    skipped, `fin` or the end of the input ends. `prompt` asks for each ball."""
    for line_number, line in enumerate(_prompted(lines, prompt), start=1):
        text = line.strip()
        if not text:
            continue
        if text.lower() in ("fin", "end"):
            return
        if not text.isdigit() or not 1 <= int(text) <= 90:
            raise ValueError(f"line {line_number}: {text!r} is not a ball number (1 to 90)")
        yield int(text)


def _prompted(lines: TextIO, prompt: TextIO | None) -> Iterator[str]:
    while True:
        if prompt is not None:
            prompt.write("ball at the exit (its number, or fin): ")
            prompt.flush()
        line = lines.readline()
        if not line:
            return
        yield line
