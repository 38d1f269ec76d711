"""The damage the networks are taught with: ink spread bolder or lighter than rendered; how
much of a print a damage destroyed."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.damage import damage, destroyed_share, ink_weight, row_percentiles
from bingo_hall.vision.fit_nets import (
    DESTROYED_FROM,
    DESTROYED_FULLY,
    digit_target_doubt,
    obscured_target,
)


def _print(stroke: int) -> np.ndarray:
    """A white label with a dark bar and a dark '1' on it, slightly blurred as a camera sees."""
    image = np.full((48, 48), 225.0, np.float32)
    image[34 : 34 + stroke, 8:40] = 25.0
    image[8:30, 22 : 22 + stroke] = 25.0
    return cv2.GaussianBlur(image, (0, 0), 0.8)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), stroke=st.integers(2, 6))
def test_ink_spreads_one_way_by_less_than_a_pixel(seed: int, stroke: int) -> None:
    image = _print(stroke)
    out = ink_weight(image, np.random.default_rng(seed))
    kernel = np.ones((3, 3), np.uint8)
    low, high = cv2.erode(image, kernel), cv2.dilate(image, kernel)
    assert np.all(out >= low - 1e-3) and np.all(out <= high + 1e-3)  # within a pixel's reach
    darker, lighter = np.any(out < image - 1e-3), np.any(out > image + 1e-3)
    assert darker != lighter  # the print grows bolder or lighter, never both at once
    ink_before, ink_after = (image < 125).sum(), (out < 125).sum()
    assert ink_after >= ink_before if darker else ink_after <= ink_before


def test_ink_spreads_both_ways_across_labels() -> None:
    image = _print(3)
    inks = [(ink_weight(image, np.random.default_rng(s)) < 125).sum() for s in range(40)]
    before = (image < 125).sum()
    assert min(inks) < before < max(inks)


def _two_digits() -> np.ndarray:
    """A white label with a bar and two dark strokes over it, one on each side."""
    image = np.full((48, 48), 225.0, np.float32)
    image[38:41, 6:42] = 25.0  # the bar
    image[6:32, 12:16] = 25.0  # the tens
    image[6:32, 32:36] = 25.0  # the units
    return cv2.GaussianBlur(image, (0, 0), 0.8)[None]


def test_a_print_washed_out_over_one_digit_is_destroyed_though_the_rest_is_clear() -> None:
    label = _two_digits()
    washed = label.copy()
    washed[0, :34, 26:] = 255.0  # a highlight over the units digit alone
    faded = 225.0 - (225.0 - label) * 0.6  # the whole print paler, every stroke still there
    blank = np.full_like(label, 230.0)
    shares = destroyed_share(
        np.concatenate([label] * 4), np.concatenate([label, washed, faded, blank])
    )
    assert shares[0] == 0.0  # nothing done, nothing destroyed
    assert shares[1] > 0.9  # the units digit is gone, whatever the bar and the tens keep
    assert shares[2] < 0.1  # faded is not destroyed
    assert shares[3] == 1.0  # a print wiped off the label entirely


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_share_destroyed_is_a_share(seed: int) -> None:
    before = np.repeat(_two_digits(), 8, axis=0)
    after = damage(before, np.random.default_rng(seed))
    shares = destroyed_share(before, after)
    assert shares.shape == (8,) and np.all((shares >= 0) & (shares <= 1))


def test_a_destroyed_print_is_taught_as_doubtful_in_proportion() -> None:
    destroyed = np.array(
        [0.0, DESTROYED_FROM, (DESTROYED_FROM + DESTROYED_FULLY) / 2, DESTROYED_FULLY, 1.0]
    )
    assert np.allclose(digit_target_doubt(destroyed, 0.8), [0, 0, 0.4, 0.8, 0.8])
    assert np.all(digit_target_doubt(destroyed, 0.0) == 0)  # the default: as before


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 6), st.integers(1, 50)),
    percent=st.floats(0, 100),
)
def test_row_percentiles_are_numpys(seed: int, shape: tuple[int, int], percent: float) -> None:
    rows = np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)
    (got,) = row_percentiles(rows, (percent,))
    assert np.allclose(got, np.percentile(rows.astype(np.float64), percent, axis=1))


def test_the_share_destroyed_is_measured_image_by_image() -> None:
    """Measured in chunks or one at a time, each image's share is its own."""
    before = np.repeat(_two_digits(), 2500, axis=0)
    after = damage(before, np.random.default_rng(3))
    together = destroyed_share(before, after)
    alone = [destroyed_share(before[i : i + 1], after[i : i + 1])[0] for i in (0, 1023, 2499)]
    assert np.allclose(together[[0, 1023, 2499]], alone)
    assert destroyed_share(before[:0], after[:0]).shape == (0,)


@given(
    highlights=st.floats(0, 1),
    damaged=st.floats(0, 1),
    start=st.floats(0, 0.9),
    width=st.floats(0.05, 0.5),
)
def test_the_obscured_truth_rises_with_the_print_lost(
    highlights: float, damaged: float, start: float, width: float
) -> None:
    """Whole (0) up to `start` of a part lost by either cause, obscured (1) from `full` on,
    and never less for more lost."""
    full = min(1.0, start + width)
    lost = max(highlights, damaged)
    target = obscured_target(np.array([highlights]), np.array([damaged]), start, full)[0]
    assert 0.0 <= target <= 1.0
    if lost <= start:
        assert target == 0.0
    if lost >= full:
        assert target == 1.0
    more = obscured_target(np.array([min(1.0, lost + 0.05)]), np.array([0.0]), start, full)[0]
    assert more >= target


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1))
def test_damage_without_highlights_never_lights_the_label(seed: int) -> None:
    """An exit lit by a diffuse light box: the damage still spreads, blurs, fades and darkens
    the print, but nothing on the label is brighter than its paper."""
    labels = np.repeat(_print(4)[None], 200, axis=0).astype(np.uint8)
    paper = float(labels[0].max())

    def brightest(images: np.ndarray) -> np.ndarray:  # each label's brightest area, noise aside
        return np.array([cv2.GaussianBlur(i.astype(np.float32), (0, 0), 3).max() for i in images])

    without = damage(labels, np.random.default_rng(seed), highlights=False)
    with_them = damage(labels, np.random.default_rng(seed))
    assert brightest(without).max() <= paper + 8  # sensor noise, blurred
    assert (brightest(with_them) > paper + 20).sum() >= 20  # 45 % of labels get a highlight
    assert not np.array_equal(without, labels)  # the rest of the damage is still done
