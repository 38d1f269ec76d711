"""Child processes of bench/bench_fanout.py, each driven by JSON lines on stdin/stdout.

- ``ws-clients``: N websocket clients, to the hub (auth with a token, subscribe after a seq)
  or to the bare baseline server (no protocol, just listen);
- ``mqtt-clients``: N MQTT subscribers (aiomqtt) on some topics, connected once;
- ``bare-ws``: the baseline server, a bare `websockets` server that broadcasts a timestamped
  event frame to every connection;
- ``bare-mqtt``: the baseline publisher, an aiomqtt client publishing the same frames.

Every client stamps ``time.time()`` when the application gets a frame and keeps the frame
raw; frames are parsed only when the results are collected, so parsing costs nothing during
the measurement. The latency is the stamp minus the frame's ``time`` (ISO 8601, UTC), which
the sender set: same machine, same clock. A child exits when its stdin closes.

Usage: python bench/fanout_clients.py {ws-clients|mqtt-clients|bare-ws|bare-mqtt}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import secrets
import sys
import time
from collections import Counter
from datetime import UTC, datetime

CONNECT_BATCH = 25  # connections opened at once (Mosquitto's listen backlog is 100)


def raise_nofile() -> None:
    """Soft RLIMIT_NOFILE up to the hard limit: a few hundred sockets per process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def reply(body: dict) -> None:
    sys.stdout.write(json.dumps(body, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def commands():
    """The JSON commands on stdin, until EOF."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        yield json.loads(line)


def event_time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def summarise(received: list[list[tuple[float, str | bytes]]]) -> dict:
    """Per-seq receipt counts and latencies (ms) of the `ball_drawn` frames of each client."""
    counts: Counter[int] = Counter()
    latencies: list[tuple[int, float]] = []
    duplicates = 0
    for frames in received:
        seen: set[int] = set()
        for stamp, raw in frames:
            frame = json.loads(raw)
            if frame.get("type") != "event" or frame.get("event") != "ball_drawn":
                continue
            seq = frame["seq"]
            if seq in seen:
                duplicates += 1
                continue
            seen.add(seq)
            counts[seq] += 1
            latencies.append((seq, round((stamp - event_time(frame["time"])) * 1000, 3)))
    return {
        "counts": {str(seq): n for seq, n in counts.items()},
        "latencies": latencies,
        "duplicates": duplicates,
    }


# ------------------------------------------------------------------- websocket clients --


class WsClients:
    def __init__(self) -> None:
        self.tasks: list[asyncio.Task] = []
        self.frames: list[list[tuple[float, str | bytes]]] = []
        self.closed: Counter[str] = Counter()

    async def open(self, spec: dict) -> dict:
        """Open spec["count"] clients; hub mode authenticates and subscribes."""
        from websockets.asyncio.client import connect

        self.frames, self.closed = [], Counter()
        failures: Counter[str] = Counter()
        connections = []

        async def one(index: int) -> None:
            try:
                connection = await connect(
                    spec["url"], open_timeout=30, ping_interval=None, max_size=2**16
                )
            except Exception as error:
                failures[type(error).__name__] += 1
                return
            try:
                if spec["mode"] == "hub":
                    assert json.loads(await connection.recv())["type"] == "auth_required"
                    await connection.send(json.dumps({"type": "auth", "token": spec["token"]}))
                    answer = json.loads(await connection.recv())
                    assert answer["type"] == "auth_ok", answer
                    await connection.send(
                        json.dumps({"id": 1, "type": "subscribe", "after_seq": spec["after_seq"]})
                    )
                    answer = json.loads(await connection.recv())
                    assert answer.get("id") == 1 and answer["success"], answer
            except Exception as error:
                failures[f"{type(error).__name__}: {error}"[:120]] += 1
                await connection.close()
                return
            connections.append(connection)

        for start in range(0, spec["count"], CONNECT_BATCH):
            await asyncio.gather(
                *(one(i) for i in range(start, min(start + CONNECT_BATCH, spec["count"])))
            )
        for connection in connections:
            frames: list[tuple[float, str | bytes]] = []
            self.frames.append(frames)
            self.tasks.append(asyncio.create_task(self.listen(connection, frames)))
        return {"connected": len(connections), "failed": dict(failures)}

    async def listen(self, connection, frames: list) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                raw = await connection.recv()
                frames.append((time.time(), raw))
        except ConnectionClosed as closed:  # the hub closed it (4008: too slow) or died
            self.closed[str(closed.rcvd.code if closed.rcvd else "none")] += 1
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), 5)

    async def collect(self) -> dict:
        """Close every connection; the frames' latencies."""
        closed_early = dict(self.closed)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        return {**summarise(self.frames), "closed_early": closed_early}


async def ws_clients_main() -> None:
    clients = WsClients()
    async for command in commands():
        if command["cmd"] == "open":
            reply(await clients.open(command))
        elif command["cmd"] == "collect":
            reply(await clients.collect())
        elif command["cmd"] == "quit":
            break
    await clients.collect()


# ------------------------------------------------------------------------ MQTT clients --


async def mqtt_clients_main() -> None:
    import aiomqtt

    clients: list[aiomqtt.Client] = []
    by_topic: dict[str, list[list[tuple[float, bytes]]]] = {}
    tasks: list[asyncio.Task] = []
    lost: Counter[str] = Counter()

    async def listen(client: aiomqtt.Client, mine: dict[str, list]) -> None:
        try:
            async for message in client.messages:
                mine[message.topic.value].append((time.time(), message.payload))
        except aiomqtt.MqttError as error:
            lost[str(error)[:80]] += 1

    async def open_one(spec: dict) -> bool:
        client = aiomqtt.Client(
            spec["host"],
            spec["port"],
            identifier=f"bench-sub-{secrets.token_hex(6)}",
            clean_session=True,
            keepalive=60,
            timeout=30,
        )
        try:
            await client.__aenter__()
            await client.subscribe([(topic, spec["qos"]) for topic in spec["topics"]])
        except aiomqtt.MqttError:
            with contextlib.suppress(Exception):
                await client.__aexit__(None, None, None)
            return False
        mine = {topic: [] for topic in spec["topics"]}
        for topic in spec["topics"]:
            by_topic.setdefault(topic, []).append(mine[topic])
        clients.append(client)
        tasks.append(asyncio.create_task(listen(client, mine)))
        return True

    async def close_all() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for start in range(0, len(clients), CONNECT_BATCH):
            await asyncio.gather(
                *(c.__aexit__(None, None, None) for c in clients[start : start + CONNECT_BATCH]),
                return_exceptions=True,
            )
        tasks.clear()
        clients.clear()
        by_topic.clear()
        lost.clear()

    try:
        async for command in commands():
            if command["cmd"] == "open":
                ok = 0
                for start in range(0, command["count"], CONNECT_BATCH):
                    batch = range(start, min(start + CONNECT_BATCH, command["count"]))
                    ok += sum(await asyncio.gather(*(open_one(command) for _ in batch)))
                reply({"connected": ok, "failed": command["count"] - ok})
            elif command["cmd"] == "collect":
                frames = by_topic.get(command["topic"], [])
                result = summarise([list(f) for f in frames])
                for f in frames:
                    f.clear()
                reply({**result, "lost": dict(lost)})
            elif command["cmd"] == "close":
                await close_all()
                reply({"closed": True})
            elif command["cmd"] == "quit":
                break
    finally:
        await close_all()


# ------------------------------------------------------------------- baseline sources --


def fake_event(hall: str, seq: int) -> str:
    """A frame shaped and sized like the hub's `ball_drawn` event, stamped now."""
    return json.dumps(
        {
            "type": "event",
            "hall": hall,
            "seq": seq,
            "session": 1,
            "game": 1,
            "event": "ball_drawn",
            "payload": {"ordinal": seq, "number": (seq * 37) % 90 + 1, "source": "certified"},
            "time": datetime.now(UTC).isoformat(timespec="microseconds"),
            "actor": "locutor",
            "hash": secrets.token_hex(32),
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


async def paced(count: int, interval: float, tick) -> None:
    start = time.monotonic()
    for seq in range(1, count + 1):
        delay = start + (seq - 1) * interval - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        await tick(seq)


async def bare_ws_main(hall: str) -> None:
    """The baseline: every frame to every connection with websockets.broadcast."""
    from websockets.asyncio.server import broadcast, serve

    async def handler(connection) -> None:
        await connection.wait_closed()

    # The hub's settings (ws_server.HubServer.start): default compression, same limits.
    async with serve(handler, "127.0.0.1", 0, max_size=2**16, max_queue=64) as server:
        reply({"port": server.sockets[0].getsockname()[1]})

        async def tick(seq: int) -> None:
            broadcast(server.connections, fake_event(hall, seq))

        async for command in commands():
            if command["cmd"] == "clients":
                reply({"clients": len(server.connections)})
            elif command["cmd"] == "run":
                await paced(command["count"], command["interval"], tick)
                reply({"sent": command["count"]})
            elif command["cmd"] == "quit":
                break


async def bare_mqtt_main(hall: str) -> None:
    """The baseline: the same frames published straight to Mosquitto."""
    import aiomqtt

    async with aiomqtt.Client("127.0.0.1", 1883, identifier=f"bench-pub-{hall}") as client:
        reply({"ready": True})
        async for command in commands():
            if command["cmd"] == "run":
                pending: list[asyncio.Task] = []

                async def tick(seq: int, command=command, pending=pending) -> None:
                    frame = fake_event(hall, seq)
                    publish = client.publish(command["topic"], frame, qos=command["qos"])
                    pending.append(asyncio.create_task(publish))

                await paced(command["count"], command["interval"], tick)
                await asyncio.gather(*pending)
                reply({"sent": command["count"]})
            elif command["cmd"] == "quit":
                break


def main() -> None:
    raise_nofile()
    role = sys.argv[1]
    if role == "ws-clients":
        asyncio.run(ws_clients_main())
    elif role == "mqtt-clients":
        asyncio.run(mqtt_clients_main())
    elif role == "bare-ws":
        asyncio.run(bare_ws_main(sys.argv[2]))
    elif role == "bare-mqtt":
        asyncio.run(bare_mqtt_main(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
