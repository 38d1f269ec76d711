"""A small convolutional network over one digit image, in numpy: the forward pass the reader
runs, and the backward pass training uses.

Input: a DIGIT×DIGIT digit image (ink = 1) and the digit's width over its height (a 1 is
narrow). Two 3×3 convolutions with ReLU, each followed by 2×2 max-pooling, then a hidden
layer and eleven outputs: the ten digits' scores and that of "not a digit" (what the reader
cut out is a piece of a digit, two digits run together, a blot). Weights are plain arrays,
so the packaged model needs nothing but numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bingo_hall.vision.digits import DIGIT

INPUT = DIGIT * DIGIT + 1  # the image, row by row, then the aspect
CLASSES = 11  # the ten digits, then NOT_A_DIGIT
NOT_A_DIGIT = 10
LAYERS = ("c1", "k1", "c2", "k2", "f1", "g1", "f2", "g2")  # weights and biases, in order


def shapes(channels: tuple[int, int] = (16, 32), hidden: int = 96) -> dict[str, tuple[int, ...]]:
    a, b = channels
    flat = (DIGIT // 4) ** 2 * b
    return {
        "c1": (9, a),
        "k1": (a,),
        "c2": (9 * a, b),
        "k2": (b,),
        "f1": (flat + 1, hidden),
        "g1": (hidden,),
        "f2": (hidden, CLASSES),
        "g2": (CLASSES,),
    }


def _patches(x: np.ndarray) -> np.ndarray:
    """(n, h, w, c) → (n, h, w, 9c): each pixel's 3×3 neighbourhood, zero-padded."""
    h, w = x.shape[1:3]
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return np.concatenate(
        [padded[:, dy : dy + h, dx : dx + w, :] for dy in range(3) for dx in range(3)], axis=3
    )


def _unpatch(grad: np.ndarray, channels: int) -> np.ndarray:
    """The adjoint of `_patches`: (n, h, w, 9c) → (n, h, w, c)."""
    n, h, w, _ = grad.shape
    out = np.zeros((n, h + 2, w + 2, channels), grad.dtype)
    for k, (dy, dx) in enumerate((dy, dx) for dy in range(3) for dx in range(3)):
        out[:, dy : dy + h, dx : dx + w, :] += grad[..., k * channels : (k + 1) * channels]
    return out[:, 1:-1, 1:-1, :]


def _pool(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def _unpool(grad: np.ndarray, x: np.ndarray, pooled: np.ndarray) -> np.ndarray:
    """The gradient of `_pool` at x: each pooled gradient goes to the window's maximum."""
    up = np.repeat(np.repeat(pooled, 2, axis=1), 2, axis=2)
    mask = x == up
    ties = np.repeat(np.repeat(_window_sum(mask), 2, axis=1), 2, axis=2)
    mask = mask / np.maximum(ties, 1)  # tied maxima share the gradient
    return np.repeat(np.repeat(grad, 2, axis=1), 2, axis=2) * mask


def _window_sum(mask: np.ndarray) -> np.ndarray:
    n, h, w, c = mask.shape
    return mask.reshape(n, h // 2, 2, w // 2, 2, c).sum(axis=(2, 4))


@dataclass(frozen=True)
class Trace:
    """What the backward pass needs of a forward pass."""

    p1: np.ndarray
    a1: np.ndarray
    o1: np.ndarray
    p2: np.ndarray
    a2: np.ndarray
    o2: np.ndarray
    flat: np.ndarray
    hidden: np.ndarray


def forward(
    params: dict[str, np.ndarray], rows: np.ndarray, keep: bool = False
) -> tuple[np.ndarray, Trace | None]:
    """Scores of the ten digits for each input row (image, aspect)."""
    n = len(rows)
    image = rows[:, : DIGIT * DIGIT].reshape(n, DIGIT, DIGIT, 1)
    p1 = _patches(image)
    a1 = np.maximum(p1 @ params["c1"] + params["k1"], 0)
    o1 = _pool(a1)
    p2 = _patches(o1)
    a2 = np.maximum(p2 @ params["c2"] + params["k2"], 0)
    o2 = _pool(a2)
    flat = np.concatenate([o2.reshape(n, -1), rows[:, -1:]], axis=1)
    hidden = np.maximum(flat @ params["f1"] + params["g1"], 0)
    scores = hidden @ params["f2"] + params["g2"]
    trace = Trace(p1, a1, o1, p2, a2, o2, flat, hidden) if keep else None
    return scores, trace


def backward(
    params: dict[str, np.ndarray], trace: Trace, grad: np.ndarray
) -> dict[str, np.ndarray]:
    """Gradients of the weights, given the gradient of the loss with respect to the scores."""
    out = {"f2": trace.hidden.T @ grad, "g2": grad.sum(axis=0)}
    gh = (grad @ params["f2"].T) * (trace.hidden > 0)
    out["f1"] = trace.flat.T @ gh
    out["g1"] = gh.sum(axis=0)
    gflat = (gh @ params["f1"].T)[:, :-1].reshape(trace.o2.shape)
    ga2 = _unpool(gflat, trace.a2, trace.o2) * (trace.a2 > 0)
    c2 = ga2.shape[-1]
    out["c2"] = trace.p2.reshape(-1, trace.p2.shape[-1]).T @ ga2.reshape(-1, c2)
    out["k2"] = ga2.sum(axis=(0, 1, 2))
    go1 = _unpatch(ga2 @ params["c2"].T, trace.o1.shape[-1])
    ga1 = _unpool(go1, trace.a1, trace.o1) * (trace.a1 > 0)
    c1 = ga1.shape[-1]
    out["c1"] = trace.p1.reshape(-1, 9).T @ ga1.reshape(-1, c1)
    out["k1"] = ga1.sum(axis=(0, 1, 2))
    return out
