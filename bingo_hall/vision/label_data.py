"""Training data for the label networks: labels flattened by the reader's own pipeline from
rendered balls, each with the truth the renderer knows (the number, and the direction in
which the print's text runs in the flattened patch)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from bingo_hall.vision.labelnet import grey
from bingo_hall.vision.locate import find_ball
from bingo_hall.vision.prints import ball_crop, find_labels, tangents
from bingo_hall.vision.render import (
    Scene,
    draw_scene,
    glare_on_print,
    print_frames,
    rotation,
    sample_scene,
    settle,
)
from bingo_hall.vision.styles import StyleSet

LABELS_SEEN = 3  # labels flattened per frame for training, most frontal first


@dataclass
class LabelSet:
    """Flattened labels (grey, PATCH×PATCH) and their truth, one row per label."""

    grey: np.ndarray  # (n, 64, 64) uint8
    angle: np.ndarray  # text direction in the patch, radians
    number: np.ndarray
    font: np.ndarray  # the font's index in the style set
    rank: np.ndarray  # 0 for the most frontal label of its frame
    tilt: np.ndarray  # degrees
    cut: np.ndarray  # bool

    @staticmethod
    def concatenate(parts: list[LabelSet]) -> LabelSet:
        return LabelSet(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def subset(self, rows: np.ndarray) -> LabelSet:
        return LabelSet(*(getattr(self, f)[rows] for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.number)


_FIELDS = ("grey", "angle", "number", "font", "rank", "tilt", "cut")


def text_direction(scene: Scene, normal: tuple[float, float, float]) -> float:
    """The direction (radians, in the patch's axes) in which the text of the print nearest to
    `normal` runs, for a label flattened round `normal`."""
    rot = rotation(scene)
    centres, rights, _ = print_frames()
    centre = np.asarray(normal)
    nearest = int(np.argmax((centres @ rot.T) @ centre))
    right = rot @ rights[nearest]
    e1, e2 = tangents(centre)
    return math.atan2(float(right @ e2), float(right @ e1))


def frame_labels(scene: Scene, frame: np.ndarray) -> list[tuple[np.ndarray, float, float, bool]]:
    """(grey patch, text direction, tilt, cut) of the labels the reader flattens in `frame`."""
    ball = find_ball(frame)
    if ball is None:
        return []
    out = []
    for label in find_labels(ball_crop(frame, ball), LABELS_SEEN):
        direction = text_direction(scene, label.normal)
        out.append((grey(label.patch), direction, label.tilt_deg, label.cut))
    return out


def render_labels(job: tuple[int, int, StyleSet, float]) -> LabelSet:
    """The labels of `count` rendered balls (seeded); in a share `glare_share` of them the
    glare spots are moved onto the print nearest the camera (`glare_on_print`)."""
    seed, count, style_set, glare_share = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    rows: list[tuple] = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, style_set)
        if glare_share > 0 and rng.random() < glare_share:
            scene = glare_on_print(scene, rng, style_set.conditions)
        frame = draw_scene(scene, rng)
        font = style_set.fonts.index(scene.font)
        for rank, (patch, direction, tilt, cut) in enumerate(frame_labels(scene, frame)):
            rows.append((patch, direction, truth, font, rank, tilt, cut))
    if not rows:
        empty = np.zeros(0)
        return LabelSet(np.zeros((0, 64, 64), np.uint8), *(empty,) * 6)
    columns = list(zip(*rows, strict=True))
    return LabelSet(
        np.stack(columns[0]),
        np.array(columns[1], np.float32),
        np.array(columns[2], np.int16),
        np.array(columns[3], np.int16),
        np.array(columns[4], np.int8),
        np.array(columns[5], np.float32),
        np.array(columns[6], bool),
    )


Burst = tuple[int, int, list[list[np.ndarray]]]  # number, font index, grey labels per frame


def render_bursts(job: tuple[int, int, int, StyleSet]) -> list[Burst]:
    """`count` balls (seeded), each as a burst of `burst` frames from the simulated camera's
    settling, with the grey labels the reader flattens in each frame, most frontal first."""
    seed, count, burst, style_set = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, style_set)
        font = style_set.fonts.index(scene.font)
        frames = []
        for _ in range(burst):
            frames.append([patch for patch, *_ in frame_labels(scene, draw_scene(scene, rng))])
            scene = settle(scene, rng)
        out.append((truth, font, frames))
    return out
