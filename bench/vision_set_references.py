"""Would a reader that knows the hall's own ball set read the prints the networks doubt?

Each chosen typeface is made a simulated ball set (`vision_commissioning.ball_set`: one
typeface, one ball colour, the held-out conditions; with `--exit specified` as at an exit built
to a lighting and camera specification) and its commissioning is simulated: every ball shown
`--showings` times, three frames a showing, the most frontal label of each frame kept as a
reference of its ball (`LabelModel.features`: the reading networks' hidden layers). Then
`--play` single frames of other balls of the same set are read by the networks
(`BallReader.read`, every ball possible) and matched to the nearest reference (the cosine of
the features; the margin is the nearest ball's similarity less the next ball's).

Prints for each set: the networks' best guess right, right at 0.99 or more; the nearest
reference right; of the frames the networks doubt (best guess wrong or under 0.99), how many
the nearest reference gets right; the margins of right and of wrong matches; the frames on
which the networks and the nearest reference agree on a wrong number. A measurement of an
idea, not of the reader: nothing here is in the hub. Not timed.

Usage: python bench/vision_set_references.py [--sets held-out:all,check:3] [--play N]
    [--showings N] [--exit as-drawn|specified] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from vision_commissioning import FAMILIES, ball_set  # noqa: E402

from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.locate import find_ball  # noqa: E402
from bingo_hall.vision.recognise import BallReader, read_labels  # noqa: E402
from bingo_hall.vision.styles import EXITS, at_exit  # noqa: E402

SEED = 20261129
SURE = 0.99


@dataclass(frozen=True)
class Play:
    truth: int
    guess: int | None  # the networks' best guess
    confidence: float
    nearest: int | None  # the ball of the nearest reference (None: no label found)
    margin: float


def front_features(reader: BallReader, frame: np.ndarray) -> np.ndarray | None:
    """The features of the frame's most frontal label, or None when none is found."""
    ball = find_ball(frame)
    labels = [] if ball is None else read_labels(frame, ball, reader.model)
    return reader.model.features(labels[:1])[0] if labels else None


def commission(reader: BallReader, camera: SimulatedCamera, showings: int):
    """The set's references: one row of features per frame shown, and the ball of each."""
    rows, balls = [], []
    for _ in range(showings):
        for number in range(1, 91):
            camera.present(number)
            for frame in camera.frames(3):
                features = front_features(reader, frame)
                if features is not None:
                    rows.append(features)
                    balls.append(number)
    return np.stack(rows), np.array(balls)


def nearest(features: np.ndarray, references: np.ndarray, balls: np.ndarray) -> tuple[int, float]:
    """The ball whose reference is nearest, and its lead over the next ball's nearest."""
    best = np.full(91, -np.inf)
    np.maximum.at(best, balls, references @ features)
    first, second = np.argsort(best)[::-1][:2]
    return int(first), float(best[first] - best[second])


def run_set(job: tuple[str, int, int, int, str]) -> tuple[str, list[Play]]:
    family, index, showings, play, exit_name = job
    cv2.setNumThreads(1)
    styles = at_exit(ball_set(family, index), exit_name)
    reader = BallReader()
    references, balls = commission(
        reader, SimulatedCamera(SEED + index, style_set=styles), showings
    )
    camera = SimulatedCamera(SEED + 500 + index, style_set=styles)
    rng = np.random.default_rng(SEED + 900 + index)
    plays = []
    for _ in range(play):
        truth = int(rng.integers(1, 91))
        camera.present(truth)
        (frame,) = camera.frames(1)
        reading = reader.read(frame)
        features = front_features(reader, frame)
        match, margin = (None, 0.0) if features is None else nearest(features, references, balls)
        plays.append(Play(truth, reading.guess, reading.confidence, match, margin))
    return f"{family} {styles.fonts[0].name}", plays


def report(name: str, plays: list[Play]) -> None:
    n = len(plays)
    guessed = sum(p.guess == p.truth for p in plays)
    sure = sum(p.guess == p.truth and p.confidence >= SURE for p in plays)
    matched = sum(p.nearest == p.truth for p in plays)
    doubted = [p for p in plays if not (p.guess == p.truth and p.confidence >= SURE)]
    rescued = sum(p.nearest == p.truth for p in doubted)
    right = [p.margin for p in plays if p.nearest == p.truth]
    wrong = sorted(p.margin for p in plays if p.nearest is not None and p.nearest != p.truth)
    agree_wrong = [p for p in plays if p.guess is not None and p.guess == p.nearest != p.truth]
    lowest_right = np.percentile(right, 1) if right else float("nan")
    print(
        f"{name:36s} {n} frames: networks' best guess right {guessed / n:7.2%}, "
        f"right at {SURE} {sure / n:7.2%}; nearest reference right {matched / n:7.2%}; "
        f"doubted {len(doubted)}, of them the reference right {rescued}; margin right: "
        f"1st percentile {lowest_right:.3f}, median {np.median(right):.3f}; wrong "
        f"{[round(m, 3) for m in wrong[-5:]]} ({len(wrong)}); both wrong alike "
        f"{[(p.truth, p.guess, round(p.confidence, 3), round(p.margin, 3)) for p in agree_wrong]}",
        flush=True,
    )


def parse_sets(text: str) -> list[tuple[str, int]]:
    """'held-out:all,check:3' → (family, typeface index) pairs."""
    sets = []
    for part in text.split(","):
        family, _, which = part.partition(":")
        if family not in FAMILIES:
            raise argparse.ArgumentTypeError(f"{part!r}: a family of {', '.join(FAMILIES)}")
        count = len(FAMILIES[family].usable_fonts())
        if which == "all":
            sets += [(family, i) for i in range(count)]
        elif which.isdigit() and int(which) < count:
            sets.append((family, int(which)))
        else:
            raise argparse.ArgumentTypeError(f"{part!r}: 'all' or a typeface from 0 to {count - 1}")
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=parse_sets, default=parse_sets("held-out:all,check:3"))
    parser.add_argument("--play", type=int, default=600, help="frames read on each set")
    parser.add_argument("--showings", type=int, default=2, help="showings of each ball")
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    jobs = [(f, i, args.showings, args.play, args.exit) for f, i in args.sets]
    print(f"{len(jobs)} sets, {args.showings} showings of each ball, {args.play} frames each")
    everything: list[Play] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for name, plays in pool.map(run_set, jobs):
            report(name, plays)
            everything += plays
    report("all sets", everything)


if __name__ == "__main__":
    main()
