"""Exchanges at a table («cambios», N79 L125, L569; spec wheels.md §7 item 9): made by a
croupier under the control of the table's head or deputy head; the banknotes go into the
table's cash box, which the closing records."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import NOW, Table, default_choice, refused, table

from bingo_hall.domain.errors import PhaseError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.evolve import replay
from bingo_hall.tables.exchanges import ExchangeKind
from bingo_hall.tables.profiles import Role


def headed(profile: str = "1979", game: str = "french-roulette", **fields: object) -> Table:
    table_ = Table(table(profile, game), **fields)
    table_.do(c.TakeTable(head="jmj"))
    return table_


def exchange(amount: str, kind: str = "banknotes", **fields: object) -> c.ExchangeAtTable:
    return c.ExchangeAtTable(
        kind=ExchangeKind(kind), amount=Decimal(amount), croupier="ana", **fields
    )


def test_banknotes_go_into_the_cash_box_and_chips_for_chips_move_no_money():
    table_ = headed()
    (made,) = table_.do(exchange("500", player="P-1"))
    assert made == e.ExchangeMade(
        kind=ExchangeKind.BANKNOTES,
        amount=Decimal(500),
        croupier="ana",
        controlled_by="jmj",
        player="P-1",
        cash_box=Decimal(500),
    )
    (chips,) = table_.do(exchange("100", "chips"))
    assert (chips.controlled_by, chips.cash_box) == ("jmj", Decimal(500))
    table_.do(c.OpenBets())  # during a coup too
    table_.do(exchange("20.50"))
    assert table_.state.cash_box == Decimal("520.50")
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="3"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    (closed,) = table_.do(c.CloseTable(seal="S-1"))
    assert closed.cash_box == Decimal("520.50")
    table_.do(
        c.OpenTable(
            table_id="T1",
            table=table("1979", "french-roulette"),
            limits=default_choice(table("1979", "french-roulette")),
            seal_found="S-1",
        )
    )
    assert table_.state.cash_box == 0  # a new session, a new cash box


def test_no_exchange_is_made_without_the_head_or_deputy_head_to_control_it():
    roulette = table("1979", "french-roulette")
    table_ = Table(roulette, layouts=2)  # opened by the director: no head yet
    message = refused(table_, exchange("50"))
    assert "controlar los cambios», N79 L125" in message and "take_table" in message
    table_.do(c.TakeTable(head="sub", role=Role.DEPUTY_HEAD))
    (made,) = table_.do(exchange("50"))
    assert made.controlled_by == "sub"  # «el jefe y el subjefe»
    table_.do(c.TakeTable(head="jmj"))
    (made,) = table_.do(exchange("50"))
    assert made.controlled_by == "jmj"


@pytest.mark.parametrize("amount", ["0", "-5", "0.001", "1E+16"])
def test_an_exchange_is_a_positive_amount_in_the_tables_unit(amount):
    message = refused(headed(), exchange(amount))
    assert message.startswith("an exchange is a positive amount in units of 0.01")


def test_a_table_closed_for_a_while_makes_no_exchange_its_cash_box_locked():
    table_ = headed("basque")
    table_.do(c.SuspendTable(key_held_by="sala", closes_at=NOW + timedelta(hours=5)))
    with pytest.raises(PhaseError):
        table_.do(exchange("50"))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(list(ExchangeKind)),
            st.decimals(min_value=Decimal("0.01"), max_value=Decimal(10**6), places=2),
        ),
        max_size=12,
    )
)
def test_the_cash_box_is_the_sum_of_the_banknotes_exchanged_and_replays(exchanges):
    table_ = headed()
    for kind, amount in exchanges:
        table_.do(c.ExchangeAtTable(kind=kind, amount=amount, croupier="luis"))
    banknotes = sum(
        (amount for kind, amount in exchanges if kind is ExchangeKind.BANKNOTES), Decimal(0)
    )
    assert table_.state.cash_box == banknotes
    assert replay(table_.events) == table_.state
