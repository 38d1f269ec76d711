"""Strokes of ink on a flattened label, and which of them is the bar under the number.

The bar printed under the number is a long, straight, solid stroke that underlines the
whole number; the digits are all on one side of it. It gives the label's orientation, so
it tells 6 from 9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MIN_BAR_ASPECT = 3.5
MIN_BAR_FILL = 0.55
BAR_OVER_NUMBER = 0.6  # the bar is at least this long, of the other ink's width along it


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
    long as the other ink is wide along it. Of those, the longest (a 1 can pass the tests,
    but it is shorter than the bar); all the other ink must be on one side of it.
    """
    best = None
    for i, s in enumerate(found):
        if s.length / max(s.width, 1.0) < MIN_BAR_ASPECT or s.fill < MIN_BAR_FILL:
            continue
        along = [o.centre[0] * s.direction[0] + o.centre[1] * s.direction[1] for o in found]
        spans = [
            a + sign * _half_extent(o, s.direction)
            for j, (o, a) in enumerate(zip(found, along, strict=True))
            if j != i
            for sign in (-1, 1)
        ]
        if not spans or s.length < BAR_OVER_NUMBER * (max(spans) - min(spans)):
            continue
        if best is None or s.length > found[best].length:
            best = i
    if best is None:
        return None
    bar = found[best]
    others = [o for j, o in enumerate(found) if j != best]
    nx, ny = -bar.direction[1], bar.direction[0]
    sides = [
        (bar.centre[0] - o.centre[0]) * nx + (bar.centre[1] - o.centre[1]) * ny for o in others
    ]
    weight = sum(o.area for o in others)
    side = sum(d * o.area for d, o in zip(sides, others, strict=True)) / weight
    if abs(side) < 0.2 * bar.length:
        return None  # the other ink is not on one side of the bar
    if any(d * side <= 0 for d, o in zip(sides, others, strict=True) if o.area > 0.05 * weight):
        return None
    sign = 1.0 if side > 0 else -1.0
    return best, (sign * nx, sign * ny)


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
