"""The hub's websocket server (the `websockets` library): one port for the protocol at /ws
and small HTTP answers (/health) beside it.

A connection must authenticate with its first frame; then it may subscribe (with resume) to
the hall's stream and to its casino tables' streams and, if its role allows, give commands to
the bingo or to a table. Every bad frame gets an answer that says what is wrong and changes
nothing; the connection and the hub stay up.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from http import HTTPStatus
from typing import Any

from pydantic import ValidationError
from websockets.asyncio.server import Server, ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bingo_hall.domain.refusals import params_json
from bingo_hall.hub.auth import (
    ACTA_ROLES,
    BALL_SHOWINGS,
    DISCARD_BALL_SHOWINGS,
    SHOW_BALL_TO_CAMERA,
    TABLE_COMMANDS,
    TABLE_RECORD_ROLES,
    Principal,
    Role,
)
from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.hub.commissioning import showings_json
from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.runtime import CommandFailed, HubRuntime, store_failure
from bingo_hall.hub.table_runtime import TableRuntime
from bingo_hall.store.database import STORE_FAILURES
from bingo_hall.store.instance_lock import InstanceLock
from bingo_hall.transport import messages as m
from bingo_hall.transport.fanout import Audience, Fanout, Subscriber, TooSlow
from bingo_hall.transport.login_guard import LoginGuard, LoginRefused
from bingo_hall.transport.mqtt_bridge import StreamBridge
from bingo_hall.transport.page_data import http_error

logger = logging.getLogger(__name__)

AUTH_TIMEOUT = 10.0

SHOWINGS_CHANGED_BY = frozenset({SHOW_BALL_TO_CAMERA, DISCARD_BALL_SHOWINGS})

Authenticator = Callable[[m.Auth], Principal | None]

# An HTTP route beside the websocket endpoint: a path prefix and what answers it (None: 404).
HttpHandler = Callable[[ServerConnection, Request, str], Response | None]
HttpRoute = tuple[str, HttpHandler]


SINGLE_CONNECTION_ROLES = frozenset({Role.TERMINAL})


def _address(connection: ServerConnection) -> str:
    return str(connection.remote_address[0]) if connection.remote_address else "?"


def _dump(message: m.BaseModel) -> str:
    return message.model_dump_json(exclude_none=True)


def _error(code: str, message: str) -> str:
    return _dump(m.Error(error=m.ErrorBody(code=code, message=message)))


def _failure(request_id: int, code: str, message: str) -> str:
    return _refusal(request_id, CommandFailed(code, message))


def _refusal(request_id: int, failed: CommandFailed) -> str:
    """A refused command's answer: with the refusal's reason and parameters when it is one
    of the catalogue, which the pages say in their language."""
    error = m.ErrorBody(
        code=failed.code,
        message=failed.message,
        reason=failed.reason,
        params=params_json(failed.params) if failed.reason else None,
    )
    return _dump(m.Result(id=request_id, success=False, error=error))


COMMAND_FAULT = (
    "the hub failed on this command (its log says why): look at the hall's state before giving "
    "it again"
)


class HubServer:
    def __init__(
        self,
        runtime: HubRuntime,
        authenticate: Authenticator,
        queue_size: int = 1000,
        auth_timeout: float = AUTH_TIMEOUT,
        routes: Sequence[HttpRoute] = (),
        tables: TableRuntime | None = None,
        login_guard: LoginGuard | None = None,
        max_connections: int = 8,
    ) -> None:
        """`max_connections`: open connections one credential may hold at once, so that a
        token copied off a monitor cannot open thousands, each with its queue of events."""
        self.routes = tuple(routes)
        self.max_connections = max_connections
        self.bridges: Sequence[StreamBridge] = ()  # the MQTT bridges, for /health (serve.py)
        self.store_lock: InstanceLock | None = None  # serve's lock on the store, for /health
        self.login_guard = login_guard or LoginGuard()
        self.runtime = runtime
        self.tables = tables or TableRuntime(runtime.service.log, runtime.service.hall_id)
        self.authenticate = authenticate
        self.queue_size = queue_size
        self.auth_timeout = auth_timeout
        self.sessions: set[_Session] = set()  # the authenticated connections
        self._closing: set[asyncio.Task[None]] = set()  # connections being closed (_replace)

    async def start(self, host: str, port: int) -> Server:
        self.runtime.attach()
        self.tables.attach()
        return await serve(
            self.handle,
            host,
            port,
            process_request=self.http,
            max_size=m.MAX_FRAME_BYTES,
            max_queue=64,
        )

    def http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP beside the websocket endpoint."""
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            return None
        if path == "/health":
            state = self.runtime.service.state
            body = {
                "hall": self.runtime.service.hall_id,
                "seq": self.runtime.service.seq,
                "phase": state.phase.value,
                "camera": _camera_health(self.runtime.ball_check),
            }
            if self.store_lock is not None:
                body["store_lock"] = self.store_lock.held
            if self.bridges:
                body["mqtt"] = [_bridge_health(bridge) for bridge in self.bridges]
            if self.tables.tables:
                snapshots = {i: t.service.snapshot for i, t in self.tables.tables.items()}
                body["tables"] = {
                    table_id: {"seq": snapshot.seq, "phase": snapshot.state.phase.value}
                    for table_id, snapshot in snapshots.items()
                }
            response = connection.respond(HTTPStatus.OK, json.dumps(body) + "\n")
            response.headers["Content-Type"] = "application/json"
            return response
        for prefix, handler in self.routes:
            if path.startswith(prefix):
                try:
                    answer = handler(connection, request, path)
                except STORE_FAILURES as error:  # a frame or page data read from a store gone
                    return http_error(
                        connection,
                        HTTPStatus.SERVICE_UNAVAILABLE,
                        "store_failed",
                        store_failure(error, reading=True),
                    )
                except Exception:  # the hub's fault: logged, and said in one line
                    logger.exception("GET %s failed", path)
                    return http_error(
                        connection, HTTPStatus.INTERNAL_SERVER_ERROR, "failed", COMMAND_FAULT
                    )
                if answer is not None:
                    return answer
        return connection.respond(HTTPStatus.NOT_FOUND, f"no page at {path}\n")

    async def handle(self, connection: ServerConnection) -> None:
        hall = self.runtime.service.hall_id
        await connection.send(_dump(m.AuthRequired(hall=hall)))
        authenticated = await self._authenticate(connection)
        if authenticated is None:
            return
        principal, checked_at = authenticated
        session = _Session(self, connection, principal, checked_at)
        if principal.role in SINGLE_CONNECTION_ROLES:
            self._replace(session)  # before auth_ok: the old screen gives nothing after it
        elif len(self._held_by(principal)) >= self.max_connections:
            logger.warning(
                "%s from %s refused: it already holds %d connections",
                principal,
                _address(connection),
                self.max_connections,
            )
            await connection.close(m.CLOSE_TOO_MANY, "too many connections for this credential")
            return
        self.sessions.add(session)
        try:
            await connection.send(_welcome(principal))
        except ConnectionClosed:
            self.sessions.discard(session)
            return
        try:
            await session.run()
        finally:
            self.sessions.discard(session)

    def push_showings(self, origin: _Session) -> None:
        """The showings as they now are, to every other connection that may read them: two
        control pages commissioning one set see each other's showings. Read and written with
        no wait between (a broadcast waits for no connection), so every connection gets the
        pushes in the order the showings changed, and one that stops reading holds up no
        other."""
        pushed = m.Showings(showings=showings_json(self.runtime.showings))
        frame = pushed.model_dump_json()  # with "showings": null when none are kept
        readers = [
            session.connection
            for session in list(self.sessions)
            if session is not origin and session.principal.may(BALL_SHOWINGS)
        ]
        broadcast(readers, frame)

    async def _check(self, connection: ServerConnection, auth: m.Auth) -> Principal | None:
        """A device token is checked on a worker thread (a hash and a lookup); a staff
        password through the login guard (its own thread, and a lock on guessing addresses)."""
        if auth.token is not None or auth.user is None:
            return await asyncio.to_thread(self.authenticate, auth)
        source = _address(connection)
        return await self.login_guard.check(source, auth.user, lambda: self.authenticate(auth))

    def _replace(self, session: _Session) -> None:
        """A terminal works from one screen: its token logged in again closes the connection
        it had, so that a copied token is noticed (the page it cut says so and stops) rather
        than buying and claiming unseen beside the real one. A table device is the hall's own
        equipment, which may be a touch screen and the wheel's reader at once."""
        principal = session.principal
        for replaced in self._held_by(principal):
            logger.warning(
                "device %s logged in from %s: closing its connection from %s",
                principal.id,
                _address(session.connection),
                _address(replaced.connection),
            )
            self.sessions.discard(replaced)
            replaced.closing = True
            # closed in the background: the new login does not wait for the old screen's
            # answer to the close
            closing = asyncio.create_task(
                replaced.connection.close(m.CLOSE_REPLACED, "opened on another screen")
            )
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)

    def _held_by(self, principal: Principal) -> list[_Session]:
        """The open connections of a staff user or a device."""
        who = (principal.kind, principal.id)
        return [s for s in self.sessions if (s.principal.kind, s.principal.id) == who]

    async def cut_withdrawn(self, watch: CredentialWatch) -> None:
        """Close every connection whose credential no longer stands (a device revoked, a user
        disabled, a password changed): it must log in again, and cannot."""
        fallen = [s for s in self.sessions if not watch.stands(s.principal, s.checked_at)]
        for session in fallen:
            logger.warning("closing %s's connection: credential withdrawn", session.principal)
            session.closing = True
        # all at once: one client slow to answer the close does not keep the others open
        await asyncio.gather(
            *(
                s.connection.close(
                    m.CLOSE_CREDENTIAL_WITHDRAWN, "credential withdrawn: log in again"
                )
                for s in fallen
            ),
            return_exceptions=True,
        )

    async def _authenticate(self, connection: ServerConnection) -> tuple[Principal, float] | None:
        """The principal of the connection's auth frame, and the time.monotonic() at which
        its credential was checked; None (and the connection closed) if it has none."""
        try:
            frame = await asyncio.wait_for(connection.recv(), self.auth_timeout)
        except TimeoutError:
            await connection.close(m.CLOSE_AUTH_TIMEOUT, "no auth frame in time")
            return None
        except ConnectionClosed:
            return None
        try:
            auth = m.Auth.model_validate_json(frame)
        except ValidationError:
            message = 'the first frame must be {"type": "auth", "token": ...} or user/password'
            await connection.send(_dump(m.AuthInvalid(code="bad_frame", message=message)))
            await connection.close(m.CLOSE_AUTH_FAILED, "bad auth frame")
            return None
        try:
            principal = await self._check(connection, auth)
            checked_at = time.monotonic()  # the store was read by then
        except LoginRefused as refused:
            refusal = m.AuthInvalid(code=refused.code, message=refused.message)
            await connection.send(_dump(refusal))
            await connection.close(m.CLOSE_AUTH_FAILED, refused.code)
            return None
        except STORE_FAILURES as error:  # not the credential's fault: the client comes back
            store_failure(error, reading=True)
            await connection.close(m.CLOSE_STREAM_FAILED, "the hall's store failed: try again")
            return None
        if principal is None:
            await connection.send(_dump(m.AuthInvalid(message="unknown user, password or token")))
            await connection.close(m.CLOSE_AUTH_FAILED, "authentication failed")
            return None
        return principal, checked_at


def _welcome(principal: Principal) -> str:
    """The `auth_ok` frame: who the connection is and what it may command."""
    commands = sorted(name for name in _command_names() if principal.may(name))
    table_commands = sorted(
        name for name in TABLE_COMMANDS if principal.may_at_table(name, principal.table or "")
    )
    return _dump(
        m.AuthOk(
            principal=principal.id,
            role=principal.role.value,
            commands=commands,
            table_commands=table_commands or None,
            table=principal.table,
            acta=principal.role in ACTA_ROLES,
            table_record=principal.role in TABLE_RECORD_ROLES,
        )
    )


def audience(principal: Principal, stream: str) -> Audience:
    """What a principal sees of a stream ("hall", "table:R1"): staff see every stream whole,
    and a table device its own table's; monitors, terminals and a table device elsewhere get
    the device view (a table's public view: no bet, player or payment)."""
    if principal.kind == "staff":
        return "staff" if principal.role in ACTA_ROLES else "clerk"
    own = principal.table is not None and stream == f"table:{principal.table}"
    return "staff" if own else "device"


def _command_names() -> list[str]:
    """The rules engine's commands and the hub's own."""
    from bingo_hall.hub.auth import KNOWN_COMMANDS

    return list(KNOWN_COMMANDS)


class _Session:
    """One authenticated connection: its frames, its subscription."""

    def __init__(
        self,
        server: HubServer,
        connection: ServerConnection,
        principal: Principal,
        checked_at: float,
    ):
        self.server = server
        self.connection = connection
        self.principal = principal
        self.checked_at = checked_at  # when its credential was checked (time.monotonic())
        self.subscriptions: dict[str, asyncio.Task[None]] = {}  # by stream
        # being closed (its device logged in on another connection, or its credential was
        # withdrawn): a frame that came in before the close runs no command
        self.closing = False

    async def run(self) -> None:
        try:
            async for frame in self.connection:
                await self.on_frame(frame)
        except ConnectionClosed:
            pass
        finally:
            for subscription in self.subscriptions.values():
                subscription.cancel()
            for subscription in self.subscriptions.values():
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await subscription

    async def on_frame(self, frame: str | bytes) -> None:
        try:
            data: Any = json.loads(frame)
        except (ValueError, UnicodeDecodeError):
            await self.connection.send(_error("bad_json", "the frame is not JSON"))
            return
        except RecursionError:  # within the size limit, but nested past what any frame needs
            await self.connection.send(_error("bad_json", "the frame's JSON nests too deep"))
            return
        if not isinstance(data, dict):
            await self.connection.send(_error("bad_frame", "a frame is a JSON object"))
            return
        request_id = data.get("id")
        try:
            message = m.ClientMessage.validate_python(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            text = f"{where}: {first['msg']}" if where else first["msg"]
            if isinstance(request_id, int) and not isinstance(request_id, bool):
                await self.connection.send(_failure(request_id, "bad_frame", text))
            else:
                await self.connection.send(_error("bad_frame", text))
            return
        if isinstance(message, m.Ping):
            await self.connection.send(_dump(m.Pong(id=message.id)))
        elif isinstance(message, m.Subscribe):
            await self.subscribe(message)
        elif isinstance(message, m.Tables):
            await self.tables(message)
        else:
            await self.command(message)

    async def subscribe(self, message: m.Subscribe) -> None:
        if message.stream in self.subscriptions:
            what = "subscribed already" if message.stream == "hall" else "subscribed to it already"
            await self.connection.send(
                _failure(message.id, "already_subscribed", f"this connection is {what}")
            )
            return
        early = message.channel == "caller" and message.stream == "hall"
        if early and self.principal.role is Role.TERMINAL:
            await self.connection.send(
                _failure(
                    message.id,
                    "forbidden",
                    "a terminal shows each ball when the panels do: subscribe to channel panel",
                )
            )
            return
        try:
            fanout = self._fanout(message.stream)
        except CommandFailed as failed:
            await self.connection.send(_refusal(message.id, failed))
            return
        try:
            missing = await self._not_in_log(fanout, message.after_seq, message.after_time)
        except STORE_FAILURES as error:  # the store gone: said, and the client subscribes again
            failure = store_failure(error, reading=True)
            await self.connection.send(_failure(message.id, "store_failed", failure))
            return
        if missing is not None:  # it saw events this log no longer holds
            await self.connection.send(_failure(message.id, "not_in_log", missing))
            return
        await self.connection.send(_dump(m.Result(id=message.id, success=True, result={})))
        subscriber = Subscriber(
            message.after_seq,
            message.channel,
            self.server.queue_size,
            self.connection,
            audience=audience(self.principal, message.stream),
        )
        self.subscriptions[message.stream] = asyncio.create_task(self._stream(fanout, subscriber))

    def _fanout(self, stream: str) -> Fanout:
        if stream == "hall":
            return self.server.runtime.fanout
        return self.server.tables.table(stream.removeprefix("table:")).fanout

    @staticmethod
    async def _not_in_log(
        fanout: Fanout, after_seq: int, after_time: datetime | None
    ) -> str | None:
        """Why a resume after `after_seq` (whose event the client saw at `after_time`) finds
        the stream's log without what the client saw, or None when the log holds it. Measured
        on the log itself: the catch-up serves from it, and it may be ahead of the hub's state
        for a moment (events a console command appended)."""
        head, _ = await asyncio.to_thread(fanout.log.head, fanout.hall_id)
        restored = "the log was restored from an older copy"
        if after_seq > head:
            return (
                f"seq {after_seq} is past the end of this stream's log (seq {head}): {restored}, "
                f"and what this client saw after seq {head} is no longer a fact; start again "
                "from the log"
            )
        if after_time is None or after_seq == 0:
            return None
        (event,) = await asyncio.to_thread(fanout.log.read, fanout.hall_id, after_seq - 1, 1)
        if event.time == after_time:
            return None
        return (
            f"the log's event seq {after_seq} ({event.time.isoformat()}) is not the one this "
            f"client saw ({after_time.isoformat()}): {restored} and went on; start again from "
            "the log"
        )

    async def tables(self, message: m.Tables) -> None:
        tables = []
        for table_id, table in self.server.tables.tables.items():
            snapshot = await self.server.tables.snapshot(table_id)
            state = m.table_state_message(
                self.server.tables.hall_id,
                table_id,
                table.spec.name,
                table.spec.game,
                snapshot,
                public=audience(self.principal, f"table:{table_id}") == "device",
            )
            tables.append(state.model_dump(mode="json"))
        await self.connection.send(
            _dump(m.Result(id=message.id, success=True, result={"tables": tables}))
        )

    async def _stream(self, fanout: Fanout, subscriber: Subscriber) -> None:
        try:
            await fanout.serve(subscriber, self.connection.send)
        except TooSlow:
            await self.connection.close(m.CLOSE_TOO_SLOW, "fell behind: resume from the last seq")
        except ConnectionClosed:
            pass
        except Exception:  # the store failed mid-stream: never leave a panel silently frozen
            logger.exception("a subscription of %s failed", self.principal.id)
            await self.connection.close(m.CLOSE_STREAM_FAILED, "the stream failed: resume")

    def admitted(self) -> bool:
        """Whether this connection may still give commands (checked again when a command that
        waited its turn runs)."""
        return not self.closing

    async def command(self, message: m.Command) -> None:
        if self.closing:
            return
        try:
            if message.table is None:
                result = await self.server.runtime.execute(
                    self.principal, message.command, message.args, self.admitted
                )
            else:
                result = await self.server.tables.execute(
                    self.principal, message.table, message.command, message.args, self.admitted
                )
        except CommandFailed as failed:
            await self.connection.send(_refusal(message.id, failed))
            return
        except Exception:  # the hub's fault, not the sender's: answered, logged, connection kept
            logger.exception("%s's command %s failed", self.principal.id, message.command)
            await self.connection.send(_failure(message.id, "failed", COMMAND_FAULT))
            return
        await self.connection.send(_dump(m.Result(id=message.id, success=True, result=result)))
        if message.table is None and message.command in SHOWINGS_CHANGED_BY:
            self.server.push_showings(self)


def _bridge_health(bridge: StreamBridge) -> dict[str, object]:
    """An MQTT bridge: its stream, whether it is connected, how far it published, and why it
    stopped if it did (the broker saw past the log: transport/mqtt_witness.py)."""
    return {
        "stream": bridge.stream,
        "connected": bridge.connected.is_set(),
        "published_seq": bridge.published_seq,
        "halted": str(bridge.halted) if bridge.halted else None,
    }


def _camera_health(check: BallCheck | None) -> dict[str, object] | None:
    """The exit camera's status for /health; None when the hall has no camera."""
    return None if check is None else dataclasses.asdict(check.camera.status())
