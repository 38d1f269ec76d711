"""A casino table's stream on MQTT, against real Mosquitto brokers of the test's own (as in
test_mqtt.py) and real aiomqtt clients: events in order as the websocket frame a monitor gets
(the table's public view: no bet, player or payment), the retained state, a replay, a broker
killed mid-coup, the hall's ACL for table topics."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import aiomqtt
import pytest

from bingo_hall.config import MqttConfig
from bingo_hall.transport.fanout import event_frame
from bingo_hall.transport.messages import TableStateMessage
from bingo_hall.transport.mqtt_bridge import MqttBridge, StreamBridge
from bingo_hall.transport.table_bridge import TableBridge
from support.aio import run_async, until
from support.hub import Client
from support.mqtt import (
    all_delivered,
    anonymous_broker,
    example_broker,
    hub_login,
    login,
    mqtt_client,
    persistent_subscriber,
    published,
    take,
    take_until_done,
)
from transport.test_tables_hub import (
    HALL,
    PLAYER,
    bet,
    hub_with_tables,
    ok,
    people,
    private_in,
    table_store,
)

BASE = f"bingo/{HALL}/tables/R1"

run = partial(run_async, timeout=50)


@pytest.fixture
def store(tmp_path):
    return table_store(tmp_path)


@asynccontextmanager
async def bridged(store, mqtt: MqttConfig, **options) -> AsyncIterator[tuple]:
    """The test hub with its tables, the hall's bridge and R1's and R2's."""
    async with hub_with_tables(store) as hub:
        bridges: list[StreamBridge] = [MqttBridge(hub.runtime, mqtt, **options)]
        bridges += [TableBridge(table, mqtt, **options) for table in hub.tables.tables.values()]
        tasks = [asyncio.create_task(bridge.run()) for bridge in bridges]
        try:
            for bridge in bridges:
                await asyncio.wait_for(bridge.connected.wait(), 10)
            yield hub, bridges[0], bridges[1]
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def coup(device: Client, outcome: str, *bets: dict) -> None:
    """A coup at R1 spun by «crupier», the only croupier of its rotation (a 1979 roulette turns
    each way in turn: one coup a session here)."""
    await ok(device, "R1", "open_bets")
    await ok(device, "R1", "spin", spun_by="crupier", direction="clockwise")
    for one in bets:
        await ok(device, "R1", "place_bet", **one)
    await ok(device, "R1", "call_no_more_bets")
    await ok(device, "R1", "record_outcome", outcome=outcome)
    await ok(device, "R1", "settle")
    await ok(device, "R1", "pay_coup")


def frames(hub) -> list[str]:
    return [event_frame(e, "device") for e in hub.runtime.service.log.read(f"{HALL}/tables/R1")]


def test_table_events_reach_mqtt_in_order_with_a_retained_state_and_a_replay(store, broker):
    async def scenario():
        async with (
            bridged(store, MqttConfig(url=broker.url)) as (hub, hall_bridge, bridge),
            people(hub, store) as (head, device, monitor, sala),
            mqtt_client(broker, "monitor-t") as subscriber,
        ):
            assert bridge.identifier == f"bingo-hub-{HALL}-table-R1"
            await subscriber.subscribe(f"{BASE}/events", qos=1)
            await subscriber.subscribe(f"bingo/{HALL}/events", qos=1)  # the bingo's: quiet
            await monitor.request({"type": "subscribe", "stream": "table:R1"})
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier"])
            await coup(
                device,
                "32",
                bet("b1", "red", player=PLAYER),
                bet("b2", "straight", (32,), amount="1", player=PLAYER),
            )
            head_seq = hub.tables.tables["R1"].service.seq
            assert head_seq == 10
            messages = await take(subscriber, head_seq)
            websocket = await monitor.events(head_seq)
            await published(bridge, head_seq)
            async with mqtt_client(broker) as late:
                await late.subscribe(f"{BASE}/state", qos=1)
                [state] = await take(late, 1)
            await subscriber.subscribe(f"{BASE}/replay/monitor-t", qos=1)
            request = {"client": "monitor-t", "after_seq": 5}
            await subscriber.publish(f"{BASE}/replay/request/monitor-t", json.dumps(request), qos=1)
            replay = await take_until_done(subscriber)
            expected = frames(hub)
            await asyncio.sleep(0.2)
            assert len(subscriber.messages) == 0  # nothing came on the bingo's topic
            assert hall_bridge.published_seq == 0

        payloads = [m.payload.decode() for m in messages]
        assert all(str(m.topic) == f"{BASE}/events" and m.qos == 1 for m in messages)
        assert payloads == expected  # byte for byte what the websocket sends a monitor
        assert [json.loads(p) for p in payloads] == websocket
        assert [json.loads(p)["seq"] for p in payloads] == list(range(1, 11))
        assert [private_in(json.loads(p)) for p in payloads] == [[]] * 10  # the public view
        assert json.loads(payloads[4])["payload"] == {"coup": 1}  # a bet: its coup only
        table_state = json.loads(state.payload)
        assert state.retain
        assert (table_state["table"], table_state["seq"], table_state["phase"]) == (
            "R1",
            10,
            "idle",
        )
        assert table_state["recent_outcomes"] == ["32"] and table_state["bets"] == []
        assert table_state["settlement"] is None and PLAYER not in state.payload.decode()
        assert (table_state["spin_rotation"], table_state["next_spinner"]) == ([], None)
        assert table_state["direction_due"] == "anticlockwise"
        assert table_state["limits"]["table_minimum"] == "1"
        *events, done = replay
        assert done == {"type": "replay_done", "seq": 10}
        assert events == [json.loads(f) for f in expected[5:]]
        assert [private_in(e) for e in events] == [[]] * 5

    run(scenario())


def test_a_broker_killed_mid_coup_loses_no_table_event(store, tmp_path):
    broker = anonymous_broker(tmp_path / "persistent", persistent=True)
    broker.start()

    async def scenario():
        received: list[int] = []
        online = asyncio.Event()
        online.set()

        async with (
            bridged(store, MqttConfig(url=broker.url), backoff_max=0.5) as (hub, _, bridge),
            people(hub, store) as (head, device, _, sala),
        ):
            subscriber = await persistent_subscriber(broker, f"{BASE}/events", received, online)
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier"])
            await ok(device, "R1", "open_bets")
            await ok(device, "R1", "spin", spun_by="crupier", direction="clockwise")
            await ok(device, "R1", "place_bet", **bet("b1", "odd"))
            await until(lambda: received[-1:] == [5])
            await asyncio.sleep(1.2)  # past the broker's autosave of the sessions

            online.clear()  # the subscriber stays away until the bridge has republished
            broker.kill()
            await until(lambda: not bridge.connected.is_set())
            for name, args in [
                ("call_no_more_bets", {}),
                ("record_outcome", {"outcome": "7"}),
                ("settle", {}),
                ("pay_coup", {}),
            ]:
                await ok(device, "R1", name, **args)  # the table plays on meanwhile
            assert bridge.published_seq == 5
            await asyncio.to_thread(broker.start)
            await until(lambda: bridge.published_seq == 9)
            online.set()
            await all_delivered(subscriber, received, 9)
            subscriber.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await subscriber
        assert list(dict.fromkeys(received)) == list(range(1, 10))
        assert bridge.connections == 2 and bridge.resumed_from == 5

    try:
        run(scenario())
    finally:
        broker.stop()


def test_the_acl_lets_monitors_read_table_topics_and_not_write_them(store, tmp_path):
    users = {name: f"clave-de-{name}" for name in ("mon-1", "mon-2")}
    broker = example_broker(tmp_path, users, ("R1", "R2"))
    broker.start()

    async def scenario():
        async with (
            bridged(store, hub_login(broker)) as (hub, _, bridge),
            people(hub, store) as (head, device, _, sala),
            login(broker, "mon-1", users["mon-1"]) as mon,
        ):
            await mon.subscribe(f"bingo/{HALL}/tables/+/events", qos=1)
            await ok(head, "R1", "open_table")
            await ok(sala, "R1", "set_spin_rotation", croupiers=["crupier"])
            opened, rotation = await take(mon, 2)
            assert json.loads(opened.payload)["event"] == "table_opened"
            assert json.loads(rotation.payload)["payload"] == {}  # no croupier's name
            await mon.publish(f"{BASE}/events", '{"type":"event","seq":99}', qos=1)  # dropped
            await ok(device, "R1", "open_bets")
            [real] = await take(mon, 1)
            assert json.loads(real.payload)["seq"] == 3
            await ok(device, "R1", "place_bet", **bet("b1", "red", player=PLAYER))
            [placed] = await take(mon, 1)
            assert json.loads(placed.payload)["payload"] == {"coup": 1}
            await mon.subscribe(f"{BASE}/replay/mon-1", qos=1)
            request = {"client": "mon-1", "after_seq": 0}
            await mon.publish(f"{BASE}/replay/request/mon-1", json.dumps(request), qos=1)
            *events, done = await take_until_done(mon)
            assert [e["seq"] for e in events] == [1, 2, 3, 4] and done["seq"] == 4
            assert [private_in(e) for e in events] == [[]] * 4
            await published(bridge, 4)
            async with login(broker, "mon-2", users["mon-2"]) as late:
                await late.subscribe(f"{BASE}/state", qos=1)
                [state] = await take(late, 1)
            retained = json.loads(state.payload)
            assert (retained["phase"], retained["seq"]) == ("betting", 4)
            assert retained["bets"] == [] and retained["settlement"] is None  # b1 is on it
            assert list(hub.tables.tables["R1"].service.state.bets) == ["b1"]

    try:
        run(scenario())
    finally:
        broker.stop()


def test_a_terminal_cannot_take_a_table_bridges_id_nor_its_witness_checks(store, tmp_path):
    """term-01 asks for R1's bridge's client id, then for its witness check's: it is term-01 on
    the broker each time, so the bridge stays on and publishes, and a witness check run while
    the terminal is there neither fails nor knocks the terminal off."""
    users = {"term-01": "clave-de-term-01", "mon-1": "clave-de-mon-1"}
    broker = example_broker(tmp_path, users, ("R1", "R2"))
    broker.start()

    def terminal(identifier: str) -> aiomqtt.Client:
        return login(broker, "term-01", users["term-01"], identifier)

    async def still_term_01(client: aiomqtt.Client) -> None:
        """Its own topics and replays are term-01's, and its connection is still up."""
        own = f"bingo/{HALL}/terminal/term-01/ping"
        await client.subscribe(own, qos=1)
        await client.publish(own, "ping", qos=1)
        [pong] = await take(client, 1)
        assert pong.topic.value == own
        await client.subscribe(f"{BASE}/replay/term-01", qos=1)
        request = json.dumps({"client": "term-01", "after_seq": 0})
        await client.publish(f"{BASE}/replay/request/term-01", request, qos=1)
        assert (await take_until_done(client))[-1]["type"] == "replay_done"

    async def scenario():
        async with (
            bridged(store, hub_login(broker)) as (hub, _, bridge),
            people(hub, store) as (head, _, _, _),
            login(broker, "mon-1", users["mon-1"]) as mon,
        ):
            await mon.subscribe(f"{BASE}/events", qos=1)
            async with terminal(bridge.identifier) as intruder:
                await asyncio.sleep(0.3)  # a bridge knocked off is back within 0.1 s
                assert bridge.connected.is_set() and bridge.connections == 1
                await still_term_01(intruder)
            async with terminal(f"{bridge.identifier}-witness") as intruder:
                await bridge.check_witness()  # passes: the broker's state is the log's
                await still_term_01(intruder)
            await ok(head, "R1", "open_table")
            [opened] = await take(mon, 1)
            assert json.loads(opened.payload)["event"] == "table_opened"
            await published(bridge, 1)
            assert bridge.connections == 1 and bridge.replays_done == 2

    try:
        run(scenario())
    finally:
        broker.stop()


def test_the_mqtt_doc_holds_the_table_state_schema():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mqtt.md").read_text(encoding="utf-8")
    schema = json.dumps(TableStateMessage.model_json_schema(), indent=2, ensure_ascii=False)
    assert f"```json\n{schema}\n```" in doc
