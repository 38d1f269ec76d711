"""The digit classifier: a small ensemble of perceptrons, its packaged weights and settings.

The artefact (`model/digits.npz`) holds the feature standardisation, the two layers' weights
(float16, to keep it small), the calibrated softmax temperature, faintness factor, miscount
rate and frame-fusion exponent, and the acceptance threshold chosen by `bingo_hall.vision.train`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).resolve().parent / "model" / "digits.npz"
FULL_CONTRAST = 0.8  # prints at least this dark are read at the plain temperature


@dataclass(frozen=True)
class DigitModel:
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    temperature: float = 1.0
    faintness: float = 0.0  # how much a faint print raises the temperature
    miscount: float = 0.02  # how often a label's digits are counted wrong
    fusion: float = 1.0  # k frames of one ball weigh k**(1 - fusion) frames' worth
    threshold: float = 0.999

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Raw class scores, one row per feature row: the mean of the ensemble's members
        (the weights' first axis), which disagree where a digit is doubtful."""
        x = (features - self.mean) / self.scale
        hidden = np.maximum(np.einsum("nd,edh->enh", x, self.w1) + self.b1[:, None, :], 0)
        return (np.einsum("enh,ehk->enk", hidden, self.w2) + self.b2[:, None, :]).mean(axis=0)

    def log_probs(self, features: np.ndarray, contrast: float = 1.0) -> np.ndarray:
        """Calibrated log-probabilities of the ten digits, one row per feature row, for a print
        of the given contrast (the median darkness of its faintest digit, 0..1): the fainter
        the print, the less sure the classifier is allowed to be."""
        faint = max(0.0, FULL_CONTRAST - contrast) / FULL_CONTRAST
        z = self.logits(features) / (self.temperature * (1 + self.faintness * faint))
        z = z - z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    def save(self, path: Path = MODEL_PATH) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path,
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            w1=self.w1.astype(np.float16),
            b1=self.b1.astype(np.float32),
            w2=self.w2.astype(np.float16),
            b2=self.b2.astype(np.float32),
            temperature=np.float64(self.temperature),
            faintness=np.float64(self.faintness),
            miscount=np.float64(self.miscount),
            fusion=np.float64(self.fusion),
            threshold=np.float64(self.threshold),
        )


def load_model(path: Path = MODEL_PATH) -> DigitModel:
    with np.load(path) as data:
        return DigitModel(
            mean=data["mean"].astype(np.float32),
            scale=data["scale"].astype(np.float32),
            w1=data["w1"].astype(np.float32),
            b1=data["b1"].astype(np.float32),
            w2=data["w2"].astype(np.float32),
            b2=data["b2"].astype(np.float32),
            temperature=float(data["temperature"]),
            faintness=float(data["faintness"]),
            miscount=float(data["miscount"]),
            fusion=float(data["fusion"]),
            threshold=float(data["threshold"]),
        )
