"""Payment order as the texts give it (spec §2.10, §3.7, §6.5)."""

from __future__ import annotations

import pytest
from tables_support import bet, limits, table

from bingo_hall.tables.settlement import settle

ON_ONE = [
    ("straight", (1,)),
    ("split", (1, 2)),
    ("street", (1, 2, 3)),
    ("corner", (1, 2, 4, 5)),
    ("sixline", (1, 2, 3, 4, 5, 6)),
    ("column", (1,)),
    ("dozen", (1,)),
    ("two_columns", (1, 2)),
    ("two_dozens", (1, 2)),
    ("low", ()),
    ("odd", ()),
    ("red", ()),
]


def order(profile: str, game: str, bets, outcome: str) -> list[str]:
    t = table(profile, game)
    result = settle(t, limits(t), bets, outcome)
    return [f"{p.bet}:{p.kind}" if p.player else p.kind for p in result.payment_order]


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (
            "1979",  # N79 L228-230
            "column dozen two_columns two_dozens red odd low street sixline corner split straight",
        ),
        (
            "1977",  # N77 L308-317
            "column dozen two_columns two_dozens red odd low street sixline corner split straight",
        ),
        (
            "basque",  # EUS L318
            "two_columns column two_dozens dozen red odd low sixline street corner split straight",
        ),
    ],
)
def test_french_roulette_pays_in_the_order_of_its_text(profile, expected):
    t = table(profile, "french-roulette")
    bets = [bet(t, kind, numbers, id=kind) for kind, numbers in ON_ONE]
    assert order(profile, "french-roulette", bets, "1") == expected.split()


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("1977", "ana:column eva:odd ana:red ana:straight"),  # no «all at once» in N77
        ("1979", "ana:column ana:red ana:straight eva:odd"),  # N79 L262: a player's wins at once
        ("basque", "ana:column ana:straight eva:odd ana:red"),  # EUS L366: except even chances
    ],
)
def test_american_roulette_pays_a_players_wins_at_once_where_the_text_says_so(profile, expected):
    t = table(profile, "american-roulette")
    bets = [
        bet(t, "column", (1,), id="ana", player="ana"),
        bet(t, "red", (), id="ana", player="ana"),
        bet(t, "straight", (1,), id="ana", player="ana"),
        bet(t, "odd", (), id="eva", player="eva"),
    ]
    assert order(profile, "american-roulette", bets, "1") == expected.split()


def test_the_wheel_of_fortune_pays_from_the_smallest_bet_to_the_largest():
    t = table("wof-003", "wheel-of-fortune")
    bets = [bet(t, "segment", ("1",), amount, id=f"b{amount}") for amount in ("20", "5", "10")]
    result = settle(t, limits(t), bets, "1")
    assert [p.bet for p in result.payment_order] == ["b5", "b10", "b20"]
    basque = table("basque", "wheel-of-fortune")
    bets = [bet(basque, "segment", ("1",), a, id=f"b{a}") for a in ("20", "5", "10")]
    result = settle(basque, limits(basque), bets, "1")
    assert [p.bet for p in result.payment_order] == ["b20", "b5", "b10"]  # as placed


def test_sector_chips_are_paid_at_their_own_positions_place():
    t = table("basque", "french-roulette")
    bets = [bet(t, "straight", (0,), id="s"), bet(t, "voisins", (), "9", id="v")]
    result = settle(t, limits(t), bets, "0")
    assert [(p.bet, p.kind, p.amount) for p in result.payment_order] == [
        ("v", "trio", 24),
        ("s", "straight", 360),
    ]
    assert result.collected == ()


def test_halves_and_freed_stakes_are_paid_at_the_even_chances_place():
    t = table("1979", "french-roulette")
    bets = [
        bet(t, "straight", (0,), id="s"),
        bet(t, "red", id="r", zero_choice="half"),
        bet(t, "column", (1,), id="c"),
    ]
    result = settle(t, limits(t), bets, "0")
    assert [(p.bet, p.amount) for p in result.payment_order] == [("r", 5), ("s", 360)]
    assert result.collected == ("c",)
