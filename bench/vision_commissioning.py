"""Does commissioning tell the ball sets the camera may confirm from the ones it may not?

Each typeface of the held-out, calibration and check sets is made a simulated ball set (one
typeface, one ball colour, the held-out set's conditions) and commissioned as a hall does it:
every ball shown `--showings` times to the simulated camera, three frames each, all 90 balls
candidates (`bingo_hall.hub.commissioning`, each showing's frame read against the others' as
the hub does, judged by `bingo_hall.domain.commissioning`; the verdict the networks alone would
have given is printed beside it). Then
`--play` balls are drawn on it and read as in play (three frames, the balls still in the
machine as candidates), counting the wrong numbers the reader accepts. The baseline is the
reader without commissioning: the wrong numbers accepted in play on every set, against those
on the sets the commissioning let the camera confirm. The same frames of play are also read
against a fit set's references, made from the frames its commissioning kept as the hub makes
them (`BallCheck.references`): the balls read and the wrong ones, beside the networks' alone.
For floors from 0.5 to 0.999, the call as a second witness (`domain.call_check`, a hall's
`camera.call_witness_floor`): the right calls the hub would confirm on the fit sets, and the
balls on which a call miskeyed as the camera's wrong best guess would be confirmed.
`--exit specified` draws every set as an exit built to a specification would show it.
`--printed` prints each set once (`bingo_hall.vision.ball_set`): every ball then keeps its
print from its showings to play, as a hall's set does; without it, each presentation draws the
ball's print anew in the set's typeface and colour. `--printed K` takes the K-th print run of
each set, shown and played from seeds of its own (run 0 is `--printed`). A diagnosis of
quality, not timed.

Usage: python bench/vision_commissioning.py [--showings N] [--play N] [--workers N]
    [--model MODEL.npz] [--families held-out,calibration,check] [--exit as-drawn|specified]
    [--printed [K]]
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import sqlalchemy  # noqa: E402

from bingo_hall.domain.call_check import camera_verdict  # noqa: E402
from bingo_hall.domain.commissioning import (  # noqa: E402
    CommissioningVerdict,
    judge,
    with_cross_readings,
)
from bingo_hall.hub.ball_check import BallCheck, camera_check  # noqa: E402
from bingo_hall.hub.commissioning import ALL_BALLS, commission, show_balls, showing_order  # noqa: E402
from bingo_hall.store.frames import FrameStore  # noqa: E402
from bingo_hall.vision.ball_set import print_ball_set  # noqa: E402
from bingo_hall.vision.camera import SimulatedCamera  # noqa: E402
from bingo_hall.vision.model import MODEL_PATH  # noqa: E402
from bingo_hall.vision.reading import Reading  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402
from bingo_hall.vision.styles import (  # noqa: E402
    CALIBRATION,
    CHECK,
    EXITS,
    HELD_OUT,
    StyleSet,
    at_exit,
)

FAMILIES = {"held-out": HELD_OUT, "calibration": CALIBRATION, "check": CHECK}
SEED = 20261127
WITNESS_FLOORS = (0.5, 0.9, 0.99, 0.999)


@dataclass(frozen=True)
class SetResult:
    family: str
    typeface: str
    verdict: CommissioningVerdict
    alone: CommissioningVerdict  # the networks' readings alone judged
    played: int
    play_read: int
    play_wrong: list[tuple[int, int, float]]  # (ball, read as, confidence)
    set_read: int  # read with the set's references (fit sets), on the same frames
    set_wrong: list[tuple[int, int, float]]
    # the call as a second witness (`domain.call_check`), for each floor: the right calls the
    # hub would confirm, and the balls on which a call miskeyed as the camera's wrong best
    # guess would be confirmed (ball, guess, confidence)
    witnessed: dict[float, int]
    exposed: dict[float, list[tuple[int, int, float]]]


def ball_set(family: str, index: int) -> StyleSet:
    """One typeface and one ball colour of `family`, in the held-out set's conditions."""
    base = FAMILIES[family]
    fonts = base.usable_fonts()
    colour = HELD_OUT.colours[index % len(HELD_OUT.colours)]
    return replace(
        HELD_OUT,
        name=f"{family}-{fonts[index].name}",
        fonts=(fonts[index],),
        colours=(colour,),
        inks=HELD_OUT.inks,
    )


def misread(ball: int, reading: Reading) -> list[tuple[int, int, float]]:
    """The reading as a wrong number accepted, if it is one."""
    if reading.number is None or reading.number == ball:
        return []
    return [(ball, reading.number, reading.confidence)]


def run_set(job: tuple[str, int, int, int, str, str, int | None]) -> SetResult:
    family, index, showings, play, model, exit_name, printed = job
    styles = at_exit(ball_set(family, index), exit_name)
    seed = SEED + 100_000 * (printed or 0)
    printing = np.random.default_rng(seed + 2000 * index + len(family))
    camera = SimulatedCamera(
        seed=seed + 1000 * index + len(family),
        style_set=styles,
        ball_set=None if printed is None else print_ball_set(printing, styles),
    )
    reader = BallReader(Path(model))
    store = FrameStore(sqlalchemy.create_engine("sqlite://"))  # in memory, for this set only
    check = BallCheck(camera, reader, store, 3, camera.present)
    order = showing_order(showings)
    shown = list(show_balls(check, order))
    command = commission(check, styles.name, shown)
    verdict = judge(with_cross_readings(shown, command.cross_readings))
    kept = tuple((s.number, s.camera.frame) for s in shown if verdict.fit and s.camera.frame)
    references = check.references(kept) if kept else None
    rng = np.random.default_rng(seed + index)
    wrong: list[tuple[int, int, float]] = []
    set_wrong: list[tuple[int, int, float]] = []
    read = set_read = 0
    witnessed = dict.fromkeys(WITNESS_FLOORS, 0)
    exposed: dict[float, list[tuple[int, int, float]]] = {f: [] for f in WITNESS_FLOORS}
    for game in range(max(1, play // 60)):
        drawn: list[int] = []
        for ball in rng.permutation(90)[: min(60, play - 60 * game)] + 1:
            remaining = [n for n in ALL_BALLS if n not in drawn]
            camera.present(int(ball))
            evidence = [reader.evidence(frame) for frame in camera.frames(3)]
            drawn.append(int(ball))
            alone = reader.decide(evidence, remaining)
            on_the_set = reader.decide(evidence, remaining, references)
            read += alone.number == ball
            set_read += on_the_set.number == ball
            wrong += misread(int(ball), alone)
            set_wrong += misread(int(ball), on_the_set)
            recorded = camera_check(on_the_set, None)
            guess = recorded.guess
            for floor in WITNESS_FLOORS:
                witnessed[floor] += camera_verdict(recorded, int(ball), floor) is not None
                if guess not in (None, ball) and camera_verdict(recorded, guess, floor):
                    exposed[floor].append((int(ball), guess, recorded.confidence))
    return SetResult(
        family,
        styles.fonts[0].name,
        verdict,
        judge(shown),
        play,
        read,
        wrong,
        set_read,
        set_wrong,
        witnessed,
        exposed,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--showings", type=int, default=2, help="showings of each ball")
    parser.add_argument("--play", type=int, default=300, help="balls played on each set")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--model", default=str(MODEL_PATH))
    parser.add_argument("--families", default="held-out,calibration,check")
    parser.add_argument("--exit", choices=EXITS, default=EXITS[0])
    parser.add_argument(
        "--printed", type=int, nargs="?", const=0, help="every ball keeps its print (run K)"
    )
    args = parser.parse_args()
    families = args.families.split(",")
    jobs = [
        (family, index, args.showings, args.play, args.model, args.exit, args.printed)
        for family in families
        for index in range(len(FAMILIES[family].usable_fonts()))
    ]
    print(
        f"model {args.model}; {len(jobs)} sets at the {args.exit} exit; {args.showings} "
        f"showings of each ball; {args.play} balls played on each"
        + ("" if args.printed is None else f"; each set printed once (run {args.printed})")
    )
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_set, jobs))
    for r in results:
        v, alone = r.verdict, r.alone
        wrong = ", ".join(f"{b}→{n} {c:.6f}" for b, n, c in r.play_wrong) or "none"
        set_wrong = ", ".join(f"{b}→{n} {c:.6f}" for b, n, c in r.set_wrong) or "none"
        print(
            f"{r.family:11s} {r.typeface:28s} {'FIT    ' if v.fit else 'REFUSED'} "
            f"read {v.read_share:6.1%} ({v.cross_read:2d} on the other prints; networks alone "
            f"{alone.read_share:6.1%}, {'fit' if alone.fit else 'refused'}) "
            f"nearest another ball {v.cross_wrong:2d} wrong guesses {v.wrong_guesses:3d} "
            f"near misses {list(v.near_misses)} "
            f"| play: read {r.play_read / r.played:6.1%}, wrong accepted: {wrong}; with the "
            f"set's references read {r.set_read / r.played:6.1%}, wrong accepted: {set_wrong}"
        )
        for refusal in v.refusals:
            print(f"{'':41s}  refused: {refusal}")
    for family in families:
        mine = [r for r in results if r.family == family]
        fit = [r for r in mine if r.verdict.fit]
        alone = sum(r.alone.fit for r in mine)
        print(
            f"{family}: {len(fit)} of {len(mine)} sets fit ({alone} on the networks alone); "
            "wrong numbers accepted in play: "
            f"{sum(len(r.play_wrong) for r in mine)} on all sets (baseline: no commissioning), "
            f"{sum(len(r.play_wrong) for r in fit)} on the fit sets; "
            f"play read on fit sets {np.mean([r.play_read / r.played for r in fit] or [0]):.1%}, "
            f"with their references {np.mean([r.set_read / r.played for r in fit] or [0]):.1%} "
            f"({sum(r.set_read for r in fit)} of {sum(r.played for r in fit)} balls; "
            f"{sum(len(r.set_wrong) for r in fit)} wrong)"
        )
        played = sum(r.played for r in fit)
        for floor in WITNESS_FLOORS:
            exposed = [e for r in fit for e in r.exposed[floor]]
            shown_exposed = ", ".join(f"{b}→{n} {c:.4f}" for b, n, c in exposed[:8]) or "none"
            print(
                f"  the call as a witness from {floor}: right calls confirmed on fit sets "
                f"{sum(r.witnessed[floor] for r in fit)} of {played}; a call miskeyed "
                f"as the camera's guess confirmed on {len(exposed)} of {played} balls: "
                f"{shown_exposed}"
            )


if __name__ == "__main__":
    main()
