"""What reading against a ball set's references costs: making them, and each call.

A simulated set (one held-out typeface, one colour) is commissioned through `BallCheck` (every
ball shown `--showings` times, three frames a showing, the last kept in an in-memory frame
store), and its references are made from the kept frames as the hub makes them
(`BallCheck.references`), timed. Then `--frames` bursts of three frames are read twice, in
turns: by the networks alone (the baseline) and against the references; the medians per
burst and their ratio are printed. One thread (OpenCV and BLAS).

Usage: python bench/vision_set_speed.py [--showings N] [--frames N] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import sqlalchemy  # noqa: E402

from bingo_hall.hub.ball_check import BallCheck  # noqa: E402
from bingo_hall.hub.commissioning import show_balls, showing_order  # noqa: E402
from bingo_hall.store.frames import FrameStore  # noqa: E402
from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402
from bingo_hall.vision.styles import HELD_OUT  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--showings", type=int, default=2)
    parser.add_argument("--frames", type=int, default=200, help="bursts read")
    parser.add_argument("--repeats", type=int, default=3, help="times the references are made")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    styles = replace(HELD_OUT, fonts=HELD_OUT.fonts[:1], colours=HELD_OUT.colours[:1])
    camera = SimulatedCamera(seed=20261129, style_set=styles)
    reader = BallReader()
    store = FrameStore(sqlalchemy.create_engine("sqlite://"))
    check = BallCheck(camera, reader, store, 3)
    order = showing_order(args.showings)
    kept = tuple((s.number, s.camera.frame) for s in show_balls(check, order, camera.present))
    making = []
    for _ in range(args.repeats):
        fresh = BallCheck(camera, reader, store, 3)  # made afresh each time
        start = time.perf_counter()
        references = fresh.references(kept)
        making.append(time.perf_counter() - start)
    print(
        f"references of {len(kept)} kept frames ({len(references.balls)} prints): made in "
        f"{statistics.median(making):.2f} s (median of {args.repeats})"
    )
    alone, against = [], []
    for i in range(args.frames):
        camera.present(i % 90 + 1)
        bursts = camera.frames(3)
        for timings, refs in ((alone, None), (against, references)):
            start = time.perf_counter()
            reader.read_frames(bursts, references=refs)
            timings.append(time.perf_counter() - start)
    base, with_refs = statistics.median(alone), statistics.median(against)
    print(
        f"a burst of three 640x480 frames, median of {args.frames}: networks alone "
        f"{1000 * base:.1f} ms, against the references {1000 * with_refs:.1f} ms "
        f"(ratio {with_refs / base:.3f})"
    )


if __name__ == "__main__":
    main()
