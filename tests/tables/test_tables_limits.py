"""Limits per profile: maxima as multiples of the minimum, tiers, even-chance minima, boule
bands, the wheel of fortune's maximum, colour chips (spec §2.6, §3.6, §5.4, §6.3)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tables_support import PROFILES, bet, limits, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import check_colour_value
from bingo_hall.tables.limits import (
    LimitChoice,
    boule_floor_problem,
    minimum_table_problem,
    resolve_limits,
)
from bingo_hall.tables.profiles import RouletteRules

COVERED = {
    "straight": 1,
    "split": 2,
    "street": 3,
    "corner": 4,
    "five_number": 5,
    "sixline": 6,
    "column": 12,
    "dozen": 12,
    "two_columns": 24,
    "two_dozens": 24,
    "even_chance": 18,
}


def maxima(profile: str, game: str, minimum: str, tier: int | None = None) -> dict[str, Decimal]:
    t = table(profile, game)
    lim = resolve_limits(t.rules, LimitChoice(minimum=Decimal(minimum), tier=tier))
    return {group: limit.maximum for group, limit in lim.groups.items()}


def test_example_20_asturias_minimum_5_tier_30():
    assert maxima("asturias", "french-roulette", "5", 30) == {
        "straight": 150,
        "split": 300,
        "street": 450,
        "corner": 600,
        "sixline": 900,
        "column": 1800,
        "dozen": 1800,
        "two_columns": 3600,
        "two_dozens": 3600,
        "even_chance": 2700,
    }


@pytest.mark.parametrize(
    ("profile", "game"),
    [
        (p, g.value)
        for p in ("1979", "asturias", "basque")
        for g in PROFILES[p].games
        if "roulette" in g.value
    ]
    + [("1977", "american-roulette")],
)
def test_maxima_are_numbers_covered_times_the_straight_up_maximum(profile, game):
    """spec §8: max(bet)/max(straight) == numbers covered; even chances 18 ×."""
    rules = PROFILES[profile].rules(game)
    assert isinstance(rules, RouletteRules)
    for tier in rules.tiers():
        found = maxima(profile, game, "2", tier)
        for group, maximum in found.items():
            assert maximum == found["straight"] * COVERED[group], (group, tier)


def test_the_1977_french_maxima_follow_no_pattern():
    assert maxima("1977", "french-roulette", "1") == {
        "straight": 30,
        "split": 80,
        "street": 100,
        "corner": 120,
        "sixline": 200,
        "column": 500,
        "dozen": 500,
        "two_columns": 2000,
        "two_dozens": 2000,
        "even_chance": 1000,
    }


@pytest.mark.parametrize(
    ("profile", "game", "tiers"),
    [
        ("1977", "french-roulette", (30,)),
        ("1979", "french-roulette", (30,)),
        ("1979", "american-roulette", (20,)),
        ("asturias", "french-roulette", (10, 20, 30)),
        ("asturias", "american-roulette-00", (10, 20, 30)),
        ("basque", "french-roulette", (10, 20, 30, 50)),
        ("basque", "american-roulette", (10, 20, 30, 50)),
    ],
)
def test_tiers_per_profile_and_a_tier_outside_them_is_refused(profile, game, tiers):
    rules = PROFILES[profile].rules(game)
    assert rules.tiers() == tiers
    with pytest.raises(RuleError, match=f"tier 40 is not allowed: .*{tiers[-1]}"):
        maxima(profile, game, "1", 40)


def test_a_table_with_several_tiers_must_choose_one():
    with pytest.raises(RuleError, match=r"choose the table's tier.*10, 20, 30"):
        maxima("asturias", "french-roulette", "1")
    assert maxima("1979", "french-roulette", "1")["straight"] == 30  # a single tier: no choice


def test_the_even_chance_minimum_up_to_five_times_only_where_the_text_allows():
    t = table("basque", "french-roulette")
    lim = limits(t, "2", even_minimum=5)
    assert lim.of("even_chance").minimum == 10
    with pytest.raises(RuleError, match="below the minimum 10"):
        bet(t, "red", amount="8", lim=lim)
    with pytest.raises(RuleError, match="1 to 5 × the table minimum"):
        limits(t, "2", even_minimum=6)
    with pytest.raises(RuleError, match="1 to 1 × the table minimum"):
        limits(table("1979", "french-roulette"), "2", even_minimum=2)
    with pytest.raises(RuleError, match="1 to 1 ×"):
        limits(table("asturias", "french-roulette"), "2", tier=30, even_minimum=2)
    assert limits(table("asturias", "american-roulette"), "2", tier=30, even_minimum=5)


def test_the_basque_casino_may_require_even_chance_multiples():
    t = table("basque", "french-roulette")
    lim = limits(t, "1", even_minimum=5, even_multiples=True)
    assert bet(t, "black", amount="15", lim=lim).amount == 15
    with pytest.raises(RuleError, match="multiples of 5"):
        bet(t, "black", amount="12", lim=lim)
    with pytest.raises(RuleError, match="does not let the casino require"):
        limits(table("1979", "french-roulette"), even_multiples=True)


def test_boule_layouts_at_one_or_two_minima_and_maxima_in_the_bands():
    t = table("1979", "boule")
    lim = limits(t, "2", tier=40, even_tier=200, layout_minimum=2)
    assert lim.of("number").minimum == 4  # the layout at twice the authorised minimum
    assert lim.of("number").maximum == 80  # 40 × the *authorised* minimum (spec §12 Q15)
    assert lim.of("even_chance").maximum == 400
    with pytest.raises(RuleError, match="1 or 2 × the authorised minimum, not 3"):
        limits(t, "2", layout_minimum=3)
    with pytest.raises(RuleError, match="number maximum must be 40 to 100"):
        limits(t, "2", tier=120)
    with pytest.raises(RuleError, match="even-chance maximum must be 200 to 500"):
        limits(t, "2", even_tier=150)
    with pytest.raises(RuleError, match="below the minimum 4"):
        bet(t, "number", ("3",), "3", lim=lim)


def test_the_wheel_of_fortune_has_one_minimum_and_one_maximum():
    t = table("wof-003", "wheel-of-fortune")
    lim = resolve_limits(t.rules, LimitChoice(minimum=Decimal(2), maximum=Decimal(200)))
    assert bet(t, "segment", ("20",), "200", lim=lim).amount == 200
    with pytest.raises(RuleError, match="above its maximum 200"):
        bet(t, "segment", ("20",), "201", lim=lim)
    with pytest.raises(RuleError, match="needs its maximum"):
        resolve_limits(t.rules, LimitChoice(minimum=Decimal(2)))
    with pytest.raises(RuleError, match="below the minimum 5"):
        resolve_limits(t.rules, LimitChoice(minimum=Decimal(5), maximum=Decimal(2)))


def test_a_colour_chip_is_worth_between_the_straight_up_minimum_and_maximum():
    t = table("1979", "american-roulette")
    lim = limits(t, "1")
    check_colour_value(lim, "green", Decimal("20"), t.rounding_unit)
    with pytest.raises(RuleError, match=r"between the straight-up minimum 1.* and maximum 20"):
        check_colour_value(lim, "green", Decimal("25"), t.rounding_unit)
    with pytest.raises(RuleError, match=r"whole number of 0\.01"):
        check_colour_value(lim, "green", Decimal("2.005"), t.rounding_unit)


def test_colour_chips_value_a_bet_and_default_to_the_table_minimum():
    from bingo_hall.tables.bets import BetRequest, check_bet

    t = table("1979", "american-roulette")
    lim = limits(t, "2")
    chips = BetRequest(id="g", type="straight", numbers=(17,), colour="green", chips=3)
    assert check_bet(t, lim, chips, {"green": Decimal("2.50")}).amount == Decimal("7.50")
    assert check_bet(t, lim, chips, {}).amount == 6  # no value chosen: the table minimum
    mixed = chips.model_copy(update={"amount": Decimal(5)})
    with pytest.raises(RuleError, match="give either amount, or colour and chips"):
        check_bet(t, lim, mixed, {})
    french = table("1979", "french-roulette")
    with pytest.raises(RuleError, match="colour chips are used only at American roulette"):
        check_bet(french, limits(french), chips, {})


@given(st.dictionaries(st.sampled_from(["B1", "B2", "B3", "B4"]), st.sampled_from([1, 2])))
def test_boule_layouts_at_twice_the_minimum_need_one_open_at_it(layouts):
    """N79 L440: twice the authorised minimum only while another layout keeps it."""
    problem = boule_floor_problem(layouts)
    doubled = [t for t, multiple in layouts.items() if multiple == 2]
    assert (problem is None) == (not doubled or 1 in layouts.values())
    if problem is not None:
        assert all(t in problem.message for t in doubled) and "N79 L440" in problem.message


@given(st.dictionaries(st.sampled_from(["R1", "R2", "R3", "R4"]), st.booleans()))
def test_a_roulette_game_is_refused_exactly_when_its_open_tables_all_play_above_the_minimum(
    tables,
):
    """N79 L216, EUS L308: no open table, or one at the authorised minimum, keeps the rule."""
    problem = minimum_table_problem("french-roulette", Decimal("5"), tables)
    assert (problem is not None) == (bool(tables) and not any(tables.values()))
    if problem is not None:
        assert all(table in problem.message for table in tables) and "minimum 5" in problem.message
