"""Damage to a label, as the networks are taught it and as the calibration tests them with
it: ink spread, blur, highlights washing out part of the print, the ball's dark edge, faded
contrast, sensor noise, beyond what the rendered conditions hold."""

from __future__ import annotations

import math

import cv2
import numpy as np

GLARE_SHARE = 0.45  # of the labels given a highlight (three in ten of them two)
INK_SHARE = 0.3  # of the labels printed bolder or lighter than rendered
_NEIGHBOURS = np.ones((3, 3), np.uint8)


def damage(images: np.ndarray, rng: np.random.Generator, highlights: bool = True) -> np.ndarray:
    """Damage as the exit camera does it, beyond what the rendered training conditions hold:
    ink spread bolder or thinner than any training print, blur, a glare washing out part of
    the print, the ball's dark edge across the label, faded contrast, sensor noise. A print
    damaged until it looks like another number keeps its own: the networks learn that such a
    print is doubtful. Without `highlights`, the damage an exit lit by a diffuse light box
    still does: the rest, drawn as it would be with them."""
    out = images.astype(np.float32)
    n, h, w = out.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in np.flatnonzero(rng.random(n) < INK_SHARE):
        out[i] = ink_weight(out[i], rng)
    for i in np.flatnonzero(rng.random(n) < 0.4):
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.5, 1.8)))
    glared = np.flatnonzero(rng.random(n) < GLARE_SHARE)
    twice = glared[rng.random(len(glared)) < 0.3]
    for i in np.concatenate([glared, twice]) if highlights else ():
        out[i] += _glare(xs, ys, rng)
    for i in np.flatnonzero(rng.random(n) < 0.1):
        angle = rng.uniform(0, 2 * math.pi)
        across = (xs - w / 2) * math.cos(angle) + (ys - h / 2) * math.sin(angle)
        edge = rng.uniform(0.25, 0.5) * w
        dark = np.clip((across - edge) / rng.uniform(1, 4), 0, 1)
        out[i] = out[i] * (1 - dark) + float(rng.uniform(0, 40)) * dark
    for i in np.flatnonzero(rng.random(n) < 0.2):
        mean = out[i].mean()
        out[i] = mean + (out[i] - mean) * float(rng.uniform(0.35, 1.0))
    out += rng.normal(0, rng.uniform(0, 8, (n, 1, 1)), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def ink_weight(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The print bolder (dark strokes grown) or lighter (shrunk) by a fraction of a pixel on
    each side: part of the way to the image's 3×3 minimum or maximum. Printing presses
    spread ink differently, and a bold face spread further closes an 8's counters."""
    grown = cv2.erode(image, _NEIGHBOURS) if rng.random() < 0.5 else cv2.dilate(image, _NEIGHBOURS)
    share = float(rng.uniform(0.2, 0.8))
    return image + share * (grown - image)


def _glare(xs: np.ndarray, ys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A highlight, most often on the print itself and often strong enough to wash out the
    ink under it: half an 8 gone is a 3, and the networks must have seen such 8s."""
    h, w = xs.shape
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    sigma = rng.uniform(0.06, 0.3) * w
    blob = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
    return float(rng.uniform(60, 320)) * blob


SURVIVING_CONTRAST = 0.5  # of its contrast before the damage, an ink pixel still shows
DESTROYED_GRID = 3  # the print's parts: the image in 3 × 3 cells
PART_INK = 0.05  # a cell with this share of the print's ink is a part of it


DESTROYED_CHUNK = 1024  # images measured at once: their pixels stay in the cache


def destroyed_share(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """For each image (N, H, W) before and after `damage`, the share of the most damaged
    part of its print the damage destroyed. The ink pixels before are the darker third of
    the span from the ink's to the paper's level; each keeps part of its contrast against
    the paper after (half of it or more counts as kept); the print's parts are the cells of
    a 3 × 3 grid holding some of its ink. A highlight that washes out one digit destroys its
    cells, whatever the bar and the other digit keep."""
    parts = [
        _destroyed(before[i : i + DESTROYED_CHUNK], after[i : i + DESTROYED_CHUNK])
        for i in range(0, len(before), DESTROYED_CHUNK)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def _destroyed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    n, h, w = before.shape
    ink_b, paper_b = row_percentiles(before.reshape(n, -1), (5, 90))
    (paper_a,) = row_percentiles(after.reshape(n, -1), (90,))
    b = before.reshape(n, -1).astype(np.float32)
    a = after.reshape(n, -1).astype(np.float32)
    span = paper_b - ink_b
    ink = b < (ink_b + span / 3)[:, None]
    kept = np.clip(
        (paper_a[:, None] - a) / np.maximum(span, 1.0)[:, None] / SURVIVING_CONTRAST, 0, 1
    )
    rows = (np.arange(h) * DESTROYED_GRID // h)[:, None]
    cols = (np.arange(w) * DESTROYED_GRID // w)[None, :]
    cell = (rows * DESTROYED_GRID + cols).reshape(-1)
    in_cell = (cell[:, None] == np.arange(DESTROYED_GRID * DESTROYED_GRID)).astype(np.float32)
    ink_in = ink.astype(np.float32) @ in_cell  # each cell's ink pixels, and those kept
    kept_in = (kept * ink) @ in_cell
    part = ink_in >= PART_INK * np.maximum(ink_in.sum(axis=1, keepdims=True), 1)
    destroyed = np.where(part, 1 - kept_in / np.maximum(ink_in, 1), 0.0).max(axis=1)
    return np.where(span >= 30, destroyed, 0.0).astype(np.float32)


def row_percentiles(rows: np.ndarray, percents: tuple[float, ...]) -> list[np.ndarray]:
    """`np.percentile(rows, q, axis=1)` for each q (linear interpolation), from one sort of
    each row: a radix sort when the rows are 8-bit, as the labels are (the training measures
    every label again each epoch)."""
    ordered = np.sort(rows, axis=1, kind="stable").astype(np.float64)
    last = rows.shape[1] - 1
    out = []
    for q in percents:
        place = q / 100 * last
        low = math.floor(place)
        high = min(low + 1, last)
        out.append(ordered[:, low] + (place - low) * (ordered[:, high] - ordered[:, low]))
    return out
