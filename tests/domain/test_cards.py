"""Card validation names every broken rule: R1-R4 (the law) and C1-C2 (the Spanish layout)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.domain.cards import (
    C1,
    C2,
    COLUMNS,
    R1,
    R2,
    R3,
    R4,
    ROWS,
    Card,
    card_violations,
    column_of,
    column_range,
)
from bingo_hall.domain.errors import InvalidCard, RuleError
from card_generator.sampler import sample_card
from support.hall import CARD, OTHER

# CARD, as lists to edit:
#   row 0: (1, 0, 22, 0, 41, 0, 63, 0, 80)
#   row 1: (0, 13, 0, 34, 0, 52, 0, 74, 85)
#   row 2: (7, 18, 29, 0, 0, 57, 0, 0, 90)


def edited(*changes: tuple[int, int, object], base=CARD) -> list[list[object]]:
    """CARD (or `base`) with cells (row, column) set to new values."""
    grid: list[list[object]] = [list(row) for row in base]
    for row, column, value in changes:
        grid[row][column] = value
    return grid


def rules_named(violations: list[str]) -> set[str]:
    """The rule ids (e.g. 'R4 one-to-three-per-column') the violations name."""
    found = set()
    for violation in violations:
        rule = next((r for r in (R1, R2, R3, R4, C1, C2) if violation.startswith(r)), None)
        assert rule is not None, f"violation not starting with a rule id: {violation!r}"
        found.add(rule)
    return found


def test_the_reference_cards_are_valid():
    assert card_violations(CARD) == []
    assert card_violations(OTHER) == []
    assert Card.from_grid(CARD).grid == CARD


def test_rule_ids_are_the_documented_names():
    assert (R1, R2, R3, R4, C1, C2) == (
        "R1 fifteen-distinct-numbers",
        "R2 three-by-nine-grid",
        "R3 five-per-row",
        "R4 one-to-three-per-column",
        "C1 column-ranges",
        "C2 ascending-columns",
    )


# --- one broken rule at a time ---------------------------------------------------------------

# Each grid breaks exactly one of the legal rules, or one of the layout rules. A number out of
# 1-90 is also out of every column's range, and a number repeated either shares a column (not
# ascending) or sits outside its column: those break a layout rule too, named in `layout_also`.
SINGLE_RULE_BREAKS = {
    # R1: 7 -> 1 under the 1 of column 1.
    "R1 repeated": (edited((2, 0, 1)), R1, "repeated: [1]", {C2}),
    # R1: 91 in the last column, still going up (80, 85, 91).
    "R1 out of range high": (edited((2, 8, 91)), R1, "outside 1-90: [91]", {C1}),
    # R1: a negative number above the 7 of column 1.
    "R1 out of range negative": (edited((0, 0, -1)), R1, "outside 1-90: [-1]", {C1}),
    # R3: 13 moves up to the top row of its column: row 1 holds 6 numbers, row 2 holds 4.
    "R3 six and four": (edited((0, 1, 13), (1, 1, 0)), R3, "row 1 holds 6 numbers", set()),
    # R4: 34 leaves column 4 for column 5 (45, under 41): column 4 is empty.
    "R4 empty column": (edited((1, 3, 0), (1, 4, 45)), R4, "column 4 holds 0 numbers", set()),
    # C1: 10 in the first column (1-9), under 1.
    "C1 ten in column 1": (edited((2, 0, 10)), C1, "column 1 must hold 1-9, holds [10]", set()),
    # C1: 80 in column 8 (70-79); the 80 of column 9 becomes 81.
    "C1 eighty in column 8": (
        edited((0, 8, 81), (1, 7, 80)),
        C1,
        "column 8 must hold 70-79, holds [80]",
        set(),
    ),
    # C2: column 1 reads 7 above 1.
    "C2 descending column": (
        edited((0, 0, 7), (2, 0, 1)),
        C2,
        "column 1 is not ascending",
        set(),
    ),
}


@pytest.mark.parametrize("case", list(SINGLE_RULE_BREAKS))
def test_each_broken_rule_is_named(case):
    grid, rule, detail, layout_also = SINGLE_RULE_BREAKS[case]
    violations = card_violations(grid)
    assert rules_named(violations) == {rule} | layout_also, violations
    assert any(v.startswith(rule) and detail in v for v in violations), violations
    without_layout = card_violations(grid, spanish_layout=False)
    if rule in (C1, C2):
        assert without_layout == []
    else:
        assert rules_named(without_layout) == {rule}, without_layout
    with pytest.raises(InvalidCard) as raised:
        Card.from_grid(grid)
    assert raised.value.violations == violations


def test_too_few_numbers_breaks_r1_and_the_rows_it_empties():
    # 41 removed: 14 numbers; row 1 holds 4; column 5 keeps nothing.
    violations = card_violations(edited((0, 4, 0)))
    assert any(v.startswith(R1) and "14 numbers, not 15" in v for v in violations), violations
    assert f"{R3}: row 1 holds 4 numbers, not 5" in violations
    assert f"{R4}: column 5 holds 0 numbers" in violations
    assert rules_named(violations) == {R1, R3, R4}


def test_sixteen_numbers_break_r1_and_r3():
    violations = card_violations(edited((0, 1, 10)))  # 10 above 13 in column 2
    assert any(v.startswith(R1) and "16 numbers, not 15" in v for v in violations)
    assert f"{R3}: row 1 holds 6 numbers, not 5" in violations
    assert rules_named(violations) == {R1, R3}


def test_every_broken_rule_is_reported_together():
    # 91 out of range, 18 repeated (and out of column 3's range), column 1 going down.
    grid = edited((2, 8, 91), (0, 2, 18), (0, 0, 7), (2, 0, 5))
    violations = card_violations(grid)
    assert {R1, C1, C2} <= rules_named(violations)
    assert any("outside 1-90: [91]" in v for v in violations)
    assert any("repeated: [18]" in v for v in violations)
    assert rules_named(card_violations(grid, spanish_layout=False)) == {R1}


@pytest.mark.parametrize(
    "grid",
    [
        pytest.param([list(row) for row in CARD[:2]], id="two rows"),
        pytest.param([*map(list, CARD), [0] * 9], id="four rows"),
        pytest.param([*edited()[:2], list(CARD[2])[:8]], id="a row of eight"),
        pytest.param([*edited()[:2], [*CARD[2], 0]], id="a row of ten"),
        pytest.param(edited((1, 1, "13")), id="a string cell"),
        pytest.param(edited((1, 1, 13.0)), id="a float cell"),
        pytest.param(edited((1, 1, None)), id="a None cell"),
        pytest.param(edited((0, 1, True)), id="a bool cell"),
        pytest.param("not a grid", id="a string"),
        pytest.param(None, id="None"),
    ],
)
def test_a_malformed_grid_is_r2_and_only_r2(grid):
    for layout in (True, False):
        violations = card_violations(grid, spanish_layout=layout)
        assert len(violations) == 1, violations
        assert violations[0].startswith(R2), violations
    with pytest.raises(InvalidCard) as raised:
        Card.from_grid(grid)
    assert raised.value.violations[0].startswith(R2)


# --- the layout rules are a profile ----------------------------------------------------------


@pytest.mark.parametrize(
    "grid",
    [
        pytest.param(edited((2, 0, 10)), id="C1"),
        pytest.param(edited((0, 0, 7), (2, 0, 1)), id="C2"),
        pytest.param(edited((0, 0, 90), (2, 8, 1)), id="C1 and C2 swapped 1 and 90"),
    ],
)
def test_without_the_spanish_layout_c1_and_c2_are_ignored(grid):
    assert card_violations(grid)  # broken under the Spanish layout
    assert card_violations(grid, spanish_layout=False) == []
    card = Card.from_grid(grid, spanish_layout=False)
    assert card.grid == tuple(tuple(row) for row in grid)
    with pytest.raises(InvalidCard):
        Card.from_grid(grid)


@pytest.mark.parametrize(
    ("changes", "valid"),
    [
        (((2, 8, 90),), True),  # 90 is the top of the last column (80-90)
        (((1, 7, 79),), True),  # 79 is the top of column 8
        (((2, 0, 9),), True),  # 9 is the top of column 1
        (((2, 0, 10),), False),  # 10 is not column 1's
        (((0, 8, 81), (1, 7, 80)), False),  # 80 is not column 8's
    ],
)
def test_column_ranges_edges(changes, valid):
    violations = card_violations(edited(*changes))
    if valid:
        assert violations == []
    else:
        assert rules_named(violations) == {C1}


def test_column_ranges_and_column_of_agree():
    assert [(r.start, r.stop - 1) for r in map(column_range, range(COLUMNS))] == [
        (1, 9),
        (10, 19),
        (20, 29),
        (30, 39),
        (40, 49),
        (50, 59),
        (60, 69),
        (70, 79),
        (80, 90),
    ]
    for number in range(1, 91):
        assert number in column_range(column_of(number))
    assert column_of(90) == column_of(80) == COLUMNS - 1
    assert column_of(9) == 0 and column_of(10) == 1


def test_invalid_card_is_a_rule_error_listing_every_violation():
    grid = edited((2, 0, 10), (2, 8, 91))
    with pytest.raises(RuleError) as raised:
        Card.from_grid(grid)
    error = raised.value
    assert isinstance(error, InvalidCard)
    assert error.violations == card_violations(grid)
    assert len(error.violations) >= 2
    for violation in error.violations:
        assert violation in str(error)
    assert str(error).startswith("invalid card: ")


# --- properties over uniformly sampled cards -------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**64)


@settings(max_examples=300)
@given(seed=seeds)
def test_sampled_cards_are_valid(seed):
    grid = sample_card(random.Random(seed))
    assert card_violations(grid) == []
    card = Card.from_grid(grid)
    assert len(card.numbers) == 15
    assert all(len(row) == 5 for row in card.rows)


@settings(max_examples=300)
@given(
    seed=seeds,
    column=st.integers(0, COLUMNS - 1),
    rows=st.lists(st.integers(0, ROWS - 1), min_size=2, max_size=2, unique=True),
)
def test_swapping_two_cells_of_a_column(seed, column, rows):
    """Swap the cells of two rows r1 != r2 in one column of a valid card:

    - both numbers: exactly one violation, C2 for that column (R1-R4 still hold);
    - both blank: the card is unchanged and valid;
    - one number, one blank: the number changes row, so exactly the two rows break R3,
      and C2 is reported for that column if and only if its numbers no longer go up.
    """
    grid = [list(row) for row in sample_card(random.Random(seed))]
    r1, r2 = rows
    a, b = grid[r1][column], grid[r2][column]
    grid[r1][column], grid[r2][column] = b, a
    violations = card_violations(grid)
    if a and b:
        assert violations == [f"{C2}: column {column + 1} is not ascending top to bottom"]
        assert card_violations(grid, spanish_layout=False) == []
    elif not a and not b:
        assert violations == []
    else:
        values = [grid[r][column] for r in range(ROWS) if grid[r][column]]
        ascending = values == sorted(values)
        gained, lost = (r1, r2) if b else (r2, r1)
        expected = sorted(
            [
                f"{R3}: row {gained + 1} holds 6 numbers, not 5",
                f"{R3}: row {lost + 1} holds 4 numbers, not 5",
            ]
        )
        assert sorted(v for v in violations if v.startswith(R3)) == expected
        c2 = [v for v in violations if v.startswith(C2)]
        assert c2 == (
            [] if ascending else [f"{C2}: column {column + 1} is not ascending top to bottom"]
        )
        assert rules_named(violations) <= {R3, C2}
