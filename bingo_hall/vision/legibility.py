"""How much of each digit a damage left legible: the share of the tens' and of the units'
ink still standing out from the paper on an upright label (training only).

A digit washed out by a glare is not evidence of its number. The reading networks are
taught so: the target of a digit is spread evenly over the ten digits as its ink is lost,
so that a washed-out 8 whose left half is gone is learned as "some digit", not as an 8
(which it no longer shows) nor as a 3 (which it never was)."""

from __future__ import annotations

import numpy as np

from bingo_hall.vision.damage import paper_round

INK_SHARE_OF_DARKEST = 0.4  # ink: contrast with the paper above this share of the darkest's
BAR_CLEARANCE = 2  # rows kept clear above the bar
FULL_SHARE = 0.35  # of the label's best surviving ink contrast, at which ink is fully there
FLOOR = 12.0  # grey levels: fainter ink is never fully there, however faint the rest
LOST, KEPT = 0.15, 0.6  # legibility at which a digit is taken as gone, and as whole


def digit_legibility(clean: np.ndarray, damaged_contrast: np.ndarray) -> np.ndarray:
    """For upright labels (n, h, w) before damage and their contrast with the paper once
    damaged (`damage_with_contrast`), the legibility of the tens and of the units (n, 2), in
    [0, 1]: the share of the digit's ink still there, weighted by the ink's contrast before
    damage, over the digits' ink above the bar, split at the ink's middle column. Ink is
    there in proportion to its contrast up to FULL_SHARE of the best of the label's ink (the
    bar's, the other digit's): a label faded evenly stays legible (the networks see it
    standardised), a digit washed out beside a clear one does not. A label on which no ink
    is found counts as legible."""
    out = np.ones((len(clean), 2))
    for i, (image, after) in enumerate(zip(clean, damaged_contrast, strict=True)):
        contrast = np.maximum(paper_round(image) - image.astype(np.float32), 0.0)
        top = float(contrast.max())
        if top <= 0:
            continue
        ink = contrast > INK_SHARE_OF_DARKEST * top
        full = max(FLOOR, FULL_SHARE * float(np.percentile(after[ink], 90)))
        ink[max(0, _bar_top(ink) - BAR_CLEARANCE) :] = False
        rows, cols = np.nonzero(ink)
        if len(cols) == 0:
            continue
        weight = contrast[rows, cols]
        there = np.minimum(after[rows, cols] / full, 1.0)
        middle = float(np.average(cols, weights=weight))
        for side, half in enumerate((cols < middle, cols >= middle)):
            if half.any():
                out[i, side] = float((weight[half] * there[half]).sum() / weight[half].sum())
    return out


def certainty(legibility: np.ndarray) -> np.ndarray:
    """The weight of a digit's own class in its target; the rest is spread evenly."""
    return np.clip((legibility - LOST) / (KEPT - LOST), 0.0, 1.0)


def _bar_top(ink: np.ndarray) -> int:
    """The first row of the bar under the number: the lower half's row with the most ink,
    and the rows above it that hold at least half as much. The image's height if none."""
    h = ink.shape[0]
    counts = ink.sum(axis=1)
    lower = h // 2 + int(np.argmax(counts[h // 2 :]))
    if counts[lower] == 0:
        return h
    top = lower
    while top > h // 2 and counts[top - 1] >= counts[lower] / 2:
        top -= 1
    return top
