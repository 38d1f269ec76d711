"""Bingo cards: the legal structure (R1-R4) and the Spanish layout profile (C1-C2).

A card is a 3 x 9 grid, 0 for a blank cell. Every broken rule is reported by name:

- R1 fifteen-distinct-numbers: 15 numbers, all different, each from 1 to 90.
- R2 three-by-nine-grid: 3 rows (the lines) of 9 cells.
- R3 five-per-row: every row holds exactly 5 numbers.
- R4 one-to-three-per-column: every column holds 1, 2 or 3 numbers, never none.
- C1 column-ranges: column 1 holds 1-9, columns 2-8 hold 10(k-1)..10(k-1)+9, column 9 80-90.
- C2 ascending-columns: numbers go up from top to bottom in each column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from bingo_hall.domain.errors import InvalidCard

ROWS, COLUMNS, NUMBERS_PER_CARD, NUMBERS_PER_ROW = 3, 9, 15, 5
ROW_NAMES = ("superior", "central", "inferior")

R1 = "R1 fifteen-distinct-numbers"
R2 = "R2 three-by-nine-grid"
R3 = "R3 five-per-row"
R4 = "R4 one-to-three-per-column"
C1 = "C1 column-ranges"
C2 = "C2 ascending-columns"

Grid = tuple[tuple[int, ...], ...]


def column_range(column: int) -> range:
    """The numbers the Spanish layout allows in a column (0-based)."""
    if column == 0:
        return range(1, 10)
    if column == COLUMNS - 1:
        return range(80, 91)
    return range(10 * column, 10 * column + 10)


def column_of(number: int) -> int:
    """The column (0-based) where the Spanish layout puts a number."""
    return min(number // 10, COLUMNS - 1)


def structure_violations(grid: Sequence[Sequence[object]]) -> list[str]:
    """The legal rules R1-R4 this grid breaks, each as 'rule: detail'."""
    if (
        not isinstance(grid, Sequence)
        or len(grid) != ROWS
        or any(not isinstance(row, Sequence) or len(row) != COLUMNS for row in grid)
    ):
        return [f"{R2}: the card must have 3 rows of 9 cells"]
    cells = [cell for row in grid for cell in row]
    if any(not isinstance(cell, int) or isinstance(cell, bool) for cell in cells):
        return [f"{R2}: every cell must be a whole number (0 for blank)"]
    violations: list[str] = []
    numbers = [cell for cell in cells if cell != 0]
    out_of_range = sorted({n for n in numbers if not 1 <= n <= 90})
    if out_of_range:
        violations.append(f"{R1}: numbers outside 1-90: {out_of_range}")
    if len(numbers) != NUMBERS_PER_CARD:
        violations.append(f"{R1}: the card holds {len(numbers)} numbers, not 15")
    repeated = sorted({n for n in numbers if numbers.count(n) > 1})
    if repeated:
        violations.append(f"{R1}: numbers repeated: {repeated}")
    for index, row in enumerate(grid):
        count = sum(1 for cell in row if cell != 0)
        if count != NUMBERS_PER_ROW:
            violations.append(f"{R3}: row {index + 1} holds {count} numbers, not 5")
    for column in range(COLUMNS):
        count = sum(1 for row in grid if row[column] != 0)
        if not 1 <= count <= 3:
            violations.append(f"{R4}: column {column + 1} holds {count} numbers")
    return violations


def layout_violations(grid: Sequence[Sequence[int]]) -> list[str]:
    """The Spanish layout rules C1-C2 this (well-shaped) grid breaks."""
    violations: list[str] = []
    for column in range(COLUMNS):
        allowed = column_range(column)
        values = [row[column] for row in grid if row[column] != 0]
        strays = [n for n in values if n not in allowed]
        if strays:
            violations.append(
                f"{C1}: column {column + 1} must hold {allowed.start}-{allowed.stop - 1}, "
                f"holds {strays}"
            )
        if any(a >= b for a, b in pairwise(values)):
            violations.append(f"{C2}: column {column + 1} is not ascending top to bottom")
    return violations


def card_violations(grid: Sequence[Sequence[object]], spanish_layout: bool = True) -> list[str]:
    """Every rule the grid breaks; the layout rules only when the structure is sound."""
    violations = structure_violations(grid)
    if spanish_layout and not any(v.startswith(R2) for v in violations):
        violations += layout_violations(grid)  # type: ignore[arg-type]
    return violations


@dataclass(frozen=True, slots=True)
class Card:
    """A valid card. Build it with `Card.from_grid`, which checks every rule."""

    grid: Grid

    @classmethod
    def from_grid(cls, grid: Sequence[Sequence[object]], spanish_layout: bool = True) -> Card:
        violations = card_violations(grid, spanish_layout)
        if violations:
            raise InvalidCard(violations)
        return cls(tuple(tuple(int(c) for c in row) for row in grid))  # type: ignore[arg-type]

    @property
    def rows(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(c for c in row if c) for row in self.grid)

    @property
    def numbers(self) -> frozenset[int]:
        return frozenset(c for row in self.grid for c in row if c)

    def as_lists(self) -> list[list[int]]:
        return [list(row) for row in self.grid]
