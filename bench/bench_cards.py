"""Benchmark of single-card generation: valid, distinct, exactly uniform cards per second.

Measures `generate_series` end to end except writing: drawing distinct uniform ranks from the
seed (the uniqueness check included) and decoding every rank into its 3 x 9 grid. Baseline in
the same process: the reference sampler (`sample_card`, one card at a time in Python).
Prints medians of repeated runs and the ratio. Also reports the peak memory of streaming a
large series to JSONL (`--stream N`), measured in a child process.

Usage: python bench/bench_cards.py [--cards N] [--runs R] [--stream N]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from card_generator.sampler import sample_card
from card_generator.series import generate_series


def generate_rate(cards: int) -> float:
    start = time.perf_counter()
    series = generate_series("A1", cards, Decimal("1.00"), seed=b"bench")
    produced = sum(grids.shape[0] for _, grids in series.chunks())
    elapsed = time.perf_counter() - start
    assert produced == cards
    return cards / elapsed


def reference_rate(cards: int) -> float:
    rng = random.Random(1)
    start = time.perf_counter()
    seen = {sample_card(rng) for _ in range(cards)}
    elapsed = time.perf_counter() - start
    assert len(seen) == cards
    return cards / elapsed


def stream_peak(cards: int) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of `bingo-cards generate` writing `cards` cards to JSONL."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "big.jsonl"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "card_generator.cli",
                "generate",
                "--series",
                "Z9",
                "--count",
                str(cards),
                "--face-value",
                "1.00",
                "--seed",
                "01" * 16,
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        elapsed = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference-cards", type=int, default=50_000)
    parser.add_argument("--stream", type=int, default=0, help="also stream N cards to JSONL")
    args = parser.parse_args()
    generate_rate(10_000)  # warm the tables
    fast = statistics.median(generate_rate(args.cards) for _ in range(args.runs))
    slow = statistics.median(reference_rate(args.reference_cards) for _ in range(3))
    print(f"single cards, {args.cards:,} per run, {args.runs} runs (one core)")
    print(f"  generate_series (ranks + uniqueness + grids) median {fast:>12,.0f} cards/s")
    print(f"  reference sampler sample_card (baseline)     median {slow:>12,.0f} cards/s")
    print(f"  ratio: {fast / slow:.1f}x")
    if args.stream:
        seconds, peak = stream_peak(args.stream)
        print(f"stream {args.stream:,} cards to JSONL: {seconds:.0f} s, peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
