"""Ranks: a bijection between cards and 0..TOTAL_CARDS-1, and the fast series generator built
on it, checked against the exact distribution of card statistics."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from bingo_hall.domain.cards import card_violations
from card_generator.randomness import bit_generator, uniform_ranks
from card_generator.ranking import rank, rank_many, unrank, unrank_many
from card_generator.sampler import _STEPS, FULL_QUOTAS, TOTAL_CARDS, count_by_profile, sample_card
from card_generator.series import generate_series

ranks = st.integers(min_value=0, max_value=TOTAL_CARDS - 1)


@given(ranks)
def test_unrank_gives_a_valid_card_whose_rank_is_the_same(value):
    grid = unrank(value)
    assert card_violations(grid) == []
    assert rank(grid) == value


@given(st.integers(0, 2**32))
def test_rank_of_any_sampled_card_unranks_back_to_it(seed):
    grid = sample_card(random.Random(seed))
    assert unrank(rank(grid)) == grid


def test_the_ends_of_the_range_and_beyond():
    assert card_violations(unrank(0)) == [] and card_violations(unrank(TOTAL_CARDS - 1)) == []
    for bad in (-1, TOTAL_CARDS):
        with pytest.raises(ValueError, match="card rank"):
            unrank(bad)


def test_vectorised_unrank_and_rank_agree_with_the_reference():
    rng = random.Random(11)
    values = [rng.randrange(TOTAL_CARDS) for _ in range(3000)] + [0, TOTAL_CARDS - 1]
    array = np.array(values, dtype=np.uint64)
    grids = unrank_many(array)
    assert [tuple(map(tuple, g)) for g in grids.tolist()] == [unrank(v) for v in values]
    assert rank_many(grids).tolist() == values


def test_rank_many_refuses_an_invalid_card():
    grids = unrank_many(np.array([5], dtype=np.uint64))
    grids[0, :, 0] = (1, 2, 3)  # column 1 full and row sums broken
    grids[0, 0, 1:] = 0
    with pytest.raises(ValueError, match="valid Spanish-layout"):
        rank_many(grids)


def test_uniform_ranks_are_in_range_and_deterministic():
    one = uniform_ranks(bit_generator(b"s", b"d"), 10_000)
    two = uniform_ranks(bit_generator(b"s", b"d"), 10_000)
    assert (one == two).all() and int(one.max()) < TOTAL_CARDS
    assert (uniform_ranks(bit_generator(b"t", b"d"), 10_000) != one).any()


def test_top_bit_and_low_bit_of_ranks_are_balanced():
    """Ranks are uniform on [0, TOTAL): half fall in each half, odd and even alike."""
    values = uniform_ranks(bit_generator(b"balance", b"d"), 200_000)
    upper = int((values >= np.uint64(TOTAL_CARDS // 2)).sum())
    odd = int((values & np.uint64(1)).sum())
    for count in (upper, odd):
        assert chisquare([count, values.size - count]).pvalue > 0.001


THREES_BY_PROFILE = {profile[0]: n for profile, n in count_by_profile().items()}


def threes(grids: np.ndarray) -> np.ndarray:
    return ((grids > 0).sum(axis=1) == 3).sum(axis=1)


def p_value(observed: Counter, exact: dict[int, int], samples: int) -> float:
    keys = sorted(exact)
    total = sum(exact.values())
    expected = [samples * exact[k] / total for k in keys]
    return float(chisquare([observed[k] for k in keys], expected).pvalue)


@pytest.fixture(scope="module")
def big_series_grids() -> np.ndarray:
    series = generate_series("A1", 200_000, Decimal("1.00"), seed=b"chi-square, fixed")
    return np.concatenate([grids for _, grids in series.chunks()])


def test_series_cards_follow_the_exact_distribution_of_three_number_columns(big_series_grids):
    observed = Counter(threes(big_series_grids).tolist())
    assert p_value(observed, THREES_BY_PROFILE, len(big_series_grids)) > 0.001


def column_one_exact() -> dict[int, int]:
    """Cards counted by how many numbers their first column holds, from the rank tables:
    the options of column 1 cover consecutive rank intervals, one per row set."""
    exact: Counter[int] = Counter()
    _, bounds, choices = _STEPS[0][FULL_QUOTAS]
    lower = 0
    for upper, (pattern, _) in zip(bounds, choices, strict=True):
        exact[len(pattern)] += upper - lower
        lower = upper
    assert sum(exact.values()) == TOTAL_CARDS
    return dict(exact)


def column_one(grids: np.ndarray) -> Counter:
    return Counter((grids[:, :, 0] > 0).sum(axis=1).tolist())


def test_series_cards_follow_the_exact_distribution_of_column_one(big_series_grids):
    assert p_value(column_one(big_series_grids), column_one_exact(), len(big_series_grids)) > 0.001


def test_the_same_test_rejects_a_generator_biased_towards_low_ranks():
    """Power check: ranks folded into the lower 90 % of the range skew the statistic."""
    values = uniform_ranks(bit_generator(b"bias", b"d"), 200_000)
    biased = unrank_many(values % np.uint64(int(TOTAL_CARDS * 0.9)))
    assert p_value(column_one(biased), column_one_exact(), len(biased)) < 0.001
