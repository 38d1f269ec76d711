"""The reader's helpers computed in one go (every stroke's median depth, the tangent plane's
axes) give exactly what numpy gives one at a time: the readings must not move with speed."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.ink import _median_by_label
from bingo_hall.vision.prints import tangents


@settings(max_examples=200)
@given(st.integers(0, 2**32 - 1), st.floats(0.05, 0.9), st.integers(1, 24))
def test_each_strokes_median_depth_is_numpys(seed, share, steps):
    rng = np.random.default_rng(seed)
    ink = ((rng.random((40, 40)) < share) * 255).astype(np.uint8)
    # depths on a grid of `steps` levels: ties and medians of two middle values, as a
    # distance transform gives them
    depth = (np.floor(rng.random((40, 40)) * steps) / steps * 6).astype(np.float32)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    got = _median_by_label(depth, labels, stats[:, cv2.CC_STAT_AREA])
    want = [np.median(depth[labels == i]) for i in range(count)]
    assert got.dtype == np.float32
    assert [float(v) for v in got] == [float(v) for v in want]


@settings(max_examples=200)
@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(0.05, 1))
def test_the_tangent_planes_second_axis_is_numpys_cross_product(x, y, z):
    normal = np.array([x, y, z]) / np.linalg.norm([x, y, z])
    e1, e2 = tangents(normal)
    assert np.array_equal(e2, np.cross(normal, e1))
    assert abs(float(e1 @ normal)) < 1e-9 and abs(float(e2 @ e1)) < 1e-9
