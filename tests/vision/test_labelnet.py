"""The label networks at run time: numpy computes what the trainer's PyTorch modules compute,
and a label is turned upright along the direction its text runs."""

from __future__ import annotations

import math

import cv2
import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.fit_nets import export, network, run
from bingo_hall.vision.labelnet import (
    ORIENTATION,
    READ_SIDE,
    READING,
    WINDOW,
    forward,
    standardise,
    text_angles,
    upright,
)


def test_numpy_forward_is_the_trained_module() -> None:
    torch.manual_seed(3)
    rng = np.random.default_rng(4)
    for arch in (ORIENTATION, READING, WINDOW):
        module = network(arch).eval()
        weights = export(module, arch)
        x = rng.normal(size=(5, 1, arch.side, arch.side)).astype(np.float32)
        with torch.no_grad():
            expected = run(module, torch.from_numpy(x)).numpy()
        got = forward(weights, arch, x)
        assert got.shape == (5, arch.outputs)
        assert np.allclose(got, expected, atol=1e-4)


def _arrow(angle: float) -> np.ndarray:
    """A white 64×64 patch with a dark stroke from the centre along `angle` only."""
    patch = np.full((64, 64), 230, np.uint8)
    c = 31.5
    end = (c + 22 * math.cos(angle), c + 22 * math.sin(angle))
    cv2.line(patch, (round(c), round(c)), (round(end[0]), round(end[1])), 20, 3)
    return patch


@settings(max_examples=60)
@given(angle=st.floats(-math.pi, math.pi))
def test_upright_turns_the_text_direction_onto_the_x_axis(angle: float) -> None:
    flat = upright(_arrow(angle), angle, scale=1.0)
    assert flat.shape == (READ_SIDE, READ_SIDE)
    ys, xs = np.nonzero(flat < 120)
    centre = (READ_SIDE - 1) / 2
    assert xs.mean() > centre + 8  # the stroke now runs to the right of the centre
    assert abs(ys.mean() - centre) < 2.5


def test_standardise_removes_exposure() -> None:
    rng = np.random.default_rng(5)
    image = rng.integers(60, 160, (3, 48, 48)).astype(np.uint8)
    brighter = np.clip(image.astype(int) + 60, 0, 255).astype(np.uint8)
    a, b = standardise(image), standardise(brighter)
    assert a.shape == (3, 1, 48, 48)
    assert np.allclose(a, b, atol=1e-5)
    assert np.allclose(a.mean(axis=(1, 2, 3)), 0, atol=1e-5)


def test_text_angles_reads_the_orientation_network_as_an_angle() -> None:
    """The output (cos, sin) is turned into the angle: with weights that answer a fixed
    vector whatever the input, every label gets that vector's angle."""
    weights = {k: np.zeros(s, np.float32) for k, s in ORIENTATION.shapes().items()}
    weights["out.bias"] = np.array([math.cos(2.0), math.sin(2.0)], np.float32)
    patches = [np.full((64, 64), v, np.uint8) for v in (40, 200)]
    assert np.allclose(text_angles(weights, patches), 2.0)
