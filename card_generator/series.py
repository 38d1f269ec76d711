"""Series of distinct cards from one seed, their commitment and per-card security codes.

Encodings (see docs/card-sampling.md):

Algorithm 2: card k of a series is the card of the k-th of a sequence of distinct, exactly
uniform ranks drawn from the seed (card_generator.randomness, card_generator.ranking); in
strip mode, strip k is the k-th of a sequence of exactly uniform strips (card_generator.strips)
whose cards are all distinct. A series is therefore its seed, or equally its array of ranks.

- commitment: SHA-256 hex of the header
  b"bingo-series/v1\\n" + series id + b"\\n" + face value ("1.50") + b"\\n" + size + b"\\n"
  + algorithm + b"\\n" (all ASCII), followed for each card k = 1..size by k as 4 bytes
  big-endian and the 27 cells row by row, one byte each (0 for a blank).
- security code of card k: the first 10 hex digits of HMAC-SHA256(key=seed,
  msg=series id + b"\\x00" + k as 4 bytes big-endian + the 27 cell bytes).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any

import numpy as np

from bingo_hall.domain.cards import Grid
from bingo_hall.domain.series import MAX_FACE_VALUE, MAX_SERIES_SIZE, SERIES_ID_PATTERN
from card_generator.randomness import (
    _any_repeated_or_banned,
    _repeated_or_banned,
    bit_generator,
    distinct_ranks,
)
from card_generator.ranking import rank_many, unrank, unrank_many
from card_generator.sampler import new_seed

ALGORITHM_VERSION = "2"  # the card of a uniform rank (card_generator.ranking)
CARD_SEED_DOMAIN = b"bingo-cards/v2"
STRIP_SIZE = 6
CHUNK = 1 << 16
COMMITMENT_DOMAIN = b"bingo-series/v1"
SECURITY_CODE_LENGTH = 10
SECURITY_CODE_PATTERN = re.compile(rf"[0-9a-f]{{{SECURITY_CODE_LENGTH}}}")  # fullmatch


def validate_series_id(text: str) -> str:
    """The series id if it is one or two capital letters and 1-6 digits (e.g. "A17")."""
    if not isinstance(text, str) or SERIES_ID_PATTERN.fullmatch(text) is None:
        raise ValueError(
            f"series id {text!r} is not valid: it must be one or two capital letters (A-Z) "
            "followed by 1 to 6 digits, e.g. 'A17'"
        )
    return text


def validate_size(size: int) -> int:
    """The series size if it is a whole number from 1 to 1,000,000."""
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_SERIES_SIZE:
        raise ValueError(
            f"series size {size!r} is not valid: it must be a whole number from 1 to "
            f"{MAX_SERIES_SIZE:,}"
        )
    return size


def validate_face_value(face_value: Decimal) -> Decimal:
    """The face value with exactly two decimals, if it is a positive Decimal of whole cents."""
    if not isinstance(face_value, Decimal):
        raise ValueError(
            f"face value must be a Decimal (e.g. Decimal('1.50')), got "
            f"{type(face_value).__name__} {face_value!r}"
        )
    if not face_value.is_finite() or face_value <= 0:
        raise ValueError(f"face value must be a positive amount, got {face_value}")
    if face_value > MAX_FACE_VALUE:
        raise ValueError(f"face value {face_value} is over the maximum, {MAX_FACE_VALUE}")
    if _decimal_places(face_value) > 2:
        raise ValueError(f"face value must have at most 2 decimals (whole cents), got {face_value}")
    return Decimal(f"{face_value:.2f}")


def _decimal_places(value: Decimal) -> int:
    """How many decimals `value` needs, ignoring trailing zeros (exact, no context rounding)."""
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    trailing_zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return max(0, -(exponent + trailing_zeros))


def _cell_bytes(grid: Grid) -> bytes:
    """The 27 cells row by row, one byte each."""
    return bytes(cell for row in grid for cell in row)


@dataclass(frozen=True, eq=False)
class GeneratedSeries:
    """A series of distinct cards, held as the ranks of its cards (8 bytes a card)."""

    series_id: str
    face_value: Decimal
    size: int
    seed: bytes
    algorithm: str
    ranks: np.ndarray  # uint64; card k is unrank(ranks[k - 1])
    strips: bool = False

    def __post_init__(self) -> None:
        if self.ranks.shape != (self.size,):
            raise ValueError(f"a series of size {self.size} holds {self.ranks.size} cards")
        self.ranks.flags.writeable = False

    def header(self) -> bytes:
        """The canonical header: domain, series id, face value, size, algorithm."""
        return commitment_header(self.series_id, self.face_value, self.size, self.algorithm)

    def chunks(self, chunk: int = CHUNK) -> Iterator[tuple[int, np.ndarray]]:
        """(first card number, grids of shape (n, 3, 9)) for consecutive blocks of cards."""
        for start in range(0, self.size, chunk):
            yield start + 1, unrank_many(self.ranks[start : start + chunk])

    @cached_property
    def commitment(self) -> str:
        """SHA-256 hex of the header followed by every card (number, 27 cells) in order."""
        digest = hashlib.sha256(self.header())
        for first, grids in self.chunks():
            digest.update(_encode_block(first, grids))
        return digest.hexdigest()

    def card(self, number: int) -> Grid:
        """Card number `number` (1-based)."""
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= self.size:
            raise ValueError(f"series {self.series_id} has cards 1-{self.size}, not {number!r}")
        return unrank(int(self.ranks[number - 1]))

    @property
    def cards(self) -> tuple[Grid, ...]:
        """Every card as nested tuples (for small series; large ones use `chunks`)."""
        return tuple(unrank(int(value)) for value in self.ranks)

    def security_code(self, number: int) -> str:
        """The first 10 hex digits of HMAC-SHA256 keyed by the seed over id, number, cells."""
        return security_code(self.seed, self.series_id, number, _cell_bytes(self.card(number)))


def commitment_header(series_id: str, face_value: Decimal, size: int, algorithm: str) -> bytes:
    """The canonical header of a series commitment."""
    fields = (series_id, f"{face_value:.2f}", str(size), algorithm)
    return COMMITMENT_DOMAIN + b"\n" + "".join(f"{f}\n" for f in fields).encode("ascii")


def card_encoding(number: int, cells: bytes) -> bytes:
    """One card as the commitment encodes it: number (4 bytes, big-endian), 27 cells."""
    return number.to_bytes(4, "big") + cells


def security_code(seed: bytes, series_id: str, number: int, cells: bytes) -> str:
    """The security code of card `number` whose 27 cells are `cells`."""
    message = series_id.encode("ascii") + b"\x00" + number.to_bytes(4, "big") + cells
    return hmac.new(seed, message, hashlib.sha256).hexdigest()[:SECURITY_CODE_LENGTH]


def _encode_block(first: int, grids: np.ndarray) -> bytes:
    """Cards first.. as the commitment encodes them: number (4 bytes, big-endian), 27 cells."""
    numbers = np.arange(first, first + grids.shape[0], dtype=">u4").view(np.uint8)
    records = np.concatenate(
        [numbers.reshape(-1, 4), grids.reshape(-1, 27).astype(np.uint8)], axis=1
    )
    return records.tobytes()


def _checked(series_id: str, size: int, face_value: Decimal, seed: bytes | None):
    series_id = validate_series_id(series_id)
    size = validate_size(size)
    face_value = validate_face_value(face_value)
    if seed is None:
        seed = new_seed()
    if not isinstance(seed, bytes) or not seed:
        raise ValueError("the seed must be non-empty bytes")
    return series_id, size, face_value, seed


def generate_series(
    series_id: str,
    size: int,
    face_value: Decimal,
    seed: bytes | None = None,
    exclude: np.ndarray | None = None,
) -> GeneratedSeries:
    """A series of `size` distinct, exactly uniform cards; deterministic given the seed.

    `exclude`: ranks of cards that must not appear (e.g. the other series of a game).
    """
    series_id, size, face_value, seed = _checked(series_id, size, face_value, seed)
    ranks = distinct_ranks(bit_generator(seed, CARD_SEED_DOMAIN), size, exclude)
    return GeneratedSeries(series_id, face_value, size, seed, ALGORITHM_VERSION, ranks)


def generate_strip_series(
    series_id: str,
    size: int,
    face_value: Decimal,
    seed: bytes | None = None,
    exclude: np.ndarray | None = None,
) -> GeneratedSeries:
    """A series of size/6 exactly uniform strips (6 cards holding 1-90 once), cards distinct."""
    from card_generator.strips import STRIP_ALGORITHM_VERSION, sample_strips, strip_bitgen

    series_id, size, face_value, seed = _checked(series_id, size, face_value, seed)
    if size % STRIP_SIZE:
        raise ValueError(f"a series of strips holds a multiple of 6 cards, not {size}")
    bitgen = strip_bitgen(seed)
    ranks = rank_many(sample_strips(bitgen, size // STRIP_SIZE).reshape(-1, 3, 9))
    banned = np.unique(exclude) if exclude is not None else np.empty(0, dtype=np.uint64)
    while _any_repeated_or_banned(ranks, banned):
        bad = _repeated_or_banned(ranks, banned)
        strips = np.unique(np.flatnonzero(bad) // STRIP_SIZE)
        fresh = rank_many(sample_strips(bitgen, strips.size).reshape(-1, 3, 9))
        positions = (strips[:, None] * STRIP_SIZE + np.arange(STRIP_SIZE)).ravel()
        ranks[positions] = fresh
    algorithm = f"{ALGORITHM_VERSION}+strips{STRIP_ALGORITHM_VERSION}"
    return GeneratedSeries(series_id, face_value, size, seed, algorithm, ranks, strips=True)


def card_records(series: GeneratedSeries) -> Iterator[dict[str, Any]]:
    """One JSON-ready object per card, in card-number order (the JSONL lines)."""
    face_value = f"{series.face_value:.2f}"
    for first, grids in series.chunks():
        for offset, grid in enumerate(grids.tolist()):
            number = first + offset
            cells = bytes(grids[offset].ravel())
            record = {
                "series": series.series_id,
                "number": number,
                "face_value": face_value,
                "series_size": series.size,
                "grid": grid,
                "code": security_code(series.seed, series.series_id, number, cells),
            }
            if series.strips:
                record["strip"] = (number + STRIP_SIZE - 1) // STRIP_SIZE
            yield record
