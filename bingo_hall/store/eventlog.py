"""The append-only, hash-chained event log: the source of truth of a hall.

Every event gets the next ``seq`` of its hall and a SHA-256 ``hash`` over its content and the
previous event's hash, so any edit, deletion or reordering of stored rows is detectable with
:meth:`EventLog.verify_chain`. Appends are serialised per hall through a head row
(``hall_head``) locked for the whole transaction, so concurrent writers (even in other
processes) can neither reuse a seq nor fork the chain. Projections run inside the append
transaction: an event and everything derived from it are committed together or not at all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar

import sqlalchemy
from sqlalchemy import BigInteger, Text, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, SQLModel

from bingo_hall.store.chain_recipe import GENESIS_HASH, ChainCheck, canonical_json, hash_of
from bingo_hall.store.database import StoreError, is_sqlite, write_transaction


class ConcurrentAppend(StoreError):
    """Another writer appended to the hall since this writer read its state."""


_DDL_LOCK_KEY = 0x6B696E676F4C4F47  # PostgreSQL advisory lock serialising table creation


# --------------------------------------------------------------------------- tables --


class EventRow(SQLModel, table=True):
    """One stored event. ``payload`` is the canonical JSON text exactly as hashed."""

    __tablename__: ClassVar[str] = "event_log"  # type: ignore[misc]

    hall_id: str = Field(primary_key=True)
    seq: int = Field(
        primary_key=True, sa_type=BigInteger, sa_column_kwargs={"autoincrement": False}
    )
    session_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    game_id: int | None = Field(default=None, index=True, sa_type=BigInteger)
    type: str
    payload: str = Field(sa_type=Text)
    time: str = Field(sa_type=Text)
    actor: str
    prev_hash: str
    hash: str


class HallHead(SQLModel, table=True):
    """Last seq and hash of a hall; its row is the per-hall append lock."""

    __tablename__: ClassVar[str] = "hall_head"  # type: ignore[misc]

    hall_id: str = Field(primary_key=True)
    last_seq: int = Field(sa_type=BigInteger)
    last_hash: str


EVENTS: sqlalchemy.Table = EventRow.__table__  # type: ignore[attr-defined]
HEADS: sqlalchemy.Table = HallHead.__table__  # type: ignore[attr-defined]


# ------------------------------------------------------------------ value objects --


@dataclass(frozen=True)
class NewEvent:
    """An event to append; the log gives it its hall, seq and hashes."""

    session_id: int | None
    game_id: int | None
    type: str
    payload: dict[str, Any]
    time: datetime  # timezone-aware; stored in UTC
    actor: str


@dataclass(frozen=True)
class EventEnvelope:
    """A stored event, as projectors, transports and replay see it."""

    hall_id: str
    seq: int
    session_id: int | None
    game_id: int | None
    type: str
    payload: dict[str, Any]
    time: datetime
    actor: str
    prev_hash: str
    hash: str

    def to_message(self) -> dict[str, Any]:
        return {
            "hall": self.hall_id,
            "seq": self.seq,
            "session": self.session_id,
            "game": self.game_id,
            "type": self.type,
            "payload": self.payload,
            "time": format_time(self.time),
            "actor": self.actor,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class ChainReport:
    """Outcome of :meth:`EventLog.verify_chain`.

    ``events``, ``last_seq`` and ``last_hash`` describe the verified prefix of the log (all of
    it when ``ok``); ``problem`` names the first bad seq and what is wrong with it.
    """

    ok: bool
    events: int
    last_seq: int
    last_hash: str
    problem: str | None


Projector = Callable[[sqlalchemy.Connection, EventEnvelope], None]


# ------------------------------------------------------------ canonical form, hash --


def format_time(moment: datetime) -> str:
    """ISO 8601 in UTC with microseconds, e.g. ``2026-11-21T22:27:23.123456+00:00``."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise StoreError(f"time {moment.isoformat()} has no timezone: give an aware UTC time")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def event_hash(
    *,
    hall_id: str,
    seq: int,
    session_id: int | None,
    game_id: int | None,
    type: str,
    payload: Any,
    time: str | datetime,
    actor: str,
    prev_hash: str,
) -> str:
    """SHA-256 hex of the canonical JSON of the event's content and its predecessor's hash
    (`chain_recipe.py`)."""
    return hash_of(
        {
            "hall": hall_id,
            "seq": seq,
            "session": session_id,
            "game": game_id,
            "type": type,
            "payload": payload,
            "time": time if isinstance(time, str) else format_time(time),
            "actor": actor,
            "prev_hash": prev_hash,
        }
    )


# ----------------------------------------------------------------------- the log --


@dataclass(frozen=True)
class _Prepared:
    """A validated NewEvent in stored form."""

    event: NewEvent
    payload_text: str
    time_text: str


class EventLog:
    """Append-only, hash-chained log of every hall's events, with in-transaction projectors."""

    def __init__(self, engine: sqlalchemy.Engine, projectors: Sequence[Projector] = ()) -> None:
        self._engine = engine
        self._projectors = tuple(projectors)
        self._create_tables()

    @property
    def engine(self) -> sqlalchemy.Engine:
        return self._engine

    def append(
        self, hall_id: str, events: Sequence[NewEvent], expected_seq: int | None = None
    ) -> list[EventEnvelope]:
        """Append a batch atomically and return it once committed.

        Seqs, chaining, the rows and every projector's work share one transaction; if any of
        it raises, nothing of the batch is stored and the exception propagates. With
        ``expected_seq``, the batch is refused (ConcurrentAppend, nothing written) unless the
        hall's last seq is still that one: the writer decided on a state nobody has changed.
        """
        _check_text("hall_id", hall_id)
        prepared = [_prepare(event) for event in events]
        if not prepared:
            return []
        with self._engine.connect() as conn, write_transaction(conn):
            last_seq, last_hash = _lock_head(conn, hall_id)
            if expected_seq is not None and last_seq != expected_seq:
                raise ConcurrentAppend(
                    f"hall {hall_id} moved on to seq {last_seq} while this writer expected "
                    f"{expected_seq}: another process writes to this hall"
                )
            envelopes = _chain(hall_id, last_seq, last_hash, prepared)
            conn.execute(
                sqlalchemy.insert(EVENTS),
                [_row(env, p) for env, p in zip(envelopes, prepared, strict=True)],
            )
            for envelope in envelopes:
                for project in self._projectors:
                    project(conn, envelope)
            conn.execute(
                update(HEADS)
                .where(HEADS.c.hall_id == hall_id)
                .values(last_seq=envelopes[-1].seq, last_hash=envelopes[-1].hash)
            )
        return envelopes

    def read(
        self, hall_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[EventEnvelope]:
        """Events of a hall with seq > ``after_seq``, in seq order, at most ``limit``."""
        return [_envelope(row) for row in self._rows(hall_id, after_seq, limit)]

    def iter_all(
        self, hall_id: str, after_seq: int = 0, batch: int = 1000
    ) -> Iterator[EventEnvelope]:
        """Stream a hall's events in seq order, ``batch`` rows per query."""
        for row in self._iter_rows(hall_id, after_seq, batch):
            yield _envelope(row)

    def head(self, hall_id: str) -> tuple[int, str]:
        """(last_seq, last_hash) of a hall; (0, GENESIS_HASH) when it has no events."""
        with self._engine.connect() as conn:
            return _read_head(conn, hall_id)

    def halls(self) -> list[str]:
        with self._engine.connect() as conn:
            return list(conn.scalars(select(HEADS.c.hall_id).order_by(HEADS.c.hall_id)))

    def verify_chain(self, hall_id: str, batch: int = 1000) -> ChainReport:
        """Recompute every hash from the stored columns and check every link, streaming.

        Runs on one snapshot (a single read transaction, REPEATABLE READ on PostgreSQL) so
        appends made meanwhile cannot look like damage. Also checks that the head row agrees
        with the last event, which catches a log whose tail was deleted.
        """
        verifier = ChainVerifier()
        with self.snapshot_rows(hall_id, batch) as ((head_seq, head_hash), rows):
            for row in rows:
                if not verifier.check_row(row):
                    return verifier.report()
        verifier.check_head(head_seq, head_hash)
        return verifier.report()

    @contextmanager
    def snapshot_rows(
        self, hall_id: str, batch: int = 1000
    ) -> Iterator[tuple[tuple[int, str], Iterator[sqlalchemy.Row[Any]]]]:
        """A hall's head and its stored rows in seq order, read in one snapshot (a single read
        transaction, REPEATABLE READ on PostgreSQL): appends made meanwhile are not seen."""
        with self._snapshot() as conn:
            head = _read_head(conn, hall_id)
            rows = conn.execution_options(yield_per=batch).execute(
                select(EVENTS).where(EVENTS.c.hall_id == hall_id).order_by(EVENTS.c.seq)
            )
            yield head, iter(rows)

    # -- internals --

    def _create_tables(self) -> None:
        with self._engine.connect() as conn, write_transaction(conn):
            if not is_sqlite(conn):  # two processes starting at once must not race on DDL
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _DDL_LOCK_KEY})
            SQLModel.metadata.create_all(conn, tables=[EVENTS, HEADS])

    def _snapshot(self) -> sqlalchemy.Connection:
        conn = self._engine.connect()
        if not is_sqlite(conn):  # SQLite read transactions are snapshots already (WAL)
            conn.execution_options(isolation_level="REPEATABLE READ")
        return conn

    def _rows(
        self, hall_id: str, after_seq: int, limit: int | None
    ) -> Sequence[sqlalchemy.Row[Any]]:
        query = (
            select(EVENTS)
            .where(EVENTS.c.hall_id == hall_id, EVENTS.c.seq > after_seq)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return conn.execute(query).all()

    def _iter_rows(self, hall_id: str, after_seq: int, batch: int) -> Iterator[sqlalchemy.Row[Any]]:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, not {batch}")
        while True:
            rows = self._rows(hall_id, after_seq, batch)
            yield from rows
            if len(rows) < batch:
                return
            after_seq = rows[-1].seq


# ------------------------------------------------------------------ append helpers --


def _check_text(name: str, value: object, *, allow_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise StoreError(f"{name} must be a string, not {type(value).__name__}")
    if not value and not allow_empty:
        raise StoreError(f"{name} must not be empty")
    if "\x00" in value:
        raise StoreError(f"{name} {value!r} contains a NUL character")
    _check_utf8(name, value)


def _check_utf8(name: str, value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise StoreError(f"{name} is not valid Unicode text: {exc.reason}") from None


def _check_id(name: str, value: object) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise StoreError(f"{name} must be an integer or None, not {value!r}")


def _json_problem(value: object, where: str) -> str | None:
    """Why ``value`` is not a plain JSON value (str keys, finite floats), or None."""
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}, which JSON cannot hold"
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if problem := _json_problem(item, f"{where}[{index}]"):
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where} has a non-string key {key!r}"
            if problem := _json_problem(item, f"{where}[{key!r}]"):
                return problem
        return None
    hint = " (write money as a string, e.g. '1.50')" if isinstance(value, Decimal) else ""
    return f"{where} is a {type(value).__name__}, not a JSON value{hint}"


def _prepare(event: NewEvent) -> _Prepared:
    """Validate a NewEvent and compute its stored form, or raise StoreError."""
    _check_text("event type", event.type)
    _check_text(f"actor of {event.type!r} event", event.actor, allow_empty=True)
    _check_id("session_id", event.session_id)
    _check_id("game_id", event.game_id)
    if not isinstance(event.time, datetime):
        raise StoreError(f"time of {event.type!r} event must be a datetime, not {event.time!r}")
    if event.time.tzinfo is None or event.time.utcoffset() is None:
        raise StoreError(
            f"time of {event.type!r} event ({event.time.isoformat()}) has no timezone: "
            "give an aware UTC time"
        )
    if not isinstance(event.payload, dict):
        raise StoreError(f"payload of {event.type!r} event must be a dict")
    try:
        problem = _json_problem(event.payload, "payload")
    except RecursionError:
        problem = "payload is nested too deeply (or refers to itself)"
    if problem:
        raise StoreError(f"{event.type!r} event not stored: {problem}")
    payload_text = canonical_json(event.payload)
    _check_utf8(f"payload of {event.type!r} event", payload_text)
    return _Prepared(event, payload_text, format_time(event.time))


def _read_head(conn: sqlalchemy.Connection, hall_id: str) -> tuple[int, str]:
    row = conn.execute(
        select(HEADS.c.last_seq, HEADS.c.last_hash).where(HEADS.c.hall_id == hall_id)
    ).one_or_none()
    return (0, GENESIS_HASH) if row is None else (row.last_seq, row.last_hash)


def _insert_for(conn: sqlalchemy.Connection) -> Callable[[sqlalchemy.Table], Any]:
    return sqlite.insert if is_sqlite(conn) else postgresql.insert


def _lock_head(conn: sqlalchemy.Connection, hall_id: str) -> tuple[int, str]:
    """Lock the hall's head row for this transaction (creating it if new); return it.

    On SQLite the BEGIN IMMEDIATE of the transaction already holds the write lock and
    FOR UPDATE is not rendered; on PostgreSQL the row lock serialises writers of this hall.
    """
    query = (
        select(HEADS.c.last_seq, HEADS.c.last_hash)
        .where(HEADS.c.hall_id == hall_id)
        .with_for_update()
    )
    row = conn.execute(query).one_or_none()
    if row is None:
        insert = _insert_for(conn)(HEADS).values(
            hall_id=hall_id, last_seq=0, last_hash=GENESIS_HASH
        )
        conn.execute(insert.on_conflict_do_nothing(index_elements=[HEADS.c.hall_id]))
        row = conn.execute(query).one()
    return row.last_seq, row.last_hash


def _chain(
    hall_id: str, last_seq: int, last_hash: str, prepared: Sequence[_Prepared]
) -> list[EventEnvelope]:
    envelopes: list[EventEnvelope] = []
    for p in prepared:
        event = p.event
        last_seq += 1
        payload = json.loads(p.payload_text)  # what a reader will get back, exactly
        digest = event_hash(
            hall_id=hall_id,
            seq=last_seq,
            session_id=event.session_id,
            game_id=event.game_id,
            type=event.type,
            payload=payload,
            time=p.time_text,
            actor=event.actor,
            prev_hash=last_hash,
        )
        envelopes.append(
            EventEnvelope(
                hall_id=hall_id,
                seq=last_seq,
                session_id=event.session_id,
                game_id=event.game_id,
                type=event.type,
                payload=payload,
                time=parse_time(p.time_text),
                actor=event.actor,
                prev_hash=last_hash,
                hash=digest,
            )
        )
        last_hash = digest
    return envelopes


def _row(envelope: EventEnvelope, prepared: _Prepared) -> dict[str, Any]:
    return {
        "hall_id": envelope.hall_id,
        "seq": envelope.seq,
        "session_id": envelope.session_id,
        "game_id": envelope.game_id,
        "type": envelope.type,
        "payload": prepared.payload_text,
        "time": prepared.time_text,
        "actor": envelope.actor,
        "prev_hash": envelope.prev_hash,
        "hash": envelope.hash,
    }


def _envelope(row: sqlalchemy.Row[Any]) -> EventEnvelope:
    return EventEnvelope(
        hall_id=row.hall_id,
        seq=row.seq,
        session_id=row.session_id,
        game_id=row.game_id,
        type=row.type,
        payload=json.loads(row.payload),
        time=parse_time(row.time),
        actor=row.actor,
        prev_hash=row.prev_hash,
        hash=row.hash,
    )


# ------------------------------------------------------------------- verification --


def stored_fields(row: sqlalchemy.Row[Any]) -> dict[str, Any]:
    """A stored event's fields under the names the hash recipe gives them, all but its payload
    (stored as text)."""
    return {
        "hall": row.hall_id,
        "seq": row.seq,
        "session": row.session_id,
        "game": row.game_id,
        "type": row.type,
        "time": row.time,
        "actor": row.actor,
        "prev_hash": row.prev_hash,
        "hash": row.hash,
    }


class ChainVerifier(ChainCheck):
    """Walks stored rows in seq order and stops at the first broken link."""

    def check_row(self, row: sqlalchemy.Row[Any]) -> bool:
        return self.check(stored_fields(row), payload_text=row.payload)

    def report(self) -> ChainReport:
        return ChainReport(
            ok=self.problem is None,
            events=self.events,
            last_seq=self.last_seq,
            last_hash=self.last_hash,
            problem=self.problem,
        )
