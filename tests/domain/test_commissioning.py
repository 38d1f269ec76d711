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
from bingo_hall.domain.events import CameraCheck, CrossReading
from bingo_hall.domain.evolve import replay
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
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
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


def with_frames(showings: tuple) -> tuple:
    """The showings as the hub makes them: each names the frame it kept."""
    return tuple(
        s.model_copy(update={"camera": s.camera.model_copy(update={"frame": f"{i:064x}"})})
        for i, s in enumerate(showings)
    )


def test_the_frames_of_the_last_commissioning_passed_are_the_sets_references():
    """The camera reads a set against its own prints only while its last commissioning passed;
    replaying the log rebuilds them."""
    hall = ready().commissioned(with_frames(READ_RIGHT + READ_RIGHT[:3]))
    kept = hall.state.ball_sets["JB-1"].camera_references
    assert len(kept) == 93 and kept[0] == (1, f"{0:064x}") and kept[92] == (3, f"{92:064x}")
    assert hall.state.camera_references == kept
    assert replay(hall.log).camera_references == kept
    hall.commissioned(with_frames(with_changes({81: shown(81, 84)})))
    assert hall.state.ball_sets["JB-1"].camera_references == ()
    assert hall.state.camera_references == ()
    hall.commissioned(READ_RIGHT)  # showings without frames give no references
    assert hall.state.camera_may_confirm and hall.state.camera_references == ()


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


CROSS_OUTCOMES = st.sampled_from(["none", "confirms", "doubts", "elsewhere"])


def _cross(number: int, showing, cross: str) -> CrossReading | None:
    """What the set's other prints say of a showing: nothing (no print), its own ball
    confirming a best guess that is it, its own ball without confirming, another ball."""
    if cross == "none":
        return None
    if cross == "elsewhere":
        return CrossReading(ball=number % 90 + 1, margin=0.03, confirms=False)
    confirms = cross == "confirms" and showing.camera.guess == number
    return CrossReading(ball=number, margin=0.05, confirms=confirms)


@given(
    st.lists(st.tuples(st.integers(1, 90), OUTCOMES, CROSS_OUTCOMES), max_size=120),
    st.randoms(use_true_random=False),
)
def test_the_verdict_follows_its_five_rules_whatever_the_order_of_the_showings(extra, random):
    showings = [
        *READ_RIGHT,
        *(
            (showing := _showing(number, outcome)).model_copy(
                update={"cross": _cross(number, showing, cross)}
            )
            for number, outcome, cross in extra
        ),
    ]
    random.shuffle(showings)
    verdict = judge(showings)
    total = 90 + len(extra)
    outcomes = [outcome for _, outcome, _ in extra]
    cross_read = sum(
        1 for _, o, x in extra if o == "unsure" and x == "confirms"
    )  # a best guess of its own ball, doubted by the networks, confirmed on the other prints
    cross_wrong = sum(1 for *_, x in extra if x == "elsewhere")
    read = 90 + outcomes.count("right") + cross_read
    wrong = sum(outcomes.count(o) for o in ("doubtful_wrong", "near_miss", "misread"))
    assert (verdict.showings, verdict.read, verdict.wrong_guesses) == (total, read, wrong)
    assert (verdict.cross_read, verdict.cross_wrong) == (cross_read, cross_wrong)
    assert verdict.misread == tuple(sorted({n for n, o, _ in extra if o == "misread"}))
    assert verdict.near_misses == tuple(
        sorted({n for n, o, _ in extra if o in ("near_miss", "misread")})
    )
    assert verdict.unread == ()  # every ball was read right at least once
    expected_fit = (
        "misread" not in outcomes
        and "near_miss" not in outcomes
        and wrong <= MAX_WRONG_GUESS_SHARE * total
        and cross_wrong <= MAX_WRONG_GUESS_SHARE * total
        and read >= MIN_READ_SHARE * total
    )
    assert verdict.fit is expected_fit
    assert verdict.fit is (not verdict.refusals)


def doubted(number: int) -> e.BallShowing:
    """Ball `number` guessed right by the networks, under their threshold."""
    return shown(number, reading=None, guess=number, confidence=0.995)


def test_showings_the_other_prints_confirm_are_read_as_play_would_read_them():
    """A set the networks alone read too little of is fit when the prints of its other
    showings confirm their doubted best guesses, as the set's references confirm calls."""
    showings = READ_RIGHT[:60] + tuple(doubted(n) for n in range(61, 91))
    confirming = tuple(
        CrossReading(ball=s.number, margin=0.05, confirms=s.camera.reading is None)
        for s in showings
    )
    alone = judge(showings)
    assert not alone.fit and alone.read == 60 and alone.unread == tuple(range(61, 91))
    hall = ready()
    (event,) = hall.run(
        c.CommissionBallSet(ball_set_id="JB-1", showings=showings, cross_readings=confirming)
    )
    assert (event.fit, event.read, event.cross_read, event.cross_wrong) == (True, 90, 30, 0)
    assert event.unread == [] and event.showings[70].cross == confirming[70]
    assert hall.state.camera_may_confirm
    assert replay(hall.log) == hall.state


def test_a_set_whose_prints_lie_nearest_other_balls_is_refused():
    """The other prints are a second reader: one that often names another ball is refused
    as the networks are, even when every showing was read."""
    allowed = int(MAX_WRONG_GUESS_SHARE * 90)
    elsewhere = tuple(
        CrossReading(ball=n % 90 + 1 if n <= allowed + 1 else n, margin=0.03, confirms=False)
        for n in range(1, 91)
    )
    (event,) = ready().run(
        c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT, cross_readings=elsewhere)
    )
    assert (event.fit, event.read, event.cross_wrong) == (False, 90, allowed + 1)
    assert event.refusals == [
        f"{allowed + 1} of 90 showings lie nearest another ball's prints (at most 5%)"
    ]


def test_cross_readings_that_do_not_fit_the_showings_are_refused_and_change_nothing():
    hall = ready()
    before = hall.state
    one = (CrossReading(ball=1, margin=0.05, confirms=False),)
    with pytest.raises(RuleError, match="1 cross readings given for 90 showings"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT, cross_readings=one))
    wrong_ball = [None] * 90
    wrong_ball[4] = CrossReading(ball=6, margin=0.05, confirms=True)
    with pytest.raises(RuleError, match=r"showing 5 \(ball 5\): its cross reading confirms ball 6"):
        hall.run(
            c.CommissionBallSet(
                ball_set_id="JB-1", showings=READ_RIGHT, cross_readings=tuple(wrong_ball)
            )
        )
    # nor may showings given with the command carry one
    carried = list(READ_RIGHT)
    carried[4] = carried[4].model_copy(update={"cross": wrong_ball[4]})
    with pytest.raises(RuleError, match="showing 5 \\(ball 5\\): its cross reading confirms"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=tuple(carried)))
    assert hall.state == before and hall.state.ball_sets["JB-1"].camera_fit is None


# --- showings kept in the log, ball by ball -------------------------------------------------


def show(hall: Hall, showing, ball_set_id: str = "JB-1") -> list:
    command = c.ShowBallToCamera(
        ball_set_id=ball_set_id, number=showing.number, camera=showing.camera
    )
    return hall.run(command)


def test_balls_shown_one_by_one_are_facts_kept_until_a_commissioning_judges_them():
    hall = ready()
    for showing in READ_RIGHT:
        (event,) = show(hall, showing)
        assert isinstance(event, e.BallShownToCamera) and event.showing == showing
    assert hall.state.showings.showings == READ_RIGHT
    assert replay(hall.log) == hall.state  # a restarted hub has them
    # the showings given with a commissioning of the same set would leave these unjudged
    with pytest.raises(RuleError, match="90 showings of JB-1 are kept"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1", showings=READ_RIGHT))
    (judged,) = hall.run(c.CommissionBallSet(ball_set_id="JB-1"))
    assert judged.fit and tuple(judged.showings) == READ_RIGHT
    assert hall.state.showings is None  # a new trial starts afresh
    with pytest.raises(RuleError, match="90 were not"):
        hall.run(c.CommissionBallSet(ball_set_id="JB-1"))


def test_showing_a_ball_refuses_another_sets_turn_an_eleventh_showing_and_a_game_phase():
    hall = ready()
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
    for _ in range(10):
        show(hall, shown(5))
    before = hall.state
    with pytest.raises(RuleError, match="ball 5 was shown 10 times"):
        show(hall, shown(5))
    with pytest.raises(RuleError, match="the balls of JB-1 are being shown"):
        show(hall, shown(6), "JB-2")
    with pytest.raises(RuleError, match="JB-9 is not registered"):
        show(hall, shown(6), "JB-9")
    assert hall.state == before
    hall.game_drawing()
    with pytest.raises(PhaseError, match="show_ball_to_camera"):
        show(hall, shown(6))


def test_discarded_showings_are_recorded_with_their_misreadings_and_set_aside():
    hall = ready()
    with pytest.raises(RuleError, match="nothing to discard"):
        hall.run(c.DiscardBallShowings())
    for showing in (shown(7), shown(81, 84), shown(9, reading=None, guess=6), shown(3, 8)):
        show(hall, showing)
    (event,) = hall.run(c.DiscardBallShowings())
    assert (event.ball_set_id, event.showings, event.misread) == ("JB-1", 4, [3, 81])
    assert hall.state.showings is None
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
    show(hall, shown(6), "JB-2")  # another set's turn now
    assert replay(hall.log) == hall.state


def test_a_set_retired_while_shown_leaves_its_showings_in_the_log_only():
    hall = ready()
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
    hall.run(c.RegisterBallSet(ball_set_id="JB-3", homologation="CNJ-BOLAS-0001"))
    hall.run(c.ChangeBallSet(ball_set_id="JB-2", reason="sustitución"))
    show(hall, shown(7), "JB-3")  # not the set retired: kept
    hall.run(c.ChangeBallSet(ball_set_id="JB-3", reason="sustitución"))  # JB-2 retired
    assert hall.state.showings.ball_set_id == "JB-3"
    hall.run(c.DiscardBallShowings())
    show(hall, shown(7), "JB-3")
    hall.run(c.RegisterBallSet(ball_set_id="JB-4", homologation="CNJ-BOLAS-0001"))
    hall.run(c.ChangeBallSet(ball_set_id="JB-4", reason="sustitución"))  # JB-3 retired
    assert hall.state.showings is None
    show(hall, shown(8), "JB-4")


SHOWING_STEPS = st.one_of(
    st.tuples(st.just("show"), st.sampled_from(["JB-1", "JB-2"]), st.integers(1, 3), OUTCOMES),
    st.tuples(st.just("discard")),
    st.tuples(st.just("judge"), st.sampled_from(["JB-1", "JB-2"])),
)


@given(st.lists(SHOWING_STEPS, max_size=60))
def test_the_showings_kept_are_exactly_those_shown_since_the_last_discarding_or_judgement(steps):
    """A model of the rules: one set at a time, ten showings of a ball at most; a discarding
    counts them and names the misread balls; a judgement takes them (and, with balls missing,
    is refused and keeps them). Every refusal changes nothing; replay rebuilds the state."""
    hall = ready()
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
    kept_set, kept = None, []
    for step in steps:
        before = hall.state
        if step[0] == "show":
            _, ball_set_id, number, outcome = step
            showing = _showing(number, outcome)
            allowed = (kept_set in (None, ball_set_id)) and sum(
                s.number == number for s in kept
            ) < 10
            if not allowed:
                with pytest.raises(RuleError):
                    show(hall, showing, ball_set_id)
                assert hall.state == before
                continue
            show(hall, showing, ball_set_id)
            kept_set, kept = ball_set_id, [*kept, showing]
        elif step[0] == "discard":
            if kept_set is None:
                with pytest.raises(RuleError):
                    hall.run(c.DiscardBallShowings())
                assert hall.state == before
                continue
            (event,) = hall.run(c.DiscardBallShowings())
            misread = sorted({s.number for s in kept if s.camera.reading not in (None, s.number)})
            assert (event.showings, event.misread) == (len(kept), misread)
            kept_set, kept = None, []
        else:
            _, ball_set_id = step
            if kept_set == ball_set_id:  # fewer than 90 balls: refused, naming the missing
                with pytest.raises(RuleError, match="every ball must be shown"):
                    hall.run(c.CommissionBallSet(ball_set_id=ball_set_id))
            else:  # a whole set given at once: another set's showings stay
                hall.run(c.CommissionBallSet(ball_set_id=ball_set_id, showings=READ_RIGHT))
                assert hall.state.ball_sets[ball_set_id].camera_fit is True
        if kept_set is None:
            assert hall.state.showings is None
        else:
            assert hall.state.showings.ball_set_id == kept_set
            assert list(hall.state.showings.showings) == kept
    assert replay(hall.log) == hall.state
