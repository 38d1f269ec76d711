"""The feature vector of one normalised digit image: gradient histograms and coarse pixels.

Histograms of gradient orientation (8 signed directions, 4×4 cells) describe the strokes'
shapes in a way that carries over between typefaces; the 12×12 shrunken image gives their
layout; the digit's width over its height tells a 1 from the rest.
"""

from __future__ import annotations

import cv2
import numpy as np

from bingo_hall.vision.digits import DIGIT

CELLS = 4
BINS = 8
COARSE = 12
SIZE = CELLS * CELLS * BINS + COARSE * COARSE + 1


def digit_features(image: np.ndarray, aspect: float) -> np.ndarray:
    """Features of one DIGIT×DIGIT float32 digit image (ink = 1)."""
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    position = angle * (BINS / (2 * np.pi))
    low = np.floor(position).astype(np.int32) % BINS
    share = (position - np.floor(position)).astype(np.float32)
    cell = DIGIT // CELLS
    rows = (np.arange(DIGIT) // cell)[:, None] * CELLS + (np.arange(DIGIT) // cell)[None, :]
    hist = np.zeros(CELLS * CELLS * BINS, np.float32)
    np.add.at(hist, (rows * BINS + low).ravel(), (magnitude * (1 - share)).ravel())
    np.add.at(hist, (rows * BINS + (low + 1) % BINS).ravel(), (magnitude * share).ravel())
    hist = np.sqrt(hist)
    hist /= np.linalg.norm(hist) + 1e-6
    coarse = cv2.resize(image, (COARSE, COARSE), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([hist * 4, coarse, [aspect]]).astype(np.float32)
