"""From a flattened label to the images of its digits, upright and in reading order.

The bar printed under the number is the longest straight stroke on the label, longer than
any digit is tall; the digits are on one side of it. Turning the label so that the bar is
horizontal with the digits above it makes the number upright (and tells 6 from 9). The ink
above the bar then splits into its two digits by columns (one, when a digit was lost).
`printed_digits` says what is printed: the renderer prints it, training labels with it, the
reader scores numbers by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from bingo_hall.vision.ink import ink_lightness, ink_mask
from bingo_hall.vision.prints import PATCH
from bingo_hall.vision.strokes import digit_strokes, find_bar, strokes

DIGIT = 24  # side of a normalised digit image
MAX_OFF_CENTRE = 0.3  # of the bar's length, between the bar's middle and the number's
ONE_DIGIT_SPAN = 0.5  # a number narrower than this, of the bar's length, is one digit
TWO_DIGIT_SPAN = 0.76  # ... and wider than this, two
MAX_OFF_CENTRE_ONE = 0.15  # ... when one digit is read (the other one may have been lost)


def printed_digits(number: int) -> str:
    """The digits printed on ball `number`: always two, a leading zero below 10.

    With a constant count, a print that lost a digit (to a glare, or the ball's edge) reads as
    one digit and is known to be damaged; with one-digit prints, 78 that lost its 7 would be
    ball 8 to the reader."""
    return f"{number:02d}"


@dataclass(frozen=True)
class Number:
    """The digits of one label, left to right, each a DIGIT×DIGIT float32 image (ink = 1),
    and each digit's width over its height (a 1 is narrow)."""

    digits: tuple[np.ndarray, ...]
    aspects: tuple[float, ...]
    upright: np.ndarray  # the label turned upright (ink darkness, for inspection)
    span: tuple[float, float]  # left and right end of the number in `upright`
    bar_length: float = 0.0
    contrast: float = 1.0  # the faintest digit's median ink darkness (0..1)


def darkness(patch: np.ndarray) -> np.ndarray:
    """Ink darkness in 0..1 relative to the paper round it (1: black ink on white)."""
    lightness = ink_lightness(patch).astype(np.float32) / 255
    return np.clip((0.92 - lightness) / 0.6, 0, 1)


def read_number(patch: np.ndarray) -> Number | None:
    """The digits of a flattened label (colour patch), or None when it cannot be read.

    The strokes are found once; turning the label upright moves them (their label image is
    turned with nearest-neighbour sampling, so no two strokes ever merge).
    """
    found, labels, ids = strokes(ink_mask(patch))
    bar = find_bar(found)
    if bar is None:
        return None
    digit_ids = digit_strokes(found, ids, bar)
    if not digit_ids:
        return None
    index, (dx, dy) = bar
    # turn the label so that 'down' points down, about the print's middle
    centre = np.array([s.centre for s in found], np.float32).mean(axis=0)
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
    turned = cv2.warpAffine(
        labels.astype(np.float32), m, (PATCH, PATCH), flags=cv2.INTER_NEAREST
    ).astype(np.int32)
    b = found[index]
    bar_x = float(m[0, 0] * b.centre[0] + m[0, 1] * b.centre[1] + m[0, 2])
    number = _split_digits(dark, turned, digit_ids, b.length)
    if number is None:
        return None
    # the bar is centred under the whole number: a digit lost or a speck taken for one
    # shifts the number off the bar's middle
    mid = (number.span[0] + number.span[1]) / 2
    most = MAX_OFF_CENTRE if len(number.digits) == 2 else MAX_OFF_CENTRE_ONE
    if abs(mid - bar_x) > most * b.length:
        return None
    return number


def _split_digits(
    dark: np.ndarray, labels: np.ndarray, ids: list[int], bar_length: float
) -> Number | None:
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
    # The bar underlines the number: one digit spans at most about 0.7 of it, two at least
    # about 0.57 (0.35 for a narrow 11). Two columns much narrower than that, one of them
    # short, are one digit in pieces; one column much wider is two digits run together.
    if len(groups) == 2 and (groups[1][1] - groups[0][0] + 1) < ONE_DIGIT_SPAN * bar_length:
        a, b = groups
        heights = sorted((a[3] - a[2] + 1, b[3] - b[2] + 1))
        if heights[0] < 0.8 * heights[1]:  # pieces of one digit, not two narrow digits (11)
            groups = [[a[0], b[1], min(a[2], b[2]), max(a[3], b[3]), a[4] + b[4]]]
    cuts: list[tuple[int, int] | None] = [None] * len(groups)
    if len(groups) == 1:
        g = groups[0]
        width, tall = g[1] - g[0] + 1, g[3] - g[2] + 1
        if width > 1.15 * tall or width > TWO_DIGIT_SPAN * bar_length:
            mask = np.isin(labels, g[4])  # cut at the thinnest column of the middle
            columns = mask[:, g[0] : g[1] + 1].sum(axis=0)
            lo, hi = int(0.3 * width), int(0.7 * width)
            cut = g[0] + lo + int(np.argmin(columns[lo:hi]))
            groups = [g, g]
            cuts = [(g[0], cut), (cut + 1, g[1] + 1)]
    images, aspects, lefts, rights, contrast = [], [], [], [], []
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
        contrast.append(float(np.median(dark[mask > 0])))
    span = (min(lefts), max(rights))
    return Number(tuple(images), tuple(aspects), dark, span, bar_length, min(contrast))


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
