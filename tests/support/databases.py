"""Fresh, empty, real databases for tests: a SQLite file or a new PostgreSQL database.

Usable outside pytest too (e.g. to hand a URL to a subprocess)::

    with fresh_database_url("postgresql") as url:
        ...  # dispose every engine on ``url`` before leaving the block
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import sqlalchemy
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError

DEFAULT_PG_ADMIN_URL = "postgresql+psycopg://bingo:bingo@127.0.0.1:5432/postgres"
DatabaseKind = Literal["sqlite", "postgresql"]
KINDS: tuple[DatabaseKind, ...] = ("sqlite", "postgresql")


class DatabaseUnavailable(RuntimeError):
    """The test database server cannot be reached or refuses to create a database."""


def pg_admin_url() -> URL:
    return make_url(os.environ.get("BINGO_TEST_PG_ADMIN_URL", DEFAULT_PG_ADMIN_URL))


@contextmanager
def fresh_database_url(kind: DatabaseKind, directory: Path | None = None) -> Iterator[str]:
    """Yield the URL of a new empty database of ``kind``; remove it afterwards.

    sqlite: a file in ``directory`` (default: a temporary directory removed afterwards).
    postgresql: a database with a random name on the server of ``BINGO_TEST_PG_ADMIN_URL``,
    dropped (WITH FORCE) afterwards. Raises DatabaseUnavailable if the server is unreachable.
    """
    if kind == "sqlite":
        with _sqlite_url(directory) as url:
            yield url
    elif kind == "postgresql":
        with _postgresql_url() as url:
            yield url
    else:
        raise ValueError(f"unknown database kind {kind!r}: use one of {', '.join(KINDS)}")


@contextmanager
def _sqlite_url(directory: Path | None) -> Iterator[str]:
    owned = directory is None
    folder = Path(tempfile.mkdtemp(prefix="bingo-test-")) if directory is None else directory
    try:
        yield f"sqlite:///{folder / f'store-{uuid.uuid4().hex[:8]}.sqlite'}"
    finally:
        if owned:
            shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _postgresql_url() -> Iterator[str]:
    admin_url = pg_admin_url()
    name = f"bingo_test_{uuid.uuid4().hex[:16]}"
    admin = sqlalchemy.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        _execute(admin, f'CREATE DATABASE "{name}"', admin_url)
        try:
            yield admin_url.set(database=name).render_as_string(hide_password=False)
        finally:
            _execute(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', admin_url)
    finally:
        admin.dispose()


def _execute(admin: sqlalchemy.Engine, statement: str, admin_url: URL) -> None:
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(statement)
    except SQLAlchemyError as exc:
        where = admin_url.render_as_string(hide_password=True)
        raise DatabaseUnavailable(
            f"PostgreSQL test server at {where} failed on {statement!r}: "
            f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}. Start it with "
            "scripts/ensure-services.sh (role bingo/bingo with CREATEDB) or point "
            "BINGO_TEST_PG_ADMIN_URL at a server where you may create databases."
        ) from exc


@contextmanager
def postgresql_unreachable(url: str) -> Iterator[None]:
    """The PostgreSQL database of `url` refuses connections, and those open are cut, until the
    block ends: what a hub sees when its database server goes away."""
    admin_url = pg_admin_url()
    name = make_url(url).database
    admin = sqlalchemy.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        _execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false', admin_url)
        _execute(
            admin,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()",
            admin_url,
        )
        yield
    finally:
        _execute(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true', admin_url)
        admin.dispose()
