"""The wheels: colours by the catalogue's digit-sum rule, wheel orders, sectors, slots."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import pytest
from tables_support import PROFILES, bet, table

from bingo_hall.tables.wheels import (
    AMERICAN_ORDER,
    BLACK_NUMBERS,
    EUROPEAN_ORDER,
    RED_NUMBERS,
    SINGLE_ZERO,
)

# spec §2.1: the lists as printed.
SPEC_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
SPEC_BLACK = {2, 4, 6, 8, 10, 11, 13, 15, 17, 20, 22, 24, 26, 28, 29, 31, 33, 35}


def test_digit_sum_rule_gives_the_eighteen_reds_and_blacks():
    assert RED_NUMBERS == SPEC_RED
    assert BLACK_NUMBERS == SPEC_BLACK
    assert len(RED_NUMBERS) == len(BLACK_NUMBERS) == 18


@pytest.mark.parametrize(("order", "size"), [(EUROPEAN_ORDER, 37), (AMERICAN_ORDER, 38)])
def test_wheel_orders_alternate_colours_and_never_put_consecutive_numbers_side_by_side(order, size):
    assert len(order) == len(set(order)) == size
    for a, b in pairwise([*order, order[0]]):
        if a in ("0", "00") or b in ("0", "00"):
            continue
        x, y = int(a), int(b)
        assert (x in RED_NUMBERS) != (y in RED_NUMBERS), (a, b)
        assert abs(x - y) != 1, (a, b)


def test_the_basque_neighbour_examples_match_the_european_order():
    assert set(SINGLE_ZERO.neighbours("0")) == {"0", "3", "15", "26", "32"}  # EUS L256
    assert set(SINGLE_ZERO.neighbours("17")) == {"2", "6", "17", "25", "34"}  # EUS L346


def _arc(first: str, last: str) -> set[str]:
    order = list(EUROPEAN_ORDER)
    start, end = order.index(first), order.index(last)
    size = (end - start) % len(order) + 1
    return {order[(start + i) % len(order)] for i in range(size)}


@pytest.mark.parametrize(
    ("kind", "arcs", "chips"),
    [
        ("voisins", [("22", "25")], 9),
        ("tiers", [("27", "33")], 6),
        ("orphelins", [("17", "6"), ("1", "9")], 5),
    ],
)
def test_sector_bets_cover_their_arcs_of_the_wheel(kind, arcs, chips):
    t = table("basque", "french-roulette")
    b = bet(t, kind, amount=str(chips))
    expected = set().union(*(_arc(a, z) for a, z in arcs))
    assert b.covers == expected
    assert sum(chip.amount for chip in b.chips) == chips


def test_every_wheel_of_fortune_has_54_slots_and_its_figures_one_slot_each():
    for name in ("basque", "wof-003"):
        wheel = PROFILES[name].rules("wheel-of-fortune").wheel()
        assert wheel.total == 54
        assert wheel.weights["joker"] == wheel.weights["logo"] == 1
        assert [wheel.weights[s] for s in ("1", "2", "5", "10", "20")] == [24, 15, 7, 4, 2]


def test_boule_has_nine_numbers_equally_likely_whatever_the_holes():
    for name, holes in (("1977", 1), ("1979", 2)):
        wheel = PROFILES[name].rules("boule").wheel()
        assert wheel.total == 9 * holes
        assert {wheel.probability(p) for p in wheel.pockets} == {Fraction(1, 9)}
