"""Fitting the label networks with PyTorch (a training-only dependency: `pip install
'.[train]'`); the reader runs them in numpy (`bingo_hall.vision.labelnet`).

Every epoch, each label is turned upright afresh by the reader's own `upright`, along its
true direction plus a small error (the orientation network's is a few degrees), at a
slightly different scale and place, and some labels are turned upside down on purpose (the
reading network must say so rather than read a 68 as 89). The grey levels are damaged as a
camera damages them (`damage.damage`). A reading network may also be taught to say when part
of the print is obscured: by the renderer's highlights (`label_data.obscured`) or by the
damage (`damage.destroyed_share`).
"""

from __future__ import annotations

import math

import numpy as np

from bingo_hall.vision.damage import damage, destroyed_share
from bingo_hall.vision.label_data import LabelSet
from bingo_hall.vision.labelnet import (
    OBSCURED,
    OBSCURED_READ_OUTPUTS,
    ORIENTATION,
    READ_SCALE,
    READING,
    UPSIDE_DOWN,
    WINDOW,
    Architecture,
    Weights,
    orientation_input,
    standardise,
    upright,
)
from bingo_hall.vision.letterforms import vary_letterforms
from bingo_hall.vision.model import TENS, UNITS

UPSIDE_DOWN_SHARE = 0.15
ANGLE_ERROR_DEG = 6.0  # standard deviation of the direction's error while training
BATCH = 128


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
    target = np.stack([np.cos(data.angle), np.sin(data.angle)], axis=1).astype(np.float32)
    return _fit_regression(ORIENTATION, data, target, seed, epochs, "orientation")


# a window error beyond this is the rules' failure at its worst (a label split or cut, the
# print mostly outside the window): taught as this far, not as far as measured
WINDOW_LIMIT = 1.0


def fit_window(data: LabelSet, seed: int, epochs: int) -> Weights:
    """The window network: where the print is in the window and how large
    (`label_data.window_error`)."""
    target = np.clip(data.window, -WINDOW_LIMIT, WINDOW_LIMIT).astype(np.float32)
    return _fit_regression(WINDOW, data, target, seed, epochs, "window")


def _fit_regression(
    arch: Architecture, data: LabelSet, target: np.ndarray, seed: int, epochs: int, log: str
) -> Weights:
    """A network of the orientation network's input fitted to `target` by squared error,
    the labels damaged afresh each epoch."""
    torch = _torch()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = network(arch)
    images = np.stack([orientation_input(g) for g in data.grey])

    def batches(epoch):
        if epoch is None:
            return math.ceil(len(images) / BATCH)
        x = standardise(damage(images, rng))
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

    _epochs(module, epochs, batches, loss_of, log)
    return export(module.eval(), arch)


def digit_targets(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tens and units as printed (7 is 07)."""
    rows = numbers.astype(np.int64) - 1
    return TENS[rows], UNITS[rows]


def reading_inputs(
    data: LabelSet, rng: np.random.Generator, letterforms: float = 0.0, measure: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One epoch's upright labels (with their errors of direction, scale and place, and
    `letterforms` of them with their letterforms varied), damaged; which of them were turned
    upside down; and, if `measure`, the share of each print the damage destroyed (else 0)."""
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
    if letterforms > 0:  # with none, the epoch's random draws stay those of a fit before
        images = vary_letterforms(images, rng, letterforms)
    damaged = damage(images, rng)
    if not measure:  # the measure reads every pixel of every label again, every epoch
        return damaged, flipped, np.zeros(len(damaged), np.float32)
    return damaged, flipped, destroyed_share(images, damaged)


# a print the damage destroyed this much is taught as doubtful: its digits' target moves
# towards every digit alike, up to `doubt` at DESTROYED_FULLY
DESTROYED_FROM, DESTROYED_FULLY = 0.3, 0.9


def ramp(destroyed: np.ndarray, start: float, full: float) -> np.ndarray:
    """0 up to `start`, rising evenly to 1 at `full` and beyond."""
    return np.clip((destroyed - start) / (full - start), 0.0, 1.0).astype(np.float32)


def digit_target_doubt(destroyed: np.ndarray, doubt: float) -> np.ndarray:
    """How far each print's digit targets move from its own digits towards every digit."""
    return doubt * ramp(destroyed, DESTROYED_FROM, DESTROYED_FULLY)


def obscured_target(
    by_highlights: np.ndarray, by_damage: np.ndarray, start: float, full: float
) -> np.ndarray:
    """The truth taught to the "obscured" output: how far the share of the print lost to the
    renderer's highlights or to the damage, whichever lost more, lies up the `ramp` from
    `start` to `full`. A print that lost little is taught as whole, with certainty."""
    return ramp(np.maximum(by_highlights, by_damage), start, full)


def fit_reading(
    data: LabelSet,
    seed: int,
    epochs: int,
    letterforms: float = 0.0,
    doubt: float = 0.0,
    arch: Architecture = READING,
    obscured: tuple[float, float] | None = None,
) -> Weights:
    """The reading network: tens, units, upside down; `letterforms`: the share of training
    prints whose letterforms are varied afresh each epoch (`vary_letterforms`); `doubt`: how
    far the digit targets of a print the damage destroyed move towards every digit alike
    (`digit_target_doubt`; 0: a damaged print is taught as its own number, however little
    is left of it); `arch`: the network's widths; `obscured` (start, full): a 22nd output,
    the print partly obscured, taught as `obscured_target` (the architecture must have it)."""
    if (obscured is not None) != (arch.outputs == OBSCURED_READ_OUTPUTS):
        raise ValueError("an obscured output needs its truth, and its truth the output")
    torch = _torch()
    functional = torch.nn.functional
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = network(arch)
    tens, units = digit_targets(data.number)

    def batches(epoch):
        if epoch is None:
            return math.ceil(len(data) / BATCH)
        measure = doubt > 0 or obscured is not None
        images, flipped, destroyed = reading_inputs(data, rng, letterforms, measure)
        x = standardise(images)
        soft = digit_target_doubt(destroyed, doubt)
        hidden = (
            np.zeros(len(x), np.float32)
            if obscured is None
            else obscured_target(data.obscured, destroyed, *obscured)
        )
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
                    torch.from_numpy(soft[rows]),
                    torch.from_numpy(hidden[rows]),
                )
            )
        return out

    def digit_loss(scores, digit, soft):
        """Cross-entropy against the own digit, moved by `soft` towards every digit."""
        log_p = functional.log_softmax(scores, dim=1)
        own = -log_p.gather(1, digit[:, None])[:, 0]
        return (1 - soft) * own - soft * log_p.mean(dim=1)

    def loss_of(batch):
        x, t, u, f, soft, hidden = batch
        out = run(module, x)
        upright_rows = f < 0.5
        digits = digit_loss(out[:, :10], t, soft) + digit_loss(out[:, 10:20], u, soft)
        digits = (digits * upright_rows).sum() / upright_rows.sum().clamp(min=1)
        loss = digits + functional.binary_cross_entropy_with_logits(out[:, UPSIDE_DOWN], f)
        if obscured is not None:
            loss = loss + functional.binary_cross_entropy_with_logits(out[:, OBSCURED], hidden)
        return loss

    _epochs(module, epochs, batches, loss_of, "reading")
    return export(module.eval(), arch)


def set_threads(threads: int) -> None:
    _torch().set_num_threads(threads)
