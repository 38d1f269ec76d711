"""Train the digit classifier from rendered balls, calibrate it, choose the threshold.

    python -m bingo_hall.vision.train [--frames N] [--calibration N] [--workers N] [--seed S]

1. Render balls in the TRAINING styles only and run the reader's own pipeline on them (find
   the ball, flatten its labels, turn them upright, split the digits); every label read
   with the right count of digits gives training digits labelled by the rendered number.
2. Fit the multilayer perceptron (numpy, Adam, cross-entropy, weight decay).
3. Render a separate calibration set (TRAINING styles, another seed): single frames and
   bursts of three frames of one ball as the simulated camera gives them. Fit the softmax
   temperature that minimises the log-loss of the readings, then choose the acceptance
   threshold: above every wrong reading of the calibration set, with a margin of a factor
   of ten in the odds, and never below 0.99.
4. Write `bingo_hall/vision/model/digits.npz` (float16 weights, well under 1 MB).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import cv2
import numpy as np

from bingo_hall.vision.digits import Number, read_number
from bingo_hall.vision.features import SIZE, digit_features
from bingo_hall.vision.locate import find_ball
from bingo_hall.vision.model import MODEL_PATH, DigitModel
from bingo_hall.vision.prints import ball_crop, find_labels
from bingo_hall.vision.recognise import LABELS_PER_FRAME, BallReader, FrameEvidence, number_scores
from bingo_hall.vision.render import draw_scene, sample_scene, settle
from bingo_hall.vision.styles import TRAINING

MIN_THRESHOLD = 0.99
MARGIN = math.log(10.0)  # in log-odds above the most confident wrong reading


def _label_numbers(frame: np.ndarray) -> list[Number]:
    ball = find_ball(frame)
    if ball is None:
        return []
    numbers = []
    for label in find_labels(ball_crop(frame, ball), LABELS_PER_FRAME):
        number = read_number(label.patch)
        if number is not None:
            numbers.append(number)
    return numbers


def _training_chunk(job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    seed, count = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        frame = draw_scene(sample_scene(truth, rng, TRAINING), rng)
        digits = [int(c) for c in str(truth)]
        for number in _label_numbers(frame):
            if len(number.digits) != len(digits):
                continue
            for image, aspect, digit in zip(number.digits, number.aspects, digits, strict=True):
                rows.append(digit_features(image, aspect))
                labels.append(digit)
    if not rows:
        return np.zeros((0, SIZE), np.float32), np.zeros(0, np.int64)
    return np.stack(rows), np.array(labels)


def _calibration_chunk(job: tuple[int, int, int]) -> list[tuple[int, list[list[Number]]]]:
    """Balls of the calibration set: (number, per frame the numbers read on its labels)."""
    seed, count, burst = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, TRAINING)
        frames = []
        for _ in range(burst):
            frames.append(_label_numbers(draw_scene(scene, rng)))
            scene = settle(scene, rng)
        out.append((truth, frames))
    return out


def _jobs(seed: int, total: int, parts: int) -> list[tuple[int, int]]:
    seeds = np.random.SeedSequence(seed).generate_state(parts)
    size = -(-total // parts)
    return [(int(s), min(size, total - i * size)) for i, s in enumerate(seeds) if total > i * size]


def train_mlp(
    x: np.ndarray, y: np.ndarray, rng: np.random.Generator, hidden: int = 160, epochs: int = 40
) -> DigitModel:
    """A one-hidden-layer perceptron fitted with Adam on cross-entropy, with weight decay."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = ((x - mean) / scale).astype(np.float32)
    n, d = xs.shape
    params = {
        "w1": (rng.standard_normal((d, hidden)) * math.sqrt(2 / d)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.standard_normal((hidden, 10)) * math.sqrt(1 / hidden)).astype(np.float32),
        "b2": np.zeros(10, np.float32),
    }
    first = {k: np.zeros_like(v) for k, v in params.items()}
    second = {k: np.zeros_like(v) for k, v in params.items()}
    step, batch, decay = 0, 256, 1e-4
    for epoch in range(epochs):
        rate = 2e-3 * (0.5 * (1 + math.cos(math.pi * epoch / epochs)))
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, yb = xs[idx], y[idx]
            h = np.maximum(xb @ params["w1"] + params["b1"], 0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1
            g = p / len(yb)
            grads = {"w2": h.T @ g + decay * params["w2"], "b2": g.sum(axis=0)}
            gh = (g @ params["w2"].T) * (h > 0)
            grads["w1"] = xb.T @ gh + decay * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                first[k] = 0.9 * first[k] + 0.1 * grads[k]
                second[k] = 0.999 * second[k] + 0.001 * grads[k] ** 2
                m_hat = first[k] / (1 - 0.9**step)
                v_hat = second[k] / (1 - 0.999**step)
                params[k] -= rate * m_hat / (np.sqrt(v_hat) + 1e-8)
    return DigitModel(mean, scale, params["w1"], params["b1"], params["w2"], params["b2"])


def _frame_evidence(model: DigitModel, numbers: list[Number]) -> FrameEvidence:
    if not numbers:
        return FrameEvidence(None, "unreadable", ball=True)
    total = np.sum([number_scores(model, n) for n in numbers], axis=0)
    top = total.max()
    return FrameEvidence(total - (top + np.log(np.exp(total - top).sum())), None, ball=True)


def _readings(model: DigitModel, balls: list, burst: int) -> list[tuple[int, float, int | None]]:
    """(truth, confidence, guess) of each single frame and of each burst of `burst` frames."""
    reader = BallReader.__new__(BallReader)
    reader.model, reader.threshold = model, 2.0  # never accept: we want the guesses
    out = []
    for truth, frames in balls:
        evidence = [_frame_evidence(model, numbers) for numbers in frames]
        for e in evidence[:1]:
            r = reader.decide([e])
            out.append((truth, r.confidence, r.guess))
        r = reader.decide(evidence[:burst])
        out.append((truth, r.confidence, r.guess))
    return out


def _log_loss(readings: list[tuple[int, float, int | None]]) -> float:
    total = 0.0
    for truth, confidence, guess in readings:
        p = confidence if guess == truth else (1 - confidence) / 89
        total -= math.log(max(p, 1e-12))
    return total / max(1, len(readings))


def calibrate(model: DigitModel, balls: list, burst: int) -> tuple[DigitModel, dict]:
    best = None
    for temperature in np.exp(np.linspace(math.log(0.5), math.log(6.0), 40)):
        candidate = replace(model, temperature=float(temperature))
        loss = _log_loss(_readings(candidate, balls, burst))
        if best is None or loss < best[0]:
            best = (loss, candidate)
    assert best is not None
    model = best[1]
    readings = _readings(model, balls, burst)
    wrong = [c for t, c, g in readings if g is not None and g != t]
    worst = max(wrong, default=0.0)
    odds = math.log(max(worst, 1e-9) / max(1 - worst, 1e-12)) + MARGIN
    threshold = max(MIN_THRESHOLD, 1 / (1 + math.exp(-odds)))
    threshold = min(threshold, 0.999999)
    correct = sum(1 for t, c, g in readings if g == t and c >= threshold)
    stats = {
        "temperature": model.temperature,
        "log_loss": best[0],
        "readings": len(readings),
        "wrong_guesses": len(wrong),
        "worst_wrong_confidence": worst,
        "threshold": threshold,
        "accepted_correct": correct,
    }
    return replace(model, threshold=threshold), stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=16000, help="training frames")
    parser.add_argument("--calibration", type=int, default=3000, help="calibration balls")
    parser.add_argument("--burst", type=int, default=3, help="frames per calibration burst")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--epochs", type=int, default=40)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    seeds = np.random.SeedSequence(args.seed).generate_state(3)
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(_training_chunk, _jobs(int(seeds[0]), args.frames, 8 * args.workers)))
        x = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        print(f"{len(y)} training digits from {args.frames} frames "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
        jobs = [
            (s, c, args.burst)
            for s, c in _jobs(int(seeds[1]), args.calibration, 8 * args.workers)
        ]
        balls = [b for part in pool.map(_calibration_chunk, jobs) for b in part]
    print(f"{len(balls)} calibration balls ({time.perf_counter() - started:.0f} s)", flush=True)
    model = train_mlp(x, y, np.random.default_rng(int(seeds[2])), epochs=args.epochs)
    accuracy = float(np.mean(np.argmax(model.logits(x), axis=1) == y))
    print(f"trained: training accuracy {accuracy:.5f} ({time.perf_counter() - started:.0f} s)")
    model, stats = calibrate(model, balls, args.burst)
    for key, value in stats.items():
        print(f"  {key}: {value}")
    model.save(MODEL_PATH)
    size = MODEL_PATH.stat().st_size
    print(f"wrote {MODEL_PATH} ({size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
