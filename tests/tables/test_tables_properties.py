"""Property-based tests of settlement and money: for any valid bets of any game under any
profile and any outcome, the amounts add up, nothing is negative, and each bet's expected
return is exactly 1 − its house edge."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import GAMES, limits, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import Bet, BetRequest, check_bet
from bingo_hall.tables.catalogue import EVEN_CHANCES, LIMIT_GROUP, SECTOR_BETS
from bingo_hall.tables.profiles import (
    BouleRules,
    FortuneRules,
    RouletteRules,
    TableGame,
    ZeroChoice,
    ZeroRule,
)
from bingo_hall.tables.settlement import BetStatus, settle, void_coup

UNITS = {"neighbours": 5, "voisins": 9, "tiers": 6, "orphelins": 5}
CENT = Decimal("0.01")


@cache
def instances(profile: str, game: str) -> tuple[tuple[str, tuple], ...]:
    """Every (type, numbers) the table accepts (splits and streets found by trying them)."""
    t = table(profile, game)
    lim = limits(t)
    pockets = t.rules.wheel().pockets
    candidates: list[tuple[str, tuple]] = []
    for kind in t.rules.bet_types:
        if kind in ("straight", "number", "segment", "neighbours"):
            candidates += [(kind, (p,)) for p in pockets]
        elif kind == "split":
            candidates += [(kind, pair) for pair in combinations(pockets, 2)]
        elif kind in ("street", "trio"):
            rows = [tuple(str(n) for n in range(r, r + 3)) for r in range(1, 37, 3)]
            candidates += [(kind, row) for row in rows] + [
                (kind, ("0", "1", "2")),
                (kind, ("0", "2", "3")),
            ]
        elif kind == "corner":
            candidates += [
                (kind, tuple(str(n) for n in (low, low + 1, low + 3, low + 4)))
                for low in range(1, 33)
            ]
        elif kind == "sixline":
            candidates += [(kind, tuple(str(n) for n in range(r, r + 6))) for r in range(1, 32, 3)]
        elif kind in ("column", "dozen"):
            candidates += [(kind, (i,)) for i in ("1", "2", "3")]
        elif kind in ("two_columns", "two_dozens"):
            candidates += [(kind, ("1", "2")), (kind, ("2", "3"))]
        else:
            candidates.append((kind, ()))
    valid = []
    for kind, numbers in candidates:
        amount = Decimal(UNITS.get(kind, 1))
        try:
            check_bet(t, lim, BetRequest(id="x", type=kind, numbers=numbers, amount=amount))
        except RuleError:
            continue
        valid.append((kind, numbers))
    return tuple(valid)


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, str]:
    return draw(st.sampled_from(GAMES))


@st.composite
def bets_at(draw: st.DrawFn, t: TableGame, index: int) -> Bet:
    lim = limits(t)
    every = instances(t.profile_id, t.game.value)
    kind = draw(st.sampled_from(sorted({k for k, _ in every})))  # each type equally often
    kind, numbers = draw(st.sampled_from([i for i in every if i[0] == kind]))
    limit = lim.of("straight" if kind in SECTOR_BETS else LIMIT_GROUP[kind])
    units = UNITS.get(kind, 1)
    top = int(limit.maximum / CENT) // (2 if kind == "voisins" else 1)
    chip = draw(st.integers(int(limit.minimum / CENT), top))
    fields: dict = {}
    rules = t.rules
    french = isinstance(rules, RouletteRules) and rules.zero_rule is ZeroRule.HALF_OR_PRISON
    if kind in EVEN_CHANCES and french:
        fields["prison"] = draw(st.integers(0, 4))
        fields["zero_choice"] = draw(st.sampled_from([None, *ZeroChoice]))
    request = BetRequest(
        id=f"b{index}",
        type=kind,
        numbers=numbers,
        amount=Decimal(chip * units) * CENT,
        player=draw(st.sampled_from([None, "ana", "eva"])),
        **fields,
    )
    return check_bet(t, lim, request)


@st.composite
def coups(draw: st.DrawFn):
    profile, game = draw(tables())
    t = table(profile, game)
    bets = [draw(bets_at(t, i)) for i in range(draw(st.integers(0, 6)))]
    outcome = draw(st.sampled_from(t.rules.wheel().pockets))
    return t, bets, outcome, draw(st.booleans())


@settings(max_examples=150)
@given(coups())
def test_amounts_are_never_negative_and_add_up(coup):
    t, bets, outcome, last_coup = coup
    result = settle(t, limits(t), bets, outcome, last_coup=last_coup)
    for b, r in zip(bets, result.results, strict=True):
        assert r.id == b.id and r.stake == b.value
        for amount in (r.returns, r.carried, r.residue, r.stake):
            assert isinstance(amount, Decimal) and amount >= 0
        assert r.residue < CENT
        assert r.returns == r.returns.quantize(CENT)
        if r.status is BetStatus.LOST:
            assert r.returns == r.carried == r.residue == 0
        if r.status is BetStatus.WON:
            assert r.returns > r.stake and r.carried == 0
        if r.status in (BetStatus.HALF_BACK, BetStatus.RETURNED):
            assert r.returns <= r.stake and r.carried == 0
        if r.status is BetStatus.PRISON:
            assert r.returns == 0 and 0 < r.carried <= r.stake and not last_coup
        assert r.returns + r.residue <= r.stake * 46  # the figures pay 45:1
    totals = result.totals
    assert totals.staked == sum(r.stake for r in result.results)
    assert totals.returns == sum(r.returns for r in result.results)
    assert totals.carried == sum(r.carried for r in result.results)
    assert totals.residue == sum(r.residue for r in result.results)
    assert totals.bank_result == totals.staked - totals.returns - totals.carried
    assert sum(p.amount for p in result.payment_order) == totals.returns
    paid = {p.bet for p in result.payment_order}
    assert paid == {r.id for r in result.results if r.returns > 0}
    assert set(result.collected) == {r.id for r in result.results if r.status is BetStatus.LOST}


@settings(max_examples=60)
@given(coups(), st.randoms(use_true_random=False))
def test_the_same_input_gives_the_same_settlement_whatever_the_bets_order(coup, rng):
    t, bets, outcome, last_coup = coup
    first = settle(t, limits(t), bets, outcome, last_coup=last_coup)
    assert settle(t, limits(t), bets, outcome, last_coup=last_coup) == first
    shuffled = list(bets)
    rng.shuffle(shuffled)
    again = settle(t, limits(t), shuffled, outcome, last_coup=last_coup)
    assert {r.id: r for r in again.results} == {r.id: r for r in first.results}


@settings(max_examples=60)
@given(coups())
def test_a_void_coup_hands_nothing_back_and_keeps_every_stake(coup):
    t, bets, _, _ = coup
    reason = t.rules.void_reasons[0]
    result = void_coup(t, bets, reason)
    assert all(r.status is BetStatus.VOID and r.returns == 0 for r in result.results)
    assert [r.carried for r in result.results] == [b.value for b in bets]
    assert [r.prison for r in result.results] == [b.prison for b in bets]
    assert result.totals.bank_result == 0 and result.payment_order == ()


WOF_EDGE = {
    "1": Fraction(1, 9),
    "2": Fraction(1, 6),
    "5": Fraction(2, 9),
    "10": Fraction(5, 27),
    "20": Fraction(2, 9),
    "joker": Fraction(4, 27),
    "logo": Fraction(4, 27),
}


def spec_edge(t: TableGame, b: Bet) -> Fraction:
    """The house edge of a fresh bet, from the spec's table (§8)."""
    rules = t.rules
    if isinstance(rules, FortuneRules):
        return WOF_EDGE[b.numbers[0]]
    if isinstance(rules, BouleRules):
        return Fraction(1, 9)
    double = rules.wheel_kind == "double_zero"
    if b.is_even_chance:
        return Fraction(1, 38) if double else Fraction(1, 74)
    if b.type == "five_number":
        return Fraction(3, 38)
    return Fraction(1, 19) if double else Fraction(1, 37)


@settings(max_examples=80)
@given(st.data())
def test_a_bets_expected_return_is_exactly_one_minus_its_house_edge(data):
    profile, game = data.draw(tables())
    t = table(profile, game)
    b = data.draw(bets_at(t, 0)).model_copy(update={"prison": 0, "zero_choice": None})
    wheel = t.rules.wheel()
    expected = Fraction(0)
    for pocket in wheel.pockets:
        (r,) = settle(t, limits(t), [b], pocket, zero_choice=ZeroChoice.HALF).results
        expected += wheel.probability(pocket) * Fraction(r.returns + r.residue)
    assert expected / Fraction(b.amount) == 1 - spec_edge(t, b)
