"""From a flattened label to the images of its digits, upright and in reading order.

The bar printed under the number is the longest straight stroke on the label, longer than
any digit is tall; the digits are on one side of it. Turning the label so that the bar is
horizontal with the digits above it makes the number upright (and tells 6 from 9). The ink
above the bar then splits into one or two digits by columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from bingo_hall.vision.prints import PATCH, ink_mask, ink_ratio, paper_mask

DIGIT = 24  # side of a normalised digit image
MIN_BAR_ASPECT = 3.5
MIN_BAR_FILL = 0.55
MAX_OFF_CENTRE = 0.2  # of the bar's length, between the bar's middle and the number's
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


@dataclass(frozen=True)
class Number:
    """The digits of one label, left to right, each a DIGIT×DIGIT float32 image (ink = 1),
    and each digit's width over its height (a 1 is narrow)."""

    digits: tuple[np.ndarray, ...]
    aspects: tuple[float, ...]
    upright: np.ndarray  # the label turned upright (ink darkness, for inspection)
    span: tuple[float, float]  # left and right end of the number in `upright`


def darkness(patch: np.ndarray) -> np.ndarray:
    """Ink darkness in 0..1 relative to the paper round it (1: black ink on white)."""
    ratio = ink_ratio(patch).astype(np.float32) / 255
    return np.clip((0.92 - ratio) / 0.6, 0, 1)


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


def read_number(patch: np.ndarray) -> Number | None:
    """The digits of a flattened label (colour patch), or None when it cannot be read."""
    ink = ink_mask(patch)
    found, _, _ = strokes(ink)
    bar = find_bar(found)
    if bar is None:
        return None
    _, (dx, dy) = bar
    # turn the label so that 'down' points down, about the block's middle
    pts = np.array([s.centre for s in found], np.float32)
    centre = pts.mean(axis=0)
    phi = math.pi / 2 - math.atan2(dy, dx)
    c, s = math.cos(phi), math.sin(phi)
    middle = (PATCH - 1) / 2
    m = np.array(
        [
            [c, -s, middle - (c * centre[0] - s * centre[1])],
            [s, c, middle - (s * centre[0] + c * centre[1])],
        ],
        np.float32,
    )
    dark = cv2.warpAffine(darkness(patch), m, (PATCH, PATCH), flags=cv2.INTER_LINEAR)
    paper = cv2.warpAffine(paper_mask(patch), m, (PATCH, PATCH), flags=cv2.INTER_NEAREST)
    ink = cv2.warpAffine(ink, m, (PATCH, PATCH), flags=cv2.INTER_NEAREST)
    upright_ink = cv2.bitwise_and(ink, paper)
    found, labels, ids = strokes(upright_ink)
    # the bar: the lowest long, flat stroke
    flat = [
        k
        for k, st in enumerate(found)
        if abs(st.direction[1]) < 0.35 and st.length / max(st.width, 1.0) >= MIN_BAR_ASPECT
    ]
    if not flat:
        return None
    b = max(flat, key=lambda k: found[k].centre[1])
    bar = found[b]
    bar_top = bar.centre[1] - bar.width / 2
    # the digits stand over the bar, within its length (the ring's edge does not)
    reach = 0.9 * bar.length
    digit_ids = [
        ids[k]
        for k, st in enumerate(found)
        if k != b
        and st.centre[1] < bar_top
        and abs(st.centre[0] - bar.centre[0]) < reach
        and bar_top - st.centre[1] < 1.2 * bar.length
    ]
    if not digit_ids:
        return None
    number = _split_digits(dark, labels, digit_ids)
    if number is None:
        return None
    # the bar is centred under the whole number: a digit lost or a speck taken for one
    # shifts the number off the bar's middle
    middle = (number.span[0] + number.span[1]) / 2
    if abs(middle - bar.centre[0]) > MAX_OFF_CENTRE * bar.length:
        return None
    return number


def _split_digits(dark: np.ndarray, labels: np.ndarray, ids: list[int]) -> Number | None:
    """Group the strokes above the bar into columns: one or two digits.

    Strokes whose columns touch or overlap are one digit (a digit broken by a faint stroke
    stays whole); columns apart are separate digits; a single group much wider than tall is
    two digits run together, cut at their thinnest column.
    """
    boxes = []
    for i in ids:
        ys, xs = np.nonzero(labels == i)
        boxes.append((int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max()), [i]))
    height = max(b[3] - b[2] + 1 for b in boxes)
    boxes = [b for b in boxes if max(b[3] - b[2], b[1] - b[0]) + 1 >= 0.3 * height]
    boxes.sort(key=lambda b: b[0])
    groups: list[list] = []
    for x0, x1, y0, y1, members in boxes:
        if groups and x0 <= groups[-1][1] + 1:
            g = groups[-1]
            g[1], g[2], g[3] = max(g[1], x1), min(g[2], y0), max(g[3], y1)
            g[4] = g[4] + members
        else:
            groups.append([x0, x1, y0, y1, members])
    while len(groups) > 2:  # close the narrowest gap, if it is narrow
        gaps = [groups[k + 1][0] - groups[k][1] for k in range(len(groups) - 1)]
        k = int(np.argmin(gaps))
        if gaps[k] > 0.12 * height:
            return None
        a, b = groups[k], groups.pop(k + 1)
        a[1], a[2], a[3], a[4] = b[1], min(a[2], b[2]), max(a[3], b[3]), a[4] + b[4]
    cuts: list[tuple[int, int] | None] = [None] * len(groups)
    if len(groups) == 1:
        g = groups[0]
        width, tall = g[1] - g[0] + 1, g[3] - g[2] + 1
        if width > 1.15 * tall:  # two digits run together: cut at the thinnest column
            mask = np.isin(labels, g[4])
            columns = mask[:, g[0] : g[1] + 1].sum(axis=0)
            lo, hi = int(0.3 * width), int(0.7 * width)
            cut = g[0] + lo + int(np.argmin(columns[lo:hi]))
            groups = [g, g]
            cuts = [(g[0], cut), (cut + 1, g[1] + 1)]
    images, aspects, lefts, rights = [], [], [], []
    for g, cut in zip(groups, cuts, strict=True):
        mask = np.isin(labels, g[4]).astype(np.uint8)
        if cut is not None:
            keep = np.zeros_like(mask)
            keep[:, cut[0] : cut[1]] = 1
            mask &= keep
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return None
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        region = cv2.dilate(mask, np.ones((3, 3), np.uint8))[y0:y1, x0:x1]
        images.append(normalise_digit(dark[y0:y1, x0:x1] * region))
        aspects.append((x1 - x0) / (y1 - y0))
        lefts.append(float(x0))
        rights.append(float(x1))
    return Number(tuple(images), tuple(aspects), dark, (min(lefts), max(rights)))


def normalise_digit(crop: np.ndarray) -> np.ndarray:
    """A digit's ink scaled to DIGIT pixels high (width in proportion), centred."""
    h, w = crop.shape
    scale = (DIGIT - 2) / h
    nw = max(1, min(DIGIT - 2, round(w * scale)))
    small = cv2.resize(crop.astype(np.float32), (nw, DIGIT - 2), interpolation=cv2.INTER_AREA)
    out = np.zeros((DIGIT, DIGIT), np.float32)
    x0 = (DIGIT - nw) // 2
    out[1 : DIGIT - 1, x0 : x0 + nw] = small
    return out
