"""Refunds of a voided game's cards (S79 L1222, S77 L2518-2524): the Cajero refunds ranges of
the cards the game sold, at face value, as the players hand them back; never a card twice,
never one the game did not sell, in the void's session or a later one."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.domain import PhaseError, RuleError, decide
from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.evolve import replay
from bingo_hall.domain.profiles import VoidReason
from support.hall import Hall, profile

BREAKDOWN = c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="Avería del soplador")


def voided(sales=(("A1", 1, 60), ("B1", 1, 10))) -> Hall:
    """A 1979 game sold (A1 at 1,50 €, B1 at 3,00 €) and voided before its draw."""
    hall = Hall(profile("1979")).open_ready(series=(("A1", "1.50", 300), ("B1", "3.00", 300)))
    series = tuple(dict.fromkeys(s for s, _, _ in sales))
    hall.run(c.AnnounceSeries(series=series))
    hall.run(c.StartSale())
    for series_id, first, last in sales:
        hall.run(c.RecordSale(series_id=series_id, first=first, last=last))
    hall.run(BREAKDOWN)
    return hall


def refund(hall: Hall, series_id: str, first: int, last: int, game_id: int = 1) -> list[e.Event]:
    return hall.run(c.PayRefund(game_id=game_id, series_id=series_id, first=first, last=last))


def refused(hall: Hall, command: c.Command, match: str) -> None:
    """The command is refused with a RuleError and changes nothing."""
    before = hall.state
    with pytest.raises(RuleError, match=match):
        decide(hall.state, command, hall.now)
    assert hall.state is before


def test_a_range_is_refunded_at_face_value_and_the_rest_stays_owed():
    hall = voided()
    (paid,) = refund(hall, "A1", 1, 10)
    assert paid == e.RefundPaid(
        game_id=1, series_id="A1", first=1, last=10, cards=10, amount=Decimal("15.00")
    )
    ledger = hall.state.refunds[1]
    assert [(r.series_id, r.first, r.last) for r in ledger.owed()] == [
        ("A1", 11, 60),
        ("B1", 1, 10),
    ]
    assert ledger.paid_total == Decimal("15.00")
    assert ledger.owed_total == Decimal("75.00") + Decimal("30.00")
    (middle,) = refund(hall, "B1", 4, 5)
    assert middle.amount == Decimal("6.00")  # B1's face value
    assert [(r.series_id, r.first, r.last) for r in hall.state.refunds[1].owed()] == [
        ("A1", 11, 60),
        ("B1", 1, 3),
        ("B1", 6, 10),
    ]


def test_refusals_name_what_is_wrong_and_change_nothing():
    hall = voided()
    refund(hall, "A1", 1, 10)
    pay = c.PayRefund
    refused(hall, pay(game_id=2, series_id="A1", first=1, last=1), "game 2 was not voided")
    refused(hall, pay(game_id=1, series_id="A1", first=5, last=12), r"A1 nº 5 .*already")
    refused(hall, pay(game_id=1, series_id="A1", first=10, last=10), r"A1 nº 10 .*already")
    refused(hall, pay(game_id=1, series_id="A1", first=55, last=61), "not all sold in game 1")
    refused(hall, pay(game_id=1, series_id="B1", first=8, last=11), "not all sold in game 1")
    refused(hall, pay(game_id=1, series_id="C1", first=1, last=1), "not all sold in game 1")
    refused(hall, pay(game_id=1, series_id="A1", first=30, last=20), "first card is after")


def test_a_game_not_voided_refunds_nothing():
    hall = Hall(profile("1979")).open_ready().game_drawing()
    refused(hall, c.PayRefund(game_id=1, series_id="A1", first=1, last=1), "was not voided")


def test_refunds_are_paid_in_a_later_session_until_every_card_is_refunded():
    hall = voided(sales=(("A1", 1, 60),))
    refund(hall, "A1", 1, 10)
    hall.run(c.CloseSession())
    with pytest.raises(PhaseError):  # as a prize: not while the hall is closed
        refund(hall, "A1", 11, 20)
    hall.run(hall.opening("pneumatic"))
    assert hall.state.refunds[1].session_id == 1
    refund(hall, "A1", 11, 60)
    assert hall.state.refunds[1].settled
    refused(hall, c.PayRefund(game_id=1, series_id="A1", first=60, last=60), "already")
    hall.run(c.RecordEquipmentCheck(ok=True))
    hall.run(c.LoadBalls())
    hall.run(c.AnnounceSeries(series=("A1",)))  # a settled ledger goes, as a paid prize does
    assert 1 not in hall.state.refunds
    refused(hall, c.PayRefund(game_id=1, series_id="A1", first=1, last=1), "owes no refund")
    assert replay(hall.log) == hall.state


# --- property: any sequence of refund ranges ---------------------------------------------------

SOLD = (("A1", 1, 40), ("B1", 1, 20))
FACE = {"A1": Decimal("1.50"), "B1": Decimal("3.00")}
ranges = st.lists(
    st.tuples(
        st.sampled_from(["A1", "B1", "C1"]),
        st.integers(-2, 45),  # first card (below 1: bad input)
        st.integers(0, 12),
        st.sampled_from([1, 1, 1, 2]),  # mostly the voided game; game 2 was not voided
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(attempts=ranges)
def test_any_sequence_of_refunds_never_pays_a_card_twice_nor_more_than_the_refund_total(
    attempts,
):
    hall = voided(sales=SOLD)
    (void,) = [ev for ev, _ in hall.log if isinstance(ev, e.GameVoided)]
    refunded: set[tuple[str, int]] = set()
    sold = {(s, n) for s, first, last in SOLD for n in range(first, last + 1)}
    total = Decimal(0)
    for series_id, first, length, game_id in attempts:
        last = first + length - 1 if length else first - 1  # length 0: an empty range
        cards = {(series_id, n) for n in range(first, last + 1)}
        legal = game_id == 1 and first >= 1 and cards and cards <= sold and not cards & refunded
        before = hall.state
        try:
            command = c.PayRefund(game_id=game_id, series_id=series_id, first=first, last=last)
        except ValueError:  # a card number below 1 is bad input, refused before the rules
            assert first < 1 or last < 1
            continue
        try:
            (paid,) = hall.run(command)
        except RuleError:
            assert not legal, (series_id, first, last)
            assert hall.state is before  # a refusal changes nothing
            continue
        assert legal, (series_id, first, last)
        assert paid.cards == len(cards) and paid.amount == FACE[series_id] * len(cards)
        refunded |= cards
        total += paid.amount
        ledger = hall.state.refunds[1]
        assert ledger.paid_total == total <= void.refund_total
        assert ledger.paid_total + ledger.owed_total == void.refund_total
        owed = {(r.series_id, n) for r in ledger.owed() for n in range(r.first, r.last + 1)}
        assert owed == sold - refunded
    assert replay(hall.log) == hall.state
