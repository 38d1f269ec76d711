"""Training data for the label networks: labels flattened by the reader's own pipeline from
rendered balls, each with the truth the renderer knows (the number, the direction in which
the print's text runs in the flattened patch, where the print is in it, and how much of it
the highlights washed out)."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from bingo_hall.vision.damage import destroyed_share
from bingo_hall.vision.framing import framed_labels
from bingo_hall.vision.labelnet import Weights, grey
from bingo_hall.vision.locate import Circle, find_ball
from bingo_hall.vision.prints import BLOCK_FILL, Label, ball_crop, reframe, tangents
from bingo_hall.vision.render import (
    Scene,
    draw_scene,
    glare_on_print,
    print_block,
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
    window: np.ndarray  # (n, 3) float32: the print's place and size in the patch (`window_error`)
    misframed: np.ndarray  # bool: flattened through a window moved off on purpose (`misframed`)
    obscured: np.ndarray  # float32: the share of the print the highlights washed out (`obscured`)

    @staticmethod
    def concatenate(parts: list[LabelSet]) -> LabelSet:
        return LabelSet(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def subset(self, rows: np.ndarray) -> LabelSet:
        return LabelSet(*(getattr(self, f)[rows] for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.number)


_FIELDS = (
    "grey",
    "angle",
    "number",
    "font",
    "rank",
    "tilt",
    "cut",
    "window",
    "misframed",
    "obscured",
)


def text_direction(scene: Scene, normal: tuple[float, float, float]) -> float:
    """The direction (radians, in the patch's axes) in which the text of the print nearest to
    `normal` runs, for a label flattened round `normal`."""
    centre = np.asarray(normal)
    rot, nearest = _nearest_print(scene, centre)
    right = rot @ print_frames()[1][nearest]
    e1, e2 = tangents(centre)
    return math.atan2(float(right @ e2), float(right @ e1))


def _nearest_print(scene: Scene, centre: np.ndarray) -> tuple[np.ndarray, int]:
    """The ball's rotation and the print whose centre is nearest to `centre` (camera axes)."""
    rot = rotation(scene)
    centres, _, _ = print_frames()
    return rot, int(np.argmax((centres @ rot.T) @ centre))


def window_error(
    scene: Scene, normal: tuple[float, float, float], span: float
) -> tuple[float, float, float]:
    """How far the window of a label flattened round `normal`, ±`span`, is from the one the
    reader wants: the true printed block's centre in the patch (x, y, in half patch sides
    from the patch's centre) and the log of its enclosing circle's radius over BLOCK_FILL
    half sides. (0, 0, 0) is a window centred on the print and filled by it as intended."""
    centre = np.asarray(normal)
    rot, nearest = _nearest_print(scene, centre)
    centres, rights, downs = print_frames()
    across, down, radius = print_block(scene)
    sin_r = math.sin(math.radians(scene.label_deg))
    a, b = across * sin_r, down * sin_r
    on_ball = a * rights[nearest] + b * downs[nearest]
    on_ball += math.sqrt(max(0.0, 1 - a * a - b * b)) * centres[nearest]
    point = rot @ on_ball
    e1, e2 = tangents(centre)
    fill = radius * sin_r / span
    return float(point @ e1) / span, float(point @ e2) / span, math.log(fill / BLOCK_FILL)


LabelRow = tuple[np.ndarray, float, float, bool, tuple[float, float, float]]
# a label flattened again through a window moved off its print for the window network: up to
# this far (half patch sides) and this much too large or small (log of the size)
MISFRAME_OFFSET = 0.4
MISFRAME_SIZE = 0.35


def frame_labels(scene: Scene, frame: np.ndarray, window: Weights | None = None) -> list[LabelRow]:
    """(grey patch, text direction, tilt, cut, window error) of the labels the reader
    flattens in `frame`, framed by the rules and the window network `window` if given."""
    _, labels, _ = _found(frame, window)
    return [_row(scene, label) for label in labels]


def _found(
    frame: np.ndarray, window: Weights | None
) -> tuple[np.ndarray, list[Label], Circle | None]:
    """The ball's crop, the labels flattened from it, and the ball (None: no ball found)."""
    ball = find_ball(frame)
    if ball is None:
        return np.zeros((0, 0, 3), np.uint8), [], None
    crop = ball_crop(frame, ball)
    return crop, framed_labels(crop, LABELS_SEEN, window), ball


def obscured(unlit_crop: np.ndarray | None, label: Label) -> float:
    """The share of the label's print the highlights washed out (`damage.destroyed_share`):
    the label flattened again, through the same window, from the ball's crop rendered
    without them (None: the scene had none)."""
    if unlit_crop is None:
        return 0.0
    unlit = reframe(unlit_crop, label, 0.0, 0.0, 0.0)
    if unlit is None:
        return 0.0
    return float(destroyed_share(grey(unlit.patch)[None], grey(label.patch)[None])[0])


def _row(scene: Scene, label: Label) -> LabelRow:
    direction = text_direction(scene, label.normal)
    error = window_error(scene, label.normal, label.span)
    return grey(label.patch), direction, label.tilt_deg, label.cut, error


def misframed(
    scene: Scene, crop: np.ndarray, label: Label, rng: np.random.Generator
) -> LabelRow | None:
    """The label flattened again through a window moved off its print and resized at random,
    as the rules leave one now and then: the window network learns from these where the print
    is (the rules' own windows are nearly all on it)."""
    reach = MISFRAME_OFFSET * math.sqrt(rng.random())
    angle = rng.uniform(0, 2 * math.pi)
    size = rng.uniform(-MISFRAME_SIZE, MISFRAME_SIZE)
    moved = reframe(crop, label, reach * math.cos(angle), reach * math.sin(angle), size)
    return None if moved is None else _row(scene, moved)


def render_labels(job: tuple[int, int, StyleSet, float]) -> LabelSet:
    """The labels of `count` rendered balls (seeded) and, for each, one `misframed` copy;
    in a share `glare_share` of them the glare spots are moved onto the print nearest the
    camera (`glare_on_print`), and the ball is rendered again without them, with the same
    sensor noise, to measure how much of each print they washed out (`obscured`; 0 for the
    others, whose spots mostly miss the print and wash out little of it where they fall)."""
    seed, count, style_set, glare_share = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    misframing = np.random.default_rng([seed, 1])  # its own draws: the frames stay the same
    rows: list[tuple] = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, style_set)
        on_print = glare_share > 0 and rng.random() < glare_share
        if on_print:
            scene = glare_on_print(scene, rng, style_set.conditions)
        noise = copy.deepcopy(rng)
        frame = draw_scene(scene, rng)
        font = style_set.fonts.index(scene.font)
        crop, labels, ball = _found(frame, None)
        unlit = None
        if on_print and ball is not None:
            unlit = ball_crop(draw_scene(replace(scene, glare=()), noise), ball)
        for rank, label in enumerate(labels):
            rows.append((*_row(scene, label), truth, font, rank, False, obscured(unlit, label)))
            moved = misframed(scene, crop, label, misframing)
            if moved is not None:
                rows.append((*moved, truth, font, rank, True, 0.0))
    return _label_set(rows)


def _label_set(rows: list[tuple]) -> LabelSet:
    if not rows:
        rows_of = [np.zeros((0, 64, 64), np.uint8), *(np.zeros(0),) * 6, np.zeros((0, 3))]
        return LabelSet(*rows_of, np.zeros(0, bool), np.zeros(0, np.float32))
    patch, direction, tilt, cut, error, number, font, rank, moved, washed = zip(*rows, strict=True)
    return LabelSet(
        np.stack(patch),
        np.array(direction, np.float32),
        np.array(number, np.int16),
        np.array(font, np.int16),
        np.array(rank, np.int8),
        np.array(tilt, np.float32),
        np.array(cut, bool),
        np.array(error, np.float32),
        np.array(moved, bool),
        np.array(washed, np.float32),
    )


Burst = tuple[int, int, list[list[np.ndarray]]]  # number, font index, grey labels per frame


def render_bursts(job: tuple) -> list[Burst]:
    """`count` balls (seeded), each as a burst of `burst` frames from the simulated camera's
    settling, with the grey labels the reader flattens in each frame, most frontal first
    (job: seed, count, burst, style set, and the window network's weights or None)."""
    seed, count, burst, style_set, *rest = job
    window = rest[0] if rest else None
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, style_set)
        font = style_set.fonts.index(scene.font)
        frames = []
        for _ in range(burst):
            _, labels, _ = _found(draw_scene(scene, rng), window)
            frames.append([grey(label.patch) for label in labels])
            scene = settle(scene, rng)
        out.append((truth, font, frames))
    return out
