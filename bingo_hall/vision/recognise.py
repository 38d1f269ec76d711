"""Reading the ball at the exit: frame(s) in, a `Reading` out.

Per frame: find the ball, flatten its two most frontal labels, read each label's digits,
and turn the digits' calibrated probabilities into a log-likelihood for each of the 90
numbers. The labels of one frame add up. Several frames of the same ball add up their
log-posteriors divided by k**fusion: they are far from independent (same print, same light,
and the same mistakes), and a misreading repeated on every frame must not look much surer
than on one; the exponent (between 1/2 and 1, a mean) is chosen in calibration on bursts of
frames from the simulated camera. Restricting to
the candidates renormalises over the balls still in the machine; the answer's confidence is
the resulting probability of the best number, and the number is given only when that
passes the acceptance threshold chosen in training (`bingo_hall.vision.train`).

Otherwise the reason is "unsure" (a ball is there: the best guess is below the threshold, or
no print on it could be read, then with no guess), "no_ball", or "unreadable" (no usable
frame: None, empty, not 8-bit, not an image).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bingo_hall.vision.digits import Number, printed_digits, read_number
from bingo_hall.vision.features import digit_features
from bingo_hall.vision.locate import Circle, find_ball
from bingo_hall.vision.model import MODEL_PATH, DigitModel, load_model
from bingo_hall.vision.prints import ball_crop, find_labels
from bingo_hall.vision.reading import Reading

NUMBERS = np.arange(1, 91)
LABELS_PER_FRAME = 2
MIN_SIDE = 48  # pixels: a smaller frame cannot hold a readable ball
CUT_MISCOUNT = 0.3  # how often a one-digit label near the ball's edge has lost a digit
RISKY_TILT_DEG = 58.0  # labels seen more obliquely than this may have lost a digit


def _packaged_threshold() -> float:
    if not MODEL_PATH.exists():  # only while the model is being trained
        return 1.0
    with np.load(MODEL_PATH) as data:
        return float(data["threshold"])


ACCEPTANCE_THRESHOLD: float = _packaged_threshold()


def load_frame(path: str | Path) -> np.ndarray | None:
    """The image file as a BGR uint8 frame, or None when it cannot be decoded.

    Raises FileNotFoundError when there is no such file."""
    data = np.fromfile(Path(path), dtype=np.uint8)
    if data.size == 0:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class FrameEvidence:
    """What one frame says: a log-likelihood per number, or why it says nothing."""

    scores: np.ndarray | None
    reason: str | None  # "unreadable" (no usable frame), "no_ball", "unsure" (no print read)
    ball: bool


def as_bgr(frame: object) -> np.ndarray | None:
    """The frame as a BGR uint8 image, or None when it is not a usable image."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.size == 0:
        return None
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 1:
        frame = cv2.cvtColor(frame[..., 0], cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    elif frame.ndim != 3 or frame.shape[2] != 3:
        return None
    if min(frame.shape[:2]) < MIN_SIDE:
        return None
    return np.ascontiguousarray(frame)


_TENS, _UNITS = np.array([[int(d) for d in printed_digits(n)] for n in NUMBERS]).T


def label_features(number: Number) -> np.ndarray:
    """The feature rows of a label's digits, left to right."""
    return np.stack(
        [digit_features(d, a) for d, a in zip(number.digits, number.aspects, strict=True)]
    )


def number_scores(logp: np.ndarray, miscount: float) -> np.ndarray:
    """Log-likelihood of each of the 90 numbers given one label's digit log-probabilities
    (one row per digit read), allowing that the digits were counted wrong (rate `miscount`).
    Every ball is printed with two digits (7 as 07): two digits read are its tens and units;
    one digit read is a print that lost the other, and shows either of its digits."""
    return number_scores_batch(logp[None], np.array([miscount]))[0]


def number_scores_batch(logp: np.ndarray, miscount: np.ndarray) -> np.ndarray:
    """`number_scores` for many labels read with the same count of digits at once: `logp` is
    (labels, digits, 10), `miscount` one rate per label; one row of 90 per label."""
    if logp.shape[1] == 1:
        p = np.exp(logp[:, 0])
        return np.log(miscount[:, None]) + np.log(0.5 * (p[:, _TENS] + p[:, _UNITS]) + 1e-300)
    return np.log1p(-miscount[:, None]) + logp[:, 0, _TENS] + logp[:, 1, _UNITS]


@dataclass(frozen=True)
class LabelRead:
    """The digits read on one label: their feature rows, and whether the label is cut by
    the ball's edge."""

    features: np.ndarray
    cut: bool
    tilt_deg: float = 0.0
    contrast: float = 1.0

    @property
    def count(self) -> int:
        return len(self.features)


def chosen_labels(labels: Sequence[LabelRead]) -> list[tuple[LabelRead, float]]:
    """The labels a frame is read from (most frontal first), each with its miscount rate.

    A label near the ball's edge (cut by it, or seen more obliquely than RISKY_TILT_DEG) is
    foreshortened and often half hidden: it is misread far more often than one seen squarely,
    and a one-digit reading of it may have lost the other digit. When any label was seen
    squarely, only those count; otherwise the most frontal label read as two digits; otherwise
    the first label, as one that may have lost a digit.
    """
    frontal = [label for label in labels if not (label.cut or label.tilt_deg > RISKY_TILT_DEG)]
    if frontal:
        return [(label, 0.0) for label in frontal[:LABELS_PER_FRAME]]
    pairs = [label for label in labels if label.count == 2]
    if pairs:
        return [(pairs[0], 0.0)]
    return [(labels[0], CUT_MISCOUNT)]


def frame_scores(model: DigitModel, labels: Sequence[LabelRead]) -> np.ndarray:
    """A frame's log-likelihood per number from the labels read on it."""
    total = np.zeros(90)
    for label, miscount in chosen_labels(labels):
        miscount = max(model.miscount, miscount)
        logp = model.log_probs(label.features, label.contrast)
        total += number_scores(logp, miscount)
    return total


def read_labels(image: np.ndarray, ball: Circle) -> list[LabelRead]:
    """The labels read on the ball, most frontal first."""
    out = []
    for label in find_labels(ball_crop(image, ball), LABELS_PER_FRAME):
        number = read_number(label.patch)
        if number is not None:
            features = label_features(number)
            out.append(LabelRead(features, label.cut, label.tilt_deg, number.contrast))
    return out


def evidence_from_labels(model: DigitModel, labels: Sequence[LabelRead]) -> FrameEvidence:
    if not labels:  # a ball, but no print could be read on it
        return FrameEvidence(None, "unsure", ball=True)
    total = frame_scores(model, labels)
    return FrameEvidence(total - _logsumexp(total), None, ball=True)


class BallReader:
    """Reads the number of the ball at the exit; loads the packaged model once."""

    def __init__(self, threshold: float = ACCEPTANCE_THRESHOLD) -> None:
        self.model = load_model()
        self.threshold = threshold

    def evidence(self, frame: object) -> FrameEvidence:
        image = as_bgr(frame)
        if image is None:
            return FrameEvidence(None, "unreadable", ball=False)
        ball = find_ball(image)
        if ball is None:
            return FrameEvidence(None, "no_ball", ball=False)
        return evidence_from_labels(self.model, read_labels(image, ball))

    def read(self, frame: np.ndarray, candidates: Collection[int] | None = None) -> Reading:
        return self.decide([self.evidence(frame)], candidates)

    def read_frames(
        self, frames: Sequence[np.ndarray], candidates: Collection[int] | None = None
    ) -> Reading:
        return self.decide([self.evidence(frame) for frame in frames], candidates)

    def decide(
        self, evidence: Sequence[FrameEvidence], candidates: Collection[int] | None = None
    ) -> Reading:
        allowed = _allowed(candidates)
        scored = [e.scores for e in evidence if e.scores is not None]
        if not scored:
            if any(e.ball for e in evidence):
                return Reading(None, 0.0, None, "unsure")
            if any(e.reason == "no_ball" for e in evidence):
                return Reading(None, 0.0, None, "no_ball")
            return Reading(None, 0.0, None, "unreadable")
        if not allowed.any():
            return Reading(None, 0.0, None, "unsure")
        fused = np.sum(scored, axis=0) / len(scored) ** self.model.fusion
        fused = np.where(allowed, fused, -np.inf)
        posterior = np.exp(fused - _logsumexp(fused))
        best = int(np.argmax(posterior))
        confidence = float(posterior[best])
        if confidence >= self.threshold:
            return Reading(best + 1, confidence, best + 1, None)
        return Reading(None, confidence, best + 1, "unsure")


def _allowed(candidates: Collection[int] | None) -> np.ndarray:
    if candidates is None:
        return np.ones(90, bool)
    allowed = np.zeros(90, bool)
    for number in candidates:
        if not 1 <= int(number) <= 90:
            raise ValueError(f"no ball {number}: balls are numbered 1 to 90")
        allowed[int(number) - 1] = True
    return allowed


def _logsumexp(values: np.ndarray) -> float:
    top = float(np.max(values))
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.sum(np.exp(values - top))))
