"""Which rule may accept a reading on the ball set's own references, and what does it read?

Reads the frames `vision_set_references.py --records` wrote. A frame's number is accepted when
the networks' own threshold accepts it, or when the networks' best guess and the nearest
references name the same ball, by a margin of at least M over the next ball's, and the
networks give it at least C; never when the references name another ball by M
(`bingo_hall.vision.set_references`).

For each confidence floor C, the margin floor M is chosen on the `--choose` records with room
on both sides of every wrong agreement seen: `--factor` times the largest margin at which the
guess and the references agreed on a wrong number at a confidence of at least C with its odds
divided by `--odds-factor` (never below `--least`). A wrong agreement a little less sure or a
little nearer than any seen is then still refused. The floors that accept most of the chosen
records are applied, unchanged, to the `--check` records. Prints, for each C, the floor
chosen, the frames read and the wrong ones, on both; the same with a lower floor D for a ball
whose own references the networks doubted too (`guess_references`); and the frames on which
the two agree wrongly; and what every floor read as one staircase, each with its own margin
(as the hub reads, `set_references.STEPS`); what each veto floor holds and lets through;
and what the hub's own rule reads of each file, beside what another staircase (`--against`, a
baseline) would read of it. Not timed.

Usage: python bench/vision_set_rule.py --choose A.jsonl [B.jsonl] --check C.jsonl [...]
    [--factor 2] [--odds-factor 10] [--least 0.02] [--against 0.999:0.052,0.995:0.116,0:0.150]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vision_set_references import Play, by_the_hub

from bingo_hall.vision.set_references import (
    VETO_MARGIN,
    ReferenceMatch,
    Staircase,
    contradicts,
)

CONFIDENCE_FLOORS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999)
VETO_FLOORS = (0.0, 0.01, 0.02, 0.03, 0.046)


@dataclass(frozen=True)
class Rule:
    """The floors: the networks' confidence, the references' margin, and a lower confidence
    floor for a ball whose own references the networks doubted (None: no such floor)."""

    confidence: float
    margin: float = 0.0
    doubted: float | None = None

    def relaxed(self, odds_factor: float) -> Rule:
        """The confidence floors with their odds divided by `odds_factor`."""

        def lower(floor: float) -> float:
            return floor / (floor + (1 - floor) * odds_factor)

        return Rule(
            lower(self.confidence),
            self.margin,
            None if self.doubted is None else lower(self.doubted),
        )


@dataclass(frozen=True)
class Frame(Play):
    """A frame as `vision_set_references.py --records` wrote it: its set and its `Play`."""

    set: str = ""

    def agree(self, rule: Rule) -> bool:
        """The guess and the references name one ball, which the networks give at least the
        rule's floor (its lower one when they doubted that ball's references as well)."""
        floor = rule.confidence
        if rule.doubted is not None and min(self.guess_references, default=1.0) < floor:
            floor = rule.doubted
        return self.guess is not None and self.guess == self.nearest and self.confidence >= floor

    def contradicted(self, veto: float) -> bool:
        """The references name another ball than the guess, by more than `veto`."""
        if self.guess is None or self.nearest is None:
            return False
        return contradicts(self.guess, ReferenceMatch(self.nearest, self.margin, 0.0), veto)

    def read(self, rule: Rule, veto: float = VETO_MARGIN) -> bool:
        return self.read_on_steps((rule,), veto)

    def read_on_steps(self, steps: Sequence[Rule], veto: float = VETO_MARGIN) -> bool:
        """Read when the references do not name another ball by more than `veto`, and some
        step confirms the guess (or the networks' threshold does): the staircase of
        `set_references.STEPS`."""
        return not self.contradicted(veto) and (
            self.accepted or any(self.agree(step) and self.margin >= step.margin for step in steps)
        )


def load(paths: list[Path]) -> list[Frame]:
    return [frame for path in paths for frame in load_one(path)]


def load_one(path: Path) -> list[Frame]:
    return [Frame(**json.loads(line)) for line in path.open() if line.strip()]


def show_the_hubs_rule(paths: list[Path], against: Staircase = ()) -> None:
    """What the hub's rule (`set_references.judge`) reads of each file; with `against`, what
    it would read of it on that staircase in place of `set_references.STEPS` (a baseline)."""
    for path in paths:
        frames = load_one(path)
        read = [f for f in frames if by_the_hub(f)]
        wrong = [f"{f.truth} as {f.guess}" for f in read if f.guess != f.truth]
        baseline = ""
        if against:
            other = [f for f in frames if by_the_hub(f, against)]
            other_wrong = sum(f.guess != f.truth for f in other)
            baseline = (
                f"; on the steps {staircase_text(against)}: read "
                f"{len(other) / len(frames):.2%}, {other_wrong} wrong"
            )
        print(
            f"the hub's rule on {path.name}: {len(frames)} frames, networks alone "
            f"{sum(f.accepted for f in frames) / len(frames):.2%}, read "
            f"{len(read) / len(frames):.2%}, wrong {wrong}{baseline}"
        )


def parse_staircase(text: str) -> list[tuple[float, float]]:
    """'0.999:0.052,0.995:0.116,0:0.150' → (confidence floor, margin) for each step."""
    try:
        pairs = [part.split(":") for part in text.split(",")]
        return [(float(confidence), float(margin)) for confidence, margin in pairs]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: steps as CONFIDENCE:MARGIN, separated by commas"
        ) from None


def staircase_text(steps: Staircase) -> str:
    return ", ".join(f"{confidence}: {margin:.4f}" for confidence, margin in steps)


def with_margin(frames: list[Frame], rule: Rule, factor: float, odds: float, least: float) -> Rule:
    """The rule with its margin floor chosen on `frames`, room left on both sides."""
    relaxed = rule.relaxed(odds)
    wrong = [f.margin for f in frames if f.agree(relaxed) and f.guess != f.truth]
    return Rule(rule.confidence, max(least, factor * max(wrong, default=0.0)), rule.doubted)


def tally(frames: list[Frame], rule: Rule) -> tuple[int, int]:
    """Frames read, and of them wrong."""
    read = [f for f in frames if f.read(rule)]
    return len(read), sum(f.guess != f.truth for f in read)


def show(rule: Rule, chosen: list[Frame], checked: list[Frame]) -> int:
    """Prints what the rule reads of both; returns the chosen frames it reads."""
    read, wrong = tally(chosen, rule)
    check_read, check_wrong = tally(checked, rule)
    doubted = "" if rule.doubted is None else f" D {rule.doubted:<5}"
    print(
        f"C {rule.confidence:<5}{doubted} M {rule.margin:.3f}: choose read "
        f"{read / len(chosen):.3%} ({wrong} wrong); check read "
        f"{check_read / len(checked):.3%} ({check_wrong} wrong)"
    )
    return read


def show_vetoes(name: str, frames: list[Frame]) -> None:
    """What each veto floor costs (right readings the networks accepted, held) and lets
    through (wrong ones they accepted); and the narrowest margin by which the references named
    the ball shown against a wrong number the networks accepted."""
    accepted = [f for f in frames if f.accepted]
    wrong = [f for f in accepted if f.guess != f.truth]
    named_truth = [f.margin for f in wrong if f.nearest == f.truth]
    narrowest = f"{min(named_truth):.3f}" if named_truth else "none"
    print(
        f"{name}: the networks accepted {len(accepted)}, {len(wrong)} of them wrong; the "
        f"references named the ball shown against {len(named_truth)} of those, by at least "
        f"{narrowest}"
    )
    for veto in VETO_FLOORS:
        held = sum(f.contradicted(veto) for f in accepted if f.guess == f.truth)
        through = sum(not f.contradicted(veto) for f in wrong)
        print(
            f"  veto above {veto:.3f}: right readings held {held} "
            f"({held / max(len(accepted), 1):.3%} of those accepted), wrong let through {through}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--choose", type=Path, nargs="+", required=True)
    parser.add_argument("--check", type=Path, nargs="+", required=True)
    parser.add_argument("--factor", type=float, default=2.0)
    parser.add_argument("--odds-factor", type=float, default=10.0)
    parser.add_argument("--least", type=float, default=0.02)
    parser.add_argument(
        "--against",
        type=parse_staircase,
        default=[],
        help="another staircase to read each file on, as 0.999:0.052,0.995:0.116,0:0.150",
    )
    args = parser.parse_args()
    chosen, checked = load(args.choose), load(args.check)
    for name, frames in (("choose", chosen), ("check", checked)):
        own = sum(f.accepted for f in frames)
        own_wrong = sum(f.accepted and f.guess != f.truth for f in frames)
        print(
            f"{name}: {len(frames)} frames; the networks' threshold alone reads "
            f"{own / len(frames):.2%} ({own_wrong} wrong)"
        )
    show_the_hubs_rule([*args.choose, *args.check], args.against)
    for name, frames in (("choose", chosen), ("check", checked)):
        show_vetoes(name, frames)
    margins = (args.factor, args.odds_factor, args.least)
    best: tuple[int, Rule] | None = None
    for confidence in CONFIDENCE_FLOORS:
        rule = with_margin(chosen, Rule(confidence), *margins)
        read = show(rule, chosen, checked)
        if best is None or read > best[0]:
            best = (read, rule)
    assert best is not None
    rule = best[1]
    print(f"chosen: C {rule.confidence}, M {rule.margin:.3f}")
    steps = [with_margin(chosen, Rule(floor), *margins) for floor in CONFIDENCE_FLOORS]
    for name, frames in (("choose", chosen), ("check", checked)):
        read = [f for f in frames if f.read_on_steps(steps)]
        print(
            f"every floor a step ({staircase_text([(s.confidence, s.margin) for s in steps])}): "
            f"{name} read {len(read) / len(frames):.3%} ({sum(f.guess != f.truth for f in read)} "
            "wrong)"
        )
    print("with a lower floor D where the networks doubted the guessed ball's references:")
    for doubted in (floor for floor in CONFIDENCE_FLOORS if floor < rule.confidence):
        show(with_margin(chosen, Rule(rule.confidence, doubted=doubted), *margins), chosen, checked)
    for name, frames in (("choose", chosen), ("check", checked)):
        wrong = sorted(
            (f for f in frames if f.agree(Rule(0.0)) and f.guess != f.truth),
            key=lambda f: -f.margin,
        )
        print(f"{name}: guess and references agree on a wrong number ({len(wrong)}):")
        for f in wrong[:12]:
            print(
                f"  {f.set}: {f.truth} as {f.guess}, confidence {f.confidence:.4f}, "
                f"margin {f.margin:.3f}"
            )
        unread = [f for f in frames if not f.read(rule)]
        print(
            f"{name}: not read under the rule chosen: {len(unread)} "
            f"(of them the networks' guess wrong or none: "
            f"{sum(f.guess != f.truth for f in unread)})"
        )


if __name__ == "__main__":
    main()
