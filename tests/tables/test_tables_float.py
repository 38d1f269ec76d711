"""A table's float («anticipo»): the least the Basque wheel of fortune is given (EUS L51-53),
the top-ups a change of minimum obliges (N77 L285-290: in proportion; EUS L304: if needed),
and the director's top-ups, all in the table's record and back to the cash desk at closing."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import NOW, Table, default_choice, refused, request, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.decide import decide
from bingo_hall.tables.evolve import replay
from bingo_hall.tables.floats import minimum_float
from bingo_hall.tables.state import TableState

WOF = table("basque", "wheel-of-fortune")
FRENCH_77 = table("1977", "french-roulette")
FRENCH_EUS = table("basque", "french-roulette")


def test_the_basque_wheel_of_fortune_is_given_at_least_15000_times_its_minimum():
    choice = default_choice(WOF, "2")
    assert minimum_float(WOF, Decimal(2)) == Decimal(30000)
    assert Table(WOF, choice, float_amount=Decimal(30000)).state.float_amount == 30000
    for amount, words in (
        (Decimal("29999.99"), "below the 30000 a table at minimum 2 is given"),
        (None, "a float of at least 30000"),
        (Decimal("-5"), "a positive amount"),
        (Decimal("30000.001"), "in units of 0.01"),
    ):
        opening = c.OpenTable(table_id="T1", table=WOF, limits=choice, float_amount=amount)
        with pytest.raises(RuleError, match=words):
            decide(TableState(), opening, NOW)


def test_a_profile_without_a_minimum_float_opens_with_any_float_or_none_kept():
    for amount in (None, Decimal("0.01"), Decimal(5000)):
        assert Table(FRENCH_EUS, float_amount=amount).state.float_amount == amount
    assert minimum_float(FRENCH_EUS, Decimal(1)) is None


@settings(max_examples=60, deadline=None)
@given(
    float_cents=st.integers(1, 10**8),
    old=st.integers(1, 500),
    rise=st.integers(1, 500),
    extra_cents=st.integers(-(10**6), 10**6),
)
def test_an_1977_raise_tops_the_float_up_in_proportion_to_the_minimum(
    float_cents, old, rise, extra_cents
):
    """N77 L285-290: «incrementar, en las proporciones que respectivamente correspondan, el
    montante del anticipo». A top-up short of the proportion is refused and changes nothing;
    one that reaches it keeps the float at least in proportion to the minimum."""
    float_amount = Decimal(float_cents) / 100
    old_min, new_min = Decimal(old), Decimal(old + rise)
    table_ = Table(FRENCH_77, default_choice(FRENCH_77, str(old)), float_amount=float_amount)
    due = (float_amount * new_min / old_min).quantize(Decimal("0.01"), ROUND_CEILING)
    due -= float_amount
    top_up = max(Decimal(0), due + Decimal(extra_cents) / 100)
    change = c.ChangeLimits(
        limits=default_choice(FRENCH_77, str(new_min)),
        requested_by="director",
        authorisation="DGOJ 17/1977",
        float_top_up=top_up,
    )
    if top_up < due:
        assert f"by at least {due}, not {top_up}" in refused(table_, change)
        return
    (changed,) = table_.do(change)
    assert isinstance(changed, e.LimitsChanged) and changed.float_top_up == top_up
    after = table_.state.float_amount
    assert after == float_amount + top_up
    assert after / new_min >= float_amount / old_min
    assert replay(table_.events) == table_.state


def test_a_basque_change_tops_up_at_the_request_whatever_the_director_judges_needed():
    table_ = Table(FRENCH_EUS, float_amount=Decimal(2000))
    (announced,) = table_.do(
        c.ChangeLimits(
            limits=default_choice(FRENCH_EUS, "2"),
            requested_by="director",
            float_top_up=Decimal(500),
        )
    )
    assert isinstance(announced, e.LimitsChangeAnnounced) and announced.float_top_up == 500
    assert table_.state.float_amount == Decimal(2500)
    for outcome in ("7", "8", "9"):  # the last three balls at the old limits
        table_.coup(outcome)
    assert table_.state.limits is not None and table_.state.limits.table_minimum == 2
    assert table_.state.float_amount == Decimal(2500)  # added once, at the request


def test_the_director_tops_the_float_up_while_the_table_plays_and_it_goes_back_at_closing():
    table_ = Table(FRENCH_EUS, float_amount=Decimal(2000))
    table_.open_bets()
    (topped,) = table_.do(c.TopUpFloat(amount=Decimal("750.50"), ordered_by="director"))
    assert isinstance(topped, e.FloatToppedUp) and topped.float_amount == Decimal("2750.50")
    for amount, words in (
        (Decimal(0), "a positive amount"),
        (Decimal("1.001"), "units of"),
        (Decimal("1E+400"), "up to 1,000,000,000,000,000"),
    ):
        assert words in refused(table_, c.TopUpFloat(amount=amount, ordered_by="director"))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="3"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    table_.do(c.AnnounceLastCoups())
    for outcome in ("1", "2", "4"):
        table_.coup(outcome)
    uncounted = refused(table_, c.CloseTable(seal="S-1"))
    assert "count the float before closing (float_count)" in uncounted and "2750.50" in uncounted
    (closed,) = table_.do(c.CloseTable(seal="S-1", float_count=Decimal("2750.50")))
    assert isinstance(closed, e.TableClosed) and closed.float_amount == Decimal("2750.50")
    assert closed.float_expected == Decimal("2750.50")  # no bet: the bank kept nothing
    assert replay(table_.events) == table_.state


def test_the_float_counted_at_the_close_is_set_against_the_bank_and_the_exchanges():
    """The «arqueo»: the float handed and topped up, plus what the bank kept, less the value
    chips given for banknotes (which are in the cash box), is what the float should hold."""
    table_ = Table(FRENCH_EUS, float_amount=Decimal(2000))
    table_.do(c.TakeTable(head="jmj"))
    table_.do(c.TopUpFloat(amount=Decimal("750.50"), ordered_by="director"))
    table_.do(c.ExchangeAtTable(kind="banknotes", amount=Decimal(100), croupier="ana"))
    table_.do(c.ExchangeAtTable(kind="chips", amount=Decimal(40), croupier="ana"))
    # 17 wins its straight (350 paid beside the stake), red loses its 20 to the bank
    table_.coup("17", request("s", "straight", (17,), "10"), request("r", "red", (), "20"))
    table_.do(c.AnnounceLastCoups())
    for outcome in ("1", "2", "4"):
        table_.coup(outcome)
    for amount in ("-1", "0.001"):
        message = refused(table_, c.CloseTable(seal="S", float_count=Decimal(amount)))
        assert message.startswith("the float counted is an amount of 0 or more")
    assert "the tips is" in refused(
        table_, c.CloseTable(seal="S", float_count=Decimal(1), tips=Decimal(-5))
    )
    (closed,) = table_.do(
        c.CloseTable(seal="S", float_count=Decimal("2320.50"), tips=Decimal("12.50"))
    )
    assert isinstance(closed, e.TableClosed)
    assert (closed.bank_result, closed.cash_box) == (Decimal(-330), Decimal(100))
    assert closed.float_expected == Decimal("2320.50")  # 2,750.50 − 330 − 100
    assert (closed.float_count, closed.tips) == (Decimal("2320.50"), Decimal("12.50"))


def test_a_float_kept_elsewhere_may_still_be_counted_at_the_close():
    table_ = Table(table("1979", "french-roulette"))
    (closed,) = table_.do(c.CloseTable(seal="S", float_count=Decimal(900)))
    assert isinstance(closed, e.TableClosed)
    assert (closed.float_count, closed.float_expected) == (Decimal(900), None)


def test_a_float_not_kept_here_stays_unknown_through_top_ups():
    table_ = Table(FRENCH_EUS)
    (topped,) = table_.do(c.TopUpFloat(amount=Decimal(100), ordered_by="director"))
    assert isinstance(topped, e.FloatToppedUp) and topped.float_amount is None
    assert table_.state.float_amount is None
