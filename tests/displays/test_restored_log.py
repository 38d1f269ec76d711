"""A hall's log restored from an older copy under screens that saw more: the hub refuses to
resume them past its log (`not_in_log`), and a monitor starts again from the log, showing
what the log holds and then the new branch's balls, never the lost ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from playwright.sync_api import expect

from support.browser import HubProcess, PreparedHall, chromium, given_by, page_in


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite store, as an online backup makes."""
    with sqlite3.connect(source) as live, sqlite3.connect(target) as copy:
        live.backup(copy)


def test_a_monitor_that_saw_past_a_restored_log_starts_again_from_the_log(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    hall.prepare()
    hub = HubProcess(hall)
    hub.start()
    store = Path(hall.db_url.removeprefix("sqlite:///"))
    backup = tmp_path / "backup.sqlite"
    try:
        given_by(hub, "sala", ("open_sale", {}))
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 10}))
        given_by(hub, "sala", ("close_sale", {}), ("announce_prizes", {}), ("start_draw", {}))
        given_by(hub, "locutor", ("draw_ball", {}))
        _copy(store, backup)  # the copy the log will be restored from: one ball
        with chromium() as browser:
            _, panel = page_in(browser, 1280, 720)
            panel.goto(f"{hub.base}/monitor#token={hall.tokens['mon-1']}")
            expect(panel.locator("#m-conn")).to_have_attribute("data-state", "live")
            given_by(hub, "locutor", ("draw_ball", {}), ("draw_ball", {}))
            expect(panel.locator("#m-count")).to_have_text("3")

            hub.stop()  # the store fails; the hall restores its older copy
            for leftover in (
                store.with_name(store.name + "-wal"),
                store.with_name(store.name + "-shm"),
            ):
                leftover.unlink(missing_ok=True)
            _copy(backup, store)
            hub.start()
            expect(panel.locator("#m-conn")).to_have_attribute("data-state", "live", timeout=20_000)
            expect(panel.locator("#m-count")).to_have_text("1")
            expect(panel.locator(".m-board .cell.drawn")).to_have_count(1)
            given_by(hub, "locutor", ("draw_ball", {}))  # the new branch's second ball
            expect(panel.locator("#m-count")).to_have_text("2")
            assert panel.errors == []  # type: ignore[attr-defined]
    finally:
        hub.stop()
