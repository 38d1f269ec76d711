"""Whether the camera may confirm the calls of a ball set: the judgement of its commissioning.

Before the camera confirms calls on a ball set, every ball of the set is shown to it at the
exit, the staff keying the number of the ball shown. The reader was trained on other balls:
a set printed in a typeface it reads badly (a 1 it takes for a 4) must be found here, once,
not in play. A set is refused when any showing was accepted as another number, when the
reader's best guess was another number with a confidence that close to acceptance, when such
wrong guesses are more than a few, or when too few showings were read at all (every call
would be held). Balls never read are listed for the staff, not refused: a hold is safe.

A showing is read as play would read it: by the camera's networks, or, where they doubt,
confirmed on the prints of the set's other showings (the set's references in play, each
showing's own frame left out). The hub reads each showing's frame against the others
(`CrossReading`); the rules count them, and refuse a set whose prints lie nearest another
ball's more often than the networks may take a ball for another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.events import BallShowing, CrossReading
from bingo_hall.domain.state import HallState

MIN_READ_SHARE = 0.80
"""Of all showings, the share the camera must read as their own number."""

NEAR_MISS_CONFIDENCE = 0.99
"""A wrong best guess at least this sure is a near miss: the set is refused."""

MAX_WRONG_GUESS_SHARE = 0.05
"""Of all showings, the share whose best guess may be another number (below a near miss);
and the share whose frame may lie nearest another ball's prints."""

MAX_SHOWINGS_PER_BALL = 10
"""How many times one ball may be shown in one commissioning."""


@dataclass(frozen=True, slots=True)
class CommissioningVerdict:
    fit: bool
    showings: int
    read: int  # showings read as their own number, by the camera or on the other prints
    wrong_guesses: int  # showings whose best guess was another number, accepted or not
    misread: tuple[int, ...]  # balls accepted as another number
    near_misses: tuple[int, ...]  # balls guessed as another number at NEAR_MISS_CONFIDENCE
    unread: tuple[int, ...]  # balls no showing of which was read
    refusals: tuple[str, ...]  # why the set is refused, in words
    cross_read: int = 0  # of `read`, the showings the camera doubted and the other prints read
    cross_wrong: int = 0  # showings whose frame lay nearest another ball's prints

    @property
    def read_share(self) -> float:
        return self.read / self.showings if self.showings else 0.0


def require_commissionable(state: HallState, ball_set_id: str) -> None:
    """A set is commissioned once registered, and until it is retired."""
    ball_set = state.ball_sets.get(ball_set_id)
    if ball_set is None:
        raise RuleError.of("ball_set_not_registered", ball_set=ball_set_id)
    if ball_set.retired:
        raise RuleError.of("ball_set_retired_not_commissioned", ball_set=ball_set_id)


def require_showable(state: HallState, ball_set_id: str, number: int) -> None:
    """A ball may be shown for a set while no other set's showings are kept, up to
    MAX_SHOWINGS_PER_BALL times."""
    require_commissionable(state, ball_set_id)
    kept = state.showings
    if kept is not None and kept.ball_set_id != ball_set_id:
        raise RuleError.of("other_set_being_shown", ball_set=kept.ball_set_id)
    if kept is not None and kept.times_shown(number) >= MAX_SHOWINGS_PER_BALL:
        raise RuleError.of("ball_shown_enough", ball=number, times=MAX_SHOWINGS_PER_BALL)


def showings_to_judge(
    state: HallState, ball_set_id: str, given: Sequence[BallShowing]
) -> Sequence[BallShowing]:
    """The showings a commissioning judges: those given with it, or those kept in the log.
    Both at once would leave one set of readings unjudged, so it is refused."""
    kept = state.showings
    if kept is None or kept.ball_set_id != ball_set_id:
        return given
    if given:
        raise RuleError.of("showings_kept", count=len(kept.showings), ball_set=ball_set_id)
    return kept.showings


def verdict_summary(payload: dict) -> dict:
    """A `ball_set_commissioned` payload with its showings counted, not listed."""
    summary = {key: value for key, value in payload.items() if key != "showings"}
    summary["showings"] = len(payload["showings"])
    return summary


def with_cross_readings(
    showings: Sequence[BallShowing], cross_readings: Sequence[CrossReading | None]
) -> list[BallShowing]:
    """The showings with what the set's other prints said of each (none given: as they are).
    A cross reading may confirm only a best guess that is the ball shown."""
    if cross_readings and len(cross_readings) != len(showings):
        raise RuleError.of(
            "cross_readings_count", count=len(cross_readings), showings=len(showings)
        )
    judged = (
        [
            showing.model_copy(update={"cross": cross})
            for showing, cross in zip(showings, cross_readings, strict=True)
        ]
        if cross_readings
        else list(showings)
    )
    for index, showing in enumerate(judged, 1):
        cross = showing.cross
        if (
            cross is not None
            and cross.confirms
            and not (cross.ball == showing.number == showing.camera.guess)
        ):
            raise RuleError.of(
                "cross_reading_disagrees",
                index=index,
                ball=showing.number,
                confirmed=str(cross.ball),
                guess=str(showing.camera.guess),
            )
    return judged


def missing_balls(showings: Sequence[BallShowing]) -> list[int]:
    shown = {showing.number for showing in showings}
    return [number for number in range(1, 91) if number not in shown]


def judge(showings: Sequence[BallShowing]) -> CommissioningVerdict:
    """The verdict on a set from the showings of its balls (every ball shown at least once)."""
    read = sum(1 for s in showings if s.read)
    misread = sorted({s.number for s in showings if s.camera.reading not in (None, s.number)})
    wrong = [s for s in showings if s.camera.guess not in (None, s.number)]
    near = sorted({s.number for s in wrong if s.camera.confidence >= NEAR_MISS_CONFIDENCE})
    cross_wrong = sum(1 for s in showings if s.cross is not None and s.cross.ball != s.number)
    read_balls = {s.number for s in showings if s.read}
    unread = sorted({s.number for s in showings} - read_balls)
    total = len(showings)
    refusals = []
    if misread:
        refusals.append(f"read as another number: ball {_numbers(misread)}")
    if near:
        refusals.append(
            f"taken for another number with confidence {NEAR_MISS_CONFIDENCE} or more: "
            f"ball {_numbers(near)}"
        )
    if len(wrong) > MAX_WRONG_GUESS_SHARE * total:
        refusals.append(
            f"{len(wrong)} of {total} showings taken for another number "
            f"(at most {MAX_WRONG_GUESS_SHARE:.0%})"
        )
    if cross_wrong > MAX_WRONG_GUESS_SHARE * total:
        refusals.append(
            f"{cross_wrong} of {total} showings lie nearest another ball's prints "
            f"(at most {MAX_WRONG_GUESS_SHARE:.0%})"
        )
    if read < MIN_READ_SHARE * total:
        refusals.append(
            f"only {read} of {total} showings read ({read / total:.1%}; "
            f"at least {MIN_READ_SHARE:.0%})"
        )
    return CommissioningVerdict(
        fit=not refusals,
        showings=total,
        read=read,
        wrong_guesses=len(wrong),
        misread=tuple(misread),
        near_misses=tuple(near),
        unread=tuple(unread),
        refusals=tuple(refusals),
        cross_read=sum(1 for s in showings if s.cross_read),
        cross_wrong=cross_wrong,
    )


def _numbers(numbers: Sequence[int]) -> str:
    return ", ".join(str(number) for number in numbers)
