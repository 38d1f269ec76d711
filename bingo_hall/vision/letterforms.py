"""Letterforms varied while the reading networks are fitted: a share of the upright training
prints is slanted, made narrower or wider and gently bent, so that a typeface the networks
never saw (a bold italic, a single-stroke Hershey face, a heavy serif) lies nearer to ones
they did. The bar under the number stays level: a horizontal slant keeps horizontal lines
horizontal."""

from __future__ import annotations

import cv2
import numpy as np

MAX_SLANT = 0.25  # horizontal shift per pixel of height: about ±14°
WIDTH = (0.85, 1.15)  # the print's width, as a factor
MAX_BEND = 1.5  # pixels: the largest displacement of the smooth random field
BEND_SMOOTHNESS = 5.0  # pixels: the field's Gaussian smoothing


def vary_letterforms(images: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """(N, H, W) upright grey prints, `share` of them with their letterforms varied."""
    out = images.copy()
    n, h, w = images.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    for i in np.flatnonzero(rng.random(n) < share):
        slant = rng.uniform(-MAX_SLANT, MAX_SLANT)
        width = rng.uniform(*WIDTH)
        field = np.stack(
            [
                cv2.GaussianBlur(
                    rng.uniform(-1, 1, (h, w)).astype(np.float32), (0, 0), BEND_SMOOTHNESS
                )
                for _ in range(2)
            ]
        )
        field *= MAX_BEND * rng.uniform(0, 1) / max(float(np.abs(field).max()), 1e-6)
        # where each output pixel is taken from: the inverse of slant, width and bend
        source_x = cx + (xs - cx) / width + slant * (ys - cy) + field[0]
        source_y = ys + field[1]
        out[i] = cv2.remap(
            images[i], source_x, source_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    return out
