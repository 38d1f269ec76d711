"""The digit classifier: the convolutional network's weights and the calibrated settings.

The artefact (`model/digits.npz`) holds the network's weights (float16, to keep it small),
the calibrated softmax temperature, faintness factor, miscount rate and frame-fusion
exponent, and the acceptance threshold chosen by `bingo_hall.vision.train`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bingo_hall.vision.convnet import LAYERS, forward

MODEL_PATH = Path(__file__).resolve().parent / "model" / "digits.npz"
FULL_CONTRAST = 0.8  # prints at least this dark are read at the plain temperature
SETTINGS = ("temperature", "faintness", "miscount", "fusion", "threshold")


@dataclass(frozen=True)
class DigitModel:
    params: dict[str, np.ndarray] = field(repr=False)
    temperature: float = 1.0
    faintness: float = 0.0  # how much a faint print raises the temperature
    miscount: float = 0.02  # how often a label's digits are counted wrong
    fusion: float = 1.0  # k frames of one ball weigh k**(1 - fusion) frames' worth
    threshold: float = 0.999

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Raw class scores, one row per input row."""
        scores, _ = forward(self.params, features.astype(np.float32))
        return scores

    def log_probs(self, features: np.ndarray, contrast: float = 1.0) -> np.ndarray:
        """Calibrated log-probabilities of the ten digits, one row per input row, for a print
        of the given contrast (the median darkness of its faintest digit, 0..1): the fainter
        the print, the less sure the classifier is allowed to be."""
        faint = max(0.0, FULL_CONTRAST - contrast) / FULL_CONTRAST
        z = self.logits(features) / (self.temperature * (1 + self.faintness * faint))
        z = z - z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def save(self, path: Path = MODEL_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        weights = {k: self.params[k].astype(np.float16) for k in LAYERS}
        settings = {k: np.float64(getattr(self, k)) for k in SETTINGS}
        np.savez_compressed(path, **weights, **settings)


def load_model(path: Path = MODEL_PATH) -> DigitModel:
    with np.load(path) as data:
        params = {k: data[k].astype(np.float32) for k in LAYERS}
        settings = {k: float(data[k]) for k in SETTINGS}
    return DigitModel(params, **settings)
