"""The French zero rule for even chances – half back or prison – and the other games' zeros
(spec §2.5 worked examples 5-11, §3.5, §5.3)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from tables_support import bet, limits, settle_one, table

from bingo_hall.tables.profiles import ZeroChoice
from bingo_hall.tables.settlement import BetStatus
from bingo_hall.tables.zero_rule import on_zero, options

FRENCH = table("1979", "french-roulette")
HALF, PRISON = ZeroChoice.HALF, ZeroChoice.PRISON


def one(t, b, outcome, lim=None, **options):
    (result,) = settle_one(t, b, outcome, lim, **options).results
    return result


def test_example_5_half_back_on_the_first_zero():
    r = one(FRENCH, bet(FRENCH, "red"), "0", zero_choice=HALF)
    assert (r.status, r.returns, r.carried, r.prison) == (BetStatus.HALF_BACK, 5, 0, 1)


def test_example_6_prison_then_red_frees_the_stake_without_winnings():
    r = one(FRENCH, bet(FRENCH, "red"), "0", zero_choice=PRISON)
    assert (r.status, r.returns, r.carried, r.prison) == (BetStatus.PRISON, 0, 10, 1)
    freed = one(FRENCH, bet(FRENCH, "red", prison=1), "3")
    assert (freed.status, freed.returns, freed.carried) == (BetStatus.RETURNED, 10, 0)


def test_prison_then_another_chance_loses_for_good():
    r = one(FRENCH, bet(FRENCH, "red", prison=1), "2")
    assert (r.status, r.returns, r.carried) == (BetStatus.LOST, 0, 0)


def test_example_7_second_zero_half_is_a_quarter_of_the_initial_stake():
    r = one(FRENCH, bet(FRENCH, "red", prison=1), "0", zero_choice=HALF)
    assert (r.status, r.returns, r.prison) == (BetStatus.HALF_BACK, Decimal("2.50"), 2)


def test_example_8_below_the_table_minimum_the_bet_must_stay_in_prison():
    lim = limits(FRENCH, "10")
    r = one(FRENCH, bet(FRENCH, "red", lim=lim, prison=1), "0", lim, zero_choice=HALF)
    assert (r.status, r.returns, r.carried, r.prison, r.forced) == (
        BetStatus.PRISON,
        0,
        5,
        2,
        "below_minimum",
    )
    freed = one(FRENCH, bet(FRENCH, "red", lim=lim, prison=2), "3", lim)
    assert (freed.status, freed.returns, freed.stake) == (BetStatus.RETURNED, 5, 5)


def test_example_9_and_10_the_last_coup_forces_the_half_of_the_current_value():
    first = one(FRENCH, bet(FRENCH, "red"), "0", last_coup=True, zero_choice=PRISON)
    assert (first.status, first.returns, first.forced) == (BetStatus.HALF_BACK, 5, "last_coup")
    second = one(FRENCH, bet(FRENCH, "red", prison=1), "0", last_coup=True)
    assert (second.status, second.returns) == (BetStatus.HALF_BACK, Decimal("2.50"))


def test_the_last_coup_overrides_the_below_minimum_clause():
    lim = limits(FRENCH, "10")
    r = one(FRENCH, bet(FRENCH, "red", lim=lim, prison=3), "0", lim, last_coup=True)
    assert (r.status, r.returns, r.forced) == (BetStatus.HALF_BACK, Decimal("0.62"), "last_coup")
    assert r.residue == Decimal("0.005")  # 10/16 = 0.625: the half cent is reported, not lost


@pytest.mark.parametrize("k", range(0, 12))
def test_the_prison_chain_halves_the_initial_stake_at_each_zero(k):
    """A stake S at its (k+1)-th zero: S/2^k stays in prison, or S/2^(k+1) comes back."""
    lim = limits(FRENCH, "0.01")
    stake = Decimal("5.12")
    b = bet(FRENCH, "odd", amount="5.12", lim=lim, prison=k)
    assert b.value == stake / 2 ** max(k - 1, 0)
    kept = one(FRENCH, b, "0", lim, zero_choice=PRISON)
    assert (kept.status, kept.prison, kept.stake) == (BetStatus.PRISON, k + 1, b.value)
    assert kept.carried == stake / 2**k
    half = one(FRENCH, b, "0", lim, zero_choice=HALF)
    if k >= 1 and stake / 2**k < lim.table_minimum:
        assert (half.status, half.forced) == (BetStatus.PRISON, "below_minimum")
    else:
        assert half.status is BetStatus.HALF_BACK
        assert half.returns + half.residue == stake / 2 ** (k + 1)
        assert Decimal(0) <= half.residue < Decimal("0.01")


def test_a_chain_of_zeros_through_settlement_matches_the_formula():
    lim = limits(FRENCH, "0.01")
    b = bet(FRENCH, "high", amount="5.12", lim=lim)
    values = []
    for _ in range(6):
        r = one(FRENCH, b, "0", lim, zero_choice=PRISON)
        values.append(r.carried)
        b = b.model_copy(update={"prison": r.prison})
    assert values == [Decimal(x) for x in ("5.12", "2.56", "1.28", "0.64", "0.32", "0.16")]
    assert one(FRENCH, b, "20", lim).returns == Decimal("0.16")  # freed at its value


def test_1977_has_no_below_minimum_clause_so_the_half_stays_open():
    old = table("1977", "french-roulette")
    lim = limits(old, "10")
    r = one(old, bet(old, "red", lim=lim, prison=1), "0", lim, zero_choice=HALF)
    assert (r.status, r.returns) == (BetStatus.HALF_BACK, Decimal("2.50"))


def test_the_default_for_a_silent_player_is_prison_and_a_bets_own_choice_wins():
    assert one(FRENCH, bet(FRENCH, "red"), "0").status is BetStatus.PRISON
    own = bet(FRENCH, "red", zero_choice=HALF)
    assert one(FRENCH, own, "0", zero_choice=PRISON).status is BetStatus.HALF_BACK


def test_options_name_what_forces_a_choice():
    settings = FRENCH.rules.prison
    assert options(Decimal(10), 0, settings, Decimal(1), False) == (frozenset(ZeroChoice), None)
    assert options(Decimal(10), 0, settings, Decimal(1), True) == (
        frozenset({HALF}),
        "last_coup",
    )
    assert options(Decimal(10), 1, settings, Decimal(10), False) == (
        frozenset({PRISON}),
        "below_minimum",
    )
    # At the first zero the stake itself is compared only if the profile says so.
    assert options(Decimal(10), 0, settings, Decimal(20), False)[1] is None
    strict = settings.model_copy(update={"below_minimum_from_first_zero": True})
    assert options(Decimal(10), 0, strict, Decimal(20), False)[1] == "below_minimum"
    # Comparing the refund W_k instead of the value C_k (the alternative reading, §12 Q4).
    refund = settings.model_copy(update={"below_minimum_compares": "refund"})
    assert options(Decimal(20), 1, settings, Decimal(10), False)[1] is None
    assert options(Decimal(20), 1, refund, Decimal(10), False)[1] == "below_minimum"
    verdict = on_zero(Decimal(20), 1, settings, Decimal(1), False, HALF)
    assert (verdict.zeros, verdict.value, verdict.refund) == (2, 10, 5)


def test_example_11_american_half_is_automatic_and_there_is_no_prison():
    t = table("asturias", "american-roulette")
    r = one(t, bet(t, "odd"), "0", zero_choice=PRISON)
    assert (r.status, r.returns, r.carried) == (BetStatus.HALF_BACK, 5, 0)
    assert one(t, bet(t, "odd"), "0", last_coup=True).returns == 5


def test_double_zero_gives_the_half_back_on_0_and_on_00():
    t = table("asturias", "american-roulette-00")
    for pocket in ("0", "00"):
        r = one(t, bet(t, "low"), pocket)
        assert (r.status, r.returns) == (BetStatus.HALF_BACK, 5)


def test_boule_even_chances_lose_on_the_house_number_and_the_5_pays_seven_to_one():
    t = table("1979", "boule")
    for kind in ("red", "black", "even", "odd", "low", "high"):
        assert one(t, bet(t, kind), "5").status is BetStatus.LOST
    assert one(t, bet(t, "number", ("5",)), "5").returns == 80  # example 16
    assert one(t, bet(t, "odd"), "5").returns == 0  # example 17


def test_bets_covering_zero_win_on_zero_and_the_rest_lose():
    t = table("basque", "french-roulette")
    voisins = one(t, bet(t, "voisins", amount="9"), "0")  # example 13
    assert (voisins.status, voisins.returns) == (BetStatus.WON, 24)
    assert one(t, bet(t, "dozen", (1,)), "0").status is BetStatus.LOST
    assert one(t, bet(t, "first_four"), "0").returns == 90
