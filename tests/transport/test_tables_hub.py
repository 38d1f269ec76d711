"""Casino tables linked to the hub, through the websocket protocol with real clients: a whole
coup run by a table device and the staff, monitors following a table's stream (resume after a
reconnect and a hub restart), the zero's prison carried over, void coups, refused commands, and
the public view monitors and terminals get (no bet, player or payment)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from displays.test_pages import staff_get
from websockets.exceptions import ConnectionClosed

from bingo_hall.config import TableConfig
from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.service import utc_now
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.store.eventlog import EventLog
from bingo_hall.tables.events import EVENT_TYPES
from bingo_hall.transport.fanout import TABLE_PUBLIC_FIELDS, event_frame
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
TABLE_STAFF = {
    "jmj": "jefe_de_mesa_de_juego",
    "jmj2": "jefe_de_mesa_de_juego",
    "iker": "inspector_de_mesa",
    "crupier": "croupier",
    "luis": "croupier",
    "tere": "extremo_de_mesa",
    "sub": "subjefe_de_mesa",
}
PLAYER = "ana-jugadora"
SEAL = "precinto-0042"
# What a public panel never gets in a table's event payload (beside the game's rules).
PRIVATE_KEYS = {
    "bet",
    "bet_id",
    "request",
    "player",
    "chips",
    "amount",
    "stake",
    "zero_choice",
    "settlement",
    "results",
    "collected",
    "payment_order",
    "payments",
    "carried",
    "seal",
    "croupiers",
    "spun_by",
    "spins",
}


def table_store(tmp_path: Path) -> tuple[str, str, object, dict[str, str]]:
    """A store with the hub's users and monitor, the tables' staff, one device per table and a
    terminal, and a second one: (url, monitor token, series, {table, "terminal" or "terminal-2":
    its device's token})."""
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    log = open_log(url)
    try:
        credentials = CredentialStore(log.engine)
        for user, role in TABLE_STAFF.items():
            credentials.add_user(user, role, PASSWORD)
        devices = {t: credentials.add_device(f"mesa-{t.lower()}", "table", t) for t in ("R1", "R2")}
        devices["terminal"] = credentials.add_device("term-01", "terminal")
        # a terminal works from one connection: a second one to ask beside the first
        devices["terminal-2"] = credentials.add_device("term-02", "terminal")
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


async def set_rotation(hub, table: str, *croupiers: str) -> list[str]:
    """The director (the Jefe de Sala) sets a table's spinning rotation, on a connection of his
    own (a client's answers skip the events pushed meanwhile)."""
    async with Client.login(hub.url, user="sala", password=PASSWORD) as director:
        return await ok(director, table, "set_spin_rotation", croupiers=list(croupiers))


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


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def private_in(frame: dict) -> list[str]:
    """What a public panel must not get in a table's event frame: a bet, a player, a payment."""
    payload = dict(frame["payload"])
    if frame["event"] == "table_opened":
        payload.pop("table")  # the game's rules (a payment order, a zero rule …) are public
    found = sorted(_keys(payload) & PRIVATE_KEYS)
    return found + [word for word in (PLAYER, SEAL) if word in json.dumps(frame)]


# ------------------------------------------------------------------------------ tests --


def test_a_table_device_and_staff_run_a_whole_coup_and_a_monitor_gets_every_event(store):
    async def scenario():
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, sala):
            assert (await mon.request({"type": "subscribe", "stream": "table:R1"}))["success"]
            assert (await mon.request({"type": "subscribe"}))["success"]  # the hall's too
            assert (await sala.request({"type": "subscribe", "stream": "table:R1"}))["success"]
            again = await mon.request({"type": "subscribe", "stream": "table:R1"})
            assert again["error"]["code"] == "already_subscribed"
            closed = await table_state(mon, "R1")
            assert (closed["phase"], closed["seq"], closed["session"]) == ("closed", 0, None)

            assert await ok(head, "R1", "open_table") == ["table_opened"]
            rotation = await set_rotation(hub, "R1", "crupier", "luis")
            assert rotation == ["table_spin_rotation_set"]
            assert await ok(device, "R1", "open_bets") == ["table_bets_opened"]
            spun = await ok(device, "R1", "spin", spun_by="crupier", direction="clockwise")
            assert spun == ["table_spun"]
            await ok(device, "R1", "place_bet", **bet("b1", "straight", (17,)))
            await ok(device, "R1", "place_bet", **bet("b2", "red", amount="20"))
            await ok(device, "R1", "place_bet", **bet("b3", "column", (2,), amount="5"))
            assert await ok(device, "R1", "call_no_more_bets") == ["table_no_more_bets"]
            late = await ok(device, "R1", "place_bet", **bet("late", "black"))
            assert late == ["table_late_bet_returned"]  # «no va más»: chips pushed back
            await ok(device, "R1", "record_outcome", outcome="17")
            assert await ok(device, "R1", "settle") == ["table_coup_settled"]
            assert await ok(device, "R1", "pay_coup") == ["table_coup_paid"]

            events = await mon.events(12)
            assert [e["seq"] for e in events] == list(range(1, 13))
            assert all(e["hall"] == HALL and e["table"] == "R1" for e in events)
            assert [e["event"] for e in events] == [
                "table_opened",
                "table_spin_rotation_set",
                "table_bets_opened",
                "table_spun",
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
            assert [events[i]["actor"] for i in range(4)] == ["jmj", "sala", "mesa-r1", "mesa-r1"]
            assert (events[0]["session"], events[2]["session"], events[2]["game"]) == (1, 1, 1)
            assert events[10]["payload"] == events[11]["payload"] == {"coup": 1}  # a public panel
            # who spun is the staff's; a panel sees the coup and which way the cylinder turned
            assert events[1]["payload"] == {}
            assert events[3]["payload"] == {"coup": 1, "direction": "clockwise", "relaunch": False}
            full = await sala.events(12)  # the staff get every event whole
            assert [e["seq"] for e in full] == [e["seq"] for e in events]
            assert full[1]["payload"] == {"croupiers": ["crupier", "luis"], "set_by": "sala"}
            assert full[3]["payload"]["spun_by"] == "crupier"
            settlement = full[10]["payload"]["settlement"]
            assert settlement["collected"] == ["b2"]  # 17 is black: the red bet loses
            paid = [(p["bet"], p["amount"]) for p in full[11]["payload"]["payments"]]
            assert paid == [("b3", "15.00"), ("b1", "360.00")]  # columns first, straight-ups last
            assert settlement["totals"]["bank_result"] == "-340.00"

            state = await table_state(mon, "R1")
            assert state["seq"] == 12 and state["phase"] == "idle" and state["coup"] == 1
            assert (state["previous_outcome"], state["recent_outcomes"]) == ("17", ["17"])
            assert state["limits"]["groups"]["straight"] == {"minimum": "1", "maximum": "30"}

            # the bingo stream did not move; each table stream has its own verified chain
            log = hub.runtime.service.log
            assert hub.runtime.service.seq == 0 and log.head(HALL) == (0, "0" * 64)
            assert log.head(stream(log, "R2"))[0] == 0
            report = log.verify_chain(stream(log, "R1"))
            assert report.ok and report.last_seq == 12

            # the bingo goes on beside the table, on its own seqs, on the same connection
            await sala.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            await sala.ok("open_session")
            bingo = await mon.events(2)
            assert [(e["seq"], e["event"]) for e in bingo] == [
                (1, "ball_set_registered"),
                (2, "session_opened"),
            ]
            assert all("table" not in e for e in bingo)
            assert log.verify_chain(HALL).ok and log.head(stream(log, "R1"))[0] == 12

    run(scenario())


def test_a_monitor_resumes_a_table_after_a_reconnect_and_a_hub_restart_with_the_prison(store):
    """Coup 1 ends on zero: the even chance goes to prison and is carried to coup 2, across a
    hub restart; a monitor away meanwhile resumes from its last seq: no gap, no duplicate."""

    async def scenario():
        seen: list[int] = []
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, sala):
            await mon.request({"type": "subscribe", "stream": "table:R1"})
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier", "luis"])
            await ok(device, "R1", "open_bets")
            await ok(device, "R1", "spin", spun_by="crupier", direction="clockwise")
            await ok(device, "R1", "place_bet", **bet("rojo", "red", player="ana"))
            await ok(device, "R1", "place_bet", **bet("cero", "straight", (0,), amount="1"))
            seen += [e["seq"] for e in await mon.events(6)]
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
            async with (
                Client.login(hub.url, token=hub.monitor_token) as mon,
                Client.login(hub.url, user="sala", password=PASSWORD) as sala,
            ):
                for watcher in (mon, sala):
                    await watcher.request(
                        {"type": "subscribe", "stream": "table:R1", "after_seq": 6}
                    )
                got = await mon.events(5)
                seen += [e["seq"] for e in got]
                assert got[-1]["payload"] == {"coup": 1}  # nothing of a player's
                paid = (await sala.events(5))[-1]["payload"]
                assert [(b["id"], b["prison"]) for b in paid["carried"]] == [("rojo", 1)]
        async with hub_with_tables(store) as hub, people(hub, store) as (head, device, mon, sala):
            for watcher in (mon, sala):
                await watcher.request({"type": "subscribe", "stream": "table:R1", "after_seq": 11})
            state = await table_state(head, "R1")  # rebuilt from the log by the new hub
            assert (state["phase"], state["coup"], state["seq"]) == ("idle", 1, 11)
            assert [(b["id"], b["prison"]) for b in state["bets"]] == [("rojo", 1)]
            assert (await table_state(mon, "R1"))["bets"] == []  # a public panel: none
            await ok(device, "R1", "open_bets")
            message = await refused(device, "R1", "withdraw_bet", "rule_error", bet_id="rojo")
            assert "in prison and cannot be withdrawn" in message
            # the turn and the cylinder's last direction were rebuilt from the log too
            wrong = await refused(
                device, "R1", "spin", "rule_error", spun_by="luis", direction="clockwise"
            )
            assert "so it turns anticlockwise now" in wrong
            await ok(device, "R1", "spin", spun_by="luis", direction="anticlockwise")
            await ok(device, "R1", "call_no_more_bets")
            await ok(device, "R1", "record_outcome", outcome="3")  # red: the prisoner is freed
            await ok(device, "R1", "settle")
            await ok(device, "R1", "pay_coup")
            got = await mon.events(6)
            seen += [e["seq"] for e in got]
            full = await sala.events(6)
            assert [e["seq"] for e in full] == [e["seq"] for e in got]
            (result,) = full[4]["payload"]["settlement"]["results"]
            assert (result["id"], result["status"], result["returns"]) == (
                "rojo",
                "returned",
                "10.00",
            )
            assert full[5]["payload"]["carried"] == []
            assert seen == list(range(1, 18))
            assert (await table_state(mon, "R1"))["recent_outcomes"] == ["0", "3"]

    run(scenario())


def test_void_coups_keep_the_bets_and_the_coup_as_each_profile_says(store):
    async def scenario():
        async with (
            hub_with_tables(store) as hub,
            people(hub, store) as (head, device, mon, sala),
            Client.login(hub.url, user="crupier", password=PASSWORD) as croupier,
        ):
            await mon.request({"type": "subscribe", "stream": "table:R1"})
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier", "luis"])
            for outcome, spinner, direction in (
                ("8", "crupier", "clockwise"),
                (None, "luis", "anticlockwise"),
            ):
                await ok(device, "R1", "open_bets")
                if outcome is None:
                    await ok(device, "R1", "place_bet", **bet("b1", "split", (17, 20)))
                await ok(device, "R1", "spin", spun_by=spinner, direction=direction)
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
            events = await mon.events(13)
            voided = events[-1]
            assert voided["event"] == "table_coup_voided" and voided["actor"] == "jmj"
            assert voided["payload"]["declared_by"] == "jmj"
            assert (voided["payload"]["role"], voided["payload"]["previous_outcome"]) == (
                "table_head",
                "8",
            )
            assert voided["payload"]["bets_open"] is False  # relaunched on the same bets
            state = await table_state(mon, "R1")
            assert (state["phase"], state["coup"], state["bets"]) == ("no_more_bets", 2, [])
            assert [b["id"] for b in (await table_state(head, "R1"))["bets"]] == ["b1"]
            # the head hands the ball back to luis, who launched it (N79 L232)
            again = await refused(
                device, "R1", "spin", "rule_error", spun_by="crupier", direction="anticlockwise"
            )
            assert "coup 2 was void: luis, who launched it, launches it again" in again
            await ok(device, "R1", "spin", spun_by="luis", direction="anticlockwise")
            await ok(device, "R1", "record_outcome", outcome="20")
            await ok(device, "R1", "settle")
            assert await ok(device, "R1", "pay_coup") == ["table_coup_paid"]

            # Basque: the croupier may declare it when no head or inspector is at the table,
            # and betting opens again (EUS L320)
            await ok(sala, "R2", "open_table")  # jmj heads R1, and a 1979 table has its own head
            # one croupier when there are few customers (EUS L220); he spins as himself
            await ok(sala, "R2", "set_spin_rotation", croupiers=["crupier"])
            await ok(croupier, "R2", "open_bets")
            await ok(croupier, "R2", "place_bet", **bet("v", "voisins", amount="18"))
            assert "crupier spins as himself, not as luis" in await refused(
                croupier, "R2", "spin", "invalid_args", spun_by="luis", direction="clockwise"
            )
            await ok(croupier, "R2", "spin", direction="clockwise")
            await ok(croupier, "R2", "call_no_more_bets")
            message = await refused(
                croupier, "R2", "declare_void", "rule_error", reason="object_in_wheel"
            )
            assert "only when no table_head or inspector is at the table" in message
            await ok(croupier, "R2", "declare_void", reason="object_in_wheel", no_head_present=True)
            log = hub.runtime.service.log
            (voided,) = [e for e in log.read(stream(log, "R2")) if e.type == "table_coup_voided"]
            assert (voided.payload["declared_by"], voided.payload["no_head_present"]) == (
                "crupier",
                True,
            )
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
            (attempt,) = list(log.iter_all(stream(log, "R1"), after_seq=before["R1"][0]))
            assert (attempt.type, attempt.actor) == ("table_limits_change_refused", "sala")
            assert attempt.payload["choice"]["minimum"] == "2"  # on the record (spec §7 item 7)
            assert attempt.payload["current"]["minimum"] == "1"

            # the spinning rotation: the director's, set before the first coup
            unset = await refused(device, "R1", "open_bets", "rule_error")
            assert "no spinning rotation is set" in unset
            await refused(head, "R1", "set_spin_rotation", "forbidden", croupiers=["crupier"])
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier"])
            await ok(device, "R1", "open_bets")
            between = await at(sala, "R1", "set_spin_rotation", croupiers=["crupier"])
            assert between["error"]["code"] == "wrong_phase"  # between coups only
            # only the hall's active croupiers spin: not a slip, nor the table's head
            unknown = await refused(
                sala,
                "R2",
                "set_spin_rotation",
                "invalid_args",
                croupiers=["crupier", "lius", "jmj"],
            )
            assert (
                "not an active croupier of the hall: lius, jmj (its croupiers: crupier, luis)"
                in unknown
            )
            assert "who sets it is who sends it" in await refused(
                sala, "R2", "set_spin_rotation", "invalid_args", croupiers=["a"], set_by="x"
            )
            assert "names the croupier who spins" in await refused(
                device, "R1", "spin", "invalid_args", direction="clockwise"
            )
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
            # the rotation, the bets opened, and the refused change of limits on the record
            assert after == {"R1": (before["R1"][0] + 3, after["R1"][1]), "R2": before["R2"]}
            assert (await table_state(head, "R1"))["bets"] == []
            assert hub.runtime.service.seq == 0

    run(scenario())


@asynccontextmanager
async def two_heads(
    store, tables: list[TableConfig], clock=utc_now, settings: dict | None = None
) -> AsyncIterator:
    """A hub with `tables` (and more of the hall's `settings`), run by `clock`: (the hub, the
    heads jmj and jmj2, the Jefe de Sala)."""
    url, token, series, _ = store
    async with (
        running_hub(url, token, series, tables=tables, clock=clock, settings=settings) as hub,
        Client.login(hub.url, user="jmj", password=PASSWORD) as jmj,
        Client.login(hub.url, user="jmj2", password=PASSWORD) as jmj2,
        Client.login(hub.url, user="sala", password=PASSWORD) as sala,
    ):
        yield hub, jmj, jmj2, sala


BOULE_TABLES = [
    TableConfig.model_validate(
        {
            "id": table,
            "game": "boule",
            "profile": "1979",
            "limits": {"minimum": "5", "layout_minimum": multiple},
        }
    )
    for table, multiple in (("B1", 1), ("B2", 2))
]


def test_a_boule_layout_plays_at_twice_the_minimum_only_while_another_keeps_it(store):
    """N79 L440: B2 (twice the authorised minimum) opens only beside B1 (at it), and B1 does
    not close while B2 plays; the hub checks it across the tables."""

    async def scenario():
        async with two_heads(store, BOULE_TABLES) as (hub, head, other_head, _):
            log = hub.runtime.service.log
            alone = await refused(other_head, "B2", "open_table", "rule_error")
            assert "boule layout B2 would play at twice the authorised minimum" in alone
            assert log.head(stream(log, "B2"))[0] == 0  # nothing written
            await ok(head, "B1", "open_table")
            await ok(other_head, "B2", "open_table")
            kept = await refused(head, "B1", "close_table", "rule_error", seal=SEAL)
            assert "N79 L440" in kept
            assert (await table_state(head, "B1"))["phase"] == "idle"
            await ok(other_head, "B2", "close_table", seal=SEAL)
            await ok(head, "B1", "close_table", seal=SEAL)

    run(scenario())


MINIMUM_TABLES = [
    TableConfig.model_validate(
        {"id": table, "game": game, "profile": profile, "limits": {"minimum": minimum, **tier}}
    )
    for table, game, profile, minimum, tier in (
        ("R1", "french-roulette", "1979", "5", {}),
        ("R3", "french-roulette", "1979", "10", {}),
        ("K1", "american-roulette", "basque", "5", {"tier": 30}),
        ("K2", "american-roulette", "basque", "5", {"tier": 30}),
    )
]


def test_one_table_of_a_roulette_game_keeps_the_authorised_minimum(store):
    """N79 L216, EUS L308: while tables of a game play, one plays at the minimum the hall's
    authorisation sets for it (here its tables' lowest: 5). The hub refuses the opening, the
    closing or the change that would leave none; a Basque change counts from its request."""

    async def scenario():
        async with two_heads(store, MINIMUM_TABLES) as (hub, _, _, director):
            log = hub.runtime.service.log
            alone = await refused(director, "R3", "open_table", "rule_error")
            assert "french-roulette table R3 would play above the authorised minimum 5" in alone
            assert log.head(stream(log, "R3"))[0] == 0  # nothing written
            await ok(director, "R1", "open_table")
            await ok(director, "R3", "open_table")
            kept = await refused(director, "R1", "close_table", "rule_error", seal=SEAL)
            assert "(N79 L216, EUS L308)" in kept
            await ok(director, "R3", "close_table", seal=SEAL)
            await ok(director, "R1", "close_table", seal=SEAL)

            await ok(director, "K1", "open_table")
            raised = {"minimum": "10", "tier": 30}
            only = await refused(director, "K1", "change_limits", "rule_error", limits=raised)
            assert "american-roulette table K1 would play above the authorised minimum" in only
            await ok(director, "K2", "open_table")
            assert await ok(director, "K1", "change_limits", limits=raised) == [
                "table_limits_change_announced"
            ]
            both = await refused(director, "K2", "change_limits", "rule_error", limits=raised)
            assert "tables K1, K2 would play above" in both  # K1's counts from its request
            # a 1979 table's change is refused by its own rule, not this one
            await ok(director, "R1", "open_table", seal_found=SEAL)
            frozen = await refused(director, "R1", "change_limits", "rule_error", limits=raised)
            assert "may not change during the session" in frozen

    run(scenario())


def test_an_authorisation_may_exempt_a_game_from_keeping_a_table_at_the_minimum(store):
    """«A menos que en la autorización concreta se dispusiera otra cosa» (N79 L216; AST
    L270-273; EUS L308): the French roulette's authorisation, referenced in the hall's
    configuration, lets R3 play above the minimum alone; the opening records it, and American
    roulette still keeps its rule."""
    exempt = {"table_minimum_exemptions": {"french-roulette": "DGJ 2026/114"}}

    async def scenario():
        async with two_heads(store, MINIMUM_TABLES, settings=exempt) as (hub, _, _, director):
            log = hub.runtime.service.log
            await ok(director, "R3", "open_table")
            (opened,) = [e for e in log.iter_all(stream(log, "R3")) if e.type == "table_opened"]
            assert opened.payload["minimum_exemption"] == "DGJ 2026/114"
            filled = await refused(
                director, "R1", "open_table", "invalid_args", minimum_exemption="x"
            )
            assert "table_minimum_exemptions" in filled
            await ok(director, "K1", "open_table")
            only = await refused(
                director, "K1", "change_limits", "rule_error", limits={"minimum": "10", "tier": 30}
            )
            assert "american-roulette table K1 would play above the authorised minimum" in only

    run(scenario())


SECTOR_TABLES = [
    TableConfig.model_validate(
        {
            "id": table,
            "game": game,
            "profile": "basque",
            "limits": {"minimum": "1", "tier": 30} if game != "boule" else {"minimum": "1"},
            "sector": sector,
        }
    )
    for table, game, sector in (
        ("E1", "french-roulette", "A"),
        ("E2", "american-roulette", "A"),
        ("E3", "boule", "A"),
        ("E4", "french-roulette", "A"),
        ("E5", "french-roulette", "A"),
        ("E6", "french-roulette", "B"),
    )
] + [TABLES[0]]


def test_a_head_directs_the_tables_he_heads_up_to_the_profiles_number_in_one_sector(store):
    """EUS L224: one head for up to four tables of one sector, whatever their games; N79
    L117-121: a 1979 table has a head of its own. A head gives his commands only where he
    heads; another head relieves him; the director acts everywhere."""

    async def scenario():
        async with two_heads(store, SECTOR_TABLES) as (hub, jmj, jmj2, sala):
            log = hub.runtime.service.log
            await ok(jmj, "E1", "open_table")
            other_sector = await refused(jmj, "E6", "open_table", "rule_error")
            assert "only in one sector (EUS L224)" in other_sector and "E6 in B" in other_sector
            assert log.head(stream(log, "E6"))[0] == 0  # nothing written
            for table in ("E2", "E3", "E4"):  # a roulette, an American one and a boule
                await ok(jmj, table, "open_table")
            fifth = await refused(jmj, "E5", "open_table", "rule_error")
            assert "jmj heads E1, E2, E3, E4 already: one head directs at most 4" in fifth
            own_head = await refused(jmj, "R1", "open_table", "rule_error")
            assert "R1 (french-roulette under profile 1979) has a head of its own" in own_head

            await ok(jmj2, "E5", "open_table")
            assert await ok(jmj2, "E1", "take_table") == ["table_head_taken"]  # a relief
            (taken,) = [e for e in log.read(stream(log, "E1")) if e.type == "table_head_taken"]
            assert (
                taken.payload == {"head": "jmj2", "role": "table_head", "previous": "jmj"}
                and taken.actor == "jmj2"
            )
            elsewhere = await refused(jmj, "E1", "announce_last_coups", "forbidden")
            assert "jmj does not head it (its head: jmj2)" in elsewhere
            assert "take_table" in elsewhere
            await ok(sala, "E1", "announce_last_coups")  # the director directs every table
            await ok(sala, "R1", "open_table")  # and opens one without a head
            assert (await table_state(sala, "R1"))["phase"] == "idle"
            await refused(jmj2, "R1", "announce_last_coups", "forbidden")
            # jmj heads E2, E3, E4 now: he may take R1 (a head of its own) only without them
            assert "has a head of its own" in await refused(jmj, "R1", "take_table", "rule_error")
            assert "heads table E2 already" in await refused(jmj, "E2", "take_table", "rule_error")

            # a Basque table's inspector directs it as its head («mahaiburu edo ikuskatzaile»)
            async with Client.login(hub.url, user="iker", password=PASSWORD) as inspector:
                assert "take_table" in inspector.welcome["table_commands"]
                await ok(inspector, "E5", "take_table")
                await ok(inspector, "E5", "announce_last_coups")
                relieved = [e for e in log.read(stream(log, "E5")) if e.type == "table_head_taken"]
                assert relieved[-1].payload == {
                    "head": "iker",
                    "role": "inspector",
                    "previous": "jmj2",
                }
                national = await refused(inspector, "R1", "take_table", "rule_error")
                assert "R1 (french-roulette under profile 1979) has a head of its own" in national

    run(scenario())


def test_a_table_end_places_and_withdraws_the_players_stakes_and_nothing_else(store):
    """N79 L131: «colocar las posturas en la zona que ellos controlan a petición de los
    jugadores»; the coup itself is the croupiers' and the head's."""

    async def scenario():
        async with (
            hub_with_tables(store) as hub,
            people(hub, store) as (head, device, _, _),
            Client.login(hub.url, user="tere", password=PASSWORD) as table_end,
        ):
            log = hub.runtime.service.log
            assert sorted(table_end.welcome["table_commands"]) == ["place_bet", "withdraw_bet"]
            await ok(head, "R1", "open_table")
            await set_rotation(hub, "R1", "crupier")
            await ok(device, "R1", "open_bets")
            await ok(table_end, "R1", "place_bet", **bet("t1", "red", player=PLAYER))
            await ok(table_end, "R1", "place_bet", **bet("t2", "black"))
            await ok(table_end, "R1", "withdraw_bet", bet_id="t2")
            placed = [e for e in log.read(stream(log, "R1")) if e.type == "table_bet_placed"]
            assert [e.actor for e in placed] == ["tere", "tere"]
            assert placed[0].payload["bet"]["player"] == PLAYER
            for name, args in (("spin", {}), ("call_no_more_bets", {}), ("open_bets", {})):
                denied = await refused(table_end, "R1", name, "forbidden", **args)
                assert "extremo_de_mesa may give at a table: place_bet, withdraw_bet" in denied

    run(scenario())


TWO_LAYOUT_TABLES = [
    TableConfig.model_validate(
        {
            "id": table,
            "game": "french-roulette",
            "profile": "1979",
            "limits": {"minimum": "1"},
            "layouts": layouts,
        }
    )
    for table, layouts in (("D1", 2), ("D2", 2), ("S1", 1))
]


def test_a_deputy_head_stands_at_one_two_layout_table_and_handles_no_chips(store):
    """N79 L119-125: «un jefe de mesa y un subjefe de mesa» at a table «a dos paños»; both
    direct the game and may not handle money, plaques or chips."""

    async def scenario():
        async with (
            two_heads(store, TWO_LAYOUT_TABLES) as (hub, jmj, _, sala),
            Client.login(hub.url, user="sub", password=PASSWORD) as deputy,
        ):
            log = hub.runtime.service.log
            assert sorted(deputy.welcome["table_commands"]) == [
                "announce_last_coups",
                "take_table",
            ]
            for table in ("D1", "D2", "S1"):
                await ok(sala, table, "open_table")
            one_layout = await refused(deputy, "S1", "take_table", "rule_error")
            assert "only a table on two layouts has a deputy head" in one_layout
            assert await ok(deputy, "D1", "take_table") == ["table_head_taken"]
            (taken,) = [e for e in log.read(stream(log, "D1")) if e.type == "table_head_taken"]
            assert taken.payload == {"head": "sub", "role": "deputy_head", "previous": None}
            second = await refused(deputy, "D2", "take_table", "rule_error")
            assert "sub is the deputy head of D1 already" in second
            elsewhere = await refused(deputy, "D2", "announce_last_coups", "forbidden")
            assert "sub is not its deputy head" in elsewhere
            await ok(deputy, "D1", "announce_last_coups")
            for name, args in (("declare_void", {"reason": "defective_launch"}), ("settle", {})):
                denied = await refused(deputy, "D1", name, "forbidden", **args)
                assert "subjefe_de_mesa may give at a table: announce_last_coups, take_table" in (
                    denied
                )
            await ok(jmj, "D1", "take_table")  # the head takes his place beside the deputy
            assert (await ok(jmj, "D1", "close_table", seal=SEAL)) == ["table_closed"]

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


def test_every_table_event_type_has_its_public_fields():
    """The public view names every table event, and only fields the event has."""
    assert set(TABLE_PUBLIC_FIELDS) == set(EVENT_TYPES)
    for event_type, fields in TABLE_PUBLIC_FIELDS.items():
        assert set(fields) <= set(EVENT_TYPES[event_type].model_fields), event_type


async def state_as(hub, table: str, **auth: str) -> dict:
    """A table's `tables` state, asked on a connection of its own."""
    async with Client.login(hub.url, **auth) as client:
        return await table_state(client, table)


def test_monitors_and_terminals_get_a_tables_public_view_and_staff_and_its_device_all(store):
    """Two coups with a player's bets, a withdrawn bet, a late one, a zero and his choice, a
    prisoner, a payment, the last coup and the closing seal: a monitor, a terminal and another
    table's device see every seq, the phases and the outcomes, and nothing of a bet, a player or
    a payment, live and resumed; the staff and the table's own device see everything."""

    async def scenario():
        async with (
            hub_with_tables(store) as hub,
            people(hub, store) as (head, device, mon, sala),
            Client.login(hub.url, token=store[3]["R1"]) as own_device,
            Client.login(hub.url, token=store[3]["R2"]) as other_device,
            Client.login(hub.url, token=store[3]["terminal"]) as terminal,
        ):
            watchers = (mon, terminal, other_device, sala, own_device)
            for watcher in watchers:
                answer = await watcher.request({"type": "subscribe", "stream": "table:R1"})
                assert answer["success"], answer
            await ok(head, "R1", "open_table")
            await set_rotation(hub, "R1", "crupier", "luis")
            await ok(device, "R1", "open_bets")
            await ok(device, "R1", "spin", spun_by="crupier", direction="clockwise")
            await ok(device, "R1", "place_bet", **bet("rojo", "red", player=PLAYER))
            cero = bet("cero", "straight", (0,), amount="1", player=PLAYER)
            await ok(device, "R1", "place_bet", **cero)
            await ok(device, "R1", "place_bet", **bet("par", "even", player=PLAYER))
            await ok(device, "R1", "withdraw_bet", bet_id="par")
            await ok(device, "R1", "call_no_more_bets")
            late = await ok(device, "R1", "place_bet", **bet("tarde", "black", player=PLAYER))
            assert late == ["table_late_bet_returned"]
            await ok(device, "R1", "record_outcome", outcome="0")
            chosen = {"bet_id": "rojo", "choice": "prison", "declared_by": PLAYER}
            await ok(device, "R1", "choose_zero_option", **chosen)
            await ok(device, "R1", "settle")

            # settled, not paid: the bets and the settlement are in the full state only
            for auth in ({"token": hub.monitor_token}, {"token": store[3]["terminal-2"]}):
                public = await state_as(hub, "R1", **auth)
                assert (public["phase"], public["outcome"], public["coup"]) == ("settled", "0", 1)
                assert public["bets"] == [] and public["settlement"] is None
                assert public["zero_choices"] == {}
            assert await state_as(hub, "R1", token=store[3]["R2"]) == public
            full = await table_state(head, "R1")
            assert [b["id"] for b in full["bets"]] == ["rojo", "cero"]
            assert full["bets"][0]["player"] == PLAYER and full["settlement"] is not None
            assert full["zero_choices"] == {"rojo": "prison"}
            assert await table_state(device, "R1") == full
            private = ("bets", "settlement", "spin_rotation", "next_spinner", "zero_choices")
            assert {k: v for k, v in full.items() if k not in private} == {
                k: v for k, v in public.items() if k not in private
            }
            assert (full["spin_rotation"], full["next_spinner"]) == (["crupier", "luis"], "luis")
            assert (public["spin_rotation"], public["next_spinner"]) == ([], None)

            await ok(device, "R1", "pay_coup")
            await ok(head, "R1", "announce_last_coups")
            await ok(device, "R1", "open_bets")
            await ok(device, "R1", "spin", spun_by="luis", direction="anticlockwise")
            await ok(device, "R1", "call_no_more_bets")
            await ok(device, "R1", "record_outcome", outcome="3")  # red: the prisoner is freed
            await ok(device, "R1", "settle")
            await ok(device, "R1", "pay_coup")
            assert await ok(head, "R1", "close_table", seal=SEAL) == ["table_closed"]

            count = hub.tables.tables["R1"].service.seq
            log = hub.runtime.service.log
            whole = [json.loads(event_frame(e)) for e in log.read(stream(log, "R1"))]
            seen = {watcher: await watcher.events(count) for watcher in watchers}

        assert seen[sala] == seen[own_device] == whole  # the staff and R1's own device: all
        assert PLAYER in json.dumps(whole) and SEAL in json.dumps(whole)
        paid = next(f for f in whole if f["event"] == "table_coup_paid")["payload"]
        assert ("cero", PLAYER) in [(p["bet"], p["player"]) for p in paid["payments"]]

        panel = seen[mon]
        assert seen[terminal] == seen[other_device] == panel
        assert [f["seq"] for f in panel] == list(range(1, count + 1))  # every seq: no gap
        assert [f["event"] for f in panel] == [f["event"] for f in whole]
        assert [private_in(f) for f in panel] == [[]] * count
        last = {f["event"]: f["payload"] for f in panel}
        assert last["table_bet_placed"] == last["table_late_bet_returned"] == {"coup": 1}
        assert last["table_bet_withdrawn"] == last["table_zero_option_chosen"] == {"coup": 1}
        assert last["table_coup_settled"] == last["table_coup_paid"] == {"coup": 2}
        assert last["table_outcome_recorded"] == {"coup": 2, "outcome": "3", "revolutions": None}
        assert last["table_last_coups_announced"] == {"coups": 1, "counting_current": False}
        assert last["table_bets_opened"] == {"coup": 2, "last_coup": True}
        assert last["table_closed"] == {
            "session_id": 1,
            "coups": 2,
            "suspended": False,
        }  # not who spun them
        assert last["table_spin_rotation_set"] == {}
        assert last["table_spun"] == {"coup": 2, "direction": "anticlockwise", "relaunch": False}
        closed = next(f for f in whole if f["event"] == "table_closed")["payload"]
        assert closed["spins"] == {"crupier": 1, "luis": 1}
        assert last["table_opened"]["limits"]["table_minimum"] == "1"
        return panel, whole

    panel, whole = run(scenario())

    async def resumed():
        """After a hub restart: the same frames from the log, from seq 0 and from seq 5."""
        async with (
            hub_with_tables(store) as hub,
            Client.login(hub.url, token=hub.monitor_token) as mon,
            Client.login(hub.url, token=store[3]["R1"]) as device,
            Client.login(hub.url, token=store[3]["terminal"]) as terminal,
        ):
            await mon.request({"type": "subscribe", "stream": "table:R1"})
            await device.request({"type": "subscribe", "stream": "table:R1"})
            await terminal.request({"type": "subscribe", "stream": "table:R1", "after_seq": 5})
            assert await mon.events(len(panel)) == panel
            assert await device.events(len(whole)) == whole
            assert await terminal.events(len(panel) - 5) == panel[5:]

    run(resumed())


def test_a_command_waiting_its_turn_does_nothing_once_its_credential_is_withdrawn(store):
    """Commands run one at a time. A user disabled (or a device revoked) while a command of
    theirs waits its turn gets nothing done when the turn comes: neither in the hall nor at a
    table, whose commands wait on the table's own lock."""

    async def scenario() -> None:
        async with (
            hub_with_tables(store) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as sala,
            Client.login(hub.url, user="jmj", password=PASSWORD) as head,
        ):
            server, table = hub.server, hub.tables.table("R1")
            credentials = CredentialStore(hub.runtime.service.log.engine)
            async with hub.runtime._lock, table.lock:  # another command's turn, as it were
                hall_command = asyncio.create_task(
                    sala.command(
                        "register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"
                    )
                )
                table_command = asyncio.create_task(at(head, "R1", "open_table"))
                await asyncio.sleep(0.3)  # both sent, both waiting
                await asyncio.to_thread(credentials.deactivate_user, "sala")
                await asyncio.to_thread(credentials.deactivate_user, "jmj")
                watch = CredentialWatch(credentials.standing)
                await watch.refresh()
                await server.cut_withdrawn(watch)
            for waiting in (hall_command, table_command):
                with contextlib.suppress(ConnectionClosed):
                    answer = await asyncio.wait_for(waiting, 10)
                    assert answer["error"]["code"] == "connection_closing", answer
            await asyncio.sleep(0.2)
            log = hub.runtime.service.log
            assert [e.type for e in log.read(HALL)] == []
            assert [e.type for e in log.read(stream(log, "R1"))] == []

    run(scenario())


def test_the_hub_serves_a_tables_record_to_its_director_inspector_and_heads(store):
    """`GET /api/table-record`: the record `bingo-hall table-record` prints, as JSON and text,
    to the Jefe de Sala and the tables' heads; not to a croupier; a clear error for a table or
    a session there is not."""

    async def scenario():
        async with hub_with_tables(store) as hub, people(hub, store) as (head, _, _, sala):
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "close_table", seal=SEAL)
            port = urlsplit(hub.http).port
            assert port is not None
            status, _, body = await staff_get(port, "/api/table-record?table=R1", "sala")
            assert status == 200, body
            data = json.loads(body)
            assert data["record"]["session"]["seal"] == SEAL
            assert data["record"]["chain"]["ok"] is True
            assert data["text"].startswith("REGISTRO DE LA MESA R1 — SESIÓN 1\n")
            status, _, body = await staff_get(port, "/api/table-record?table=R1&session=1", "jmj")
            assert status == 200 and json.loads(body)["record"]["session"]["closed_by"] == "sala"
            status, _, body = await staff_get(port, "/api/table-record?table=R1", "crupier")
            assert status == 403 and b"may not read a table's record" in body
            for path, expected, words in (
                ("/api/table-record", 400, b"ask for one of the hall's tables (?table=ID): R1, R2"),
                ("/api/table-record?table=R9", 404, b"unknown_table"),
                ("/api/table-record?table=R1&session=x", 400, b"session must be a number"),
                ("/api/table-record?table=R1&session=5", 404, b"has no session 5"),
                ("/api/table-record?table=R2", 404, b"table R2 has no session in the log"),
            ):
                status, _, body = await staff_get(port, path, "sala")
                assert (status, words in body) == (expected, True), (path, body)

    run(scenario())


def test_the_next_opening_checks_the_cylinders_seal_through_the_hub(store):
    """Who opens a table again says the seal found on its cylinder; a seal that differs opens
    it only with a note, and the refusal before the note is on the table's stream (a monitor
    hears of it without its details)."""

    async def scenario():
        async with (
            two_heads(store, MINIMUM_TABLES[:1]) as (hub, jmj, _, director),
            Client.login(hub.url, token=hub.monitor_token) as monitor,
        ):
            log = hub.runtime.service.log
            await ok(director, "R1", "open_table")
            await ok(director, "R1", "close_table", seal=SEAL)
            unsaid = await refused(jmj, "R1", "open_table", "rule_error")
            assert f"table R1: the cylinder was closed with seal {SEAL}: say the seal" in unsaid
            head = log.head(stream(log, "R1"))[0]
            wrong = await refused(jmj, "R1", "open_table", "rule_error", seal_found="P-9")
            assert "table R1: the seal on the cylinder, P-9, is not the one it was closed" in wrong
            assert log.head(stream(log, "R1"))[0] == head + 1  # the finding, kept
            (finding,) = list(log.read(stream(log, "R1"), head, 10))
            assert (finding.type, finding.actor) == ("table_seal_mismatch_found", "jmj")
            assert finding.payload | {"reason": ""} == {
                "session_id": 1,
                "expected": SEAL,
                "found": "P-9",
                "reason": "",
            }
            long_note = await refused(
                jmj, "R1", "open_table", "invalid_args", seal_found="P-9", seal_note="x" * 501
            )
            assert "seal_note" in long_note
            note = "P-9 on the lid; the inspector was told"
            assert await ok(jmj, "R1", "open_table", seal_found="P-9", seal_note=note) == [
                "table_opened"
            ]
            (opened_event,) = log.read(stream(log, "R1"), head + 1, 10)
            opened = opened_event.payload
            assert (opened["seal_expected"], opened["seal_found"], opened["seal_note"]) == (
                SEAL,
                "P-9",
                note,
            )
            assert (await monitor.request({"type": "subscribe", "stream": "table:R1"}))["success"]
            heard = {e["event"]: e["payload"] for e in await monitor.events(4)}
            assert heard["table_seal_mismatch_found"] == {}
            assert "seal_found" not in heard["table_opened"]

    run(scenario())
