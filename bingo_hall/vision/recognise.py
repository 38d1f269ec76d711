"""Reading the ball at the exit: frame(s) in, a `Reading` out.

Per frame: find the ball, flatten its two most frontal labels, and read each with the label
networks (`bingo_hall.vision.model`), which give a log-likelihood for each of the 90 numbers.
The labels of one frame add up, divided by k**label_fusion (two prints of one ball in one
picture share its light and blur); several frames of the same ball add up their
log-posteriors divided by k**fusion: they are far from independent (same print, same light,
and the same mistakes), and a misreading repeated on every frame must not look much surer
than on one. Both exponents are chosen in calibration. Restricting to the candidates
renormalises over the balls still in the machine, and each ball already out of it keeps a
small prior weight (`OUT_OF_MACHINE_PRIOR`): the ball in view may be the one before, still in
the exit, so a frame that shows a ball already drawn is read as a candidate only where the
networks prefer that candidate to it by far more than the weight, and a lone candidate is
confirmed only by a frame that shows it. The answer's confidence is the resulting probability
of the best number (a ball out of the machine is never given, only guessed), and the number
is given only when that passes the
acceptance threshold chosen in training (`bingo_hall.vision.train`) for the evidence the
reading rests on (`bingo_hall.vision.model.Evidence`): one label; two labels found in one
frame; two labels of one frame agreeing on the number (each, read alone, gives it even odds
or better). The strongest evidence of any one frame counts: the same label in several frames
is one print seen several times.

Otherwise the reason is "unsure" (a ball is there: the best guess is below the threshold, or
no label on it could be found, then with no guess), "no_ball", or "unreadable" (no usable
frame: None, empty, not 8-bit, not an image); read against a ball set's references, also
"set_disagrees" (the set's own prints name another ball than the guess, `contradicts`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bingo_hall.vision.framing import framed_labels
from bingo_hall.vision.labelnet import grey
from bingo_hall.vision.locate import Circle, find_ball
from bingo_hall.vision.model import (
    MODEL_PATH,
    Evidence,
    LabelModel,
    agreeing,
    evidence_of,
    load_model,
    log_normalise,
    number_log_likelihoods,
)
from bingo_hall.vision.prints import ball_crop
from bingo_hall.vision.reading import Reading
from bingo_hall.vision.set_references import SetReferences, judged_reading

LABELS_PER_FRAME = 2
OUT_OF_MACHINE_PRIOR = 3e-3
"""The prior weight, against each ball still in the machine, that the ball in view is a given
ball already drawn (the one before, left in the exit): with half the balls out, about one call
in 330. At zero the restriction alone would decide: a lone candidate would be confirmed by any
picture, and of 1,000 held-out bursts of a ball already drawn, 33 read as a ball still in the
machine (none at this weight; 1 at 1e-4 and 1e-3). The cost: with half the balls out, 95.3 %
of bursts read against 95.8 % (`bench/bench_vision.py`, docs/vision.md)."""
MIN_SIDE = 48  # pixels: a smaller frame cannot hold a readable ball


def load_frame(path: str | Path) -> np.ndarray | None:
    """The image file as a BGR uint8 frame, or None when it cannot be decoded.

    Raises FileNotFoundError when there is no such file."""
    data = np.fromfile(Path(path), dtype=np.uint8)
    if data.size == 0:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class FrameEvidence:
    """What one frame says: a log-posterior per number (and each label's own), or why it
    says nothing."""

    scores: np.ndarray | None
    reason: str | None  # "unreadable" (no usable frame), "no_ball", "unsure" (no print read)
    ball: bool
    label_scores: np.ndarray | None = None  # one row per label, read alone
    front_features: np.ndarray | None = None  # the most frontal label's (`LabelModel.features`)

    def agreeing_labels(self, number_index: int) -> int:
        if self.label_scores is None:
            return 0
        return int(agreeing(self.label_scores, number_index).sum())

    def evidence_for(self, number_index: int) -> Evidence:
        found = 0 if self.label_scores is None else len(self.label_scores)
        return Evidence(int(evidence_of(found, self.agreeing_labels(number_index))))


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


def read_labels(image: np.ndarray, ball: Circle, model: LabelModel) -> list[np.ndarray]:
    """The grey flattened labels of the ball, most frontal first, framed as the model
    frames them (`framing`)."""
    crop = ball_crop(image, ball)
    labels = framed_labels(crop, LABELS_PER_FRAME, model.window, model.window_kernels)
    return [grey(label.patch) for label in labels]


def evidence_from_labels(model: LabelModel, labels: Sequence[np.ndarray]) -> FrameEvidence:
    if not labels:  # a ball, but no label could be found on it
        return FrameEvidence(None, "unsure", ball=True)
    outputs, features = model.outputs_and_features(list(labels))
    scores = number_log_likelihoods(outputs, model.temperature, model.obscured_shift)
    total = scores.sum(axis=0) / len(labels) ** model.label_fusion
    return FrameEvidence(
        log_normalise(total),
        None,
        ball=True,
        label_scores=log_normalise(scores),
        front_features=features[0],
    )


class BallReader:
    """Reads the number of the ball at the exit; loads the model (the packaged one unless
    told) once."""

    def __init__(self, model_path: Path = MODEL_PATH) -> None:
        self.model = load_model(model_path)

    def evidence(self, frame: object) -> FrameEvidence:
        image = as_bgr(frame)
        if image is None:
            return FrameEvidence(None, "unreadable", ball=False)
        ball = find_ball(image)
        if ball is None:
            return FrameEvidence(None, "no_ball", ball=False)
        return evidence_from_labels(self.model, read_labels(image, ball, self.model))

    def read(
        self,
        frame: np.ndarray,
        candidates: Collection[int] | None = None,
        references: SetReferences | None = None,
    ) -> Reading:
        return self.decide([self.evidence(frame)], candidates, references)

    def read_frames(
        self,
        frames: Sequence[np.ndarray],
        candidates: Collection[int] | None = None,
        references: SetReferences | None = None,
    ) -> Reading:
        return self.decide([self.evidence(frame) for frame in frames], candidates, references)

    def front_features(self, frame: object) -> np.ndarray | None:
        """The features of the frame's most frontal print, or None when it shows none: what a
        set's references are made of (`set_references`)."""
        return self.evidence(frame).front_features

    def decide(
        self,
        evidence: Sequence[FrameEvidence],
        candidates: Collection[int] | None = None,
        references: SetReferences | None = None,
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
        fused = np.where(allowed, fused, fused + np.log(OUT_OF_MACHINE_PRIOR))
        posterior = np.exp(log_normalise(fused))
        best = int(np.argmax(posterior))
        confidence = float(posterior[best])
        match = None
        if references is not None:
            match = references.match(
                [e.front_features for e in evidence if e.front_features is not None]
            )
        strongest = max(e.evidence_for(best) for e in evidence)
        accepted = confidence >= self.model.threshold_for(strongest)
        return judged_reading(best + 1, confidence, accepted, match, in_machine=bool(allowed[best]))


def _allowed(candidates: Collection[int] | None) -> np.ndarray:
    if candidates is None:
        return np.ones(90, bool)
    allowed = np.zeros(90, bool)
    for number in candidates:
        if not 1 <= int(number) <= 90:
            raise ValueError(f"no ball {number}: balls are numbered 1 to 90")
        allowed[int(number) - 1] = True
    return allowed
