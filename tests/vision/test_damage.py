"""The damage the networks are taught with: ink spread bolder or lighter than rendered."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.damage import ink_weight


def _print(stroke: int) -> np.ndarray:
    """A white label with a dark bar and a dark '1' on it, slightly blurred as a camera sees."""
    image = np.full((48, 48), 225.0, np.float32)
    image[34 : 34 + stroke, 8:40] = 25.0
    image[8:30, 22 : 22 + stroke] = 25.0
    return cv2.GaussianBlur(image, (0, 0), 0.8)


@settings(max_examples=60, deadline=None)
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
