"""`bingo-hall serve`: the hub with its websocket server and its casino tables (and their MQTT
bridges when the configuration names a broker), until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiomqtt

from bingo_hall.config import HallConfig
from bingo_hall.hub.ball_check import ball_check_from_config
from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.service import HallService
from bingo_hall.hub.table_runtime import TableRuntime, load_tables
from bingo_hall.store.cards import CardStore
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.store.eventlog import EventLog
from bingo_hall.store.frames import FrameStore
from bingo_hall.store.instance_lock import InstanceLock
from bingo_hall.transport.login_guard import LoginGuard
from bingo_hall.transport.messages import Auth
from bingo_hall.transport.mqtt_bridge import MqttBridge, StreamBridge
from bingo_hall.transport.mqtt_witness import BrokerRefusedLogin
from bingo_hall.transport.routes import http_routes
from bingo_hall.transport.table_bridge import TableBridge
from bingo_hall.transport.ws_server import HubServer

logger = logging.getLogger(__name__)

SHUTDOWN_GRACE = 5.0  # seconds a cancelled task has to end when the hub stops


class ListenError(Exception):
    """The hub cannot open its port."""


def authenticator(credentials: CredentialStore):
    """Checks an auth frame against the stored (hashed) credentials."""

    def check(auth: Auth):
        if auth.token is not None:
            return credentials.check_token(auth.token)
        if auth.user is not None and auth.password is not None:
            return credentials.check_password(auth.user, auth.password)
        return None

    return check


async def stop_tasks(tasks: list[asyncio.Task], grace: float = SHUTDOWN_GRACE) -> None:
    """Cancel `tasks` and wait for them to end. A task still running `grace` seconds after
    its cancellation is cancelled again: an MQTT client leaving its broker waits without a
    limit until its DISCONNECT is written and the socket closed (aiomqtt's `__aexit__`), and
    a connection where that never happens would keep the hub from stopping. One that
    outlives a second grace is left, named."""
    for task in tasks:
        task.cancel()
    pending: set[asyncio.Task] = set(tasks)
    if pending:
        _, pending = await asyncio.wait(pending, timeout=grace)
    for task in pending:
        logger.warning(
            "%s had not stopped %g s after it was cancelled: cancelling it again",
            task.get_name(),
            grace,
        )
        task.cancel()
    if pending:
        _, pending = await asyncio.wait(pending, timeout=grace)
    for task in pending:
        logger.error("%s would not stop: the hub stops without it", task.get_name())
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            # it stopped before the hub did: say so, and shut down
            logger.error("%s had stopped: %r", task.get_name(), task.exception())


async def _check_witnesses(bridges: list[StreamBridge]) -> None:
    """Before the hub serves: LogBehindBroker when the broker saw a stream past its log's head
    (transport/mqtt_witness.py). A broker that does not answer now is checked by each bridge
    when it connects, before it publishes."""
    for bridge in bridges:
        try:
            await bridge.check_witness()
        except BrokerRefusedLogin:
            continue  # the bridge says why, and what to do, when it tries to connect
        except (aiomqtt.MqttError, OSError, TimeoutError) as error:
            logger.warning(
                "could not read %s from the MQTT broker now (%s): the bridge checks it when "
                "it connects",
                bridge.state_topic,
                error,
            )
            return


async def serve(
    config: HallConfig,
    log: EventLog,
    port: int | None = None,
    store_lock: InstanceLock | None = None,
) -> None:
    """The hub until SIGINT or SIGTERM. `store_lock`: the single-instance lock the caller took
    on the store (cli.py `run_serve`), reported by /health."""
    specs = load_tables(config)  # a bad [[tables]] entry stops here, in one line
    service = await asyncio.to_thread(HallService, log, config.hall_id)
    tables = await asyncio.to_thread(
        TableRuntime, log, config.hall_id, specs, closing=config.closing()
    )
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
    credentials = CredentialStore(log.engine)
    watch = CredentialWatch(credentials.standing)
    guard = LoginGuard()  # one for /ws and the pages' data: failed logins lock their address
    server = HubServer(
        runtime,
        authenticator(credentials),
        config.server.queue_size,
        routes=http_routes(runtime, watch, guard, tables),
        tables=tables,
        login_guard=guard,
        max_connections=config.server.max_connections_per_credential,
    )
    server.store_lock = store_lock
    bridges: list[StreamBridge] = []
    if config.mqtt.url is not None:
        bridges = [MqttBridge(runtime, config.mqtt)]
        bridges += [TableBridge(table, config.mqtt) for table in tables.tables.values()]
        await _check_witnesses(bridges)
        server.bridges = bridges
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(
            signum, lambda: stop.done() or stop.set_result(None)
        )
    host, port = config.server.host, config.server.port if port is None else port
    try:
        ws_server = await server.start(host, port)
    except OSError as error:  # the port in use, the host not this machine's
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    bound = ws_server.sockets[0].getsockname()
    print(
        f"hall {config.hall_id}: serving on http://{bound[0]}:{bound[1]} (websocket at /ws), "
        f"log at seq {service.seq}",
        flush=True,
    )
    for table_id, table in tables.tables.items():
        print(
            f"hall {config.hall_id}: table {table_id} ({table.spec.game.label}) "
            f"at seq {table.service.seq}, phase {table.service.state.phase.value}",
            flush=True,
        )
    tasks = [
        asyncio.create_task(watch.run(server.cut_withdrawn), name="credentials"),
        asyncio.create_task(runtime.follow_log(), name="follow-log"),
    ]
    if bridges:
        tasks += [asyncio.create_task(b.run(), name=f"mqtt-{b.identifier}") for b in bridges]
        print(
            f"hall {config.hall_id}: MQTT bridge to {config.mqtt.url} "
            f"(topics {bridges[0].events_topic.rsplit('/', 1)[0]}/...)",
            flush=True,
        )
    try:
        await stop
    finally:
        await stop_tasks(tasks)
        ws_server.close()
        await ws_server.wait_closed()
        if ball_check is not None:
            await asyncio.to_thread(ball_check.camera.close)
        print(f"hall {config.hall_id}: stopped at seq {service.seq}", file=sys.stderr, flush=True)
