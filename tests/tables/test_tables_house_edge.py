"""The house edge of every bet, by exact enumeration of the wheel with Fractions, through the
settlement itself, against the spec's figures (../shared/spec/wheels.md §8)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import pytest
from tables_support import GAMES, bet, limits, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import Bet
from bingo_hall.tables.profiles import TableGame, ZeroChoice
from bingo_hall.tables.settlement import BetStatus, settle

EDGE_SINGLE_ZERO = Fraction(1, 37)
EDGE_DOUBLE_ZERO = Fraction(1, 19)

EXAMPLES: dict[str, list[tuple]] = {
    "straight": [(p,) for p in range(37)] + [("00",)],
    "split": [(1, 2), (2, 3), (1, 4), (33, 36), (0, 1), (0, 2), (0, 3), (0, "00")],
    "zero_split": [()],
    "street": [(1, 2, 3), (34, 35, 36), (0, 1, 2), (0, 2, 3)],
    "trio": [(0, 1, 2), (0, 2, 3)],
    "corner": [(1, 2, 4, 5), (32, 33, 35, 36), (0, 1, 2, 3)],
    "first_four": [()],
    "five_number": [()],
    "sixline": [tuple(range(r, r + 6)) for r in range(1, 32, 3)],
    "column": [(1,), (2,), (3,)],
    "dozen": [(1,), (2,), (3,)],
    "two_columns": [(1, 2), (2, 3)],
    "two_dozens": [(1, 2), (2, 3)],
    "neighbours": [(p,) for p in range(37)],
    "number": [(p,) for p in range(1, 10)],
    "segment": [(s,) for s in ("1", "2", "5", "10", "20", "joker", "logo")],
}
AMOUNTS = {"voisins": "9", "tiers": "6", "orphelins": "5", "neighbours": "5"}


def all_bets(t: TableGame) -> list[Bet]:
    """Every instance of every bet type the table offers (the ones the layout allows)."""
    lim = limits(t)
    bets = []
    for kind in t.rules.bet_types:
        for numbers in EXAMPLES.get(kind, [()]):
            try:
                bets.append(
                    bet(t, kind, numbers, AMOUNTS.get(kind, "10"), lim, id=f"{kind}{numbers}")
                )
            except RuleError:  # not on this layout: 00 on a single-zero wheel …
                continue
    return bets


def expected_returns(t: TableGame, bets: Iterable[Bet], **options) -> dict[str, Fraction]:
    """E[returns] / stake of every bet, summing over the wheel's pockets with their weights."""
    bets = list(bets)
    wheel = t.rules.wheel()
    lim = limits(t)
    total = {b.id: Fraction(0) for b in bets}
    for pocket in wheel.pockets:
        for r in settle(t, lim, bets, pocket, **options).results:
            total[r.id] += wheel.probability(pocket) * Fraction(r.returns + r.residue)
    return {b.id: total[b.id] / Fraction(b.amount) for b in bets}


def edges(t: TableGame, bets: Iterable[Bet], **options) -> dict[str, Fraction]:
    return {k: 1 - v for k, v in expected_returns(t, bets, **options).items()}


@pytest.mark.parametrize(("profile", "game"), [g for g in GAMES if "roulette" in g[1]])
def test_every_roulette_bet_but_the_even_chances_has_the_spec_edge(profile, game):
    t = table(profile, game)
    bets = [b for b in all_bets(t) if not b.is_even_chance and b.type != "five_number"]
    expected = EDGE_DOUBLE_ZERO if game == "american-roulette-00" else EDGE_SINGLE_ZERO
    found = edges(t, bets)
    assert set(found.values()) == {expected}, found
    assert {b.type for b in bets} == set(t.rules.bet_types) - {
        "red",
        "black",
        "even",
        "odd",
        "low",
        "high",
        "five_number",
    }


def test_the_five_number_bet_is_the_one_bet_with_another_edge():
    t = table("asturias", "american-roulette-00")
    (five,) = [b for b in all_bets(t) if b.type == "five_number"]
    assert edges(t, [five]) == {five.id: Fraction(3, 38)}


EVENS = ("red", "black", "even", "odd", "low", "high")


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias", "basque"])
def test_french_even_chance_with_half_back_on_zero_has_an_edge_of_1_74(profile):
    t = table(profile, "french-roulette")
    bets = [bet(t, kind, id=kind) for kind in EVENS]
    assert set(edges(t, bets, zero_choice=ZeroChoice.HALF).values()) == {Fraction(1, 74)}


def prison_value(t: TableGame, b: Bet, then: ZeroChoice) -> Fraction:
    """The worth of one unit in prison, solving c = E[returns] + E[carried]·c from settlement
    (a bet carried on in prison is worth c per unit of its value) – spec §2.5."""
    wheel = t.rules.wheel()
    lim = limits(t)
    back, carried = Fraction(0), Fraction(0)
    for pocket in wheel.pockets:
        (r,) = settle(t, lim, [b], pocket, zero_choice=then).results
        p = wheel.probability(pocket)
        back += p * Fraction(r.returns + r.residue)
        carried += p * Fraction(r.carried)
    value = Fraction(b.value)
    return (back / value) / (1 - carried / value)


@pytest.mark.parametrize("kind", EVENS)
def test_french_even_chance_always_in_prison_has_an_edge_of_1_73(kind):
    t = table("1979", "french-roulette")
    imprisoned = bet(t, kind, prison=1)
    c = prison_value(t, imprisoned, ZeroChoice.PRISON)
    assert c == Fraction(36, 73)
    fresh = bet(t, kind)
    wheel = t.rules.wheel()
    value = Fraction(0)
    for pocket in wheel.pockets:
        (r,) = settle(t, limits(t), [fresh], pocket, zero_choice=ZeroChoice.PRISON).results
        worth = Fraction(r.returns) + Fraction(r.carried) * c
        value += wheel.probability(pocket) * worth
    assert 1 - value / 10 == Fraction(1, 73)


def test_prison_then_half_at_the_second_zero_has_an_edge_of_75_5476():
    t = table("1979", "french-roulette")
    wheel = t.rules.wheel()
    # one unit in prison, the player takes the half at the next zero
    c = 0
    imprisoned = bet(t, "red", prison=1)
    for pocket in wheel.pockets:
        (r,) = settle(t, limits(t), [imprisoned], pocket, zero_choice=ZeroChoice.HALF).results
        assert r.carried == 0
        c += wheel.probability(pocket) * Fraction(r.returns) / 10
    assert c == Fraction(73, 148)
    assert Fraction(1, 37) * (1 - c) == Fraction(75, 5476)


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias", "basque"])
def test_american_even_chances_lose_half_on_zero_an_edge_of_1_74(profile):
    t = table(profile, "american-roulette")
    bets = [bet(t, kind, id=kind) for kind in EVENS]
    assert set(edges(t, bets).values()) == {Fraction(1, 74)}
    assert all(r.status is BetStatus.HALF_BACK for r in settle(t, limits(t), bets, "0").results)


def test_double_zero_even_chances_half_back_on_both_zeros_1_38_or_on_one_3_76():
    t = table("asturias", "american-roulette-00")
    bets = [bet(t, kind, id=kind) for kind in EVENS]
    assert set(edges(t, bets).values()) == {Fraction(1, 38)}
    zero_only = t.model_copy(
        update={"rules": t.rules.model_copy(update={"half_back_pockets": ("0",)})}
    )
    assert set(edges(zero_only, bets).values()) == {Fraction(3, 76)}


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias", "basque"])
def test_every_boule_bet_has_an_edge_of_one_ninth(profile):
    t = table(profile, "boule")
    found = edges(t, all_bets(t))
    assert len(found) == 9 + 6
    assert set(found.values()) == {Fraction(1, 9)}


WOF_EDGES = {
    "1": Fraction(1, 9),
    "2": Fraction(1, 6),
    "5": Fraction(2, 9),
    "10": Fraction(5, 27),
    "20": Fraction(2, 9),
    "joker": Fraction(4, 27),
    "logo": Fraction(4, 27),
}


@pytest.mark.parametrize("profile", ["basque", "wof-003"])
def test_wheel_of_fortune_edges_by_segment(profile):
    t = table(profile, "wheel-of-fortune")
    found = edges(t, all_bets(t))
    assert {k.removeprefix("segment('").removesuffix("',)"): v for k, v in found.items()} == (
        WOF_EDGES
    )


def test_the_literal_basque_1_for_1_on_the_15_slots_would_be_a_44_percent_edge():
    t = table("basque", "wheel-of-fortune")
    rules = t.rules
    literal = rules.model_copy(
        update={
            "segments": tuple(
                s.model_copy(update={"payout": 1}) if s.symbol == "2" else s for s in rules.segments
            )
        }
    )
    literal_table = t.model_copy(update={"rules": literal})
    b = bet(literal_table, "segment", ("2",))
    assert edges(literal_table, [b]) == {b.id: Fraction(4, 9)}
