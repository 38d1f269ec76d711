"""The letterform variation the reading networks are fitted with."""

from __future__ import annotations

import numpy as np

from bingo_hall.vision.letterforms import MAX_BEND, vary_letterforms


def prints(count: int) -> np.ndarray:
    """Upright 48×48 prints: a dark vertical stroke (a 1) over a level bar, on white."""
    images = np.full((count, 48, 48), 230, np.uint8)
    images[:, 8:30, 22:26] = 20
    images[:, 36:40, 10:38] = 20
    return images


def test_no_share_leaves_every_print_as_it_was_and_a_full_share_changes_each() -> None:
    images = prints(20)
    assert np.array_equal(vary_letterforms(images, np.random.default_rng(1), 0.0), images)
    varied = vary_letterforms(images, np.random.default_rng(1), 1.0)
    assert varied.shape == images.shape and varied.dtype == np.uint8
    assert all(not np.array_equal(v, i) for v, i in zip(varied, images, strict=True))


def test_the_share_is_about_the_share_asked_for() -> None:
    varied = vary_letterforms(prints(400), np.random.default_rng(2), 0.5)
    changed = sum(not np.array_equal(v, prints(1)[0]) for v in varied)
    assert 160 <= changed <= 240


def test_the_bar_stays_level_and_the_stroke_is_slanted() -> None:
    """A slant moves columns, never rows: the bar's ink stays in its rows, within the bend."""
    images = prints(200)
    varied = vary_letterforms(images, np.random.default_rng(3), 1.0)
    bar_rows = np.flatnonzero((images[0] < 128).sum(axis=1) > 20)
    slants = []
    for image in varied:
        rows = np.flatnonzero((image < 128).sum(axis=1) > 20)
        assert rows.min() >= bar_rows.min() - MAX_BEND - 1
        assert rows.max() <= bar_rows.max() + MAX_BEND + 1
        stroke = image[8:30] < 128
        top = np.flatnonzero(stroke[1]).mean()
        bottom = np.flatnonzero(stroke[-2]).mean()
        slants.append(top - bottom)
    assert max(slants) > 3 and min(slants) < -3  # slanted both ways, by several pixels
