"""The card-printing batch job: card records (the JSONL contract) to an A4 PDF.

Each A4 portrait page holds `CARDS_PER_PAGE` cards (2 columns x 3 rows) separated by dashed
cutting guides. A card shows, in the familiar Spanish look: a header band with the series and
the card number, the bordered 3 x 9 grid with large bold numbers and shaded blank cells, the
face value with a decimal comma, the size of the series, the strip number when the record has
one, the security code and a QR code of `qr_payload(record)`.

Speed. The job streams: records are checked and drawn one at a time (reportlab itself keeps
the page content until the file is written, see `print_cards`). Every piece of geometry that
does not depend on the card (frames, grid lines, labels, cell positions) is turned into PDF
content-stream text once; per card only the numbers, the blank cells, a few strings and the
QR code are formatted, and written with `Canvas.addLiteral`.

The QR code is the very symbol `segno.make(payload, error="m")` builds (same version, error
level boosting, mask choice and modules; the tests compare them module by module), computed
by `qr_matrix` with numpy: segno evaluates its eight masks in pure Python (about 3 ms a code,
more than the whole budget of a card). It is drawn as one filled path of module runs, so
adjacent modules render without seams.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any

import numpy as np
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from bingo_hall.domain.cards import COLUMNS, ROWS, structure_violations
from card_generator.series import (
    MAX_FACE_VALUE,
    SECURITY_CODE_LENGTH,
    SECURITY_CODE_PATTERN,
    SERIES_ID_PATTERN,
)

__all__ = [
    "CARDS_PER_PAGE",
    "CardRecordError",
    "parse_qr_payload",
    "print_cards",
    "qr_matrix",
    "qr_payload",
]

CARDS_PER_PAGE = 6
PAGE_COLUMNS, PAGE_ROWS = 2, 3
assert PAGE_COLUMNS * PAGE_ROWS == CARDS_PER_PAGE

QR_PREFIX = "BINGO1"
_NUMBER_PATTERN = re.compile(r"[1-9][0-9]{0,8}")
_NUMBER_LIMIT = 10**9  # card numbers have at most 9 digits in a QR payload
_FACE_VALUE_PATTERN = re.compile(r"([0-9]{1,9})\.([0-9]{2})")
_LISTED_SERIES = 10  # series named in the PDF's metadata
_REQUIRED = ("series", "number", "face_value", "series_size", "grid", "code")


# --- the QR payload ----------------------------------------------------------------------------


def qr_payload(record: Mapping[str, Any]) -> str:
    """The QR text of a card record: "BINGO1|<series>|<number>|<security code>".

    Only those three fields are needed (and checked); ValueError if one is missing or bad.
    """
    series, number, code = (
        record.get(key) if isinstance(record, Mapping) else None
        for key in ("series", "number", "code")
    )
    if (
        not isinstance(series, str)
        or SERIES_ID_PATTERN.fullmatch(series) is None
        or not _is_whole(number)
        or not 1 <= number < _NUMBER_LIMIT
        or not isinstance(code, str)
        or SECURITY_CODE_PATTERN.fullmatch(code) is None
    ):
        raise ValueError(
            f"cannot make a QR payload from series {series!r}, number {number!r}, code {code!r}"
        )
    return f"{QR_PREFIX}|{series}|{number}|{code}"


def parse_qr_payload(text: str) -> tuple[str, int, str]:
    """(series, card number, security code) from a QR text; ValueError for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"a card QR payload is text, not {type(text).__name__}")
    parts = text.split("|")
    if (
        len(parts) != 4
        or parts[0] != QR_PREFIX
        or SERIES_ID_PATTERN.fullmatch(parts[1]) is None
        or _NUMBER_PATTERN.fullmatch(parts[2]) is None
        or SECURITY_CODE_PATTERN.fullmatch(parts[3]) is None
    ):
        raise ValueError(
            f"{text[:80]!r} is not a card QR payload: expected "
            f"'{QR_PREFIX}|<series>|<number>|<{SECURITY_CODE_LENGTH} hex digits>', "
            f"e.g. '{QR_PREFIX}|A17|1|3f9a0c12be'"
        )
    return parts[1], int(parts[2]), parts[3]


# --- checking the records ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Card:
    series: str
    number: int
    face_value: str  # as printed: "1,50"
    series_size: int
    grid: tuple[tuple[int, ...], ...]
    code: str
    strip: int | None


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@lru_cache(maxsize=256)
def _spanish_amount(face_value: str) -> str | None:
    """The amount as printed ("1.50" -> "1,50", "1500.00" -> "1.500,00"), or None unless it is
    a positive amount with 2 decimals."""
    match = _FACE_VALUE_PATTERN.fullmatch(face_value)
    if match is None or int(match[1]) == 0 == int(match[2]):
        return None
    if Decimal(face_value) > MAX_FACE_VALUE:
        return None
    return f"{int(match[1]):,}".replace(",", ".") + "," + match[2]


def _card_problem(record: Mapping[str, Any]) -> str | _Card:
    """The checked card, or what is wrong with the record."""
    if not isinstance(record, Mapping):
        return f"a card record is a JSON object, not {type(record).__name__}"
    missing = [name for name in _REQUIRED if name not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    series, number, size = record["series"], record["number"], record["series_size"]
    face_value, grid, code = record["face_value"], record["grid"], record["code"]
    if not isinstance(series, str) or SERIES_ID_PATTERN.fullmatch(series) is None:
        return f"series {series!r} is not a series id such as 'A17'"
    if not _is_whole(size) or size < 1:
        return f"series_size {size!r} is not a whole number of cards"
    if not _is_whole(number) or not 1 <= number <= size:
        return f"number {number!r} is not a card number from 1 to the series size {size}"
    amount = _spanish_amount(face_value) if isinstance(face_value, str) else None
    if amount is None:
        return (
            f"face_value {face_value!r} is not a positive amount with 2 decimals, at most "
            f"{MAX_FACE_VALUE}, e.g. '1.50'"
        )
    if not isinstance(code, str) or SECURITY_CODE_PATTERN.fullmatch(code) is None:
        return f"code {code!r} is not {SECURITY_CODE_LENGTH} lowercase hex digits"
    strip = record.get("strip")
    if strip is not None and (not _is_whole(strip) or strip < 1):
        return f"strip {strip!r} is not a whole number from 1"
    if not isinstance(grid, list | tuple) or len(grid) != ROWS:
        return "grid must be 3 rows of 9 cells"
    rows = tuple(tuple(row) if isinstance(row, list | tuple) else () for row in grid)
    violations = structure_violations(rows)
    if violations:
        return "grid is not a valid card: " + "; ".join(violations)
    return _Card(series, number, amount, size, rows, code, strip)


class CardRecordError(ValueError):
    """A card record that cannot be printed; `index` is its 1-based position in the input."""

    def __init__(self, message: str, index: int | None) -> None:
        super().__init__(message)
        self.index = index


def check_record(record: Mapping[str, Any], index: int | None) -> None:
    """Raise CardRecordError if the record cannot be printed (as printing would)."""
    _check_record(record, index)


def _check_record(record: Mapping[str, Any], index: int | None) -> _Card:
    card = _card_problem(record)
    if isinstance(card, _Card):
        return card
    where = "card record" if index is None else f"card record {index}"
    if isinstance(record, Mapping):
        known = [
            f"{key} {record[key]!r}"
            for key in ("series", "number")
            if isinstance(record.get(key), str | int)
        ]
        if known:
            where += f" ({', '.join(known)})"
    raise CardRecordError(f"{where}: {card}", index)


# --- QR codes: segno's symbol, with the mask chosen in numpy ---------------------------------

# Error correction per version (1-6) and level: (ec codewords per block, ((blocks, data cw), ...)).
_ECC: dict[int, dict[str, tuple[int, tuple[tuple[int, int], ...]]]] = {
    1: {"M": (10, ((1, 16),)), "Q": (13, ((1, 13),)), "H": (17, ((1, 9),))},
    2: {"M": (16, ((1, 28),)), "Q": (22, ((1, 22),)), "H": (28, ((1, 16),))},
    3: {"M": (26, ((1, 44),)), "Q": (18, ((2, 17),)), "H": (22, ((2, 13),))},
    4: {"M": (18, ((2, 32),)), "Q": (26, ((2, 24),)), "H": (16, ((4, 9),))},
    5: {"M": (24, ((2, 43),)), "Q": (18, ((2, 15), (2, 16))), "H": (22, ((2, 11), (2, 12)))},
    6: {"M": (16, ((4, 27),)), "Q": (24, ((4, 19),)), "H": (28, ((4, 15),))},
}
_LEVEL_BITS = {"L": 0b01, "M": 0b00, "Q": 0b11, "H": 0b10}


def _data_codewords(version: int, level: str) -> int:
    return sum(count * size for count, size in _ECC[version][level][1])


def _gf_tables() -> tuple[list[int], list[int]]:
    exp, log = [0] * 512, [0] * 256
    value = 1
    for power in range(255):
        exp[power], log[value] = value, power
        value <<= 1
        if value & 0x100:
            value ^= 0x11D
    for power in range(255, 512):
        exp[power] = exp[power - 255]
    return exp, log


_GF_EXP, _GF_LOG = _gf_tables()


def _gf_mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _GF_EXP[_GF_LOG[a] + _GF_LOG[b]]


@cache
def _rs_table(degree: int) -> tuple[int, ...]:
    """For each factor f, f x the generator's low coefficients, packed big-endian in an int."""
    generator = [1]
    for power in range(degree):  # multiply by (x - alpha^power)
        root = _GF_EXP[power]
        generator = [
            a ^ _gf_mul(b, root) for a, b in zip([*generator, 0], [0, *generator], strict=True)
        ]
    low = generator[1:]  # generator[0] == 1 (monic)
    return tuple(
        int.from_bytes(bytes(_gf_mul(g, factor) for g in low), "big") for factor in range(256)
    )


def _rs_remainder(block: bytes, degree: int) -> bytes:
    table = _rs_table(degree)
    shift, mask = 8 * (degree - 1), (1 << (8 * degree)) - 1
    remainder = 0
    for byte in block:
        remainder = ((remainder << 8) & mask) ^ table[(remainder >> shift) ^ byte]
    return remainder.to_bytes(degree, "big")


def _format_bits(level: str, mask: int) -> int:
    data = (_LEVEL_BITS[level] << 3) | mask
    value = data << 10
    for bit in range(14, 9, -1):
        if value & (1 << bit):
            value ^= 0x537 << (bit - 10)
    return ((data << 10) | value) ^ 0x5412


@dataclass(frozen=True)
class _QrVersion:
    size: int
    base: np.ndarray  # (size * size,) uint8: function patterns, format areas 0
    data_index: np.ndarray  # flat indices of the data modules, in placement order
    mask_bits: np.ndarray  # (8, len(data_index)) uint8
    format_index: np.ndarray  # flat indices: format copies, then the dark module
    format_values: dict[str, np.ndarray]  # level -> (8, len(format_index)) uint8
    mask_lines: np.ndarray  # (8, 2 * size) bitboards of the function patterns and each mask
    weights: np.ndarray  # (size,) uint64: the bit of module k of a line
    runs: list[str]  # [(row * chunks + chunk) * 256 + byte] -> rectangles of those 8 modules


@cache
def _qr_version(version: int) -> _QrVersion:
    size = 17 + 4 * version
    matrix = np.zeros((size, size), np.uint8)
    function = np.zeros((size, size), bool)
    finder = np.zeros((7, 7), np.uint8)
    finder[:, :], finder[1:6, 1:6], finder[2:5, 2:5] = 1, 0, 1
    for top, left in ((0, 0), (0, size - 7), (size - 7, 0)):
        matrix[top : top + 7, left : left + 7] = finder
        function[max(top - 1, 0) : top + 8, max(left - 1, 0) : left + 8] = True  # + separators
    timing = (np.arange(8, size - 8) % 2 == 0).astype(np.uint8)
    matrix[6, 8 : size - 8], matrix[8 : size - 8, 6] = timing, timing
    function[6, :], function[:, 6] = True, True
    if version >= 2:  # versions 2-6 have one alignment pattern, centred at (size-7, size-7)
        centre = size - 7
        matrix[centre - 2 : centre + 3, centre - 2 : centre + 3] = 1
        matrix[centre - 1 : centre + 2, centre - 1 : centre + 2] = 0
        matrix[centre, centre] = 1
        function[centre - 2 : centre + 3, centre - 2 : centre + 3] = True
    # Format information (bit k of the 15) in both copies, and the dark module.
    vertical = [(row, 8) for row in (0, 1, 2, 3, 4, 5, 7, 8)]  # bits 0-7
    horizontal = [(8, col) for col in (0, 1, 2, 3, 4, 5, 7)]  # bits 14-8
    right = [(8, size - 1 - k) for k in range(8)]  # bits 0-7
    bottom = [(size - 1 - k, 8) for k in range(7)]  # bits 14-8
    cells = [*vertical, *horizontal, *right, *bottom, (size - 8, 8)]
    bits = [*range(8), *range(14, 7, -1), *range(8), *range(14, 7, -1), None]
    for row, col in cells:
        function[row, col] = True
    format_index = np.array([row * size + col for row, col in cells], np.intp)
    format_values = {
        level: np.array(
            [
                [1 if bit is None else (_format_bits(level, mask) >> bit) & 1 for bit in bits]
                for mask in range(8)
            ],
            np.uint8,
        )
        for level in _LEVEL_BITS
    }
    # Data placement: two-module columns from the right, alternately up and down, skipping
    # the vertical timing column.
    order: list[int] = []
    upward, col = True, size - 1
    while col > 0:
        if col == 6:
            col -= 1
        for row in range(size - 1, -1, -1) if upward else range(size):
            for c in (col, col - 1):
                if not function[row, c]:
                    order.append(row * size + c)
        upward, col = not upward, col - 2
    data_index = np.array(order, np.intp)
    i, j = np.divmod(data_index, size)
    ij = i * j
    masks = (
        (i + j) % 2 == 0,
        i % 2 == 0,
        j % 3 == 0,
        (i + j) % 3 == 0,
        (i // 2 + j // 3) % 2 == 0,
        ij % 2 + ij % 3 == 0,
        (ij % 2 + ij % 3) % 2 == 0,
        ((i + j) % 2 + ij % 3) % 2 == 0,
    )
    mask_bits = np.array(masks, np.uint8)
    masked = np.tile(matrix.ravel(), (8, 1))
    masked[:, data_index] ^= mask_bits
    mask_lines = _bitboards(masked.reshape(8, size, size))
    weights = np.array([1 << (size + 3 - k) for k in range(size)], np.uint64)
    return _QrVersion(
        size,
        matrix.ravel(),
        data_index,
        mask_bits,
        format_index,
        format_values,
        mask_lines,
        weights,
        _run_table(size),
    )


def _run_table(size: int) -> list[str]:
    """PDF rectangles (module units, y up) of the dark runs in 8 modules of a row, for every
    row, 8-module chunk and byte of those modules (most significant bit first)."""
    table = []
    for row in range(size):
        y = size - 1 - row
        for chunk in range((size + 7) // 8):
            for byte in range(256):
                rects, column = [], 0
                while column < 8:
                    if byte >> (7 - column) & 1:
                        start = column
                        while column < 8 and byte >> (7 - column) & 1:
                            column += 1
                        rects.append(f"{8 * chunk + start} {y} {column - start} 1 re ")
                    else:
                        column += 1
                table.append("".join(rects))
    return table


def _choose_version(length: int) -> tuple[int, str]:
    """The smallest version holding `length` bytes at level M, then the highest level it fits."""
    for version in _ECC:
        if _data_codewords(version, "M") - 2 >= length:
            level = "M"
            for better in ("Q", "H"):
                if _data_codewords(version, better) - 2 >= length:
                    level = better
            return version, level
    raise ValueError(f"a {length}-byte QR payload is too long for a printed card")


def _codewords(payload: bytes, version: int, level: str) -> bytes:
    """Data (byte mode) and error-correction codewords, interleaved."""
    capacity = _data_codewords(version, level)
    length = len(payload)
    stream = ((((0b0100 << 8) | length) << (8 * length)) | int.from_bytes(payload, "big")) << 4
    # The stream ends on a byte boundary after the 4-bit terminator; segno still adds a zero
    # byte of "padding bits" before the pad codewords (decoders stop at the terminator), and
    # so do we, to build exactly its symbol.
    data = stream.to_bytes(length + 2, "big") + b"\x00" + b"\xec\x11" * capacity
    data = data[:capacity]
    degree, groups = _ECC[version][level]
    blocks: list[bytes] = []
    start = 0
    for count, block_size in groups:
        for _ in range(count):
            blocks.append(data[start : start + block_size])
            start += block_size
    if len(blocks) == 1:
        return data + _rs_remainder(data, degree)
    longest = max(len(block) for block in blocks)
    interleaved = bytearray(block[k] for k in range(longest) for block in blocks if k < len(block))
    parity = [_rs_remainder(block, degree) for block in blocks]
    interleaved += bytes(p[k] for k in range(degree) for p in parity)
    return bytes(interleaved)


_SHIFT = [np.uint64(k) for k in range(8)]


def _bitboards(cube: np.ndarray) -> np.ndarray:
    """Each row, then each column, of each candidate as a uint64: module k of a line at bit
    size + 3 - k, so that 4 light (zero) bits lie beyond both ends of the line."""
    count, size, _ = cube.shape
    packed = np.zeros((count, 2 * size, 8), np.uint8)
    width = (size + 7) // 8
    packed[:, :size, :width] = np.packbits(cube, axis=2)
    packed[:, size:, :width] = np.packbits(cube, axis=1).transpose(0, 2, 1)
    return packed.view(">u8")[:, :, 0].astype(np.uint64) >> np.uint64(60 - size)


def _popcount(bits: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bits).sum(axis=-1, dtype=np.int64)


def _mask_penalties(lines: np.ndarray, size: int) -> np.ndarray:
    """ISO/IEC 18004 penalty (N1-N4) of each candidate, counted as segno does.

    `lines`: (candidates, 2 * size) bitboards, the rows then the columns (see `_bitboards`).
    """
    s1, s2, s3, s4, s5, s6, s7 = _SHIFT[1:8]
    pairs = np.uint64(((1 << (size - 1)) - 1) << 4)  # bit b: modules b and b + 1 both inside
    # N1: a run of 5 + i modules of one colour in a row or column scores 3 + i, that is one
    # point per 5-module window in the run plus 2 for the run.
    same = ~(lines ^ (lines >> s1)) & pairs
    five = same & (same >> s1) & (same >> s2) & (same >> s3)
    n1 = _popcount(five) + 2 * _popcount(five & ~(same >> s4))
    # N2: each 2 x 2 block of one colour scores 3.
    rows = lines[:, :size]
    vertical = ~(rows[:, :-1] ^ rows[:, 1:])
    horizontal = ~(rows[:, :-1] ^ (rows[:, :-1] >> s1))
    n2 = 3 * _popcount(vertical & (vertical >> s1) & horizontal & pairs)
    # N3: dark light dark dark dark light dark with 4 light modules before or after it (the
    # quiet zone counts as light) scores 40. Bit b of `found`: such a pattern's last module.
    x1, x2, x3 = lines >> s1, lines >> s2, lines >> s3
    core = lines & ~x1 & x2 & x3 & (lines >> s4) & ~(lines >> s5) & (lines >> s6)
    light = ~(lines | x1 | x2 | x3)  # bit b: modules at bits b..b+3 all light
    found = core & ((light >> s7) | (light << s4))
    patterns = np.bitwise_count(found)
    # segno resumes its scan 7 modules after a pattern it counted: a second pattern 4 or 6
    # modules on (they share modules) is then not counted. Rare; count those lines one by one.
    close = (found & (found >> s4)) | (found & (found >> s6))
    for candidate, line in np.argwhere(close).tolist():
        bits, counted, resume = int(found[candidate, line]), 0, 64
        while bits:  # along the line: from high bits to low
            bit = bits.bit_length() - 1
            bits ^= 1 << bit
            if bit <= resume:
                counted, resume = counted + 1, bit - 7
        patterns[candidate, line] = counted
    n3 = 40 * patterns.sum(axis=1, dtype=np.int64)
    # N4: 10 for every full 5 % the dark share is away from 50 %.
    dark = _popcount(rows)
    n4 = [10 * int(abs(float(d) / size**2 * 100 - 50) / 5) for d in dark.tolist()]
    return n1 + n2 + n3 + np.array(n4)


def qr_matrix(text: str) -> np.ndarray:
    """The modules (1 = dark, no quiet zone) of the QR code `segno.make(text, error="m")` makes
    when that is not a Micro QR code (texts of 21+ bytes never are).

    Byte mode (ISO-8859-1), the smallest version for level M, the error level raised while the
    version allows, and the mask with the lowest penalty; computed with numpy, >10x faster.
    """
    return _qr_symbol(text)[0]


def _qr_symbol(text: str) -> tuple[np.ndarray, _QrVersion]:
    payload = text.encode("iso-8859-1")
    version, level = _choose_version(len(payload))
    spec = _qr_version(version)
    size = spec.size
    bits = np.zeros(len(spec.data_index), np.uint8)  # with the remainder bits
    codewords = np.unpackbits(np.frombuffer(_codewords(payload, version, level), np.uint8))
    bits[: len(codewords)] = codewords
    # The bitboards of a masked candidate are those of the function patterns and the mask,
    # XOR those of the unmasked data (one row or column word is a sum of distinct bits).
    data = np.zeros(size * size, np.uint64)
    data[spec.data_index] = bits
    data = data.reshape(size, size)
    lines = spec.mask_lines ^ np.concatenate((data @ spec.weights, spec.weights @ data))
    best = int(np.argmin(_mask_penalties(lines, size)))
    symbol = spec.base.copy()
    symbol[spec.data_index] = bits ^ spec.mask_bits[best]
    symbol[spec.format_index] = spec.format_values[level][best]
    return symbol.reshape(size, size), spec


def _qr_path(modules: np.ndarray, spec: _QrVersion) -> str:
    """The dark modules as PDF rectangles (module units, y up) for one filled path."""
    packed = np.packbits(modules, axis=1).ravel().tolist()
    runs = spec.runs
    return "".join([runs[(k << 8) | byte] for k, byte in enumerate(packed) if byte])


# --- the page layout (points; origin at the bottom left of the page) -------------------------

PAGE_WIDTH, PAGE_HEIGHT = A4
MARGIN, GUTTER = 20.0, 18.0
CARD_WIDTH = (PAGE_WIDTH - 2 * MARGIN - (PAGE_COLUMNS - 1) * GUTTER) / PAGE_COLUMNS
CARD_HEIGHT = (PAGE_HEIGHT - 2 * MARGIN - (PAGE_ROWS - 1) * GUTTER) / PAGE_ROWS
PAD = 9.0
HEADER_HEIGHT = 30.0
CELL_WIDTH = (CARD_WIDTH - 2 * PAD) / COLUMNS
CELL_HEIGHT = 34.0
QR_BOX = 104.0  # side of the QR code with its 4-module quiet zone

INK = "0.11 0.11 0.13"  # near-black for numbers and text
THEME = "0.70 0.10 0.16"  # bingo red: header band, frame
TINT = "0.96 0.85 0.85"  # blank cells
MOTIF = "0.89 0.67 0.69"  # the diamond in a blank cell
MUTED = "0.38 0.38 0.40"

NUMBER_FONT_SIZE = 18.0
HEADER_FONT_SIZE = 13.0
DIGIT_WIDTH = 0.556  # every digit of Helvetica and Helvetica-Bold is 556/1000 em wide


def _literal(text: str) -> str:
    """A PDF string literal for the standard fonts (WinAnsi encoding)."""
    out = []
    for byte in text.encode("cp1252"):
        char = chr(byte)
        out.append(char if 32 <= byte < 127 and char not in "()\\" else f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


def _f(value: float) -> str:
    return f"{value:.2f}"


def _rect(x: float, y: float, w: float, h: float) -> str:
    return f"{_f(x)} {_f(y)} {_f(w)} {_f(h)} re"


def _origin(slot: int) -> tuple[float, float]:
    """Bottom-left corner of the card in `slot` (0 = top left, left to right, top to bottom)."""
    column, row = slot % PAGE_COLUMNS, slot // PAGE_COLUMNS
    x = MARGIN + column * (CARD_WIDTH + GUTTER)
    y = PAGE_HEIGHT - MARGIN - (row + 1) * CARD_HEIGHT - row * GUTTER
    return x, y


class _Layout:
    """Everything about a card's drawing that does not depend on the card, as PDF text."""

    def __init__(self, fonts: dict[str, str]) -> None:
        self.regular, self.bold = fonts["Helvetica"], fonts["Helvetica-Bold"]
        self.cut_guides = self._cut_guides()
        self.frames: list[str] = []
        self.blank_cells: list[list[str]] = []  # [slot][row * 9 + column] -> "x y w h re"
        self.motifs: list[list[str]] = []  # [slot][row * 9 + column] -> diamond path
        self.number_at: list[list[tuple[str, str]]] = []  # [slot][cell] -> (1 digit, 2 digits)
        self.places: list[dict[str, float]] = []
        for slot in range(CARDS_PER_PAGE):
            x, y = _origin(slot)
            top = y + CARD_HEIGHT
            grid_top = top - HEADER_HEIGHT - PAD
            grid_bottom = grid_top - ROWS * CELL_HEIGHT
            left = x + PAD
            cells, motifs, numbers = [], [], []
            for row in range(ROWS):
                cell_y = grid_top - (row + 1) * CELL_HEIGHT
                baseline = cell_y + (CELL_HEIGHT - 0.718 * NUMBER_FONT_SIZE) / 2
                for column in range(COLUMNS):
                    cell_x = left + column * CELL_WIDTH
                    cells.append(_rect(cell_x, cell_y, CELL_WIDTH, CELL_HEIGHT))
                    centre, middle = cell_x + CELL_WIDTH / 2, cell_y + CELL_HEIGHT / 2
                    dx, dy = CELL_WIDTH * 0.22, CELL_HEIGHT * 0.22
                    cx, cy, high, low = _f(centre), _f(middle), _f(middle + dy), _f(middle - dy)
                    motifs.append(
                        f"{cx} {high} m {_f(centre + dx)} {cy} l {cx} {low} l "
                        f"{_f(centre - dx)} {cy} l h"
                    )
                    one, two = (
                        f"1 0 0 1 {_f(centre - digits * DIGIT_WIDTH * NUMBER_FONT_SIZE / 2)} "
                        f"{_f(baseline)} Tm ("
                        for digits in (1, 2)
                    )
                    numbers.append((one, two))
            self.blank_cells.append(cells)
            self.motifs.append(motifs)
            self.number_at.append(numbers)
            qr_x = x + CARD_WIDTH - PAD - QR_BOX + 4
            qr_y = y + (grid_bottom - y - QR_BOX) / 2
            self.places.append(
                {
                    "left": left,
                    "right": x + CARD_WIDTH - PAD,
                    "header": top - HEADER_HEIGHT + (HEADER_HEIGHT - 0.718 * HEADER_FONT_SIZE) / 2,
                    "qr_x": qr_x,
                    "qr_y": qr_y,
                    "footer_top": grid_bottom,
                }
            )
            self.frames.append(self._frame(x, y, grid_top, grid_bottom, left))

    def _frame(self, x: float, y: float, grid_top: float, grid_bottom: float, left: float) -> str:
        """Header band, grid lines, card border and the fixed labels of one card slot."""
        top = y + CARD_HEIGHT
        grid_width = COLUMNS * CELL_WIDTH
        inner = [
            f"{_f(left + k * CELL_WIDTH)} {_f(grid_bottom)} m "
            f"{_f(left + k * CELL_WIDTH)} {_f(grid_top)} l"
            for k in range(1, COLUMNS)
        ] + [
            f"{_f(left)} {_f(grid_top - k * CELL_HEIGHT)} m "
            f"{_f(left + grid_width)} {_f(grid_top - k * CELL_HEIGHT)} l"
            for k in range(1, ROWS)
        ]
        footer_y = grid_bottom - PAD
        return " ".join(
            [
                "q",
                f"{THEME} rg {_rect(x, top - HEADER_HEIGHT, CARD_WIDTH, HEADER_HEIGHT)} f",
                f"{THEME} RG 0.7 w {' '.join(inner)} S",
                f"1.6 w {_rect(left, grid_bottom, grid_width, grid_top - grid_bottom)} S",
                f"1.2 w {_rect(x, y, CARD_WIDTH, CARD_HEIGHT)} S",
                "BT",
                f"{self.regular} 7 Tf {MUTED} rg",
                f"1 0 0 1 {_f(left)} {_f(footer_y - 58)} Tm {_literal('Código de seguridad')} Tj",
                f"{self.regular} 6.5 Tf",
                f"1 0 0 1 {_f(left)} {_f(y + PAD)} Tm "
                f"{_literal('Válido para una sola partida')} Tj",
                "ET",
                "Q",
            ]
        )

    @staticmethod
    def _cut_guides() -> str:
        """Dashed cutting lines in the middle of the gutters, across the page."""
        lines = []
        for column in range(1, PAGE_COLUMNS):
            x = MARGIN + column * (CARD_WIDTH + GUTTER) - GUTTER / 2
            lines.append(f"{_f(x)} {_f(MARGIN / 2)} m {_f(x)} {_f(PAGE_HEIGHT - MARGIN / 2)} l")
        for row in range(1, PAGE_ROWS):
            y = PAGE_HEIGHT - MARGIN - row * (CARD_HEIGHT + GUTTER) + GUTTER / 2
            lines.append(f"{_f(MARGIN / 2)} {_f(y)} m {_f(PAGE_WIDTH - MARGIN / 2)} {_f(y)} l")
        return f"q 0.6 G 0.5 w [4 3] 0 d {' '.join(lines)} S Q"


def _font_operators(canvas: Canvas) -> dict[str, str]:
    """The canvas's resource names for the two fonts (registering them with the document)."""
    names = {}
    for font in ("Helvetica", "Helvetica-Bold"):
        text = canvas.beginText()
        text.setFont(font, 10)
        match = re.search(r"(/\S+) 10 Tf", text.getCode())
        if match is None:  # pragma: no cover - reportlab changed its output
            raise RuntimeError(f"cannot find reportlab's resource name for {font}")
        names[font] = match[1]
    return names


class _Printer:
    def __init__(self, canvas: Canvas, draw_qr: bool = True) -> None:
        self.canvas = canvas
        self.draw_qr = draw_qr
        self.layout = _Layout(_font_operators(canvas))
        self.number_label_width = stringWidth("Cartón nº ", "Helvetica-Bold", HEADER_FONT_SIZE)
        self.page = 0

    def card(self, card: _Card, slot: int) -> None:
        layout, add = self.layout, self.canvas.addLiteral
        if slot == 0:
            self.page += 1
            add(layout.cut_guides)
            label = f"Hoja {self.page}"
            width = stringWidth(label, "Helvetica", 7)
            add(
                f"BT {layout.regular} 7 Tf 0.5 g 1 0 0 1 {_f(PAGE_WIDTH - MARGIN - width)} "
                f"{_f(MARGIN / 2 - 3)} Tm ({label}) Tj ET"
            )
        places = layout.places[slot]
        blanks, motifs = layout.blank_cells[slot], layout.motifs[slot]
        at = layout.number_at[slot]
        grid = card.grid
        cells = [value for row in grid for value in row]
        empty = [k for k, value in enumerate(cells) if value == 0]
        shaded = " ".join([blanks[k] for k in empty])
        diamonds = " ".join([motifs[k] for k in empty])
        numbers = " ".join(
            f"{at[k][value >= 10]}{value}) Tj" for k, value in enumerate(cells) if value
        )
        number_text = f"Cartón nº {card.number}"
        number_width = (
            self.number_label_width + len(str(card.number)) * DIGIT_WIDTH * HEADER_FONT_SIZE
        )
        left, footer = places["left"], places["footer_top"] - PAD
        lines = [
            f"{TINT} rg {shaded} f {MOTIF} rg {diamonds} f",
            layout.frames[slot],
            f"BT {layout.bold} {HEADER_FONT_SIZE} Tf 1 g",
            f"1 0 0 1 {_f(left)} {_f(places['header'])} Tm (Serie {card.series}) Tj",
            f"1 0 0 1 {_f(places['right'] - number_width)} {_f(places['header'])} Tm "
            f"{_literal(number_text)} Tj",
            f"{layout.bold} {NUMBER_FONT_SIZE} Tf {INK} rg {numbers}",
            f"{layout.bold} 14 Tf 1 0 0 1 {_f(left)} {_f(footer - 14)} Tm "
            f"(Valor facial {card.face_value} \\200) Tj",
            f"{layout.regular} 10 Tf 1 0 0 1 {_f(left)} {_f(footer - 31)} Tm "
            f"(Serie de {card.series_size} cartones) Tj",
        ]
        if card.strip is not None:
            lines.append(f"1 0 0 1 {_f(left)} {_f(footer - 45)} Tm (Tira n\\272 {card.strip}) Tj")
        lines.append(
            f"{layout.bold} 13 Tf 1 0 0 1 {_f(left)} {_f(footer - 74)} Tm ({card.code}) Tj ET"
        )
        if self.draw_qr:
            payload = f"{QR_PREFIX}|{card.series}|{card.number}|{card.code}"
            modules, spec = _qr_symbol(payload)
            module = QR_BOX / (modules.shape[0] + 8)
            lines.append(
                f"q {module:.4f} 0 0 {module:.4f} {_f(places['qr_x'] + 4 * module)} "
                f"{_f(places['qr_y'] + 4 * module)} cm {INK} rg {_qr_path(modules, spec)}f Q"
            )
        add("\n".join(lines))


def print_cards(
    records: Iterable[Mapping[str, Any]],
    out: pathlib.Path,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Print the cards to an A4 PDF at `out`; returns how many cards were printed.

    Records are read one at a time from `records` (an iterator over a JSONL file is fine).
    `progress(n)` is called after each card with the number of cards just printed (1): an
    increment, as `tqdm.update` takes it and `files.write_series` reports it.
    A bad record raises `CardRecordError` (a ValueError) naming its 1-based position in the
    input and its series and number; so does an empty input. The PDF is written to a temporary
    file beside `out` and renamed over it at the end: on any error `out` is left as it was.

    Memory: reportlab builds the whole document in memory before writing it; the peak grows
    by about 16 kB per card (500 MB for 30,000 cards), so very large series are best printed
    in several files.
    """
    return _print(records, pathlib.Path(out), progress)


def _print(
    records: Iterable[Mapping[str, Any]],
    out: pathlib.Path,
    progress: Callable[[int], None] | None = None,
    *,
    draw_qr: bool = True,
    compress: bool = False,
) -> int:
    out = pathlib.Path(out)
    fd, temp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    temp = pathlib.Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            # invariant: no clock in the file, so a batch printed again is the same bytes, and its
            # hash, kept with the series, checks a print
            canvas = Canvas(handle, pagesize=A4, pageCompression=int(compress), invariant=1)
            printer = _Printer(canvas, draw_qr=draw_qr)
            count, first, last = 0, None, None
            series_seen: list[str] = []  # the first few, for the document's metadata
            for index, record in enumerate(records, start=1):
                card = _check_record(record, index)
                slot = count % CARDS_PER_PAGE
                if slot == 0 and count:
                    canvas.showPage()
                printer.card(card, slot)
                count += 1
                last = card
                if first is None:
                    first = card
                if card.series not in series_seen and len(series_seen) <= _LISTED_SERIES:
                    series_seen.append(card.series)
                if progress is not None:
                    progress(1)
            if first is None or last is None:
                raise ValueError("no card records to print")
            _metadata(canvas, series_seen, first, last, count)
            canvas.showPage()
            canvas.save()
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # mkstemp makes 0600; a printed series is a normal file
        os.replace(temp, out)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    return count


def _metadata(canvas: Canvas, series: list[str], first: _Card, last: _Card, count: int) -> None:
    if len(series) == 1:
        title = f"Cartones de bingo, serie {series[0]}"
        subject = (
            f"Cartones de bingo serie {series[0]}: {count} cartones "
            f"(nº {first.number} a {last.number}) de una serie de {first.series_size}, "
            f"valor facial {first.face_value} €"
        )
    else:
        listed = ", ".join(series[:_LISTED_SERIES]) + (
            ", …" if len(series) > _LISTED_SERIES else ""
        )
        title = f"Cartones de bingo, series {listed}"
        subject = f"Cartones de bingo series {listed}: {count} cartones"
    canvas.setTitle(title)
    canvas.setSubject(subject)
    canvas.setAuthor("bingo-hall")
    canvas.setCreator("bingo-hall card_generator.printing")
    canvas.setKeywords(["bingo", "cartones", *series[:_LISTED_SERIES]])
