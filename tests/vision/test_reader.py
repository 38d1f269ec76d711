"""The ball reader on rendered frames in the HELD-OUT styles (never seen in training)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bingo_hall.vision.camera import SimulatedCamera
from bingo_hall.vision.model import Evidence
from bingo_hall.vision.reading import Reading
from bingo_hall.vision.recognise import OUT_OF_MACHINE_PRIOR, BallReader, FrameEvidence
from bingo_hall.vision.render import render_ball
from bingo_hall.vision.styles import HELD_OUT

FRAMES = 300
# Single frames read and accepted, of held-out frames. The target is 99.9 %; the packaged
# reader accepts 293 of these 300 at its thresholds (docs/vision.md, docs/benchmarks.md):
# these floors guard against regressions, the zero-wrong assertion is the one that matters.
ACCEPTED_FLOOR = 0.9
GUESSED_FLOOR = 0.98  # best guess right, accepted or not (300 of 300)


@pytest.fixture(scope="module")
def reader() -> BallReader:
    return BallReader()


@pytest.fixture(scope="module")
def held_out_readings(reader: BallReader) -> list[tuple[int, Reading]]:
    rng = np.random.default_rng(20261122)
    out = []
    for _ in range(FRAMES):
        truth = int(rng.integers(1, 91))
        out.append((truth, reader.read(render_ball(truth, rng, HELD_OUT))))
    return out


def test_the_thresholds_are_probabilities_close_to_one(reader: BallReader) -> None:
    """A second label in the frame never needs more confidence than one label alone."""
    model = reader.model
    assert 0.99 <= model.threshold_two_labels <= model.threshold < 1.0
    assert 0.99 <= model.threshold_two_found <= model.threshold
    assert model.threshold_for(Evidence.ONE_LABEL) == model.threshold
    assert model.threshold_for(Evidence.TWO_FOUND) == model.threshold_two_found
    assert model.threshold_for(Evidence.TWO_AGREEING) == model.threshold_two_labels


def spread(probabilities: dict[int, float]) -> np.ndarray:
    """Log-probabilities over the 90 numbers: these, and the rest spread evenly."""
    rest = (1 - sum(probabilities.values())) / (90 - len(probabilities))
    row = np.full(90, np.log(rest))
    for number, p in probabilities.items():
        row[number - 1] = np.log(p)
    return row


def frame_evidence(confidence: float, labels: list[dict[int, float]]) -> FrameEvidence:
    """A frame read as 37 at this confidence, whose labels, read alone, say these."""
    label_scores = np.array([spread(probabilities) for probabilities in labels])
    return FrameEvidence(spread({37: confidence}), None, ball=True, label_scores=label_scores)


def test_each_kind_of_evidence_has_its_threshold() -> None:
    reader = BallReader()
    model = reader.model = replace(
        reader.model, threshold=0.99999, threshold_two_found=0.9999, threshold_two_labels=0.999
    )
    low, middle = 0.9995, 0.99995
    one_label = reader.decide([frame_evidence(middle, [{37: 0.9}])])
    assert one_label.number is None and one_label.reason == "unsure" and one_label.guess == 37
    agreeing = frame_evidence(low, [{37: 0.9}, {37: 0.5}])
    assert agreeing.agreeing_labels(36) == 2
    assert agreeing.evidence_for(36) == Evidence.TWO_AGREEING
    assert reader.decide([agreeing]).number == 37
    # a second label that gives 37 less than even odds is found, but does not agree
    doubting = [{37: 0.9}, {37: 0.45, 87: 0.3}]
    assert frame_evidence(low, doubting).evidence_for(36) == Evidence.TWO_FOUND
    assert reader.decide([frame_evidence(low, doubting)]).number is None
    assert reader.decide([frame_evidence(middle, doubting)]).number == 37
    # two frames of one label each are one print seen twice, not two prints
    twice = [frame_evidence(middle, [{37: 0.9}]), frame_evidence(middle, [{37: 0.9}])]
    assert reader.decide(twice).number is None
    # the strongest frame of a burst counts
    assert reader.decide([frame_evidence(low, [{37: 0.9}]), agreeing]).number == 37
    # above the one-label threshold, one label is enough
    sure = reader.decide([frame_evidence((1 + model.threshold) / 2, [{37: 0.9}])])
    assert sure.number == 37


def test_held_out_frames_are_read_and_never_wrongly(
    held_out_readings: list[tuple[int, Reading]],
) -> None:
    wrong = [(t, r) for t, r in held_out_readings if r.number is not None and r.number != t]
    assert wrong == []
    correct = sum(1 for t, r in held_out_readings if r.number == t)
    assert correct >= ACCEPTED_FLOOR * FRAMES, f"{correct}/{FRAMES} read"
    guessed = sum(1 for t, r in held_out_readings if r.guess == t)
    assert guessed >= GUESSED_FLOOR * FRAMES, f"{guessed}/{FRAMES} best guesses right"


def test_readings_are_consistent(
    reader: BallReader, held_out_readings: list[tuple[int, Reading]]
) -> None:
    for _, r in held_out_readings:
        assert 0.0 <= r.confidence <= 1.0
        if r.number is not None:
            assert r.reason is None and r.guess == r.number
            assert r.confidence >= min(reader.model.threshold_for(kind) for kind in Evidence)
        else:
            assert r.reason in ("no_ball", "unsure", "unreadable")
            assert r.guess is None or r.reason == "unsure"


def test_candidates_restrict_and_renormalise(reader: BallReader) -> None:
    rng = np.random.default_rng(7)
    frame = render_ball(68, rng, HELD_OUT)
    free = reader.read(frame)
    assert free.guess == 68
    alone = reader.read(frame, candidates=[68])
    assert alone.number == 68 and alone.confidence == pytest.approx(1.0)
    among = reader.read(frame, candidates=[68, 86, 89, 9])
    assert among.guess == 68 and among.confidence >= free.confidence
    # the renormalisation itself: a frame that leans to 17 over 71, a ball no longer in play
    scores = np.full(90, -40.0)
    scores[[16, 70]] = np.log([0.9999, 0.0001])
    evidence = [FrameEvidence(scores, None, ball=True)]
    assert (reader.decide(evidence).reason, reader.decide(evidence).guess) == ("unsure", 17)
    kept = reader.decide(evidence, candidates=[k for k in range(1, 91) if k != 71])
    assert kept.number == 17 and kept.confidence > reader.model.threshold
    with pytest.raises(ValueError, match="1 to 90"):
        reader.read(frame, candidates=[0, 68])


def test_a_ball_out_of_the_machine_is_not_explained_away(reader: BallReader) -> None:
    """A frame that cannot tell 17 from 71 is not read as 17 because 71 was drawn: the ball
    in view may be the one before (`OUT_OF_MACHINE_PRIOR`)."""
    scores = np.full(90, -40.0)
    scores[[16, 70]] = np.log(0.5)
    evidence = [FrameEvidence(scores, None, ball=True)]
    split = reader.decide(evidence, candidates=[k for k in range(1, 91) if k != 71])
    assert (split.number, split.guess, split.reason) == (None, 17, "unsure")
    assert split.confidence == pytest.approx(1 / (1 + OUT_OF_MACHINE_PRIOR))


def test_a_lone_candidate_is_confirmed_only_by_a_frame_that_shows_it(reader: BallReader) -> None:
    rng = np.random.default_rng(7)
    shows_68 = render_ball(68, rng, HELD_OUT)
    assert reader.read(shows_68, candidates=[68]).number == 68
    for last in (86, 12):  # the last ball left, and the picture shows another
        reading = reader.read(shows_68, candidates=[last])
        assert (reading.number, reading.guess, reading.reason) == (None, 68, "unsure"), last
    # a frame that says nothing of the number confirms nothing, whatever is left
    blank = [FrameEvidence(np.full(90, -np.log(90)), None, ball=True)]
    assert reader.decide(blank, candidates=[5]).number is None


def test_the_ball_before_still_in_view_is_guessed_not_read_as_another(
    reader: BallReader,
) -> None:
    """The ball just drawn is still at the exit when the next is called: the frames show
    it, and the reading names it as a guess; no ball still in the machine is given."""
    camera = SimulatedCamera(seed=20261201)
    shown = 0
    for before in (37, 68, 88, 18, 61, 66):
        camera.present(before)
        remaining = [n for n in range(1, 91) if n != before]
        reading = reader.read_frames(camera.frames(3), candidates=remaining)
        assert reading.number is None, (before, reading)
        shown += reading.guess == before
    assert shown >= 5


def test_several_frames_are_read_at_least_as_well_as_one(reader: BallReader) -> None:
    camera = SimulatedCamera(seed=11)
    rng = np.random.default_rng(12)
    single = fused = single_guess = fused_guess = 0
    balls = 80
    for _ in range(balls):
        truth = int(rng.integers(1, 91))
        camera.present(truth)
        frames = camera.frames(3)
        one = reader.read(frames[0])
        many = reader.read_frames(frames)
        assert one.number in (None, truth)
        assert many.number in (None, truth)
        single += one.number == truth
        fused += many.number == truth
        single_guess += one.guess == truth
        fused_guess += many.guess == truth
    # the frames of one ball add up (divided by k**fusion, the exponent chosen in
    # calibration): three frames are read at least as often as the first alone (71 of these
    # 80 balls either way, one ball each way between them; on the benchmark's 1,000 balls
    # 93.8 % from three frames, 92.5 % from the first)
    assert fused_guess >= single_guess
    assert fused_guess >= 0.95 * balls
    assert fused >= single
    assert fused >= 0.85 * balls


def test_an_empty_exit_is_no_ball(reader: BallReader) -> None:
    rng = np.random.default_rng(13)
    for _ in range(20):
        reading = reader.read(render_ball(None, rng, HELD_OUT))
        assert reading == Reading(None, 0.0, None, "no_ball")
    camera = SimulatedCamera(seed=14)
    camera.present(None)
    assert reader.read_frames(camera.frames(3)).reason == "no_ball"


@pytest.mark.parametrize(
    "frame",
    [
        None,
        np.zeros((0, 0, 3), np.uint8),
        np.zeros((480, 0, 3), np.uint8),
        np.zeros((480, 640, 3), np.float32),
        np.zeros(640, np.uint8),
        np.zeros((10, 10, 3), np.uint8),
        np.zeros((480, 640, 5), np.uint8),
        b"not an image",
    ],
    ids=["none", "empty", "zero-width", "float", "1-d", "tiny", "5-channel", "bytes"],
)
def test_no_usable_frame_is_unreadable(reader: BallReader, frame: object) -> None:
    assert reader.read(frame) == Reading(None, 0.0, None, "unreadable")  # type: ignore[arg-type]


def test_noise_and_grey_frames_give_no_number(reader: BallReader) -> None:
    rng = np.random.default_rng(15)
    noise = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    grey = np.full((480, 640), 128, np.uint8)
    for frame in (noise, grey):
        reading = reader.read(frame)
        assert reading.number is None and reading.reason in ("no_ball", "unreadable")


def test_an_obscured_ball_is_unsure_not_a_wrong_number(reader: BallReader) -> None:
    camera = SimulatedCamera(seed=16)
    reasons = []
    for ball in (6, 9, 18, 66, 81, 23, 57, 90):
        camera.present(ball, conditions="obscured")
        reading = reader.read_frames(camera.frames(3))
        assert reading.number is None
        reasons.append(reading.reason)
    # the ball is seen (unsure); sometimes the smear hides even the ball (no_ball)
    assert reasons.count("unsure") >= len(reasons) - 2, reasons
    assert set(reasons) <= {"unsure", "no_ball"}


@settings(max_examples=25, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(number=st.integers(1, 90), seed=st.integers(0, 2**32 - 1))
def test_no_rendered_ball_is_ever_read_as_another(number: int, seed: int) -> None:
    reading = _READER.read(render_ball(number, np.random.default_rng(seed), HELD_OUT))
    assert reading.number in (None, number)


_READER = BallReader()


def test_a_model_reads_through_its_views_and_keeps_their_number(tmp_path) -> None:
    """More views: each reading network also reads the label turned, scaled and shifted a
    little; the file keeps how many, and a clear print still reads as itself."""
    from bingo_hall.vision.model import VIEWS, load_model

    model = load_model()
    path = tmp_path / "three-views.npz"
    replace(model, views=3).save(path)
    assert load_model(path).views == 3 and model.views in range(1, len(VIEWS) + 1)
    three = BallReader(path)
    one = BallReader(path)
    one.model = replace(three.model, views=1)
    rng = np.random.default_rng(5)
    frames = [(n, render_ball(n, rng, HELD_OUT)) for n in (18, 47, 69)]
    for number, frame in frames:
        assert three.read(frame).guess == number == one.read(frame).guess
    # the views are read: the mixture's confidence moves with them
    confidences = [(three.read(f).confidence, one.read(f).confidence) for _, f in frames]
    assert any(a != b for a, b in confidences)


def test_a_labels_features_turn_with_it_and_tell_one_print_from_another(
    reader: BallReader,
) -> None:
    """`LabelModel.features`: the label as the reading networks see it once upright. A label
    turned round is read at the angle turned round, so its features stay; two pictures of one
    ball lie closer than pictures of a ball whose print looks like it (68 and 89, 18 and 13)."""
    from bingo_hall.vision.locate import find_ball
    from bingo_hall.vision.recognise import read_labels

    camera = SimulatedCamera(seed=21)

    def front_labels(number: int) -> list[np.ndarray]:
        camera.present(number)
        out = []
        for frame in camera.frames(2):
            ball = find_ball(frame)
            assert ball is not None
            out.append(read_labels(frame, ball, reader.model)[0])
        return out

    for number, lookalike in ((68, 89), (18, 13)):
        first, second = front_labels(number)
        (other, _) = front_labels(lookalike)
        features = reader.model.features([first, second, other, np.rot90(first, 2).copy()])
        assert features.shape[0] == 4
        assert np.allclose(np.linalg.norm(features, axis=1), 1.0, atol=1e-5)
        assert features[0] @ features[3] > 0.95  # the same label, upside down
        assert features[0] @ features[1] > features[0] @ features[2]
