"""The digit classifier: a small ensemble of convolutional networks and the calibrated settings.

The artefact (`model/digits.npz`) holds the networks' weights (float16, to keep it small),
the calibrated softmax temperature, faintness factor, miscount rate and frame-fusion
exponent, and the acceptance threshold chosen by `bingo_hall.vision.train`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bingo_hall.vision.convnet import LAYERS, NOT_A_DIGIT, forward

MODEL_PATH = Path(__file__).resolve().parent / "model" / "digits.npz"
FULL_CONTRAST = 0.8  # prints at least this dark are read at the plain temperature
SETTINGS = ("temperature", "faintness", "miscount", "fusion", "threshold")


@dataclass(frozen=True)
class DigitModel:
    members: tuple[dict[str, np.ndarray], ...] = field(repr=False)
    temperature: float = 1.0
    faintness: float = 0.0  # how much a faint print raises the temperature
    miscount: float = 0.02  # how often a label's digits are counted wrong
    fusion: float = 1.0  # k frames of one ball weigh k**(1 - fusion) frames' worth
    threshold: float = 0.999

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Raw class scores, one row per input row: the mean of the ensemble's networks
        (trained from different starting points, they disagree where a digit is doubtful)."""
        rows = features.astype(np.float32)
        return np.mean([forward(params, rows)[0] for params in self.members], axis=0)

    def log_probs(self, features: np.ndarray, contrast: float = 1.0) -> np.ndarray:
        """Calibrated log-probabilities of the ten digits, one row per input row, for a print
        of the given contrast (the median darkness of its faintest digit, 0..1): the fainter
        the print, the less sure the classifier is allowed to be."""
        faint = max(0.0, FULL_CONTRAST - contrast) / FULL_CONTRAST
        return digit_log_probs(
            self.logits(features), self.temperature * (1 + self.faintness * faint)
        )

    def save(self, path: Path = MODEL_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        weights = {
            f"{k}_{m}": params[k].astype(np.float16)
            for m, params in enumerate(self.members)
            for k in LAYERS
        }
        settings = {k: np.float64(getattr(self, k)) for k in SETTINGS}
        np.savez_compressed(path, members=np.int64(len(self.members)), **weights, **settings)


def digit_log_probs(logits: np.ndarray, temperature: float | np.ndarray) -> np.ndarray:
    """The ten digits' log-probabilities from the network's scores (last axis) at a temperature.

    What may not be a digit at all says nothing about which digit it is: its probability is
    shared evenly among the ten, so a blot never reads as a confident digit."""
    z = logits / temperature
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=-1, keepdims=True)
    digits = np.delete(p, NOT_A_DIGIT, axis=-1) + p[..., NOT_A_DIGIT : NOT_A_DIGIT + 1] / 10
    return np.log(np.maximum(digits, 1e-300))


def load_model(path: Path = MODEL_PATH) -> DigitModel:
    with np.load(path) as data:
        count = int(data["members"])
        members = tuple(
            {k: data[f"{k}_{m}"].astype(np.float32) for k in LAYERS} for m in range(count)
        )
        settings = {k: float(data[k]) for k in SETTINGS}
    return DigitModel(members, **settings)
