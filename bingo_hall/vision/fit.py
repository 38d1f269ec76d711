"""Fitting the digit network: Adam on cross-entropy over digits the reader cut out of rendered
balls, each batch freshly distorted so that the network learns the digits' shapes rather than
the training typefaces (small turns, shears and scalings, strokes thinned or thickened, ink
faded, blurred or partly washed out by a glare)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from bingo_hall.vision.convnet import DIGIT, backward, forward, shapes

_DISC = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))


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


def _augment(rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = rows.copy()
    images = out[:, : DIGIT * DIGIT].reshape(-1, DIGIT, DIGIT)
    for k in range(len(out)):
        if rng.random() < 0.8:
            images[k] = distort(images[k], rng)
    return out


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
            xb, yb = _augment(x[idx], rng), y[idx]
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
