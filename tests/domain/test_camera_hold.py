"""The CCTV check in the rules: a ball the camera confirms is called; any other is held until
the Jefe de Mesa confirms or corrects it, and nothing is announced meanwhile (spec §4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.domain import Phase, PhaseError, RuleError, decide, replay
from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.events import CameraCheck
from bingo_hall.domain.profiles import VoidReason
from support.hall import CARD, Hall, profile

FRAME = "ab" * 32


def seen(number: int | None, guess: int | None = None, confidence: float = 0.9995) -> CameraCheck:
    if number is not None:
        return CameraCheck(
            reading=number, guess=number, confidence=confidence, reason=None, frame=FRAME
        )
    return CameraCheck(
        reading=None, guess=guess, confidence=confidence, reason="unsure", frame=FRAME
    )


def drawing() -> Hall:
    return Hall(profile("1979")).open_ready().commissioned().game_drawing()


def test_a_ball_the_camera_confirms_is_called_with_its_reading():
    hall = drawing()
    (event,) = hall.run(c.DrawBall(number=37, camera=seen(37)))
    assert isinstance(event, e.BallDrawn)
    assert (event.number, event.check, event.camera) == (37, "agreed", seen(37))
    assert hall.state.game.calls == (37,)


def test_a_call_the_camera_does_not_confirm_cannot_be_announced_and_changes_nothing():
    hall = drawing()
    before = hall.state
    with pytest.raises(RuleError, match="camera does not confirm ball 37"):
        hall.run(c.DrawBall(number=37, camera=seen(73)))
    with pytest.raises(RuleError, match="camera does not confirm"):
        hall.run(c.DrawBall(number=37, camera=seen(None, guess=37, confidence=0.6)))
    assert hall.state == before


def test_a_held_ball_is_not_called_and_the_game_waits_for_the_jefe_de_mesa():
    hall = drawing().draw(5)
    (held,) = hall.run(c.HoldBall(called=37, camera=seen(73)))
    assert isinstance(held, e.BallHeld)
    assert (held.ordinal, held.called) == (2, 37)
    assert hall.state.phase is Phase.CAMERA_HOLD
    assert hall.state.game.calls == (5,)
    # No other ball comes out while it holds.
    with pytest.raises(PhaseError, match="camera_hold"):
        decide(hall.state, c.DrawBall(number=9), hall.now)


ROW0 = (1, 22, 41, 63, 80)  # the top line of CARD


def line_then_hold(rules: str) -> Hall:
    """CARD's top line complete at ball 5; the sixth ball, 37, held by the camera."""
    hall = Hall(profile(rules)).open_ready().commissioned().game_drawing()
    for number in ROW0:
        hall.run(c.DrawBall(number=number, camera=seen(number)))
    hall.run(c.HoldBall(called=37, camera=seen(73)))
    return hall


@pytest.mark.parametrize("rules", ["1977", "1979", "basque"])
def test_a_claim_called_while_a_ball_is_held_is_in_time_and_the_hold_waits(rules):
    """The held ball is not announced: a claim then comes before the next number is called,
    is stamped with the last ball announced, and is judged on it (S77 L2502-2504: the 1977
    text loses the prize only to a claim after the next number)."""
    hall = line_then_hold(rules)
    (called,) = hall.run(c.CallClaim(kind="line", series_id="A1", card_number=1, grid=CARD))
    assert called.ordinal == 5
    assert hall.state.phase is Phase.CLAIM_PAUSED
    verified, window = hall.run(c.VerifyClaims())
    assert verified.valid and isinstance(window, e.AnyMoreAsked)
    order = hall.run(c.GiveOrder(), seconds=60)
    assert [type(ev) for ev in order] == [e.OrderGiven, e.PrizeSplit]
    # The draw goes on from the ball still held: nothing of it was announced meanwhile.
    assert hall.state.phase is Phase.CAMERA_HOLD
    assert hall.state.game.calls == ROW0
    hall.run(c.ResolveHold(number=73, resolved_by="mesa"))
    assert hall.state.game.calls == (*ROW0, 73)
    assert hall.state.phase is Phase.DRAWING
    assert replay(hall.log) == hall.state


def test_a_false_claim_while_a_ball_is_held_returns_to_the_hold():
    hall = line_then_hold("1979")
    hall.run(c.CallClaim(kind="bingo", series_id="A1", card_number=1, grid=CARD))
    verified, resumed = hall.run(c.VerifyClaims())
    assert not verified.valid and isinstance(resumed, e.DrawResumed)
    assert hall.state.phase is Phase.CAMERA_HOLD
    assert hall.state.game.held.called == 37
    with pytest.raises(PhaseError, match="camera_hold"):
        decide(hall.state, c.DrawBall(number=9), hall.now)
    hall.run(c.ResolveHold(number=37, resolved_by="mesa"))
    assert hall.state.game.calls == (*ROW0, 37)


def test_the_jefe_de_mesa_confirms_the_call():
    hall = drawing()
    hall.run(c.HoldBall(called=37, camera=seen(None, guess=37, confidence=0.7)))
    resolved, drawn = hall.run(c.ResolveHold(number=37, resolved_by="mesa"))
    assert (resolved.verdict, resolved.called, resolved.number) == ("confirmed", 37, 37)
    assert (drawn.number, drawn.ordinal, drawn.check, drawn.resolved_by) == (
        37,
        1,
        "confirmed",
        "mesa",
    )
    assert drawn.camera.guess == 37
    assert hall.state.phase is Phase.DRAWING
    assert hall.state.game.calls == (37,) and hall.state.game.held is None


def test_the_jefe_de_mesa_corrects_the_call_to_the_ball_the_camera_shows():
    hall = drawing()
    hall.run(c.HoldBall(called=37, camera=seen(73)))
    resolved, drawn = hall.run(c.ResolveHold(number=73, resolved_by="mesa"))
    assert resolved.verdict == "corrected" and drawn.number == 73 and drawn.check == "corrected"
    assert hall.state.game.calls == (73,)


def test_a_correction_to_a_ball_already_drawn_is_refused_and_the_game_still_holds():
    hall = drawing().draw(73)
    hall.run(c.HoldBall(called=37, camera=seen(None, guess=73, confidence=0.5)))
    before = hall.state
    with pytest.raises(RuleError, match="already drawn"):
        hall.run(c.ResolveHold(number=73, resolved_by="mesa"))
    with pytest.raises(RuleError, match="does not exist"):
        hall.run(c.ResolveHold(number=91, resolved_by="mesa"))
    assert hall.state == before and hall.state.phase is Phase.CAMERA_HOLD


def test_a_hold_of_a_ball_the_camera_confirms_is_refused():
    hall = drawing()
    with pytest.raises(RuleError, match="nothing to hold"):
        hall.run(c.HoldBall(called=37, camera=seen(37)))


def test_a_game_on_hold_can_be_voided():
    hall = drawing()
    hall.run(c.HoldBall(called=37, camera=seen(None, guess=None, confidence=0.0)))
    hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="la cámara no funciona"))
    assert hall.state.game is None


@given(
    st.lists(st.integers(1, 90), min_size=1, max_size=30, unique=True),
    st.lists(st.sampled_from(["agree", "confirm", "correct"]), min_size=30, max_size=30),
)
def test_replay_of_checked_and_held_balls_rebuilds_the_same_state(numbers, paths):
    hall = drawing()
    taken = set(numbers)
    for number, path in zip(numbers, paths, strict=False):
        if path == "agree":
            hall.run(c.DrawBall(number=number, camera=seen(number)))
        elif path == "confirm":
            hall.run(c.HoldBall(called=number, camera=seen(None, guess=number, confidence=0.5)))
            hall.run(c.ResolveHold(number=number, resolved_by="mesa"))
        else:
            wrong = next(
                n for n in range(1, 91) if n not in taken and n not in hall.state.game.calls
            )
            hall.run(c.HoldBall(called=wrong, camera=seen(number)))
            hall.run(c.ResolveHold(number=number, resolved_by="mesa"))
    assert hall.state.game.calls == tuple(numbers)
    assert replay(hall.log) == hall.state


def test_a_reading_the_sets_prints_contradict_names_their_ball_and_nothing_else_does():
    contradicted = CameraCheck(
        reading=None,
        guess=83,
        confidence=0.99994,
        reason="set_disagrees",
        frame=FRAME,
        set_margin=0.076,
        set_ball=3,
    )
    hall = drawing()
    (held,) = hall.run(c.HoldBall(called=3, camera=contradicted))
    assert isinstance(held, e.BallHeld) and held.camera == contradicted
    fields = dict(reading=None, guess=83, confidence=0.99994, frame=FRAME, set_margin=0.076)
    for wrong in (
        dict(reason="unsure", set_ball=3),  # a ball named without the reason
        dict(reason="set_disagrees"),  # the reason without the ball
        dict(reason="set_disagrees", set_ball=83),  # the guess itself is no contradiction
        dict(reason="set_disagrees", set_ball=91),
    ):
        with pytest.raises(ValueError, match=r"set_ball|less than or equal to 90"):
            CameraCheck(**fields, **wrong)
    with pytest.raises(ValueError, match="set_disagrees names a ball other than the guess"):
        CameraCheck(**{**fields, "set_margin": None}, reason="set_disagrees", set_ball=3)
