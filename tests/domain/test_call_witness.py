"""The call as a second witness (`domain.call_check`): in a hall configured for it, the camera
confirms a call its networks' best guess names at the hall's floor or more when the set's
prints lie nearest that ball too; never a call it reads as another ball, never one the set's
prints lean away from; without a floor, only its accepted reading confirms a call."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bingo_hall.domain import RuleError, replay
from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.events import CameraCheck
from bingo_hall.domain.profiles import VoidReason
from support.hall import Hall, profile, session_opening

FRAME = "cd" * 32
BALLS = st.sampled_from((36, 37)) | st.integers(1, 90)  # often the same ball twice
FLOORS = st.none() | st.floats(0.5, 1.0, exclude_max=True)


@st.composite
def camera_checks(draw: st.DrawFn) -> CameraCheck:
    """Any check the hub's reader can give: an accepted reading, or none with its reason."""
    confidence = draw(st.floats(0.0, 1.0))
    reading = draw(st.none() | BALLS)
    nearest = draw(st.none() | BALLS)  # the ball the set's prints lie nearest
    if reading is not None:
        return CameraCheck(
            reading=reading,
            guess=reading,
            confidence=confidence,
            reason=None,
            frame=FRAME,
            set_nearest=nearest,
        )
    guess = draw(st.none() | BALLS)
    reason = draw(st.sampled_from(["no_ball", "unsure", "unreadable", "no_picture"]))
    if guess is not None and draw(st.booleans()):
        set_ball = draw(BALLS.filter(lambda ball: ball != guess))
        return CameraCheck(
            reading=None,
            guess=guess,
            confidence=confidence,
            reason="set_disagrees",
            frame=FRAME,
            set_margin=draw(st.floats(0.0, 2.0)),
            set_ball=set_ball,
            set_nearest=draw(st.sampled_from((None, set_ball))),
        )
    return CameraCheck(
        reading=None,
        guess=guess,
        confidence=confidence,
        reason=reason,
        frame=FRAME,
        set_nearest=nearest,
    )


def drawing(floor: float | None) -> Hall:
    return (
        Hall(profile("1979"), call_witness_floor=floor).open_ready().commissioned().game_drawing()
    )


def unsure(guess: int, confidence: float, nearest: int | None = None) -> CameraCheck:
    """A guess the networks doubt; the set's prints nearest `nearest` (by default the guess)."""
    return CameraCheck(
        reading=None,
        guess=guess,
        confidence=confidence,
        reason="unsure",
        frame=FRAME,
        set_nearest=guess if nearest is None else nearest,
    )


@given(camera_checks(), BALLS, FLOORS)
def test_a_call_is_announced_exactly_when_the_camera_confirms_it_and_held_otherwise(
    check, called, floor
):
    hall = drawing(floor)
    agreed = check.reading == called
    witnessed = (
        floor is not None
        and check.reading is None
        and check.guess == called
        and check.set_nearest == called
        and check.confidence >= floor
    )
    before = hall.state
    if agreed or witnessed:
        (drawn,) = hall.run(c.DrawBall(number=called, source="blower", camera=check))
        assert isinstance(drawn, e.BallDrawn)
        assert drawn.check == ("agreed" if agreed else "witnessed")
        assert hall.state.game.calls == (called,)
        with pytest.raises(RuleError, match="nothing to hold"):
            drawing(floor).run(c.HoldBall(called=called, source="blower", camera=check))
    else:
        with pytest.raises(RuleError, match=f"camera does not confirm ball {called}"):
            hall.run(c.DrawBall(number=called, source="blower", camera=check))
        assert hall.state == before
        (held,) = hall.run(c.HoldBall(called=called, source="blower", camera=check))
        assert isinstance(held, e.BallHeld) and held.cause == "camera"


@given(camera_checks(), BALLS)
def test_without_a_floor_only_the_accepted_reading_confirms_a_call(check, called):
    assert (drawing(None).state.camera_verdict(check, called) is not None) == (
        check.reading == called
    )


def test_the_witness_never_confirms_another_ball_nor_one_the_sets_prints_lean_away_from():
    state = drawing(0.9).state
    assert state.camera_verdict(unsure(37, 0.95), 37) == "witnessed"
    assert state.camera_verdict(unsure(37, 0.95), 38) is None  # a miskey the camera disagrees with
    assert state.camera_verdict(unsure(37, 0.9), 37) == "witnessed"  # at the floor
    assert state.camera_verdict(unsure(37, 0.899999), 37) is None  # under it
    # the set's prints lie nearest the 38, too faintly to name it: the networks alone are not
    # witness enough, whichever of the two is called
    assert state.camera_verdict(unsure(37, 0.99, nearest=38), 37) is None
    assert state.camera_verdict(unsure(37, 0.99, nearest=38), 38) is None
    contradicted = CameraCheck(
        reading=None,
        guess=37,
        confidence=0.99,
        reason="set_disagrees",
        frame=FRAME,
        set_margin=0.1,
        set_ball=38,
        set_nearest=38,
    )
    assert state.camera_verdict(contradicted, 37) is None
    assert state.camera_verdict(contradicted, 38) is None
    no_prints = CameraCheck(reading=None, guess=37, confidence=0.99, reason="unsure", frame=FRAME)
    assert state.camera_verdict(no_prints, 37) is None


def test_on_a_set_not_commissioned_the_witness_confirms_nothing():
    hall = Hall(profile("1979"), call_witness_floor=0.9).open_ready().game_drawing()
    (held,) = hall.run(c.HoldBall(called=37, camera=unsure(37, 0.99)))
    assert held.cause == "uncommissioned_set"


def test_the_floor_is_the_sessions_recorded_when_it_opens_and_replayed():
    hall = drawing(0.999)
    opened = next(event for event, _ in hall.log if isinstance(event, e.SessionOpened))
    assert opened.call_witness_floor == 0.999
    hall.run(c.DrawBall(number=37, camera=unsure(37, 0.9995)))
    assert replay(hall.log) == hall.state
    assert hall.state.call_witness_floor == 0.999


def test_a_session_opened_without_a_floor_has_none_after_one_that_had_it():
    hall = drawing(0.9)
    hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="avería"))
    hall.run(c.CloseSession())
    hall.run(session_opening(profile("1979"), "drum"))
    assert hall.state.call_witness_floor is None
    assert replay(hall.log).call_witness_floor is None


@pytest.mark.parametrize("floor", [0.4999, 1.0, 1.5, -1.0])
def test_a_floor_short_of_a_majority_or_at_certainty_is_refused(floor):
    with pytest.raises(ValidationError, match="call_witness_floor"):
        session_opening(profile("1979"), "drum", floor)
