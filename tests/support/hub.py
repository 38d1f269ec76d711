"""A real hub for transport tests: SQLite log, imported series, users, devices, websocket server
on an ephemeral port."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from sqlalchemy import Engine
from websockets.asyncio.client import ClientConnection, connect

from bingo_hall.config import TableConfig, load_config
from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.service import HallService, utc_now
from bingo_hall.hub.table_runtime import TableRuntime, load_tables
from bingo_hall.serve import authenticator
from bingo_hall.store.cards import CardStore
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.transport.routes import http_routes
from bingo_hall.transport.ws_server import HubServer
from card_generator.series import generate_series
from support.demo import open_log

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
USERS = {
    "sala": "jefe_de_sala",
    "mesa": "jefe_de_mesa",
    "caja": "cajero",
    "locutor": "vendedor_locutor",
}


@dataclass
class RunningHub:
    url: str
    http: str
    monitor_token: str
    runtime: HubRuntime
    series: object
    tables: TableRuntime | None = None
    server: HubServer | None = None


class HallClock:
    """The hub's clock, set by the test: every reading is `now` until the test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def prepare_store(url: str) -> tuple[str, object]:
    """Users, a monitor device and an imported series in a fresh store; returns the token."""
    log = open_log(url)
    try:
        credentials = CredentialStore(log.engine)
        for user, role in USERS.items():
            credentials.add_user(user, role, PASSWORD)
        token = credentials.add_device("mon-1", "monitor")
        series = generate_series("A1", 120, Decimal("1.50"), seed=b"hub-test")
        CardStore(log.engine).import_series(series)
        return token, series
    finally:
        log.engine.dispose()


@asynccontextmanager
async def running_hub(
    url: str,
    token: str,
    series: object,
    queue_size: int = 1000,
    auth_timeout: float = 5.0,
    display_delay: float = 0.0,
    profile: str = "1979",
    draw: str = "certified_random",
    ball_check: Callable[[Engine], BallCheck] | None = None,
    tables: Sequence[TableConfig] = (),
    call_witness_floor: float | None = None,
    max_connections: int = 8,
    clock: Callable[[], datetime] = utc_now,
    settings: Mapping[str, object] | None = None,
) -> AsyncIterator[RunningHub]:
    """A hub on `url`; `ball_check` makes the hall's camera check from the store's engine;
    `tables` are the hall's casino tables (profiles from config/tables), run by `clock` with
    config/hall.toml's closing time; `settings`, more of the hall's configuration (checked as
    the file's are)."""
    config = load_config(REPO / "config" / "hall.toml")
    machine = config.machine.model_copy(update={"draw": draw})
    camera = config.camera.model_copy(update={"call_witness_floor": call_witness_floor})
    config = config.model_copy(
        update={"profile": profile, "machine": machine, "camera": camera, "tables": list(tables)}
    )
    if settings:
        config = type(config).model_validate(config.model_dump() | dict(settings))
    log = open_log(url)
    service = await asyncio.to_thread(HallService, log, config.hall_id)
    table_runtime = await asyncio.to_thread(
        TableRuntime, log, config.hall_id, load_tables(config), clock, config.closing()
    )
    runtime = HubRuntime(
        service,
        CardStore(log.engine),
        config,
        config.load_profile(),
        display_delay=display_delay,
        ball_check=ball_check(log.engine) if ball_check else None,
    )
    server = HubServer(
        runtime,
        authenticator(CredentialStore(log.engine)),
        queue_size,
        auth_timeout,
        routes=http_routes(runtime, tables=table_runtime),
        tables=table_runtime,
        max_connections=max_connections,
    )
    ws_server = await server.start("127.0.0.1", 0)
    port = ws_server.sockets[0].getsockname()[1]
    try:
        yield RunningHub(
            f"ws://127.0.0.1:{port}/ws",
            f"http://127.0.0.1:{port}",
            token,
            runtime,
            series,
            table_runtime,
            server,
        )
    finally:
        ws_server.close()
        await ws_server.wait_closed()
        if runtime.ball_check is not None:
            await asyncio.to_thread(runtime.ball_check.camera.close)
        log.engine.dispose()


async def auth_answer(url: str, **auth: str) -> dict:
    """The hub's answer to one auth frame (`auth_ok` or `auth_invalid`) on a new connection."""
    async with connect(url) as connection:
        await connection.recv()
        await connection.send(json.dumps({"type": "auth", **auth}))
        return json.loads(await connection.recv())


class Client:
    """A protocol client over the real `websockets` client."""

    def __init__(self, connection: ClientConnection, welcome: dict | None = None) -> None:
        self.connection = connection
        self.welcome = welcome or {}  # the hub's `auth_ok`
        self.next_id = 1

    @classmethod
    @asynccontextmanager
    async def login(cls, url: str, **auth: str) -> AsyncIterator[Client]:
        async with connect(url) as connection:
            hello = json.loads(await connection.recv())
            assert hello["type"] == "auth_required"
            await connection.send(json.dumps({"type": "auth", **auth}))
            answer = json.loads(await connection.recv())
            assert answer["type"] == "auth_ok", answer
            yield cls(connection, answer)

    async def request(self, body: dict) -> dict:
        request_id = self.next_id
        self.next_id += 1
        await self.connection.send(json.dumps({"id": request_id, **body}))
        while True:
            message = json.loads(await self.connection.recv())
            if message.get("id") == request_id:
                return message

    async def command(self, name: str, **args: object) -> dict:
        return await self.request({"type": "command", "command": name, "args": args})

    async def ok(self, name: str, **args: object) -> dict:
        answer = await self.command(name, **args)
        assert answer["success"], answer
        return answer["result"]

    async def pushed(self, kind: str, timeout: float = 10.0) -> dict:
        """The next message of this type the hub pushed unasked (events and others skipped)."""
        while True:
            message = json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
            if message["type"] == kind:
                return message

    async def events(self, count: int, timeout: float = 10.0) -> list[dict]:
        found = []
        while len(found) < count:
            message = json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
            if message["type"] == "event":
                found.append(message)
        return found


@asynccontextmanager
async def hall_staff(hub: RunningHub) -> AsyncIterator[tuple[Client, Client, Client, Client]]:
    """The Jefe de Sala, the Jefe de Mesa and the caller logged in to `hub`, and a monitor."""
    async with (
        Client.login(hub.url, user="sala", password=PASSWORD) as staff,
        Client.login(hub.url, user="mesa", password=PASSWORD) as mesa,
        Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        Client.login(hub.url, token=hub.monitor_token) as monitor,
    ):
        yield staff, mesa, locutor, monitor


async def open_sale(staff: Client, series_id: str = "A1", commission: bool = False) -> None:
    """Session open, balls loaded, a game announced and its sale open, through the protocol
    (the Jefe de Sala gives every command); `commission`: the set shown to the hall's
    simulated camera first, so that the camera may confirm calls (each ball once, not twice as
    by default: these games judge calls, not the set)."""
    await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
    if commission:
        await staff.ok("commission_ball_set", ball_set_id="JB-1", showings_per_ball=1)
    await announce_game(staff, series_id)
    await staff.ok("start_sale")


async def announce_game(staff: Client, series_id: str = "A1") -> None:
    """The session open with the registered set JB-1 in service and a game announced: a game
    has begun."""
    await staff.ok("open_session")
    await staff.ok("record_equipment_check", ok=True)
    await staff.ok("change_ball_set", ball_set_id="JB-1", reason="puesta en servicio")
    await staff.ok("load_balls")
    await staff.ok("register_series", series_id=series_id, face_value="1.50", size=120)
    await staff.ok("announce_series", series=[series_id])


async def open_game(
    staff: Client, locutor: Client, series_id: str = "A1", commission: bool = False
) -> None:
    """A game sold and drawing: the Vendedor-locutor records the sale."""
    await open_sale(staff, series_id, commission)
    await locutor.ok("record_sale", series_id=series_id, first=1, last=60)
    await staff.ok("close_sale")
    await staff.ok("announce_prizes")
    await staff.ok("start_draw")
