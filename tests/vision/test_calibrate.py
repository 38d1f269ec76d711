"""The calibration: its readings are the reader's, and each threshold lies above every wrong
reading of its kind."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.vision.calibrate import (
    MARGIN,
    MAX_THRESHOLD,
    MIN_THRESHOLD,
    OBSCURED_SHIFTS,
    Calibration,
    choose_obscured_shift,
    damaged,
    destroyed,
    legibly_damaged,
    readings_of,
    threshold_above,
    thresholds_by_evidence,
    with_thresholds,
)
from bingo_hall.vision.label_data import render_bursts
from bingo_hall.vision.model import Evidence, LabelModel
from bingo_hall.vision.recognise import LABELS_PER_FRAME, BallReader, evidence_from_labels
from bingo_hall.vision.styles import TRAINING


def test_the_calibration_reads_as_the_reader_decides() -> None:
    """The threshold is chosen on `Calibration.readings`; it is only right if those are the
    readings the hub's reader gives the same labels, for one frame and for a burst."""
    bursts = render_bursts((20261125, 8, 3, TRAINING))
    reader = BallReader()
    model = reader.model
    readings = Calibration(model, bursts).readings(model)
    assert len(readings) == 2 * len(bursts)
    for b, (truth, _, frames) in enumerate(bursts):
        evidence = [evidence_from_labels(model, labels[:LABELS_PER_FRAME]) for labels in frames]
        for row, used in ((readings[b], evidence[:1]), (readings[len(bursts) + b], evidence)):
            decided = reader.decide(used)
            assert row[0] == truth
            assert row[2] == decided.guess
            assert math.isclose(row[1], decided.confidence, rel_tol=1e-6)  # batches of labels
            if decided.guess is not None:
                assert row[3] == max(e.evidence_for(decided.guess - 1) for e in used)
    assert {row[3] for row in readings} == set(Evidence)


def _with_obscured_output(model: LabelModel, shift: float) -> LabelModel:
    """The model's reading networks given a 22nd output, "obscured", of random weights."""
    rng = np.random.default_rng(4)
    readers = []
    for weights in model.readers:
        extended = dict(weights)
        row = rng.normal(0, 0.05, (1, weights["out.weight"].shape[1])).astype(np.float32)
        extended["out.weight"] = np.concatenate([weights["out.weight"], row])
        extended["out.bias"] = np.concatenate([weights["out.bias"], np.float32([-4.0])])
        readers.append(extended)
    return replace(model, readers=tuple(readers), obscured_shift=shift)


def test_the_obscured_output_and_its_shift_read_as_the_reader_decides(tmp_path: Path) -> None:
    bursts = render_bursts((20261127, 6, 2, TRAINING))
    model = _with_obscured_output(BallReader().model, -2.0).as_saved()
    model.save(tmp_path / "obscured.npz")
    reader = BallReader(tmp_path / "obscured.npz")
    readings = Calibration(model, bursts).readings(model)
    for b, (_, _, frames) in enumerate(bursts):
        used = [evidence_from_labels(model, labels[:LABELS_PER_FRAME]) for labels in frames[:1]]
        decided = reader.decide(used)
        assert readings[b][2] == decided.guess
        assert math.isclose(readings[b][1], decided.confidence, rel_tol=1e-6)


def test_the_obscured_shift_chosen_accepts_the_most_right_readings() -> None:
    """Every shift tried is counted with thresholds chosen anew above every wrong reading; the
    one chosen accepts the most, and its thresholds lie above its own wrong readings."""
    bursts = render_bursts((20261128, 30, 2, TRAINING))
    model = _with_obscured_output(BallReader().model, 0.0)
    sets = [Calibration(model, bursts), Calibration(model, damaged(bursts, 3))]
    chosen, counts = choose_obscured_shift(model, sets, by_evidence=True)
    assert set(counts) == set(OBSCURED_SHIFTS)
    assert chosen.obscured_shift in OBSCURED_SHIFTS
    assert counts[chosen.obscured_shift] == max(counts.values())
    assert counts[chosen.obscured_shift] > counts[0.0]  # the networks' own odds doubt too much
    readings = readings_of(sets, chosen)
    chosen = with_thresholds(chosen, readings, by_evidence=True)
    for truth, confidence, guess, kind in readings:
        if guess is not None and guess != truth:
            assert confidence < chosen.threshold_for(kind)


confidence = st.floats(0.0, 1 - 1e-7, allow_nan=False)
rows = st.lists(
    st.tuples(
        st.integers(1, 90),
        confidence,
        st.one_of(st.none(), st.integers(1, 90)),
        st.sampled_from(Evidence),
    ),
    min_size=1,
    max_size=40,
)


def assert_above_with_margin(threshold: float, worst: float) -> None:
    log_odds = math.log(threshold / (1 - threshold))
    assert threshold > worst
    assert log_odds >= math.log(max(worst, 1e-9) / (1 - worst)) + MARGIN - 1e-9


@given(rows)
def test_the_threshold_lies_above_every_wrong_reading_with_its_margin(rows: list) -> None:
    threshold, wrong = threshold_above(rows)
    assert MIN_THRESHOLD <= threshold < 1.0
    assert wrong == sorted((c for t, c, g, _ in rows if g is not None and g != t), reverse=True)
    for worst in wrong[:1]:
        assert_above_with_margin(threshold, worst)


@given(rows, st.floats(0.01, 10.0), st.floats(0.01, 10.0))
def test_a_wider_margin_never_lowers_a_threshold(rows: list, a: float, b: float) -> None:
    narrow, wide = thresholds_by_evidence(rows, min(a, b)), thresholds_by_evidence(rows, max(a, b))
    assert all(narrow[kind] <= wide[kind] for kind in Evidence)
    for kind in Evidence:
        wrong = [c for t, c, g, k in rows if k == kind and g is not None and g != t]
        assert all(c < narrow[kind] for c in wrong if c < MAX_THRESHOLD)


@given(rows)
def test_each_threshold_answers_for_the_wrong_readings_of_its_evidence(rows: list) -> None:
    chosen = thresholds_by_evidence(rows)
    assert set(chosen) == set(Evidence)
    assert all(MIN_THRESHOLD <= threshold < 1.0 for threshold in chosen.values())
    for t, c, g, kind in rows:
        if g is not None and g != t:
            assert_above_with_margin(chosen[kind], c)


def test_no_wrong_reading_leaves_the_floor() -> None:
    one, found = Evidence.ONE_LABEL, Evidence.TWO_FOUND
    right = [(n, 0.9999, n, one) for n in range(1, 91)] + [(5, 0.0, None, one)]
    assert threshold_above(right) == (MIN_THRESHOLD, [])
    assert np.isclose(threshold_above([(5, 0.5, 6, one)])[0], 100 / 101)
    # a confident wrong reading on one label raises the one-label threshold alone
    assert thresholds_by_evidence([*right, (5, 0.9999, 6, one)]) == {
        one: pytest.approx(999_900 / 999_901, abs=1e-12),
        found: MIN_THRESHOLD,
        Evidence.TWO_AGREEING: MIN_THRESHOLD,
    }
    assert thresholds_by_evidence([*right, (5, 0.9999, 6, found)])[one] == MIN_THRESHOLD


def test_damaged_bursts_keep_their_balls_and_repeat_with_their_seed() -> None:
    bursts = render_bursts((7, 4, 3, TRAINING))
    hurt = damaged(bursts, 11)
    assert [(n, f) for n, f, _ in hurt] == [(n, f) for n, f, _ in bursts]
    changed = 0
    for (_, _, frames), (_, _, hurt_frames) in zip(bursts, hurt, strict=True):
        assert [len(labels) for labels in frames] == [len(labels) for labels in hurt_frames]
        for labels, hurt_labels in zip(frames, hurt_frames, strict=True):
            for label, hurt_label in zip(labels, hurt_labels, strict=True):
                assert hurt_label.shape == label.shape and hurt_label.dtype == np.uint8
                changed += not np.array_equal(label, hurt_label)
    assert changed > 0
    again = damaged(bursts, 11)
    for (_, _, a), (_, _, b) in zip(hurt, again, strict=True):
        assert all(
            np.array_equal(x, y)
            for la, lb in zip(a, b, strict=True)
            for x, y in zip(la, lb, strict=True)
        )


def test_a_burst_keeps_one_damage_on_all_its_frames() -> None:
    """A highlight stays where it is while the ball settles: the same label in three frames
    is damaged alike."""
    label = render_bursts((3, 1, 1, TRAINING))[0][2][0][0]
    (_, _, frames), *_ = damaged([(5, 0, [[label], [label], [label]])], 2)
    assert all(np.array_equal(frames[0][0], frame[0]) for frame in frames[1:])


def test_damage_that_destroyed_a_part_of_a_print_can_be_left_out() -> None:
    """`legible` leaves out exactly the damaged bursts whose damage destroyed more than that
    share of a part of a print; 1.0 keeps them all, as `damaged` gives them."""
    bursts = render_bursts((7, 12, 2, TRAINING))
    hurt = damaged(bursts, 5)
    shares = destroyed(bursts, hurt)
    assert shares.shape == (len(bursts),) and np.all((shares >= 0) & (shares <= 1))
    assert destroyed(bursts, bursts).max() == 0.0  # nothing done, nothing destroyed
    limit = float(np.median(shares))
    kept = legibly_damaged(bursts, 5, limit)
    expected = [b for b, share in zip(hurt, shares, strict=True) if share <= limit]
    assert 0 < len(kept) < len(bursts)
    assert [(n, f) for n, f, _ in kept] == [(n, f) for n, f, _ in expected]
    for (_, _, a), (_, _, b) in zip(kept, expected, strict=True):
        assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, b, strict=True) if x)
    assert len(legibly_damaged(bursts, 5)) == len(bursts)
