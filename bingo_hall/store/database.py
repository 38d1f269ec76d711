"""Engines for the two supported stores: SQLite (embedded default) and PostgreSQL (production).

SQLite is opened durably (WAL, synchronous=FULL) and SQLAlchemy, not the ``sqlite3`` driver,
emits ``BEGIN`` so that every transaction really is one (the driver's legacy mode skips BEGIN
before SELECTs). A connection can ask for ``BEGIN IMMEDIATE`` (take the write lock up front)
with :func:`write_transaction`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

SQLITE_BUSY_TIMEOUT_MS = 30_000
_SQLITE_DRIVERS = {"sqlite", "sqlite+pysqlite"}
_POSTGRES_DRIVERS = {"postgresql+psycopg"}
_BEGIN_OPTION = "bingo_sqlite_begin"


class StoreError(Exception):
    """The store refused or could not do something. The message is meant for a person."""


# What a command or a read meets when the database fails under it: the store's own refusals,
# and the driver's errors SQLAlchemy wraps (a full disk, a server gone, a connection cut).
STORE_FAILURES: tuple[type[Exception], ...] = (StoreError, sqlalchemy.exc.SQLAlchemyError)


def make_engine(url: str) -> sqlalchemy.Engine:
    """Return an engine for a ``sqlite:///file`` or ``postgresql+psycopg://`` URL."""
    parsed = _parse(url)
    if parsed.drivername in _SQLITE_DRIVERS:
        return _sqlite_engine(parsed)
    if parsed.drivername in _POSTGRES_DRIVERS:
        return sqlalchemy.create_engine(parsed, pool_pre_ping=True)
    raise StoreError(
        f"unsupported database URL {_safe(parsed)!r}: "
        "use sqlite:///path/to/file.sqlite or postgresql+psycopg://user:password@host/dbname"
    )


def is_sqlite(bind: sqlalchemy.Engine | sqlalchemy.Connection) -> bool:
    return bind.dialect.name == "sqlite"


@contextmanager
def write_transaction(conn: sqlalchemy.Connection) -> Iterator[sqlalchemy.Connection]:
    """A transaction that intends to write: ``BEGIN IMMEDIATE`` on SQLite, plain on PostgreSQL.

    Taking SQLite's write lock at BEGIN (waiting up to the busy timeout) avoids the
    deferred-transaction failure where a reader that later writes gets SQLITE_BUSY at once.
    """
    if not is_sqlite(conn):
        with conn.begin():
            yield conn
        return
    conn.execution_options(**{_BEGIN_OPTION: "BEGIN IMMEDIATE"})
    try:
        transaction = conn.begin()  # the "begin" hook reads the option now
    finally:
        conn.execution_options(**{_BEGIN_OPTION: "BEGIN"})
    with transaction:
        yield conn


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except (ArgumentError, ValueError):
        shown = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)  # never print a password
        raise StoreError(
            f"unsupported database URL {shown!r} (it cannot be parsed): use sqlite:/// or "
            "postgresql+psycopg://"
        ) from None


def _safe(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _sqlite_engine(url: URL) -> sqlalchemy.Engine:
    database = url.database
    uri = database is not None and database.startswith("file:") and url.query.get("uri") == "true"
    in_memory = uri and url.query.get("mode") == "memory"
    if not database or database == ":memory:" or database.startswith("file::memory:") or in_memory:
        raise StoreError(
            f"in-memory SQLite ({_safe(url)!r}) is not supported: the event log must survive "
            "a restart; give a file, e.g. sqlite:///var/bingo/hall.sqlite"
        )
    if uri:  # SQLite's URI form: SQLite reads it, nothing is made
        engine = sqlalchemy.create_engine(url)
    else:
        path = Path(database).expanduser()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the directory for SQLite file {path}: {exc}") from None
        engine = sqlalchemy.create_engine(url.set(database=str(path)))
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Autocommit at the driver level: SQLAlchemy's "begin" hook emits BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_on_begin(conn: sqlalchemy.Connection) -> None:
    conn.exec_driver_sql(conn.get_execution_options().get(_BEGIN_OPTION, "BEGIN"))
