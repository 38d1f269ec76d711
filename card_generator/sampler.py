"""An exactly uniform sampler of valid Spanish 90-ball cards (see docs/card-sampling.md).

A card is an occupancy pattern (3 x 9, row sums 5, column sums 1-3) plus, in each column j,
a subset of column j's numbers of the column's size, placed ascending top to bottom. So the
number of cards completing columns j..8 with row quotas q is

    W(j, q) = sum over non-empty row sets p <= q of C(n_j, |p|) * W(j + 1, q - p)

with W(9, (0, 0, 0)) = 1. `sample_card` draws each column's row set with probability
C(n_j, |p|) * W(j + 1, q - p) / W(j, q) (exact integers, `randrange`), then the column's
numbers uniformly among the C(n_j, |p|) subsets. The product telescopes to 1 / TOTAL_CARDS.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from bisect import bisect_right
from collections import Counter
from itertools import accumulate, combinations, product
from math import comb
from typing import Protocol

from bingo_hall.domain.cards import COLUMNS, NUMBERS_PER_ROW, ROWS, Grid, column_range

SEED_DOMAIN = b"bingo-cards/v1"  # the reference sampler's seeded generator (tests, demo)
SEED_BYTES = 16

Quotas = tuple[int, ...]
"""Numbers still to place in each of the three rows."""
Pattern = tuple[int, ...]
"""The rows (0-based, ascending) that hold a number in one column."""
Profile = tuple[int, int, int]
"""(a, b, c): how many columns hold 3, 2 and 1 numbers."""

FULL_QUOTAS: Quotas = (NUMBERS_PER_ROW,) * ROWS
EMPTY_QUOTAS: Quotas = (0,) * ROWS
COLUMN_SIZES: tuple[int, ...] = tuple(len(column_range(j)) for j in range(COLUMNS))
PATTERNS: tuple[Pattern, ...] = tuple(
    pattern for size in range(1, ROWS + 1) for pattern in combinations(range(ROWS), size)
)


class RandomSource(Protocol):
    """What the sampler needs from a generator: an exactly uniform `randrange(stop)`."""

    def randrange(self, stop: int, /) -> int: ...


def _take(quotas: Quotas, pattern: Pattern) -> Quotas | None:
    """The quotas left after filling `pattern`, or None if a row has no room."""
    left = list(quotas)
    for row in pattern:
        left[row] -= 1
        if left[row] < 0:
            return None
    return tuple(left)


def _build_weights() -> tuple[dict[Quotas, int], ...]:
    """W(j, q) for j = 0..9, keeping only the quotas from which a card can be completed."""
    tables: list[dict[Quotas, int]] = [{} for _ in range(COLUMNS + 1)]
    tables[COLUMNS][EMPTY_QUOTAS] = 1
    for j in reversed(range(COLUMNS)):
        for quotas in product(range(NUMBERS_PER_ROW + 1), repeat=ROWS):
            total = sum(weight for _, _, weight in _options(j, quotas, tables[j + 1]))
            if total:
                tables[j][quotas] = total
    return tuple(tables)


def _options(
    j: int, quotas: Quotas, following: dict[Quotas, int]
) -> list[tuple[Pattern, Quotas, int]]:
    """Every pattern column j can take from `quotas`, with its next quotas and weight."""
    options = []
    for pattern in PATTERNS:
        left = _take(quotas, pattern)
        if left is not None and left in following:
            options.append((pattern, left, comb(COLUMN_SIZES[j], len(pattern)) * following[left]))
    return options


WEIGHTS = _build_weights()
TOTAL_CARDS: int = WEIGHTS[0][FULL_QUOTAS]

Step = tuple[int, tuple[int, ...], tuple[tuple[Pattern, Quotas], ...]]
"""(total weight, cumulative upper bounds, (pattern, next quotas) per option)."""


def _build_steps() -> tuple[dict[Quotas, Step], ...]:
    """For each column and reachable quotas, the cumulative table `sample_card` searches."""
    steps: list[dict[Quotas, Step]] = []
    for j in range(COLUMNS):
        table: dict[Quotas, Step] = {}
        for quotas, total in WEIGHTS[j].items():
            options = _options(j, quotas, WEIGHTS[j + 1])
            bounds = tuple(accumulate(weight for _, _, weight in options))
            assert bounds[-1] == total
            table[quotas] = (total, bounds, tuple((p, left) for p, left, _ in options))
        steps.append(table)
    return tuple(steps)


_STEPS = _build_steps()
_SUBSETS: tuple[tuple[tuple[tuple[int, ...], ...], ...], ...] = tuple(
    tuple(tuple(combinations(column_range(j), size)) for size in range(ROWS + 1))
    for j in range(COLUMNS)
)
"""_SUBSETS[j][k]: every k-subset of column j's numbers, each ascending, in lexicographic order."""


def sample_card(rng: RandomSource) -> Grid:
    """A card drawn with probability exactly 1 / TOTAL_CARDS, given a uniform `randrange`."""
    rows = [[0] * COLUMNS for _ in range(ROWS)]
    quotas = FULL_QUOTAS
    for j in range(COLUMNS):
        total, bounds, choices = _STEPS[j][quotas]
        pattern, quotas = choices[bisect_right(bounds, rng.randrange(total))]
        subsets = _SUBSETS[j][len(pattern)]
        numbers = subsets[rng.randrange(len(subsets))]
        for row, number in zip(pattern, numbers, strict=True):
            rows[row][j] = number
    return tuple(tuple(row) for row in rows)


def card_rng(seed: bytes) -> random.Random:
    """A deterministic `random.Random` for `sample_card` from a seed."""
    if not isinstance(seed, bytes | bytearray):
        raise ValueError(f"a card seed must be bytes, got {type(seed).__name__}")
    digest = hashlib.sha256(SEED_DOMAIN + bytes(seed)).digest()
    return random.Random(int.from_bytes(digest, "big"))


def new_seed() -> bytes:
    """A fresh secret seed of 16 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def count_by_profile() -> dict[Profile, int]:
    """The number of valid cards for each (a, b, c) profile, by a forward DP over columns."""
    states: Counter[tuple[Quotas, Profile]] = Counter({(FULL_QUOTAS, (0, 0, 0)): 1})
    for j in range(COLUMNS):
        following: Counter[tuple[Quotas, Profile]] = Counter()
        for (quotas, profile), ways in states.items():
            for pattern in PATTERNS:
                left = _take(quotas, pattern)
                if left is None:
                    continue
                counts = list(profile)
                counts[ROWS - len(pattern)] += 1
                key = (left, (counts[0], counts[1], counts[2]))
                following[key] += ways * comb(COLUMN_SIZES[j], len(pattern))
        states = following
    return {
        profile: ways
        for (quotas, profile), ways in sorted(states.items())
        if quotas == EMPTY_QUOTAS
    }
