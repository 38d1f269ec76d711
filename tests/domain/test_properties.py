"""Property-based tests of claims and money against independent oracles."""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.domain.cards import Card
from bingo_hall.domain.claims import verify_bingo, verify_line
from bingo_hall.domain.money import percentage_of, split_equally
from card_generator.sampler import sample_card
from support.hall import Hall, profile

PROFILES = {name: profile(name) for name in ("1977", "1979", "basque")}

cards = st.integers(min_value=0, max_value=2**64).map(
    lambda seed: Card(sample_card(random.Random(seed)))
)
call_orders = st.permutations(list(range(1, 91)))


def oracle_line_rows(card: Card, calls: list[int], k: int, strict: bool) -> tuple[int, ...]:
    """Rows complete after k calls; with the 1977 rules, only those holding the k-th ball."""
    seen = set(calls[:k])
    return tuple(
        r for r, row in enumerate(card.rows) if row <= seen and (not strict or calls[k - 1] in row)
    )


@given(card=cards, calls=call_orders, k=st.integers(1, 90), name=st.sampled_from(list(PROFILES)))
def test_line_verdict_matches_the_oracle(card, calls, k, name):
    rules = PROFILES[name]
    verdict = verify_line(card, calls, k, rules, line_won_at=None)
    expected = oracle_line_rows(card, calls, k, strict=name == "1977")
    assert verdict.valid == bool(expected)
    if verdict.valid:
        assert verdict.rows == expected


@given(card=cards, calls=call_orders, k=st.integers(1, 90), name=st.sampled_from(list(PROFILES)))
def test_bingo_verdict_matches_the_oracle(card, calls, k, name):
    verdict = verify_bingo(card, calls, k, PROFILES[name])
    complete = card.numbers <= set(calls[:k])
    expected = complete and (name != "1977" or calls[k - 1] in card.numbers)
    assert verdict.valid == expected


@given(card=cards, calls=call_orders, k=st.integers(2, 90), won=st.integers(1, 89))
def test_no_line_pays_after_a_line_was_won_on_an_earlier_ball(card, calls, k, won):
    won = min(won, k - 1)
    verdict = verify_line(card, calls, k, PROFILES["1979"], line_won_at=won)
    assert not verdict.valid and verdict.reason == "line_already_won"


@given(
    pot=st.integers(0, 10**9).map(lambda cents: Decimal(cents) / 100),
    ways=st.integers(1, 200),
)
def test_split_never_pays_more_than_the_pot_and_loses_nothing(pot, ways):
    share, residue = split_equally(pot, ways)
    assert share * ways + residue == pot
    assert Decimal(0) <= residue < Decimal("0.01") * ways
    assert share == share.quantize(Decimal("0.01"))


@given(
    base=st.integers(0, 10**9).map(lambda cents: Decimal(cents) / 100),
    percent=st.integers(0, 10000).map(lambda bp: Decimal(bp) / 100),
)
def test_percentage_is_rounded_down_to_the_cent(base, percent):
    amount = percentage_of(base, percent)
    exact = base * percent / 100
    assert amount <= exact < amount + Decimal("0.01")


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**32),
    calls=call_orders,
    sold=st.integers(2, 40),
    name=st.sampled_from(list(PROFILES)),
)
def test_a_whole_game_pays_exactly_the_first_cards_to_complete(seed, calls, sold, name):
    """Honest players claim the moment a card completes; the engine must pay exactly the cards
    whose line (bingo) completed first, share the pot equally and lose no cent."""
    rng = random.Random(seed)
    grids = [sample_card(rng) for _ in range(sold)]
    hall = Hall(PROFILES[name]).open_ready((("A1", "1.50", 300),))
    hall.game_drawing((("A1", 1, sold),))
    position = {n: i + 1 for i, n in enumerate(calls)}
    line_at = [min(max(position[n] for n in row) for row in Card(g).rows) for g in grids]
    bingo_at = [max(position[n] for n in Card(g).numbers) for g in grids]
    first_line, first_bingo = min(line_at), min(bingo_at)
    paid: dict[str, tuple[set[int], Decimal, Decimal, Decimal]] = {}
    for ordinal, number in enumerate(calls, start=1):
        hall.draw(number)
        line_open = hall.state.game.line_won_at is None
        claims = [("line", i) for i in range(sold) if line_open and line_at[i] == ordinal] + [
            ("bingo", i) for i in range(sold) if bingo_at[i] == ordinal
        ]
        if not claims:
            continue
        for kind, i in claims:
            hall.claim(kind, i + 1, grid=grids[i])
        hall.verify()
        for event in hall.order():
            if event.type == "prize_split":
                winners = {w.card_number - 1 for w in event.winners}
                paid[event.kind] = (winners, event.pot, event.share, event.residue)
        if hall.state.game is None:
            break
    line_winners = {i for i in range(sold) if line_at[i] == first_line}
    bingo_winners = {i for i in range(sold) if bingo_at[i] == first_bingo}
    takings = Decimal("1.50") * sold
    bingo_pot = percentage_of(takings, Decimal(60))
    line_pot = percentage_of(takings, Decimal(10))
    if first_line < first_bingo:
        assert paid["line"][0] == line_winners and paid["line"][1] == line_pot
    else:
        assert "line" not in paid or paid["line"][0] == line_winners
    winners, pot, share, residue = paid["bingo"]
    assert winners == bingo_winners
    expected_pot = bingo_pot + (line_pot if "line" not in paid else 0)
    assert pot == expected_pot
    assert share * len(winners) + residue == pot
