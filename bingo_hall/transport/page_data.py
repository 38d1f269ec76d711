"""Read-only HTTP data for the web pages, beside the websocket protocol (docs/screens.md).

- ``GET /api/start`` (public): the hall, its log head, where the current session starts in the
  log (so a page replays one session, not the whole history), the draw mode, the panel delay
  and the phases where each command is legal (so a page enables an action only where it is
  legal, from the rules engine's own table); the hall's casino tables and their games.
- ``GET /api/hall`` (staff): the hall's registers that live outside one session — ball sets and
  their game counters, the series and their next card, unpaid prizes, the refunds voided games
  owe — as of a log seq.
- ``GET /api/acta?game=N`` or ``?session=N`` (Jefe de Sala, Jefe de Mesa, inspector): the acta
  as JSON and as the Spanish text of ``bingo-hall acta``, with the verdict of the hash chain.
- ``GET /api/table-record?table=R1`` (and ``&session=N``; the director, the inspector, the
  tables' heads and inspectors): a casino table's session record as JSON and as the Spanish
  text of ``bingo-hall table-record``, with the verdict of its stream's hash chain.
- ``GET /audio/<lang>/<n>.wav``: the spoken number, from the cache prepared at install with
  espeak-ng (``scripts/prepare_audio.py``); a missing language is generated in the background
  on its first request (the page falls back to the browser's speech meanwhile).

Staff endpoints take ``Authorization: Basic`` with a staff user's name and password. The
password is checked (scrypt) in a worker thread, never on the event loop that serves the
panels: until the check is done the answer is ``202`` with ``Retry-After`` and the page asks
again; a verified credential is remembered for ten minutes. The acta, which reads and
verifies the whole log, is built in the same worker pool the same way.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import func, select
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from bingo_hall.domain.commands import COMMAND_TYPES
from bingo_hall.domain.events import SoldRange
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.refusals import params_json
from bingo_hall.domain.state import VoidRefunds
from bingo_hall.hub.auth import (
    ACTA_ROLES,
    BALL_SHOWINGS,
    BUY_CARDS,
    MY_CARDS,
    TABLE_RECORD_ROLES,
    Principal,
)
from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.runtime import HubRuntime, store_failure
from bingo_hall.hub.table_runtime import TableRuntime, TableSpec
from bingo_hall.hub.table_service import TableService
from bingo_hall.store.database import STORE_FAILURES
from bingo_hall.tables.commands import COMMAND_TYPES as TABLE_COMMANDS
from bingo_hall.tables.profiles import FortuneRules, RouletteRules, ValueChipBets, ZeroRule
from bingo_hall.transport.login_guard import LoginGuard, LoginRefused

REPO = Path(__file__).resolve().parents[2]
DISPLAYS_DIR = Path(os.environ.get("BINGO_DISPLAYS_DIR") or REPO / "displays")
AUDIO_DIR = Path(os.environ.get("BINGO_AUDIO_DIR") or REPO / "var" / "audio")

CREDENTIAL_TTL = 600.0  # seconds a verified staff credential is remembered
REFUSAL_TTL = 2.0  # a wrong password is answered from memory this long (no scrypt flood)
MAX_PENDING = 8  # jobs waiting in the worker pool; beyond that: 503, try again
RETRY_AFTER = "0.2"
UNCLAIMED_TTL = 30.0  # a result whose asker never came back for it is dropped after this

_AUDIO_PATH = re.compile(r"/audio/([a-z]{2,3})/([1-9][0-9]?)\.wav")


def respond(
    connection: ServerConnection,
    status: HTTPStatus,
    body: bytes,
    content_type: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """A response with a binary body, built on ``connection.respond`` (as ws_server.py does)."""
    base = connection.respond(status, "")
    merged = Headers(base.headers)
    for name in ("Content-Length", "Content-Type"):
        if name in merged:
            del merged[name]
    merged["Content-Length"] = str(len(body))
    merged["Content-Type"] = content_type
    merged["Cache-Control"] = "no-cache"
    merged["X-Content-Type-Options"] = "nosniff"
    for name, value in (headers or {}).items():
        if name in merged:
            del merged[name]
        merged[name] = value
    return Response(base.status_code, base.reason_phrase, merged, body)


def json_response(
    connection: ServerConnection,
    status: HTTPStatus,
    data: Any,
    headers: dict[str, str] | None = None,
) -> Response:
    body = (json.dumps(data, ensure_ascii=False, default=_json_default) + "\n").encode()
    return respond(connection, status, body, "application/json; charset=utf-8", headers)


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def http_error(
    connection: ServerConnection, status: HTTPStatus, code: str, message: str
) -> Response:
    """An error answer as every HTTP route of the hub gives it: JSON, a code and a message."""
    return json_response(connection, status, {"error": {"code": code, "message": message}})


def _pending(connection: ServerConnection) -> Response:
    return json_response(
        connection,
        HTTPStatus.ACCEPTED,
        {"pending": True},
        {"Retry-After": RETRY_AFTER},
    )


class _Jobs:
    """Work that must not run on the event loop: a small thread pool whose results the
    handlers pick up on a later request (202 until then). A result nobody comes back for is
    dropped UNCLAIMED_TTL seconds after it is done."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        # key → (the work, kept until, picked up yet)
        self._jobs: dict[Any, tuple[Future[Any], float, bool]] = {}
        self._lock = threading.RLock()  # a job done already calls back at once, lock held

    def result(self, key: Any, work: Callable[[], Any], keep: float) -> tuple[bool, Any]:
        """(True, result) once `work` is done (then kept `keep` seconds), else (False, None).

        Raises _Busy when too many jobs wait, and _Failed when the work raised."""
        now = time.monotonic()
        with self._lock:
            self._jobs = {
                k: entry for k, entry in self._jobs.items() if not entry[0].done() or entry[1] > now
            }
            entry = self._jobs.get(key)
            if entry is None:
                if sum(1 for f, _, _ in self._jobs.values() if not f.done()) >= MAX_PENDING:
                    raise _Busy
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(2, thread_name_prefix="page-data")
                future = self._pool.submit(work)
                self._jobs[key] = (future, float("inf"), False)
                future.add_done_callback(lambda _: self._unclaimed(key, future))
                return False, None
            future, _, claimed = entry
            if not future.done():
                return False, None
            if not claimed:
                self._jobs[key] = (future, now + keep, True)
        error = future.exception()
        if isinstance(error, STORE_FAILURES):  # answered as a command's is, and not kept:
            with self._lock:  # the next request checks again, the store perhaps back
                if self._jobs.get(key, (None,))[0] is future:
                    del self._jobs[key]
            raise error
        if error is not None:
            raise _Failed(str(error) or type(error).__name__)
        return True, future.result()

    def _unclaimed(self, key: Any, future: Future[Any]) -> None:
        with self._lock:
            entry = self._jobs.get(key)
            if entry is not None and entry[0] is future and not entry[2]:
                self._jobs[key] = (future, time.monotonic() + UNCLAIMED_TTL, False)

    def forget(self, key: Any, after: float) -> None:
        """Let a finished job's result expire `after` seconds from now."""
        with self._lock:
            entry = self._jobs.get(key)
            if entry is not None and entry[0].done():
                self._jobs[key] = (entry[0], min(entry[1], time.monotonic() + after), entry[2])


class _Failed(Exception):
    pass


class _Busy(Exception):
    pass


class _StaffGate:
    """Staff credentials from an Authorization header, checked off the event loop."""

    def __init__(
        self, jobs: _Jobs, watch: CredentialWatch | None = None, guard: LoginGuard | None = None
    ) -> None:
        self._jobs = jobs
        self._watch = watch  # a remembered login whose credential was withdrawn is refused
        self._guard = guard or LoginGuard()  # failed logins lock their address
        self._key = secrets.token_bytes(32)
        self._store: Any = None  # the CredentialStore, made in a worker thread on first use

    def principal(
        self, runtime: HubRuntime, header: str | None, source: str
    ) -> Principal | _Wait | None:
        """The staff principal of a Basic Authorization header, WAIT while it is checked, or
        None. Raises LoginRefused when `source` is locked for failed logins."""
        credentials = _basic(header)
        if credentials is None:
            return None
        user, password = credentials
        key = hmac.new(self._key, f"{user}\0{password}".encode(), "sha256").digest()

        def check() -> tuple[Principal | None, float, LoginRefused | None]:
            from bingo_hall.store.credentials import CredentialStore

            if self._store is None:
                self._store = CredentialStore(runtime.service.log.engine)
            store = self._store
            try:
                principal = self._guard.check_now(
                    source, user, lambda: store.check_password(user, password)
                )
            except LoginRefused as refused:  # locked while it waited: not remembered
                return None, time.monotonic(), refused
            return principal, time.monotonic(), None  # checked by then

        refused = self._guard.refusal(source)
        if refused is not None:  # a remembered login too: its answer would tell a guess right
            raise refused

        done, answer = self._jobs.result(("staff", key), check, CREDENTIAL_TTL)
        if not done:
            return WAIT
        principal, checked_at, refused = answer
        if refused is not None:
            self._jobs.forget(("staff", key), 0)
            raise refused
        if principal is not None and self._watch and not self._watch.stands(principal, checked_at):
            principal = None  # disabled, or its password changed, since it was remembered
        if principal is None:  # refused: remembered only briefly
            self._jobs.forget(("staff", key), REFUSAL_TTL)
        return principal


class _Wait:
    pass


WAIT = _Wait()


def _basic(header: str | None) -> tuple[str, str] | None:
    if not header or not header.startswith("Basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = decoded.partition(":")
    return (user, password) if sep and user and len(password) <= 1024 else None


def _session_from(runtime: HubRuntime) -> int:
    """The seq just before the current (or last) session's first event: 0 for none."""
    session_id = runtime.service.state.session_id
    if not session_id:
        return 0
    from bingo_hall.store.eventlog import EventRow

    table = EventRow.__table__  # type: ignore[attr-defined]
    query = select(func.min(table.c.seq)).where(
        table.c.hall_id == runtime.service.hall_id, table.c.session_id == session_id
    )
    with runtime.service.log.engine.connect() as conn:
        first = conn.execute(query).scalar_one_or_none()
    return max(0, (first or 1) - 1)


def command_phases() -> dict[str, list[str]]:
    """Where each command of the rules engine is legal, and the hub's own commands."""
    phases = _legal_phases(COMMAND_TYPES)
    # the hub's own: a purchase is a sale (legal where record_sale is); my_cards reads anywhere
    phases[BUY_CARDS] = phases["record_sale"]
    phases[MY_CARDS] = sorted(p.value for p in Phase)
    phases[BALL_SHOWINGS] = phases[MY_CARDS]  # what was shown to the camera, anywhere
    return phases


CAMERA_KINDS = ("none", "simulated", "real")
"""The hall's exit camera, for the pages: none; simulated (the hub shows it the balls); real
(the staff show it the balls)."""


def _camera_kind(runtime: HubRuntime) -> str:
    check = runtime.ball_check
    if check is None:
        return CAMERA_KINDS[0]
    return CAMERA_KINDS[1] if check.stage is not None else CAMERA_KINDS[2]


def start_data(runtime: HubRuntime, tables: TableRuntime | None = None) -> dict[str, Any]:
    seq = runtime.service.seq  # read before the state: the state is never older than seq
    state = runtime.service.state
    config = runtime.config
    return {
        "hall": runtime.service.hall_id,
        "name": config.name,
        "seq": seq,
        "phase": state.phase.value,
        "session_from": _session_from(runtime),
        "machine": {"id": config.machine.id, "kind": config.machine.kind},
        "draw": config.machine.draw,
        "camera": _camera_kind(runtime),
        "display_delay": runtime.fanout.display_delay,
        "legal": command_phases(),
        "tables": [
            table_data(table.spec)
            for table in (tables.tables if tables is not None else {}).values()
        ],
        "table_legal": table_command_phases(),
    }


def table_command_phases() -> dict[str, list[str]]:
    """Where each table command is legal: a page enables a table's action only there."""
    return _legal_phases(TABLE_COMMANDS)


def _legal_phases(command_types: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each command's phases (its class's `legal_in`), by name."""
    return {name: sorted(p.value for p in cls.legal_in) for name, cls in command_types.items()}


def table_data(spec: TableSpec) -> dict[str, Any]:
    """A configured table as its station offers it: the bets its catalogue lists, the
    outcomes its wheel can give, the voids its profile knows, and its game's particulars
    (the French zero's choice, the wheel of fortune's revolutions, American colour chips,
    bets in value chips under the head's control, a float kept at the table)."""
    rules = spec.game.rules
    wheel = rules.wheel()
    roulette = isinstance(rules, RouletteRules)
    return {
        "table_id": spec.id,
        "name": spec.name,
        "game": spec.game.game.value,
        "currency": spec.game.currency,
        "bet_types": list(rules.bet_types),
        "outcomes": sorted(wheel.pockets, key=_pocket_order),
        "void_reasons": [reason.value for reason in rules.void_reasons],
        "void_in_absence_by": [role.value for role in rules.void_declared_in_absence_by],
        "zero_choices": roulette and rules.zero_rule is ZeroRule.HALF_OR_PRISON,
        "revolutions": isinstance(rules, FortuneRules),
        "colour_chips": roulette and rules.colour_chips,
        "value_chips_controlled": roulette
        and rules.value_chip_bets is ValueChipBets.HEAD_CONTROLLED,
        "keeps_float": spec.float_amount is not None,
        # what a change of limits names besides the minimum: the maximum's tier (×minimum), or
        # the wheel of fortune's maximum itself
        "limits_by": "maximum" if isinstance(rules, FortuneRules) else "tier",
    }


def _pocket_order(pocket: str) -> tuple[int, int, int, str]:
    """Zeros first (0, then 00), numbers in order, then the named segments."""
    if pocket.isdigit():
        return (0 if set(pocket) == {"0"} else 1, int(pocket), len(pocket), pocket)
    return (2, 0, 0, pocket)


def hall_data(
    runtime: HubRuntime, principal: Principal, tables: TableRuntime | None = None
) -> dict[str, Any]:
    """The registers; players' open requests and complaints only for the acta's keepers."""
    seq = runtime.service.seq
    state = runtime.service.state
    profile = state.profile or runtime.profile
    limit = (
        profile.pneumatic_ball_set_game_limit
        if (state.machine_kind if state.profile else runtime.config.machine.kind) == "pneumatic"
        else 0
    )
    return {
        **start_data(runtime, tables),
        "seq": seq,
        "session_id": state.session_id,
        "profile": profile.model_dump(mode="json"),
        "ball_set_game_limit": limit,
        "ball_set_in_service": state.ball_set_in_service,
        "ball_sets": [
            {
                "ball_set_id": b.ball_set_id,
                "homologation": b.homologation,
                "games": b.games,
                "retired": b.retired,
                "camera_fit": b.camera_fit,
            }
            for b in state.ball_sets.values()
        ],
        "series": [
            {
                "series_id": s.series_id,
                "face_value": str(s.face_value),
                "size": s.size,
                "next_number": s.next_number,
                "remaining": s.remaining,
            }
            for s in state.series.values()
        ],
        "awards": [
            {
                "game_id": a.game_id,
                "claim_id": a.claim_id,
                "kind": a.kind,
                "series_id": a.series_id,
                "card_number": a.card_number,
                "amount": str(a.amount),
                "payable": a.payable,
                "status": a.status,
            }
            for a in sorted(state.awards.values(), key=lambda a: (a.game_id, a.claim_id))
        ],
        "refunds": [_refunds(ledger) for _, ledger in sorted(state.refunds.items())],
        "open_requests": [
            {
                "request_id": r.request_id,
                "kind": r.kind,
                "player": r.player,
                "text": r.text,
                "session_id": r.session_id,
                "game_id": r.game_id,
            }
            for r in state.open_requests.values()
            if principal.role in ACTA_ROLES
        ],
        "last_game_announced": state.last_game_announced,
        "last_game_played": state.last_game_played,
        "game_id": state.game.game_id if state.game else None,
    }


def _refunds(ledger: VoidRefunds) -> dict[str, Any]:
    """A voided game's refunds: what it sold, what the Cajero refunded and what is owed."""

    def ranges(sold: tuple[SoldRange, ...]) -> list[dict[str, Any]]:
        return [
            {
                "series_id": r.series_id,
                "first": r.first,
                "last": r.last,
                "cards": r.count,
                "face_value": str(r.face_value),
                "amount": str(r.amount),
            }
            for r in sold
        ]

    return {
        "game_id": ledger.game_id,
        "session_id": ledger.session_id,
        "refunds": ranges(ledger.refunds),
        "paid": [
            {
                "series_id": p.series_id,
                "first": p.first,
                "last": p.last,
                "cards": p.last - p.first + 1,
                "amount": str(p.amount),
            }
            for p in ledger.paid
        ],
        "owed": ranges(ledger.owed()),
        "refund_total": str(sum((r.amount for r in ledger.refunds), Decimal(0))),
        "paid_total": str(ledger.paid_total),
        "owed_total": str(ledger.owed_total),
    }


def acta_data(runtime: HubRuntime, session_id: int | None, game_id: int | None) -> dict:
    """Built in a worker thread: reads and verifies the whole log."""
    from bingo_hall.acta import build_acta, render_text

    log, hall = runtime.service.log, runtime.service.hall_id
    chain = log.verify_chain(hall)
    return _composed(
        lambda: build_acta(hall, log.iter_all(hall), chain, session_id=session_id, game_id=game_id),
        "acta",
        render_text,
    )


def table_record_data(service: TableService, session_id: int | None) -> dict:
    """Built in a worker thread: reads and verifies the table's stream."""
    from bingo_hall.acta.table_build import build_table_record
    from bingo_hall.acta.table_render import render_table_record

    log, stream = service.log, service.stream
    chain = log.verify_chain(stream)
    return _composed(
        lambda: build_table_record(
            service.hall_id, service.table_id, log.iter_all(stream), chain, session_id
        ),
        "record",
        render_table_record,
    )


def _composed(build: Callable[[], dict], key: str, render: Callable[[dict], str]) -> dict:
    """A record and its text; what the log does not hold (with the refusal's reason, for the
    pages to say it in their language) or cannot compose, as an error."""
    from bingo_hall.acta import AlteredLog
    from bingo_hall.acta.build import NotInLog

    try:
        record = build()
    except NotInLog as missing:
        reason = {"reason": missing.reason, "params": params_json(missing.params)}
        return {"error": {"code": "not_found", "message": str(missing)} | reason}
    except AlteredLog as altered:
        return {"error": {"code": "altered_log", "message": str(altered)}}
    return {key: record, "text": render(record)}


# --- spoken numbers --------------------------------------------------------------------------


def speech_settings(lang: str) -> tuple[str, str] | None:
    """(espeak-ng voice, text template) of a language, from its translation file."""
    path = DISPLAYS_DIR / "i18n" / f"{lang}.json"
    try:
        texts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    voice, template = texts.get("_meta.espeak_voice"), texts.get("speech.number")
    if not isinstance(voice, str) or not isinstance(template, str):
        return None
    return voice, template


def languages() -> list[str]:
    return sorted(p.stem for p in (DISPLAYS_DIR / "i18n").glob("*.json"))


def prepare_audio(
    directory: Path, langs: list[str], numbers: range = range(1, 91), force: bool = False
) -> int:
    """Speak every number with espeak-ng into `directory/<lang>/<n>.wav`; returns files made.

    Idempotent: existing files are kept unless `force`. Each file is written under a temporary
    name and renamed, so a half-written file is never served.
    """
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng)")
    made = 0
    for lang in langs:
        settings = speech_settings(lang)
        if settings is None:
            raise RuntimeError(f"no speech settings for language {lang!r} in displays/i18n")
        voice, template = settings
        target = directory / lang
        target.mkdir(parents=True, exist_ok=True)
        for number in numbers:
            path = target / f"{number}.wav"
            if path.exists() and not force:
                continue
            with tempfile.NamedTemporaryFile(dir=target, suffix=".part", delete=False) as tmp:
                partial = Path(tmp.name)
            try:
                subprocess.run(
                    [
                        espeak,
                        "-v",
                        voice,
                        "-s",
                        "160",
                        "-w",
                        str(partial),
                        template.format(n=number),
                    ],
                    check=True,
                    capture_output=True,
                    timeout=30,
                )
                partial.replace(path)
            finally:
                partial.unlink(missing_ok=True)
            made += 1
    return made


class PageData:
    """The handlers of /api/ and /audio/ (see the module's docstring)."""

    def __init__(
        self,
        runtime: HubRuntime,
        audio_dir: Path | None = None,
        watch: CredentialWatch | None = None,
        guard: LoginGuard | None = None,
        tables: TableRuntime | None = None,
    ) -> None:
        self.runtime = runtime
        self.tables = tables
        self.audio_dir = audio_dir or AUDIO_DIR
        self.jobs = _Jobs()
        self.gate = _StaffGate(self.jobs, watch, guard)
        self._generating: set[str] = set()

    def api(self, connection: ServerConnection, request: Request, path: str) -> Response | None:
        runtime = self.runtime
        if path == "/api/start":
            return json_response(connection, HTTPStatus.OK, start_data(runtime, self.tables))
        if path not in ("/api/hall", "/api/acta", "/api/table-record"):
            return http_error(connection, HTTPStatus.NOT_FOUND, "not_found", f"no data at {path}")
        try:
            source = str(connection.remote_address[0]) if connection.remote_address else "?"
            header = request.headers.get("Authorization")
            principal = self.gate.principal(runtime, header, source)
            if principal is WAIT:
                return _pending(connection)
            if principal is None:
                return http_error(
                    connection,
                    HTTPStatus.UNAUTHORIZED,
                    "unauthorized",
                    "a staff user's name and password are needed",
                )
            assert isinstance(principal, Principal)
            if path == "/api/hall":
                hall = hall_data(runtime, principal, self.tables)
                return json_response(connection, HTTPStatus.OK, hall)
            if path == "/api/table-record":
                return self._table_record(connection, request, principal)
            return self._acta(connection, request, runtime, principal)
        except LoginRefused as refused:
            status = (
                HTTPStatus.TOO_MANY_REQUESTS
                if refused.code == "locked"
                else HTTPStatus.SERVICE_UNAVAILABLE
            )
            return http_error(connection, status, refused.code, refused.message)
        except _Busy:
            return http_error(
                connection, HTTPStatus.SERVICE_UNAVAILABLE, "busy", "the hub is busy: try again"
            )
        except _Failed as failed:
            return http_error(connection, HTTPStatus.INTERNAL_SERVER_ERROR, "failed", str(failed))
        except STORE_FAILURES as error:  # the database gone or full under a read on the loop
            return http_error(
                connection,
                HTTPStatus.SERVICE_UNAVAILABLE,
                "store_failed",
                store_failure(error, reading=True),
            )

    def _acta(
        self,
        connection: ServerConnection,
        request: Request,
        runtime: HubRuntime,
        principal: Principal,
    ) -> Response:
        if principal.role not in ACTA_ROLES:
            return http_error(
                connection,
                HTTPStatus.FORBIDDEN,
                "forbidden",
                f"{principal} may not read the acta (Jefe de Sala, Jefe de Mesa, inspector)",
            )
        query = parse_qs(urlsplit(request.path).query)
        scope: dict[str, int | None] = {"session": None, "game": None}
        for name in scope:
            values = query.get(name)
            if values:
                if not (values[0].isascii() and values[0].isdigit()) or len(values[0]) > 9:
                    return http_error(
                        connection,
                        HTTPStatus.BAD_REQUEST,
                        "invalid_args",
                        f"{name} must be a number",
                    )
                scope[name] = int(values[0])
        if (scope["session"] is None) == (scope["game"] is None):
            return http_error(
                connection,
                HTTPStatus.BAD_REQUEST,
                "invalid_args",
                "ask for one game (?game=N) or one session (?session=N)",
            )
        key = ("acta", scope["session"], scope["game"], runtime.service.seq)
        return self._record(
            connection, key, lambda: acta_data(runtime, scope["session"], scope["game"])
        )

    def _record(
        self, connection: ServerConnection, key: tuple, build: Callable[[], dict]
    ) -> Response:
        """A record built in the worker pool (the acta, a table's): pending until it is done;
        a record not there, 404; a log that cannot be composed, 409."""
        done, data = self.jobs.result(key, build, keep=30.0)
        if not done:
            return _pending(connection)
        if "error" in data:
            altered = data["error"]["code"] == "altered_log"
            status = HTTPStatus.CONFLICT if altered else HTTPStatus.NOT_FOUND
            return json_response(connection, status, data)
        return json_response(connection, HTTPStatus.OK, data)

    def _table_record(
        self, connection: ServerConnection, request: Request, principal: Principal
    ) -> Response:
        if principal.role not in TABLE_RECORD_ROLES:
            return http_error(
                connection,
                HTTPStatus.FORBIDDEN,
                "forbidden",
                f"{principal} may not read a table's record (Jefe de Sala, inspector, a "
                "table's head or inspector)",
            )
        query = parse_qs(urlsplit(request.path).query)
        tables = self.tables.tables if self.tables is not None else {}
        table_id = (query.get("table") or [""])[0]
        if table_id not in tables:
            known = ", ".join(tables) or "none"
            return http_error(
                connection,
                HTTPStatus.NOT_FOUND if table_id else HTTPStatus.BAD_REQUEST,
                "unknown_table" if table_id else "invalid_args",
                f"ask for one of the hall's tables (?table=ID): {known}",
            )
        session = (query.get("session") or [None])[0]
        if session is not None and not (
            session.isascii() and session.isdigit() and len(session) <= 9
        ):
            return http_error(
                connection, HTTPStatus.BAD_REQUEST, "invalid_args", "session must be a number"
            )
        session_id = None if session is None else int(session)
        table = tables[table_id]
        key = ("table-record", table_id, session_id, table.service.seq)
        return self._record(connection, key, lambda: table_record_data(table.service, session_id))

    def audio(self, connection: ServerConnection, request: Request, path: str) -> Response | None:
        match = _AUDIO_PATH.fullmatch(path)
        if match is None or not 1 <= int(match[2]) <= 90 or match[1] not in languages():
            return http_error(connection, HTTPStatus.NOT_FOUND, "not_found", f"no audio at {path}")
        lang, number = match[1], int(match[2])
        file = self.audio_dir / lang / f"{number}.wav"
        try:
            body = file.read_bytes()
        except OSError:
            self._generate(lang)
            return http_error(
                connection, HTTPStatus.NOT_FOUND, "not_prepared", f"no audio for {lang} yet"
            )
        return respond(
            connection, HTTPStatus.OK, body, "audio/wav", {"Cache-Control": "max-age=86400"}
        )

    def _generate(self, lang: str) -> None:
        """Prepare a language's numbers in the background, once per process."""
        if lang in self._generating or shutil.which("espeak-ng") is None:
            return
        self._generating.add(lang)
        try:
            self.jobs.result(
                ("audio", lang), lambda: prepare_audio(self.audio_dir, [lang]), keep=0.0
            )
        except (_Busy, _Failed):
            self._generating.discard(lang)
