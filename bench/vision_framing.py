"""How well the reader's windows sit on the print, on the benchmark's held-out frames.

Replays the frames of `bench_vision.py` (same seed, same order) and, for each model given
(by default the packaged one), measures the most frontal label's window against the print
the renderer drew (`label_data.window_error`): how far the print's centre is from the
window's (in half window sides) and how much larger or smaller than intended the print is
(log of the size). Prints the share of frames in each band of error and the frames read in
each, so that a change in the framing (the window network, `framing.py`) shows where it
moves windows and what that is worth. A diagnosis, not a benchmark: nothing is timed.

Usage: python bench/vision_framing.py [MODEL.npz ...] [--frames N] [--seed S]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_vision import SEED, scenes  # noqa: E402

from bingo_hall.vision.framing import framed_labels  # noqa: E402
from bingo_hall.vision.label_data import window_error  # noqa: E402
from bingo_hall.vision.labelnet import grey  # noqa: E402
from bingo_hall.vision.locate import find_ball  # noqa: E402
from bingo_hall.vision.model import MODEL_PATH  # noqa: E402
from bingo_hall.vision.prints import ball_crop  # noqa: E402
from bingo_hall.vision.recognise import LABELS_PER_FRAME, BallReader, evidence_from_labels  # noqa: E402
from bingo_hall.vision.styles import HELD_OUT  # noqa: E402

OFFSET_BANDS = (0.0, 0.08, 0.15, 0.25, math.inf)
SIZE_BANDS = (-math.inf, -0.25, -0.12, 0.12, 0.25, math.inf)


def measure(reader: BallReader, frames: int, seed: int) -> np.ndarray:
    """(offset, log size, read, best guess right) of each frame with a label found."""
    model = reader.model
    rows = []
    for truth, scene, frame in scenes(frames, seed, HELD_OUT):
        ball = find_ball(frame)
        if ball is None:
            continue
        labels = framed_labels(
            ball_crop(frame, ball), LABELS_PER_FRAME, model.window, model.window_kernels
        )
        if not labels:
            continue
        reading = reader.decide([evidence_from_labels(model, [grey(x.patch) for x in labels])])
        x, y, log_size = window_error(scene, labels[0].normal, labels[0].span)
        rows.append((math.hypot(x, y), log_size, reading.number == truth, reading.guess == truth))
    return np.array(rows, float)


def bands(name: str, values: np.ndarray, edges: tuple[float, ...], read: np.ndarray) -> None:
    for low, high in itertools.pairwise(edges):
        inside = (values >= low) & (values < high)
        count = int(inside.sum())
        share = f"{read[inside].mean():6.1%}" if count else "     —"
        print(f"  {name} {low:>6.2f} to {high:<6.2f} {count:6d} frames, read {share}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", type=Path, default=[MODEL_PATH])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    missing = [str(p) for p in args.models if not p.is_file()]
    if missing:
        parser.error(f"no such model file: {', '.join(missing)}")
    cv2.setNumThreads(1)
    for path in args.models:
        reader = BallReader(path)
        rows = measure(reader, args.frames, args.seed)
        offset, log_size, read, guessed = rows.T
        framing = "rules and window network" if reader.model.window is not None else "rules"
        print(f"{path} (windows placed by {framing}): {len(rows)} frames with a label")
        print(
            f"  read {read.mean():.2%}, best guess right {guessed.mean():.2%}; window error "
            f"median {np.median(offset):.3f}, p99 {np.percentile(offset, 99):.3f}; "
            f"log size p1 {np.percentile(log_size, 1):.3f}, p99 {np.percentile(log_size, 99):.3f}"
        )
        bands("offset", offset, OFFSET_BANDS, read)
        bands("log size", log_size, SIZE_BANDS, read)
    return 0


if __name__ == "__main__":
    sys.exit(main())
