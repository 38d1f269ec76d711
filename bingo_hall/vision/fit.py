"""Fitting the digit network: Adam on cross-entropy over digits the reader cut out of rendered
balls, each batch freshly distorted so that the network learns the digits' shapes rather than
the training typefaces (small turns, shears and scalings, strokes thinned or thickened, ink
faded, blurred or partly washed out by a glare). Each batch also holds what a bad cut gives
instead of a digit, labelled NOT_A_DIGIT: two digits run together, the top or bottom half of
a digit, a blot."""

from __future__ import annotations

import math

import cv2
import numpy as np

from bingo_hall.vision.convnet import NOT_A_DIGIT, backward, forward, shapes
from bingo_hall.vision.digits import DIGIT, normalise_digit

_DISC = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
NOT_DIGIT_SHARE = 0.1  # of each batch
HALVES_OF = (0, 2, 3, 5, 6, 8, 9)  # half a 1, 4 or 7 can look like a whole 1


def _ink_box(image: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(image > 0.2)
    if len(xs) == 0:
        return image
    return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def not_a_digit(
    a: np.ndarray, digit: int, b: np.ndarray, rng: np.random.Generator
) -> np.ndarray | None:
    """Something the reader might cut out instead of a digit, made from digit images a (of
    `digit`) and b; None when a cannot give one."""
    kind = rng.integers(3)
    if kind == 0:  # two digits run together
        left, right = _ink_box(a), _ink_box(b)
        height = max(left.shape[0], right.shape[0])
        pair = np.zeros((height, left.shape[1] + right.shape[1]), np.float32)
        pair[: left.shape[0], : left.shape[1]] = left
        pair[: right.shape[0], left.shape[1] :] = right
        return normalise_digit(pair)
    if kind == 1:  # half a digit
        if digit not in HALVES_OF:
            return None
        box = _ink_box(a)
        half = box.shape[0] // 2
        part = box[:half] if rng.random() < 0.5 else box[half:]
        return normalise_digit(part) if part.size else None
    blot = np.zeros((DIGIT, DIGIT), np.float32)  # a blot of ink or shadow
    centre = (int(rng.integers(8, 16)), int(rng.integers(8, 16)))
    axes = (int(rng.integers(5, 11)), int(rng.integers(5, 11)))  # never a thin stroke, a 1
    cv2.ellipse(blot, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    return normalise_digit(_ink_box(cv2.GaussianBlur(blot, (0, 0), rng.uniform(0.5, 2.0))))


def distort(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random variation of a DIGIT×DIGIT digit image (ink = 1)."""
    centre = (DIGIT - 1) / 2
    angle = rng.uniform(-6, 6)
    scale = rng.uniform(0.9, 1.06)
    m = cv2.getRotationMatrix2D((centre, centre), angle, scale)
    shear = rng.uniform(-0.15, 0.15)
    m[0, 1] += shear
    m[0, 2] += -shear * centre + rng.uniform(-1, 1)
    m[1, 2] += rng.uniform(-1, 1)
    out = cv2.warpAffine(image, m, (DIGIT, DIGIT), flags=cv2.INTER_LINEAR)
    change = rng.random()
    if change < 0.2:
        out = cv2.erode(out, _DISC)
    elif change < 0.4:
        out = cv2.dilate(out, _DISC)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.1))
    if rng.random() < 0.2:  # a glare washes out a round patch of the print
        y, x = rng.uniform(0, DIGIT, 2)
        yy, xx = np.mgrid[0:DIGIT, 0:DIGIT]
        r = rng.uniform(2, 5)
        wash = np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / (2 * r * r))
        out = out * (1 - rng.uniform(0.5, 0.9) * wash)
    return (out * rng.uniform(0.55, 1.0)).astype(np.float32)


def _batch(
    rows: np.ndarray, digits: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A training batch: the digits distorted, some replaced by things that are not digits."""
    out, labels = rows.copy(), digits.copy()
    images = out[:, : DIGIT * DIGIT].reshape(-1, DIGIT, DIGIT)
    originals = images.copy()
    for k in range(len(out)):
        if rng.random() < NOT_DIGIT_SHARE:
            other = originals[int(rng.integers(len(out)))]
            made = not_a_digit(originals[k], int(digits[k]), other, rng)
            if made is not None:
                images[k] = made
                ys, xs = np.nonzero(made > 0.2)
                out[k, -1] = (np.ptp(xs) + 1) / (np.ptp(ys) + 1) if len(xs) else 1.0
                labels[k] = NOT_A_DIGIT
        if rng.random() < 0.8:
            images[k] = distort(images[k], rng)
    return out, labels


def fit(
    x: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    epochs: int = 16,
    batch: int = 128,
    rate: float = 2e-3,
    decay: float = 1e-4,
    log: bool = False,
) -> dict[str, np.ndarray]:
    """The network's weights fitted to input rows `x` and digits `y`."""
    params: dict[str, np.ndarray] = {}
    for name, shape in shapes().items():
        if len(shape) == 1:
            params[name] = np.zeros(shape, np.float32)
        else:
            params[name] = (rng.standard_normal(shape) * math.sqrt(2 / shape[0])).astype(np.float32)
    first = {k: np.zeros_like(v) for k, v in params.items()}
    second = {k: np.zeros_like(v) for k, v in params.items()}
    step, n = 0, len(y)
    for epoch in range(epochs):
        lr = rate * 0.5 * (1 + math.cos(math.pi * epoch / epochs))
        order = rng.permutation(n)
        loss = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, yb = _batch(x[idx], y[idx], rng)
            scores, trace = forward(params, xb, keep=True)
            assert trace is not None
            z = scores - scores.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            loss -= float(np.log(p[np.arange(len(yb)), yb] + 1e-12).sum())
            p[np.arange(len(yb)), yb] -= 1
            grads = backward(params, trace, p / len(yb))
            step += 1
            for k in params:
                g = grads[k] + (decay * params[k] if params[k].ndim > 1 else 0)
                first[k] = 0.9 * first[k] + 0.1 * g
                second[k] = 0.999 * second[k] + 0.001 * g * g
                m_hat = first[k] / (1 - 0.9**step)
                v_hat = second[k] / (1 - 0.999**step)
                params[k] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        if log:
            print(f"  epoch {epoch + 1}/{epochs}: loss {loss / n:.4f}", flush=True)
    return params
