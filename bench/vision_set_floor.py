"""Which frames do a ball set's own prints recognise? The similarity floor of the references.

Each typeface of the calibration, check and held-out families is made a simulated ball set
printed once (`vision_commissioning.ball_set`, `ball_set.print_ball_set`), commissioned as the
hub does it (every ball shown twice, the frame the hub keeps of each showing as a reference),
then played: `--play` single frames of random balls as the exit shows them, and as many
through a smeared, out-of-focus dome (`styles.obscured`), where no one can read the ball.

A smeared frame still lies nearest some print of the set, often by a wide margin. Without a
floor on how near (`set_references.SIMILARITY_FLOOR`) the references would confirm a guess on
it, or name a ball for the Jefe de Mesa, from a smear alone. Prints, for the clear and the
smeared frames of each family: the similarity of the nearest references (quantiles); then, for
the hub's rule with each floor (0: no floor, as a baseline): the frames read, the wrong ones,
and the frames held naming another ball (`set_disagrees`), with those naming a ball other
than the one shown. The floor proposed is the least grid step 0.01 or more above every
smeared frame of the calibration and check families that the references named or confirmed a
wrong ball for; the held-out family and `--exit specified` check it. With `--burst K` each
ball is read as the hub reads a call: a burst of K frames, up to 59 balls already out, the
others the candidates (a guess already out is never given). Frames and bursts are matched to
the references as the hub matches them (`SetReferences.match`: none when some ball has no
print kept). Not timed.

Usage: python bench/vision_set_floor.py [--play N] [--exit as-drawn|specified] [--seed S]
    [--burst K] [--workers N] [--records FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
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
from vision_set_references import as_kept  # noqa: E402

from bingo_hall.domain.commissioning import MIN_READ_SHARE  # noqa: E402
from bingo_hall.hub.commissioning import SHOWINGS_PER_BALL  # noqa: E402
from bingo_hall.vision.ball_set import print_ball_set  # noqa: E402
from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402
from bingo_hall.vision.set_references import (  # noqa: E402
    SIMILARITY_FLOOR,
    ReferenceMatch,
    SetReferences,
    corroborates,
    cross_matches,
    judge,
    set_references,
)
from bingo_hall.vision.styles import EXITS, at_exit, obscured  # noqa: E402

SEED = 20261201
CHOOSING = ("calibration", "check")
FLOORS = (0.0, 0.80, 0.85, 0.86, 0.87, SIMILARITY_FLOOR, 0.89, 0.90, 0.92)
ROOM = 0.01  # between the nearest smeared frame misled on and the floor proposed
QUANTILES = (0.0, 0.001, 0.01, 0.05, 0.5, 0.95, 0.99, 1.0)


@dataclass(frozen=True)
class Frame:
    family: str
    set: str
    smeared: bool
    truth: int
    guess: int | None
    confidence: float
    accepted: bool  # by the networks' own threshold
    nearest: int | None  # None: no print found
    margin: float
    similarity: float
    in_machine: bool = True  # the guess is a ball still in the machine

    def match(self) -> ReferenceMatch | None:
        if self.nearest is None:
            return None
        return ReferenceMatch(self.nearest, self.margin, self.similarity)


@dataclass(frozen=True)
class Commissioning:
    """A set's showings as the hub judges them: read by the networks alone, and with each
    doubted showing read against the others' prints (`BallCheck.cross_readings`)."""

    set: str
    showings: int
    networks_read: int
    cross_read: dict[float, int]  # by floor


def commission(
    name: str, reader: BallReader, camera: SimulatedCamera
) -> tuple[Commissioning, SetReferences]:
    """Every ball shown as the hub shows it (a burst of three frames, the last kept as JPEG);
    the showings judged at each floor, and the set's references."""
    shown = []
    for _ in range(SHOWINGS_PER_BALL):
        for number in range(1, 91):
            camera.present(number)
            burst = camera.frames(3)
            reading = reader.read_frames(burst)
            shown.append((number, reading, reader.front_features(as_kept(burst[-1]))))
    matches = cross_matches([(number, features) for number, _, features in shown])
    doubted = [
        (number, reading.confidence, match)
        for (number, reading, _), match in zip(shown, matches, strict=True)
        if reading.number != number and reading.guess == number
    ]
    cross_read = {
        floor: sum(corroborates(n, c, m, floor=floor) for n, c, m in doubted) for floor in FLOORS
    }
    networks_read = sum(reading.number == number for number, reading, _ in shown)
    references = set_references((number, features) for number, _, features in shown)
    return Commissioning(name, len(shown), networks_read, cross_read), references


def play_set(job: tuple[str, int, str, int, int, int]) -> tuple[Commissioning, list[Frame]]:
    family, index, exit_name, play, seed, burst = job
    cv2.setNumThreads(1)
    styles = at_exit(ball_set(family, index), exit_name)
    prints = print_ball_set(np.random.default_rng(seed + index), styles)
    reader = BallReader()
    camera = SimulatedCamera(seed + index, style_set=styles, ball_set=prints)
    name = f"{family} {styles.fonts[0].name}"
    commissioning, references = commission(name, reader, camera)
    frames = []
    for smeared, seen in ((False, styles), (True, obscured(styles))):
        camera = SimulatedCamera(seed + 500 + index, style_set=seen, ball_set=prints)
        rng = np.random.default_rng(seed + 900 + index)
        for _ in range(play):
            if burst == 1:
                truth, remaining = int(rng.integers(1, 91)), None
            else:
                out = rng.choice(np.arange(1, 91), size=int(rng.integers(0, 60)), replace=False)
                remaining = sorted(set(range(1, 91)) - set(out.tolist()))
                truth = int(rng.choice(remaining))
            camera.present(truth)
            evidence = [reader.evidence(frame) for frame in camera.frames(burst)]
            reading = reader.decide(evidence, remaining)  # the networks alone
            # the references matched as the hub matches them (none: no print found, or some
            # ball has no print kept)
            match = references.match(
                [e.front_features for e in evidence if e.front_features is not None]
            )
            ball, margin, similarity = (None, 0.0, 0.0)
            if match is not None:
                ball, margin, similarity = match.ball, match.margin, match.similarity
            frames.append(
                Frame(
                    family,
                    name,
                    smeared,
                    truth,
                    reading.guess,
                    reading.confidence,
                    reading.number is not None,
                    ball,
                    margin,
                    similarity,
                    remaining is None or reading.guess in remaining,
                )
            )
    return commissioning, frames


def verdict(frame: Frame, floor: float) -> str | None:
    """The hub's verdict on the frame with the references' floor at `floor` (None: no guess)."""
    if frame.guess is None:
        return None
    taken = judge(frame.guess, frame.confidence, frame.accepted, frame.match(), floor=floor)
    if not frame.in_machine and taken in ("networks", "set"):
        return "unsure"  # a ball already out is guessed, never given (`judged_reading`)
    return taken


def misled(frame: Frame) -> bool:
    """With no floor, the references confirmed or named a ball other than the one shown."""
    taken = verdict(frame, 0.0)
    return (taken == "set" and frame.guess != frame.truth) or (
        taken == "set_disagrees" and frame.nearest != frame.truth
    )


def proposed_floor(frames: Iterable[Frame]) -> float:
    """The least grid step `ROOM` or more above every smeared frame the references misled
    on: a smeared frame a little nearer a print than any seen is still not recognised."""
    worst = max((f.similarity for f in frames if f.smeared and misled(f)), default=0.0)
    return min((floor for floor in FLOORS if floor >= worst + ROOM), default=FLOORS[-1])


def report(name: str, frames: list[Frame]) -> None:
    for smeared in (False, True):
        some = [f for f in frames if f.smeared == smeared]
        found = np.array([f.similarity for f in some if f.nearest is not None])
        kind = "smeared" if smeared else "clear"
        print(f"{name}, {kind}: {len(some)} frames, {found.size} with a print found")
        if found.size:
            values = " ".join(f"{v:.3f}" for v in np.quantile(found, QUANTILES))
            print(f"  nearest similarity at quantiles {QUANTILES}: {values}")
        print("  floor   read  wrong  named  named-wrong")
        for floor in FLOORS:
            verdicts = [(f, verdict(f, floor)) for f in some]
            read = [f for f, v in verdicts if v in ("networks", "set")]
            named = [f for f, v in verdicts if v == "set_disagrees"]
            print(
                f"  {floor:5.2f} {len(read):6d} {sum(f.guess != f.truth for f in read):6d}"
                f" {len(named):6d} {sum(f.nearest != f.truth for f in named):12d}"
            )


def report_commissioning(sets: list[Commissioning]) -> None:
    """The showings read (the networks' and confirmed on the others' prints) at each floor,
    and the sets whose share falls under the rules' minimum at the hub's floor alone."""
    showings = sum(s.showings for s in sets)
    networks = sum(s.networks_read for s in sets)
    print(f"commissioning, {len(sets)} sets, {showings} showings, {networks} read by the networks")
    for floor in FLOORS:
        cross = sum(s.cross_read[floor] for s in sets)
        print(f"  floor {floor:4.2f}: {cross} more confirmed on the others' prints")
    for s in sets:
        without = s.networks_read + s.cross_read[0.0]
        at_floor = s.networks_read + s.cross_read[SIMILARITY_FLOOR]
        if at_floor < MIN_READ_SHARE * s.showings <= without:
            print(f"  {s.set}: {without} read without a floor, {at_floor} at the hub's: refused")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", type=int, default=300, help="frames of each kind on each set")
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--burst", type=int, default=1, help="frames read for each ball")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--records", type=Path, help="write every frame read here (JSON lines)")
    args = parser.parse_args()
    jobs = [
        (family, index, args.exit, args.play, args.seed, args.burst)
        for family in (*CHOOSING, "held-out")
        for index in range(len(FAMILIES[family].usable_fonts()))
    ]
    print(
        f"{len(jobs)} sets at the {args.exit} exit, each printed once and commissioned as the "
        f"hub does; {args.play} clear and {args.play} smeared "
        + ("frames" if args.burst == 1 else f"bursts of {args.burst}, balls out as in play")
        + f" each; seed {args.seed}; "
        f"the hub's floor {SIMILARITY_FLOOR}"
    )
    frames: list[Frame] = []
    commissionings: list[Commissioning] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for commissioning, played in pool.map(play_set, jobs):
            commissionings.append(commissioning)
            frames += played
    if args.records:
        with args.records.open("w") as records:
            for frame in frames:
                records.write(json.dumps(asdict(frame)) + "\n")
    choosing = [f for f in frames if f.family in CHOOSING]
    report_commissioning(commissionings)
    report(" and ".join(CHOOSING), choosing)
    report("held-out", [f for f in frames if f.family == "held-out"])
    worst = [f for f in choosing if f.smeared and misled(f)]
    top = max((f.similarity for f in worst), default=None)
    print(
        f"smeared frames of {' and '.join(CHOOSING)} the references misled on without a floor:"
        f" {len(worst)}, the nearest at {'-' if top is None else f'{top:.3f}'};"
        f" floor proposed {proposed_floor(choosing):.2f}"
    )


if __name__ == "__main__":
    main()
