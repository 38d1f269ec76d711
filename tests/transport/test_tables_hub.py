"""Casino tables linked to the hub, through the websocket protocol with real clients: a whole
coup run by a table device and the staff, monitors following a table's stream (resume after a
reconnect and a hub restart), the zero's prison carried over, void coups, refused commands."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bingo_hall.config import TableConfig
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.store.eventlog import EventLog
from support.aio import run_async as run
from support.demo import open_log
from support.hub import PASSWORD, Client, prepare_store, running_hub

HALL = "sala-1"
TABLES = [
    TableConfig.model_validate(
        {"id": "R1", "game": "french-roulette", "profile": "1979", "limits": {"minimum": "1"}}
    ),
    TableConfig.model_validate(
        {
            "id": "R2",
            "name": "Ruleta vasca",
            "game": "french-roulette",
            "profile": "basque",
            "limits": {"minimum": "2", "tier": 30},
        }
    ),
]
TABLE_STAFF = {"jmj": "jefe_de_mesa_de_juego", "crupier": "croupier"}


def table_store(tmp_path: Path) -> tuple[str, str, object, dict[str, str]]:
    """A store with the hub's users and monitor, the tables' staff and one device per table:
    (url, monitor token, series, {table: its device's token})."""
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    log = open_log(url)
    try:
        credentials = CredentialStore(log.engine)
        for user, role in TABLE_STAFF.items():
            credentials.add_user(user, role, PASSWORD)
        devices = {t: credentials.add_device(f"mesa-{t.lower()}", "table", t) for t in ("R1", "R2")}
    finally:
        log.engine.dispose()
    return url, token, series, devices


@pytest.fixture
def store(tmp_path):
    return table_store(tmp_path)


@asynccontextmanager
async def hub_with_tables(store) -> AsyncIterator:
    url, token, series, _ = store
    async with running_hub(url, token, series, tables=TABLES) as hub:
        yield hub


@asynccontextmanager
async def people(hub, store) -> AsyncIterator[tuple[Client, Client, Client, Client]]:
    """(the table head, R1's device, the monitor, the Jefe de Sala)."""
    devices = store[3]
    async with (
        Client.login(hub.url, user="jmj", password=PASSWORD) as head,
        Client.login(hub.url, token=devices["R1"]) as device,
        Client.login(hub.url, token=hub.monitor_token) as monitor,
        Client.login(hub.url, user="sala", password=PASSWORD) as sala,
    ):
        yield head, device, monitor, sala


async def at(client: Client, table: str, name: str, /, **args: object) -> dict:
    """A table command; the whole answer."""
    return await client.request({"type": "command", "table": table, "command": name, "args": args})


async def ok(client: Client, table: str, name: str, /, **args: object) -> list[str]:
    """A table command that must succeed; the types of its events."""
    answer = await at(client, table, name, **args)
    assert answer["success"], answer
    assert answer["result"]["table"] == table
    return [event["type"] for event in answer["result"]["events"]]


async def refused(client: Client, table: str, name: str, code: str, /, **args: object) -> str:
    answer = await at(client, table, name, **args)
    assert not answer["success"] and answer["error"]["code"] == code, answer
    return answer["error"]["message"]


def bet(id: str, kind: str, numbers: tuple = (), amount: str = "10", **more: object) -> dict:
    return {"bet": {"id": id, "type": kind, "numbers": list(numbers), "amount": amount, **more}}


async def table_state(client: Client, table: str) -> dict:
    answer = await client.request({"type": "tables"})
    assert answer["success"], answer
    return next(t for t in answer["result"]["tables"] if t["table"] == table)


def stream(log: EventLog, table: str) -> str:
    return f"{HALL}/tables/{table}"


# ------------------------------------------------------------------------------ tests --


def test_a_table_device_and_staff_run_a_whole_coup_and_a_monitor_gets_every_event(store):
    async def scenario():
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, sala):
            assert (await mon.request({"type": "subscribe", "stream": "table:R1"}))["success"]
            assert (await mon.request({"type": "subscribe"}))["success"]  # the hall's too
            again = await mon.request({"type": "subscribe", "stream": "table:R1"})
            assert again["error"]["code"] == "already_subscribed"
            closed = await table_state(mon, "R1")
            assert (closed["phase"], closed["seq"], closed["session"]) == ("closed", 0, None)

            assert await ok(head, "R1", "open_table") == ["table_opened"]
            assert await ok(device, "R1", "open_bets") == ["table_bets_opened"]
            await ok(device, "R1", "place_bet", **bet("b1", "straight", (17,)))
            await ok(device, "R1", "place_bet", **bet("b2", "red", amount="20"))
            await ok(device, "R1", "place_bet", **bet("b3", "column", (2,), amount="5"))
            assert await ok(device, "R1", "call_no_more_bets") == ["table_no_more_bets"]
            late = await ok(device, "R1", "place_bet", **bet("late", "black"))
            assert late == ["table_late_bet_returned"]  # «no va más»: chips pushed back
            await ok(device, "R1", "record_outcome", outcome="17")
            assert await ok(device, "R1", "settle") == ["table_coup_settled"]
            assert await ok(device, "R1", "pay_coup") == ["table_coup_paid"]

            events = await mon.events(10)
            assert [e["seq"] for e in events] == list(range(1, 11))
            assert all(e["hall"] == HALL and e["table"] == "R1" for e in events)
            assert [e["event"] for e in events] == [
                "table_opened",
                "table_bets_opened",
                "table_bet_placed",
                "table_bet_placed",
                "table_bet_placed",
                "table_no_more_bets",
                "table_late_bet_returned",
                "table_outcome_recorded",
                "table_coup_settled",
                "table_coup_paid",
            ]
            assert events[0]["payload"]["table"]["profile_id"] == "1979"
            assert events[0]["actor"] == "jmj" and events[1]["actor"] == "mesa-r1"
            assert (events[0]["session"], events[1]["session"], events[1]["game"]) == (1, 1, 1)
            settlement = events[8]["payload"]["settlement"]
            assert settlement["collected"] == ["b2"]  # 17 is black: the red bet loses
            paid = [(p["bet"], p["amount"]) for p in events[9]["payload"]["payments"]]
            assert paid == [("b3", "15.00"), ("b1", "360.00")]  # columns first, straight-ups last
            assert settlement["totals"]["bank_result"] == "-340.00"

            state = await table_state(mon, "R1")
            assert state["seq"] == 10 and state["phase"] == "idle" and state["coup"] == 1
            assert (state["previous_outcome"], state["recent_outcomes"]) == ("17", ["17"])
            assert state["limits"]["groups"]["straight"] == {"minimum": "1", "maximum": "30"}

            # the bingo stream did not move; each table stream has its own verified chain
            log = hub.runtime.service.log
            assert hub.runtime.service.seq == 0 and log.head(HALL) == (0, "0" * 64)
            assert log.head(stream(log, "R2"))[0] == 0
            report = log.verify_chain(stream(log, "R1"))
            assert report.ok and report.last_seq == 10

            # the bingo goes on beside the table, on its own seqs, on the same connection
            await sala.ok("register_ball_set", ball_set_id="JB-1")
            await sala.ok("open_session")
            bingo = await mon.events(2)
            assert [(e["seq"], e["event"]) for e in bingo] == [
                (1, "ball_set_registered"),
                (2, "session_opened"),
            ]
            assert all("table" not in e for e in bingo)
            assert log.verify_chain(HALL).ok and log.head(stream(log, "R1"))[0] == 10

    run(scenario())


def test_a_monitor_resumes_a_table_after_a_reconnect_and_a_hub_restart_with_the_prison(store):
    """Coup 1 ends on zero: the even chance goes to prison and is carried to coup 2, across a
    hub restart; a monitor away meanwhile resumes from its last seq: no gap, no duplicate."""

    async def scenario():
        seen: list[int] = []
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, _):
            await mon.request({"type": "subscribe", "stream": "table:R1"})
            await ok(head, "R1", "open_table")
            await ok(device, "R1", "open_bets")
            await ok(device, "R1", "place_bet", **bet("rojo", "red", player="ana"))
            await ok(device, "R1", "place_bet", **bet("cero", "straight", (0,), amount="1"))
            seen += [e["seq"] for e in await mon.events(4)]
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, _, _):
            # the monitor is away while the coup ends on zero
            await ok(device, "R1", "call_no_more_bets")
            await ok(device, "R1", "record_outcome", outcome="0")
            chosen = await ok(
                device,
                "R1",
                "choose_zero_option",
                bet_id="rojo",
                choice="prison",
                declared_by="ana",
            )
            assert chosen == ["table_zero_option_chosen"]
            await ok(device, "R1", "settle")
            await ok(device, "R1", "pay_coup")
            async with Client.login(hub.url, token=hub.monitor_token) as mon:
                await mon.request({"type": "subscribe", "stream": "table:R1", "after_seq": 4})
                got = await mon.events(5)
                seen += [e["seq"] for e in got]
                paid = got[-1]["payload"]
                assert [(b["id"], b["prison"]) for b in paid["carried"]] == [("rojo", 1)]
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, _):
            await mon.request({"type": "subscribe", "stream": "table:R1", "after_seq": seen[-1]})
            state = await table_state(mon, "R1")  # rebuilt from the log by the new hub
            assert (state["phase"], state["coup"], state["seq"]) == ("idle", 1, 9)
            assert [(b["id"], b["prison"]) for b in state["bets"]] == [("rojo", 1)]
            await ok(device, "R1", "open_bets")
            message = await refused(device, "R1", "withdraw_bet", "rule_error", bet_id="rojo")
            assert "in prison and cannot be withdrawn" in message
            await ok(device, "R1", "call_no_more_bets")
            await ok(device, "R1", "record_outcome", outcome="3")  # red: the prisoner is freed
            await ok(device, "R1", "settle")
            await ok(device, "R1", "pay_coup")
            got = await mon.events(5)
            seen += [e["seq"] for e in got]
            (result,) = got[3]["payload"]["settlement"]["results"]
            assert (result["id"], result["status"], result["returns"]) == (
                "rojo",
                "returned",
                "10.00",
            )
            assert got[4]["payload"]["carried"] == []
            assert seen == list(range(1, 15))
            assert (await table_state(mon, "R1"))["recent_outcomes"] == ["0", "3"]

    run(scenario())


def test_void_coups_keep_the_bets_and_the_coup_as_each_profile_says(store):
    async def scenario():
        async with (
            hub_with_tables(store) as hub,
            people(hub, store) as (head, device, mon, _),
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
        ):
            await mon.request({"type": "subscribe", "stream": "table:R1"})
            await ok(head, "R1", "open_table")
            for outcome in ("8", None):
                await ok(device, "R1", "open_bets")
                if outcome is None:
                    await ok(device, "R1", "place_bet", **bet("b1", "split", (17, 20)))
                await ok(device, "R1", "call_no_more_bets")
                if outcome is not None:
                    await ok(device, "R1", "record_outcome", outcome=outcome)
                    await ok(device, "R1", "settle")
                    await ok(device, "R1", "pay_coup")
            # 1979: only the table head declares «tirada nula» (N79 L232)
            message = await refused(
                device, "R1", "declare_void", "rule_error", reason="ball_left_wheel"
            )
            assert "declared by: table_head; not by the croupier" in message
            assert await ok(head, "R1", "declare_void", reason="ball_left_wheel") == [
                "table_coup_voided"
            ]
            events = await mon.events(10)
            voided = events[-1]
            assert voided["event"] == "table_coup_voided" and voided["actor"] == "jmj"
            assert voided["payload"]["declared_by"] == "jmj"
            assert (voided["payload"]["role"], voided["payload"]["previous_outcome"]) == (
                "table_head",
                "8",
            )
            assert voided["payload"]["bets_open"] is False  # relaunched on the same bets
            state = await table_state(mon, "R1")
            assert (state["phase"], state["coup"]) == ("no_more_bets", 2)
            assert [b["id"] for b in state["bets"]] == ["b1"]
            await ok(device, "R1", "record_outcome", outcome="20")
            await ok(device, "R1", "settle")
            assert await ok(device, "R1", "pay_coup") == ["table_coup_paid"]

            # Basque: the croupier may declare it, and betting opens again (EUS L320)
            await ok(head, "R2", "open_table")
            await ok(croupier, "R2", "open_bets")
            await ok(croupier, "R2", "place_bet", **bet("v", "voisins", amount="18"))
            await ok(croupier, "R2", "call_no_more_bets")
            await ok(croupier, "R2", "declare_void", reason="object_in_wheel")
            state = await table_state(croupier, "R2")
            assert (state["phase"], state["coup"], [b["id"] for b in state["bets"]]) == (
                "betting",
                1,
                ["v"],
            )
            await ok(croupier, "R2", "withdraw_bet", bet_id="v")  # «zuen apustuak alda …»

    run(scenario())


def test_refused_commands_say_why_and_change_nothing(store):
    async def scenario():
        async with (
            hub_with_tables(store) as hub,
            people(hub, store) as (head, device, mon, sala),
            Client.login(hub.url, user="mesa", password=PASSWORD) as bingo_head,
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
        ):
            log = hub.runtime.service.log
            await ok(head, "R1", "open_table")
            before = {t: log.head(stream(log, t)) for t in ("R1", "R2")}

            assert "there is no table 'R9'" in await refused(
                device, "R9", "open_bets", "unknown_table"
            )
            answer = await mon.request({"type": "subscribe", "stream": "table:R9"})
            assert answer["error"]["code"] == "unknown_table"
            answer = await mon.request({"type": "subscribe", "stream": "tables/R1"})
            assert answer["error"]["code"] == "bad_frame"
            assert "table commands:" in await refused(device, "R1", "draw_ball", "unknown_command")
            message = await refused(device, "R1", "settle", "wrong_phase")
            assert "'settle' is not allowed in phase idle" in message and "open_bets" in message

            # the change of limits: the director's (the Jefe de Sala), and 1979 refuses it
            await refused(head, "R1", "change_limits", "forbidden", limits={"minimum": "2"})
            frozen = await refused(
                sala, "R1", "change_limits", "rule_error", limits={"minimum": "2"}
            )
            assert "may not change during the session" in frozen  # N79 L210-218

            await ok(device, "R1", "open_bets")
            impossible = await refused(
                device, "R1", "place_bet", "rule_error", **bet("x", "split", (1, 5))
            )
            assert "bet x: 1 and 5 do not touch on the layout" in impossible
            over = await refused(
                device, "R1", "place_bet", "rule_error", **bet("y", "straight", (3,), amount="31")
            )
            assert "bet y: a straight bet of 31 is above its maximum 30" in over
            floats = await at(
                device, "R1", "place_bet", bet={"id": "z", "type": "red", "amount": 2.5}
            )
            assert (
                floats["error"]["code"] == "invalid_args"
                and "decimal string" in floats["error"]["message"]
            )
            filled = await refused(
                head,
                "R1",
                "declare_void",
                "invalid_args",
                reason="ball_left_wheel",
                role="croupier",
            )
            assert "role" in filled
            assert "come from the hall's configuration" in await refused(
                head, "R2", "open_table", "invalid_args", table={"profile_id": "basque"}
            )
            assert "authorisation gives come from the hall's configuration" in await refused(
                head, "R2", "open_table", "invalid_args", limits={"minimum": "0.50"}
            )

            # who may do what: a device at another table, a monitor, the wrong roles
            other = await refused(device, "R2", "open_bets", "forbidden")
            assert "table R1's device and acts on that table only" in other
            assert "may give at a table: none" in await refused(mon, "R1", "open_bets", "forbidden")
            await refused(croupier, "R2", "open_table", "forbidden")
            await refused(head, "R1", "place_bet", "forbidden", **bet("h", "red"))
            await refused(bingo_head, "R1", "open_bets", "forbidden")
            assert not (await mon.command("open_bets"))["success"]  # nor on the bingo side
            bingo = await device.command("draw_ball")
            assert bingo["error"]["code"] == "forbidden"
            assert "only a casino table's commands" in bingo["error"]["message"]

            after = {t: log.head(stream(log, t)) for t in ("R1", "R2")}
            assert after == {"R1": (before["R1"][0] + 1, after["R1"][1]), "R2": before["R2"]}
            assert (await table_state(mon, "R1"))["bets"] == []
            assert hub.runtime.service.seq == 0

    run(scenario())


def test_the_auth_answer_tells_a_table_device_its_table_and_commands(store):
    async def scenario():
        async with hub_with_tables(store) as hub:
            from websockets.asyncio.client import connect

            async def hello(**auth: str) -> dict:
                async with connect(hub.url) as connection:
                    await connection.recv()
                    await connection.send(json.dumps({"type": "auth", **auth}))
                    return json.loads(await connection.recv())

            device = await hello(token=store[3]["R2"])
            assert (device["role"], device["table"], device["commands"]) == ("table", "R2", [])
            assert (
                "place_bet" in device["table_commands"]
                and "open_table" not in device["table_commands"]
            )
            head = await hello(user="jmj", password=PASSWORD)
            assert "table" not in head and "open_table" in head["table_commands"]
            monitor = await hello(token=hub.monitor_token)
            assert "table_commands" not in monitor and "table" not in monitor

    run(scenario())
