"""SQLite store files a console command created, removed again when the command is refused.

`user-add`, `device-add`, `import-series`, `serve` and the demo make the hall's store when it is
not there yet: that is how a hall starts. A mistyped `--db` would make one too, and a refused
command (a weak password, a busy port) would leave that empty store behind. A command notes the
files it is about to create; when it is refused, the ones that hold no row are removed, with
SQLite's journals and the hub's lock file beside them.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlalchemy

from bingo_hall.store.instance_lock import LOCK_SUFFIX

COMPANIONS = ("-journal", "-wal", "-shm", LOCK_SUFFIX)  # what SQLite and the hub add beside it


def sqlite_file(url: str) -> Path | None:
    """The file of a ``sqlite:///`` URL; None for another database, memory or SQLite's URI
    mode (whose file SQLite names itself)."""
    try:
        parsed = sqlalchemy.engine.make_url(url)
    except sqlalchemy.exc.ArgumentError:
        return None
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or not database:
        return None
    if database.startswith((":memory:", "file:")):
        return None
    return Path(database).expanduser()


class NewStoreFiles:
    """The SQLite files a command made; `remove_unused` when the command is refused."""

    def __init__(self) -> None:
        self._made: list[Path] = []

    def note(self, url: str) -> None:
        """Call before the store at `url` is opened: if its file is not there, it is new."""
        path = sqlite_file(url)
        if path is not None and not path.exists() and path not in self._made:
            self._made.append(path)

    def remove_unused(self) -> list[Path]:
        """Remove each new file that holds no row (and its companions); the ones removed."""
        removed = []
        for path in self._made:
            if path.is_file() and holds_nothing(path):
                for companion in (path, *(Path(f"{path}{suffix}") for suffix in COMPANIONS)):
                    companion.unlink(missing_ok=True)
                removed.append(path)
        self._made.clear()
        return removed

    def forget(self) -> None:
        self._made.clear()


def holds_nothing(path: Path) -> bool:
    """Whether the SQLite file at `path` has no row in any table; False when it cannot be
    read (a file that cannot be checked is kept)."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        quoted = ('"' + name.replace('"', '""') + '"' for name in tables)
        return not any(
            connection.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() for table in quoted
        )
    except sqlite3.Error:
        return False
    finally:
        connection.close()
