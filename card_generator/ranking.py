"""Cards as numbers: a bijection between the valid cards and the integers 0..TOTAL_CARDS-1.

The rank of a card reads the sampler's DP (docs/card-sampling.md) as a mixed-radix number:
in column j with row quotas q, the options (row set p, quotas left q') are laid end to end,
option k covering [lower_k, lower_k + C(n_j,|p|) * W(j+1, q')); inside it, the column's subset
index s and the rank r' of the remaining columns give  lower_k + s * W(j+1, q') + r'.

So an exactly uniform card is the card of an exactly uniform rank, and two cards are equal
exactly when their ranks are: uniqueness in a series is a check on 64-bit integers.
`unrank_many` does the decoding for a whole numpy array of ranks at once (the fast path);
`unrank` and `rank` are the plain reference versions the tests compare it with.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from bingo_hall.domain.cards import COLUMNS, ROWS, Grid
from card_generator.sampler import _STEPS, _SUBSETS, FULL_QUOTAS, PATTERNS, TOTAL_CARDS, WEIGHTS

MAX_OPTIONS = len(PATTERNS)  # 7 non-empty row sets
_NO_BOUND = np.iinfo(np.uint64).max


def unrank(value: int) -> Grid:
    """The card of rank `value` (0 <= value < TOTAL_CARDS)."""
    if not 0 <= value < TOTAL_CARDS:
        raise ValueError(f"a card rank is 0 to {TOTAL_CARDS - 1}, not {value}")
    rows = [[0] * COLUMNS for _ in range(ROWS)]
    quotas = FULL_QUOTAS
    for j in range(COLUMNS):
        _, bounds, choices = _STEPS[j][quotas]
        k = bisect_right(bounds, value)
        pattern, left = choices[k]
        value -= bounds[k - 1] if k else 0
        subset, value = divmod(value, WEIGHTS[j + 1][left])
        for row, number in zip(pattern, _SUBSETS[j][len(pattern)][subset], strict=True):
            rows[row][j] = number
        quotas = left
    return tuple(tuple(row) for row in rows)


def rank(grid: Sequence[Sequence[int]]) -> int:
    """The rank of a valid Spanish-layout card (the inverse of `unrank`)."""
    value, quotas = 0, FULL_QUOTAS
    for j in range(COLUMNS):
        pattern = tuple(r for r in range(ROWS) if grid[r][j])
        numbers = tuple(grid[r][j] for r in pattern)
        _, bounds, choices = _STEPS[j][quotas]
        k = next(i for i, (p, _) in enumerate(choices) if p == pattern)
        left = choices[k][1]
        lower = bounds[k - 1] if k else 0
        subset = _SUBSETS[j][len(pattern)].index(numbers)
        value += lower + subset * WEIGHTS[j + 1][left]
        quotas = left
    return value


class _ColumnTables:
    """Flat numpy tables of one column, indexed by state * MAX_OPTIONS + option."""

    def __init__(self, j: int, state_ids: dict, next_ids: dict) -> None:
        size = len(state_ids) * MAX_OPTIONS
        self.lower = np.full(size, _NO_BOUND, dtype=np.uint64)
        self.tail = np.ones(size, dtype=np.uint64)  # W(j+1, q') of each option
        self.next_state = np.zeros(size, dtype=np.int64)
        self.cell_base = np.zeros(size, dtype=np.int64)  # row of `cells` for subset 0
        cells: list[tuple[int, int, int]] = []
        pattern_base: dict = {}
        for pattern in PATTERNS:  # every (row set, subset) of the column, once
            pattern_base[pattern] = len(cells)
            for numbers in _SUBSETS[j][len(pattern)]:
                column = [0] * ROWS
                for row, number in zip(pattern, numbers, strict=True):
                    column[row] = number
                cells.append((column[0], column[1], column[2]))
        self.cells = np.array(cells, dtype=np.uint8)
        self.options = max(len(_STEPS[j][quotas][2]) for quotas in state_ids)  # most of a state
        for quotas, state in state_ids.items():
            _, bounds, choices = _STEPS[j][quotas]
            lower = 0
            for k, (upper, (pattern, left)) in enumerate(zip(bounds, choices, strict=True)):
                index = state * MAX_OPTIONS + k
                self.lower[index] = lower
                self.tail[index] = WEIGHTS[j + 1][left]
                self.next_state[index] = next_ids[left]
                self.cell_base[index] = pattern_base[pattern]
                lower = upper


def _build_tables() -> tuple[tuple[_ColumnTables, ...], int]:
    ids = [{quotas: i for i, quotas in enumerate(sorted(WEIGHTS[j]))} for j in range(COLUMNS + 1)]
    tables = tuple(_ColumnTables(j, ids[j], ids[j + 1]) for j in range(COLUMNS))
    return tables, ids[0][FULL_QUOTAS]


_TABLES, _START = _build_tables()


def unrank_many(ranks: np.ndarray) -> np.ndarray:
    """The cards of an array of ranks (uint64, each < TOTAL_CARDS): shape (n, 3, 9), uint8."""
    values = np.asarray(ranks, dtype=np.uint64).copy()
    count = values.shape[0]
    grids = np.empty((count, ROWS, COLUMNS), dtype=np.uint8)
    state = np.full(count, _START, dtype=np.int64)
    option = np.empty(count, dtype=np.int64)
    for j, table in enumerate(_TABLES):  # `take` gathers faster than fancy indexing
        base = state * MAX_OPTIONS
        option[:] = 0
        for k in range(1, table.options):
            option += values >= table.lower.take(base + k)
        index = base + option
        values -= table.lower.take(index)
        tail = table.tail.take(index)
        subset = values // tail
        values -= subset * tail
        cells = table.cell_base.take(index) + subset.astype(np.int64)
        grids[:, :, j] = table.cells.take(cells, axis=0)
        state = table.next_state.take(index)
    return grids


def _subset_key(numbers: np.ndarray, offset: int) -> np.ndarray:
    """A key for a column's ascending numbers (n, 3; 0 = none), unique per subset."""
    relative = np.where(numbers > 0, numbers.astype(np.int64) - offset + 1, 0)
    return relative[:, 0] * 144 + relative[:, 1] * 12 + relative[:, 2]


class _RankTables:
    """For `rank_many`: option index by (state, row set) and subset index by key, per column."""

    def __init__(self, j: int, state_ids: dict) -> None:
        self.option = np.full(len(state_ids) * 8, -1, dtype=np.int64)
        for quotas, state in state_ids.items():
            for k, (pattern, _) in enumerate(_STEPS[j][quotas][2]):
                mask = sum(1 << row for row in pattern)
                self.option[state * 8 + mask] = k
        offset = min(n for subset in _SUBSETS[j][1] for n in subset)
        self.offset = offset
        self.subset = np.full(12 * 144 + 12 * 12 + 12, -1, dtype=np.int64)
        for size in range(1, ROWS + 1):
            for index, numbers in enumerate(_SUBSETS[j][size]):
                padded = np.array([[*numbers, *(0,) * (ROWS - size)]])
                self.subset[_subset_key(padded, offset)[0]] = index


def _build_rank_tables() -> tuple[_RankTables, ...]:
    ids = [{quotas: i for i, quotas in enumerate(sorted(WEIGHTS[j]))} for j in range(COLUMNS)]
    return tuple(_RankTables(j, ids[j]) for j in range(COLUMNS))


_RANK_TABLES = _build_rank_tables()


def rank_many(grids: np.ndarray) -> np.ndarray:
    """The ranks (uint64) of an array of valid Spanish-layout cards, shape (n, 3, 9)."""
    grids = np.asarray(grids)
    count = grids.shape[0]
    values = np.zeros(count, dtype=np.uint64)
    state = np.full(count, _START, dtype=np.int64)
    for j, (table, ranks) in enumerate(zip(_TABLES, _RANK_TABLES, strict=True)):
        column = grids[:, :, j]
        occupied = column > 0
        mask = occupied[:, 0] * 1 + occupied[:, 1] * 2 + occupied[:, 2] * 4
        option = ranks.option[state * 8 + mask]
        numbers = np.sort(np.where(occupied, column, 255), axis=1)  # ascending, blanks last
        numbers = np.where(numbers == 255, 0, numbers)
        subset = ranks.subset[_subset_key(numbers, ranks.offset)]
        if (option < 0).any() or (subset < 0).any():
            raise ValueError("rank_many needs valid Spanish-layout cards")
        index = state * MAX_OPTIONS + option
        values += table.lower[index] + subset.astype(np.uint64) * table.tail[index]
        state = table.next_state[index]
    return values
