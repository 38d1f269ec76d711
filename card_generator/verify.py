"""Checks a card file: every card rule, the series fields, numbering, strips and uniqueness.

Streams the file; holds only the rank (8 bytes) and number of each card, so a file of ten
million cards is checked in bounded memory.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from bingo_hall.domain.cards import card_violations
from card_generator.ranking import rank
from card_generator.series import (
    MAX_FACE_VALUE,
    SECURITY_CODE_LENGTH,
    SECURITY_CODE_PATTERN,
    SERIES_ID_PATTERN,
    STRIP_SIZE,
    security_code,
)

FACE_VALUE = re.compile(r"[0-9]+\.[0-9]{2}")  # fullmatch: "$" would let a final newline by
FIELDS = ("series", "number", "face_value", "series_size", "grid", "code")


@dataclass(frozen=True)
class Problem:
    line: int
    card: str  # "A17-37", or "-" when the record could not be read
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"line {self.line}, card {self.card}: {self.rule}: {self.detail}"


@dataclass
class Verification:
    """The outcome: problems found and what was checked."""

    cards: int = 0
    problems: list[Problem] = field(default_factory=list)
    series: str | None = None
    size: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def problems_said(count: int) -> str:
    """ "1 problem", "3 problems": how the commands count what verification found."""
    return f"{count} problem{'' if count == 1 else 's'}"


def verify_records(
    records: Iterable[tuple[int, dict[str, Any] | str]], seed: bytes | None = None
) -> Iterator[Problem]:
    """Every problem of the cards, in file order, then the file-level ones."""
    checker = _Checker(seed)
    for line, record in records:
        yield from checker.check(line, record)
    yield from checker.finish()


class _Checker:
    def __init__(self, seed: bytes | None) -> None:
        self.seed = seed
        self.header: tuple[str, str, int] | None = None
        self.ranks = array("Q")  # compact: 8 bytes a card
        self.numbers = array("q")
        self.lines = array("q")
        self.strips: dict[int, list[tuple[int, frozenset[int]]]] = {}
        self.count = 0

    def check(self, line: int, record: dict[str, Any] | str) -> Iterator[Problem]:
        self.count += 1
        if isinstance(record, str):
            yield Problem(line, "-", "format", record)
            return
        missing = [name for name in FIELDS if name not in record]
        if missing:
            yield Problem(line, _label(record), "format", f"missing {', '.join(missing)}")
            return
        label = _label(record)
        field_problems = list(self._fields(line, label, record))
        yield from field_problems
        grid = record["grid"]
        violations = card_violations(grid)
        for violation in violations:
            rule, _, detail = violation.partition(": ")
            yield Problem(line, label, rule, detail)
        number = record["number"]
        if violations or field_problems or not isinstance(number, int):
            return  # a card already found wrong is not ranked, numbered or coded
        if self.numbers and number < self.numbers[-1]:
            yield Problem(
                line, label, "numbering", f"out of order: after card no. {self.numbers[-1]}"
            )
        self.ranks.append(rank(grid))
        self.numbers.append(number)
        self.lines.append(line)
        if self.seed is not None:
            cells = bytes(cell for row in grid for cell in row)
            if security_code(self.seed, record["series"], number, cells) != record["code"]:
                yield Problem(line, label, "security-code", "does not match the series seed")
        if "strip" in record:
            yield from self._strip(line, label, record)

    def _fields(self, line: int, label: str, record: dict[str, Any]) -> Iterator[Problem]:
        series, number, size = record["series"], record["number"], record["series_size"]
        face_value = record["face_value"]
        if not isinstance(series, str) or not SERIES_ID_PATTERN.fullmatch(series):
            yield Problem(line, label, "series-id", f"{series!r} is not a letter and a number")
        if not isinstance(face_value, str) or not FACE_VALUE.fullmatch(face_value):
            yield Problem(line, label, "face-value", f"{face_value!r} is not an amount like 1.50")
        elif _amount(face_value) <= 0:
            yield Problem(line, label, "face-value", f"{face_value} is not positive")
        elif _amount(face_value) > MAX_FACE_VALUE:
            yield Problem(line, label, "face-value", f"{face_value} is over {MAX_FACE_VALUE}")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            yield Problem(line, label, "series-size", f"{size!r} is not a positive whole number")
        elif isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= size:
            yield Problem(line, label, "numbering", f"card number {number!r} is not 1..{size}")
        code = record["code"]
        if not isinstance(code, str) or not SECURITY_CODE_PATTERN.fullmatch(code):
            yield Problem(
                line,
                label,
                "security-code",
                f"{code!r} is not {SECURITY_CODE_LENGTH} lowercase hexadecimal digits",
            )
        header = (series, face_value, size)
        if self.header is None:
            self.header = header
        elif header != self.header:
            yield Problem(
                line,
                label,
                "series",
                f"series, face value and size {header} differ from the first card's {self.header}",
            )

    def _strip(self, line: int, label: str, record: dict[str, Any]) -> Iterator[Problem]:
        strip, number = record["strip"], record["number"]
        if strip != (number + STRIP_SIZE - 1) // STRIP_SIZE:
            yield Problem(line, label, "strip", f"card {number} cannot be in strip {strip}")
            return
        numbers = frozenset(cell for row in record["grid"] for cell in row if cell)
        members = self.strips.setdefault(strip, [])
        members.append((line, numbers))
        if len(members) == STRIP_SIZE:
            union = frozenset().union(*(n for _, n in members))
            if len(union) != 90 or sum(len(n) for _, n in members) != 90:
                missing = sorted(set(range(1, 91)) - union)
                yield Problem(
                    line,
                    label,
                    "strip",
                    f"strip {strip} does not hold 1-90 exactly once (missing {missing})",
                )
            del self.strips[strip]

    def finish(self) -> Iterator[Problem]:
        for strip, members in self.strips.items():
            yield Problem(
                members[-1][0], "-", "strip", f"strip {strip} holds {len(members)} cards, not 6"
            )
        if not self.ranks:
            if self.count == 0:
                yield Problem(0, "-", "series", "the file holds no card")
            return
        yield from self._duplicates()
        numbers = np.frombuffer(self.numbers, dtype=np.int64)
        ordered = np.sort(numbers)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        for number in np.unique(repeated)[:20].tolist():
            yield Problem(0, f"{self.header[0]}-{number}", "numbering", "number used twice")
        size = self.header[2] if self.header else None
        if (
            isinstance(size, int)
            and self.count == len(self.ranks)
            and (self.count != size or ordered[0] != 1 or ordered[-1] != size)
        ):
            yield Problem(
                0,
                "-",
                "series",
                f"the file holds {self.count} cards numbered {ordered[0]}..{ordered[-1]} of a "
                f"series of {size}",
            )

    def _duplicates(self) -> Iterator[Problem]:
        ranks = np.frombuffer(self.ranks, dtype=np.uint64)
        order = np.argsort(ranks, kind="stable")
        same = np.flatnonzero(ranks[order][1:] == ranks[order][:-1])
        series = self.header[0] if self.header else "?"
        for index in same.tolist():
            first, again = order[index], order[index + 1]
            yield Problem(
                self.lines[again],
                f"{series}-{self.numbers[again]}",
                "unique",
                f"same card as no. {self.numbers[first]} (line {self.lines[first]})",
            )


def _label(record: dict[str, Any]) -> str:
    return f"{record.get('series', '?')}-{record.get('number', '?')}"


def _amount(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        return Decimal(0)
