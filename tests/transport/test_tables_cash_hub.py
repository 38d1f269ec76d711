"""A table's money beside the bets, through the hub with real websocket clients: the float
from the hall's configuration in the opening's record and the director's top-ups; a Basque
table closed for a while (EUS L306) — the director holding the key, its head released, no one
playing it, the minimum-table rule counting it out, play resumed only with an active croupier
and head there, and only with an hour left before the casino's closing time, which the hub
fills in (EUS L2931 d); and the American table's colour chips issued and changed back (spec
§3.3)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from bingo_hall.config import TableConfig
from support.aio import run_async as run
from support.hub import PASSWORD, Client, HallClock
from transport.test_tables_hub import (
    SEAL,
    TABLES,
    bet,
    ok,
    refused,
    set_rotation,
    stream,
    table_state,
    table_store,
    two_heads,
)

FLOAT_TABLES = [
    TableConfig.model_validate(
        {
            "id": table,
            "game": game,
            "profile": "basque",
            "limits": {"minimum": minimum, **extra},
            "sector": "A",
            "float_amount": float_amount,
        }
    )
    for table, game, minimum, extra, float_amount in (
        ("E1", "french-roulette", "2", {"tier": 30}, "4000"),
        ("E2", "french-roulette", "5", {"tier": 30}, "9000"),
        ("F1", "wheel-of-fortune", "1", {"maximum": "100"}, "15000"),
        ("K1", "american-roulette", "1", {"tier": 30}, None),
    )
]


# config/hall.toml closes the casino at 04:00, Europe/Madrid: the hub runs at 22:00 there
MADRID = ZoneInfo("Europe/Madrid")
EVENING = datetime(2024, 5, 1, 22, 0, tzinfo=MADRID)


def madrid(*fields: int) -> datetime:
    return datetime(*fields, tzinfo=MADRID).astimezone(UTC)


@pytest.fixture
def store(tmp_path):
    return table_store(tmp_path)


def payloads(log, table: str, event_type: str) -> list[dict]:
    return [e.payload for e in log.read(stream(log, table)) if e.type == event_type]


def test_the_float_is_recorded_from_the_configuration_and_topped_up_by_the_director(store):
    async def scenario():
        async with two_heads(store, FLOAT_TABLES) as (hub, jmj, _, sala):
            log = hub.runtime.service.log
            await ok(jmj, "F1", "open_table")
            (opened,) = payloads(log, "F1", "table_opened")
            assert Decimal(opened["float_amount"]) == 15000
            filled = await refused(jmj, "F1", "open_table", "invalid_args", float_amount="1")
            assert "float_amount: the float comes from the hall's configuration" in filled
            head_may_not = await refused(jmj, "F1", "top_up_float", "forbidden", amount="500")
            assert "top_up_float" in head_may_not
            assert await ok(sala, "F1", "top_up_float", amount="500") == ["table_float_topped_up"]
            (topped,) = payloads(log, "F1", "table_float_topped_up")
            assert topped == {"amount": "500", "ordered_by": "sala", "float_amount": "15500"}
            as_float = await refused(sala, "F1", "top_up_float", "invalid_args", amount=5.5)
            assert "a decimal string, not a float" in as_float
            uncounted = await refused(sala, "F1", "close_table", "rule_error", seal=SEAL)
            assert "count the float before closing (float_count)" in uncounted
            count = {"float_count": "15490", "tips": "20"}
            await ok(sala, "F1", "close_table", seal=SEAL, **count)
            (closed,) = payloads(log, "F1", "table_closed")
            assert Decimal(closed["float_amount"]) == 15500
            assert (closed["float_count"], closed["float_expected"], closed["tips"]) == (
                "15490",
                "15500",  # no coup played: the float should be what was handed and topped up
                "20",
            )

    run(scenario())


def test_a_basque_table_closes_for_a_while_and_plays_again_with_its_staff_there(store):
    async def scenario():
        async with two_heads(store, FLOAT_TABLES, HallClock(EVENING)) as (hub, jmj, _, sala):
            log = hub.runtime.service.log
            await ok(jmj, "E1", "open_table")
            await ok(jmj, "E2", "open_table")
            await set_rotation(hub, "E2", "crupier", "luis")

            # E1 is the only table at the authorised minimum 2: it keeps playing
            kept = await refused(sala, "E1", "suspend_table", "rule_error")
            assert "E2 would play above the authorised minimum 2" in kept
            assert "suspend_table" in await refused(jmj, "E2", "suspend_table", "forbidden")
            assert await ok(sala, "E2", "suspend_table") == ["table_suspended"]
            (suspended,) = payloads(log, "E2", "table_suspended")
            assert suspended == {
                "key_held_by": "sala",
                "float_amount": "9000",
                "closes_at": "2024-05-02T04:00:00+02:00",
            }
            state = await table_state(sala, "E2")
            assert state["phase"] == "suspended"

            # no one plays it, and its head no longer gives its commands there
            locked = await refused(jmj, "E2", "announce_last_coups", "forbidden")
            assert "closed for a while" in locked and "(sala)" in locked
            phase = await refused(sala, "E2", "open_bets", "wrong_phase")
            assert "suspended" in phase
            await refused(sala, "E2", "top_up_float", "wrong_phase", amount="5")  # locked

            # E1 may stop now that E2 does not play; E2 may not play above it with none at it
            await ok(sala, "E1", "suspend_table")
            alone = await refused(
                sala, "E2", "resume_table", "rule_error", croupier="crupier", head="iker"
            )
            assert "E2 would play above the authorised minimum 2" in alone
            await ok(sala, "E1", "resume_table", croupier="luis", head="jmj")

            # resumed by the key's holder, naming the hall's active croupier and head
            for args, words in (
                ({"croupier": "nadie", "head": "iker"}, "not an active croupier"),
                ({"croupier": "crupier", "head": "luis"}, "not an active table head"),
                ({"croupier": "crupier"}, "head: Field required"),
            ):
                assert words in await refused(sala, "E2", "resume_table", "invalid_args", **args)
            filled = await refused(
                sala,
                "E2",
                "resume_table",
                "invalid_args",
                croupier="crupier",
                head="iker",
                head_role="table_head",
            )
            assert "head_role: the head's role is that of his login" in filled
            resumed = await ok(sala, "E2", "resume_table", croupier="crupier", head="iker")
            assert resumed == ["table_resumed"]
            (record,) = payloads(log, "E2", "table_resumed")
            assert record == {
                "unlocked_by": "sala",
                "croupier": "crupier",
                "head": "iker",
                "head_role": "inspector",
            }
            assert (await table_state(sala, "E2"))["phase"] == "idle"
            elsewhere = await refused(jmj, "E2", "announce_last_coups", "forbidden")
            assert "its head: iker" in elsewhere

            # closed for a while again, then for good: no last balls to announce
            await ok(sala, "E2", "suspend_table")
            head_may_not = await refused(jmj, "E2", "close_table", "forbidden", seal=SEAL)
            assert "closed for a while" in head_may_not
            closing = {"seal": SEAL, "float_count": "9000"}
            assert await ok(sala, "E2", "close_table", **closing) == ["table_closed"]
            (closed,) = payloads(log, "E2", "table_closed")
            assert closed["suspended"] is True and Decimal(closed["float_amount"]) == 9000

    run(scenario())


def test_a_table_closes_for_a_while_only_with_an_hour_left_before_the_casino_closes(store):
    """EUS L2931 d: the hub fills in the casino's next closing from the hall's configuration
    (04:00, Europe/Madrid) by its clock; a client may not send it."""
    clock = HallClock(EVENING)

    async def scenario():
        async with two_heads(store, FLOAT_TABLES, clock) as (hub, jmj, _, sala):
            log = hub.runtime.service.log
            await ok(jmj, "E1", "open_table")  # at the authorised minimum: it plays on
            await ok(jmj, "E2", "open_table")
            later = {"closes_at": "2099-01-01T04:00:00+01:00"}
            sent = await refused(sala, "E2", "suspend_table", "invalid_args", **later)
            assert sent == (
                "suspend_table: closes_at: the casino's next closing comes from the hall's "
                "configuration (closing_time, time_zone) and the hub's clock"
            )

            clock.now = madrid(2024, 5, 2, 3, 1)  # 59 minutes before closing
            late = await refused(sala, "E2", "suspend_table", "rule_error")
            assert late == (
                "table E2: the casino closes at 04:00 (UTC+02:00), 59 minutes from now: a table "
                "closes for a while only with at least an hour left before the closing time "
                "(EUS L2931 d); keep it open, or close it"
            )
            assert (await table_state(sala, "E2"))["phase"] == "idle"
            assert payloads(log, "E2", "table_suspended") == []

            clock.now = madrid(2024, 5, 2, 3, 0)  # an hour exactly
            assert await ok(sala, "E2", "suspend_table") == ["table_suspended"]
            await ok(sala, "E2", "resume_table", croupier="crupier", head="iker")
            clock.now = madrid(2024, 5, 2, 4, 30)  # past closing: the next is tomorrow's
            await ok(sala, "E2", "suspend_table")
            closings = [p["closes_at"] for p in payloads(log, "E2", "table_suspended")]
            assert closings == ["2024-05-02T04:00:00+02:00", "2024-05-03T04:00:00+02:00"]

    run(scenario())


def test_colour_chips_are_issued_and_changed_back_at_the_croupiers_station(store):
    async def scenario():
        async with (
            two_heads(store, FLOAT_TABLES, HallClock(EVENING)) as (hub, jmj, _, sala),
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
            Client.login(hub.url, token=hub.monitor_token) as monitor,
        ):
            log = hub.runtime.service.log
            await ok(jmj, "K1", "open_table")
            issue = {"colour": "verde", "player": "ana", "chips": 40, "unit_value": "2"}
            heads_handle_none = await refused(jmj, "K1", "issue_colour_chips", "forbidden", **issue)
            assert "issue_colour_chips" in heads_handle_none
            await ok(croupier, "K1", "issue_colour_chips", **issue)
            state = await table_state(croupier, "K1")
            (held,) = state["colour_chips"]
            assert (held["player"], held["issued"], held["issued_value"]) == ("ana", 40, "80")
            assert (await table_state(monitor, "K1"))["colour_chips"] == []  # a player's

            held_back = await refused(jmj, "K1", "close_table", "rule_error", seal=SEAL)
            assert "colour chips are still held: verde (ana)" in held_back
            back = await ok(croupier, "K1", "return_colour_chips", colour="verde", chips=35)
            assert back == ["table_colour_chips_returned"]
            (returned,) = payloads(log, "K1", "table_colour_chips_returned")
            assert returned == {
                "colour": "verde",
                "player": "ana",
                "chips": 35,
                "unit_value": "2",
                "value": "70",
                "leaves": True,
            }
            assert (await table_state(croupier, "K1"))["colour_chips"] == []
            await ok(sala, "K1", "suspend_table")  # no customer left: closed for a while
            await ok(sala, "K1", "close_table", seal=SEAL)  # and for good
            (closed,) = payloads(log, "K1", "table_closed")
            assert [(h["colour"], h["returned_value"]) for h in closed["colour_chips"]] == [
                ("verde", "70")
            ]

    run(scenario())


def test_the_basque_head_stops_and_allows_value_chip_bets_at_the_station(store):
    """EUS L338 c, through the hub: the head's command, refused to the croupier; a player's
    bet in value chips refused while stopped and without its player."""

    async def scenario():
        async with (
            two_heads(store, FLOAT_TABLES) as (hub, jmj, _, _),
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
        ):
            await ok(jmj, "K1", "open_table")
            await set_rotation(hub, "K1", "crupier")
            denied = await refused(
                croupier, "K1", "set_value_chip_bets", "forbidden", allowed=False
            )
            assert "set_value_chip_bets" in denied
            assert await ok(jmj, "K1", "set_value_chip_bets", allowed=False) == [
                "table_value_chip_bets_set"
            ]
            await ok(croupier, "K1", "open_bets")
            stopped = await refused(
                croupier, "K1", "place_bet", "rule_error", **bet("v", "red", player="ana")
            )
            assert "the head has stopped new bets in value chips" in stopped
            await ok(jmj, "K1", "set_value_chip_bets", allowed=True)
            nameless = await refused(croupier, "K1", "place_bet", "rule_error", **bet("v", "red"))
            assert "names its player" in nameless
            await ok(croupier, "K1", "place_bet", **bet("v", "red", player="ana"))

    run(scenario())


def test_a_croupier_makes_the_exchanges_under_the_heads_control_and_the_cash_box_closes(store):
    """«Los cambios de billetes y fichas que solicitan los jugadores» (N79 L569): a croupier
    makes them, at his login or named by the table's station, under the control of the head,
    who touches no money (N79 L125); the banknotes go into the cash box the closing records."""

    async def scenario():
        async with (
            two_heads(store, TABLES) as (hub, jmj, _, sala),
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
            Client.login(hub.url, token=store[3]["R1"]) as station,
        ):
            log = hub.runtime.service.log
            await ok(sala, "R1", "open_table")  # the director opens it: no head yet
            change = {"kind": "banknotes", "amount": "500", "player": "ana-jugadora"}
            uncontrolled = await refused(
                croupier, "R1", "exchange_at_table", "rule_error", **change
            )
            assert "N79 L125" in uncontrolled
            await ok(jmj, "R1", "take_table")
            assert await ok(croupier, "R1", "exchange_at_table", **change) == [
                "table_exchange_made"
            ]
            (made,) = payloads(log, "R1", "table_exchange_made")
            assert made == {
                "kind": "banknotes",
                "amount": "500",
                "croupier": "crupier",
                "controlled_by": "jmj",
                "player": "ana-jugadora",
                "cash_box": "500",
            }
            assert "exchange_at_table" in await refused(
                jmj, "R1", "exchange_at_table", "forbidden", **change
            )
            as_another = await refused(
                croupier, "R1", "exchange_at_table", "invalid_args", croupier="luis", **change
            )
            assert "crupier makes the exchange as himself, not as luis" in as_another
            unnamed = await refused(station, "R1", "exchange_at_table", "invalid_args", **change)
            assert "a table's station names the croupier who makes the exchange" in unnamed
            slip = await refused(
                station, "R1", "exchange_at_table", "invalid_args", croupier="lius", **change
            )
            assert "not an active croupier of the hall: lius" in slip
            await ok(station, "R1", "exchange_at_table", croupier="luis", kind="chips", amount="50")
            await ok(
                station, "R1", "exchange_at_table", croupier="luis", kind="banknotes", amount="200"
            )
            cents = await refused(
                croupier, "R1", "exchange_at_table", "invalid_args", kind="banknotes", amount=2.5
            )
            assert "a decimal string, not a float" in cents
            await ok(jmj, "R1", "close_table", seal=SEAL)
            (closed,) = payloads(log, "R1", "table_closed")
            assert closed["cash_box"] == "700"

    run(scenario())
