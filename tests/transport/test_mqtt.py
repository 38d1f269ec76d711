"""The hub's MQTT bridge against real Mosquitto brokers, with real clients (aiomqtt and the
`mosquitto_sub` command). Each test starts its own broker on a free port (support.mqtt: the
system broker is never touched), so it can kill -9 and restart it, or load the hall's ACL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import aiomqtt
import pytest

from bingo_hall.config import MqttConfig
from bingo_hall.transport.fanout import event_frame
from bingo_hall.transport.mqtt_bridge import HallStateMessage, MqttBridge, ReplayDone, ReplayRequest
from support.aio import run_async, until
from support.cli import hall as cli_hall
from support.cli import hall_config
from support.hub import PASSWORD, Client, open_game, prepare_store, running_hub
from support.mqtt import (
    HUB_PASSWORD,
    all_delivered,
    anonymous_broker,
    example_broker,
    hub_login,
    mqtt_client,
    persistent_subscriber,
    published,
    take,
    take_until_done,
)
from support.mqtt import login as login_as
from support.serve import free_port, serving

REPO = Path(__file__).resolve().parents[2]
HALL = "sala-1"
EVENTS = f"bingo/{HALL}/events"
STATE = f"bingo/{HALL}/state"


def request_topic(client: str) -> str:
    return f"bingo/{HALL}/replay/request/{client}"


run = partial(run_async, timeout=50)


def replay_topic(client: str) -> str:
    return f"bingo/{HALL}/replay/{client}"


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    return url, token, series


@asynccontextmanager
async def bridged_hub(
    store, mqtt: MqttConfig, display_delay: float = 0.0, **options
) -> AsyncIterator[tuple]:
    """The test hub (websocket server) with an MQTT bridge running beside it."""
    async with running_hub(*store, display_delay=display_delay) as hub:
        bridge = MqttBridge(hub.runtime, mqtt, **options)
        task = asyncio.create_task(bridge.run())
        try:
            await asyncio.wait_for(bridge.connected.wait(), 10)
            yield hub, bridge
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@asynccontextmanager
async def staff(hub) -> AsyncIterator[tuple[Client, Client]]:
    async with (
        Client.login(hub.url, user="sala", password=PASSWORD) as sala,
        Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
    ):
        yield sala, locutor


def frames(hub) -> list[str]:
    return [event_frame(e, "device") for e in hub.runtime.service.log.read(HALL)]


# ------------------------------------------------------------------------------ tests --


def test_every_event_reaches_subscribers_in_order_as_the_websocket_frame(store, broker):
    async def scenario():
        async with (
            bridged_hub(store, MqttConfig(url=broker.url)) as (hub, bridge),
            Client.login(hub.url, token=hub.monitor_token) as monitor,
            mqtt_client(broker) as subscriber,
            staff(hub) as (sala, locutor),
        ):
            await subscriber.subscribe(EVENTS, qos=1)
            command = ["mosquitto_sub", "-d", "-p", str(broker.port), "-q", "1", "-t", EVENTS]
            cli = subprocess.Popen(  # line-buffered, so that we see it has subscribed
                ["stdbuf", "-oL", *command, "-C", "19"],
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                while not (line := await asyncio.to_thread(cli.stdout.readline)).startswith(
                    "Subscribed"
                ):
                    assert line, "mosquitto_sub ended before it subscribed"
                assert (await monitor.request({"type": "subscribe", "after_seq": 0}))["success"]
                await open_game(sala, locutor)  # 12 events
                for _ in range(7):
                    await locutor.ok("draw_ball")
                head = hub.runtime.service.seq
                assert head == 19
                messages = await take(subscriber, head)
                output, _ = await asyncio.to_thread(cli.communicate, timeout=10)
            finally:
                if cli.poll() is None:
                    cli.kill()
            websocket = await monitor.events(head)
            # a subscriber may get an event before the hub has the broker's PUBACK for it
            await until(lambda: bridge.published_seq == head)

        payloads = [m.payload.decode() for m in messages]
        assert [json.loads(p)["seq"] for p in payloads] == list(range(1, head + 1))
        assert payloads == frames(hub)  # byte for byte what the websocket sends
        assert [json.loads(p) for p in payloads] == websocket
        assert all(m.qos == 1 and not m.retain for m in messages)
        assert [line for line in output.splitlines() if line.startswith("{")] == payloads
        assert cli.returncode == 0
        assert bridge.published_seq == head and bridge.connections == 1

    run(scenario())


def test_mqtt_shows_each_ball_when_the_panels_do_not_before(store, broker):
    """MQTT carries the panels' view: a ball is published `display_delay` after it was
    announced (a terminal reading MQTT would otherwise see it before the hall's panels), and
    nothing after it goes first; a replay just after the ball holds it alike."""
    delay = 1.0

    async def scenario():
        async with (
            bridged_hub(store, MqttConfig(url=broker.url), display_delay=delay) as (hub, _),
            mqtt_client(broker) as subscriber,
            staff(hub) as (sala, locutor),
        ):
            await open_game(sala, locutor)
            await subscriber.subscribe(EVENTS, qos=1)
            await subscriber.subscribe(replay_topic("mon-9"), qos=1)
            head = hub.runtime.service.seq
            loop = asyncio.get_running_loop()
            await locutor.ok("draw_ball")
            announced = loop.time()
            await sala.ok("record_player_request", kind="information", text="¿A qué hora acaba?")
            request = json.dumps({"client": "mon-9", "after_seq": head})
            await subscriber.publish(f"bingo/{HALL}/replay/request/mon-9", request, qos=1)
            arrivals: dict[tuple[str, str], float] = {}
            async for message in subscriber.messages:
                frame = json.loads(message.payload)
                if frame.get("seq", 0) <= head:  # the game's opening, published meanwhile
                    continue
                arrivals[(str(message.topic), frame.get("event", frame["type"]))] = loop.time()
                if len(arrivals) == 5:  # two events on each topic, and replay_done
                    break
            return announced, arrivals

    announced, arrivals = run(scenario())
    for topic in (EVENTS, replay_topic("mon-9")):
        ball = arrivals[(topic, "ball_drawn")]
        assert ball - announced >= delay * 0.9, (topic, ball - announced)
        assert arrivals[(topic, "player_request_recorded")] >= ball  # nothing overtakes it


def test_the_retained_state_shows_a_late_subscriber_the_balls_drawn(store, broker):
    async def scenario():
        async with (
            bridged_hub(store, MqttConfig(url=broker.url)) as (hub, bridge),
            staff(hub) as (sala, locutor),
        ):
            await published(bridge, 0)  # an empty hall has a state too
            await open_game(sala, locutor)
            for _ in range(5):
                await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            await published(bridge, head)
            game = hub.runtime.service.state.game
            async with mqtt_client(broker) as late:
                await late.subscribe(STATE, qos=1)
                [message] = await take(late, 1)
            cli = await asyncio.to_thread(
                subprocess.run,
                ["mosquitto_sub", "-p", str(broker.port), "-t", STATE, "-C", "1", "-W", "5"],
                capture_output=True,
                text=True,
            )
        drawn = [
            e.payload["number"]
            for e in hub.runtime.service.log.read(HALL)
            if e.type == "ball_drawn"
        ]
        state = json.loads(message.payload)
        assert message.retain
        assert state == {
            "seq": head,
            "phase": "drawing",
            "session": 1,
            "game": 1,
            "balls": drawn,
            "line_prize": str(game.line_prize),
            "bingo_prize": str(game.bingo_prize),
        }
        assert len(drawn) == 5 and list(game.calls) == drawn
        assert isinstance(state["line_prize"], str) and "." in state["line_prize"]
        assert json.loads(cli.stdout) == state

    run(scenario())


def test_a_replay_request_returns_exactly_the_events_after_the_seq(store, broker):
    async def scenario():
        async with (
            bridged_hub(store, MqttConfig(url=broker.url)) as (hub, bridge),
            staff(hub) as (sala, locutor),
            mqtt_client(broker, "monitor-7") as monitor,
        ):
            await open_game(sala, locutor)
            for _ in range(4):
                await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            await monitor.subscribe(replay_topic("monitor-7"), qos=1)
            answers = {}
            for after in (5, 0, head, head + 10):
                request = {"client": "monitor-7", "after_seq": after}
                await monitor.publish(request_topic("monitor-7"), json.dumps(request), qos=1)
                answers[after] = await take_until_done(monitor)
            # the bridge counts a replay once the broker acknowledged its last message,
            # which may come after the client has read it
            async with asyncio.timeout(10):
                while bridge.replays_done < 4:
                    await asyncio.sleep(0.01)
            every = frames(hub)
        for after, answer in answers.items():
            *events, done = answer
            assert done == {"type": "replay_done", "seq": head}
            assert [e["seq"] for e in events] == list(range(after + 1, head + 1))
            assert events == [json.loads(f) for f in every[after:]]
        assert bridge.replays_done == 4

    run(scenario())


def test_a_broker_killed_mid_game_loses_no_event(store, tmp_path):
    broker = anonymous_broker(tmp_path / "persistent", persistent=True)
    broker.start()

    async def scenario():
        received: list[int] = []
        online = asyncio.Event()  # the persistent subscriber may (re)connect
        online.set()

        loop = asyncio.get_running_loop()
        mqtt = MqttConfig(url=broker.url)
        async with (
            bridged_hub(store, mqtt, backoff_max=0.5) as (hub, bridge),
            staff(hub) as (sala, locutor),
        ):
            subscriber = await persistent_subscriber(broker, EVENTS, received, online)
            await open_game(sala, locutor)
            for _ in range(5):
                await locutor.ok("draw_ball")
            before = hub.runtime.service.seq
            await until(lambda: received and received[-1] == before)
            await asyncio.sleep(1.2)  # past the broker's autosave of the sessions

            online.clear()  # the subscriber stays away until the bridge has republished
            broker.kill()
            noticed = await until(lambda: not bridge.connected.is_set())
            latencies = []
            for _ in range(6):  # the hub keeps working while the broker is down
                start = loop.time()
                await locutor.ok("draw_ball")
                latencies.append(loop.time() - start)
            head = hub.runtime.service.seq
            assert bridge.published_seq == before  # nothing acknowledged meanwhile

            restarted = loop.time()
            await asyncio.to_thread(broker.start)
            caught_up = await until(lambda: bridge.published_seq == head)
            resumed_from, republished = bridge.resumed_from, bridge.published_seq
            online.set()
            delivered = await all_delivered(subscriber, received, head)
            subscriber.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await subscriber

        # de-duplicated by seq (first copy kept): every seq, in order, no gap
        assert list(dict.fromkeys(received)) == list(range(1, head + 1))
        assert bridge.connections == 2
        assert (resumed_from, republished) == (before, head)
        assert bridge.events_sent == head  # each event acknowledged once: none was in flight
        assert max(latencies) < 1.0
        print(  # shown with pytest -s
            f"\n[broker restart] seq {before} acknowledged before kill -9; loss noticed in "
            f"{noticed * 1000:.0f} ms; 6 draws while down, slowest {max(latencies) * 1000:.0f}"
            f" ms; broker restarted, bridge republished seq {before + 1}..{head} in "
            f"{caught_up * 1000:.0f} ms; persistent subscriber had all {head} seqs "
            f"{delivered * 1000:.0f} ms after it came back ({len(received) - head} dupes); "
            f"total wall {(loop.time() - restarted) * 1000:.0f} ms after restart"
        )

    try:
        run(scenario())
    finally:
        broker.stop()


def test_events_the_broker_never_acknowledged_are_published_after_a_hub_restart(store, tmp_path):
    """The broker is away while balls are drawn, and the hub stops before it comes back: the
    restarted hub's bridge starts where the broker last acknowledged (kept in the store), not
    at the log's head, so the `events` topic has no gap."""
    broker = anonymous_broker(tmp_path / "persistent", persistent=True)
    broker.start()

    async def scenario():
        received: list[int] = []
        online = asyncio.Event()
        online.set()
        mqtt = MqttConfig(url=broker.url)
        async with (
            bridged_hub(store, mqtt, backoff_max=0.5) as (hub, bridge),
            staff(hub) as (sala, locutor),
        ):
            subscriber = await persistent_subscriber(broker, EVENTS, received, online)
            await open_game(sala, locutor)
            await locutor.ok("draw_ball")
            before = hub.runtime.service.seq
            await until(lambda: received and received[-1] == before)
            await asyncio.sleep(1.2)  # past the broker's autosave of the sessions
            online.clear()
            broker.kill()
            await until(lambda: not bridge.connected.is_set())
            for _ in range(3):
                await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            assert bridge.published_seq == before < head
        # the hub is stopped; the broker comes back; the hub starts again on the same store
        await asyncio.to_thread(broker.start)
        async with bridged_hub(store, mqtt, backoff_max=0.5) as (hub, bridge):
            assert bridge.resumed_from == before
            await until(lambda: bridge.published_seq == head)
            online.set()
            await all_delivered(subscriber, received, head)
            subscriber.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await subscriber
        assert list(dict.fromkeys(received)) == list(range(1, head + 1))

    try:
        run(scenario())
    finally:
        broker.stop()


def test_a_store_that_fails_when_the_bridge_starts_is_tried_again(store, broker, caplog):
    """Where the bridge left off is read from the store with the connection: a read that fails
    is logged and tried again, and the bridge comes up once the store answers."""
    from sqlalchemy import text

    caplog.set_level(logging.ERROR, logger="bingo_hall.transport.mqtt_bridge")

    async def scenario():
        async with running_hub(*store) as hub:
            bridge = MqttBridge(hub.runtime, MqttConfig(url=broker.url), backoff_max=0.2)
            engine = hub.runtime.service.log.engine
            with engine.begin() as conn:  # the table the position lives in, gone for a while
                conn.execute(text("ALTER TABLE mqtt_published RENAME TO mqtt_published_away"))
            task = asyncio.create_task(bridge.run())
            try:
                await until(lambda: "MQTT bridge failed" in caplog.text)
                assert not bridge.connected.is_set() and not task.done()
                with engine.begin() as conn:
                    conn.execute(text("ALTER TABLE mqtt_published_away RENAME TO mqtt_published"))
                await asyncio.wait_for(bridge.connected.wait(), 10)
                assert bridge.published_seq == hub.runtime.service.seq
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    run(scenario())


def test_the_acl_keeps_each_client_to_its_topics(store, tmp_path):
    users = {name: f"clave-de-{name}" for name in ("mon-1", "mon-2", "term-01", "term-02")}
    broker = example_broker(tmp_path, users)
    broker.start()

    def login(user: str) -> aiomqtt.Client:
        return login_as(broker, user, users[user])

    async def quiet(client: aiomqtt.Client) -> None:
        await asyncio.sleep(0.3)
        assert len(client.messages) == 0

    async def scenario():
        async with (
            bridged_hub(store, hub_login(broker)) as (hub, bridge),
            staff(hub) as (sala, locutor),
            login("mon-1") as monitor,
            login("mon-2") as other,
            login("term-01") as term1,
            login("term-02") as term2,
        ):
            for client in (monitor, other):
                await client.subscribe(EVENTS, qos=1)
            await open_game(sala, locutor)
            head = hub.runtime.service.seq
            assert [json.loads(m.payload)["seq"] for m in await take(other, head)] == list(
                range(1, head + 1)
            )
            await take(monitor, head)

            # a monitor reads events but cannot publish them: the broker drops the publish
            await monitor.publish(EVENTS, '{"type":"event","seq":999}', qos=1)
            await term1.publish(EVENTS, '{"type":"event","seq":998}', qos=1)
            await locutor.ok("draw_ball")  # then the hub's own next event
            for client in (other, monitor):
                [real] = await take(client, 1)
                assert json.loads(real.payload)["seq"] == head + 1
            await quiet(other)

            # a monitor gets its own replay (client id mon-1), not another's
            await other.subscribe(f"bingo/{HALL}/replay/#", qos=1)
            await monitor.subscribe(replay_topic("mon-1"), qos=1)
            await monitor.publish(
                request_topic("mon-1"), json.dumps({"client": "mon-1", "after_seq": head})
            )
            answer = await take_until_done(monitor)
            assert [m.get("seq") for m in answer] == [head + 1, head + 1]
            await quiet(other)

            # no client can aim a replay at another: it may ask only under its own client id
            # (the broker drops the rest), and the hub ignores a request naming another client
            await other.unsubscribe(f"bingo/{HALL}/replay/#")
            await other.subscribe(replay_topic("mon-2"), qos=1)
            aimed = json.dumps({"client": "mon-2", "after_seq": 0})
            await term1.publish(request_topic("mon-2"), aimed, qos=1)  # denied by the ACL
            await term1.publish(request_topic("term-01"), aimed, qos=1)  # not its own id
            await quiet(other)

            # a terminal reads and writes its own topics, and not another terminal's
            own1, own2 = (
                f"bingo/{HALL}/terminal/term-01/claim",
                f"bingo/{HALL}/terminal/term-02/claim",
            )
            await term1.subscribe(f"bingo/{HALL}/terminal/term-01/#", qos=1)
            await term2.subscribe(f"bingo/{HALL}/terminal/term-02/#", qos=1)
            await term1.subscribe(f"bingo/{HALL}/terminal/term-02/#", qos=1)  # denied: no read
            await term1.publish(own2, "forged by term-01", qos=1)
            await term2.publish(own2, "from term-02", qos=1)
            [message] = await take(term2, 1)
            assert (message.topic.value, message.payload) == (own2, b"from term-02")
            await term1.publish(own1, "from term-01", qos=1)
            [message] = await take(term1, 1)
            assert (message.topic.value, message.payload) == (own1, b"from term-01")
            await quiet(term2)
            await quiet(term1)  # it never saw term-02's message on term-02's topic

            # the hub's own login works for everything it does (events, state, replays)
            assert bridge.published_seq == head + 1 and bridge.connections == 1

        # no login, or a wrong password: refused
        for options in ({}, {"username": "mon-1", "password": "wrong"}):
            with pytest.raises(aiomqtt.MqttError):
                async with mqtt_client(broker, "intruder", **options):
                    pass

    try:
        run(scenario())
    finally:
        broker.stop()


MONITORS = {name: f"clave-de-{name}" for name in ("mon-1", "mon-2")}


def test_a_monitor_asking_for_the_hubs_client_id_is_held_to_its_own(store, tmp_path):
    """Under the example broker a client's id is its user name: a monitor that connects again
    and again under the hub bridge's id (or its witness check's) neither knocks the bridge off
    nor gets its id; it is mon-1 on the broker, for its replays too."""
    broker = example_broker(tmp_path, MONITORS)
    broker.start()

    async def scenario():
        async with (
            bridged_hub(store, hub_login(broker)) as (hub, bridge),
            staff(hub) as (sala, locutor),
            login_as(broker, "mon-2", MONITORS["mon-2"]) as watcher,
        ):
            await watcher.subscribe(EVENTS, qos=1)
            for identifier in [bridge.identifier, f"{bridge.identifier}-witness"] * 2:
                async with login_as(broker, "mon-1", MONITORS["mon-1"], identifier) as intruder:
                    await asyncio.sleep(0.3)  # a bridge knocked off is back within 0.1 s
                    assert bridge.connected.is_set() and bridge.connections == 1
                    await intruder.subscribe(replay_topic("mon-1"), qos=1)
                    request = json.dumps({"client": "mon-1", "after_seq": 0})
                    await intruder.publish(request_topic("mon-1"), request, qos=1)
                    assert await take_until_done(intruder) == [{"type": "replay_done", "seq": 0}]
            await open_game(sala, locutor)  # and the bridge publishes as before
            head = hub.runtime.service.seq
            seqs = [json.loads(m.payload)["seq"] for m in await take(watcher, head)]
            await published(bridge, head)
            assert seqs == list(range(1, head + 1))
            assert bridge.connections == 1 and bridge.replays_done == 4

    try:
        run(scenario())
    finally:
        broker.stop()


def test_a_monitor_cannot_take_another_monitors_id_session_or_replays(store, tmp_path):
    """mon-2 connecting under mon-1's id (persistent session) gets none of what the broker
    queued for mon-1 while it was off, nor its replay, and does not knock mon-1 off."""
    broker = example_broker(tmp_path, MONITORS)
    broker.start()

    def monitor(user: str, identifier: str) -> aiomqtt.Client:
        return login_as(broker, user, MONITORS[user], identifier, clean_session=False)

    async def scenario():
        async with (
            bridged_hub(store, hub_login(broker)) as (hub, bridge),
            staff(hub) as (sala, locutor),
        ):
            async with monitor("mon-1", "mon-1") as mon1:
                await mon1.subscribe(EVENTS, qos=1)
                await mon1.subscribe(replay_topic("mon-1"), qos=1)
            await open_game(sala, locutor)  # queued by the broker for mon-1's session
            head = hub.runtime.service.seq
            await published(bridge, head)
            async with monitor("mon-2", "mon-1") as thief:
                await thief.subscribe(replay_topic("mon-1"), qos=1)
                request = json.dumps({"client": "mon-1", "after_seq": 0})
                await thief.publish(request_topic("mon-1"), request, qos=1)  # not its id
                await asyncio.sleep(0.5)
                assert len(thief.messages) == 0
                async with monitor("mon-1", "mon-1") as mon1:  # mon-1's session is whole
                    queued = [json.loads(m.payload)["seq"] for m in await take(mon1, head)]
                    assert queued == list(range(1, head + 1))
                    async with monitor("mon-2", "mon-1"):  # again, while mon-1 is on
                        await locutor.ok("draw_ball")
                        [ball] = await take(mon1, 1)  # mon-1 was not knocked off
                        assert json.loads(ball.payload)["seq"] == head + 1
                await asyncio.sleep(0.2)
                assert len(thief.messages) == 0 and bridge.replays_done == 0

    try:
        run(scenario())
    finally:
        broker.stop()


def test_malformed_replay_requests_are_ignored_with_a_warning(store, broker, caplog):
    bad = [
        b"not json",
        b"[1, 2]",
        b'{"client": "mon-9"}',
        b'{"after_seq": 3}',
        b'{"client": "mon-9", "after_seq": -1}',
        b'{"client": "mon-9", "after_seq": "3"}',
        b'{"client": "mon-9", "after_seq": 2.5}',
        b'{"client": "mon-9", "after_seq": true}',
        b'{"client": "mon-9", "after_seq": 100000000000000000000000}',
        b'{"client": "a/#", "after_seq": 0}',
        b'{"client": "", "after_seq": 0}',
        b'{"client": "mon-9", "after_seq": 0, "extra": 1}',
        b"\xff\xfe",
        b'{"client": "mon-9", "after_seq": 0, "pad": "' + b"x" * 5000 + b'"}',
        b"[" * 2040 + b"]" * 2040,  # within the size limit, nested past the JSON decoder
    ]

    async def scenario():
        async with (
            bridged_hub(store, MqttConfig(url=broker.url)) as (hub, bridge),
            staff(hub) as (sala, locutor),
            mqtt_client(broker, "mon-9") as monitor,
        ):
            await open_game(sala, locutor)
            await monitor.subscribe(replay_topic("mon-9"), qos=1)
            with caplog.at_level(logging.WARNING, "bingo_hall.transport.mqtt_bridge"):
                for payload in bad:
                    await monitor.publish(request_topic("mon-9"), payload, qos=1)
                good = {"client": "mon-9", "after_seq": 10}
                await monitor.publish(request_topic("mon-9"), json.dumps(good), qos=1)
                answer = await take_until_done(monitor)
            assert [m["seq"] for m in answer] == [11, 12, 12]
            await locutor.ok("draw_ball")  # and the bridge still publishes
            await published(bridge, 13)
            assert bridge.connections == 1 and bridge.replays_done == 1

        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        ignored = [w for w in warnings if w.startswith("ignored replay request")]
        assert len(ignored) == len(bad), warnings
        assert "not JSON" in ignored[0] and "after_seq" in ignored[4]

    run(scenario())


def test_a_retained_replay_request_is_not_served_again_at_each_connection(store, broker, caplog):
    """A request asks once: one the broker kept (published with the retain flag) reaches the
    bridge again at every new subscription, and must not replay the log each time."""

    async def scenario():
        async with mqtt_client(broker, "mon-9") as monitor:
            await monitor.subscribe(replay_topic("mon-9"), qos=1)
            request = json.dumps({"client": "mon-9", "after_seq": 0})
            await monitor.publish(request_topic("mon-9"), request, qos=1, retain=True)
            with caplog.at_level(logging.WARNING, "bingo_hall.transport.mqtt_bridge"):
                async with bridged_hub(store, MqttConfig(url=broker.url)) as (hub, bridge):
                    async with staff(hub) as (sala, locutor):
                        await open_game(sala, locutor)
                        await published(bridge, hub.runtime.service.seq)
                        await asyncio.sleep(0.3)
                    assert bridge.replays_done == 0 and len(monitor.messages) == 0
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert f"ignored a retained replay request on {request_topic('mon-9')}" in warnings

    run(scenario())


def bridged_config(directory: Path, broker) -> Path:
    """A hall configuration naming the broker."""
    config = directory / "hall.toml"
    config.write_text(
        'hall_id = "sala-1"\nprofile = "1979"\n'
        f'profiles_dir = "{REPO / "config" / "profiles"}"\n'
        f'[mqtt]\nurl = "{broker.url}"\ntopic_prefix = "bingo"\n',
        encoding="utf-8",
    )
    return config


def test_serve_starts_the_bridge_when_the_config_names_a_broker(tmp_path, broker):
    config = bridged_config(tmp_path, broker)
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    serve = ["serve", "--config", str(config), "--db", db, "--port", str(free_port())]
    process = subprocess.Popen(
        [sys.executable, "-m", "bingo_hall.cli", *serve],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        state = subprocess.run(
            ["mosquitto_sub", "-p", str(broker.port), "-t", STATE, "-C", "1", "-W", "20"],
            capture_output=True,
            text=True,
        )
        assert json.loads(state.stdout) == {
            "seq": 0,
            "phase": "session_closed",
            "session": None,
            "game": None,
            "balls": [],
            "line_prize": None,
            "bingo_prize": None,
        }
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert f"MQTT bridge to {broker.url}" in out
    assert "stopped at seq 0" in err


def read_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.loads(answer.read())


def retained_state(broker, *login: str, topic: str = STATE) -> dict | None:
    """The state the broker keeps retained for the hall (or on `topic`), read by Mosquitto's own
    client (with `login`: -u USER -P PASSWORD)."""
    read = subprocess.run(
        ["mosquitto_sub", "-p", str(broker.port), *login, "-t", topic, "-C", "1", "-W", "2"],
        capture_output=True,
        text=True,
    )
    return json.loads(read.stdout) if read.stdout.strip() else None


def retain(broker, payload: str) -> None:
    """Publish `payload` retained on the hall's state topic ("": clear it)."""
    command = ["mosquitto_pub", "-p", str(broker.port), "-t", STATE, "-r", "-q", "1"]
    command += ["-m", payload] if payload else ["-n"]
    subprocess.run(command, check=True, timeout=10)


def test_serve_refuses_a_log_that_ends_before_what_the_broker_saw(tmp_path, broker):
    """The broker retains the state of seq 40; the hall's log (restored from an older copy)
    ends at 0: serve says so and stops, status 1, and the broker's record is left as it was.
    Once that record is cleared, as the message says, the hub starts on the older log."""
    config = bridged_config(tmp_path, broker)
    witnessed = json.dumps({"seq": 40, "phase": "drawing"})
    retain(broker, witnessed)
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    serve = [sys.executable, "-m", "bingo_hall.cli", "serve", "--config", str(config)]
    serve += ["--db", db, "--port", str(free_port())]
    refused = subprocess.run(serve, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1, refused.stderr
    assert (
        f"the MQTT broker's retained {STATE} reflects seq 40, but the log ends at seq 0: the "
        "log has lost events it had published"
    ) in refused.stderr
    clearing = f"mosquitto_pub -u bingo-hub-{HALL} -P <the hub's password> -r -n -t {STATE}"
    assert clearing in refused.stderr
    assert "Traceback" not in refused.stderr and "serving on" not in refused.stdout
    assert retained_state(broker) == json.loads(witnessed)  # the evidence stays

    retain(broker, "")
    process = subprocess.Popen(serve, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        run_async(until(lambda: (retained_state(broker) or {}).get("seq") == 0, timeout=30))
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
    assert process.returncode == 0


def test_serve_runs_on_the_broker_users_and_acl_that_mqtt_access_writes(tmp_path):
    """The technician's way: a monitor added with mosquitto_passwd, the ACL and the hub's users
    written by `bingo-hall mqtt-access` from the hall's configuration (config/hall.toml: tables
    R1 and B1), the example broker. `serve` checks each stream's witness, the hall's bridge and
    each table's publish their state and answer a monitor's replay; a state retained past the
    log is seen by the witness check, and cleared as the hall bridge's user (docs/mqtt.md)."""
    monitor = ("-u", "mon-1", "-P", "clave-de-mon-1")
    broker = example_broker(tmp_path, {"mon-1": "clave-de-mon-1"}, access=False)
    config = hall_config(tmp_path, "simulated")
    mqtt = f'\n[mqtt]\nurl = "{broker.url}"\npassword = "{HUB_PASSWORD}"\n'
    config.write_text(config.read_text(encoding="utf-8") + mqtt, encoding="utf-8")
    files = ("--acl", str(broker.acl), "--passwd", str(broker.passwd))
    wrote = cli_hall("mqtt-access", "--config", str(config), *files, timeout=60)
    assert wrote.returncode == 0, wrote.stderr
    assert HUB_PASSWORD not in wrote.stdout + wrote.stderr
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    tables = {table: f"bingo/{HALL}/tables/{table}" for table in ("R1", "B1")}

    async def replays() -> list[list[dict]]:
        answers = []
        async with login_as(broker, "mon-1", "clave-de-mon-1") as mon:
            for base in (f"bingo/{HALL}", *tables.values()):
                await mon.subscribe(f"{base}/replay/mon-1", qos=1)
                request = json.dumps({"client": "mon-1", "after_seq": 0})
                await mon.publish(f"{base}/replay/request/mon-1", request, qos=1)
                answers.append(await take_until_done(mon))
        return answers

    broker.start()
    try:
        with serving("--config", str(config), "--db", db) as hub:
            health = f"http://127.0.0.1:{hub.port}/health"
            run_async(until(lambda: all(b["connected"] for b in read_json(health)["mqtt"]), 20))
            assert [b["stream"] for b in read_json(health)["mqtt"]] == [
                HALL,
                *(f"{HALL}/tables/{table}" for table in tables),
            ]
            assert retained_state(broker, *monitor)["seq"] == 0
            for table, base in tables.items():
                state = retained_state(broker, *monitor, topic=f"{base}/state")
                assert (state["table"], state["seq"]) == (table, 0)
            assert run(replays()) == [[{"type": "replay_done", "seq": 0}]] * 3
        assert "could not read" not in hub.err and "reconnecting" not in hub.err, hub.err

        hall_bridge = ("-u", f"bingo-hub-{HALL}", "-P", HUB_PASSWORD)
        past = ["mosquitto_pub", "-p", str(broker.port), *hall_bridge, "-t", STATE, "-r", "-q", "1"]
        subprocess.run([*past, "-m", json.dumps({"seq": 40})], check=True, timeout=10)
        refused = cli_hall("serve", "--config", str(config), "--db", db, timeout=60)
        assert refused.returncode == 1 and "reflects seq 40" in refused.stderr, refused.stderr
        subprocess.run([*past, "-n"], check=True, timeout=10)  # the record cleared
        assert retained_state(broker, *monitor) is None
    finally:
        broker.stop()


def test_a_login_the_broker_refuses_is_said_once_with_what_to_do(tmp_path):
    """The hub's users written for the hall, but the configuration without `[mqtt] password`:
    the broker refuses every connection of the hub. The hub serves on without the bridge, says
    once for each bridge which user was refused and what to do (not a line every tenth of a
    second), and keeps trying at its slowest pace; with the password, the same broker takes it."""
    broker = example_broker(tmp_path, {"mon-1": "clave-de-mon-1"})
    config = bridged_config(tmp_path, broker)
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    broker.start()
    try:
        with serving("--config", str(config), "--db", db) as hub:
            time.sleep(6.5)  # two attempts at least: at once, then 5 s later
            assert [bridge["connected"] for bridge in health_of(hub)] == [False]
        refused = [line for line in hub.err.splitlines() if "refused user" in line]
        assert len(refused) == 1, hub.err
        assert f"refused user bingo-hub-{HALL}-witness with no password" in refused[0]
        assert "[mqtt] password must be set" in refused[0]
        assert "bingo-hall mqtt-access" in refused[0] and "trying again every 5.0 s" in refused[0]
        assert "could not read" not in hub.err and "reconnecting in" not in hub.err, hub.err
        assert "Traceback" not in hub.err

        with config.open("a", encoding="utf-8") as file:
            file.write(f'password = "{HUB_PASSWORD}"\n')
        with serving("--config", str(config), "--db", db) as hub:
            run_async(until(lambda: all(b["connected"] for b in health_of(hub)), 20))
        assert "refused" not in hub.err, hub.err
    finally:
        broker.stop()


def health_of(hub) -> list[dict]:
    return read_json(f"http://127.0.0.1:{hub.port}/health")["mqtt"]


def test_a_bridge_that_finds_the_broker_past_its_log_publishes_nothing(store, broker, caplog):
    """The broker was not there when the hub started; when the bridge reaches it, it finds the
    state of a seq past the log: it stops before publishing anything over that record."""
    retain(broker, json.dumps({"seq": 40, "phase": "drawing"}))

    async def scenario():
        async with running_hub(*store) as hub:
            bridge = MqttBridge(hub.runtime, MqttConfig(url=broker.url))
            with caplog.at_level(logging.CRITICAL, "bingo_hall.transport.mqtt_bridge"):
                await asyncio.wait_for(bridge.run(), 20)  # returns: halted
            assert bridge.halted is not None and bridge.halted.witnessed == 40
            assert bridge.connections == 0 and bridge.events_sent == 0
            hub.server.bridges = [bridge]  # as serve gives them: /health says why it stopped
            health = await asyncio.to_thread(read_json, f"{hub.http}/health")
            (said,) = health["mqtt"]
            assert said["stream"] == HALL and said["connected"] is False
            assert said["halted"] == str(bridge.halted)
            return hub.runtime.service.seq

    head = run(scenario())
    assert retained_state(broker) == {"seq": 40, "phase": "drawing"}
    critical = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert critical == [
        f"the MQTT broker's retained {STATE} reflects seq 40, but the log ends at seq {head}: "
        "the log has lost events it had published (restored from an older copy?). Nothing more "
        f"is published on it. If the older log is meant, clear the broker's record first, the "
        f"hub stopped, as the bridge's own broker user (mosquitto_pub -u bingo-hub-{HALL} -P "
        f"<the hub's password> -r -n -t {STATE})"
    ]


def test_docs_hold_the_current_schemas():
    doc = (REPO / "docs" / "mqtt.md").read_text(encoding="utf-8")
    for model in (HallStateMessage, ReplayRequest, ReplayDone):
        schema = json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False)
        assert f"### `{model.__name__}`" in doc and f"```json\n{schema}\n```" in doc, model
