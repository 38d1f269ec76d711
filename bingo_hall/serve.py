"""`bingo-hall serve`: the hub with its websocket server (and its MQTT bridge when the
configuration names a broker), until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

from bingo_hall.config import HallConfig
from bingo_hall.hub.ball_check import ball_check_from_config
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.service import HallService
from bingo_hall.store.cards import CardStore
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.store.eventlog import EventLog
from bingo_hall.store.frames import FrameStore
from bingo_hall.transport.messages import Auth
from bingo_hall.transport.mqtt_bridge import MqttBridge
from bingo_hall.transport.routes import http_routes
from bingo_hall.transport.ws_server import HubServer


def authenticator(credentials: CredentialStore):
    """Checks an auth frame against the stored (hashed) credentials."""

    def check(auth: Auth):
        if auth.token is not None:
            return credentials.check_token(auth.token)
        if auth.user is not None and auth.password is not None:
            return credentials.check_password(auth.user, auth.password)
        return None

    return check


async def serve(config: HallConfig, log: EventLog, port: int | None = None) -> None:
    service = await asyncio.to_thread(HallService, log, config.hall_id)
    ball_check = await asyncio.to_thread(
        ball_check_from_config, config.camera, FrameStore(log.engine)
    )
    runtime = HubRuntime(
        service,
        CardStore(log.engine),
        config,
        config.load_profile(),
        display_delay=config.server.display_delay_seconds,
        ball_check=ball_check,
    )
    server = HubServer(
        runtime,
        authenticator(CredentialStore(log.engine)),
        config.server.queue_size,
        routes=http_routes(runtime),
    )
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(
            signum, lambda: stop.done() or stop.set_result(None)
        )
    ws_server = await server.start(config.server.host, config.server.port if port is None else port)
    bound = ws_server.sockets[0].getsockname()
    print(
        f"hall {config.hall_id}: serving on http://{bound[0]}:{bound[1]} (websocket at /ws), "
        f"log at seq {service.seq}",
        flush=True,
    )
    bridge_task = None
    if config.mqtt.url is not None:
        bridge = MqttBridge(runtime, config.mqtt)
        bridge_task = asyncio.create_task(bridge.run(), name="mqtt-bridge")
        print(
            f"hall {config.hall_id}: MQTT bridge to {config.mqtt.url} "
            f"(topics {bridge.events_topic.rsplit('/', 1)[0]}/...)",
            flush=True,
        )
    try:
        await stop
    finally:
        if bridge_task is not None:
            bridge_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await bridge_task
        ws_server.close()
        await ws_server.wait_closed()
        print(f"hall {config.hall_id}: stopped at seq {service.seq}", file=sys.stderr, flush=True)
