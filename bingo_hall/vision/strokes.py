"""Strokes of ink on a flattened label, and which of them are the print: the bar under the
number and the digits over it (`print_points`), so that the flattening can centre and size
the label on its print rather than on stray ink (the ring's rim, a glare's edge).

The bar printed under the number is a long, straight, solid stroke that underlines the
whole number; the digits are all on one side of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MIN_BAR_ASPECT = 3.5
MIN_BAR_FILL = 0.45
BAR_OVER_NUMBER = 0.6  # the bar is at least this long, of the digits' width along it
DIGIT_SIDE_SHARE = 0.85  # of the ink near the bar, at least this much is on the digits' side


@dataclass(frozen=True)
class Stroke:
    area: int
    centre: tuple[float, float]
    length: float
    width: float
    direction: tuple[float, float]  # unit vector along the length

    @property
    def fill(self) -> float:
        return self.area / max(1.0, self.length * self.width)


def _shape(points: np.ndarray, area: int) -> Stroke:
    (cx, cy), (w, h), angle = cv2.minAreaRect(points)
    w, h = w + 1, h + 1  # pixel extents, not centre-to-centre
    theta = math.radians(angle)
    direction = (
        (math.cos(theta), math.sin(theta)) if w >= h else (-math.sin(theta), math.cos(theta))
    )
    return Stroke(area, (cx, cy), max(w, h), min(w, h), direction)


def _collinear(a: Stroke, b: Stroke) -> bool:
    """Two pieces of one straight stroke (a bar broken by a glare)?"""
    if min(a.length / max(a.width, 1.0), b.length / max(b.width, 1.0)) < 2.0:
        return False
    if abs(a.direction[0] * b.direction[0] + a.direction[1] * b.direction[1]) < 0.97:
        return False
    dx, dy = b.centre[0] - a.centre[0], b.centre[1] - a.centre[1]
    across = abs(-a.direction[1] * dx + a.direction[0] * dy)
    along = abs(a.direction[0] * dx + a.direction[1] * dy)
    return across < max(a.width, b.width) and along - (a.length + b.length) / 2 < max(
        a.length, b.length
    )


def strokes(ink: np.ndarray) -> tuple[list[Stroke], np.ndarray, list[int]]:
    """The strokes of an ink mask (connected pieces, collinear pieces of a straight stroke
    joined), their label image and ids; specks, and whatever lies far from the middle (bits
    of the ring at the edge of the patch), are dropped."""
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if count < 2:
        return [], labels, []
    areas = stats[1:, cv2.CC_STAT_AREA]
    least = max(6, 0.08 * float(areas.max()))
    middle, half = (ink.shape[0] - 1) / 2, ink.shape[0] / 2
    points: dict[int, np.ndarray] = {}
    for i in range(1, count):
        cx, cy = centroids[i]
        if (
            stats[i, cv2.CC_STAT_AREA] >= least
            and math.hypot(cx - middle, cy - middle) <= 0.8 * half
        ):
            ys, xs = np.nonzero(labels == i)
            points[i] = np.stack([xs, ys], axis=1).astype(np.float32)
    shapes = {i: _shape(p, len(p)) for i, p in points.items()}
    joined = True
    while joined:
        joined = False
        for a in shapes:
            for b in shapes:
                if a < b and _collinear(shapes[a], shapes[b]):
                    labels[labels == b] = a
                    points[a] = np.concatenate([points[a], points.pop(b)])
                    shapes[a] = _shape(points[a], len(points[a]))
                    del shapes[b]
                    joined = True
                    break
            if joined:
                break
    ids = sorted(shapes)
    return [shapes[i] for i in ids], labels, ids


def find_bar(found: list[Stroke]) -> tuple[int, tuple[float, float]] | None:
    """Index of the bar among the strokes and the 'down' direction (from the digits to it).

    The bar is a long, straight, solid stroke that underlines the number: at least about as
    long as the digits over it are wide along it. Of those, the longest (a 1 can pass the
    tests, but it is shorter than the bar). The digits are the ink within the bar's reach on
    one side of it; specks on the other side (bits of the ring's rim, glare) may remain, as
    long as they are a small part of the ink near the bar.
    """
    best = None
    for i, s in enumerate(found):
        if s.length / max(s.width, 1.0) < MIN_BAR_ASPECT or s.fill < MIN_BAR_FILL:
            continue
        side = _digit_side(found, i)
        if side is None:
            continue
        if best is None or s.length > best[0].length:
            best = (s, i, side)
    if best is None:
        return None
    bar, index, sign = best
    nx, ny = -bar.direction[1], bar.direction[0]
    return index, (sign * nx, sign * ny)


def _digit_side(found: list[Stroke], index: int) -> float | None:
    """Which side of the candidate bar `found[index]` the digits are on (+1 or -1 along its
    normal), or None when the ink near it does not stand on one side of it, or is wider
    along it than the bar allows."""
    bar = found[index]
    dx, dy = bar.direction
    nx, ny = -dy, dx
    near: list[tuple[Stroke, float, float]] = []
    for j, o in enumerate(found):
        if j == index:
            continue
        ox, oy = bar.centre[0] - o.centre[0], bar.centre[1] - o.centre[1]
        across, along = ox * nx + oy * ny, -(ox * dx + oy * dy)
        if abs(across) < 1.3 * bar.length and abs(along) < 0.9 * bar.length:
            near.append((o, across, along))
    weight = sum(o.area for o, _, _ in near)
    if weight == 0:
        return None
    plus = sum(o.area for o, across, _ in near if across > 0)
    sign = 1.0 if plus >= weight - plus else -1.0
    digits = [(o, across, along) for o, across, along in near if across * sign > 0]
    digit_weight = sum(o.area for o, _, _ in digits)
    if digit_weight < DIGIT_SIDE_SHARE * weight:
        return None  # ink on both sides: not the bar under a number
    middle = sum(across * o.area for o, across, _ in digits) / digit_weight
    if abs(middle) < 0.2 * bar.length:
        return None  # the digits' ink is not over the bar
    big = [(o, along) for o, _, along in digits if o.area > 0.05 * digit_weight]
    spans = [
        along + sign_ * _half_extent(o, bar.direction) for o, along in big for sign_ in (-1, 1)
    ]
    if bar.length < BAR_OVER_NUMBER * (max(spans) - min(spans)):
        return None
    return sign


def _half_extent(stroke: Stroke, direction: tuple[float, float]) -> float:
    """Half the stroke's extent along `direction`."""
    cos = abs(stroke.direction[0] * direction[0] + stroke.direction[1] * direction[1])
    sin = math.sqrt(max(0.0, 1 - cos * cos))
    return (stroke.length * cos + stroke.width * sin) / 2


def digit_strokes(
    found: list[Stroke], ids: list[int], bar: tuple[int, tuple[float, float]]
) -> list[int]:
    """Ids of the strokes on the digits' side of the bar, within its reach (the digits stand
    over the bar and within its length; what is beyond, the ring's edge say, is not print)."""
    index, (dx, dy) = bar
    b = found[index]
    keep = []
    for k, s in enumerate(found):
        ox, oy = s.centre[0] - b.centre[0], s.centre[1] - b.centre[1]
        above = -(ox * dx + oy * dy)
        along = abs(ox * dy - oy * dx)
        if k != index and 0 < above < 1.3 * b.length and along < 0.9 * b.length:
            keep.append(ids[k])
    return keep


def print_points(ink: np.ndarray) -> np.ndarray | None:
    """Pixel coordinates (x, y) of the print: the bar and the digits over it; when no bar is
    found, every stroke near the middle."""
    found, labels, ids = strokes(ink)
    if not found:
        return None
    bar = find_bar(found)
    keep = ids if bar is None else [ids[bar[0]], *digit_strokes(found, ids, bar)]
    ys, xs = np.nonzero(np.isin(labels, keep))
    return np.stack([xs, ys], axis=1).astype(np.float32)
