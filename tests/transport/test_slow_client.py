"""A real websocket client that stops reading is dropped as too slow by the broadcast fast path,
while a client that reads gets every event."""

from __future__ import annotations

import asyncio
import base64
import os
from datetime import UTC, datetime

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from bingo_hall.store import NewEvent
from bingo_hall.transport.fanout import Fanout, Subscriber, TooSlow
from support.aio import run_async
from support.demo import open_log

# Incompressible payloads (permessage-deflate is on), so socket buffers fill quickly.
PAD = base64.b64encode(os.urandom(48_000)).decode()


def test_a_client_that_stops_reading_is_dropped_and_a_reader_gets_everything(tmp_path):
    log = open_log(f"sqlite:///{tmp_path / 'slow.sqlite'}")
    dropped: list[str] = []

    async def scenario() -> tuple[int, int]:
        fanout = Fanout(log, "h", max_buffer=256 * 1024)

        async def handler(connection):
            subscriber = Subscriber(0, maxsize=100_000, connection=connection)
            serving = asyncio.create_task(fanout.serve(subscriber, connection.send))
            closed = asyncio.create_task(connection.wait_closed())
            await asyncio.wait({serving, closed}, return_when=asyncio.FIRST_COMPLETED)
            if serving.done() and isinstance(serving.exception(), TooSlow):
                dropped.append(connection.request.path)
                connection.transport.abort()  # a stuck peer would not answer a close frame
            serving.cancel()
            closed.cancel()

        async with serve(handler, "127.0.0.1", 0, max_size=None, close_timeout=1) as server:
            port = server.sockets[0].getsockname()[1]
            stuck = await connect(f"ws://127.0.0.1:{port}/stuck", max_queue=1, max_size=None)
            reader = await connect(f"ws://127.0.0.1:{port}/reader", max_size=None)
            received = 0

            async def read_all() -> None:
                nonlocal received
                async for _ in reader:
                    received += 1

            reading = asyncio.create_task(read_all())
            await asyncio.sleep(0.2)
            assert len(fanout.subscribers) == 2 and all(s.live for s in fanout.subscribers)
            published = 0
            while not dropped and published < 1000:
                published += 1
                event = NewEvent(
                    None, None, "big", {"n": published, "pad": PAD}, datetime.now(UTC), "t"
                )
                fanout.publish(log.append("h", [event])[0])
                await asyncio.sleep(0.001)
            for _ in range(200):
                if received >= published:
                    break
                await asyncio.sleep(0.05)
            reading.cancel()
            stuck.transport.abort()
            await reader.close()
            return published, received

    try:
        published, received = run_async(scenario())
    finally:
        log.engine.dispose()
    assert dropped == ["/stuck"]
    assert received == published
