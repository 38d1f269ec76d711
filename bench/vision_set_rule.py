"""Which rule may accept a reading on the ball set's own references, and what does it read?

Reads the frames `vision_set_references.py --records` wrote. A frame's number is accepted when
the networks' own threshold accepts it, or when the networks' best guess and the nearest
references name the same ball, by a margin of at least M over the next ball's, and the
networks give it at least C (`bingo_hall.vision.set_references`). For each confidence floor
C, the margin floor M is chosen on the `--choose` records: `--factor` times the largest
margin at which, with that floor, the guess and the references agreed on a wrong number
(never below `--least`). The floors that accept most of the chosen records are then applied,
unchanged, to the `--check` records. Prints, for each C, the floor chosen, the frames read and
the wrong ones, on both; and the frames on which the two agree wrongly. Not timed.

Usage: python bench/vision_set_rule.py --choose A.jsonl [B.jsonl] --check C.jsonl [...]
    [--factor 2] [--least 0.02]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from vision_set_references import Play

CONFIDENCE_FLOORS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999)


@dataclass(frozen=True)
class Frame(Play):
    """A frame as `vision_set_references.py --records` wrote it: its set and its `Play`."""

    set: str

    def agree(self, confidence_floor: float) -> bool:
        return (
            self.guess is not None
            and self.guess == self.nearest
            and self.confidence >= confidence_floor
        )

    def read(self, confidence_floor: float, margin_floor: float) -> bool:
        return self.accepted or (self.agree(confidence_floor) and self.margin >= margin_floor)


def load(paths: list[Path]) -> list[Frame]:
    return [Frame(**json.loads(line)) for path in paths for line in path.open() if line.strip()]


def margin_floor(
    frames: list[Frame], confidence_floor: float, factor: float, least: float
) -> float:
    wrong = [f.margin for f in frames if f.agree(confidence_floor) and f.guess != f.truth]
    return max(least, factor * max(wrong, default=0.0))


def tally(frames: list[Frame], confidence_floor: float, floor: float) -> tuple[int, int]:
    """Frames read, and of them wrong."""
    read = [f for f in frames if f.read(confidence_floor, floor)]
    return len(read), sum(f.guess != f.truth for f in read)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choose", type=Path, nargs="+", required=True)
    parser.add_argument("--check", type=Path, nargs="+", required=True)
    parser.add_argument("--factor", type=float, default=2.0)
    parser.add_argument("--least", type=float, default=0.02)
    args = parser.parse_args()
    chosen, checked = load(args.choose), load(args.check)
    for name, frames in (("choose", chosen), ("check", checked)):
        own = sum(f.accepted for f in frames)
        own_wrong = sum(f.accepted and f.guess != f.truth for f in frames)
        print(
            f"{name}: {len(frames)} frames; the networks' threshold alone reads "
            f"{own / len(frames):.2%} ({own_wrong} wrong)"
        )
    best = None
    for confidence_floor in CONFIDENCE_FLOORS:
        floor = margin_floor(chosen, confidence_floor, args.factor, args.least)
        read, wrong = tally(chosen, confidence_floor, floor)
        check_read, check_wrong = tally(checked, confidence_floor, floor)
        print(
            f"C {confidence_floor:<5} M {floor:.3f}: choose read {read / len(chosen):.3%} "
            f"({wrong} wrong); check read {check_read / len(checked):.3%} ({check_wrong} wrong)"
        )
        if best is None or read > best[0]:
            best = (read, confidence_floor, floor)
    assert best is not None
    _, confidence_floor, floor = best
    print(f"chosen: C {confidence_floor}, M {floor:.3f}")
    for name, frames in (("choose", chosen), ("check", checked)):
        wrong = sorted(
            (f for f in frames if f.agree(0.0) and f.guess != f.truth), key=lambda f: -f.margin
        )
        print(f"{name}: guess and references agree on a wrong number ({len(wrong)}):")
        for f in wrong[:12]:
            print(
                f"  {f.set}: {f.truth} as {f.guess}, confidence {f.confidence:.4f}, "
                f"margin {f.margin:.3f}"
            )
        unread = [f for f in frames if not f.read(confidence_floor, floor)]
        print(
            f"{name}: not read under the rule chosen: {len(unread)} "
            f"(of them the networks' guess wrong or none: "
            f"{sum(f.guess != f.truth for f in unread)})"
        )


if __name__ == "__main__":
    main()
