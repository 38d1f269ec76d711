"""SQLite store files a console command created, removed again when the command is refused.

`user-add`, `device-add`, `import-series`, `serve` and the demo make the hall's store when it is
not there yet: that is how a hall starts. A mistyped `--db` would make one too, and a refused
command (a weak password, a busy port) would leave that empty store behind. A command notes the
files it is about to create; when it is refused, each one that still holds no row, and that no
hub holds (its `.serve.lock`), is removed with SQLite's journals and the folders the command
made for it. The lock file itself stays: a lock file is never deleted (store/instance_lock.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy

from bingo_hall.store.instance_lock import LOCK_SUFFIX

JOURNALS = ("-journal", "-wal", "-shm")


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


@dataclass(frozen=True)
class _NewFile:
    path: Path
    made_from: Path  # the outermost folder that was not there either (or the file's own)


class NewStoreFiles:
    """The SQLite files a command made; `remove_unused` when the command is refused."""

    def __init__(self) -> None:
        self._made: list[_NewFile] = []

    def note(self, url: str) -> None:
        """Call before the store at `url` is opened: if nothing is at its path (not even a
        symbolic link), the file is new."""
        path = sqlite_file(url)
        if path is None or os.path.lexists(path) or any(f.path == path for f in self._made):
            return
        made_from = path
        while not os.path.lexists(made_from.parent) and made_from.parent != made_from:
            made_from = made_from.parent
        self._made.append(_NewFile(path, made_from))

    def remove_unused(self) -> list[Path]:
        """Remove each new file that holds no row and that no hub holds; the ones removed."""
        removed = []
        for new in self._made:
            with _unheld(new.path) as free:
                ours = new.path.is_file() and not new.path.is_symlink()
                if free and ours and holds_nothing(new.path):
                    for suffix in ("", *JOURNALS):
                        Path(f"{new.path}{suffix}").unlink(missing_ok=True)
                    removed.append(new.path)
            if new.path in removed:
                _remove_made_folders(new)
        self._made.clear()
        return removed

    def forget(self) -> None:
        self._made.clear()


@contextlib.contextmanager
def _unheld(path: Path) -> Iterator[bool]:
    """Whether no hub holds the store at `path`; its lock file, if there is one, is held
    meanwhile, so that no hub starts on the store while it is removed."""
    try:
        fd: int | None = os.open(f"{path.resolve()}{LOCK_SUFFIX}", os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        fd = None
    except OSError:  # a lock file that cannot be opened: a hub may hold it
        yield False
        return
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a hub (or a demo) runs on the store
                yield False
                return
        yield True
    finally:
        if fd is not None:
            os.close(fd)


def _remove_made_folders(new: _NewFile) -> None:
    """The folders made for the file, innermost first, each only if now empty."""
    folder = new.path.parent
    while new.made_from != new.path and folder != new.made_from.parent:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


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
