"""Placing the window on the print: what the renderer knows of a window's error, moving a
window by it, and the window network's part in the reader's framing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bingo_hall.vision import prints
from bingo_hall.vision.framing import framed_labels
from bingo_hall.vision.label_data import window_error
from bingo_hall.vision.labelnet import WINDOW
from bingo_hall.vision.locate import find_ball
from bingo_hall.vision.render import draw_scene, sample_scene
from bingo_hall.vision.styles import TRAINING


def _ball(seed: int):
    rng = np.random.default_rng(seed)
    scene = sample_scene(int(rng.integers(1, 91)), rng, TRAINING)
    frame = draw_scene(scene, rng)
    ball = find_ball(frame)
    assert ball is not None
    return scene, prints.ball_crop(frame, ball)


def _constant_window(x: float, y: float, log_size: float) -> dict[str, np.ndarray]:
    """Window network weights that say the same of every label."""
    weights = {k: np.zeros(s, np.float32) for k, s in WINDOW.shapes().items()}
    weights["out.bias"] = np.array([x, y, log_size], np.float32)
    return weights


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_rules_window_is_on_the_print_and_moving_it_moves_the_error(seed: int) -> None:
    """A clean training ball's most frontal window is centred on its print and filled by it;
    moved by (x, y) and scaled by e**s, the error is what the geometry says (to first order:
    the tangent plane turns as the window moves round the ball), and moving it back by its
    own error puts it on the print: the truth the window network learns and the move the
    reader makes agree."""
    scene, crop = _ball(seed)
    label = prints.find_labels(crop, 1)[0]
    x0, y0, s0 = window_error(scene, label.normal, label.span)
    assert math.hypot(x0, y0) < 0.1 and abs(s0) < 0.15
    for x, y, s in [(0.3, 0.0, 0.0), (0.0, -0.25, 0.2), (-0.2, 0.15, -0.3)]:
        moved = prints.reframe(crop, label, x, y, s)
        assert moved is not None
        x1, y1, s1 = window_error(scene, moved.normal, moved.span)
        scale = math.exp(s)
        assert x1 == pytest.approx((x0 - x) / scale, abs=0.06)
        assert y1 == pytest.approx((y0 - y) / scale, abs=0.06)
        assert s1 == pytest.approx(s0 - s, abs=0.06)
        # moved back by its own error, the window is on the print again
        again = prints.reframe(crop, moved, x1, y1, s1)
        assert again is not None
        x2, y2, s2 = window_error(scene, again.normal, again.span)
        assert math.hypot(x2, y2) < 0.04 and abs(s2) < 0.04


def test_the_window_network_moves_only_windows_it_sees_off_the_print() -> None:
    _, crop = _ball(11)  # a ball with two labels found
    ruled = prints.find_labels(crop, 2)
    assert ruled
    # within the rules' own tolerance: every label as the rules left it
    kept = framed_labels(crop, 2, _constant_window(0.05, 0.0, 0.05))
    assert all(np.array_equal(a.patch, b.patch) for a, b in zip(kept, ruled, strict=True))
    # beyond it: the most frontal label flattened again where the network says; the second,
    # oblique one as the rules left it
    assert len(ruled) == 2
    first, second = framed_labels(crop, 2, _constant_window(0.2, -0.1, 0.25))
    expected = prints.reframe(crop, ruled[0], 0.2, -0.1, 0.25)
    assert expected is not None and np.array_equal(first.patch, expected.patch)
    assert first.span == pytest.approx(ruled[0].span * math.exp(0.25), rel=1e-5)
    assert np.array_equal(second.patch, ruled[1].patch)
    # no network: the rules alone
    alone = framed_labels(crop, 2, None)
    assert all(np.array_equal(a.patch, b.patch) for a, b in zip(alone, ruled, strict=True))


def test_a_window_moved_too_far_round_the_ball_keeps_the_rules_label() -> None:
    _, crop = _ball(6)
    ruled = prints.find_labels(crop, 1)
    assert prints.reframe(crop, ruled[0], 40.0, 0.0, 0.0) is None  # beyond the ball's edge
    far = framed_labels(crop, 1, _constant_window(40.0, 0.0, 0.0))
    assert len(far) == 1 and np.array_equal(far[0].patch, ruled[0].patch)
