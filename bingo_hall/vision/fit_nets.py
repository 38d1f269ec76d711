"""Fitting the label networks with PyTorch (a training-only dependency: `pip install
'.[train]'`); the reader runs them in numpy (`bingo_hall.vision.labelnet`).

Every epoch, each label is turned upright afresh by the reader's own `upright`, along its
true direction plus a small error (the orientation network's is a few degrees), at a
slightly different scale and place, and some labels are turned upside down on purpose (the
reading network must say so rather than read a 68 as 89). The grey levels are damaged as a
camera damages them (`_photometric`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from bingo_hall.vision.label_data import LabelSet
from bingo_hall.vision.labelnet import (
    ORIENTATION,
    READ_SCALE,
    READING,
    Architecture,
    Weights,
    orientation_input,
    standardise,
    upright,
)
from bingo_hall.vision.model import TENS, UNITS

UPSIDE_DOWN_SHARE = 0.15
ANGLE_ERROR_DEG = 6.0  # standard deviation of the direction's error while training
BATCH = 128
GLARE_SHARE = 0.45  # of the labels given a highlight (three in ten of them two)


def _torch():
    try:
        import torch
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise SystemExit(
            "training needs PyTorch: pip install -e '.[train]' (the reader itself does not)"
        ) from error
    return torch


def network(arch: Architecture):
    """The PyTorch module with the architecture `labelnet.forward` computes."""
    nn = _torch().nn
    layers: list = []
    before = 1
    for width in arch.channels:
        layers += [nn.Conv2d(before, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        before = width
    body = nn.Sequential(*layers)
    head = nn.Sequential(
        nn.Flatten(),
        nn.Linear(arch.flat, arch.hidden),
        nn.ReLU(),
        nn.Linear(arch.hidden, arch.outputs),
    )
    return nn.ModuleDict({"body": body, "head": head})


def run(module, x):
    return module["head"](module["body"](x))


def export(module, arch: Architecture) -> Weights:
    """The module's weights under the names `labelnet.forward` reads."""
    convs = [m for m in module["body"] if hasattr(m, "weight")]
    linears = [m for m in module["head"] if hasattr(m, "weight")]
    weights: Weights = {}
    for i, conv in enumerate(convs):
        weights[f"conv{i}.weight"] = conv.weight.detach().numpy().copy()
        weights[f"conv{i}.bias"] = conv.bias.detach().numpy().copy()
    for name, linear in zip(("hidden", "out"), linears, strict=True):
        weights[f"{name}.weight"] = linear.weight.detach().numpy().copy()
        weights[f"{name}.bias"] = linear.bias.detach().numpy().copy()
    assert {k: v.shape for k, v in weights.items()} == arch.shapes()
    return weights


def _photometric(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Damage as the exit camera does it, beyond what the rendered training conditions hold:
    blur, a glare washing out part of the print, the ball's dark edge across the label,
    faded contrast, sensor noise. A print damaged until it looks like another number keeps
    its own: the networks learn that such a print is doubtful."""
    out = images.astype(np.float32)
    n, h, w = out.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in np.flatnonzero(rng.random(n) < 0.4):
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.5, 1.8)))
    glared = np.flatnonzero(rng.random(n) < GLARE_SHARE)
    twice = glared[rng.random(len(glared)) < 0.3]
    for i in np.concatenate([glared, twice]):
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


def _glare(xs: np.ndarray, ys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A highlight, most often on the print itself and often strong enough to wash out the
    ink under it: half an 8 gone is a 3, and the networks must have seen such 8s."""
    h, w = xs.shape
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    sigma = rng.uniform(0.06, 0.3) * w
    blob = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
    return float(rng.uniform(60, 320)) * blob


def _epochs(module, epochs: int, batches, loss_of, log: str) -> None:
    torch = _torch()
    optimiser = torch.optim.AdamW(module.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * batches(None)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=2e-3, total_steps=steps)
    for epoch in range(epochs):
        total, count = 0.0, 0
        for batch in batches(epoch):
            optimiser.zero_grad()
            loss = loss_of(batch)
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch[0])
            count += len(batch[0])
        print(f"  {log} epoch {epoch + 1}/{epochs}: loss {total / count:.4f}", flush=True)


def fit_orientation(data: LabelSet, seed: int, epochs: int) -> Weights:
    """The orientation network: the text's direction as a unit vector."""
    torch = _torch()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = network(ORIENTATION)
    images = np.stack([orientation_input(g) for g in data.grey])
    target = np.stack([np.cos(data.angle), np.sin(data.angle)], axis=1).astype(np.float32)

    def batches(epoch):
        if epoch is None:
            return math.ceil(len(images) / BATCH)
        x = standardise(_photometric(images, rng))
        order = rng.permutation(len(x))
        return [
            (
                torch.from_numpy(x[order[i : i + BATCH]]),
                torch.from_numpy(target[order[i : i + BATCH]]),
            )
            for i in range(0, len(x), BATCH)
        ]

    def loss_of(batch):
        x, y = batch
        return ((run(module, x) - y) ** 2).sum(dim=1).mean()

    _epochs(module, epochs, batches, loss_of, "orientation")
    return export(module.eval(), ORIENTATION)


def digit_targets(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tens and units as printed (7 is 07)."""
    rows = numbers.astype(np.int64) - 1
    return TENS[rows], UNITS[rows]


def reading_inputs(data: LabelSet, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One epoch's upright labels (with their errors of direction, scale and place) and
    which of them were turned upside down."""
    flipped = rng.random(len(data)) < UPSIDE_DOWN_SHARE
    error = np.radians(rng.normal(0, ANGLE_ERROR_DEG, len(data)))
    angles = data.angle + error + np.where(flipped, math.pi, 0.0)
    scales = rng.uniform(0.88, 1.12, len(data))
    shifts = rng.uniform(-2, 2, (len(data), 2))
    images = np.stack(
        [
            upright(g, float(a), READ_SCALE * float(s), (float(dx), float(dy)))
            for g, a, s, (dx, dy) in zip(data.grey, angles, scales, shifts, strict=True)
        ]
    )
    return _photometric(images, rng), flipped


def fit_reading(data: LabelSet, seed: int, epochs: int) -> Weights:
    """The reading network: tens, units, upside down."""
    torch = _torch()
    functional = torch.nn.functional
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = network(READING)
    tens, units = digit_targets(data.number)

    def batches(epoch):
        if epoch is None:
            return math.ceil(len(data) / BATCH)
        images, flipped = reading_inputs(data, rng)
        x = standardise(images)
        order = rng.permutation(len(x))
        out = []
        for i in range(0, len(x), BATCH):
            rows = order[i : i + BATCH]
            out.append(
                (
                    torch.from_numpy(x[rows]),
                    torch.from_numpy(tens[rows]),
                    torch.from_numpy(units[rows]),
                    torch.from_numpy(flipped[rows].astype(np.float32)),
                )
            )
        return out

    def loss_of(batch):
        x, t, u, f = batch
        out = run(module, x)
        upright_rows = f < 0.5
        digits = functional.cross_entropy(
            out[:, :10], t, reduction="none"
        ) + functional.cross_entropy(out[:, 10:20], u, reduction="none")
        digits = (digits * upright_rows).sum() / upright_rows.sum().clamp(min=1)
        return digits + functional.binary_cross_entropy_with_logits(out[:, 20], f)

    _epochs(module, epochs, batches, loss_of, "reading")
    return export(module.eval(), READING)


def set_threads(threads: int) -> None:
    _torch().set_num_threads(threads)
