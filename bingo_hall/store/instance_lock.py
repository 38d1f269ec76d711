"""One hub per store: the lock `bingo-hall serve` (and the demo) holds for its whole life.

Why: the log's expected-seq check keeps two writers from forking the hash chain, but two hubs
on one store both accept commands, each on a state the other keeps making stale, and their MQTT
bridges log in under the same client ids (`bingo-hub-<hall>`, `…-table-<id>`), so the broker
throws each off for the other, in a loop. Nothing in the log can prevent that; a lock the
operating system or the database releases when the process dies (kill -9 included) can:

- SQLite: `flock(LOCK_EX | LOCK_NB)` on `<database file>.serve.lock`, beside the file SQLite
  itself reports it opened (so a `file:` URI, a relative path or a symlink name the same lock).
  The file is never deleted (deleting a lock file races with the next process that opens it);
  the holder writes who it is into it, for the refusal to name.
- PostgreSQL: a session-level `pg_try_advisory_lock` on a fixed key (advisory locks belong to
  one database) on a connection of its own, kept open and idle, outside any transaction. The
  server drops the lock with the connection; a thread looks at it every few seconds and, if
  the connection is gone (a PostgreSQL restart), says so once and takes the lock again as soon
  as it can, without stopping the hub.

Other console commands (user-add, acta, import-series, …) do not take it: they run beside a
hub by design, and the expected-seq check orders their appends with the hub's.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Protocol

import sqlalchemy
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from bingo_hall.store.database import StoreError, is_sqlite

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".serve.lock"
# The advisory lock's key: 63 bits of a hash of a fixed name, so no other application's key
# is likely to meet it. pg_locks shows it as classid (high 32 bits) and objid (low 32 bits).
LOCK_KEY = int.from_bytes(hashlib.sha256(b"bingo-hall: one hub per store").digest()[:8]) >> 1
CHECK_SECONDS = 2.0
_SERVER_KEEPALIVES = (
    "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"
)

_TRY_LOCK = sqlalchemy.text("SELECT pg_try_advisory_lock(:key)")
_LOCK_ROWS = """
    SELECT {what} FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.classid = :high AND l.objid = :low
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
_HELD_HERE = sqlalchemy.text(
    f"SELECT EXISTS ({_LOCK_ROWS.format(what='1')} AND l.pid = pg_backend_pid())"
)
_HOLDER = sqlalchemy.text(
    _LOCK_ROWS.format(
        what="(SELECT a.application_name FROM pg_stat_activity a WHERE a.pid = l.pid)"
    )
)
_KEY_PARTS = {"high": LOCK_KEY >> 32, "low": LOCK_KEY & 0xFFFFFFFF}


class StoreInUse(StoreError):
    """Another process (a hub, or a demo) holds the store's lock."""

    def __init__(self, store: str, holder: str | None) -> None:
        self.store = store
        self.holder = holder or "which process is not known"
        super().__init__(f"another hub is serving the store {store} ({self.holder})")


class InstanceLock(Protocol):
    store: str

    @property
    def held(self) -> bool: ...

    def release(self) -> None: ...


def take_instance_lock(
    engine: sqlalchemy.Engine, role: str, check_seconds: float = CHECK_SECONDS
) -> InstanceLock:
    """The store's single-instance lock for `role` ("serve", "demo"), held until `release()`
    or the process's end. Raises StoreInUse if another process holds it, StoreError if the
    lock cannot be taken (and SQLAlchemyError if the store cannot be reached)."""
    store = engine.url.render_as_string(hide_password=True)
    label = _label(role)
    if is_sqlite(engine):
        return FileLock(_lock_file(engine), store, label)
    return AdvisoryLock(engine.url, store, label, check_seconds)


def _label(role: str) -> str:
    """Who holds the lock, as the refused process says it; at most 63 characters (what
    PostgreSQL keeps of an application_name)."""
    return f"bingo-hall {role}, pid {os.getpid()} on {socket.gethostname()}"[:63]


def _lock_file(engine: sqlalchemy.Engine) -> Path:
    """`<database file>.serve.lock`, the file as SQLite itself opened it."""
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("PRAGMA database_list").all()
    path = next((row[2] for row in rows if row[1] == "main"), "")
    if not path:
        raise StoreError(f"the store {engine.url} has no file to lock beside it")
    return Path(Path(path).resolve().as_posix() + LOCK_SUFFIX)


class FileLock:
    """flock on a file beside the SQLite database; the kernel releases it with the process."""

    def __init__(self, path: Path, store: str, label: str) -> None:
        self.store, self.path = store, path
        try:
            self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            writable = True
        except PermissionError:  # made by another user: locking it needs no write access
            self._fd, writable = _open_existing(path), False
        except OSError as error:
            raise StoreError(f"cannot make the lock file {path}: {error.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise StoreInUse(store, _read_holder(path)) from None
        except OSError as error:
            os.close(self._fd)
            raise StoreError(f"cannot lock {path}: {error.strerror}") from None
        if writable:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{label}\n".encode(), 0)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the file stays: deleting a lock file races
            self._fd = None


def _open_existing(path: Path) -> int:
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        raise StoreError(f"cannot open the lock file {path}: {error.strerror}") from None


def _read_holder(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip() or None
    except OSError:
        return None


class AdvisoryLock:
    """A PostgreSQL session-level advisory lock on a connection of its own, watched."""

    def __init__(self, url: sqlalchemy.URL, store: str, label: str, check_seconds: float) -> None:
        self.store, self._check_seconds = store, check_seconds
        self._engine = sqlalchemy.create_engine(
            url,
            poolclass=NullPool,
            isolation_level="AUTOCOMMIT",  # idle between checks, never "idle in transaction"
            connect_args={
                "application_name": label,
                "connect_timeout": 5,
                # a network that drops the server without a word: the checks fail in seconds
                "keepalives": 1,
                "keepalives_idle": 10,
                "keepalives_interval": 5,
                "keepalives_count": 3,
                "tcp_user_timeout": 15_000,
                # and the server's side: a hub whose machine lost its power lets the lock go
                # within a minute, not the system's two hours, for its replacement to start
                "options": " ".join(filter(None, (_SERVER_KEEPALIVES, url.query.get("options")))),
            },
        )
        self._conn: sqlalchemy.Connection | None = self._engine.connect()
        try:
            taken = self._conn.execute(_TRY_LOCK, {"key": LOCK_KEY}).scalar()
            holder = None if taken else self._conn.execute(_HOLDER, _KEY_PARTS).scalar()
        except BaseException:
            self._close_connection()
            self._engine.dispose()
            raise
        if not taken:
            self._close_connection()
            self._engine.dispose()
            raise StoreInUse(store, holder)
        self._state = "held"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="store-lock", daemon=True)
        self._thread.start()

    @property
    def held(self) -> bool:
        return self._state == "held"

    def release(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(timeout=30)
        self._close_connection()  # the session ends: the server drops the lock
        self._engine.dispose()
        self._state = "released"

    def _watch(self) -> None:
        while not self._stop.wait(self._check_seconds):
            try:
                self._check()
            except Exception:  # the watch never stops the hub, nor itself
                logger.exception("the watch of this hub's lock on the store %s failed", self.store)

    def _check(self) -> None:
        """Is the lock still ours? If its connection is gone, take it again when possible."""
        if self._conn is not None:
            try:
                if self._conn.execute(_HELD_HERE, _KEY_PARTS).scalar():
                    self._now("held")
                    return
            except SQLAlchemyError as error:
                self._close_connection()
                self._now("lost", _first_line(error))
        if self._conn is None:
            try:
                self._conn = self._engine.connect()
            except SQLAlchemyError:
                return  # still away: said once when it went
        try:
            taken = self._conn.execute(_TRY_LOCK, {"key": LOCK_KEY}).scalar()
            holder = None if taken else self._conn.execute(_HOLDER, _KEY_PARTS).scalar()
        except SQLAlchemyError:
            self._close_connection()
            return
        if taken:
            self._now("held")
        else:
            self._now("elsewhere", holder or "which process is not known")

    def _now(self, state: str, detail: str = "") -> None:
        """The lock's new state, said once when it changes."""
        if state == self._state:
            return
        before, self._state = self._state, state
        if state == "lost":
            logger.warning(
                "the connection that holds this hub's lock on the store %s was lost (%s): "
                "another hub could start on it; taking the lock again as soon as PostgreSQL "
                "answers, every %g s",
                self.store,
                detail,
                self._check_seconds,
            )
        elif state == "elsewhere":
            logger.error(
                "another process took the store %s while this hub's lock on it was lost (%s): "
                "two hubs are serving it; stop one of them (this hub takes the lock when the "
                "other lets it go)",
                self.store,
                detail,
            )
        elif before != "held":
            logger.warning("this hub holds its lock on the store %s again", self.store)

    def _close_connection(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None


def _first_line(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__
