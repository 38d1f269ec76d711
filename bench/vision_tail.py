"""How far the wrong readings of the calibration reach: the tail the threshold answers for.

Renders the calibration bursts exactly as `make train` does (same seed, the typefaces the
networks are not fitted on, bursts of three frames: by default the CALIBRATION typefaces, of
families neither trained on nor held out; `--typefaces kept-out` the training faces the models
before 2026-11-27 were calibrated on, `check-families` the CHECK ones, of yet other families,
never calibrated on), damages them as the calibration does but from other seeds (by default the
eight after the calibration's own, so that the tail is one the thresholds were not set on;
`--skip 0` reads the calibration's; `--legible SHARE` leaves out damage that destroyed more
than that share of a part of a print, as the calibration with that option does), and reads them
with each model given, at that model's own settings and thresholds. For each model it prints
the wrong best guesses above its thresholds, above 0.999 and above 0.99, the readings correct
and accepted, and the most confident wrong readings, for each kind of evidence a reading rests
on (one label; two labels found in a frame; two labels agreeing). The first model given (by
default the packaged one) is the baseline the others are read against. With `--margins` it
also chooses thresholds on the bursts as rendered and damaged from the calibration's own seeds
with margins of 1 to 100 in the odds and counts the wrong readings above them on the bursts as
rendered and damaged from the tail's seeds, and the other way round:
how much margin the thresholds need. A diagnosis, not timed.

Usage: python bench/vision_tail.py [MODEL.npz ...] [--balls N] [--seeds K] [--skip K]
    [--typefaces kept-out|other-families|check-families] [--legible SHARE] [--margins]
    [--workers N]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bingo_hall.vision.calibrate import (  # noqa: E402
    Calibration,
    ReadingRow,
    accepted,
    legibly_damaged,
    of_kind,
    thresholds_by_evidence,
)
from bingo_hall.vision.model import (  # noqa: E402
    EVIDENCE_NAMES,
    MODEL_PATH,
    Evidence,
    LabelModel,
    load_model,
)
from bingo_hall.vision.train import (  # noqa: E402
    CALIBRATION_STYLES,
    DEFAULT_SEED,
    OTHER_FAMILIES,
    damage_seeds,
    render_calibration,
)


def summary(rows: list[ReadingRow], model: LabelModel) -> str:
    wrong = sorted((r for r in rows if r[2] is not None and r[2] != r[0]), key=lambda r: -r[1])
    above = sum(r[1] >= model.threshold_for(r[3]) for r in wrong)
    top = ", ".join(f"{r[1]:.6f}" for r in wrong[:5])
    return (
        f"{len(rows)} readings, {len(wrong)} wrong best guesses; wrong above the threshold "
        f"{above}, above 0.999 {sum(r[1] >= 0.999 for r in wrong)}, "
        f"above 0.99 {sum(r[1] >= 0.99 for r in wrong)}; correct and accepted "
        f"{accepted(rows, model)}; most confident wrong: {top}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", type=Path, default=[MODEL_PATH])
    parser.add_argument("--balls", type=int, default=3000, help="calibration balls")
    parser.add_argument("--seeds", type=int, default=8, help="damage seeds")
    parser.add_argument("--skip", type=int, default=8, help="damage seeds of the calibration")
    parser.add_argument("--typefaces", choices=tuple(CALIBRATION_STYLES), default=OTHER_FAMILIES)
    parser.add_argument(
        "--legible",
        type=float,
        default=1.0,
        help="leave out damaged bursts with a part of a print destroyed beyond this share",
    )
    parser.add_argument(
        "--margins",
        action="store_true",
        help="also choose thresholds on the calibration's own seeds with margins of 1 to 100 in "
        "the odds and count the wrong readings above them on the tail's seeds, and back",
    )
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    missing = [str(p) for p in args.models if not p.is_file()]
    if missing:
        parser.error(f"no such model file: {', '.join(missing)}")
    seeds = damage_seeds(DEFAULT_SEED, args.seeds, skip=args.skip)
    print(f"{args.balls} calibration balls in the {args.typefaces} typefaces; damage seeds {seeds}")
    for path in args.models:
        model = load_model(path)
        # framed as this model frames them (its window network, if it has one)
        bursts = render_calibration(
            args.balls, 3, DEFAULT_SEED, args.workers, model.window, args.typefaces
        )
        rows: list[ReadingRow] = []
        for seed in seeds:
            rows += Calibration(model, legibly_damaged(bursts, seed, args.legible)).readings(model)
        thresholds = ", ".join(
            f"{model.threshold_for(kind):.7f} {EVIDENCE_NAMES[kind]}" for kind in Evidence
        )
        print(f"{path} (thresholds {thresholds}; temperature {model.temperature:.4f})")
        print(f"  all: {summary(rows, model)}")
        for kind in Evidence:
            print(f"  {EVIDENCE_NAMES[kind]}: {summary(of_kind(rows, kind), model)}")
        if args.margins:  # both sides hold the bursts as rendered, as the calibration does
            rendered = Calibration(model, bursts).readings(model)
            own = list(rendered)
            for seed in damage_seeds(DEFAULT_SEED, args.seeds):
                hurt = legibly_damaged(bursts, seed, args.legible)
                own += Calibration(model, hurt).readings(model)
            for margin in MARGINS:
                print(f"  margin ×{margin:g}: {margin_check(own, rendered + rows, margin)}")
    return 0


MARGINS = (1.0, 3.0, 10.0, 30.0, 100.0)  # in the odds


def margin_check(chosen_on: list[ReadingRow], tried_on: list[ReadingRow], margin: float) -> str:
    """Thresholds chosen on one set of readings with this margin, tried on the other, and the
    other way round: the wrong readings above them, the right ones accepted."""
    parts = []
    for name, fit, test in (
        ("own → tail", chosen_on, tried_on),
        ("tail → own", tried_on, chosen_on),
    ):
        threshold = thresholds_by_evidence(fit, math.log(margin))
        wrong = sorted(
            (c for t, c, g, k in test if g is not None and g != t and c >= threshold[k]),
            reverse=True,
        )
        right = sum(1 for t, c, g, k in test if g == t and c >= threshold[k])
        top = ", ".join(f"{c:.6f}" for c in wrong[:3])
        parts.append(f"{name}: {len(wrong)} wrong above ({top}), {right} correct and accepted")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
