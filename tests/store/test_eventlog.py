"""The event log on real SQLite and PostgreSQL databases: round trips, atomicity, tamper
detection, concurrent writers in separate processes, and a property test."""

from __future__ import annotations

import json
import multiprocessing
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from bingo_hall.store import (
    GENESIS_HASH,
    EventEnvelope,
    EventLog,
    NewEvent,
    StoreError,
    canonical_json,
    event_hash,
    make_engine,
)

MakeEvent = Callable[..., NewEvent]
HALL = "sala-centro"


def _seqs(envelopes: list[EventEnvelope]) -> list[int]:
    return [envelope.seq for envelope in envelopes]


# ------------------------------------------------------------------------ round trip --


def test_append_then_read_gives_back_exactly_what_was_appended(
    log: EventLog, make_event: MakeEvent
) -> None:
    madrid = timezone(timedelta(hours=1))
    events = [
        make_event(
            "card_sold",
            {
                "series": "A17",
                "price": "1.50",
                "player": "Iñaki Núñez — «¿Algún bingo más?» 🎱",
                "grid": [[1, 0, 23], [0, [45, 67]], []],
            },
            session_id=3,
            game_id=None,
            time=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=madrid),
        ),
        make_event(
            "prize_split",
            {"pot": str(Decimal("100.00")), "shares": ["33.33"] * 3, "left": {"cents": 1}},
            session_id=None,
            game_id=None,
            actor="",
        ),
        make_event("note", {"x": [True, False, None, 1.25, -3, 10**20], "": {}}, game_id=9),
    ]
    stored = log.append(HALL, events)
    read = log.read(HALL)

    assert read == stored
    for envelope, event in zip(read, events, strict=True):
        assert envelope.hall_id == HALL
        assert (envelope.session_id, envelope.game_id) == (event.session_id, event.game_id)
        assert (envelope.type, envelope.actor) == (event.type, event.actor)
        assert envelope.payload == event.payload
        assert envelope.time == event.time
        assert envelope.time.utcoffset() == timedelta(0)
    assert read[0].time.microsecond == 678901
    assert read[0].to_message()["time"] == "2026-01-02T02:04:05.678901+00:00"


def test_payload_is_stored_as_the_canonical_json_that_was_hashed(
    log: EventLog, engine: sqlalchemy.Engine, make_event: MakeEvent
) -> None:
    payload = {"b": "ñ€", "a": [1, {"d": 2, "c": 3}]}
    (envelope,) = log.append(HALL, [make_event("x", payload)])
    with engine.connect() as conn:
        row = conn.execute(text("SELECT payload, time FROM event_log")).one()
    assert row.payload == '{"a":[1,{"c":3,"d":2}],"b":"ñ€"}' == canonical_json(payload)
    assert row.time == "2026-11-21T22:27:23.123456+00:00"
    assert envelope.hash == event_hash(
        hall_id=HALL,
        seq=1,
        session_id=1,
        game_id=1,
        type="x",
        payload=payload,
        time=row.time,
        actor="jefe_de_mesa",
        prev_hash=GENESIS_HASH,
    )


def test_to_message_is_the_protocol_envelope(log: EventLog, make_event: MakeEvent) -> None:
    (envelope,) = log.append(HALL, [make_event("ball_drawn", {"ball": 42})])
    message = envelope.to_message()
    assert message == {
        "hall": HALL,
        "seq": 1,
        "session": 1,
        "game": 1,
        "type": "ball_drawn",
        "payload": {"ball": 42},
        "time": "2026-11-21T22:27:23.123456+00:00",
        "actor": "jefe_de_mesa",
        "prev_hash": GENESIS_HASH,
        "hash": envelope.hash,
    }
    json.dumps(message)  # ready for the wire as it is


# ------------------------------------------------------------------ seq and chaining --


def test_seq_starts_at_one_and_is_contiguous_across_batches(
    log: EventLog, make_event: MakeEvent
) -> None:
    assert log.head(HALL) == (0, GENESIS_HASH)
    returned: list[EventEnvelope] = []
    for size in (3, 1, 5):
        returned += log.append(HALL, [make_event() for _ in range(size)])

    events = log.read(HALL)
    assert _seqs(events) == list(range(1, 10))
    assert events == returned
    assert events[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in pairwise(events))
    assert log.head(HALL) == (9, events[-1].hash)
    assert _seqs(log.read(HALL, after_seq=4, limit=3)) == [5, 6, 7]
    assert log.read(HALL, after_seq=9) == []
    assert list(log.iter_all(HALL, batch=2)) == events
    assert _seqs(list(log.iter_all(HALL, after_seq=7, batch=1))) == [8, 9]
    assert log.append(HALL, []) == []
    assert log.head(HALL) == (9, events[-1].hash)


def test_halls_are_independent(log: EventLog, make_event: MakeEvent) -> None:
    a = log.append("sala-a", [make_event(), make_event()])
    b = log.append("sala-b", [make_event()])
    a += log.append("sala-a", [make_event()])

    assert _seqs(a) == [1, 2, 3] and _seqs(b) == [1]
    assert b[0].prev_hash == GENESIS_HASH
    assert log.read("sala-a") == a and log.read("sala-b") == b
    assert log.halls() == ["sala-a", "sala-b"]
    assert log.head("sala-z") == (0, GENESIS_HASH)
    assert log.verify_chain("sala-a").ok and log.verify_chain("sala-b").ok


# ---------------------------------------------------------------------- projectors --

_PROJECTION = sqlalchemy.Table(
    "test_projection",
    sqlalchemy.MetaData(),
    sqlalchemy.Column("hall_id", sqlalchemy.Text, primary_key=True),
    sqlalchemy.Column("seq", sqlalchemy.BigInteger, primary_key=True),
    sqlalchemy.Column("type", sqlalchemy.Text, nullable=False),
)


class _RecordingProjector:
    """Writes every envelope to its own table; can be told to fail on the n-th call."""

    def __init__(self, fail_on_call: int | None = None) -> None:
        self.fail_on_call = fail_on_call
        self.seen: list[EventEnvelope] = []

    def __call__(self, conn: sqlalchemy.Connection, envelope: EventEnvelope) -> None:
        self.seen.append(envelope)
        if len(self.seen) == self.fail_on_call:
            raise RuntimeError(f"projector fails on seq {envelope.seq}")
        stored = conn.execute(
            text("SELECT hash FROM event_log WHERE hall_id = :h AND seq = :s"),
            {"h": envelope.hall_id, "s": envelope.seq},
        ).scalar_one()  # the event row is visible inside the same transaction
        assert stored == envelope.hash
        conn.execute(
            _PROJECTION.insert().values(
                hall_id=envelope.hall_id, seq=envelope.seq, type=envelope.type
            )
        )


def _projected(engine: sqlalchemy.Engine) -> list[tuple[str, int, str]]:
    with engine.connect() as conn:
        rows = conn.execute(_PROJECTION.select().order_by(_PROJECTION.c.seq)).all()
    return [tuple(row) for row in rows]


def test_projectors_see_every_envelope_inside_the_transaction(
    engine: sqlalchemy.Engine, make_event: MakeEvent
) -> None:
    _PROJECTION.create(engine)
    first = _RecordingProjector()
    seen_by_plain: list[int] = []
    log = EventLog(engine, projectors=[first, lambda _c, env: seen_by_plain.append(env.seq)])

    stored = log.append(HALL, [make_event("a"), make_event("b")])
    stored += log.append(HALL, [make_event("c")])

    assert first.seen == stored
    assert seen_by_plain == [1, 2, 3]
    assert _projected(engine) == [(HALL, 1, "a"), (HALL, 2, "b"), (HALL, 3, "c")]


def test_a_batch_is_atomic_when_a_projector_fails(
    engine: sqlalchemy.Engine, make_event: MakeEvent
) -> None:
    _PROJECTION.create(engine)
    projector = _RecordingProjector(fail_on_call=4)  # the 3rd event of the second batch
    log = EventLog(engine, projectors=[projector])
    before = log.append(HALL, [make_event("kept")])
    head_before = log.head(HALL)

    with pytest.raises(RuntimeError, match="projector fails on seq 4"):
        log.append(HALL, [make_event(f"lost-{i}") for i in range(5)])

    assert log.head(HALL) == head_before
    assert log.read(HALL) == before
    assert _projected(engine) == [(HALL, 1, "kept")]
    assert log.verify_chain(HALL).ok
    projector.fail_on_call = None
    assert _seqs(log.append(HALL, [make_event("next")])) == [2]
    assert log.verify_chain(HALL).ok


# ------------------------------------------------------------------- verification --


def _tamper(engine: sqlalchemy.Engine, sql: str, **params: Any) -> None:
    """Change stored rows behind the log's back (``\\:`` escapes a colon in text())."""
    with engine.begin() as conn:
        conn.execute(text(sql), {"hall": HALL, **params})


def _five_events(log: EventLog, make_event: MakeEvent) -> list[EventEnvelope]:
    return log.append(HALL, [make_event(payload={"ball": n}) for n in (7, 21, 33, 48, 90)])


def test_verify_chain_accepts_an_untouched_log(log: EventLog, make_event: MakeEvent) -> None:
    events = _five_events(log, make_event)
    events += log.append(HALL, [make_event()])
    report = log.verify_chain(HALL)
    assert report.ok and report.problem is None
    assert (report.events, report.last_seq, report.last_hash) == (6, 6, events[-1].hash)
    assert log.verify_chain(HALL, batch=2) == report  # streamed in small batches: same verdict
    empty = log.verify_chain("sala-vacia")
    assert empty.ok and (empty.events, empty.last_seq, empty.last_hash) == (0, 0, GENESIS_HASH)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        pytest.param(
            r"""UPDATE event_log SET payload = '{"ball"\:8}' WHERE hall_id = :hall AND seq = 3""",
            "seq 3: hash mismatch",
            id="payload-edited",
        ),
        pytest.param(
            r"""UPDATE event_log SET payload = '{"ball"\: 33}' WHERE hall_id = :hall AND seq = 3""",
            "seq 3: payload is not in canonical form",
            id="payload-reformatted",
        ),
        pytest.param(
            "UPDATE event_log SET actor = 'otro' WHERE hall_id = :hall AND seq = 3",
            "seq 3: hash mismatch",
            id="actor-edited",
        ),
        pytest.param(
            "DELETE FROM event_log WHERE hall_id = :hall AND seq = 3",
            "seq 3: gap in seq, seq 3 is missing",
            id="row-deleted",
        ),
        pytest.param(
            f"UPDATE event_log SET prev_hash = '{'f' * 64}' WHERE hall_id = :hall AND seq = 3",
            "seq 3: prev_hash mismatch",
            id="prev-hash-changed",
        ),
    ],
)
def test_verify_chain_names_the_first_tampered_seq(
    log: EventLog, engine: sqlalchemy.Engine, make_event: MakeEvent, sql: str, expected: str
) -> None:
    events = _five_events(log, make_event)
    _tamper(engine, sql)
    report = log.verify_chain(HALL)
    assert not report.ok
    assert report.problem is not None and report.problem.startswith(expected), report.problem
    assert (report.events, report.last_seq, report.last_hash) == (2, 2, events[1].hash)


def test_verify_chain_detects_a_removed_tail(
    log: EventLog, engine: sqlalchemy.Engine, make_event: MakeEvent
) -> None:
    _five_events(log, make_event)
    _tamper(engine, "DELETE FROM event_log WHERE hall_id = :hall AND seq >= 4")
    report = log.verify_chain(HALL)
    assert not report.ok and report.last_seq == 3
    assert report.problem is not None and report.problem.startswith("seq 4: the head row says")


# -------------------------------------------------------------------------- rejection --


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param({"time": datetime(2026, 11, 21, 22, 0)}, "has no timezone", id="naive-time"),
        pytest.param({"payload": {"pot": Decimal("1.50")}}, "Decimal", id="decimal"),
        pytest.param({"payload": {"balls": {1, 2}}}, "set", id="set"),
        pytest.param({"payload": {"x": float("nan")}}, "JSON cannot hold", id="nan"),
        pytest.param({"payload": {1: "a"}}, "non-string key", id="int-key"),
        pytest.param({"payload": {"x": object()}}, "not a JSON value", id="object"),
        pytest.param({"payload": ["not", "a", "dict"]}, "must be a dict", id="list-payload"),
        pytest.param({"type": ""}, "event type must not be empty", id="empty-type"),
        pytest.param({"game_id": "7"}, "game_id must be an integer", id="str-game-id"),
    ],
)
def test_invalid_events_are_rejected_and_nothing_is_written(
    log: EventLog, make_event: MakeEvent, bad: dict[str, Any], message: str
) -> None:
    with pytest.raises(StoreError, match=message):
        log.append(HALL, [make_event(), make_event(**bad)])
    assert log.head(HALL) == (0, GENESIS_HASH)
    assert log.read(HALL) == []
    assert log.halls() == []


# ------------------------------------------------------------------------- engines --


def test_make_engine_opens_sqlite_durably(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "hall.sqlite"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            pragma = conn.exec_driver_sql
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
            assert pragma("PRAGMA foreign_keys").scalar() == 1
            assert pragma("PRAGMA busy_timeout").scalar() >= 1000
        assert path.exists()
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u:p@localhost/db",
        "postgresql://u:p@localhost/db",
        "sqlite://",
        "not a url",
        "sqlite:///:memory:",
        "sqlite:///file:hall?mode=memory&uri=true",  # SQLite's URI form, in memory
    ],
)
def test_make_engine_rejects_unsupported_urls(url: str) -> None:
    with pytest.raises(StoreError, match="sqlite:///"):
        make_engine(url)


def test_a_sqlite_uri_is_opened_where_it_points_and_makes_nothing_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "store" / "hall.sqlite"
    path.parent.mkdir()
    monkeypatch.chdir(tmp_path)
    engine = make_engine(f"sqlite:///file:{path}?uri=true")
    try:
        with engine.begin() as conn:
            conn.execute(sqlalchemy.text("CREATE TABLE t (x INTEGER)"))
    finally:
        engine.dispose()
    assert path.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]  # no "file:" folder


# --------------------------------------------------------- concurrent writer processes --

_PER_WORKER = 200


def _append_worker(url: str, worker: str, start: Any) -> None:
    """Runs in a spawned process: append one event per transaction, as fast as it can."""
    engine = make_engine(url)
    try:
        log = EventLog(engine)
        if not start.wait(60):
            raise RuntimeError("start signal never came")
        for i in range(_PER_WORKER):
            event = NewEvent(
                None, None, "tick", {"worker": worker, "i": i}, datetime.now(UTC), worker
            )
            log.append(HALL, [event])
            time.sleep(0.002)  # let the other writer in: SQLite's busy handler is not fair
    finally:
        engine.dispose()


def test_two_processes_appending_to_one_hall_never_fork_the_chain(
    log: EventLog, store_url: str
) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=_append_worker, args=(store_url, name, start))
        for name in ("north", "south")
    ]
    for process in workers:
        process.start()
    start.set()
    for process in workers:
        process.join(timeout=120)
    assert [p.exitcode for p in workers] == [0, 0]

    events = log.read(HALL)
    assert _seqs(events) == list(range(1, 2 * _PER_WORKER + 1))
    for name in ("north", "south"):
        mine = [e.payload["i"] for e in events if e.payload["worker"] == name]
        assert mine == list(range(_PER_WORKER))
    report = log.verify_chain(HALL)
    assert report.ok, report.problem
    assert report.events == 2 * _PER_WORKER


# -------------------------------------------------------------------------- property --

_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_json_value = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_payload = st.dictionaries(st.text(max_size=8), _json_value, max_size=5)
_batches = st.lists(st.lists(_payload, min_size=1, max_size=4), min_size=1, max_size=4)


def test_property_what_is_appended_is_read_back_in_order_and_chains(
    log: EventLog, store_url: str, make_event: MakeEvent
) -> None:
    examples = 20 if store_url.startswith("postgresql") else 50

    @settings(
        max_examples=examples,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(batches=_batches)
    def check(batches: list[list[dict[str, Any]]]) -> None:
        hall = f"hall-{uuid.uuid4().hex[:10]}"  # every example gets a hall of its own
        appended: list[NewEvent] = []
        for batch in batches:
            events = [make_event("prop", payload) for payload in batch]
            log.append(hall, events)
            appended += events
        read = log.read(hall)
        assert [(e.payload, e.time, e.seq) for e in read] == [
            (e.payload, e.time, n) for n, e in enumerate(appended, start=1)
        ]
        assert log.verify_chain(hall).ok

    check()
