"""Benchmark of the CCTV ball reader on rendered frames in the HELD-OUT styles.

Renders N frames (default 10,000; fonts, ball colours, inks and condition ranges never used
in training or calibration), reads each one with `BallReader.read` on one core
(cv2.setNumThreads(1)), and prints:

- accuracy: frames whose accepted number is the rendered one;
- wrong numbers above the acceptance threshold (must be 0), unsure and unreadable counts;
- the confusion cases: how often each wrong best guess came up (rendered → guess), and the
  most confident of them;
- by typeface: frames, read, best guess right (the typefaces the reader finds hardest); the
  same by the evidence each reading rests on (one label, two labels found, two agreeing);
- thresholds in hindsight: for each kind of evidence, the most confident wrong guess on these
  frames and what would have been read with the threshold just above it, and the read rate
  at a few fixed thresholds: a bound on what any threshold rule could read with these
  networks, not a threshold to adopt (that would be tuning on the held-out frames);
- time per frame (median, p99) against a baseline measured on the same frames in the same
  process: the bare cost of cv2.cvtColor + cv2.GaussianBlur(5×5) on the frame;
- then, as the hub reads a ball, bursts of three frames from the simulated camera (held-out
  styles) fused by `BallReader.read_frames`: with every ball possible, and with about half the
  balls already drawn (the candidates are the balls still in the machine), against the first
  frame of each burst alone; and the same bursts as if the ball shown had been drawn before
  and were still in view (it is not a candidate): none may be read as a ball in the machine;
- the call as a second witness, on the single frames and on those bursts: for a few floors
  on the networks' confidence, the share of balls whose best guess is the ball shown at or
  above the floor (a right call the camera would confirm on agreement alone), and the share
  whose best guess is another ball at or above it (the most a miskeyed call could be
  confirmed: when the wrong number keyed is the very one the camera guesses). A measurement
  for choosing a rule, not the hub's rule.

With `--exit specified` the same balls are drawn as at an exit built to a lighting and
camera specification (`styles.as_specified`): a measurement of such an exit, not the
benchmark.

Usage: python bench/bench_vision.py [--frames N] [--bursts N] [--seed S] [--styles ...]
    [--exit as-drawn|specified] [--model MODEL.npz]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: numpy's BLAS too, not only OpenCV

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.model import EVIDENCE_NAMES, MODEL_PATH, Evidence  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402
from bingo_hall.vision.render import Scene, draw_scene, sample_scene  # noqa: E402
from bingo_hall.vision.styles import EXITS, HELD_OUT, TRAINING, StyleSet, at_exit  # noqa: E402

SEED = 90_2026_11_22


def baseline(frame: np.ndarray) -> None:
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    cv2.GaussianBlur(grey, (5, 5), 0)


def scenes(count: int, seed: int, style_set: StyleSet) -> Iterator[tuple[int, Scene, np.ndarray]]:
    """The benchmark's frames, in order: (the ball's number, its scene, the frame)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, style_set)
        yield truth, scene, draw_scene(scene, rng)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--styles", choices=["held_out", "training"], default="held_out")
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument("--bursts", type=int, default=1_000, help="balls read as three frames")
    parser.add_argument("--model", type=Path, default=MODEL_PATH, help="default: the packaged one")
    args = parser.parse_args()
    if not args.model.is_file():
        parser.error(f"--model {args.model}: no such model file")
    cv2.setNumThreads(1)
    style_set = at_exit(HELD_OUT if args.styles == "held_out" else TRAINING, args.exit)
    fonts = ", ".join(f.name for f in style_set.usable_fonts())
    print(f"seed {args.seed}; {args.frames} frames; styles {style_set.name} ({fonts})")
    reader = BallReader(args.model)
    thresholds = ", ".join(
        f"{reader.model.threshold_for(kind):.7f} ({EVIDENCE_NAMES[kind]})" for kind in Evidence
    )
    print(f"model {args.model}; acceptance thresholds {thresholds}")
    read_times: list[float] = []
    base_times: list[float] = []
    outcomes: Counter[str] = Counter()
    confusions: list[tuple[int, int | None, float, str | None]] = []
    by_font: Counter[tuple[str, str]] = Counter()
    by_evidence: Counter[tuple[str, str]] = Counter()
    guesses: list[tuple[bool, float, str]] = []  # every best guess: right, confidence, kind
    for i, (truth, scene, frame) in enumerate(scenes(args.frames, args.seed, style_set)):
        start = time.perf_counter()
        baseline(frame)
        middle = time.perf_counter()
        evidence = reader.evidence(frame)
        reading = reader.decide([evidence])  # what reader.read(frame) does
        end = time.perf_counter()
        base_times.append(middle - start)
        read_times.append(end - middle)
        kind = (
            EVIDENCE_NAMES[evidence.evidence_for(reading.guess - 1)]
            if reading.guess is not None
            else "no label read"
        )
        if reading.guess is not None:
            guesses.append((reading.guess == truth, reading.confidence, kind))
        for tally, key in ((by_font, scene.font.name), (by_evidence, kind)):
            tally[key, "frames"] += 1
            tally[key, "read"] += reading.number == truth
            tally[key, "guess"] += (reading.number or reading.guess) == truth
        if reading.number == truth:
            outcomes["correct"] += 1
        elif reading.number is not None:
            outcomes["wrong_above_threshold"] += 1
            confusions.append((truth, reading.number, reading.confidence, f"ACCEPTED, {kind}"))
        else:
            outcomes[reading.reason or "?"] += 1
            reason = f"{reading.reason}, {kind}"
            confusions.append((truth, reading.guess, reading.confidence, reason))
        if (i + 1) % 1000 == 0:
            print(f"  {i + 1} frames: {dict(outcomes)}", flush=True)
    n = args.frames
    print()
    print(f"read correctly: {outcomes['correct']} / {n} = {outcomes['correct'] / n:.4%}")
    print(f"wrong number above the threshold: {outcomes['wrong_above_threshold']}")
    print(
        f"unsure: {outcomes['unsure']}; unreadable: {outcomes['unreadable']}; "
        f"no_ball: {outcomes['no_ball']}"
    )
    wrong = [c for c in confusions if c[1] is not None and c[1] != c[0]]
    right = sum(1 for c in confusions if c[1] == c[0])
    print(
        f"frames not accepted: {len(confusions)}; their best guess was right in {right}, "
        f"wrong in {len(wrong)}, absent in {len(confusions) - right - len(wrong)}"
    )
    pairs = Counter((t, g) for t, g, _, _ in wrong)
    print("most frequent confusions (rendered → guess: frames):")
    print("  " + ", ".join(f"{t}→{g}: {k}" for (t, g), k in pairs.most_common(30)))
    print("the most confident wrong guesses (rendered → guess, confidence, reason):")
    for truth, guess, confidence, reason in sorted(wrong, key=lambda c: -c[2])[:25]:
        print(f"  {truth:2d} → {guess!s:>4}  {confidence:.6f}  {reason}")
    print_breakdown("typeface", by_font)
    print_breakdown("evidence", by_evidence)
    print_hindsight(
        guesses, n, {EVIDENCE_NAMES[k]: reader.model.threshold_for(k) for k in Evidence}
    )
    med, p99 = statistics.median(read_times) * 1e3, percentile(read_times, 99) * 1e3
    bmed, bp99 = statistics.median(base_times) * 1e3, percentile(base_times, 99) * 1e3
    print(f"time per frame (one core): median {med:.2f} ms, p99 {p99:.2f} ms")
    print(f"baseline cvtColor+GaussianBlur: median {bmed:.3f} ms, p99 {bp99:.3f} ms")
    print(f"ratio (median): {med / bmed:.1f}x")
    print_witness("single frames", [(right, c) for right, c, _ in guesses], n)
    wrong_bursts = bursts(reader, args.bursts, args.seed, style_set)
    return 0 if outcomes["wrong_above_threshold"] == 0 and wrong_bursts == 0 else 1


def print_breakdown(what: str, tally: Counter[tuple[str, str]]) -> None:
    """Frames, read and best guess right for each typeface (or kind of evidence), the
    hardest first."""
    keys = sorted({key for key, _ in tally}, key=lambda k: tally[k, "read"] / tally[k, "frames"])
    print(f"by {what} (frames: read, best guess right):")
    for key in keys:
        frames = tally[key, "frames"]
        print(
            f"  {key:32s} {frames:5d}: {tally[key, 'read'] / frames:7.2%} read, "
            f"{tally[key, 'guess'] / frames:7.2%} best guess right"
        )


HINDSIGHT_THRESHOLDS = (0.99, 0.999, 0.9999, 0.99999, 0.999999)


def print_hindsight(
    guesses: list[tuple[bool, float, str]], frames: int, thresholds: dict[str, float]
) -> None:
    """What these frames would have read at other thresholds: for each kind of evidence, at
    the model's, just above the most confident wrong guess of its kind on these very frames
    (hindsight), and at fixed ones; and in all with every kind's threshold in hindsight."""
    print("thresholds in hindsight (frames of each kind; right guesses at or above):")
    hindsight_read = 0
    for kind, threshold in thresholds.items():
        of_kind = [(right, c) for right, c, k in guesses if k == kind]
        worst = max((c for right, c in of_kind if not right), default=0.0)
        at = {t: sum(1 for right, c in of_kind if right and c >= t) for t in HINDSIGHT_THRESHOLDS}
        model_read = sum(1 for right, c in of_kind if right and c >= threshold)
        above_worst = sum(1 for right, c in of_kind if right and c > worst)
        hindsight_read += above_worst
        total = max(1, len(of_kind))
        fixed = ", ".join(f"{t}: {k / total:.2%}" for t, k in at.items())
        print(
            f"  {kind}: {len(of_kind)} frames; at the model's {threshold:.7f}: "
            f"{model_read / total:.2%}; most confident wrong {worst:.6f}, above it "
            f"{above_worst / total:.2%}; {fixed}"
        )
    print(
        f"  read with no wrong number, every kind's threshold in hindsight: "
        f"{hindsight_read} / {frames} = {hindsight_read / frames:.2%}"
    )


WITNESS_FLOORS = (0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)


def print_witness(what: str, guesses: list[tuple[bool, float]], balls: int) -> None:
    """The call as a second witness: at each floor on the confidence, the balls whose best
    guess is right (a right call confirmed) and wrong (a miskey of that very number confirmed),
    of `balls` read."""
    print(f"the call as a second witness, {what} ({balls}): floor: right, wrong best guesses")
    for floor in WITNESS_FLOORS:
        right = sum(1 for is_right, c in guesses if is_right and c >= floor)
        wrong = sum(1 for is_right, c in guesses if not is_right and c >= floor)
        print(
            f"  {floor:<8}: {right / balls:8.3%} right ({right}), "
            f"{wrong / balls:7.3%} wrong ({wrong})"
        )


BEFORE = "three frames, half drawn, the ball shown drawn before (still in view)"


def bursts(reader: BallReader, balls: int, seed: int, style_set: StyleSet) -> int:
    """Balls read as the hub reads them; returns how many were given a wrong number."""
    if balls <= 0:
        return 0
    camera = SimulatedCamera(seed + 1, style_set=style_set)
    rng = np.random.default_rng(seed + 2)
    tally: Counter[str] = Counter()
    guesses: list[tuple[bool, float]] = []  # three frames, half drawn: as the hub reads
    for _ in range(balls):
        truth = int(rng.integers(1, 91))
        drawn = set(rng.choice(np.arange(1, 91), size=45, replace=False).tolist()) - {truth}
        candidates = [n for n in range(1, 91) if n not in drawn]
        camera.present(truth)
        frames = camera.frames(3)
        as_the_hub = reader.read_frames(frames, candidates)
        before = [n for n in candidates if n != truth]  # the ball shown was the one before
        for name, reading in (
            ("first frame", reader.read(frames[0])),
            ("three frames", reader.read_frames(frames)),
            ("three frames, half drawn", as_the_hub),
            (BEFORE, reader.read_frames(frames, before)),
        ):
            tally[
                name, "right" if reading.number == truth else "wrong" if reading.number else "held"
            ] += 1
        if as_the_hub.guess is not None:
            guesses.append((as_the_hub.guess == truth, as_the_hub.confidence))
    print(f"\n{balls} balls as the hub reads them (simulated camera, {style_set.name} styles):")
    for name in ("first frame", "three frames", "three frames, half drawn"):
        right, wrong = tally[name, "right"], tally[name, "wrong"]
        print(f"  {name}: {right / balls:.2%} read ({right}), wrong numbers {wrong}")
    print(
        f"  {BEFORE}: read as a ball still in the machine {tally[BEFORE, 'wrong']}, "
        f"held {tally[BEFORE, 'held']}"
    )
    print_witness("three frames, half drawn", guesses, balls)
    return sum(v for (_, kind), v in tally.items() if kind == "wrong")


if __name__ == "__main__":
    sys.exit(main())
