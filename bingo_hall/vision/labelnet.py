"""Reading a flattened label with two small convolutional networks (numpy at run time).

0. The *window* network (when the model has one) looks at the label as the orientation
   network does and says where the print is in it and how large: the label is flattened
   again round the print where the rules that placed the window missed it.
1. The *orientation* network looks at the label (grey, 32×32) and gives the direction in
   which its text runs, as a unit vector (cos, sin) in the patch's axes.
2. The label is turned upright along that direction (`upright`, 48×48 around its centre)
   and the *reading* network gives the tens digit and the units digit as printed (7 is 07),
   ten scores each, and one score for "this label is upside down" (the orientation
   network took the bar for the top): a label it thinks upside down says little. A reading
   network may have a 22nd score, "part of this print is obscured" (a highlight washed it
   out, the ink faded, the ball's edge hides it): an obscured print says little too.

Both are trained by `bingo_hall.vision.train` on labels flattened by the reader's own
pipeline from rendered balls whose pose, and so the true direction of each print, is known.
The architecture is fixed here and mirrored by the trainer; the weights are in the model
file, as float16.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

ORIENT_SIDE = 32
READ_SIDE = 48
READ_SCALE = 1.15  # patch pixels per input pixel: the 48 inputs span ±27.6 patch pixels
ORIENT_CHANNELS = (12, 24, 48)
ORIENT_HIDDEN = 64
READ_CHANNELS = (16, 32, 64, 96)
READ_HIDDEN = 128
ORIENT_OUTPUTS = 2  # cos, sin of the text's direction
WINDOW_OUTPUTS = 3  # where the print is in the window, and how large (`window_corrections`)
READ_OUTPUTS = 21  # tens (10), units (10), upside down (1)
OBSCURED_READ_OUTPUTS = 22  # and part of the print obscured (1)
UPSIDE_DOWN, OBSCURED = 20, 21  # the columns of those scores


@dataclass(frozen=True)
class Architecture:
    """A stack of (3×3 convolution, ReLU, 2×2 max-pooling) blocks, then one hidden layer."""

    side: int
    channels: tuple[int, ...]
    hidden: int
    outputs: int

    @property
    def flat(self) -> int:
        last = self.side >> len(self.channels)
        return self.channels[-1] * last * last

    def shapes(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, tuple[int, ...]] = {}
        before = 1
        for i, width in enumerate(self.channels):
            out[f"conv{i}.weight"] = (width, before, 3, 3)
            out[f"conv{i}.bias"] = (width,)
            before = width
        out["hidden.weight"] = (self.hidden, self.flat)
        out["hidden.bias"] = (self.hidden,)
        out["out.weight"] = (self.outputs, self.hidden)
        out["out.bias"] = (self.outputs,)
        return out


ORIENTATION = Architecture(ORIENT_SIDE, ORIENT_CHANNELS, ORIENT_HIDDEN, ORIENT_OUTPUTS)
READING = Architecture(READ_SIDE, READ_CHANNELS, READ_HIDDEN, READ_OUTPUTS)
WINDOW = Architecture(ORIENT_SIDE, ORIENT_CHANNELS, ORIENT_HIDDEN, WINDOW_OUTPUTS)

Weights = dict[str, np.ndarray]


def reading_architecture(
    channels: tuple[int, ...], hidden: int, outputs: int = READ_OUTPUTS
) -> Architecture:
    """A reading network of other widths or outputs (a model's weights say which it holds)."""
    return Architecture(READ_SIDE, channels, hidden, outputs)


def architecture_of(weights: Weights, side: int) -> Architecture:
    """The architecture whose weights these are: its widths and outputs read off their
    shapes."""
    count = sum(1 for name in weights if name.startswith("conv") and name.endswith(".weight"))
    channels = tuple(weights[f"conv{i}.weight"].shape[0] for i in range(count))
    hidden, outputs = weights["hidden.weight"].shape[0], weights["out.bias"].shape[0]
    return Architecture(side, channels, hidden, outputs)


def grey(patch: np.ndarray) -> np.ndarray:
    """A flattened colour label as grey levels."""
    return cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)


def orientation_input(grey_patch: np.ndarray) -> np.ndarray:
    side = (ORIENT_SIDE, ORIENT_SIDE)
    return cv2.resize(grey_patch, side, interpolation=cv2.INTER_AREA)


def upright(
    grey_patch: np.ndarray,
    angle: float,
    scale: float = READ_SCALE,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The READ_SIDE square round the patch's centre (moved by `shift` patch pixels), turned
    so that the text, running at `angle` (radians, from the patch's x axis towards its y
    axis), runs along the input's x axis, `scale` patch pixels per input pixel."""
    c = (grey_patch.shape[0] - 1) / 2
    o = (READ_SIDE - 1) / 2
    rx, ry = math.cos(angle) * scale, math.sin(angle) * scale  # text right, in the patch
    dx, dy = -ry, rx  # text down
    m = np.array(
        [
            [rx, dx, c + shift[0] - o * (rx + dx)],
            [ry, dy, c + shift[1] - o * (ry + dy)],
        ],
        np.float32,
    )
    return cv2.warpAffine(
        grey_patch,
        m,
        (READ_SIDE, READ_SIDE),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )


def standardise(images: np.ndarray) -> np.ndarray:
    """(N, H, W) grey levels → (N, 1, H, W) float32, each image to zero mean and about unit
    spread (lighting and exposure differ from ball to ball)."""
    x = images.astype(np.float32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    spread = x.std(axis=(1, 2), keepdims=True) + 8.0
    return ((x - mean) / spread)[:, None]


def forward(
    weights: Weights,
    arch: Architecture,
    x: np.ndarray,
    kernels: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """The network's outputs for inputs (N, 1, side, side), as PyTorch computes them.

    Computed channels-last (each convolution one matrix product over the nine shifted
    copies of its input, with no transposes between layers), then flattened in PyTorch's
    channels-first order for the hidden layer. `kernels` are the weights' `conv_kernels`,
    arranged once by a caller that runs the network often."""
    return output_layer(weights, hidden_layer(weights, arch, x, kernels))


def output_layer(weights: Weights, hidden: np.ndarray) -> np.ndarray:
    """The network's outputs from its hidden layer (`hidden_layer`)."""
    return hidden @ weights["out.weight"].T + weights["out.bias"]


def hidden_layer(
    weights: Weights,
    arch: Architecture,
    x: np.ndarray,
    kernels: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """The network's hidden layer for inputs (N, 1, side, side): what its outputs are read
    from (`forward`)."""
    if kernels is None:
        kernels = conv_kernels(weights, arch)
    x = x.transpose(0, 2, 3, 1)
    for i, kernel in enumerate(kernels):
        x = _pool(np.maximum(_conv3x3(x, kernel, weights[f"conv{i}.bias"]), 0))
    x = x.transpose(0, 3, 1, 2).reshape(len(x), -1)
    return np.maximum(x @ weights["hidden.weight"].T + weights["hidden.bias"], 0)


def conv_kernels(weights: Weights, arch: Architecture) -> tuple[np.ndarray, ...]:
    """Each convolution's weights (out, in, 3, 3) as the matrix (9·in, out) that multiplies
    the nine shifted copies of a channels-last input (row, column, channel)."""
    return tuple(
        np.ascontiguousarray(weights[f"conv{i}.weight"].transpose(2, 3, 1, 0).reshape(-1, width))
        for i, width in enumerate(arch.channels)
    )


def _conv3x3(x: np.ndarray, kernel: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3×3 convolution with zero padding, channels last: (N, H, W, C) → (N, H, W, out).
    The nine shifted copies are written straight into one array (no np.pad, no list to
    concatenate)."""
    n, h, wd, c = x.shape
    padded = np.zeros((n, h + 2, wd + 2, c), dtype=x.dtype)
    padded[:, 1:-1, 1:-1] = x
    columns = np.empty((n, h, wd, 9, c), dtype=x.dtype)
    for i in range(3):
        for j in range(3):
            columns[:, :, :, 3 * i + j] = padded[:, i : i + h, j : j + wd]
    return (columns.reshape(n * h * wd, 9 * c) @ kernel + b).reshape(n, h, wd, kernel.shape[1])


def _pool(x: np.ndarray) -> np.ndarray:
    """2×2 max-pooling, channels last (even sides): the largest of four strided views, which
    numpy does faster than a reduction over two axes of a reshaped copy."""
    rows = np.maximum(x[:, 0::2, 0::2], x[:, 0::2, 1::2])
    return np.maximum(rows, np.maximum(x[:, 1::2, 0::2], x[:, 1::2, 1::2]))


def window_corrections(
    weights: Weights,
    grey_patches: list[np.ndarray],
    kernels: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """Where the window network sees each label's print: (x, y) of its centre from the
    patch's centre, in half patch sides, and the log of its size over the size wanted
    (`prints.BLOCK_FILL`); one row per label (`prints.reframe` moves the window so)."""
    return forward(weights, WINDOW, _orientation_batch(grey_patches), kernels)


def _orientation_batch(grey_patches: list[np.ndarray]) -> np.ndarray:
    return standardise(np.stack([orientation_input(g) for g in grey_patches]))


def text_angles(
    weights: Weights,
    grey_patches: list[np.ndarray],
    kernels: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """The direction of the text on each label, radians."""
    out = forward(weights, ORIENTATION, _orientation_batch(grey_patches), kernels)
    return np.arctan2(out[:, 1], out[:, 0])
