"""How far the wrong readings of the calibration reach: the tail the threshold answers for.

Renders the calibration bursts exactly as `make train` does (same seed, the typefaces the
networks are not fitted on, bursts of three frames), damages them as the calibration does
from several seeds (the packaged damage seed first), and reads them with each model given,
at that model's own settings and threshold. For each model it prints the wrong best guesses
above its threshold, above 0.999 and above 0.99, the readings correct and accepted, and the
most confident wrong readings: a threshold set on one damage seed rests on one reading, and
this shows what the other seeds say. The first model given (by default the packaged one) is
the baseline the others are read against. A diagnosis, not timed.

Usage: python bench/vision_tail.py [MODEL.npz ...] [--balls N] [--seeds K] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bingo_hall.vision.calibrate import Calibration, ReadingRow, accepted, damaged  # noqa: E402
from bingo_hall.vision.model import MODEL_PATH, load_model  # noqa: E402
from bingo_hall.vision.train import (  # noqa: E402
    CALIBRATION_DAMAGE_SEED,
    DEFAULT_SEED,
    render_calibration,
)


def damage_seeds(count: int) -> list[int]:
    """The packaged calibration's damage seed, then others 100 apart."""
    first = DEFAULT_SEED + CALIBRATION_DAMAGE_SEED
    return [first + 100 * k for k in range(count)]


def summary(rows: list[ReadingRow], threshold: float) -> str:
    wrong = sorted((c for t, c, g in rows if g is not None and g != t), reverse=True)
    top = ", ".join(f"{c:.6f}" for c in wrong[:5])
    return (
        f"{len(rows)} readings, {len(wrong)} wrong best guesses; wrong above the threshold "
        f"{sum(c >= threshold for c in wrong)}, above 0.999 {sum(c >= 0.999 for c in wrong)}, "
        f"above 0.99 {sum(c >= 0.99 for c in wrong)}; correct and accepted "
        f"{accepted(rows, threshold)}; most confident wrong: {top}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", type=Path, default=[MODEL_PATH])
    parser.add_argument("--balls", type=int, default=3000, help="calibration balls")
    parser.add_argument("--seeds", type=int, default=8, help="damage seeds")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    missing = [str(p) for p in args.models if not p.is_file()]
    if missing:
        parser.error(f"no such model file: {', '.join(missing)}")
    bursts = render_calibration(args.balls, 3, DEFAULT_SEED, args.workers)
    seeds = damage_seeds(args.seeds)
    print(f"{len(bursts)} calibration balls; damage seeds {seeds}")
    for path in args.models:
        model = load_model(path)
        rows: list[ReadingRow] = []
        for seed in seeds:
            rows += Calibration(model, damaged(bursts, seed)).readings(model)
        print(f"{path} (threshold {model.threshold:.6f}, temperature {model.temperature:.4f})")
        print(f"  {summary(rows, model.threshold)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
