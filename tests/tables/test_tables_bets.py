"""Every bet type of every game: what it covers; and every malformed bet, rejected with why."""

from __future__ import annotations

import re
from decimal import ROUND_FLOOR, Decimal
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import GAMES, PROFILES, bet, limits, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import (
    MAX_PRISON,
    BetRequest,
    check_bet,
    check_positions,
    request_from_json,
)
from bingo_hall.tables.catalogue import canonical_type
from bingo_hall.tables.money import halve

R = "french-roulette"
A = "american-roulette"
A00 = "american-roulette-00"


SECTOR_AMOUNTS = {"voisins": "9", "tiers": "6", "orphelins": "5", "neighbours": "5"}


def covers(profile: str, game: str, kind: str, numbers: tuple = ()) -> list[str]:
    t = table(profile, game)
    amount = SECTOR_AMOUNTS.get(canonical_type(kind), "10")
    return sorted(bet(t, kind, numbers, amount).covers, key=_key)


def _key(p: str) -> tuple[int, int | str]:
    if not p.isdigit():
        return (2, p)
    return (0, 0) if p == "0" else (0, 1) if p == "00" else (1, int(p))


def n(*numbers: int | str) -> list[str]:
    return [str(x) for x in numbers]


@pytest.mark.parametrize(
    ("profile", "game", "kind", "numbers", "expected"),
    [
        ("1979", R, "straight", (0,), n(0)),
        ("1979", R, "straight", (36,), n(36)),
        ("1979", R, "split", (17, 20), n(17, 20)),
        ("1979", R, "split", (20, 17), n(17, 20)),
        ("1979", R, "split", (5, 6), n(5, 6)),
        ("1979", R, "split", (0, 2), n(0, 2)),
        ("1979", R, "street", (13, 14, 15), n(13, 14, 15)),
        ("1979", R, "corner", (17, 18, 20, 21), n(17, 18, 20, 21)),
        ("1979", R, "sixline", (31, 32, 33, 34, 35, 36), n(31, 32, 33, 34, 35, 36)),
        ("1979", R, "column", (2,), n(*range(2, 36, 3))),
        ("1979", R, "column", tuple(range(3, 37, 3)), n(*range(3, 37, 3))),
        ("1979", R, "dozen", (3,), n(*range(25, 37))),
        ("1979", R, "two_columns", (2, 3), sorted(n(*range(2, 37, 3), *range(3, 37, 3)), key=_key)),
        ("1979", R, "two_dozens", (1, 2), n(*range(1, 25))),
        (
            "1979",
            R,
            "red",
            (),
            n(1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36),
        ),
        (
            "1979",
            R,
            "black",
            (),
            n(2, 4, 6, 8, 10, 11, 13, 15, 17, 20, 22, 24, 26, 28, 29, 31, 33, 35),
        ),
        ("1979", R, "even", (), n(*range(2, 37, 2))),
        ("1979", R, "odd", (), n(*range(1, 37, 2))),
        ("1979", R, "low", (), n(*range(1, 19))),
        ("1979", R, "high", (), n(*range(19, 37))),
        ("asturias", R, "trio", (0, 1, 2), n(0, 1, 2)),
        ("asturias", R, "trio", (0, 2, 3), n(0, 2, 3)),
        ("asturias", R, "street", (0, 2, 3), n(0, 2, 3)),
        ("asturias", R, "first_four", (), n(0, 1, 2, 3)),
        ("asturias", R, "corner", (0, 1, 2, 3), n(0, 1, 2, 3)),
        ("basque", R, "neighbours", (17,), n(2, 6, 17, 25, 34)),
        ("basque", R, "ondokoak", (0,), n(0, 3, 15, 26, 32)),
        (
            "basque",
            R,
            "voisins",
            (),
            n(0, 2, 3, 4, 7, 12, 15, 18, 19, 21, 22, 25, 26, 28, 29, 32, 35),
        ),
        (
            "basque",
            R,
            "serie_handia",
            (),
            n(0, 2, 3, 4, 7, 12, 15, 18, 19, 21, 22, 25, 26, 28, 29, 32, 35),
        ),
        ("basque", R, "tiers", (), n(5, 8, 10, 11, 13, 16, 23, 24, 27, 30, 33, 36)),
        ("basque", R, "herena", (), n(5, 8, 10, 11, 13, 16, 23, 24, 27, 30, 33, 36)),
        ("basque", R, "orphelins", (), n(1, 6, 9, 14, 17, 20, 31, 34)),
        ("basque", R, "zurtzak", (), n(1, 6, 9, 14, 17, 20, 31, 34)),
        ("basque", A, "tiers", (), n(5, 8, 10, 11, 13, 16, 23, 24, 27, 30, 33, 36)),
        ("1979", A, "straight", (0,), n(0)),
        ("1979", A, "sixline", (1, 2, 3, 4, 5, 6), n(1, 2, 3, 4, 5, 6)),
        ("asturias", A00, "straight", ("00",), n("00")),
        ("asturias", A00, "zero_split", (), n(0, "00")),
        ("asturias", A00, "zero_split", (0, "00"), n(0, "00")),
        ("asturias", A00, "split", ("00", 0), n(0, "00")),
        ("asturias", A00, "five_number", (), n(0, "00", 1, 2, 3)),
        ("asturias", A00, "five_number", (3, 2, 1, "00", 0), n(0, "00", 1, 2, 3)),
        ("asturias", A00, "corner", (1, 2, 4, 5), n(1, 2, 4, 5)),
        ("asturias", A00, "even", (), n(*range(2, 37, 2))),
        ("1979", "boule", "number", (5,), n(5)),
        ("1979", "boule", "number", (9,), n(9)),
        ("1979", "boule", "red", (), n(2, 4, 7, 9)),
        ("1979", "boule", "black", (), n(1, 3, 6, 8)),
        ("1979", "boule", "odd", (), n(1, 3, 7, 9)),
        ("1979", "boule", "even", (), n(2, 4, 6, 8)),
        ("1979", "boule", "low", (), n(1, 2, 3, 4)),
        ("1979", "boule", "high", (), n(6, 7, 8, 9)),
        ("basque", "wheel-of-fortune", "segment", (20,), n(20)),
        ("basque", "wheel-of-fortune", "segment", ("1",), n(1)),
        ("wof-003", "wheel-of-fortune", "segment", ("joker",), ["joker"]),
        ("wof-003", "wheel-of-fortune", "segment", ("Logo",), ["logo"]),
    ],
)
def test_a_valid_bet_covers_exactly_its_numbers(profile, game, kind, numbers, expected):
    assert covers(profile, game, kind, numbers) == expected


def test_every_bet_type_of_every_profile_and_game_has_a_valid_example():
    examples = {
        "straight": (7,),
        "split": (7, 8),
        "zero_split": (),
        "street": (7, 8, 9),
        "trio": (0, 1, 2),
        "corner": (7, 8, 10, 11),
        "first_four": (),
        "five_number": (),
        "sixline": (7, 8, 9, 10, 11, 12),
        "column": (1,),
        "dozen": (2,),
        "two_columns": (1, 2),
        "two_dozens": (2, 3),
        "neighbours": (7,),
        "number": (7,),
        "segment": (5,),
    }
    seen = 0
    for profile, game in GAMES:
        t = table(profile, game)
        for kind in t.rules.bet_types:
            b = bet(t, kind, examples.get(kind, ()), SECTOR_AMOUNTS.get(kind, "10"))
            assert b.covers and b.amount > 0
            seen += 1
    assert seen > 100


def _valid(profile: str, kind: str, numbers: tuple) -> bool:
    try:
        bet(table(profile, R), kind, numbers)
    except RuleError:
        return False
    return True


@pytest.mark.parametrize(("profile", "zero_trios"), [("1979", 0), ("asturias", 2)])
def test_the_layout_has_exactly_the_catalogues_splits_and_streets(profile, zero_trios):
    pockets = list(range(37))
    splits = [pair for pair in combinations(pockets, 2) if _valid(profile, "split", pair)]
    assert len(splits) == 57 + 3  # spec §2.3: 24 across, 33 down, and zero with 1, 2, 3
    streets = [
        trio
        for trio in combinations(range(0, 37), 3)
        if trio[2] - trio[0] <= 3
        if _valid(profile, "street", trio)
    ]
    assert len(streets) == 12 + zero_trios


def test_corners_and_six_lines_are_the_22_and_the_11_of_the_layout():
    corners = {
        frozenset(c)
        for low in range(1, 33)
        for c in [(low, low + 1, low + 3, low + 4)]
        if _valid("1979", "corner", c)
    }
    assert len(corners) == 22
    sixlines = [r for r in range(1, 37) if _valid("1979", "sixline", tuple(range(r, r + 6)))]
    assert sixlines == list(range(1, 32, 3))


@pytest.mark.parametrize(
    ("profile", "game", "fields", "reason"),
    [
        ("1979", R, {"type": "split", "numbers": [17, 19]}, "17 and 19 do not touch"),
        ("1979", R, {"type": "split", "numbers": [3, 4]}, "3 and 4 do not touch"),
        ("1979", R, {"type": "split", "numbers": [0, 4]}, "0-4 is not a split"),
        ("1979", R, {"type": "split", "numbers": [5]}, "names 2 numbers, not 1"),
        ("1979", R, {"type": "split", "numbers": [0, "00"]}, "'00' is not on the french-roulette"),
        ("1979", R, {"type": "straight", "numbers": [37]}, "37 is not on the"),
        ("1979", R, {"type": "straight", "numbers": [7, 7]}, "given twice"),
        ("1979", R, {"type": "street", "numbers": [2, 3, 4]}, "not a row"),
        ("1979", R, {"type": "street", "numbers": [0, 1, 2]}, "not a trio of this table"),
        (
            "1979",
            R,
            {"type": "trio", "numbers": [0, 1, 2]},
            "trio is not a bet of french-roulette under profile 1979",
        ),
        ("1979", R, {"type": "first_four"}, "first_four is not a bet of"),
        (
            "1979",
            R,
            {"type": "corner", "numbers": [0, 1, 2, 3]},
            "first four is 0-1-2-3, at tables",
        ),
        ("1979", R, {"type": "corner", "numbers": [3, 4, 6, 7]}, "do not meet at one corner"),
        ("1979", R, {"type": "sixline", "numbers": [2, 3, 4, 5, 6, 7]}, "not two adjacent rows"),
        ("1979", R, {"type": "column", "numbers": [4]}, "names the column (1, 2 or 3)"),
        (
            "1979",
            R,
            {"type": "two_dozens", "numbers": [1, 3]},
            "adjacent («a caballo»): 1-2 or 2-3",
        ),
        ("1979", R, {"type": "two_columns", "numbers": [3, 1]}, "adjacent"),
        ("1979", R, {"type": "red", "numbers": [1]}, "names no numbers"),
        ("1979", R, {"type": "neighbours", "numbers": [1]}, "neighbours is not a bet of"),
        ("1979", R, {"type": "five_number"}, "five_number is not a bet of"),
        ("1979", R, {"type": "zero_split"}, "zero_split is not a bet of"),
        ("1979", R, {"type": "banco"}, "unknown bet type 'banco'"),
        ("1979", R, {"type": "straight", "numbers": [7], "amount": "0.5"}, "below the minimum 1"),
        ("1979", R, {"type": "straight", "numbers": [7], "amount": "31"}, "above its maximum 30"),
        ("1979", R, {"type": "red", "amount": "541"}, "above its maximum 540"),
        (
            "1979",
            R,
            {"type": "straight", "numbers": [7], "amount": "1.005"},
            "whole number of 0.01",
        ),
        ("1979", R, {"type": "straight", "numbers": [7], "amount": "-3"}, "must be positive"),
        ("1979", R, {"type": "straight", "numbers": [7], "prison": 1}, "only an even-chance bet"),
        ("1979", A, {"type": "red", "prison": 1}, "only an even-chance bet at French"),
        ("1979", A, {"type": "red", "zero_choice": "half"}, "zero_choice applies only"),
        ("asturias", A, {"type": "five_number"}, "five_number is not a bet of american-roulette"),
        ("asturias", A00, {"type": "trio", "numbers": [0, 1, 2]}, "trio is not a bet of"),
        ("asturias", A00, {"type": "split", "numbers": [0, 1]}, "splits with zero: none"),
        ("asturias", A00, {"type": "five_number", "numbers": [0, 1, 2, 3, 4]}, "0-00-1-2-3"),
        (
            "asturias",
            A00,
            {"type": "five_number", "numbers": [0, "00", 1, 2, 3], "amount": "151"},
            "above its maximum 150",
        ),
        ("basque", R, {"type": "neighbours", "numbers": []}, "names 1 number, not 0"),
        ("basque", R, {"type": "voisins", "numbers": [0]}, "names no numbers"),
        ("basque", R, {"type": "voisins", "amount": "10"}, "9 equal chips"),
        ("basque", R, {"type": "tiers", "amount": "3"}, "chips of 0.5, below the minimum 1"),
        ("basque", R, {"type": "voisins", "amount": "900"}, "above its maximum"),
        ("1979", "boule", {"type": "number", "numbers": [10]}, "10 is not on the boule wheel"),
        ("1979", "boule", {"type": "odd", "numbers": [1, 3, 5, 7]}, "5 is never in one"),
        ("1979", "boule", {"type": "straight", "numbers": [5]}, "unknown bet type 'straight'"),
        (
            "1979",
            "boule",
            {"type": "number", "numbers": [5], "amount": "101"},
            "above its maximum 100",
        ),
        ("basque", "wheel-of-fortune", {"type": "segment", "numbers": [3]}, "3 is not on the"),
        (
            "basque",
            "wheel-of-fortune",
            {"type": "segment", "numbers": [1, 2]},
            "names 1 number, not 2",
        ),
        ("basque", "wheel-of-fortune", {"type": "red"}, "unknown bet type 'red'"),
    ],
)
def test_an_impossible_bet_is_rejected_with_the_reason(profile, game, fields, reason):
    t = table(profile, game)
    data = {"id": "x", "amount": "10", **fields}
    with pytest.raises(RuleError) as error:
        check_bet(t, limits(t), request_from_json(data, 0))
    assert error.value.message.startswith("bet x: ")
    assert reason in error.value.message


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([1, 2], "bet #1: each bet is an object"),
        ({"id": "a", "type": "red", "amount": 10.5}, "bet 'a': amount: give money as a decimal"),
        ({"id": "a", "type": "red", "amount": "ten"}, "bet 'a': amount:"),
        ({"id": "a", "type": "red", "amount": "1", "colour_x": 1}, "colour_x: Extra inputs"),
        ({"type": "red", "amount": "1"}, "bet #1: id: Field required"),
        ({"id": "a", "type": "split", "numbers": [True, 2]}, "numbers.0"),
        ({"id": "a", "type": "red", "amount": "1", "prison": -1}, "prison:"),
        ({"id": "a", "type": "red", "amount": "1", "zero_choice": "keep"}, "zero_choice:"),
    ],
)
def test_a_malformed_entry_names_the_entry_and_the_field(data, reason):
    with pytest.raises(RuleError, match=None) as error:
        request_from_json(data, 0)
    assert reason in error.value.message


def test_amounts_are_exact_decimals_and_json_numbers_are_read_as_decimals():
    request = request_from_json({"id": "a", "type": "red", "amount": Decimal("10.10")}, 0)
    t = table("1979", R)
    assert check_bet(t, limits(t), request).amount == Decimal("10.10")
    assert request_from_json({"id": "a", "type": "red", "amount": 7}, 0).amount == 7


def test_a_missing_amount_is_rejected():
    t = table("1979", R)
    with pytest.raises(RuleError, match="amount is missing"):
        check_bet(t, limits(t), BetRequest(id="a", type="red"))


def test_one_players_chips_on_one_position_add_up_against_its_maximum():
    t = table("1979", R)
    lim = limits(t)
    first = bet(t, "straight", (7,), "20", lim, id="a", player="ana")
    second = bet(t, "straight", (7,), "20", lim, id="b", player="ana")
    other = bet(t, "straight", (7,), "20", lim, id="c", player="eva")
    check_positions([first, other], lim)  # per player: no cap across players (N79 L444)
    with pytest.raises(RuleError, match="player ana has 40 on straight 7, above its maximum 30"):
        check_positions([first, other, second], lim)


CENT = Decimal("0.01")


@settings(max_examples=150)
@given(
    stake=st.integers(100, 54_000).map(lambda cents: cents * CENT),
    zeros=st.integers(1, MAX_PRISON),
)
def test_a_bet_in_prison_counts_at_its_value_now_against_the_maximum(stake, zeros):
    """§2.5: after its k-th zero a stake S is worth S/2^(k-1); §2.6: the maximum is per player
    per position. Beside it the player may put exactly what the maximum leaves, not a cent
    more (1979: minimum 1, even chances at most 540)."""
    t = table("1979", R)
    lim = limits(t)
    maximum = lim.of("even_chance").maximum
    held = bet(t, "red", (), str(stake), lim, id="held", player="ana", prison=zeros)
    value = halve(stake, zeros - 1)
    minimum = lim.of("even_chance").minimum
    room = ((maximum - value) / CENT).to_integral_value(rounding=ROUND_FLOOR) * CENT
    if room >= minimum:
        check_positions([held, bet(t, "red", (), str(room), lim, id="f", player="ana")], lim)
    over = bet(t, "red", (), str(max(room + CENT, minimum)), lim, id="g", player="ana")
    held_note = re.escape(f"(held in prison worth {value:f}), above its maximum 540")
    with pytest.raises(RuleError, match=f"bet g: player ana has .* {held_note}"):
        check_positions([held, over], lim)
    check_positions([held, over.model_copy(update={"player": "eva"})], lim)


@pytest.mark.parametrize(
    ("profile", "game", "first", "second", "message"),
    [
        (
            "basque",
            R,
            ("trio", (0, 2, 3), "20"),
            ("street", (0, 2, 3), "20"),
            "player ana has 40 on street 0-2-3, above its maximum 30",
        ),
        (
            "basque",
            R,
            ("first_four", (0, 1, 2, 3), "30"),
            ("corner", (0, 1, 2, 3), "30"),
            "player ana has 60 on corner 0-1-2-3, above its maximum 40",
        ),
        (
            "basque",
            R,
            ("voisins", (), "90"),  # 20 of it on its 0-2-3 chip
            ("street", (3, 2, 0), "20"),
            "player ana has 40 on street 0-2-3, above its maximum 30",
        ),
        (
            "asturias",
            A00,
            ("zero_split", (0, "00"), "15"),
            ("split", ("00", 0), "15"),
            "player ana has 30 on split 0-00, above its maximum 20",
        ),
    ],
)
def test_a_position_named_by_two_bet_types_adds_up_as_one(profile, game, first, second, message):
    """The zero trios, the first four, the 0-00 split and a sector's chips are ordinary
    positions: a player cannot pass a position's maximum by naming it otherwise."""
    t = table(profile, game)
    lim = limits(t, tier=10)  # maxima: split 20, street 30, corner 40
    bets = [
        bet(t, kind, numbers, amount, lim, id=f"b{i}", player="ana")
        for i, (kind, numbers, amount) in enumerate((first, second))
    ]
    check_positions(bets[:1], lim)
    with pytest.raises(RuleError, match=message):
        check_positions(bets, lim)


def test_neighbour_and_sector_chips_are_equal_and_sit_on_ordinary_positions():
    t = table("basque", R)
    voisins = bet(t, "voisins", (), "18")
    assert [(c.kind, c.amount) for c in voisins.chips] == [
        ("trio", 4),
        ("split", 2),
        ("split", 2),
        ("split", 2),
        ("split", 2),
        ("corner", 4),
        ("split", 2),
    ]
    neighbours = bet(t, "neighbours", (17,), "50")  # EUS L346: five €10 chips on 2, 6, 17, 25, 34
    assert {c.covers for c in neighbours.chips} == {("2",), ("6",), ("17",), ("25",), ("34",)}
    assert {c.amount for c in neighbours.chips} == {10}


def test_a_profile_without_a_game_says_which_games_it_has():
    with pytest.raises(RuleError, match="profile 1979 has no wheel-of-fortune"):
        table("1979", "wheel-of-fortune")
    with pytest.raises(RuleError, match="has no american-roulette-00"):
        table("basque", A00)
    with pytest.raises(RuleError, match="unknown game 'craps'"):
        PROFILES["1979"].rules("craps")
