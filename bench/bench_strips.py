"""Benchmark of the exactly uniform strip sampler (card_generator/strips.py).

Prints the median over repeated runs of cards/s (6 cards per strip; generation only: the
(count, 6, 3, 9) uint8 array) and compares it with two baselines measured in the same process
(these machines are noisy; ratios travel better than absolute numbers):

- heuristic: a simple, NON-uniform strip generator in the same vectorised numpy style: a
  fixed valid count matrix with its cards and columns 2-8 shuffled, a random occupancy among
  those with each card's column sums, and each column's numbers dealt by a random permutation
  (numpy Generator; no exactness). It is written plainly (argsort permutations, int64
  temporaries), not tuned like the exact sampler, so it comes out slower: the ratio says the
  exact sampler costs nothing against a straightforward vectorised heuristic, not what
  exactness itself costs (profiling: drawing the count matrix is about a third of the time).
- single card: the exact single-card sampler (card_generator/sampler.py, pure Python), for
  scale; it draws independent cards, not strips.

Usage: python bench/bench_strips.py [--strips N] [--runs R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from card_generator import strips as S
from card_generator.sampler import sample_card

TEMPLATE = np.array(  # a valid count matrix: rows sum to 15, columns to 9, 10 x 7, 11
    [
        [1, 2, 2, 2, 2, 2, 2, 1, 1],
        [1, 1, 2, 2, 2, 2, 2, 2, 1],
        [2, 1, 1, 2, 2, 2, 2, 2, 1],
        [2, 2, 1, 1, 2, 2, 1, 2, 2],
        [2, 2, 2, 1, 1, 1, 2, 1, 3],
        [1, 2, 2, 2, 1, 1, 1, 2, 3],
    ]
)


def heuristic_strips(rng: np.random.Generator, count: int) -> np.ndarray:
    """A fast biased generator (see the module docstring), (count, 6, 3, 9) uint8, in
    batches of S.CHUNK strips like the exact sampler."""
    out = np.empty((count, S.CARDS, 3, 9), dtype=np.uint8)
    for start in range(0, count, S.CHUNK):
        stop = min(start + S.CHUNK, count)
        out[start:stop] = _heuristic_batch(rng, stop - start)
    return out


def _heuristic_batch(rng: np.random.Generator, count: int) -> np.ndarray:
    occupancy = S._occupancy()
    card_order = np.argsort(rng.random((count, S.CARDS)), axis=1)
    column_order = np.concatenate(
        [
            np.zeros((count, 1), np.int64),
            1 + np.argsort(rng.random((count, 7)), axis=1),
            np.full((count, 1), 8),
        ],
        axis=1,
    )
    counts = np.take_along_axis(TEMPLATE[card_order], column_order[:, None, :], axis=2)
    codes = (counts - 1) @ 3 ** np.arange(9)
    size = occupancy.count[codes].astype(np.int64)
    pick = occupancy.start[codes] + (rng.random(codes.shape) * size).astype(np.int64)
    patterns = occupancy.patterns[pick]  # (count, 6, 9): bit r = row r filled
    filled = (patterns[:, :, None, :] >> np.arange(3)[None, None, :, None]) & 1
    offset = np.cumsum(counts, axis=1) - counts
    values = np.full((count, S.CARDS, 3, 9), 255, dtype=np.int64)
    for j in range(9):
        n, first = S.COLUMN_SIZES[j], S.COLUMN_FIRST[j]
        order = np.argsort(rng.random((count, n)), axis=1)
        for k in range(3):
            taken = np.take_along_axis(order, np.minimum(offset[:, :, j] + k, n - 1), axis=1)
            values[:, :, k, j] = np.where(k < counts[:, :, j], first + taken, 255)
    values.sort(axis=2)
    rank = np.clip(np.cumsum(filled, axis=2) - 1, 0, 2)
    return np.where(filled, np.take_along_axis(values, rank, axis=2), 0).astype(np.uint8)


def median_rate(make, cards: int, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return cards / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strips", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    start = time.perf_counter()
    S._tables(), S._deal_tables()
    print(f"tables built in {time.perf_counter() - start:.2f} s (once per process)")
    bits = S.strip_bitgen(b"benchmark")
    S.sample_strips(bits, 1_000)  # warm-up

    cards = 6 * args.strips
    exact = median_rate(lambda: S.sample_strips(bits, args.strips), cards, args.runs)
    rng = np.random.default_rng(1)
    heuristic_strips(rng, 1_000)
    heuristic = median_rate(lambda: heuristic_strips(rng, args.strips), cards, args.runs)
    card_rng = random.Random(1)
    single_cards = 20_000
    single = median_rate(
        lambda: [sample_card(card_rng) for _ in range(single_cards)], single_cards, args.runs
    )

    print(f"exact uniform strips:  {exact:>12,.0f} cards/s  ({exact / 6:,.0f} strips/s)")
    print(
        f"heuristic strips:      {heuristic:>12,.0f} cards/s  (ratio exact / heuristic "
        f"{exact / heuristic:.2f})"
    )
    print(
        f"single-card sampler:   {single:>12,.0f} cards/s  (ratio exact / single "
        f"{exact / single:.1f})"
    )
    print(f"median of {args.runs} runs of {args.strips:,} strips ({cards:,} cards)")


if __name__ == "__main__":
    main()
