"""Finding the ball in a frame: a coloured sphere against the dark, grey exit of the machine.

First coarse guesses on the frame shrunk to 120 lines, from the largest blob of strongly
coloured pixels (chroma = brightest channel − darkest, split from the grey scene by Otsu's
method). Then the outline at full resolution: along 64 rays from a guessed centre, the
outermost strong bright-to-dark step near the guessed radius (or, close to it, the strongest
colour step), fitted by consensus (RANSAC) and least squares so that the outliers (a label
or glare at the edge, the cup's lip) drop out. A ball is reported only if it holds the whole
coloured blob and enough of its outline is seen. The camera is assumed to frame the ball so
that its diameter spans 24-80 % of the frame height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

WORK_HEIGHT = 120
MIN_RADIUS = 0.12  # of the frame height
MAX_RADIUS = 0.40
RAYS = 64
MIN_OUTLINE = 0.45  # share of the rays that must see the ball's edge on the fitted circle
MIN_STEP = 10.0  # grey levels: the least bright-to-dark step that counts as the ball's edge
MIN_CHROMA_GAP = 18.0  # the ball's colour must stand this far above the scene's


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float


_ANGLES = np.linspace(0, 2 * np.pi, RAYS, endpoint=False)
_COS, _SIN = np.cos(_ANGLES).astype(np.float32), np.sin(_ANGLES).astype(np.float32)


def brightness(frame: np.ndarray) -> np.ndarray:
    """The brightest channel: a coloured ball is bright in at least one."""
    b, g, r = cv2.split(frame)
    return cv2.max(cv2.max(b, g), r)


def chroma(frame: np.ndarray) -> np.ndarray:
    """Brightest minus darkest channel: high on a coloured ball, low on grey metal and black."""
    b, g, r = cv2.split(frame)
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))


def find_ball(frame: np.ndarray) -> Circle | None:
    """The ball in a BGR frame, or None when there is none."""
    h = frame.shape[0]
    scale = WORK_HEIGHT / h
    coarse = _coarse(frame, scale)
    if coarse is None:
        return None
    blob_points, guesses = coarse
    best: tuple[float, Circle] | None = None
    # grow a guess that stops at labels (outermost step), or trust it and fit it closely;
    # the closest fit is for a dark ball (navy) whose edge on the dark scene is a weaker step
    # than its labels' edges, so that a wider window would lock onto a label
    passes = (
        ((0.3, True), (0.08, False)),
        ((0.15, False), (0.06, False)),
        ((0.07, False), (0.04, False)),
    )
    for guess, steps in ((g, p) for g in guesses for p in passes):
        circle, share = guess, 0.0
        for window, outermost in steps:
            fitted = _fit_outline(frame, circle, window, outermost)
            if fitted is None:
                break
            share, circle = fitted
        else:
            if not 0.9 * MIN_RADIUS * h <= circle.r <= 1.1 * MAX_RADIUS * h:
                continue
            # the ball holds its whole coloured blob: a label's circle does not
            inside = np.hypot(
                blob_points[:, 0] / scale - circle.x, blob_points[:, 1] / scale - circle.y
            )
            if np.mean(inside <= 1.05 * circle.r + 1 / scale) < 0.95:
                continue
            if (
                best is None
                or share > best[0] + 0.05
                or (share > best[0] - 0.05 and circle.r > best[1].r)
            ):
                best = (share, circle)
    if best is None or best[0] < MIN_OUTLINE:
        return None
    return best[1]


def _coarse(frame: np.ndarray, scale: float) -> tuple[np.ndarray, list[Circle]] | None:
    """The coloured blob's pixels (in the small frame) and guesses of the ball's circle."""
    w = frame.shape[1]
    size = (max(1, round(w * scale)), WORK_HEIGHT)
    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    c = chroma(small)
    _, mask = cv2.threshold(c, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    largest = max(contours, key=cv2.contourArea)
    blob = np.zeros_like(mask)
    cv2.drawContours(blob, [largest], -1, 255, -1)
    gap = cv2.mean(c, blob)[0] - cv2.mean(c, cv2.bitwise_not(blob))[0]
    if gap < MIN_CHROMA_GAP:
        return None
    hull = cv2.convexHull(largest)
    (x, y), r = cv2.minEnclosingCircle(hull)
    if r < 0.8 * MIN_RADIUS * WORK_HEIGHT or cv2.contourArea(hull) < 0.4 * math.pi * r * r:
        return None
    guesses = [Circle(x, y, r)]
    # The blob's edge is the ball's outline only where the outside is the dark scene; where
    # the outside is bright, the blob stops at a white label or a glare, not at the outline.
    value = brightness(small)
    dark = 0.5 * cv2.mean(value, blob)[0]
    rim = cv2.subtract(cv2.dilate(blob, np.ones((3, 3), np.uint8)), blob)
    ys, xs = np.nonzero((rim > 0) & (value < dark))
    if len(xs) >= 12:
        xs_f, ys_f = xs.astype(np.float32), ys.astype(np.float32)
        fitted = _consensus_circle(xs_f, ys_f, np.ones_like(xs_f))
        if fitted is not None and abs(fitted.r - r) + math.hypot(fitted.x - x, fitted.y - y) > 2:
            guesses.append(fitted)
    # pixel centres of the small frame sit half a source pixel block in
    offset = 0.5 / scale - 0.5
    full = [Circle(g.x / scale + offset, g.y / scale + offset, g.r / scale) for g in guesses]
    points = np.stack(np.nonzero(blob)[::-1], axis=1).astype(np.float32) + 0.5 - 0.5 * scale
    return points, full


def _fit_outline(
    frame: np.ndarray, guess: Circle, window: float, outermost: bool
) -> tuple[float, Circle] | None:
    """The circle through the ball's edge near `guess`; (share of the rays on it, circle).

    Far from the guess, the edge on each ray is the outermost bright-to-dark step of at least
    40 % of the ray's strongest: inside the ball there are steps too (a label's white to its
    ring), but the outline is where the ball ends and the dark scene begins. Near the guess,
    it is the strongest colour step.
    """
    count = max(16, int(2 * window * guess.r))
    steps = np.linspace(1 - window, 1 + window, count, dtype=np.float32)
    radii = guess.r * steps
    map_x = guess.x + _COS[:, None] * radii[None, :]
    map_y = guess.y + _SIN[:, None] * radii[None, :]
    profile = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, cv2.BORDER_REPLICATE)
    profile = profile.astype(np.float32)
    lag = max(1, round(0.015 * (count - 1) / (2 * window)))
    drop = np.zeros(profile.shape[:2], np.float32)
    if outermost:
        value = profile.max(axis=2)
        drop[:, lag:-lag] = value[:, : -2 * lag] - value[:, 2 * lag :]
    else:
        diff = np.abs(profile[:, : -2 * lag] - profile[:, 2 * lag :]).max(axis=2)
        drop[:, lag:-lag] = diff
    strongest = drop.max(axis=1, keepdims=True)
    significant = drop >= np.maximum(MIN_STEP, 0.4 * strongest)
    rows = np.arange(RAYS)
    if outermost:  # the outermost significant step, walked back to its local maximum
        pick = count - 1 - np.argmax(significant[:, ::-1], axis=1)
        for _ in range(lag + 2):
            inner = np.maximum(pick - 1, 0)
            pick = np.where(drop[rows, inner] > drop[rows, pick], inner, pick)
    else:
        pick = np.argmax(drop, axis=1)
    keep = significant[rows, pick]
    if keep.sum() < 8:
        return None
    edge_r = radii[pick]
    xs, ys = guess.x + _COS * edge_r, guess.y + _SIN * edge_r
    strength = drop[rows, pick]
    circle = _consensus_circle(xs[keep], ys[keep], strength[keep])
    if circle is None:
        return None
    # share of the rays that see a step where the fitted circle passes
    along = np.hypot(map_x - circle.x, map_y - circle.y)
    near = np.abs(along - circle.r) <= max(1.5, 0.03 * circle.r)
    share = float(np.mean(np.any(near & (drop >= MIN_STEP), axis=1)))
    return share, circle


_TRIPLES = np.random.default_rng(20261122).integers(0, RAYS, (160, 3))  # fixed: reproducible


def _consensus_circle(xs: np.ndarray, ys: np.ndarray, weight: np.ndarray) -> Circle | None:
    """The circle through most of the points (RANSAC over fixed triples, then least squares
    on its inliers): the edge found on a ray may be the cup's lip or a label, not the ball."""
    n = len(xs)
    if n < 6:
        return None
    triples = _TRIPLES % n
    ax, ay = xs[triples[:, 0]], ys[triples[:, 0]]
    bx, by = xs[triples[:, 1]], ys[triples[:, 1]]
    cx, cy = xs[triples[:, 2]], ys[triples[:, 2]]
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ok = np.abs(d) > 1e-6
    d = np.where(ok, d, 1.0)
    a2, b2, c2 = ax * ax + ay * ay, bx * bx + by * by, cx * cx + cy * cy
    ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d
    uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d
    ur = np.hypot(ax - ux, ay - uy)
    distance = np.abs(np.hypot(xs[None, :] - ux[:, None], ys[None, :] - uy[:, None]) - ur[:, None])
    tolerance = np.maximum(1.5, 0.015 * ur)[:, None]
    score = ((distance <= tolerance) * weight[None, :]).sum(axis=1) * ok
    best = int(np.argmax(score))
    inliers = distance[best] <= tolerance[best, 0]
    return _least_squares_circle(xs[inliers], ys[inliers])


def _least_squares_circle(xs: np.ndarray, ys: np.ndarray) -> Circle | None:
    if len(xs) < 3:
        return None
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    a = np.stack([x, y, np.ones_like(x)], axis=1)
    (cx2, cy2, c), *_ = np.linalg.lstsq(a, x * x + y * y, rcond=None)
    cx, cy = cx2 / 2, cy2 / 2
    r2 = c + cx * cx + cy * cy
    return Circle(float(cx), float(cy), math.sqrt(r2)) if r2 > 0 else None


def _robust_circle(xs: np.ndarray, ys: np.ndarray) -> Circle | None:
    """Least-squares circle through the points, refitted without the worst outliers."""
    keep = np.ones(len(xs), bool)
    circle = None
    for _ in range(4):
        if keep.sum() < 6:
            return circle
        circle = _least_squares_circle(xs[keep], ys[keep])
        if circle is None:
            return None
        residual = np.abs(np.hypot(xs - circle.x, ys - circle.y) - circle.r)
        keep = residual <= max(1.0, 2.5 * float(np.median(residual[keep])))
    return circle
