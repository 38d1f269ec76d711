"""What the call as a second witness adds to the hub's rule, and what it would let through.

Reads the frames `vision_set_references.py --records` wrote. The hub confirms a call when its
rule accepts the reading as the call (`set_references.judge`: the networks' threshold, or the
set's references), and, in a hall configured with `camera.call_witness_floor` F, also when
the networks' best guess is the call at a confidence of F or more and the set's references do
not refuse it (`domain.call_check`: the reason is not `set_disagrees`). For each floor and
each file: the frames whose right call the hub confirms; and the frames whose best guess is
another ball at F or more, not refused, on which a call miskeyed as that very ball would be
confirmed. The same under a stricter veto: the witness refused whenever the references lie
nearer another ball at all, as they refuse the networks' own acceptance. Single frames, every
ball a candidate (the hub reads bursts among the balls still in the machine). Not timed.

Usage: cd bench && python vision_witness.py FILE.jsonl [...] [--floors 0.5,0.9,0.99,0.999]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision_set_rule import Frame, load_one

from bingo_hall.vision.set_references import ReferenceMatch, Verdict, contradicts, judge

FLOORS = (0.5, 0.9, 0.99, 0.999, 0.9999)


def verdict(frame: Frame) -> Verdict | None:
    """The hub's rule on the frame's best guess (None: no guess)."""
    if frame.guess is None:
        return None
    match = None
    if frame.nearest is not None:
        match = ReferenceMatch(frame.nearest, frame.margin, frame.similarity)
    return judge(frame.guess, frame.confidence, frame.accepted, match)


def witnessed(frame: Frame, floor: float, strict: bool) -> bool:
    """The witness would confirm a call of the frame's best guess, which the rule alone did
    not accept."""
    said = verdict(frame)
    if said is None or said in ("networks", "set", "set_disagrees") or frame.confidence < floor:
        return False
    leans = frame.nearest is not None and contradicts(
        frame.guess, ReferenceMatch(frame.nearest, frame.margin, frame.similarity)
    )
    return not (strict and leans)


def show(name: str, frames: list[Frame], floors: tuple[float, ...]) -> None:
    read = [f for f in frames if verdict(f) in ("networks", "set")]
    wrong = sum(f.guess != f.truth for f in read)
    print(
        f"{name}: {len(frames)} frames; the hub's rule reads {len(read) / len(frames):.3%} "
        f"({wrong} wrong)"
    )
    for floor in floors:
        for strict in (False, True):
            extra = [f for f in frames if witnessed(f, floor, strict)]
            right = sum(f.guess == f.truth for f in extra)
            exposed = [f for f in extra if f.guess != f.truth]
            veto = "any lean" if strict else "set_disagrees"
            print(
                f"  floor {floor}, veto {veto}: confirms {(len(read) + right) / len(frames):.3%} "
                f"of right calls; a miskey on the guess confirmed on {len(exposed)} frames "
                f"({len(exposed) / len(frames):.3%})"
            )
            for f in sorted(exposed, key=lambda f: -f.confidence)[:6]:
                print(
                    f"    {f.set}: {f.truth} as {f.guess} at {f.confidence:.4f}; references "
                    f"nearest {f.nearest} by {f.margin:.3f}"
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
