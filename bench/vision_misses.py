"""What the ball reader misses on the benchmark's held-out frames, and why.

Replays the frames of `bench_vision.py` (same seed, same order) and, for every frame not
read correctly, draws the same scene again with one condition taken away and reads it:

- renoise: nothing taken away, fresh sensor noise (the control: a frame near the threshold
  may pass on another draw of the noise alone);
- no_extra_glare: without the glare spots (the key light's own highlight stays);
- no_highlights: without any specular highlight;
- sharp: without Gaussian and motion blur;
- clean_sensor: without sensor noise, JPEG at quality 95;
- no_spread: the ink neither spread nor thinned;
- frontal: the ball turned so that its nearest print faces the camera, its pole upright;
- all_camera: every camera condition at once (no glare spots, the key light's highlight
  at most 0.2, no blur, no noise, JPEG at 95, white balance, gain and gamma neutral), the
  pose, typeface and ink as they were;
- all_camera_frontal: that and the frontal pose: what is left is the typeface and the ink.

Prints, for each variant, how many missed frames it reads, and the misses by typeface, by
number of labels found and by glare spots; `--out DIR` also writes each missed frame's ball
as PNG and one JSON line per miss; `--sheet FILE.jpg` writes one picture of every frame whose
best guess was wrong or none (the ball, captioned frame, number and guess), for a person to
say which of them show their number at all; with `--sheet-below C` the picture also holds the
frames whose best guess was right at a confidence under C. `--exit specified` replays the
frames of `bench_vision.py --exit specified`. A diagnosis, not a benchmark: nothing is timed.

Usage: python bench/vision_misses.py [--frames N] [--seed S] [--exit as-drawn|specified]
    [--out DIR] [--sheet FILE.jpg [--sheet-below C]]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_vision import SEED, scenes  # noqa: E402

from bingo_hall.vision.locate import find_ball  # noqa: E402
from bingo_hall.vision.recognise import BallReader, read_labels  # noqa: E402
from bingo_hall.vision.render import PRINTS, Scene, draw_scene  # noqa: E402
from bingo_hall.vision.styles import EXITS, HELD_OUT, at_exit  # noqa: E402

CLEAN_CAMERA = dict(
    glare=(), blur=0.0, motion=0.0, noise=0.0, jpeg=95, cast=(1.0, 1.0, 1.0), gamma=1.0, gain=1.0
)


def nearest_print(scene: Scene) -> tuple[float, float]:
    """The spin that would turn the nearest print to the camera, and how far from facing
    the camera that print is (degrees)."""
    offsets = [
        (scene.spin + 2 * math.pi * k / PRINTS + math.pi) % (2 * math.pi) - math.pi
        for k in range(PRINTS)
    ]
    turn = min(offsets, key=abs)
    return turn, math.degrees(math.acos(math.cos(scene.tilt) * math.cos(turn)))


def variants(scene: Scene) -> dict[str, Scene]:
    turn, _ = nearest_print(scene)
    frontal = dict(spin=scene.spin - turn, tilt=0.0)
    clean = CLEAN_CAMERA | {"specular": min(scene.specular, 0.2)}
    return {
        "renoise": scene,
        "no_extra_glare": replace(scene, glare=()),
        "no_highlights": replace(scene, glare=(), specular=0.0),
        "sharp": replace(scene, blur=0.0, motion=0.0),
        "clean_sensor": replace(scene, noise=0.0, jpeg=95),
        "no_spread": replace(scene, ink_spread=0.0),
        "frontal": replace(scene, **frontal),
        "all_camera": replace(scene, **clean),
        "all_camera_frontal": replace(scene, **frontal, **clean),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, help="write the missed balls and a JSONL here")
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument("--sheet", type=Path, help="the frames guessed wrong, as one picture")
    parser.add_argument(
        "--sheet-below",
        type=float,
        default=0.0,
        help="the picture also holds right best guesses under this confidence",
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    reader = BallReader()
    redraw = np.random.default_rng(args.seed + 7)
    misses: list[dict] = []
    wrong_guesses: list[np.ndarray] = []
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    style_set = at_exit(HELD_OUT, args.exit)
    for i, (truth, scene, frame) in enumerate(scenes(args.frames, args.seed, style_set)):
        reading = reader.read(frame)
        if reading.number == truth:
            continue
        ball = find_ball(frame)
        miss = {
            "frame": i,
            "truth": truth,
            "guess": reading.guess,
            "confidence": round(reading.confidence, 6),
            "reason": reading.reason,
            "labels": len(read_labels(frame, ball, reader.model)) if ball is not None else 0,
            "print_off_axis_deg": round(nearest_print(scene)[1], 1),
            "font": scene.font.name,
            "glare_spots": len(scene.glare),
        }
        miss["variants"] = {}
        for name, variant in variants(scene).items():
            again = reader.read(draw_scene(variant, redraw))
            miss["variants"][name] = {"read": again.number == truth, "guess": again.guess}
        misses.append(miss)
        if args.out:
            _save(args.out, miss, _crop(frame, ball))
        if reading.guess != truth or reading.confidence < args.sheet_below:
            wrong_guesses.append(_captioned(_crop(frame, ball), miss, args.sheet_below > 0))
    report(misses, args.frames)
    if args.sheet and wrong_guesses:
        cv2.imwrite(str(args.sheet), _sheet(wrong_guesses), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return 0


def _crop(frame: np.ndarray, ball) -> np.ndarray:
    """The ball and a little round it; the whole frame when no ball was found."""
    if ball is None:
        return frame
    r = int(ball.r * 1.1)
    x, y = int(ball.x), int(ball.y)
    return frame[max(0, y - r) : y + r, max(0, x - r) : x + r]


def _save(out: Path, miss: dict, ball: np.ndarray) -> None:
    with open(out / "misses.jsonl", "a") as file:
        file.write(json.dumps(miss) + "\n")
    cv2.imwrite(str(out / f"{miss['frame']:05d}_{miss['truth']}_{miss['guess']}.png"), ball)


TILE = 240


def _captioned(ball: np.ndarray, miss: dict, confidence: bool = False) -> np.ndarray:
    tile = cv2.resize(ball, (TILE, TILE), interpolation=cv2.INTER_CUBIC)
    caption = f"{miss['frame']}: {miss['truth']} > {miss['guess']}"
    if confidence:
        caption += f" {miss['confidence']:.3f}"
    cv2.putText(tile, caption, (4, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 255, 0), 2)
    return tile


def _sheet(tiles: list[np.ndarray], across: int = 6) -> np.ndarray:
    blank = np.zeros_like(tiles[0])
    tiles = tiles + [blank] * (-len(tiles) % across)
    return np.vstack([np.hstack(tiles[i : i + across]) for i in range(0, len(tiles), across)])


def report(misses: list[dict], frames: int) -> None:
    right_guess = sum(m["guess"] == m["truth"] for m in misses)
    print(f"{len(misses)} of {frames} frames not read correctly ({right_guess} right best guess)")
    print("read once the condition is taken away (of the missed frames):")
    for name in misses[0]["variants"] if misses else ():
        read = sum(m["variants"][name]["read"] for m in misses)
        guessed = sum(m["variants"][name]["guess"] == m["truth"] for m in misses)
        print(f"  {name:20s} read {read:4d}   best guess right {guessed:4d}")
    for key in ("font", "labels", "glare_spots"):
        counts = Counter(m[key] for m in misses).most_common()
        print(f"misses by {key}: " + ", ".join(f"{k}: {v}" for k, v in counts))


if __name__ == "__main__":
    sys.exit(main())
