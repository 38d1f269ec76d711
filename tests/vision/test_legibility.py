"""How much of each digit a damage leaves legible, and the targets the reading networks are
taught with it."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.damage import damage, damage_with_contrast, paper_round
from bingo_hall.vision.fit_nets import digit_target
from bingo_hall.vision.legibility import certainty, digit_legibility


def _print(text: str = "48") -> np.ndarray:
    """An upright label: two digits in dark ink on white paper, the bar under them."""
    image = np.full((48, 48), 225, np.uint8)
    cv2.putText(image, text, (7, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.95, 25, 3, cv2.LINE_AA)
    image[34:38, 7:41] = 25
    return cv2.GaussianBlur(image, (0, 0), 0.7)


def _contrast(image: np.ndarray) -> np.ndarray:
    clipped = np.clip(image.astype(np.float32), 0, 255)
    return np.maximum(paper_round(clipped) - clipped, 0.0)


def _glare(centre_x: float, strength: float) -> np.ndarray:
    ys, xs = np.mgrid[0:48, 0:48].astype(np.float32)
    return strength * np.exp(-((xs - centre_x) ** 2 + (ys - 18) ** 2) / (2 * 7.0**2))


def test_an_undamaged_print_is_wholly_legible() -> None:
    label = _print()
    assert np.allclose(digit_legibility(label[None], _contrast(label)[None]), 1.0)


def test_a_glare_washing_out_the_tens_leaves_the_units() -> None:
    label = _print()
    washed = label + _glare(13, 400)
    tens, units = digit_legibility(label[None], _contrast(washed)[None])[0]
    assert tens < 0.3 and units > 0.9


def test_a_glare_washing_out_the_units_leaves_the_tens() -> None:
    label = _print()
    washed = label + _glare(33, 400)
    tens, units = digit_legibility(label[None], _contrast(washed)[None])[0]
    assert units < 0.3 and tens > 0.9


def test_a_glare_too_weak_to_reach_white_takes_nothing() -> None:
    label = _print()
    washed = label + _glare(13, 25)  # the paper stays below white: no ink lost
    assert np.allclose(digit_legibility(label[None], _contrast(washed)[None]), 1.0, atol=0.02)


def test_a_label_faded_evenly_stays_legible() -> None:
    label = _print()
    faded = label.mean() + (label.astype(np.float32) - label.mean()) * 0.35
    assert digit_legibility(label[None], _contrast(faded)[None]).min() > 0.95


def test_a_blank_label_counts_as_legible() -> None:
    blank = np.full((1, 48, 48), 200, np.uint8)
    assert np.allclose(digit_legibility(blank, np.zeros((1, 48, 48))), 1.0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_contrast_comes_with_the_very_damage_the_networks_see(seed: int) -> None:
    labels = np.stack([_print("48"), _print("07"), _print("90")] * 4)
    alone = damage(labels, np.random.default_rng(seed))
    damaged, contrast = damage_with_contrast(labels, np.random.default_rng(seed))
    assert np.array_equal(alone, damaged)
    assert contrast.shape == labels.shape and contrast.min() >= 0


@settings(max_examples=60, deadline=None)
@given(
    legibility=st.lists(st.floats(0, 1), min_size=1, max_size=20),
    digits=st.lists(st.integers(0, 9), min_size=20, max_size=20),
)
def test_targets_spread_a_lost_digit_over_all_ten(
    legibility: list[float], digits: list[int]
) -> None:
    sure = certainty(np.array(legibility))
    assert np.all((sure >= 0) & (sure <= 1))
    chosen = np.array(digits[: len(sure)])
    target = digit_target(chosen, sure)
    assert np.allclose(target.sum(axis=1), 1.0, atol=1e-6)
    own = target[np.arange(len(chosen)), chosen]
    assert np.allclose(own, sure + (1 - sure) / 10, atol=1e-6)
    assert np.all(target.argmax(axis=1)[sure > 0] == chosen[sure > 0])


def test_certainty_grows_with_legibility() -> None:
    values = certainty(np.linspace(0, 1, 101))
    assert values[0] == 0 and values[-1] == 1 and np.all(np.diff(values) >= 0)
