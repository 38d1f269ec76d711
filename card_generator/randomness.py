"""Deterministic, exactly uniform random ranks from a seed.

Bits come from numpy's Philox counter-based generator, read raw (`random_raw`): the raw
stream of a bit generator is fixed by its algorithm and key, unlike the higher-level
`Generator` methods, so a series is reproducible bit for bit across numpy versions. Integers
in a range are taken by rejection (no modulo bias).
"""

from __future__ import annotations

import hashlib

import numpy as np

from card_generator.sampler import TOTAL_CARDS

RANK_BITS = TOTAL_CARDS.bit_length()  # 62
_SHIFT = np.uint64(64 - RANK_BITS)
_TOTAL = np.uint64(TOTAL_CARDS)


def bit_generator(seed: bytes, domain: bytes) -> np.random.Philox:
    """The Philox generator of a seed, keyed by SHA-256 of a domain label and the seed."""
    if not isinstance(seed, bytes | bytearray) or not seed:
        raise ValueError("a seed must be non-empty bytes")
    key = int.from_bytes(hashlib.sha256(domain + bytes(seed)).digest()[:16], "little")
    return np.random.Philox(key=key)


def uniform_ranks(bitgen: np.random.Philox, count: int) -> np.ndarray:
    """`count` independent, exactly uniform integers in [0, TOTAL_CARDS) (uint64).

    Each candidate is the top 62 bits of one raw 64-bit output, kept if below TOTAL_CARDS
    (about 80 % are); candidates are consumed in order, so the result is deterministic.
    """
    out = np.empty(count, dtype=np.uint64)
    filled = 0
    while filled < count:
        need = count - filled
        candidates = bitgen.random_raw(need + need // 4 + 64) >> _SHIFT
        kept = candidates[candidates < _TOTAL][:need]
        out[filled : filled + kept.size] = kept
        filled += kept.size
    return out


def distinct_ranks(
    bitgen: np.random.Philox, count: int, exclude: np.ndarray | None = None
) -> np.ndarray:
    """`count` distinct uniform ranks, none in `exclude` (in draw order).

    A rank that repeats an earlier one (or is excluded) is replaced by a fresh draw until all
    are distinct. The procedure commutes with every relabelling of the ranks, so the result is
    uniform over all sequences of distinct allowed ranks.
    """
    ranks = uniform_ranks(bitgen, count)
    banned = np.unique(exclude) if exclude is not None else np.empty(0, dtype=np.uint64)
    while _any_repeated_or_banned(ranks, banned):
        bad = _repeated_or_banned(ranks, banned)
        ranks[bad] = uniform_ranks(bitgen, int(bad.sum()))
    return ranks


def _any_repeated_or_banned(ranks: np.ndarray, banned: np.ndarray) -> bool:
    """The fast check (a plain sort); repeats are rare, so the positions are seldom needed."""
    ordered = np.sort(ranks)
    if (ordered[1:] == ordered[:-1]).any():
        return True
    return bool(banned.size) and bool(np.isin(ranks, banned).any())


def _repeated_or_banned(ranks: np.ndarray, banned: np.ndarray) -> np.ndarray:
    """Mask of the positions holding a banned rank or one already held at an earlier position."""
    order = np.argsort(ranks, kind="stable")
    ordered = ranks[order]
    repeated_sorted = np.zeros(ranks.size, dtype=bool)
    repeated_sorted[1:] = ordered[1:] == ordered[:-1]
    bad = np.zeros(ranks.size, dtype=bool)
    bad[order] = repeated_sorted
    if banned.size:
        bad |= np.isin(ranks, banned)
    return bad
