"""Placing each label's window on its print: the rules of `prints` first, then, when the
model has one, the window network.

The rules centre the window on the strokes they take for the print (`prints._flatten`); where
a highlight splits the label, the ball's edge cuts it or a thin typeface leaves one digit
standing out, they can settle on a piece of the print, and a digit cut by the window's edge
reads as another number. The window network looks at the label as the rules left it and says
where the print is and how large; where that is further from the window than the rules
themselves would accept, the label is flattened again round the print. Only the most
frontal label is so placed (`WINDOWED`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from bingo_hall.vision.labelnet import Weights, grey, window_corrections
from bingo_hall.vision.prints import SETTLED_OFFSET, SETTLED_SIZE, Label, find_labels, reframe


def framed_labels(
    crop: np.ndarray,
    limit: int,
    window: Weights | None,
    kernels: Sequence[np.ndarray] | None = None,
) -> list[Label]:
    """The `limit` most frontal labels of a ball crop, most frontal first, each window moved
    onto its print where the window network (`window`, None: the rules alone) sees it off."""
    labels = find_labels(crop, limit)
    if window is None or not labels:
        return labels
    placed = labels[:WINDOWED]
    corrections = window_corrections(window, [grey(label.patch) for label in placed], kernels)
    framed = []
    for label, (x, y, log_size) in zip(placed, corrections.astype(float), strict=True):
        if math.hypot(x, y) > SETTLED_OFFSET or abs(math.expm1(log_size)) > SETTLED_SIZE:
            label = reframe(crop, label, x, y, log_size) or label
        framed.append(label)
    return framed + labels[WINDOWED:]


# Labels the window network places, most frontal first. The second label, seen at 50-70°
# and often cut by the ball's edge, is read right alone about four times in five however it
# is framed; centred on its print by the network, a cut 86 showed a clear 36 (0.9999) and,
# with a first label whose 8 a highlight had washed out, made two labels agree on a wrong
# number in the calibration's damage tail (docs/vision.md, "The window placed by a network").
WINDOWED = 1
