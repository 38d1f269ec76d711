"""Strips of six cards holding 1-90 once each, drawn exactly uniformly (docs/strip-sampling.md).

The model. Let d[i][j] = (numbers of card i in column j) - 1, in {0, 1, 2}; every card row of d
sums to 6 and column j of d sums to n_j - 6 (n = 9, 10 x 7, 11). Given d,

- column j's n_j numbers are dealt to the six cards in n_j! / prod_i c[i][j]! ways
  (c = d + 1; each card's share goes ascending into its filled cells of that column), and
- card i's occupancy (3 x 9 of 0/1, row sums 5, column sums c[i]) can be any of M(a_i) matrices,
  where a_i is the number of its 3-number columns: M = 1710, 639, 240, 90 for a = 0..3.

So #strips(d) = prod_j n_j! * prod_i f(d[i]) / 6^54 with f(row) = M(a) * prod_j 6 / c_j!
(an integer), and a uniform strip is: d with probability proportional to prod_i f(d[i]), then
each card's occupancy uniformly among its M(a_i), then each column dealt uniformly.

d is drawn card by card: with R the column sums still to fill (canonical form: columns 1-7
sorted, which changes nothing because f is symmetric and columns 1-7 have the same size),
Z_k(R) = sum over rows r <= R of f(r) * Z_{k+1}(R - r), Z_5(R) = f(R). Card k takes row r with
probability f(r) * Z_{k+1}(R - r) / Z_k(R); the product telescopes to prod_i f(d[i]) / Z_0.
Each of these choices uses an exact integer alias table (uniform cell, then a threshold
compared with 32 random bits; on an exact tie more bits are drawn and compared with the exact
big-integer threshold). Everything else is uniform integers by rejection. No floats anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import comb, factorial, prod

import numpy as np

from bingo_hall.domain.cards import COLUMNS, NUMBERS_PER_ROW, ROWS, column_range

STRIP_ALGORITHM_VERSION = "1"
SEED_DOMAIN = b"bingo-strips/v1"
CARDS = 6
COLUMN_SIZES: tuple[int, ...] = tuple(len(column_range(j)) for j in range(COLUMNS))
COLUMN_FIRST: tuple[int, ...] = tuple(column_range(j).start for j in range(COLUMNS))
EXTRAS: tuple[int, ...] = tuple(n - CARDS for n in COLUMN_SIZES)
"""Column sums of d: numbers beyond the one every card has in every column (3, 4 x 7, 5)."""
EXTRAS_PER_CARD = ROWS * NUMBERS_PER_ROW - COLUMNS  # 6
CHUNK = 16_384
"""Strips drawn per vectorised batch (part of the algorithm: it fixes the order of draws)."""

_MID = slice(1, COLUMNS - 1)  # columns 1-7: interchangeable (ten numbers each)
_MID_COUNT = COLUMNS - 2
_FACTORIAL_SCALE = (6, 3, 1)  # 6 / c! for c = 1, 2, 3 (indexed by d = c - 1)
_M32 = np.uint64(0xFFFF_FFFF)
_U32 = np.uint64(32)


# --- occupancy matrices --------------------------------------------------------------------


@dataclass(frozen=True)
class _Occupancy:
    patterns: np.ndarray  # (735210, 9) uint8: per column, bit r set when row r is filled
    start: np.ndarray  # (3^9,) int64: first matrix of each column-sum code
    count: np.ndarray  # (3^9,) uint64: matrices per code (M(a) for valid codes, else 0)
    by_threes: dict[int, int]  # M(a)


@cache
def _occupancy() -> _Occupancy:
    """Every 3 x 9 occupancy matrix (rows of five, no empty column), grouped by column sums.

    Order (part of the algorithm): by code = sum_j (colsum_j - 1) * 3^j, then by the column
    patterns lexicographically.
    """
    rows = np.array(
        [[1 if c in chosen else 0 for c in range(COLUMNS)] for chosen in combinations(range(9), 5)],
        dtype=np.uint8,
    )
    patterns = rows[:, None, None, :] | rows[None, :, None, :] << 1 | rows[None, None, :, :] << 2
    patterns = patterns.reshape(-1, COLUMNS)
    patterns = patterns[(patterns != 0).all(axis=1)]
    sums = np.array([0, 1, 1, 2, 1, 2, 2, 3], dtype=np.int64)[patterns]
    codes = (sums - 1) @ (3 ** np.arange(COLUMNS))
    lexicographic = patterns.astype(np.int64) @ (8 ** np.arange(COLUMNS - 1, -1, -1))
    order = np.argsort(codes * 8**COLUMNS + lexicographic, kind="stable")
    patterns, codes, sums = patterns[order], codes[order], sums[order]
    count = np.bincount(codes, minlength=3**COLUMNS)
    start = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    pairs = np.unique((sums == 3).sum(axis=1) * 2**32 + count[codes])
    by_threes = {int(p >> 32): int(p & 0xFFFF_FFFF) for p in pairs}
    assert len(by_threes) == len(pairs)  # M depends only on the number of 3-number columns
    return _Occupancy(np.ascontiguousarray(patterns), start, count.astype(np.uint64), by_threes)


# --- the distribution of d: card-by-card DP over canonical remaining column sums -------------


def _card_rows() -> np.ndarray:
    """All 1554 rows of d (entries 0-2, sum 6), in lexicographic order."""
    rows = [r for r in product(range(3), repeat=COLUMNS) if sum(r) == EXTRAS_PER_CARD]
    return np.array(rows, dtype=np.int64)


def _row_weight(row: tuple[int, ...] | np.ndarray, by_threes: dict[int, int]) -> int:
    """f(row) = M(a) * prod_j 6 / c_j!  (an integer; c = d + 1)."""
    values = [int(v) for v in row]
    return by_threes[values.count(2)] * prod(_FACTORIAL_SCALE[v] for v in values)


_POW5 = 5 ** np.arange(_MID_COUNT, dtype=np.int64)
_MID_CODES = 5**_MID_COUNT  # R_j <= 4 in columns 1-7
_LOOKUP_SIZE = (EXTRAS[0] + 1) * (EXTRAS[-1] + 1) * _MID_CODES


def _lookup_index(remaining: np.ndarray) -> np.ndarray:
    """Index of remaining column sums R (..., 9) in the dense lookups."""
    first_last = remaining[..., 0] * (EXTRAS[-1] + 1) + remaining[..., -1]
    return first_last * _MID_CODES + remaining[..., _MID] @ _POW5


@cache
def _middle_tables() -> tuple[np.ndarray, np.ndarray]:
    """For every code of columns 1-7 (base 5): the code of the same values sorted ascending,
    and the rank of each column in that (stable) sort: canonical position rank[c] holds
    actual column c."""
    digits = (np.arange(_MID_CODES)[:, None] // _POW5) % 5  # (5^7, 7)
    order = np.argsort(digits, axis=1, kind="stable")
    ranks = np.empty((_MID_CODES, _MID_COUNT), dtype=np.int64)
    np.put_along_axis(ranks, order, np.arange(_MID_COUNT)[None, :], axis=1)
    return np.take_along_axis(digits, order, axis=1) @ _POW5, ranks


def _canonical_key(remaining: np.ndarray) -> np.ndarray:
    """The lookup index of R with columns 1-7 sorted ascending: equal for equivalent R."""
    first_last = remaining[..., 0] * (EXTRAS[-1] + 1) + remaining[..., -1]
    return first_last * _MID_CODES + _middle_tables()[0][remaining[..., _MID] @ _POW5]


def _decode(key: int) -> tuple[int, ...]:
    first_last, mid = divmod(key, _MID_CODES)
    first, last = divmod(first_last, EXTRAS[-1] + 1)
    return (first, *(mid // 5**c % 5 for c in range(_MID_COUNT)), last)


@dataclass(frozen=True)
class _Dp:
    rows: np.ndarray  # (1554, 9) int64: every row of d, lexicographic
    f: np.ndarray  # (1554,) object: f(row)
    keys: tuple[np.ndarray, ...]  # per card k = 0..5: sorted canonical keys of R with Z_k > 0
    z: tuple[np.ndarray, ...]  # per card k: Z_k(R) of those states (object: exact integers)

    @property
    def total_weight(self) -> int:
        """Z_0(EXTRAS) = sum over all d of prod_i f(d_i)."""
        return int(self.z[0][0])


def _options(
    rows: np.ndarray, f: np.ndarray, keys: np.ndarray, z: np.ndarray, key: int
) -> tuple[np.ndarray, np.ndarray]:
    """For the state of canonical key `key` before card k, given Z_{k+1} (`keys`, `z`): the rows
    r <= R with Z_{k+1}(R - r) > 0 (lexicographic order, canonical columns) and their exact
    weights f(r) * Z_{k+1}(R - r) (object array)."""
    remaining = np.array(_decode(key))
    fits = np.nonzero((rows <= remaining).all(axis=1))[0]
    following = _canonical_key(remaining - rows[fits])
    at = np.minimum(np.searchsorted(keys, following), keys.size - 1)
    found = keys[at] == following
    chosen = fits[found]
    return rows[chosen], f[chosen] * z[at[found]]


def _state_options(dp: _Dp, card: int, key: int) -> tuple[np.ndarray, np.ndarray]:
    return _options(dp.rows, dp.f, dp.keys[card + 1], dp.z[card + 1], key)


@cache
def _dp() -> _Dp:
    """Z_k for every canonical state reachable before card k (forward search, then backward)."""
    rows = _card_rows()
    by_threes = _occupancy().by_threes
    f = np.array([_row_weight(r, by_threes) for r in rows], dtype=object)
    full_key = int(_lookup_index(np.array(EXTRAS)))
    levels = [np.array([full_key])]
    for k in range(CARDS - 1):
        cap = 2 * (CARDS - 1 - k)  # the cards after card k hold at most 2 extras per column
        found = []
        for key in levels[k].tolist():
            left = np.array(_decode(key)) - rows
            found.append(_canonical_key(left[((left >= 0) & (left <= cap)).all(axis=1)]))
        levels.append(np.unique(np.concatenate(found)))
    # before card 5, R is what card 5 takes: a valid row (sum 6, entries <= 2), Z_5(R) = f(R)
    row_of = {int(k): i for i, k in enumerate(_lookup_index(rows).tolist())}
    keys = [levels[CARDS - 1]]
    z = [np.array([f[row_of[k]] for k in levels[CARDS - 1].tolist()], dtype=object)]
    for k in reversed(range(CARDS - 1)):
        found_keys, totals = [], []
        for key in levels[k].tolist():
            _, weights = _options(rows, f, keys[0], z[0], key)
            if weights.size:
                found_keys.append(key)
                totals.append(int(weights.sum()))
        keys.insert(0, np.array(found_keys, dtype=np.int64))
        z.insert(0, np.array(totals, dtype=object))
    assert keys[0].tolist() == [full_key]
    return _Dp(rows, f, tuple(keys), tuple(z))


@dataclass(frozen=True)
class _StripTables:
    level: np.ndarray  # (states,) the card drawn from each state
    key: np.ndarray  # (states,) canonical key of each state
    state_id: np.ndarray  # (lookup size,) int16 state id of every R (-1: none)
    mid_rank: np.ndarray  # (5^7, 7) int64: sorted position of each middle column
    opt_start: np.ndarray  # (states + 1,) int64
    opt_count: np.ndarray  # (states,) uint64
    opt_rows: np.ndarray  # (options, 9) int8: rows of d in canonical column order
    cell_cut: np.ndarray  # (options,) uint64: floor(2^32 * t / T), 2^32 when t = T
    cell_alias: np.ndarray  # (options,) int64: global option index of the alias


def _alias(weights: list[int]) -> tuple[list[int], list[int], int]:
    """Exact integer alias table (Vose): per cell a threshold t in [0, T] and an alias.

    Cell i is chosen with probability 1/K; it yields option i when U * T < t_i (U uniform in
    [0, 1)), else option alias_i. Option o then has probability exactly w_o / T.
    """
    size, total = len(weights), sum(weights)
    scaled = [size * w for w in weights]
    threshold, alias = [total] * size, list(range(size))
    small = [i for i in range(size) if scaled[i] < total]
    large = [i for i in range(size) if scaled[i] >= total]
    while small and large:
        s, g = small.pop(), large.pop()
        threshold[s], alias[s] = scaled[s], g
        scaled[g] -= total - scaled[s]
        (small if scaled[g] < total else large).append(g)
    return threshold, alias, total


def _dense_lookup(keys: list[int]) -> np.ndarray:
    """State id (position in `keys`) of every R, by `_lookup_index` (-1: not a state)."""
    by_canonical = np.full(_LOOKUP_SIZE, -1, dtype=np.int16)
    by_canonical[np.array(keys, dtype=np.int64)] = np.arange(len(keys))
    return by_canonical[_canonical_key_of_every_index()]


def _canonical_key_of_every_index() -> np.ndarray:
    sorted_code = _middle_tables()[0]
    first_last = np.arange(_LOOKUP_SIZE // _MID_CODES)[:, None] * _MID_CODES
    return (first_last + sorted_code[None, :]).reshape(-1)


@cache
def _tables() -> _StripTables:
    """Alias tables of every state of cards 0-4 (state ids: by card, then canonical key)."""
    dp = _dp()
    levels, keys, opt_rows, cut, alias, opt_start = [], [], [], [], [], [0]
    for k in range(CARDS - 1):
        for key in dp.keys[k].tolist():
            options, weights = _state_options(dp, k, key)
            thresholds, aliases, total = _alias(weights.tolist())
            base = opt_start[-1]
            cut += [(t << 32) // total for t in thresholds]
            alias += [base + a for a in aliases]
            opt_rows.append(options)
            opt_start.append(base + len(thresholds))
            levels.append(k)
            keys.append(key)
    state_id = _dense_lookup(keys)
    starts = np.array(opt_start, dtype=np.int64)
    return _StripTables(
        level=np.array(levels),
        key=np.array(keys, dtype=np.int64),
        state_id=state_id,
        mid_rank=_middle_tables()[1],
        opt_start=starts,
        opt_count=np.diff(starts).astype(np.uint64),
        opt_rows=np.concatenate(opt_rows).astype(np.int8),
        cell_cut=np.array(cut, dtype=np.uint64),
        cell_alias=np.array(alias, dtype=np.int64),
    )


def _state_weights(sid: int) -> tuple[np.ndarray, list[int]]:
    """The options of state `sid` and their exact weights (recomputed, as when building)."""
    tables = _tables()
    options, weights = _state_options(_dp(), int(tables.level[sid]), int(tables.key[sid]))
    return options, weights.tolist()


def _exact_alias_choice(sid: int, cell: int, high: int, more: Callable[[], int]) -> int:
    """Resolve a tie of the 32-bit comparison exactly: U in [high/2^32, (high+1)/2^32).

    Reads further 64-bit words (as the next bits of U) until U * T is on one side of t.
    Returns the local option index.
    """
    _, weights = _state_weights(sid)
    thresholds, aliases, total = _alias(weights)
    t = thresholds[cell]
    x, bits = high, 32
    while True:
        if (x + 1) * total <= t << bits:  # the whole interval lies below t / T
            return cell
        if x * total >= t << bits:  # the whole interval lies at or above t / T
            return aliases[cell]
        x, bits = (x << 64) | more(), bits + 64


def _total_strips() -> int:
    scaled = prod(factorial(n) for n in COLUMN_SIZES) * _dp().total_weight
    denominator = _FACTORIAL_SCALE[0] ** (CARDS * COLUMNS)
    assert scaled % denominator == 0
    return scaled // denominator


# --- uniform integers from raw 64-bit words ------------------------------------------------


def strip_bitgen(seed: bytes) -> np.random.Philox:
    """The Philox generator of a seed: key = first 16 bytes of SHA-256(domain || seed)."""
    if not isinstance(seed, bytes | bytearray) or not seed:
        raise ValueError("a strip seed must be non-empty bytes")
    digest = hashlib.sha256(SEED_DOMAIN + bytes(seed)).digest()
    return np.random.Philox(key=int.from_bytes(digest[:16], "little"))


def _raw(bitgen: np.random.Philox, size: int) -> np.ndarray:
    return np.asarray(bitgen.random_raw(size), dtype=np.uint64)


def _halves(bitgen: np.random.Philox, size: int) -> np.ndarray:
    """`size` 32-bit values (as uint64): low then high half of each raw word, in order."""
    words = _raw(bitgen, (size + 1) // 2).astype("<u8", copy=False)
    return words.view("<u4")[:size].astype(np.uint64)


def _below_32(bitgen: np.random.Philox, low: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Lemire's multiply-shift: floor(x * s / 2^32) for 32-bit x, rejecting x * s mod 2^32 <
    2^32 mod s; rejected entries draw a fresh word (its low 32 bits), in index order."""
    product_ = low * bound
    out = product_ >> _U32
    check = np.nonzero((product_ & _M32) < bound)[0]
    while check.size:
        limit = (np.uint64(1) << _U32) % bound[check]
        bad = check[(product_[check] & _M32) < limit]
        if not bad.size:
            break
        fresh = _raw(bitgen, bad.size) & _M32
        product_[bad] = fresh * bound[bad]
        out[bad] = product_[bad] >> _U32
        check = bad
    return out


# --- column deals -----------------------------------------------------------------------------

_MAX_N = max(COLUMN_SIZES)  # 11
_SUBSET_WIDTH = comb(_MAX_N, 3)  # 165


@cache
def _deal_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(binomials, subsets, cells). binomials[m * 4 + c] = C(m, c).

    subsets[(free * 4 + c) * 165 + i]: the i-th (lexicographic) c-subset of the set bits of
    `free`, as a bit mask. cells: the rows
    of column j when a card's share of column j is `share` (bit p = the column's p-th number)
    and its filled rows are `pattern` (ascending numbers top to bottom; 0 = blank), packed:
    cells[(j * 2048 + share) * 8 + pattern] has the number of row r in byte r.
    """
    binomials = np.array([comb(m, c) for m in range(_MAX_N + 1) for c in range(4)], np.uint64)
    subsets = np.zeros((1 << _MAX_N) * 4 * _SUBSET_WIDTH, dtype=np.uint16)
    for size in range(_MAX_N + 1):
        frees = [f for f in range(1 << _MAX_N) if f.bit_count() == size]
        bits = np.array(
            [[p for p in range(_MAX_N) if f >> p & 1] for f in frees], dtype=np.int64
        ).reshape(len(frees), size)
        for c in range(min(size, 3) + 1):
            combos = list(combinations(range(size), c))
            picks = np.array(combos, dtype=np.int64).reshape(len(combos), c)
            masks = (np.left_shift(1, bits[:, picks])).sum(axis=-1)  # (frees, subsets)
            base = (np.array(frees) * 4 + c) * _SUBSET_WIDTH
            index = base[:, None] + np.arange(picks.shape[0])[None, :]
            subsets[index] = masks
    cells = np.zeros(COLUMNS * (1 << _MAX_N) * 8, dtype=np.uint32)
    for j in range(COLUMNS):
        for c in range(1, 4):
            for share in combinations(range(COLUMN_SIZES[j]), c):
                mask = sum(1 << p for p in share)
                for filled in combinations(range(ROWS), c):
                    pattern = sum(1 << r for r in filled)
                    at = (j * (1 << _MAX_N) + mask) * 8 + pattern
                    for r, p in zip(filled, share, strict=True):
                        cells[at] |= (COLUMN_FIRST[j] + p) << (8 * r)
    return binomials, subsets, cells


# --- sampling ---------------------------------------------------------------------------------


def _draw_d(bitgen: np.random.Philox, n: int) -> list[np.ndarray]:
    """Six (n, 9) int64 arrays: row d_i of each strip; d has probability prod_i f(d_i) / Z_0.

    Card k = 0..4 reads one raw word per strip: the low 32 bits pick a cell of the state's
    alias table (Lemire), the high 32 bits are the first bits of U for the cell's threshold.
    """
    tables = _tables()
    remaining = np.empty((n, COLUMNS), dtype=np.int64)
    remaining[:] = EXTRAS
    base = np.arange(n, dtype=np.int64)[:, None] * COLUMNS + 1  # flat index of column 1
    d = []
    for k in range(CARDS - 1):
        words = _raw(bitgen, n)
        if k == 0:
            sid = np.zeros(n, dtype=np.int64)
        else:
            mid_code = remaining[:, _MID] @ _POW5
            first_last = remaining[:, 0] * (EXTRAS[-1] + 1) + remaining[:, -1]
            sid = tables.state_id[first_last * _MID_CODES + mid_code].astype(np.int64)
        local = _below_32(bitgen, words & _M32, tables.opt_count[sid]).view(np.int64)
        cell = tables.opt_start[sid] + local
        high = words >> _U32
        cut = tables.cell_cut[cell]
        pick = np.where(high < cut, cell, tables.cell_alias[cell])
        for i in np.nonzero(high == cut)[0].tolist():  # about one in 2^32: more bits, exactly
            s = int(sid[i])
            chosen = _exact_alias_choice(s, int(local[i]), int(high[i]), _word_reader(bitgen))
            pick[i] = tables.opt_start[s] + chosen
        rows = tables.opt_rows[pick].astype(np.int64)
        if k:  # canonical column order -> actual columns: column c is canonical rank[c]
            rows[:, _MID] = rows.reshape(-1)[base + tables.mid_rank[mid_code]]
        d.append(rows)
        remaining -= rows
    d.append(remaining)
    return d


def _word_reader(bitgen: np.random.Philox) -> Callable[[], int]:
    return lambda: int(bitgen.random_raw())


def _sample_chunk(bitgen: np.random.Philox, n: int) -> np.ndarray:
    """n strips as (n, 6, 3, 9) uint8. Raw words read: 5 per strip for d (one per card 0-4,
    plus rare exact-tie words), then 6 per strip (12 32-bit halves) for the deal and the
    occupancies, plus the words of rare rejections."""
    occupancy = _occupancy()
    binomials, subsets, cells = _deal_tables()
    d = _draw_d(bitgen, n)
    counts = [row + 1 for row in d]
    codes = np.stack(d, axis=1) @ (3 ** np.arange(COLUMNS, dtype=np.int64))  # (n, 6)
    occ_range = occupancy.count[codes]  # M(a_i), (n, 6) uint64
    # card i takes a uniform c-subset of the numbers still free in each column: C(left, c) ways
    left = np.empty((n, COLUMNS), dtype=np.int64)
    left[:] = COLUMN_SIZES
    deal_range = []
    for i in range(CARDS - 1):
        deal_range.append(binomials[left * 4 + counts[i]])
        left -= counts[i]
    bound = np.empty((n, COLUMNS + CARDS // 2), dtype=np.uint64)
    bound[:, :COLUMNS] = prod(deal_range)  # multinomial n_j! / prod_i c_ij! per column
    bound[:, COLUMNS:] = occ_range[:, 0::2] * occ_range[:, 1::2]  # two cards per draw
    value = _below_32(bitgen, _halves(bitgen, bound.size), bound.reshape(-1)).reshape(bound.shape)
    v = value[:, :COLUMNS]
    deal_index = []
    for i in range(CARDS - 1):
        v, index = np.divmod(v, deal_range[i])
        deal_index.append(index.view(np.int64))
    pair, even = np.divmod(value[:, COLUMNS:], occ_range[:, 0::2])
    occ_index = np.empty((n, CARDS), dtype=np.int64)
    occ_index[:, 0::2] = even.view(np.int64)
    occ_index[:, 1::2] = pair.view(np.int64)  # < M of the odd card
    patterns = occupancy.patterns[occupancy.start[codes] + occ_index]  # (n, 6, 9) uint8
    free = np.empty((n, COLUMNS), dtype=np.int64)
    free[:] = [(1 << size) - 1 for size in COLUMN_SIZES]
    column = np.arange(COLUMNS, dtype=np.int64) * (1 << _MAX_N)
    index = np.empty((n, CARDS, COLUMNS), dtype=np.int64)
    for i in range(CARDS):
        if i < CARDS - 1:
            share = subsets[(free * 4 + counts[i]) * _SUBSET_WIDTH + deal_index[i]]
            free ^= share
        else:
            share = free
        index[:, i] = (column + share) * 8
    index += patterns
    packed = cells[index]  # (n, 6, 9) uint32: byte r = the number in row r (0 = blank)
    rows = packed.astype("<u4", copy=False).view(np.uint8).reshape(n, CARDS, COLUMNS, 4)
    return rows[..., :ROWS].transpose(0, 1, 3, 2)


def sample_strips(bitgen: np.random.Philox, count: int) -> np.ndarray:
    """`count` independent strips, each uniform over all TOTAL_STRIPS strips.

    Returns (count, 6, 3, 9) uint8: strip, card (1-6 of the strip), row, column; 0 = blank.
    Deterministic: the same generator state and the same `count` give the same array (strips
    are drawn in batches of CHUNK, each batch reading the raw stream in a fixed order).
    """
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be a non-negative int, got {count!r}")
    count = int(count)
    out = np.empty((count, CARDS, ROWS, COLUMNS), dtype=np.uint8)
    for start in range(0, count, CHUNK):
        stop = min(start + CHUNK, count)
        out[start:stop] = _sample_chunk(bitgen, stop - start)
    return out


# --- exact distributions ------------------------------------------------------------------------


def first_card_distribution(statistic: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    """Exact distribution of statistic(d row of card 1) over uniform strips."""
    dp = _dp()
    options, weights = _state_options(dp, 0, int(dp.keys[0][0]))
    totals: dict[int, int] = {}
    for row, weight in zip(map(tuple, options.tolist()), weights.tolist(), strict=True):
        key = statistic(row)
        totals[key] = totals.get(key, 0) + weight
    return {k: Fraction(v, dp.total_weight) for k, v in sorted(totals.items())}


def column_three_distribution() -> dict[int, Fraction]:
    """Exact distribution of the number of 3-number columns of card 1 of a uniform strip."""
    return first_card_distribution(lambda row: row.count(2))


TOTAL_STRIPS: int = _total_strips()
