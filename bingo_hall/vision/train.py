"""Train the digit classifier from rendered balls, calibrate it, choose the threshold.

    python -m bingo_hall.vision.train [--frames N] [--calibration N] [--workers N] [--seed S]

1. Render balls in the TRAINING styles only and run the reader's own pipeline on them (find
   the ball, flatten its labels, turn them upright, split the digits); every label read
   with the right count of digits gives training digits labelled by the rendered number.
2. Fit the ensemble's convolutional networks (numpy, Adam, cross-entropy, weight decay) on
   the digits, each batch freshly distorted (`bingo_hall.vision.fit`). The training fonts are
   dealt into as many groups as there are networks, and each network is fitted without one
   group: every training font is unseen by one network.
3. Render a separate calibration set (TRAINING styles, another seed): single frames and
   bursts of three frames of one ball as the simulated camera gives them, each ball read by
   the network that never saw its font, so that the calibration measures the reader on
   unseen typefaces, as it will meet them. Fit the softmax temperature, the factor by which a
   faint print raises it, the rate at which a label's digits are miscounted and the
   frame-fusion exponent to minimise the log-loss of the readings; then choose the
   acceptance threshold: above every wrong reading of the calibration set, with a margin of a
   factor of a hundred in the odds, and never below 0.99.
4. Write `bingo_hall/vision/model/digits.npz` (float16 weights, well under 1 MB).
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import os
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from bingo_hall.vision.convnet import INPUT, forward
from bingo_hall.vision.digits import printed_digits
from bingo_hall.vision.fit import fit
from bingo_hall.vision.locate import find_ball
from bingo_hall.vision.model import (
    FULL_CONTRAST,
    MODEL_PATH,
    DigitModel,
    digit_log_probs,
    load_model,
)
from bingo_hall.vision.recognise import (
    LabelRead,
    chosen_labels,
    number_scores_batch,
    read_labels,
)
from bingo_hall.vision.render import draw_scene, sample_scene, settle
from bingo_hall.vision.styles import TRAINING, TRAINING_FONT_PACKAGES, Font

MIN_THRESHOLD = 0.99
MARGIN = math.log(100.0)  # in log-odds above the most confident wrong reading
LOSS_SLACK = 0.0  # calibration settings this close to the best log-loss are all acceptable
CHUNKS = 16  # the rendering is split into this many seeded chunks, whatever the workers


def _label_reads(frame: np.ndarray) -> list[LabelRead]:
    ball = find_ball(frame)
    return [] if ball is None else read_labels(frame, ball)


def font_index(font: Font) -> int:
    """The font's place in TRAINING.fonts: its group is this modulo the ensemble's size."""
    return TRAINING.fonts.index(font)


TrainingData = tuple[np.ndarray, np.ndarray, np.ndarray]  # digit rows, digits, font indices
Ball = tuple[int, int, list[list[LabelRead]]]  # number, font index, labels read per frame


def _training_chunk(job: tuple[int, int]) -> TrainingData:
    """Digit features, their digits and their fonts, from `count` rendered balls."""
    seed, count = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    rows, labels, fonts = [], [], []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, TRAINING)
        frame = draw_scene(scene, rng)
        digits = [int(c) for c in printed_digits(truth)]
        for label in _label_reads(frame):
            if len(label.features) == len(digits):
                rows.append(label.features)
                labels.extend(digits)
                fonts.extend([font_index(scene.font)] * len(digits))
    if not rows:
        return np.zeros((0, INPUT), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(rows), np.array(labels), np.array(fonts)


def _calibration_chunk(job: tuple[int, int, int]) -> list[Ball]:
    """Balls of the calibration set: (number, font index, per frame of its burst the labels
    read)."""
    seed, count, burst = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, TRAINING)
        frames = []
        for _ in range(burst):
            frames.append(_label_reads(draw_scene(scene, rng)))
            scene = settle(scene, rng)
        out.append((truth, font_index(scene.font), frames))
    return out


def rows_seen(fonts: np.ndarray, members: int) -> list[np.ndarray]:
    """Per network, which training rows it is fitted on: all but those of its font group
    (font index modulo the ensemble's size), so every training font is unseen by one."""
    return [fonts % members != m for m in range(members)]


def _fit_member(job: tuple[np.ndarray, np.ndarray, list[int], int]) -> dict[str, np.ndarray]:
    """One network of the ensemble, from its own seeded start."""
    x, y, seed, epochs = job
    cv2.setNumThreads(1)
    return fit(x, y, np.random.default_rng(seed), epochs=epochs)


def _pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes started afresh: a forked copy of a process that runs threads (OpenCV's
    pool, a test runner's) can deadlock on a lock one of them held."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _jobs(seed: int, total: int, parts: int) -> list[tuple[int, int]]:
    seeds = np.random.SeedSequence(seed).generate_state(parts)
    size = -(-total // parts)
    return [(int(s), min(size, total - i * size)) for i, s in enumerate(seeds) if total > i * size]


class _Calibration:
    """The calibration set's readings, vectorised over all its labels, so that the softmax
    temperature, faintness factor and miscount rate can be searched quickly. It computes
    what `BallReader.decide` does (without candidates) for the first frame of each ball and
    for its whole burst, with the scores of the one network that never saw the ball's font."""

    def __init__(self, model: DigitModel, balls: list[Ball]) -> None:
        self.truth = np.array([t for t, _, _ in balls])
        self.groups: dict[int, dict[str, np.ndarray]] = {}
        ball_of: list[int] = []
        rows: dict[int, list[tuple[int, np.ndarray, float, float]]] = {1: [], 2: []}
        for b, (_, font, frames) in enumerate(balls):
            unseen = model.members[font % len(model.members)]  # see rows_seen
            for labels in frames:
                f = len(ball_of)
                ball_of.append(b)
                for label, override in chosen_labels(labels) if labels else []:
                    rows[label.count].append(
                        (f, _logits(unseen, label.features), label.contrast, override)
                    )
        self.frames = len(ball_of)
        self.ball_of = np.array(ball_of)
        self.first = np.array(
            [f for f in range(self.frames) if f == 0 or ball_of[f - 1] != ball_of[f]]
        )
        for count, items in rows.items():
            if items:
                self.groups[count] = {
                    "frame": np.array([i[0] for i in items]),
                    "logits": np.stack([i[1] for i in items]),
                    "faint": np.array(
                        [max(0.0, FULL_CONTRAST - i[2]) / FULL_CONTRAST for i in items]
                    ),
                    "override": np.array([i[3] for i in items]),
                }

    def readings(self, model: DigitModel) -> list[tuple[int, float, int | None]]:
        scores = np.zeros((self.frames, 90))
        has = np.zeros(self.frames, bool)
        for g in self.groups.values():
            temps = model.temperature * (1 + model.faintness * g["faint"])
            logp = digit_log_probs(g["logits"], temps[:, None, None])
            s = number_scores_batch(logp, np.maximum(model.miscount, g["override"]))
            np.add.at(scores, g["frame"], s)
            has[g["frame"]] = True
        top = scores.max(axis=1, keepdims=True)
        lp = scores - (top + np.log(np.exp(scores - top).sum(axis=1, keepdims=True)))
        lp[~has] = 0.0
        out = []
        for picked in (self.first, np.arange(self.frames)):
            sums = np.zeros((len(self.truth), 90))
            counts = np.zeros(len(self.truth))
            use = picked[has[picked]]
            np.add.at(sums, self.ball_of[use], lp[use])
            np.add.at(counts, self.ball_of[use], 1)
            fused = sums / (np.maximum(counts, 1) ** model.fusion)[:, None]
            fused -= fused.max(axis=1, keepdims=True)
            post = np.exp(fused)
            post /= post.sum(axis=1, keepdims=True)
            guess = post.argmax(axis=1) + 1
            confidence = post.max(axis=1)
            for b in range(len(self.truth)):
                if counts[b]:
                    out.append((int(self.truth[b]), float(confidence[b]), int(guess[b])))
                else:
                    out.append((int(self.truth[b]), 0.0, None))
        return out


def _logits(params: dict[str, np.ndarray], features: np.ndarray) -> np.ndarray:
    return forward(params, features.astype(np.float32))[0]


def _log_loss(readings: list[tuple[int, float, int | None]]) -> float:
    total = 0.0
    for truth, confidence, guess in readings:
        if guess is None:
            continue
        p = confidence if guess == truth else (1 - confidence) / 89
        total -= math.log(max(p, 1e-12))
    return total / max(1, len(readings))


def _threshold(readings: list[tuple[int, float, int | None]]) -> tuple[float, list[float]]:
    """Above the most confident wrong reading, with a margin, and never below MIN_THRESHOLD."""
    wrong = sorted((c for t, c, g in readings if g is not None and g != t), reverse=True)
    worst = wrong[0] if wrong else 0.0
    odds = math.log(max(worst, 1e-9) / max(1 - worst, 1e-12)) + MARGIN
    return min(max(MIN_THRESHOLD, 1 / (1 + math.exp(-odds))), 0.999999), wrong


def _accepted(readings: list[tuple[int, float, int | None]], threshold: float) -> int:
    return sum(1 for t, c, g in readings if g == t and c >= threshold)


def calibrate(model: DigitModel, balls: list[Ball]) -> tuple[DigitModel, dict[str, object]]:
    """Fit the temperature, the faintness factor, the miscount rate and the frame-fusion
    exponent, then choose the threshold.

    Every setting is scored by its log-loss on the calibration readings; among those within
    LOSS_SLACK of the best (all about equally well calibrated), the one that accepts the most
    correct readings under the threshold rule is kept.
    """
    data = _Calibration(model, balls)
    tried = []
    settings = itertools.product(
        np.exp(np.linspace(math.log(0.6), math.log(4.0), 16)),  # temperature
        (0.0, 0.5, 1.0, 2.0, 4.0),  # faintness
        (0.001, 0.002, 0.005, 0.01, 0.02, 0.05),  # miscount
        (0.5, 0.75, 1.0),  # fusion
    )
    for temperature, faintness, miscount, fusion in settings:
        candidate = replace(
            model,
            temperature=float(temperature),
            faintness=faintness,
            miscount=miscount,
            fusion=fusion,
        )
        readings = data.readings(candidate)
        threshold, _ = _threshold(readings)
        tried.append((_log_loss(readings), _accepted(readings, threshold), candidate))
    best_loss = min(t[0] for t in tried)
    loss, _, model = max(
        (t for t in tried if t[0] <= best_loss * (1 + LOSS_SLACK)), key=lambda t: t[1]
    )
    readings = data.readings(model)
    threshold, wrong = _threshold(readings)
    stats: dict[str, object] = {
        "temperature": round(model.temperature, 4),
        "faintness": model.faintness,
        "miscount": model.miscount,
        "fusion": model.fusion,
        "log_loss": round(loss, 5),
        "best log_loss": round(best_loss, 5),
        "readings (single frames and bursts)": len(readings),
        "with a guess": sum(1 for r in readings if r[2] is not None),
        "wrong guesses": len(wrong),
        "most confident wrong guesses": [round(c, 6) for c in wrong[:5]],
        "threshold": threshold,
        "correct and accepted": _accepted(readings, threshold),
    }
    return replace(model, threshold=threshold), stats


def _render_data(args: argparse.Namespace, seeds: np.ndarray) -> tuple[TrainingData, list[Ball]]:
    with _pool(args.workers) as pool:
        chunks = _jobs(int(seeds[0]), args.frames, CHUNKS)
        parts = list(pool.map(_training_chunk, chunks))
        jobs = [(s, c, args.burst) for s, c in _jobs(int(seeds[1]), args.calibration, CHUNKS)]
        balls = [b for part in pool.map(_calibration_chunk, jobs) for b in part]
    data = tuple(np.concatenate([p[k] for p in parts]) for k in range(3))
    return data, balls  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=20000, help="training frames")
    parser.add_argument("--calibration", type=int, default=3000, help="calibration balls")
    parser.add_argument("--burst", type=int, default=3, help="frames per calibration burst")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--members", type=int, default=3, help="networks in the ensemble")
    parser.add_argument("--output", type=Path, default=MODEL_PATH, help="where to write the model")
    parser.add_argument("--cache", help="keep the rendered data in this file (development)")
    parser.add_argument(
        "--calibrate-only",
        action="store_true",
        help="keep the packaged networks, calibrate them again (development, with --cache)",
    )
    args = parser.parse_args(argv)
    missing = [font.name for font in TRAINING.fonts if not font.available()]
    if missing:
        print(
            f"missing training fonts: {', '.join(missing)}; install the Debian packages "
            f"{' '.join(TRAINING_FONT_PACKAGES)}",
            file=sys.stderr,
        )
        return 2
    started = time.perf_counter()
    seeds = np.random.SeedSequence(args.seed).generate_state(3)
    cached = args.cache and Path(args.cache).exists()
    if cached:  # a development shortcut: the rendered data of an earlier run
        with open(args.cache, "rb") as file:
            (x, y, fonts), balls = pickle.load(file)
    else:
        (x, y, fonts), balls = _render_data(args, seeds)
        if args.cache:
            with open(args.cache, "wb") as file:
                pickle.dump(((x, y, fonts), balls), file)
    print(
        f"{len(y)} training digits from {args.frames} frames, {len(balls)} calibration balls "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    if args.calibrate_only:
        model = load_model(args.output)
    else:
        jobs = [
            (x[seen], y[seen], [int(seeds[2]), m], args.epochs)
            for m, seen in enumerate(rows_seen(fonts, args.members))
        ]
        with _pool(args.workers) as pool:
            model = DigitModel(tuple(pool.map(_fit_member, jobs)))
    accuracy = float(np.mean(np.argmax(model.logits(x), axis=1) == y))
    print(f"trained: training accuracy {accuracy:.5f} ({time.perf_counter() - started:.0f} s)")
    model, stats = calibrate(model, balls)
    for key, value in stats.items():
        print(f"  {key}: {value}")
    model.save(args.output)
    size = args.output.stat().st_size
    print(f"wrote {args.output} ({size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
