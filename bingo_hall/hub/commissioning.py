"""Commissioning a ball set: every ball shown to the hall's camera, read as in play.

The staff show each ball at the exit and key its number: at the control page while the hub
runs (`show_ball_to_camera`, each showing a fact of the log as it is made, judged with the
others by a `CommissionBallSet`), or at the hub's console with the hub stopped (`bingo-hall
commission-ball-set`, every showing in one `CommissionBallSet`); a simulated camera is shown
each ball by the hub itself. Before the rules judge, the hub reads each showing's kept frame
against the others' (`BallCheck.cross_readings`), as play will read calls against the set's
prints. The rules judge whether the camera may confirm the set's calls
(`bingo_hall.domain.commissioning`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TextIO

from bingo_hall.domain.commands import CommissionBallSet
from bingo_hall.domain.commissioning import MAX_SHOWINGS_PER_BALL, missing_balls
from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.events import BallShowing
from bingo_hall.domain.state import ShowingsInProgress
from bingo_hall.hub.ball_check import BallCheck

ALL_BALLS = tuple(range(1, 91))
# How often the hub shows each ball to a simulated camera unless told otherwise (the console
# command, `commission_ball_set` over the protocol, the demo): twice, so that each showing is
# also read against its ball's other print, and a set printed thin or slanted, whose showings
# the networks doubt, is judged as play will read it (docs/vision.md, "Sets printed once").
SHOWINGS_PER_BALL = 2


def showing_order(showings_per_ball: int = SHOWINGS_PER_BALL) -> list[int]:
    """The balls in the order a simulated camera is shown them: 1 to 90, `showings_per_ball`
    times over."""
    return [number for _ in range(showings_per_ball) for number in ALL_BALLS]


def show_balls(
    check: BallCheck, numbers: Iterable[int], present: Callable[[int], None] | None = None
) -> Iterator[BallShowing]:
    """Read each ball as it is shown (every ball of the set is a candidate); `present` puts it
    in front of a simulated camera."""
    for number in numbers:
        if present is not None:
            present(number)
        yield BallShowing(number=number, camera=check.check(number, ALL_BALLS))


def commission(
    check: BallCheck, ball_set_id: str, showings: Sequence[BallShowing], kept: bool = False
) -> CommissionBallSet:
    """The showings judged, each read against the others' prints; `kept`: they are the log's
    (shown one by one), not given with the command."""
    return CommissionBallSet(
        ball_set_id=ball_set_id,
        showings=() if kept else tuple(showings),
        cross_readings=check.cross_readings(showings),
    )


def showings_json(kept: ShowingsInProgress | None) -> dict[str, Any] | None:
    """The showings kept, as the protocol gives them (null: none)."""
    if kept is None:
        return None
    return {
        "ball_set_id": kept.ball_set_id,
        "showings": [showing.model_dump(mode="json") for showing in kept.showings],
        "balls_missing": missing_balls(kept.showings),
    }


def simulated_commissioning(
    check: BallCheck,
    ball_set_id: str,
    showings_per_ball: int = SHOWINGS_PER_BALL,
) -> CommissionBallSet:
    """Every ball shown `showings_per_ball` times to the simulated camera the check stages
    itself, and the set judged in one command."""
    if check.stage is None:
        raise RuleError.of("show_balls_first")
    if not 1 <= showings_per_ball <= MAX_SHOWINGS_PER_BALL:
        raise RuleError.of("showings_per_ball_range", maximum=MAX_SHOWINGS_PER_BALL)
    return commission(
        check, ball_set_id, tuple(show_balls(check, showing_order(showings_per_ball)))
    )


def keyed_numbers(lines: TextIO, prompt: TextIO | None = None) -> Iterator[int]:
    """The numbers the staff key, one per line, as they show each ball; blank lines are
    skipped, `fin` or the end of the input ends. `prompt` asks for each ball."""
    for line_number, line in enumerate(_prompted(lines, prompt), start=1):
        text = line.strip()
        if not text:
            continue
        if text.lower() in ("fin", "end"):
            return
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 90:
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
