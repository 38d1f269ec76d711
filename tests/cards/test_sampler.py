"""The sampler: valid cards, the exact count, and an exactly uniform distribution."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import combinations
from math import comb, prod

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from bingo_hall.domain.cards import COLUMNS, ROWS, Card, Grid, card_violations, column_range
from card_generator.sampler import (
    _STEPS,
    COLUMN_SIZES,
    FULL_QUOTAS,
    PATTERNS,
    TOTAL_CARDS,
    WEIGHTS,
    card_rng,
    count_by_profile,
    new_seed,
    sample_card,
)

SAMPLES = 50_000
PROFILES = {0: (0, 6, 3), 1: (1, 4, 4), 2: (2, 2, 5), 3: (3, 0, 6)}


@cache
def column_sum_vectors() -> dict[tuple[int, ...], int]:
    """Occupancy matrices counted by column sums, enumerated row by row (not by the DP).

    Each row is one of the C(9, 5) = 126 sets of five columns; all 126^3 triples are formed
    with numpy and those leaving a column empty or over-full are dropped.
    """
    rows = np.array(
        [[1 if c in chosen else 0 for c in range(COLUMNS)] for chosen in combinations(range(9), 5)],
        dtype=np.int8,
    )
    sums = rows[:, None, None, :] + rows[None, :, None, :] + rows[None, None, :, :]
    sums = sums.reshape(-1, COLUMNS)
    sums = sums[(sums >= 1).all(axis=1)]
    codes, counts = np.unique(sums.astype(np.int64) @ 4 ** np.arange(COLUMNS), return_counts=True)
    return {
        tuple(int(code) // 4**j % 4 for j in range(COLUMNS)): int(n)
        for code, n in zip(codes, counts, strict=True)
    }


def cards_with(sums: tuple[int, ...]) -> int:
    """Cards per occupancy matrix with these column sums: a subset of each column's range."""
    return prod(comb(len(column_range(j)), s) for j, s in enumerate(sums))


def exact_distribution(statistic) -> dict[int, int]:
    """Cards counted by a statistic of the column sums, from the enumeration."""
    counts: Counter[int] = Counter()
    for sums, matrices in column_sum_vectors().items():
        counts[statistic(sums)] += matrices * cards_with(sums)
    return dict(counts)


def threes(sums) -> int:
    return sum(1 for s in sums if s == 3)


def first_column(sums) -> int:
    return sums[0]


def column_sums(grid: Grid) -> tuple[int, ...]:
    return tuple(sum(1 for row in grid if row[j]) for j in range(COLUMNS))


@pytest.fixture(scope="module")
def uniform_sample() -> list[tuple[int, ...]]:
    rng = card_rng(b"chi-square test, fixed seed")
    return [column_sums(sample_card(rng)) for _ in range(SAMPLES)]


def biased_card(rng: random.Random) -> Grid:
    """A plausible but biased generator: a uniform occupancy pattern, then uniform numbers.

    It ignores that a pattern with more numbers in a column admits more cards, so it gives
    every occupancy matrix the same chance instead of weighting it by its number of cards.
    """
    while True:
        rows = [set(rng.sample(range(COLUMNS), 5)) for _ in range(ROWS)]
        if all(any(j in row for row in rows) for j in range(COLUMNS)):
            break
    grid = [[0] * COLUMNS for _ in range(ROWS)]
    for j in range(COLUMNS):
        filled = [r for r in range(ROWS) if j in rows[r]]
        numbers = sorted(rng.sample(column_range(j), len(filled)))
        for r, n in zip(filled, numbers, strict=True):
            grid[r][j] = n
    return tuple(tuple(row) for row in grid)


def chi_square_p(observed: list[int], expected: dict[int, int]) -> float:
    total = sum(expected.values())
    keys = sorted(expected)
    counts = Counter(observed)
    f_obs = [counts[k] for k in keys]
    f_exp = [len(observed) * expected[k] / total for k in keys]
    assert min(f_exp) > 5, "every category needs an expected count above 5"
    return float(chisquare(f_obs, f_exp).pvalue)


# --- validity -------------------------------------------------------------------------------


@settings(max_examples=200)
@given(st.binary(max_size=32))
def test_every_sampled_card_is_valid(seed: bytes) -> None:
    rng = card_rng(seed)
    for _ in range(5):
        grid = sample_card(rng)
        assert card_violations(grid) == []
        assert Card.from_grid(grid).grid == grid


def test_many_cards_from_one_stream_are_valid() -> None:
    rng = card_rng(b"validity")
    for _ in range(5_000):
        assert card_violations(sample_card(rng)) == []


# --- the count --------------------------------------------------------------------------------


def test_total_cards_matches_an_independent_enumeration() -> None:
    recount = sum(m * cards_with(sums) for sums, m in column_sum_vectors().items())
    assert recount == TOTAL_CARDS == 3_669_688_706_217_187_500


def test_profile_counts_match_the_enumeration_and_the_corollary() -> None:
    by_threes = exact_distribution(threes)
    assert count_by_profile() == {PROFILES[a]: n for a, n in by_threes.items()}
    assert set(count_by_profile()) == {(0, 6, 3), (1, 4, 4), (2, 2, 5), (3, 0, 6)}
    assert sum(count_by_profile().values()) == TOTAL_CARDS


def test_first_column_distribution_matches_the_dp() -> None:
    from_dp: Counter[int] = Counter()
    for pattern in PATTERNS:
        left = tuple(q - (r in pattern) for r, q in enumerate(FULL_QUOTAS))
        from_dp[len(pattern)] += comb(COLUMN_SIZES[0], len(pattern)) * WEIGHTS[1].get(left, 0)
    assert dict(from_dp) == exact_distribution(first_column)


def test_each_step_gives_every_pattern_an_interval_of_its_exact_weight() -> None:
    for j, table in enumerate(_STEPS):
        for quotas, (total, bounds, choices) in table.items():
            assert total == WEIGHTS[j][quotas] == bounds[-1]
            widths = [b - a for a, b in zip((0, *bounds), bounds, strict=False)]
            for (pattern, left), width in zip(choices, widths, strict=True):
                assert width == comb(COLUMN_SIZES[j], len(pattern)) * WEIGHTS[j + 1][left] > 0
            fitting = [p for p in PATTERNS if all(quotas[r] > 0 for r in p)]
            skipped = set(fitting) - {p for p, _ in choices}
            for pattern in skipped:  # only patterns that cannot be completed are left out
                left = tuple(q - (r in pattern) for r, q in enumerate(quotas))
                assert WEIGHTS[j + 1].get(left, 0) == 0


class ScriptedRng:
    """Answers the first `randrange` with a given value, every later one with 0."""

    def __init__(self, first: int) -> None:
        self.values = [first]

    def randrange(self, stop: int) -> int:
        value = self.values.pop() if self.values else 0
        assert 0 <= value < stop
        return value


def test_interval_boundaries_pick_the_right_pattern() -> None:
    _, bounds, choices = _STEPS[0][FULL_QUOTAS]
    for i, bound in enumerate(bounds):
        last = sample_card(ScriptedRng(bound - 1))
        assert column_sums(last)[0] == len(choices[i][0])
        assert tuple(r for r in range(ROWS) if last[r][0]) == choices[i][0]
        if i + 1 < len(bounds):
            first = sample_card(ScriptedRng(bound))
            assert tuple(r for r in range(ROWS) if first[r][0]) == choices[i + 1][0]


# --- the distribution ---------------------------------------------------------------------------


def test_columns_with_three_numbers_follow_the_exact_distribution(uniform_sample) -> None:
    observed = [threes(sums) for sums in uniform_sample]
    assert chi_square_p(observed, exact_distribution(threes)) > 0.001


def test_first_column_count_follows_the_exact_distribution(uniform_sample) -> None:
    observed = [first_column(sums) for sums in uniform_sample]
    assert chi_square_p(observed, exact_distribution(first_column)) > 0.001


def test_a_biased_sampler_fails_the_same_test() -> None:
    rng = random.Random(2024)
    cards = [biased_card(rng) for _ in range(SAMPLES)]
    assert all(card_violations(card) == [] for card in cards[:1000])
    sums = [column_sums(card) for card in cards]
    assert chi_square_p([threes(s) for s in sums], exact_distribution(threes)) < 1e-9
    observed_first = [first_column(s) for s in sums]
    assert chi_square_p(observed_first, exact_distribution(first_column)) < 1e-9


# --- seeds ----------------------------------------------------------------------------------------


def test_card_rng_is_deterministic_per_seed() -> None:
    one, two, other = card_rng(b"seed"), card_rng(b"seed"), card_rng(b"seed!")
    first = [sample_card(one) for _ in range(20)]
    assert first == [sample_card(two) for _ in range(20)]
    assert first != [sample_card(other) for _ in range(20)]


def test_known_answer_for_algorithm_version_1() -> None:
    """If this changes, the reference sampler's output changed."""
    assert sample_card(card_rng(b"known answer")) == KNOWN_CARD


def test_new_seed_is_sixteen_fresh_bytes() -> None:
    seeds = {new_seed() for _ in range(10)}
    assert len(seeds) == 10 and all(len(s) == 16 for s in seeds)


def test_card_rng_rejects_a_text_seed() -> None:
    with pytest.raises(ValueError, match="must be bytes"):
        card_rng("seed")  # type: ignore[arg-type]


KNOWN_CARD: Grid = (
    (2, 0, 0, 34, 40, 57, 66, 0, 0),
    (0, 19, 28, 0, 45, 0, 0, 72, 87),
    (6, 0, 29, 35, 0, 0, 69, 78, 0),
)
