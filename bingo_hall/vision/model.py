"""The label reader's model: its networks and the calibrated settings.

The artefact (`model/labels.npz`) holds the weights of the orientation network, of the
reading networks and, in models since 2026-11-27, of the window network (float16, to keep
it small), the calibrated softmax temperature, the
label- and frame-fusion exponents, and the acceptance thresholds chosen by
`bingo_hall.vision.train`, one for each kind of evidence a reading rests on (`Evidence`): a
single label, two labels found in one frame, two labels of one frame agreeing on the number
(a damaged print can look like another number; a second print on the ball contradicts it).

The reading networks are an ensemble: fitted alike from different seeds, they agree on a
clear print and disagree on a damaged one more often than any one of them doubts it, so
their mixture is surer where it may be and less sure where it may not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import cached_property
from pathlib import Path

import numpy as np

from bingo_hall.vision.digits import printed_digits
from bingo_hall.vision.labelnet import (
    OBSCURED,
    ORIENTATION,
    READ_SCALE,
    READ_SIDE,
    UPSIDE_DOWN,
    WINDOW,
    Architecture,
    Weights,
    architecture_of,
    conv_kernels,
    hidden_layer,
    output_layer,
    standardise,
    text_angles,
    upright,
)

MODEL_PATH = Path(__file__).resolve().parent / "model" / "labels.npz"
SETTINGS = (
    "temperature",
    "label_fusion",
    "fusion",
    "threshold",
    "threshold_two_labels",
    "threshold_two_found",
    "views",
    "obscured_shift",
)
# Views each reading network reads a label through: (turn in degrees, scale, shift in patch
# pixels along the text and across it), all within what the networks saw while fitting. A
# model reads its first `views`; the mixture over networks and views doubts where a print
# reads differently when looked at slightly otherwise.
VIEWS = (
    (0.0, 1.0, 0.0, 0.0),
    (5.0, 1.05, 1.0, 0.0),
    (-5.0, 0.95, -1.0, 1.0),
    (2.5, 0.92, 0.0, -1.0),
    (-2.5, 1.08, 1.0, 1.0),
)
NUMBERS = np.arange(1, 91)
TENS, UNITS = np.array([[int(d) for d in printed_digits(int(n))] for n in NUMBERS]).T


class Evidence(IntEnum):
    """What a reading rests on, weakest first; each kind has its own acceptance threshold.

    A second label in the frame checks the first even when it does not agree: the confident
    mistakes of the calibration (a damaged print that shows another number) are readings of
    a frame where one label alone was found."""

    ONE_LABEL = 0  # no frame of the reading showed two labels
    TWO_FOUND = 1  # a frame showed two labels, not both giving the number even odds
    TWO_AGREEING = 2  # two labels of one frame each give the number even odds or better


EVIDENCE_NAMES = {
    Evidence.ONE_LABEL: "one label",
    Evidence.TWO_FOUND: "two labels found, not agreeing",
    Evidence.TWO_AGREEING: "two labels agreeing",
}


@dataclass(frozen=True)
class LabelModel:
    orientation: Weights = field(repr=False)
    readers: tuple[Weights, ...] = field(repr=False)  # the reading networks
    temperature: float = 1.0  # divides the digit scores
    label_fusion: float = 1.0  # k labels of one frame weigh k**(1 - label_fusion) labels
    fusion: float = 0.5  # k frames of one ball weigh k**(1 - fusion) frames
    threshold: float = 0.999  # a reading on one label (Evidence.ONE_LABEL)
    threshold_two_labels: float = 0.999  # two labels of one frame agree (TWO_AGREEING)
    threshold_two_found: float = 0.999  # two labels found in one frame (TWO_FOUND)
    window: Weights | None = field(default=None, repr=False)  # None: windows placed by rules
    views: int = 1  # the first `views` of VIEWS each reading network reads a label through
    obscured_shift: float = 0.0  # added to the "obscured" score (log-odds), when there is one

    def threshold_for(self, evidence: Evidence) -> float:
        """The acceptance threshold of a reading that rests on this evidence."""
        if evidence == Evidence.TWO_AGREEING:
            return self.threshold_two_labels
        if evidence == Evidence.TWO_FOUND:
            return self.threshold_two_found
        return self.threshold

    def outputs(self, grey_patches: list[np.ndarray]) -> np.ndarray:
        """The reading networks' scores (tens, units, upside down, and obscured if they have
        that output), one row per label, as one network's would be (`mixture`).

        A label the networks take for upside down (the orientation network mistook the bar
        for the top) is turned round and read again; the way it looks more upright is kept."""
        return self._read_upright(grey_patches)[0]

    def features(self, grey_patches: list[np.ndarray]) -> np.ndarray:
        """Each label as the reading networks see it, turned as `outputs` turns it: their
        hidden layers side by side (first view), scaled to unit length. Two pictures of one
        print lie close; a ball set's own prints can be told apart by them."""
        return self._read_upright(grey_patches)[1]

    def outputs_and_features(self, grey_patches: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """`outputs` and `features` of the labels, from one pass of the networks."""
        return self._read_upright(grey_patches)

    def _read_upright(self, grey_patches: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The outputs and the features, each label read at the angle it looks upright at."""
        angles = text_angles(self.orientation, grey_patches, self._orientation_kernels)
        out, features = self._read(grey_patches, angles)
        doubtful = np.flatnonzero(out[:, UPSIDE_DOWN] > 0)
        if len(doubtful):
            again, again_features = self._read(
                [grey_patches[i] for i in doubtful], angles[doubtful] + math.pi
            )
            better = again[:, UPSIDE_DOWN] < out[doubtful, UPSIDE_DOWN]
            out[doubtful[better]] = again[better]
            features[doubtful[better]] = again_features[better]
        return out, features

    def _read(
        self, grey_patches: list[np.ndarray], angles: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The networks' mixed outputs over the model's views, and the first view's features."""
        outputs, features = [], None
        for view in VIEWS[: self.views]:
            x = _view_batch(grey_patches, angles, view)
            hidden = [
                hidden_layer(weights, self.reading_architecture, x, kernels)
                for weights, kernels in zip(self.readers, self._reader_kernels, strict=True)
            ]
            outputs += [output_layer(w, h) for w, h in zip(self.readers, hidden, strict=True)]
            if features is None:
                joined = np.concatenate(hidden, axis=1)
                features = joined / np.maximum(np.linalg.norm(joined, axis=1, keepdims=True), 1e-9)
        assert features is not None, "a model reads at least one view"
        return mixture(outputs), features

    @cached_property
    def _orientation_kernels(self) -> tuple[np.ndarray, ...]:
        """The convolutions' weights arranged once for the forward pass, not every frame."""
        return conv_kernels(self.orientation, ORIENTATION)

    @cached_property
    def window_kernels(self) -> tuple[np.ndarray, ...] | None:
        return None if self.window is None else conv_kernels(self.window, WINDOW)

    @cached_property
    def reading_architecture(self) -> Architecture:
        """The reading networks' widths and outputs, read off their weights (all alike)."""
        return architecture_of(self.readers[0], READ_SIDE)

    @cached_property
    def _reader_kernels(self) -> tuple[tuple[np.ndarray, ...], ...]:
        return tuple(conv_kernels(weights, self.reading_architecture) for weights in self.readers)

    def as_saved(self) -> LabelModel:
        """The model with its weights rounded to float16 as the file keeps them: the one the
        reader will run, so the one to calibrate."""

        def rounded(weights: Weights) -> Weights:
            return {k: v.astype(np.float16).astype(np.float32) for k, v in weights.items()}

        return replace(
            self,
            orientation=rounded(self.orientation),
            readers=tuple(rounded(reader) for reader in self.readers),
            window=None if self.window is None else rounded(self.window),
        )

    def save(self, path: Path = MODEL_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        weights = {f"orientation/{k}": v.astype(np.float16) for k, v in self.orientation.items()}
        for i, reader in enumerate(self.readers):
            weights |= {f"reading{i}/{k}": v.astype(np.float16) for k, v in reader.items()}
        if self.window is not None:
            weights |= {f"window/{k}": v.astype(np.float16) for k, v in self.window.items()}
        settings = {k: np.float64(getattr(self, k)) for k in SETTINGS}
        np.savez_compressed(path, **weights, **settings, readers=np.int64(len(self.readers)))


def _view_batch(
    grey_patches: list[np.ndarray], angles: np.ndarray, view: tuple[float, float, float, float]
) -> np.ndarray:
    """The labels turned upright along their angles through one of the VIEWS, standardised:
    the reading networks' input."""
    turn, scale, along, across = view
    return standardise(
        np.stack(
            [
                _viewed(g, float(a) + math.radians(turn), scale, along, across)
                for g, a in zip(grey_patches, angles, strict=True)
            ]
        )
    )


def _viewed(
    grey_patch: np.ndarray, angle: float, scale: float, along: float, across: float
) -> np.ndarray:
    """The label turned upright along `angle`, scaled and shifted along and across the text."""
    shift = (
        along * math.cos(angle) - across * math.sin(angle),
        along * math.sin(angle) + across * math.cos(angle),
    )
    return upright(grey_patch, angle, READ_SCALE * scale, shift)


def mixture(outputs: list[np.ndarray]) -> np.ndarray:
    """Several reading networks' outputs as one network's: for each digit, the log of the
    mean of their probabilities, and each yes-or-no score (upside down, obscured) one whose
    sigmoid is the mean of theirs. Where the networks disagree the mixture doubts; one
    network is left as it is (its digit scores shifted by a constant, which changes no
    probability)."""
    stack = np.stack(outputs)
    mean = -math.log(len(outputs))
    tens = np.logaddexp.reduce(log_normalise(stack[..., :10]), axis=0) + mean
    units = np.logaddexp.reduce(log_normalise(stack[..., 10:20]), axis=0) + mean
    yes_or_no = stack[..., UPSIDE_DOWN:]
    log_p = np.logaddexp.reduce(log_sigmoid(yes_or_no), axis=0) + mean  # log of the mean sigmoid
    log_q = np.logaddexp.reduce(log_sigmoid(-yes_or_no), axis=0) + mean
    return np.concatenate([tens, units, log_p - log_q], axis=1)


def number_log_likelihoods(
    outputs: np.ndarray, temperature: float, obscured_shift: float = 0.0
) -> np.ndarray:
    """Log-likelihood of each of the 90 numbers, one row per label, from the reading
    network's outputs: tens and units as printed (7 is 07) if the label was upright and its
    print whole; if it was upside down or part of its print obscured, nothing (the same for
    every number). `obscured_shift` moves the odds of "obscured" (the calibration chooses
    it: the networks' odds are those of the training damage). In float64: the confidences
    that matter lie within a few 1e-6 of 1, where float32 has little left to say."""
    outputs = outputs.astype(np.float64)
    tens = log_normalise(outputs[:, :10] / temperature)
    units = log_normalise(outputs[:, 10:20] / temperature)
    upside = outputs[:, UPSIDE_DOWN]
    legible_lp = log_sigmoid(-upside)
    says_nothing_lp = log_sigmoid(upside)
    if outputs.shape[1] > OBSCURED:  # P(upside down) + P(upright) P(obscured)
        obscured = outputs[:, OBSCURED] + obscured_shift
        says_nothing_lp = np.logaddexp(says_nothing_lp, legible_lp + log_sigmoid(obscured))
        legible_lp = legible_lp + log_sigmoid(-obscured)
    read_lp = legible_lp[:, None] + tens[:, TENS] + units[:, UNITS]
    return np.logaddexp(read_lp, says_nothing_lp[:, None] - math.log(90))


AGREES = math.log(0.5)  # a label agrees with a number it gives a probability of one half or more


def evidence_of(labels_found: np.ndarray | int, labels_agreeing: np.ndarray | int) -> np.ndarray:
    """The evidence (`Evidence` values) of frames, from their labels found and those agreeing
    on the number; one frame's as a 0-d array."""
    return np.where(
        np.asarray(labels_agreeing) >= 2,
        Evidence.TWO_AGREEING,
        np.where(np.asarray(labels_found) >= 2, Evidence.TWO_FOUND, Evidence.ONE_LABEL),
    )


def agreeing(label_log_posteriors: np.ndarray, number_index: np.ndarray | int) -> np.ndarray:
    """Which labels agree with the number (index 0-89, one per label or one for all): read
    alone, each gives it at least even odds against all other numbers together."""
    rows = np.arange(len(label_log_posteriors))
    return label_log_posteriors[rows, number_index] >= AGREES


def log_sigmoid(x: np.ndarray) -> np.ndarray:
    """log(1 / (1 + e^-x)), without overflow."""
    return -np.logaddexp(0.0, -x)


def log_normalise(values: np.ndarray) -> np.ndarray:
    """Scores made log-probabilities along the last axis (minus their log-sum-exp); a score
    of -inf stays -inf, a probability of zero."""
    top = values.max(axis=-1, keepdims=True)
    return values - (top + np.log(np.exp(values - top).sum(axis=-1, keepdims=True)))


def _weights_under(data: np.lib.npyio.NpzFile, prefix: str) -> Weights:
    """One network's weights in the file, whatever its widths."""
    return {
        name.removeprefix(prefix): data[name].astype(np.float32)
        for name in data.files
        if name.startswith(prefix)
    }


def load_model(path: Path = MODEL_PATH) -> LabelModel:
    with np.load(path) as data:
        orientation = _weights_under(data, "orientation/")
        readers = tuple(_weights_under(data, f"reading{i}/") for i in range(int(data["readers"])))
        settings = {k: float(data[k]) for k in SETTINGS if k in data}
        window = _weights_under(data, "window/") if "window/out.bias" in data else None
    # files from before the thresholds by evidence: the one-label threshold where none is set
    settings.setdefault("threshold_two_labels", settings["threshold"])
    settings.setdefault("threshold_two_found", settings["threshold"])
    views = int(settings.pop("views", 1))  # files from before the views: one
    return LabelModel(orientation, readers, window=window, views=views, **settings)
