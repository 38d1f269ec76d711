"""A new SQLite store a refused console command made is removed, and nothing else is: not a
store a hub holds, not one with a row in it, not one reached through a symbolic link."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from bingo_hall.store import make_engine
from bingo_hall.store.instance_lock import take_instance_lock
from bingo_hall.store.new_files import NewStoreFiles


def url(path: Path) -> str:
    return f"sqlite:///{path}"


def empty_store(path: Path) -> None:
    with closing(sqlite3.connect(path)) as store:
        store.execute("CREATE TABLE notes (text TEXT)")


def test_a_new_store_that_holds_nothing_is_removed_with_the_folders_made_for_it(tmp_path):
    path = tmp_path / "typo" / "deep" / "hall.sqlite"
    made = NewStoreFiles()
    made.note(url(path))
    path.parent.mkdir(parents=True)
    empty_store(path)
    assert made.remove_unused() == [path]
    assert list(tmp_path.iterdir()) == []


def test_a_new_store_a_hub_holds_is_kept(tmp_path):
    """A hub that started on the new store (its lock held) keeps it, empty or not: the hub
    writes on, and its facts would go to a file nobody can open."""
    path = tmp_path / "hall.sqlite"
    made = NewStoreFiles()
    made.note(url(path))
    engine = make_engine(url(path))
    lock = take_instance_lock(engine, "serve")
    try:
        assert made.remove_unused() == []
        assert path.is_file()
    finally:
        lock.release()
        engine.dispose()


def test_a_new_store_with_a_row_is_kept(tmp_path):
    path = tmp_path / "hall.sqlite"
    made = NewStoreFiles()
    made.note(url(path))
    empty_store(path)
    with closing(sqlite3.connect(path)) as store, store:
        store.execute("INSERT INTO notes VALUES ('un hecho')")
    assert made.remove_unused() == []
    assert path.is_file()


def test_a_store_there_before_or_behind_a_symbolic_link_is_never_new(tmp_path):
    there = tmp_path / "there.sqlite"
    empty_store(there)
    dangling = tmp_path / "link.sqlite"
    dangling.symlink_to(tmp_path / "elsewhere" / "hall.sqlite")
    made = NewStoreFiles()
    made.note(url(there))
    made.note(url(dangling))
    (tmp_path / "elsewhere").mkdir()
    empty_store(tmp_path / "elsewhere" / "hall.sqlite")
    assert made.remove_unused() == []
    assert there.is_file() and dangling.is_symlink() and dangling.resolve().is_file()
