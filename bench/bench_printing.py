"""Benchmark of the card-printing batch job: card records to an A4 PDF.

Prints the median cards/s over repeated runs of a whole series, and compares it with baselines
measured in the same process (these machines are noisy; ratios travel better than numbers):

- printing: `print_cards` as shipped (QR codes, uncompressed page streams);
- without QR: the same layout without the QR codes, so the ratio is the QR codes' cost;
- compressed: the same as printing with reportlab's page compression on, the other choice.

The records are made once before timing (generating a series is not measured); every run
writes a real file to a temporary folder.

Usage: python bench/bench_printing.py [--cards N] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from card_generator import printing  # noqa: E402
from card_generator.series import card_records, generate_series  # noqa: E402


def rate(job: Callable[[Path], int], folder: Path, runs: int) -> tuple[float, int]:
    """Median cards/s of `runs` runs of `job`, and the size of the file it wrote."""
    rates = []
    out = folder / "cards.pdf"
    for _ in range(runs):
        start = time.perf_counter()
        count = job(out)
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates), out.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=3000, help="cards in the series (3000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure; median (3)")
    args = parser.parse_args()

    series = generate_series("A17", args.cards, Decimal("1.50"), seed=b"bench-printing")
    records = list(card_records(series))
    jobs: dict[str, Callable[[Path], int]] = {
        "printing": lambda out: printing.print_cards(records, out),
        "without QR": lambda out: printing._print(records, out, draw_qr=False),
        "compressed": lambda out: printing._print(records, out, compress=True),
    }
    print(f"{args.cards} cards, {printing.CARDS_PER_PAGE} a page, median of {args.runs} runs")
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, job in jobs.items():
            results[name] = rate(job, Path(folder), args.runs)
    main_rate = results["printing"][0]
    for name, (cards_per_second, size) in results.items():
        print(
            f"  {name:<11} {cards_per_second:8.0f} cards/s  "
            f"{size / args.cards / 1000:5.1f} kB/card  "
            f"ratio to printing {cards_per_second / main_rate:5.2f}"
        )
    print(f"QR codes cost: printing runs at {main_rate / results['without QR'][0]:.2f}x the speed")
    print(f"of the same layout without them; target >= 500 cards/s: {main_rate:.0f}")


if __name__ == "__main__":
    main()
