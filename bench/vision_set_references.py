"""Would a reader that knows the hall's own ball set read the prints the networks doubt?

Each chosen typeface is made a simulated ball set (`vision_commissioning.ball_set`: one
typeface, one ball colour, the held-out conditions; with `--exit specified` as at an exit built
to a lighting and camera specification) and its commissioning is simulated: every ball shown
`--showings` times, three frames a showing, the most frontal label of each frame kept as a
reference of its ball (`LabelModel.features`: the reading networks' hidden layers; with
`--references kept`, only the frame the hub keeps of a showing, the last, as the JPEG it
stores). Then `--play` single frames of other balls of the same set are read by the networks
(every ball possible) and matched to the nearest reference (the cosine of the features; the
margin is the nearest ball's similarity less the next ball's).

Prints for each set: the networks' best guess right, right at 0.99 or more; the nearest
reference right; of the frames the networks doubt (best guess wrong or under 0.99), how many
the nearest reference gets right; the margins of right and of wrong matches; the frames on
which the networks and the nearest reference agree on a wrong number. Every frame is
answered here; which answers the hub accepts is the rule of `set_references.py`, chosen with
`vision_set_rule.py` on the frames `--records FILE` writes (JSON lines, each with the
networks' confidence in the guessed ball on each of its references); the frames that rule
reads as the hub has it, and the wrong numbers it accepts, are printed too. `--printed` prints
each set once (`bingo_hall.vision.ball_set`), so that play shows the very prints commissioning
showed, as a hall's set does; `--printed K` draws the K-th print run of each set (another
run's ink weight, slant and layout). Not timed.

Usage: python bench/vision_set_references.py [--sets held-out:all,check:3] [--play N]
    [--showings N] [--references every|kept] [--exit as-drawn|specified] [--workers N]
    [--records FILE] [--printed [K]]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from vision_commissioning import FAMILIES, ball_set  # noqa: E402

from bingo_hall.hub.ball_check import encode_jpeg  # noqa: E402
from bingo_hall.vision.ball_set import print_ball_set  # noqa: E402
from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402
from bingo_hall.vision.set_references import (  # noqa: E402
    STEPS,
    ReferenceMatch,
    Staircase,
    judge,
)
from bingo_hall.vision.styles import EXITS, at_exit  # noqa: E402

SEED = 20261129
SURE = 0.99
REFERENCES = ("every", "kept")


@dataclass(frozen=True)
class Play:
    truth: int
    guess: int | None  # the networks' best guess
    confidence: float
    accepted: bool  # the networks' guess passes the model's own threshold
    nearest: int | None  # the ball of the nearest reference (None: no label found)
    margin: float
    similarity: float  # the nearest reference's cosine
    # the networks' confidence in the guessed ball on each of its own references (the frames
    # kept of its showings): how sure they were of this set's print of that ball
    guess_references: tuple[float, ...] = ()


def as_kept(frame: np.ndarray) -> np.ndarray:
    """The frame as the hub's frame store gives it back."""
    return cv2.imdecode(np.frombuffer(encode_jpeg(frame), np.uint8), cv2.IMREAD_COLOR)


def commission(reader: BallReader, camera: SimulatedCamera, showings: int, references: str):
    """The set's references: one row of features per frame kept, the ball of each, and the
    networks' confidence in that ball on that frame."""
    rows, balls, sure = [], [], []
    for _ in range(showings):
        for number in range(1, 91):
            camera.present(number)
            frames = camera.frames(3)
            for frame in frames if references == "every" else [as_kept(frames[-1])]:
                evidence = reader.evidence(frame)
                if evidence.front_features is not None and evidence.scores is not None:
                    rows.append(evidence.front_features)
                    balls.append(number)
                    sure.append(float(np.exp(evidence.scores[number - 1])))
    return np.stack(rows), np.array(balls), np.array(sure)


def nearest(
    features: np.ndarray, references: np.ndarray, balls: np.ndarray
) -> tuple[int, float, float]:
    """The ball whose reference is nearest, its lead over the next ball's nearest, and its
    similarity."""
    best = np.full(91, -np.inf)
    np.maximum.at(best, balls, references @ features)
    first, second = np.argsort(best)[::-1][:2]
    return int(first), float(best[first] - best[second]), float(best[first])


def run_set(job: tuple[str, int, int, int, str, str, int | None]) -> tuple[str, list[Play]]:
    family, index, showings, play, exit_name, kept, printed = job
    cv2.setNumThreads(1)
    styles = at_exit(ball_set(family, index), exit_name)
    printing = np.random.default_rng(SEED + 700 + 100_000 * (printed or 0) + index)
    prints = None if printed is None else print_ball_set(printing, styles)
    reader = BallReader()
    references, balls, sure = commission(
        reader, SimulatedCamera(SEED + index, style_set=styles, ball_set=prints), showings, kept
    )
    camera = SimulatedCamera(SEED + 500 + index, style_set=styles, ball_set=prints)
    rng = np.random.default_rng(SEED + 900 + index)
    plays = []
    for _ in range(play):
        truth = int(rng.integers(1, 91))
        camera.present(truth)
        (frame,) = camera.frames(1)
        evidence = reader.evidence(frame)  # one pass: the reading and the features
        reading, features = reader.decide([evidence]), evidence.front_features
        match, margin, similarity = (
            (None, 0.0, 0.0) if features is None else nearest(features, references, balls)
        )
        accepted = reading.number is not None
        own = () if reading.guess is None else tuple(sure[balls == reading.guess].round(6))
        plays.append(
            Play(truth, reading.guess, reading.confidence, accepted, match, margin, similarity, own)
        )
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
    by_rule = [p for p in plays if by_the_hub(p)]
    rule_wrong = [(p.truth, p.guess) for p in by_rule if p.guess != p.truth]
    print(
        f"{name:36s} {n} frames: networks' best guess right {guessed / n:7.2%}, "
        f"right at {SURE} {sure / n:7.2%}; nearest reference right {matched / n:7.2%}; "
        f"doubted {len(doubted)}, of them the reference right {rescued}; margin right: "
        f"1st percentile {lowest_right:.3f}, median {np.median(right):.3f}; wrong "
        f"{[round(m, 3) for m in wrong[-5:]]} ({len(wrong)}); both wrong alike "
        f"{[(p.truth, p.guess, round(p.confidence, 3), round(p.margin, 3)) for p in agree_wrong]}; "
        f"the hub's rule: read {len(by_rule) / n:7.2%}, wrong {rule_wrong}",
        flush=True,
    )


def by_the_hub(play: Play, steps: Staircase = STEPS) -> bool:
    """The frame read as the hub reads it (`set_references.judge`): the networks' threshold or
    the set's references confirm the guess, and the references do not name another ball.
    `steps` in place of the hub's staircase measures another against it."""
    if play.guess is None:
        return False
    match = None
    if play.nearest is not None:
        match = ReferenceMatch(play.nearest, play.margin, play.similarity)
    verdict = judge(play.guess, play.confidence, play.accepted, match, steps)
    return verdict in ("networks", "set")


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
    parser.add_argument("--references", choices=REFERENCES, default=REFERENCES[0])
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument("--records", type=Path, help="write every frame read here (JSON lines)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        "--printed", type=int, nargs="?", const=0, help="every ball keeps its print (run K)"
    )
    args = parser.parse_args()
    jobs = [
        (f, i, args.showings, args.play, args.exit, args.references, args.printed)
        for f, i in args.sets
    ]
    print(
        f"{len(jobs)} sets at the {args.exit} exit, {args.showings} showings of each ball "
        f"({args.references} frames as references), {args.play} frames each"
        + ("" if args.printed is None else f"; each set printed once (run {args.printed})")
    )
    everything: list[Play] = []
    records = args.records.open("w") if args.records else None
    with ProcessPoolExecutor(args.workers) as pool:
        for name, plays in pool.map(run_set, jobs):
            report(name, plays)
            everything += plays
            for play in plays if records else []:
                records.write(json.dumps({"set": name, **asdict(play)}) + "\n")
    if records:
        records.close()
    report("all sets", everything)


if __name__ == "__main__":
    main()
