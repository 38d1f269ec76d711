"""Strips of six cards: validity, the exact count, exact uniformity, determinism.

The reference numbers here are computed independently of `card_generator.strips`:

- occupancy matrices are enumerated row by row (126^3 triples of five-column rows);
- strips are counted by a dynamic program over the *columns* (state: the multiset of the six
  cards' (extras used, 3-number columns) so far), where the module's DP runs over the *cards*;
- distributions of card 1 come from the same column DP and exchangeability: permuting the
  cards of a strip gives a strip, so P(card 1 has property X) = E[#cards with X] / 6.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import comb, factorial, prod

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, chisquare

from bingo_hall.domain.cards import COLUMNS, ROWS, card_violations, column_range
from card_generator import strips as S
from card_generator.strips import (
    STRIP_ALGORITHM_VERSION,
    TOTAL_STRIPS,
    column_three_distribution,
    first_card_distribution,
    sample_strips,
    strip_bitgen,
)

SAMPLES = 200_000
HEURISTIC_SAMPLES = 20_000
SIZES = tuple(len(column_range(j)) for j in range(COLUMNS))  # 9, 10 x 7, 11
CARDS = 6


# --- independent references -----------------------------------------------------------------


@cache
def occupancy_by_sums() -> dict[tuple[int, ...], np.ndarray]:
    """Every occupancy matrix (3 x 9 of 0/1, rows of five, no empty column), by column sums."""
    rows = np.array(
        [[1 if c in chosen else 0 for c in range(COLUMNS)] for chosen in combinations(range(9), 5)],
        dtype=np.int8,
    )
    triples = np.stack(
        np.broadcast_arrays(rows[:, None, None], rows[None, :, None], rows[None, None, :]),
        axis=-2,
    ).reshape(-1, ROWS, COLUMNS)
    triples = triples[(triples.sum(axis=1) >= 1).all(axis=1)]
    sums = triples.sum(axis=1)
    codes = sums.astype(np.int64) @ 4 ** np.arange(COLUMNS)
    order = np.argsort(codes, kind="stable")
    triples, codes, sums = triples[order], codes[order], sums[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ends = np.r_[starts[1:], codes.size]
    return {tuple(sums[a].tolist()): triples[a:b] for a, b in zip(starts, ends, strict=True)}


@cache
def matrices_by_threes() -> dict[int, int]:
    """M(a): occupancy matrices per column-sum vector, which depends only on the 3-columns."""
    found: dict[int, set[int]] = defaultdict(set)
    for sums, matrices in occupancy_by_sums().items():
        found[sums.count(3)].add(len(matrices))
    assert all(len(v) == 1 for v in found.values())
    return {a: v.pop() for a, v in sorted(found.items())}


@cache
def column_dp() -> dict[tuple[int, ...], int]:
    """Strips counted column by column, the multiset of per-card states as the state.

    Per card the state is 4 * extras + threes. Columns go in the order 1..8, 0 so that column
    0's counts are dealt last; returns, per final multiset of card states and per multiset of
    column-0 counts, the number of strips (without the M factors, added by the callers).
    """
    states: dict[tuple[int, ...], int] = {(0,) * CARDS: 1}
    order = (*range(1, COLUMNS), 0)
    finished: dict[tuple[int, ...], int] = defaultdict(int)
    for step, j in enumerate(order):
        n, after = SIZES[j], COLUMNS - 1 - step
        deals = [
            (c, factorial(n) // prod(factorial(x) for x in c))
            for c in product((1, 2, 3), repeat=CARDS)
            if sum(c) == n
        ]
        following: dict[tuple[int, ...], int] = defaultdict(int)
        for state, ways in states.items():
            for counts, deal_ways in deals:
                new = []
                for s, c in zip(state, counts, strict=True):
                    extras = s // 4 + c - 1
                    if extras > 6 or extras + 2 * after < 6:
                        break
                    new.append(4 * extras + s % 4 + (c == 3))
                else:
                    if after:
                        following[tuple(sorted(new))] += ways * deal_ways
                    else:  # remember column 0's counts per card (as a sorted pair list)
                        pairs = tuple(sorted(zip(new, counts, strict=True)))
                        finished[pairs] += ways * deal_ways
        states = following
    return dict(finished)


@cache
def reference_count_and_card_one() -> tuple[int, dict[int, Fraction], dict[int, Fraction]]:
    """(number of strips, exact law of card 1's 3-columns, exact law of its column-0 count)."""
    m = matrices_by_threes()
    total = 0
    threes: Counter[int] = Counter()
    first: Counter[int] = Counter()
    for pairs, ways in column_dp().items():
        weight = ways * prod(m[s % 4] for s, _ in pairs)
        total += weight
        for s, c in pairs:  # exchangeability: each card is card 1 in 1/6 of the orderings
            threes[s % 4] += weight
            first[c] += weight
    return (
        total,
        {a: Fraction(w, CARDS * total) for a, w in sorted(threes.items())},
        {c: Fraction(w, CARDS * total) for c, w in sorted(first.items())},
    )


def smallest_in_column_zero_law() -> dict[int, Fraction]:
    """Law of card 1's smallest number (column 0 holds 1-9; its k numbers are a uniform
    k-subset): P(min = v) = sum_k P(k) C(9 - v, k - 1) / C(9, k)."""
    _, _, first = reference_count_and_card_one()
    return {
        v: sum(p * Fraction(comb(9 - v, k - 1), comb(9, k)) for k, p in first.items())
        for v in range(1, 10)
    }


# --- statistics of sampled strips -----------------------------------------------------------


def counts_of(strips: np.ndarray) -> np.ndarray:
    """(strips, 6, 9): numbers of each card in each column."""
    return (strips != 0).sum(axis=2)


def chi_square_p(observed: np.ndarray, law: dict[int, Fraction]) -> float:
    """Pearson chi-square p-value of integer observations against an exact law."""
    keys = sorted(law)
    counts = Counter(observed.tolist())
    assert set(counts) <= set(keys), "an observation outside the law's support"
    f_obs = np.array([counts[k] for k in keys], dtype=float)
    f_exp = np.array([float(law[k]) * observed.size for k in keys])
    keep = f_exp > 5  # pool the rare categories so that every expected count exceeds 5
    f_obs = np.r_[f_obs[keep], f_obs[~keep].sum()] if (~keep).any() else f_obs
    f_exp = np.r_[f_exp[keep], f_exp[~keep].sum()] if (~keep).any() else f_exp
    assert f_exp.min() > 5
    return float(chisquare(f_obs, f_exp).pvalue)


def conditional_chi_square_p(observed: np.ndarray, probabilities: np.ndarray) -> float:
    """Chi-square of categorical observations whose law varies per sample (probabilities:
    (samples, categories)); expected counts are the sums. Conservative: a sum of unequal
    categoricals has less variance than a multinomial."""
    categories = probabilities.shape[1]
    f_obs = np.bincount(observed, minlength=categories).astype(float)
    f_exp = probabilities.sum(axis=0)
    if (f_obs[f_exp == 0] > 0).any():
        return 0.0  # an impossible observation
    keep = f_exp > 5
    return float(chisquare(f_obs[keep], f_exp[keep] * f_obs[keep].sum() / f_exp[keep].sum()).pvalue)


@cache
def top_row_law() -> dict[tuple[int, ...], np.ndarray]:
    """Per column-sum vector: law of 'filled cells of the top row in columns 0-3' (0..4)
    when the occupancy matrix is uniform among those with these column sums."""
    law = {}
    for sums, matrices in occupancy_by_sums().items():
        law[sums] = np.bincount(matrices[:, 0, :4].sum(axis=1), minlength=5) / len(matrices)
    return law


def top_row_test(strips: np.ndarray) -> float:
    counts = counts_of(strips)[:, 0]
    laws = top_row_law()
    probabilities = np.array([laws[tuple(c)] for c in counts.tolist()])
    observed = (strips[:, 0, 0, :4] != 0).sum(axis=1)
    return conditional_chi_square_p(observed, probabilities)


def holder_of_one_test(strips: np.ndarray) -> float:
    """Which card holds number 1: given the column-0 counts c_i, card i with chance c_i / 9."""
    holder = np.argmax((strips[:, :, :, 0] == 1).any(axis=2), axis=1)
    probabilities = counts_of(strips)[:, :, 0] / SIZES[0]
    return conditional_chi_square_p(holder, probabilities)


def smallest_in_column_zero(strips: np.ndarray, card: int) -> np.ndarray:
    column = strips[:, card, :, 0].astype(int)
    return np.where(column == 0, 99, column).min(axis=1)


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    return sample_strips(strip_bitgen(b"chi-square test, fixed seed"), SAMPLES)


# --- biased generators (the tests must reject them) ------------------------------------------


class UniformMatrixStrips:
    """A plausible heuristic: the count matrix C uniform among all valid ones (ignoring that
    each C admits a different number of strips), then uniform occupancy and deal."""

    def __init__(self) -> None:
        self.rows = np.array(
            [r for r in product(range(3), repeat=COLUMNS) if sum(r) == 6], dtype=np.int64
        )
        self.options: dict[tuple[int, tuple[int, ...]], tuple[np.ndarray, np.ndarray]] = {}

    def completions(self, card: int, remaining: tuple[int, ...]) -> int:
        """Valid ways to fill cards card..5 (columns 1-7 sorted: they are interchangeable)."""
        if card == CARDS - 1:
            return int(max(remaining) <= 2)
        key = (card, remaining)
        if key not in self.options:
            fits = self.rows[(self.rows <= np.array(remaining)).all(axis=1)]
            ways = []
            for row in fits:
                left = np.array(remaining) - row
                left[1:8].sort()
                ways.append(self.completions(card + 1, tuple(left.tolist())))
            self.options[key] = (fits, np.cumsum(ways))
        return int(self.options[key][1][-1]) if len(self.options[key][1]) else 0

    def matrix(self, rng: random.Random) -> np.ndarray:
        remaining = np.array(S.EXTRAS)
        d = np.zeros((CARDS, COLUMNS), dtype=np.int64)
        for card in range(CARDS - 1):
            order = np.argsort(remaining[1:8], kind="stable")
            canonical = remaining.copy()
            canonical[1:8] = remaining[1:8][order]
            key = tuple(canonical.tolist())
            total = self.completions(card, key)
            fits, cumulative = self.options[(card, key)]
            row = fits[np.searchsorted(cumulative, rng.randrange(total), side="right")]
            actual = row.copy()
            actual[1 + order] = row[1:8]
            d[card] = actual
            remaining = remaining - actual
        d[CARDS - 1] = remaining
        return d + 1


def place(values: np.ndarray, occupancy: np.ndarray) -> np.ndarray:
    """Grids (strips, 6, 3, 9) from each card-column's numbers, ascending along axis 2 (extra
    slots last), written top to bottom into the filled cells of `occupancy` (same shape)."""
    rank = np.clip(np.cumsum(occupancy, axis=2) - 1, 0, 2)
    return np.where(occupancy, np.take_along_axis(values, rank, axis=2), 0).astype(np.uint8)


@cache
def occupancy_table() -> tuple[dict[int, tuple[int, int]], np.ndarray]:
    """All occupancy matrices in one array, with (start, count) per column-sum code."""
    by_sums = occupancy_by_sums()
    spans, start = {}, 0
    for sums, matrices in by_sums.items():
        spans[sum(s * 4**j for j, s in enumerate(sums))] = (start, len(matrices))
        start += len(matrices)
    return spans, np.concatenate(list(by_sums.values())).astype(bool)


def sum_codes(counts: np.ndarray) -> np.ndarray:
    return counts.astype(np.int64) @ 4 ** np.arange(COLUMNS)


def strips_from_counts(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform occupancy for each card and a uniform deal of each column, for counts C."""
    spans, matrices = occupancy_table()
    codes = sum_codes(counts)
    start = np.vectorize(lambda c: spans[c][0])(codes)
    size = np.vectorize(lambda c: spans[c][1])(codes)
    occupancy = matrices[start + (rng.random(codes.shape) * size).astype(np.int64)]
    offset = np.cumsum(counts, axis=1) - counts
    values = np.full((len(counts), CARDS, ROWS, COLUMNS), 255, dtype=np.int64)
    for j in range(COLUMNS):
        first, n = column_range(j).start, SIZES[j]
        order = np.argsort(rng.random((len(counts), n)), axis=1)  # a random permutation
        for k in range(ROWS):
            taken = np.take_along_axis(order, np.minimum(offset[:, :, j] + k, n - 1), axis=1)
            values[:, :, k, j] = np.where(k < counts[:, :, j], first + taken, 255)
    return place(np.sort(values, axis=2), occupancy)


def first_matrix_occupancy(strips: np.ndarray) -> np.ndarray:
    """Biased occupancy: every card uses the first enumerated matrix for its column sums."""
    spans, matrices = occupancy_table()
    start = np.vectorize(lambda c: spans[c][0])(sum_codes(counts_of(strips)))
    values = np.sort(np.where(strips == 0, 255, strips.astype(np.int64)), axis=2)
    return place(values, matrices[start])


def ordered_deal(strips: np.ndarray) -> np.ndarray:
    """Biased deal: card 1 takes each column's lowest numbers, card 2 the next, and so on."""
    filled = strips != 0
    counts = counts_of(strips)
    offset = (np.cumsum(counts, axis=1) - counts)[:, :, None, :]
    first = np.array([column_range(j).start for j in range(COLUMNS)])
    values = first + offset + np.cumsum(filled, axis=2) - 1
    return np.where(filled, values, 0).astype(np.uint8)


# --- validity -------------------------------------------------------------------------------


def assert_valid_strips(strips: np.ndarray) -> None:
    assert strips.dtype == np.uint8 and strips.shape[1:] == (CARDS, ROWS, COLUMNS)
    flat = np.sort(strips.reshape(len(strips), -1), axis=1)[:, -90:]
    assert (flat == np.arange(1, 91, dtype=np.uint8)).all(), "every number 1-90 exactly once"
    assert ((strips != 0).sum(axis=2) >= 1).all(), "no card has an empty column"


@settings(max_examples=60)
@given(st.binary(min_size=1, max_size=32), st.integers(min_value=1, max_value=40))
def test_every_card_of_sampled_strips_is_valid(seed: bytes, count: int) -> None:
    strips = sample_strips(strip_bitgen(seed), count)
    assert strips.shape == (count, CARDS, ROWS, COLUMNS)
    assert_valid_strips(strips)
    for strip in strips:
        for card in strip:
            assert card_violations(card.tolist()) == []


def test_many_strips_are_valid(sample: np.ndarray) -> None:
    assert_valid_strips(sample)
    counts = counts_of(sample)
    assert ((counts >= 1) & (counts <= 3)).all()
    assert ((sample != 0).sum(axis=3) == 5).all()
    for strip in sample[:3_000]:
        for card in strip:
            assert card_violations(card.tolist()) == []


def test_zero_strips_and_bad_counts() -> None:
    assert sample_strips(strip_bitgen(b"x"), 0).shape == (0, CARDS, ROWS, COLUMNS)
    assert sample_strips(strip_bitgen(b"x"), np.int64(3)).shape == (3, CARDS, ROWS, COLUMNS)
    for bad in (-1, 2.0, True):
        with pytest.raises(ValueError, match="count"):
            sample_strips(strip_bitgen(b"x"), bad)  # type: ignore[arg-type]


# --- the count ----------------------------------------------------------------------------------


def test_occupancy_counts_depend_only_on_the_three_columns() -> None:
    assert matrices_by_threes() == {0: 1710, 1: 639, 2: 240, 3: 90}
    assert matrices_by_threes() == S._occupancy().by_threes
    assert sum(len(m) for m in occupancy_by_sums().values()) == 735_210


def test_total_strips_matches_an_independent_column_by_column_count() -> None:
    total, _, _ = reference_count_and_card_one()
    assert total == TOTAL_STRIPS
    assert TOTAL_STRIPS == (
        467711541132248468278363019351514108076722415153589853880320000000000000000000
    )


def test_card_one_laws_match_the_independent_count() -> None:
    _, threes, first = reference_count_and_card_one()
    assert column_three_distribution() == threes
    assert first_card_distribution(lambda row: row[0] + 1) == first
    assert sum(threes.values()) == 1 == sum(first.values())


def test_every_alias_table_gives_each_option_its_exact_weight() -> None:
    tables = S._tables()
    for sid in range(len(tables.key)):
        _, weights = S._state_weights(sid)
        thresholds, aliases, total = S._alias(weights)
        size = len(weights)
        assert total == sum(weights) and size == int(tables.opt_count[sid])
        mass = [0] * size  # in units of 1 / (size * total)
        for cell, (t, a) in enumerate(zip(thresholds, aliases, strict=True)):
            assert 0 <= t <= total
            mass[cell] += t
            mass[a] += total - t
        assert mass == [size * w for w in weights]
        start = int(tables.opt_start[sid])
        cuts = tables.cell_cut[start : start + size].tolist()
        assert cuts == [(t << 32) // total for t in thresholds]
        assert (tables.cell_alias[start : start + size] - start).tolist() == aliases


# --- exact randomness plumbing ----------------------------------------------------------------


class ScriptedBits:
    """A stand-in bit generator: scripted raw words first, then a real Philox stream."""

    def __init__(self, words: list[int]) -> None:
        self.words = list(words)
        self.rest = np.random.Philox(key=7)
        self.read = 0

    def random_raw(self, size: int | None = None):
        n = 1 if size is None else size
        head, self.words = self.words[:n], self.words[n:]
        out = np.array(head, dtype=np.uint64)
        if len(head) < n:
            out = np.concatenate([out, self.rest.random_raw(n - len(head))])
        self.read += n
        return int(out[0]) if size is None else out


def test_lemire_reduction_rejects_exactly_the_biased_values() -> None:
    """x * s mod 2^32 < 2^32 mod s is rejected (x = 0 always is, when 2^32 mod s > 0), and the
    replacement comes from the low half of the next raw word."""
    bounds = [1, 3, 1710, 226_800, 1_247_400, 2**31 + 1]
    lows, expected, script = [], [], []
    accepted = 12_345
    for s in bounds:
        limit = 2**32 % s
        assert (accepted * s) % 2**32 >= limit
        if limit:  # a rejected first value: the answer comes from the next scripted word
            lows.append(0)
            script.append(2**63 + accepted)  # its high bits must be ignored
        else:
            lows.append(accepted)
        expected.append(accepted * s >> 32)
    bits = ScriptedBits(script)
    out = S._below_32(bits, np.array(lows, np.uint64), np.array(bounds, np.uint64))
    assert out.tolist() == expected
    assert bits.read == len(script)


def test_an_exact_tie_of_the_alias_threshold_is_resolved_with_more_bits() -> None:
    tables = S._tables()
    size = int(tables.opt_count[0])
    options, weights = S._state_weights(0)
    thresholds, aliases, total = S._alias(weights)
    cell = next(i for i in range(size) if 0 < thresholds[i] < total)
    low = ((cell + 1) * 2**32 - 1) // size  # Lemire maps it to `cell`, without rejection
    assert low * size >> 32 == cell
    high = int(tables.cell_cut[cell])  # the first 32 bits of U equal the cut: a tie
    outcomes = set()
    for following in (0, 2**64 - 1):  # U just above high / 2^32, U just below (high + 1) / 2^32
        u = Fraction(high * 2**64 + following, 2**96)
        if (u + Fraction(1, 2**96)) * total <= thresholds[cell]:
            expected = cell
        else:
            assert u * total >= thresholds[cell]  # decided by these 96 bits
            expected = aliases[cell]
        outcomes.add(expected)
        strip = sample_strips(ScriptedBits([high << 32 | low, following]), 1)[0]
        d_row = (strip[0] != 0).sum(axis=0) - 1
        assert d_row.tolist() == options[expected].tolist()
    assert outcomes == {cell, aliases[cell]}


def test_strip_bitgen_follows_the_documented_key_derivation() -> None:
    seed = b"\x00seed bytes"
    key = int.from_bytes(hashlib.sha256(b"bingo-strips/v1" + seed).digest()[:16], "little")
    reference = np.random.Philox(key=key).random_raw(8)
    assert (strip_bitgen(seed).random_raw(8) == reference).all()
    for bad in ("text", b"", None):
        with pytest.raises(ValueError, match="non-empty bytes"):
            strip_bitgen(bad)  # type: ignore[arg-type]


# --- determinism --------------------------------------------------------------------------------


def test_same_seed_same_strips_different_seed_different() -> None:
    one = sample_strips(strip_bitgen(b"seed"), 500)
    assert np.array_equal(one, sample_strips(strip_bitgen(b"seed"), 500))
    assert not np.array_equal(one, sample_strips(strip_bitgen(b"seed!"), 500))


def test_batches_continue_the_stream() -> None:
    both = sample_strips(strip_bitgen(b"batches"), 2 * S.CHUNK)
    bits = strip_bitgen(b"batches")
    parts = [sample_strips(bits, S.CHUNK), sample_strips(bits, S.CHUNK)]
    assert np.array_equal(both, np.concatenate(parts))


def test_known_answer_for_strip_algorithm_version_1() -> None:
    """If this changes, the output for a seed changed: bump STRIP_ALGORITHM_VERSION."""
    assert STRIP_ALGORITHM_VERSION == "1"
    strips = sample_strips(strip_bitgen(b"known answer"), 100)
    assert strips[0, 0].tolist() == KNOWN_FIRST_CARD
    assert hashlib.sha256(strips.tobytes()).hexdigest() == KNOWN_DIGEST


KNOWN_FIRST_CARD = [
    [2, 14, 0, 30, 47, 0, 65, 0, 0],
    [7, 0, 26, 0, 48, 50, 0, 0, 86],
    [8, 0, 29, 37, 0, 52, 0, 71, 0],
]
KNOWN_DIGEST = "73f711b9e7fd98a0c054fb0ddb5c38913a95b4217a8b69045e56ae00e3a8b928"


# --- the distribution ---------------------------------------------------------------------------


def test_threes_of_card_one_follow_the_exact_law(sample: np.ndarray) -> None:
    observed = (counts_of(sample)[:, 0] == 3).sum(axis=1)
    assert chi_square_p(observed, reference_count_and_card_one()[1]) > 0.001


def test_column_zero_count_of_card_one_follows_the_exact_law(sample: np.ndarray) -> None:
    observed = counts_of(sample)[:, 0, 0]
    assert chi_square_p(observed, reference_count_and_card_one()[2]) > 0.001


def test_smallest_number_of_card_one_follows_the_exact_law(sample: np.ndarray) -> None:
    observed = smallest_in_column_zero(sample, 0)
    assert chi_square_p(observed, smallest_in_column_zero_law()) > 0.001


def test_occupancy_is_uniform_given_the_counts(sample: np.ndarray) -> None:
    assert top_row_test(sample) > 0.001


def test_deal_is_uniform_given_the_counts(sample: np.ndarray) -> None:
    assert holder_of_one_test(sample) > 0.001


def test_whole_column_counts_of_cards_one_and_six_follow_the_exact_law(sample: np.ndarray) -> None:
    """The 1554 possible count rows of a card (every column, not only column 0), against the
    module's exact law (whose marginals the tests above recount independently)."""
    law = first_card_distribution(lambda row: sum(v * 3**j for j, v in enumerate(row)))
    assert len(law) == 1554
    for card in (0, 5):
        observed = (counts_of(sample)[:, card] - 1) @ 3 ** np.arange(COLUMNS)
        assert chi_square_p(observed, law) > 0.001


def test_card_six_follows_the_same_law_as_card_one(sample: np.ndarray) -> None:
    """Exchangeability: card 6 (what is left after five draws) has card 1's exact law."""
    _, threes, first = reference_count_and_card_one()
    counts = counts_of(sample)
    assert chi_square_p((counts[:, 5] == 3).sum(axis=1), threes) > 0.001
    assert chi_square_p(counts[:, 5, 0], first) > 0.001
    assert chi_square_p(smallest_in_column_zero(sample, 5), smallest_in_column_zero_law()) > 0.001
    for statistic in ((counts == 3).sum(axis=2), counts[:, :, 0]):
        table = np.array([np.bincount(statistic[:, card], minlength=4) for card in (0, 5)])
        table = table[:, table.sum(axis=0) > 0]
        assert chi2_contingency(table).pvalue > 0.001


# --- power: biased generators fail the same tests ---------------------------------------------


def test_uniform_count_matrices_fail_the_test() -> None:
    rng = random.Random(2024)
    heuristic = UniformMatrixStrips()
    counts = np.array([heuristic.matrix(rng) for _ in range(HEURISTIC_SAMPLES)])
    strips = strips_from_counts(counts, np.random.default_rng(2024))
    assert_valid_strips(strips)
    for strip in strips[:200]:
        for card in strip:
            assert card_violations(card.tolist()) == []
    _, threes, first = reference_count_and_card_one()
    counts = counts_of(strips)
    assert chi_square_p((counts[:, 0] == 3).sum(axis=1), threes) < 1e-9
    assert chi_square_p(counts[:, 0, 0], first) < 1e-9
    # its occupancy and deal are uniform given C, and those tests pass
    assert top_row_test(strips) > 0.001 and holder_of_one_test(strips) > 0.001


def test_a_biased_occupancy_fails_the_conditional_test(sample: np.ndarray) -> None:
    biased = first_matrix_occupancy(sample[:HEURISTIC_SAMPLES])
    assert_valid_strips(biased)
    assert all(card_violations(card.tolist()) == [] for card in biased[:200].reshape(-1, 3, 9))
    assert top_row_test(biased) < 1e-9


def test_a_biased_deal_fails_the_conditional_test(sample: np.ndarray) -> None:
    biased = ordered_deal(sample[:HEURISTIC_SAMPLES])
    assert_valid_strips(biased)
    assert all(card_violations(card.tolist()) == [] for card in biased[:200].reshape(-1, 3, 9))
    assert holder_of_one_test(biased) < 1e-9
    assert chi_square_p(smallest_in_column_zero(biased, 0), smallest_in_column_zero_law()) < 1e-9
