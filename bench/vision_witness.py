"""What the call as a second witness adds to the hub's rule, and what it would let through.

Reads the frames `vision_set_references.py --records` wrote, and takes each as the hub takes a
call: the reading the set's references judge (`set_references.judged_reading`), recorded as
the hub records it (`hub.ball_check.camera_check`), confirmed or not by the rule of
`domain.call_check` in a hall configured with `camera.call_witness_floor` F. For each floor and
each file: the frames whose right call the hub confirms; and the frames on which a call
miskeyed as the camera's wrong best guess would be confirmed. Beside it, the looser witness
that only a `set_disagrees` refuses (prints that lean to another ball too faintly to name it
let it through). Single frames, every ball a candidate (the hub reads bursts among the balls
still in the machine). Not timed.

Usage: cd bench && python vision_witness.py FILE.jsonl [...] [--floors 0.5,0.9,0.99,0.999]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision_set_rule import Frame, load_one

from bingo_hall.domain.call_check import camera_verdict
from bingo_hall.domain.events import CameraCheck
from bingo_hall.hub.ball_check import camera_check
from bingo_hall.vision.set_references import ReferenceMatch, judged_reading

FLOORS = (0.5, 0.9, 0.99, 0.999, 0.9999)


def recorded(frame: Frame) -> CameraCheck | None:
    """The check the hub records for the frame (None: the networks had no guess)."""
    if frame.guess is None:
        return None
    match = None
    if frame.nearest is not None:
        match = ReferenceMatch(frame.nearest, frame.margin, frame.similarity)
    return camera_check(judged_reading(frame.guess, frame.confidence, frame.accepted, match), None)


def looser(check: CameraCheck) -> CameraCheck:
    """The check as if only a `set_disagrees` could refuse the witness."""
    if check.reason == "set_disagrees":
        return check
    return check.model_copy(update={"set_nearest": check.guess})


def show(name: str, frames: list[Frame], floors: tuple[float, ...]) -> None:
    checks = [(f, recorded(f)) for f in frames]
    checks = [(f, c) for f, c in checks if c is not None]
    read = [f for f, c in checks if c.reading is not None]
    wrong = sum(f.guess != f.truth for f in read)
    print(
        f"{name}: {len(frames)} frames; the hub's rule reads {len(read) / len(frames):.3%} "
        f"({wrong} wrong)"
    )
    for floor in floors:
        for rule, as_taken in (("as built", lambda c: c), ("set_disagrees alone", looser)):
            right = sum(camera_verdict(as_taken(c), f.truth, floor) is not None for f, c in checks)
            exposed = [
                (f, c)
                for f, c in checks
                if c.guess != f.truth and camera_verdict(as_taken(c), c.guess, floor)
            ]
            print(
                f"  floor {floor}, {rule}: confirms {right / len(frames):.3%} of right calls; "
                f"a miskey on the guess confirmed on {len(exposed)} frames "
                f"({len(exposed) / len(frames):.3%})"
            )
            for f, c in sorted(exposed, key=lambda fc: -fc[1].confidence)[:6]:
                print(
                    f"    {f.set}: {f.truth} as {c.guess} at {c.confidence:.4f}; the set's "
                    f"prints nearest {f.nearest} by {f.margin:.3f}"
                )


def parse_floors(text: str) -> tuple[float, ...]:
    try:
        floors = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: floors as 0.5,0.9,0.99") from None
    if not all(0.5 <= floor < 1 for floor in floors):
        raise argparse.ArgumentTypeError(f"{text!r}: each floor at least 0.5 and under 1")
    return floors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, nargs="+")
    parser.add_argument("--floors", type=parse_floors, default=FLOORS)
    args = parser.parse_args()
    every: list[Frame] = []
    for path in args.records:
        frames = load_one(path)
        every += frames
        show(path.name, frames, args.floors)
    if len(args.records) > 1:
        show("all", every, args.floors)


if __name__ == "__main__":
    main()
