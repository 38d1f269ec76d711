"""The network's input for one normalised digit: its image, row by row, and its width over
its height (a 1 is narrow; the image alone, scaled to a fixed height, does not say it)."""

from __future__ import annotations

import numpy as np

from bingo_hall.vision.digits import DIGIT


def digit_features(image: np.ndarray, aspect: float) -> np.ndarray:
    """The input row of one DIGIT×DIGIT float32 digit image (ink = 1)."""
    assert image.shape == (DIGIT, DIGIT)
    return np.concatenate([image.ravel(), [aspect]]).astype(np.float32)
