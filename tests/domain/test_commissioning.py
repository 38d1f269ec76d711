"""Commissioning a ball set under the camera: the camera confirms calls only on a set whose
every ball it was shown, read right, without a confident mistake (spec §4; docs/vision.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.domain import Phase, PhaseError, RuleError
from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.commissioning import (
    MAX_WRONG_GUESS_SHARE,
    MIN_READ_SHARE,
    NEAR_MISS_CONFIDENCE,
    judge,
)
from bingo_hall.domain.events import CameraCheck
from support.hall import READ_RIGHT, Hall, profile, shown

AGREES = CameraCheck(reading=37, guess=37, confidence=0.99999, reason=None)


def ready() -> Hall:
    return Hall(profile("1979")).open_ready()


def with_changes(changes: dict[int, object]) -> tuple:
    """READ_RIGHT with some balls' showings replaced."""
    return tuple(changes.get(s.number, s) for s in READ_RIGHT)


def test_a_set_read_right_is_fit_and_the_camera_then_confirms_its_calls():
    hall = ready()
    (event,) = hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT))
    assert isinstance(event, e.BallSetCommissioned)
    assert (event.fit, event.read, event.wrong_guesses, event.refusals) == (True, 90, 0, [])
    assert len(event.showings) == 90 and event.showings[36].camera.reading == 37
    assert hall.state.ball_sets["JB-1"].camera_fit is True
    hall.game_drawing()
    (drawn,) = hall.run(c.DrawBall(number=37, camera=AGREES))
    assert (drawn.number, drawn.check) == (37, "agreed")


def test_on_a_set_never_commissioned_the_camera_cannot_confirm_and_the_ball_is_held():
    hall = ready().game_drawing()
    before = hall.state
    with pytest.raises(RuleError, match="JB-1 has not passed its camera commissioning"):
        hall.run(c.DrawBall(number=37, camera=AGREES))
    assert hall.state == before
    (held,) = hall.run(c.HoldBall(called=37, camera=AGREES))
    assert (held.cause, held.called) == ("uncommissioned_set", 37)
    assert hall.state.phase is Phase.CAMERA_HOLD
    _, drawn = hall.run(c.ResolveHold(number=37, resolved_by="mesa"))
    assert (drawn.number, drawn.check, drawn.resolved_by) == (37, "confirmed", "mesa")


def test_without_a_camera_reading_a_call_needs_no_commissioning():
    hall = ready().game_drawing()
    (drawn,) = hall.run(c.DrawBall(number=37))
    assert drawn.camera is None and drawn.check is None


def test_a_ball_accepted_as_another_number_refuses_the_set():
    hall = ready()
    (event,) = hall.run(
        c.CommissionBallSet(ball_set_id="JB-1", showings=with_changes({81: shown(81, 84)}))
    )
    assert (event.fit, event.misread, event.read) == (False, [81], 89)
    assert "read as another number: ball 81" in event.refusals[0]
    assert hall.state.ball_sets["JB-1"].camera_fit is False
    hall.game_drawing()
    with pytest.raises(RuleError, match="has not passed its camera commissioning"):
        hall.run(c.DrawBall(number=37, camera=AGREES))


def test_a_confident_wrong_guess_below_the_threshold_refuses_the_set():
    near = shown(9, reading=None, guess=4, confidence=NEAR_MISS_CONFIDENCE)
    verdict = judge(with_changes({9: near}))
    assert (verdict.fit, verdict.near_misses, verdict.misread) == (False, (9,), ())
    below = shown(9, reading=None, guess=4, confidence=0.98)
    assert judge(with_changes({9: below})).fit


def test_a_set_read_too_seldom_is_refused_and_the_unread_balls_are_named():
    unread = round(90 * (1 - MIN_READ_SHARE))  # exactly the least share read: still fit
    at_limit = judge(with_changes({n: shown(n, reading=None) for n in range(1, unread + 1)}))
    assert at_limit.fit and at_limit.unread == tuple(range(1, unread + 1))
    assert at_limit.read == 90 - unread
    below = judge(with_changes({n: shown(n, reading=None) for n in range(1, unread + 2)}))
    assert not below.fit and "showings read" in below.refusals[0]


def test_too_many_wrong_guesses_refuse_the_set_even_when_each_is_doubtful():
    allowed = int(90 * MAX_WRONG_GUESS_SHARE)  # 4.5: four

    def guessed_wrong(count: int) -> tuple:
        return with_changes(
            {
                n: shown(n, reading=None, guess=n % 90 + 1, confidence=0.6)
                for n in range(1, count + 1)
            }
        )

    assert judge(guessed_wrong(allowed)).fit
    refused = judge(guessed_wrong(allowed + 1))
    assert not refused.fit and refused.wrong_guesses == allowed + 1


def test_every_ball_must_be_shown_and_a_short_showing_changes_nothing():
    hall = ready()
    before = hall.state
    short = tuple(s for s in READ_RIGHT if s.number not in (45, 90))
    with pytest.raises(RuleError, match=r"2 were not: 45, 90"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=short))
    with pytest.raises(RuleError, match="JB-9 is not registered"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-9", showings=READ_RIGHT))
    assert hall.state == before


def test_a_retired_set_cannot_be_commissioned():
    hall = ready()
    hall.run(c.RegisterBallSet(ball_set_id="JB-2"))
    hall.run(c.ChangeBallSet(ball_set_id="JB-2", reason="sustitución"))
    with pytest.raises(RuleError, match="JB-1 was retired"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT))


def test_commissioning_is_done_between_games_only():
    hall = ready().game_drawing()
    with pytest.raises(PhaseError, match="commission_ball_set"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT))


def test_the_last_commissioning_decides():
    hall = ready().commissioned(with_changes({81: shown(81, 84)}))
    assert hall.state.ball_sets["JB-1"].camera_fit is False
    hall.commissioned()
    assert hall.state.camera_may_confirm
    hall.commissioned(with_changes({81: shown(81, 84)}))
    assert not hall.state.camera_may_confirm


OUTCOMES = st.sampled_from(["right", "unsure", "doubtful_wrong", "near_miss", "misread"])


def _showing(number: int, outcome: str):
    other = number % 90 + 1
    return {
        "right": shown(number),
        "unsure": shown(number, reading=None, guess=number, confidence=0.7),
        "doubtful_wrong": shown(number, reading=None, guess=other, confidence=0.6),
        "near_miss": shown(number, reading=None, guess=other, confidence=0.995),
        "misread": shown(number, reading=other, confidence=0.99999),
    }[outcome]


@given(
    st.lists(st.tuples(st.integers(1, 90), OUTCOMES), max_size=120),
    st.randoms(use_true_random=False),
)
def test_the_verdict_follows_its_four_rules_whatever_the_order_of_the_showings(extra, random):
    showings = [*READ_RIGHT, *(_showing(number, outcome) for number, outcome in extra)]
    random.shuffle(showings)
    verdict = judge(showings)
    outcomes = [outcome for _, outcome in extra]
    total = 90 + len(extra)
    read = 90 + outcomes.count("right")
    wrong = sum(outcomes.count(o) for o in ("doubtful_wrong", "near_miss", "misread"))
    assert (verdict.showings, verdict.read, verdict.wrong_guesses) == (total, read, wrong)
    assert verdict.misread == tuple(sorted({n for n, o in extra if o == "misread"}))
    assert verdict.near_misses == tuple(
        sorted({n for n, o in extra if o in ("near_miss", "misread")})
    )
    assert verdict.unread == ()  # every ball was read right at least once
    expected_fit = (
        "misread" not in outcomes
        and "near_miss" not in outcomes
        and wrong <= MAX_WRONG_GUESS_SHARE * total
        and read >= MIN_READ_SHARE * total
    )
    assert verdict.fit is expected_fit
    assert verdict.fit is (not verdict.refusals)
