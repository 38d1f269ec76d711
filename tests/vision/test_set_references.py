"""A ball set's own prints as references: matching, the acceptance rule, real renders."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.vision.ball_set import print_ball_set
from bingo_hall.vision.camera import SimulatedCamera
from bingo_hall.vision.recognise import BallReader, FrameEvidence
from bingo_hall.vision.set_references import (
    MARGIN_FLOOR,
    SIMILARITY_FLOOR,
    STEPS,
    ReferenceMatch,
    SetReferences,
    contradicts,
    corroborates,
    cross_matches,
    judge,
    judged_reading,
    set_references,
)
from bingo_hall.vision.styles import HELD_OUT

DIMENSION = 16


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def random_set(seed: int, per_ball: int = 2) -> SetReferences:
    rng = np.random.default_rng(seed)
    prints = [
        (ball, unit(rng.normal(size=DIMENSION))) for ball in range(1, 91) for _ in range(per_ball)
    ]
    return set_references(prints)


@given(st.integers(0, 2**32 - 1), st.integers(0, 179))
def test_a_frame_that_is_a_reference_matches_its_ball(seed: int, row: int) -> None:
    references = random_set(seed)
    match = references.match([references.features[row]])
    assert match is not None
    assert match.ball == references.balls[row]
    assert match.margin >= 0.0
    assert match.similarity == pytest.approx(1.0)


@given(st.integers(0, 2**32 - 1), st.integers(1, 90), st.integers(1, 4))
def test_frames_of_one_ball_match_by_their_mean_similarity(seed: int, ball: int, k: int) -> None:
    """Frames of a burst vote by each ball's mean similarity; their order does not matter."""
    references = random_set(seed)
    rng = np.random.default_rng(seed)
    own = references.features[references.balls == ball][0]
    frames = [unit(own + 0.05 * rng.normal(size=DIMENSION)) for _ in range(k)]
    forward, backward = references.match(frames), references.match(frames[::-1])
    assert forward is not None and backward is not None
    assert forward.ball == ball
    assert forward.ball == backward.ball
    assert forward.margin == pytest.approx(backward.margin)


def test_a_set_with_a_ball_never_seen_matches_nothing() -> None:
    """A frame of a ball that has no reference could only lie nearest another ball."""
    full = random_set(7, per_ball=1)
    without_37 = SetReferences(full.features[full.balls != 37], full.balls[full.balls != 37])
    assert full.complete and not without_37.complete
    assert without_37.match([full.features[0]]) is None
    assert full.match([]) is None


@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 179), max_size=20, unique=True))
def test_each_print_is_matched_against_the_others_as_if_it_had_not_been_kept(
    seed: int, unfound: list[int]
) -> None:
    """A showing's frame is read against the set without it: never against itself. Frames in
    which no print was found match nothing and are no reference for the others."""
    full = random_set(seed)
    prints: list[tuple[int, np.ndarray | None]] = [
        (int(ball), None if row in unfound else features)
        for row, (ball, features) in enumerate(zip(full.balls, full.features, strict=True))
    ]
    matches = cross_matches(prints)
    assert len(matches) == len(prints)
    for row, ((_, features), match) in enumerate(zip(prints, matches, strict=True)):
        others = set_references(p for other, p in enumerate(prints) if other != row)
        expected = None if features is None else others.match([features])
        assert match == expected
        if match is not None:
            assert match.similarity < 1.0 - 1e-6  # its own print was left out


def test_a_ball_shown_once_cannot_be_read_on_the_others() -> None:
    """Each ball shown twice, its two prints alike: every frame lies nearest its own ball's
    other print. A ball shown once has no other print: its frame matches nothing, and the
    other balls' frames are still read against it."""
    rng = np.random.default_rng(11)
    looks = {ball: unit(rng.normal(size=DIMENSION)) for ball in range(1, 91)}
    prints = [
        (ball, unit(looks[ball] + 0.1 * rng.normal(size=DIMENSION)))
        for showing in range(2)
        for ball in range(1, 91)
        if not (ball == 37 and showing == 1)
    ]
    matches = cross_matches(prints)
    assert matches[36] is None  # the one showing of 37
    read = [(ball, m) for (ball, _), m in zip(prints, matches, strict=True) if ball != 37]
    assert all(m is not None and m.ball == ball and m.margin > 0 for ball, m in read)


def test_frames_with_no_print_give_no_reference() -> None:
    references = set_references([(1, unit(np.ones(DIMENSION))), (2, None)])
    assert list(references.balls) == [1]
    with pytest.raises(ValueError, match="no ball 91"):
        set_references([(91, unit(np.ones(DIMENSION)))])


def test_the_rule_needs_the_same_ball_and_a_margin_the_wider_the_less_sure() -> None:
    for floor, margin in STEPS:
        at_the_step = ReferenceMatch(37, margin, 0.9)
        assert corroborates(37, floor, at_the_step)
        assert not corroborates(38, floor, at_the_step)  # another ball
        assert not corroborates(37, floor, ReferenceMatch(37, margin - 0.001, 0.9))
    least_sure, widest = min(STEPS)
    assert widest == max(margin for _, margin in STEPS) and least_sure == 0.0
    assert not corroborates(37, 1.0, ReferenceMatch(37, MARGIN_FLOOR - 0.001, 0.9))
    assert not corroborates(37, 1.0, None)


def test_a_frame_unlike_every_print_of_the_set_is_neither_confirmed_nor_named() -> None:
    """A smeared frame lies nearest whatever print its smear resembles, by a wide margin: the
    references confirm nothing on it and name no ball, but still refuse a sure reading."""
    recognised = ReferenceMatch(12, 0.3, SIMILARITY_FLOOR)
    smeared = ReferenceMatch(12, 0.3, SIMILARITY_FLOOR - 0.001)
    assert recognised.recognised() and not smeared.recognised()
    assert corroborates(12, 0.02, recognised) and not corroborates(12, 0.02, smeared)
    assert judge(12, 0.02, False, recognised) == "set"
    assert judge(12, 0.02, False, smeared) == "unsure"
    assert judge(10, 0.5, False, recognised) == "set_disagrees"
    assert judge(10, 0.5, False, smeared) == "unsure"
    assert judge(10, 1.0, True, smeared) == "unsure"  # the veto holds
    assert judge(12, 1.0, True, smeared) == "networks"
    reading = judged_reading(10, 0.5, False, smeared)
    assert (reading.number, reading.reason, reading.set_ball) == (None, "unsure", None)
    assert reading.set_nearest is None  # nor can the call lean on it as a witness


@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(0, 0.5),
)
def test_more_confidence_or_a_wider_margin_never_refuses_what_was_accepted(
    confidence: float, more_confidence: float, margin: float, more_margin: float
) -> None:
    surer = max(confidence, more_confidence)
    if corroborates(37, confidence, ReferenceMatch(37, margin, 0.9)):
        assert corroborates(37, surer, ReferenceMatch(37, margin + more_margin, 0.9))


def test_the_references_contradict_a_guess_whenever_they_lie_nearer_another_ball() -> None:
    assert contradicts(38, ReferenceMatch(37, 0.001, 0.9))  # by any lead, however narrow
    assert contradicts(38, ReferenceMatch(37, MARGIN_FLOOR, 0.9))
    assert not contradicts(37, ReferenceMatch(37, MARGIN_FLOOR, 0.9))  # the same ball
    assert not contradicts(38, ReferenceMatch(37, 0.0, 0.9))  # a tie names no ball
    assert not contradicts(38, None)


# the networks' guess, their confidence, whether their threshold accepts it, and the ball the
# references lie nearest with its margin and similarity (None: no references)
GUESSES_JUDGED = (
    st.integers(1, 90),
    st.floats(0, 1),
    st.booleans(),
    st.none() | st.tuples(st.integers(1, 90), st.floats(0, 0.5), st.floats(0.5, 1)),
)


@given(*GUESSES_JUDGED)
def test_the_references_veto_comes_first_and_only_they_accept_below_the_threshold(
    guess: int,
    confidence: float,
    networks_accept: bool,
    nearest: tuple[int, float, float] | None,
) -> None:
    match = None if nearest is None else ReferenceMatch(*nearest)
    verdict = judge(guess, confidence, networks_accept, match)
    if contradicts(guess, match):
        assert match is not None
        assert verdict in ("set_disagrees", "unsure")  # never accepted, however sure
        # named as the reason when the references recognise the frame, and overrule the
        # networks or lead clearly
        named = match.recognised() and (networks_accept or match.margin >= MARGIN_FLOOR)
        assert (verdict == "set_disagrees") == named
    elif networks_accept:
        assert verdict == "networks"
    else:
        assert verdict == ("set" if corroborates(guess, confidence, match) else "unsure")
    if match is None:  # without references the networks decide alone
        assert verdict == ("networks" if networks_accept else "unsure")
    if match is not None and not match.recognised():  # a frame unlike every print of the set
        assert verdict in ("networks", "unsure")  # the references confirm and name nothing
        assert (verdict == "networks") == (networks_accept and not contradicts(guess, match))


@given(*GUESSES_JUDGED, st.booleans())
def test_the_reading_keeps_the_verdict_and_the_ball_the_references_lie_nearest(
    guess: int,
    confidence: float,
    networks_accept: bool,
    nearest: tuple[int, float, float] | None,
    in_machine: bool,
) -> None:
    match = None if nearest is None else ReferenceMatch(*nearest)
    verdict = judge(guess, confidence, networks_accept, match)
    if not in_machine and verdict in ("networks", "set"):
        verdict = "unsure"  # a ball already drawn is guessed, never given
    reading = judged_reading(guess, confidence, networks_accept, match, in_machine=in_machine)
    assert (reading.guess, reading.confidence) == (guess, confidence)
    assert reading.number == (guess if verdict in ("networks", "set") else None)
    assert reading.reason == (None if verdict in ("networks", "set") else verdict)
    recognised = match is not None and match.recognised()
    assert reading.set_nearest == (match.ball if recognised else None)
    assert reading.set_ball == (match.ball if verdict == "set_disagrees" else None)


def guessed_evidence(features: np.ndarray, guess: int, confidence: float) -> FrameEvidence:
    """A frame whose best guess is `guess` at `confidence`, with the print `features`."""
    rest = (1 - confidence) / 89
    scores = np.full(90, np.log(rest))
    scores[guess - 1] = np.log(confidence)
    return FrameEvidence(
        scores, None, ball=True, label_scores=scores[None], front_features=features
    )


@pytest.fixture(scope="module")
def reader() -> BallReader:
    return BallReader()


def test_the_reader_accepts_a_doubted_guess_its_set_confirms(reader: BallReader) -> None:
    references = random_set(11)
    own = references.features[references.balls == 37][0]
    evidence = [guessed_evidence(own, 37, 0.9995)]
    alone = reader.decide(evidence)
    assert (alone.number, alone.guess, alone.reason) == (None, 37, "unsure")
    reading = reader.decide(evidence, references=references)
    assert (reading.number, reading.reason) == (37, None)
    assert reading.confidence == alone.confidence
    assert reading.set_margin is not None and reading.set_margin >= MARGIN_FLOOR


def test_the_reader_holds_a_guess_its_set_names_another_ball_for(reader: BallReader) -> None:
    references = random_set(11)
    other = references.features[references.balls == 73][0]
    reading = reader.decide([guessed_evidence(other, 37, 0.995)], references=references)
    assert (reading.number, reading.guess, reading.reason) == (None, 37, "set_disagrees")
    assert reading.set_ball == 73


NEXT_STEP = min(margin for _, margin in STEPS if margin > MARGIN_FLOOR)


def a_set_with_lookalikes(seed: int, ball: int, other: int) -> SetReferences:
    """A set whose prints of `ball` and `other` look alike (as a 37 and a 73 may), each of
    the others' unlike any."""
    references = random_set(seed)
    rng = np.random.default_rng(seed)
    own = references.features[references.balls == ball][0]
    features = references.features.copy()
    for row in np.flatnonzero(references.balls == other):
        features[row] = unit(own + 0.4 * unit(rng.normal(size=DIMENSION)))
    return SetReferences(features, references.balls)


def a_print_between(references: SetReferences, ball: int, other: int) -> np.ndarray:
    """Features the set recognises that lie nearest `ball`'s references by a margin wide
    enough for the surest step (`MARGIN_FLOOR`) and too narrow for any other."""
    own = references.features[references.balls == ball][0]
    near = references.features[references.balls == other][0]
    for weight in np.linspace(0.0, 1.5, 301):
        features = unit(own + weight * near)
        match = references.match([features])
        if (
            match is not None
            and match.recognised()
            and match.ball == ball
            and MARGIN_FLOOR < match.margin < NEXT_STEP
        ):
            return features
    raise AssertionError("no mixture of the two prints lies there")


def test_the_less_sure_the_networks_the_clearer_the_set_must_be(reader: BallReader) -> None:
    references = a_set_with_lookalikes(11, 37, 73)
    between = a_print_between(references, 37, 73)
    surest, _ = max(STEPS)
    for confidence in (0.5, 0.9995):  # sure, but not sure enough for so narrow a margin
        held = reader.decide([guessed_evidence(between, 37, confidence)], references=references)
        assert (held.number, held.guess, held.reason) == (None, 37, "unsure"), confidence
    nearly_sure = reader.decide([guessed_evidence(between, 37, surest)], references=references)
    assert (nearly_sure.number, nearly_sure.reason) == (37, None)
    own = references.features[references.balls == 50][0]  # a print like no other: clear
    clear = reader.decide([guessed_evidence(own, 50, 0.5)], references=references)
    assert clear.number == 50 and clear.set_margin is not None
    assert clear.set_margin >= max(margin for _, margin in STEPS)


def test_a_sure_reading_is_held_when_the_set_names_another_ball(reader: BallReader) -> None:
    """The networks sure of 83 on a print that lies nearest the set's 3 (as a heavy 3 of a
    set printed once was read): the call is held, not confirmed. On a print of its own ball
    the same sure reading is accepted, and with no references the networks decide alone."""
    references = random_set(11)
    print_of_3 = references.features[references.balls == 3][0]
    sure_of_83 = [guessed_evidence(print_of_3, 83, 1 - 1e-9)]
    assert reader.decide(sure_of_83).number == 83
    held = reader.decide(sure_of_83, references=references)
    assert (held.number, held.guess, held.reason, held.set_ball) == (None, 83, "set_disagrees", 3)
    assert held.set_margin is not None and held.set_margin >= MARGIN_FLOOR
    assert held.confidence > 0.999  # the networks' own, kept for the Jefe de Mesa to weigh
    print_of_83 = references.features[references.balls == 83][0]
    own = reader.decide([guessed_evidence(print_of_83, 83, 1 - 1e-9)], references=references)
    assert (own.number, own.reason, own.set_margin) == (83, None, None)


def test_a_ball_no_longer_in_the_machine_is_not_confirmed(reader: BallReader) -> None:
    """The ball before, still at the exit: the networks and the set's prints both name it,
    and it is guessed, never given, however sure both are."""
    references = random_set(11)
    own = references.features[references.balls == 37][0]
    remaining = [n for n in range(1, 91) if n != 37]
    for confidence in (0.995, 1 - 1e-9):
        reading = reader.decide([guessed_evidence(own, 37, confidence)], remaining, references)
        assert (reading.number, reading.guess, reading.reason) == (None, 37, "unsure")
        assert reading.set_nearest == 37


def exit_cameras(printed: bool) -> tuple[SimulatedCamera, SimulatedCamera]:
    """Two cameras on one set, one for its commissioning and one for play: a set in one
    held-out typeface printed anew each presentation, or a set printed once (in the typeface
    the networks doubt most), whose balls keep their prints as a hall's do."""
    seeds = (20261129, 20261130)
    if printed:
        prints = print_ball_set(np.random.default_rng(20261201), typeface="dejavu-serif-bold")
        commissioning, play = (SimulatedCamera(seed, ball_set=prints) for seed in seeds)
    else:
        styles = replace(HELD_OUT, fonts=HELD_OUT.fonts[:1], colours=HELD_OUT.colours[:1])
        commissioning, play = (SimulatedCamera(seed, style_set=styles) for seed in seeds)
    return commissioning, play


@pytest.mark.parametrize(("printed", "least"), [(False, 28), (True, 30)])
def test_rendered_frames_of_a_set_lie_nearest_their_own_prints(
    reader: BallReader, printed: bool, least: int
) -> None:
    """Every ball shown once, then frames of 30 of its balls matched."""
    camera, play = exit_cameras(printed)
    shown = []
    for ball in range(1, 91):
        camera.present(ball)
        shown.append((ball, reader.front_features(camera.frames(1)[0])))
    references = set_references(shown)
    assert references.complete
    rng = np.random.default_rng(5)
    matched = 0
    balls = rng.choice(np.arange(1, 91), size=30, replace=False)
    for ball in balls:
        play.present(int(ball))
        match = references.match([reader.front_features(play.frames(1)[0])])
        matched += match is not None and match.ball == ball
    assert matched >= least


def test_one_pass_gives_the_outputs_and_the_features(reader: BallReader) -> None:
    camera = SimulatedCamera(seed=3)
    camera.present(68)
    frame = camera.frames(1)[0]
    evidence = reader.evidence(frame)
    assert evidence.front_features is not None
    assert np.linalg.norm(evidence.front_features) == pytest.approx(1.0, abs=1e-5)
    assert np.allclose(reader.front_features(frame), evidence.front_features)
