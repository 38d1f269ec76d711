"""A Basque table left without customers closes for a while: its float locked at it, the
director holding the key, and an hour at least left before the casino's closing time; it plays
again only with a croupier and its head or inspector there, or closes for good (EUS L306, L378,
L686, L1533, L2931 d)."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tables_support import NOW, Table, default_choice, refused, request, table

from bingo_hall.domain.errors import PhaseError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.decide import CLOSURE_NOTICE
from bingo_hall.tables.evolve import replay
from bingo_hall.tables.phases import TablePhase as P
from bingo_hall.tables.profiles import Role

BASQUE_GAMES = ["french-roulette", "american-roulette", "boule", "wheel-of-fortune"]
MADRID = ZoneInfo("Europe/Madrid")
# the casino closes at 04:00 on the hall's clocks, five hours after NOW (23:00 there)
CLOSES_AT = datetime(2024, 5, 2, 4, 0, tzinfo=MADRID)
SUSPEND = c.SuspendTable(key_held_by="director", closes_at=CLOSES_AT)


def suspend(closes_at: datetime | None) -> c.SuspendTable:
    return c.SuspendTable(key_held_by="director", closes_at=closes_at)


def resume(head: str = "jmj", role: Role = Role.TABLE_HEAD) -> c.ResumeTable:
    return c.ResumeTable(unlocked_by="director", croupier="ana", head=head, head_role=role)


@pytest.mark.parametrize("game", BASQUE_GAMES)
def test_every_basque_game_closes_for_a_while_and_plays_again(game):
    table_ = Table(table("basque", game), float_amount=Decimal(50000))
    table_.do(c.TakeTable(head="jmj"))
    (suspended,) = table_.do(SUSPEND)
    assert isinstance(suspended, e.TableSuspended)
    assert suspended.float_amount == Decimal(50000)  # locked at the table
    assert suspended.closes_at == CLOSES_AT
    state = table_.state
    assert (state.phase, state.key_held_by, state.head) == (P.SUSPENDED, "director", None)
    (resumed,) = table_.do(resume("iker", Role.INSPECTOR))
    assert isinstance(resumed, e.TableResumed) and resumed.croupier == "ana"
    state = table_.state
    assert (state.phase, state.key_held_by, state.head) == (P.IDLE, None, "iker")
    assert state.float_amount == Decimal(50000)
    assert replay(table_.events) == state


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias"])
def test_other_catalogues_close_a_table_only_for_good(profile):
    table_ = Table(table(profile, "french-roulette"))
    assert "only the Basque catalogue provides it (EUS L306)" in refused(table_, SUSPEND)


def test_a_table_with_bets_on_its_layout_has_customers_and_stays_open():
    """An even chance in prison after a zero is a player's stake still on the layout."""
    table_ = Table(table("basque", "french-roulette"))
    table_.coup("0", request("r", "red"))
    assert table_.state.phase is P.IDLE and table_.state.bets["r"].prison == 1
    assert "bets are on the layout (r)" in refused(table_, SUSPEND)


def test_no_table_closes_for_a_while_once_the_last_coups_are_announced():
    table_ = Table(table("basque", "french-roulette"))
    table_.do(c.AnnounceLastCoups())
    assert "play them and close the table" in refused(table_, SUSPEND)


def test_a_table_closes_for_a_while_only_with_an_hour_left_before_closing_time():
    """«oraindik, gutxienez, … ixteko ezarritako ordutegia betetzeko ordubete geratzen denean»
    (EUS L2931 d): refused at 59 minutes, accepted at exactly 60."""
    table_ = Table(table("basque", "french-roulette"))
    late = refused(table_, suspend(NOW + timedelta(minutes=59)))
    assert late == (
        "the casino closes at 21:59 (UTC), 59 minutes from now: a table closes for a while only "
        "with at least an hour left before the closing time (EUS L2931 d); keep it open, or "
        "close it"
    )
    local = refused(table_, suspend(datetime(2024, 5, 1, 23, 59, 30, tzinfo=MADRID)))
    assert local.startswith("the casino closes at 23:59 (UTC+02:00), 59 minutes from now")
    gone = refused(table_, suspend(NOW - timedelta(seconds=1)))  # passed while it waited
    assert "0 minutes from now" in gone
    (suspended,) = table_.do(suspend(NOW + timedelta(hours=1)))
    assert isinstance(suspended, e.TableSuspended) and suspended.closes_at == NOW + CLOSURE_NOTICE


def test_a_table_closes_for_a_while_only_where_the_closing_time_is_configured():
    table_ = Table(table("basque", "boule"))
    message = refused(table_, suspend(None))
    assert message.startswith(
        "the hall's closing time is not configured (closing_time): a table closes for a while "
        "only with at least an hour left before the casino's closing time (EUS L2931 d)"
    )


def test_the_refusals_before_the_closing_time_keep_their_order():
    """The profile, the customers' bets and the last coups are refused first, as before."""
    assert "only the Basque catalogue" in refused(Table(table("1979", "boule")), suspend(None))
    table_ = Table(table("basque", "french-roulette"))
    table_.coup("0", request("r", "red"))
    assert "bets are on the layout (r)" in refused(table_, suspend(NOW))
    announced = Table(table("basque", "french-roulette"))
    announced.do(c.AnnounceLastCoups())
    assert "play them and close the table" in refused(announced, suspend(None))


def test_the_closing_time_is_on_the_record_and_replays():
    table_ = Table(table("basque", "american-roulette"))
    (suspended,) = table_.do(SUSPEND)
    payload = suspended.payload()
    assert payload["closes_at"] == "2024-05-02T04:00:00+02:00"  # the hall's clocks, and UTC
    assert e.event_from_payload("table_suspended", payload) == suspended
    old = {"key_held_by": "director", "float_amount": None}  # written before it was recorded
    assert e.event_from_payload("table_suspended", old).closes_at is None
    replayed = [e.event_from_payload(ev.type, ev.payload()) for ev in table_.events]
    assert replay(replayed) == replay(table_.events) == table_.state


def test_a_closing_time_without_its_offset_is_not_an_instant():
    with pytest.raises(ValidationError, match="timezone"):
        c.SuspendTable(key_held_by="director", closes_at=datetime(2024, 5, 2, 4, 0))


@settings(max_examples=200, deadline=None)
@given(st.integers(-2 * 3600, 26 * 3600), st.sampled_from(["UTC", "Europe/Madrid"]))
def test_a_table_closes_for_a_while_exactly_when_an_hour_or_more_is_left(seconds, zone):
    closes_at = (NOW + timedelta(seconds=seconds)).astimezone(ZoneInfo(zone))
    table_ = Table(table("basque", "french-roulette"))
    if seconds >= 3600:
        (suspended,) = table_.do(suspend(closes_at))
        assert isinstance(suspended, e.TableSuspended) and suspended.closes_at == closes_at
        assert table_.state.phase is P.SUSPENDED
    else:
        message = refused(table_, suspend(closes_at))
        assert f", {max(0, seconds // 60)} minute" in message and "(EUS L2931 d)" in message


def test_a_table_closes_for_a_while_only_between_coups():
    table_ = Table(table("basque", "french-roulette"))
    table_.open_bets()
    with pytest.raises(PhaseError):
        table_.do(SUSPEND)


def test_nothing_is_played_heads_taken_or_float_touched_while_it_is_closed():
    t = table("basque", "french-roulette")
    table_ = Table(t, float_amount=Decimal(2000))
    table_.do(SUSPEND)
    for command in (
        c.OpenBets(),
        c.PlaceBet(bet=request("r", "red")),
        c.TakeTable(head="jmj"),
        c.TopUpFloat(amount=Decimal(10), ordered_by="director"),
        c.ChangeLimits(limits=default_choice(t, "2"), requested_by="director"),
        c.SetSpinRotation(croupiers=("ana",), set_by="director"),
        c.AnnounceLastCoups(),
        SUSPEND,
    ):
        before = table_.state
        with pytest.raises(PhaseError):
            table_.do(command)
        assert table_.state == before


def test_play_resumes_only_with_a_head_the_profile_lets_direct_it():
    table_ = Table(table("basque", "french-roulette"))
    table_.do(SUSPEND)
    assert "not by the croupier" in refused(table_, resume("ana", Role.CROUPIER))


def test_a_table_closed_for_a_while_closes_for_good_without_its_last_balls():
    """The last three balls are announced at a table in play before closing time (EUS L2923);
    one closed for a while has no one to play them."""
    table_ = Table(table("basque", "french-roulette"), float_amount=Decimal(2000))
    table_.coup("5")
    table_.do(SUSPEND)
    (closed,) = table_.do(c.CloseTable(seal="S-9", float_count=Decimal(2000)))
    assert isinstance(closed, e.TableClosed)
    assert (closed.suspended, closed.coups, closed.float_amount) == (True, 1, Decimal(2000))
    assert table_.state.phase is P.CLOSED


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["coup", "suspend", "resume", "top_up"]), max_size=12))
def test_the_float_is_what_was_handed_plus_its_top_ups_whatever_the_closures(steps):
    """Closing for a while neither adds to the float nor takes from it, and replay agrees."""
    table_ = Table(table("basque", "french-roulette"), float_amount=Decimal(1000))
    handed = Decimal(1000)
    for step in steps:
        suspended = table_.state.phase is P.SUSPENDED
        if step == "coup" and not suspended:
            table_.coup("17")
        elif step == "suspend" and not suspended:
            table_.do(SUSPEND)
        elif step == "resume" and suspended:
            table_.do(resume())
        elif step == "top_up" and not suspended:
            table_.do(c.TopUpFloat(amount=Decimal(25), ordered_by="director"))
            handed += 25
    assert table_.state.float_amount == handed
    assert replay(table_.events) == table_.state
    if table_.state.phase is P.IDLE:
        table_.do(c.AnnounceLastCoups())
        for _ in range(3):
            table_.coup("1")
    (closed,) = table_.do(c.CloseTable(seal="S", float_count=handed))
    assert isinstance(closed, e.TableClosed) and closed.float_amount == handed
    assert closed.float_expected == handed  # coups without bets: the bank kept nothing
