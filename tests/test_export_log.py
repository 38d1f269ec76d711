"""`bingo-hall export-log`: the hall's log, its bingo stream and its tables', written for the
regulator and verified by the export's own verify_export.py under Debian's Python, isolated
from this project (`python3 -I`); an export or a store altered afterwards does not verify,
and says where."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import cv2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bingo_hall.hub.table_service import TableService
from bingo_hall.store import EventLog, NewEvent, make_engine
from bingo_hall.store.chain_recipe import verify_export
from bingo_hall.store.export import export_log
from bingo_hall.store.frames import FrameStore
from bingo_hall.tables import commands as c
from bingo_hall.tables.config import load_table_profiles
from bingo_hall.tables.limits import LimitChoice
from bingo_hall.tables.profiles import table_game
from bingo_hall.vision.camera import SimulatedCamera
from support.aio import run_async
from support.cli import STAFF_PASSWORD, add_staff, hall
from support.hub import Client
from support.serve import serving

HALL = "sala-1"  # config/hall.toml's, which the console commands read by default
SYSTEM_PYTHON = "/usr/bin/python3"
NOW = datetime(2026, 12, 2, 21, 0, tzinfo=UTC)


def event(kind: str, **payload: object) -> NewEvent:
    return NewEvent(None, None, kind, dict(payload), NOW, "sala")


def filled_store(folder: Path, url: str | None = None) -> str:
    """A store (by default a SQLite file in `folder`) with the hall's events, a table's
    session, and another hall's event."""
    url = url or f"sqlite:///{folder / 'hall.sqlite'}"
    log = EventLog(make_engine(url))
    log.append(HALL, [event("ball_set_registered", ball_set_id="JB-1", note="ñandú «1»")])
    log.append(HALL, [event("reading", confidence=0.998_412_7, amount="1.50")])
    roulette = table_game(load_table_profiles()["1979"], "french-roulette")
    service = TableService(log, HALL, "R1")
    limits = LimitChoice(minimum=Decimal(5), tier=max(roulette.rules.tiers()))
    opening = c.OpenTable(table_id="R1", table=roulette, limits=limits)
    service.execute(opening, "jmj")
    service.execute(c.CloseTable(seal="P-0042"), "jmj")
    log.append("sala-2", [event("ball_set_registered", ball_set_id="OTHER")])
    log.engine.dispose()
    return url


def verified_by_the_system_python(directory: Path) -> subprocess.CompletedProcess:
    """The export's own verifier, as an inspector runs it: Debian's Python, isolated."""
    return subprocess.run(
        [SYSTEM_PYTHON, "-I", str(directory / "verify_export.py"), str(directory)],
        capture_output=True,
        text=True,
        cwd=directory,
        timeout=60,
    )


def stream_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_export_holds_every_stream_of_the_hall_and_verifies_without_this_system(
    tmp_path, store_url
):
    url = filled_store(tmp_path, store_url)
    out = tmp_path / "inspeccion-2026-12-02"
    done = hall("export-log", "--db", url, "--out", str(out))
    assert done.returncode == 0, done.stderr
    names = sorted(path.name for path in out.iterdir())
    assert names == [
        "MANIFEST.json",
        "SHA256SUMS",
        "sala-1.jsonl",
        "sala-1.tables.R1.jsonl",
        "verify_export.py",
    ]
    log = EventLog(make_engine(url))
    for stream, file in ((HALL, "sala-1.jsonl"), (f"{HALL}/tables/R1", "sala-1.tables.R1.jsonl")):
        stored = [envelope.to_message() for envelope in log.iter_all(stream)]
        assert stream_lines(out / file) == stored  # every event, exactly as stored and hashed
        head_seq, head_hash = log.head(stream)
        assert f"{stream}: {len(stored)} events, last seq {head_seq}, hash {head_hash}: " in (
            done.stdout
        )
    log.engine.dispose()
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert [s["stream"] for s in manifest["streams"]] == [HALL, f"{HALL}/tables/R1"]
    assert all(s["verifies"] and s["problem"] is None for s in manifest["streams"])
    assert "sala-2" not in (out / "sala-1.jsonl").read_text(encoding="utf-8")

    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True)
    assert sums.returncode == 0, sums.stdout
    checked = verified_by_the_system_python(out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1] == "THE EXPORT VERIFIES"
    assert f"{HALL}/tables/R1: 2 events, last seq 2" in checked.stdout

    again = hall("export-log", "--db", url, "--out", str(out))
    assert (again.returncode, again.stdout) == (2, "")
    assert again.stderr.strip().endswith(f"{out} exists: give a new directory for the export")
    missing = hall("export-log", "--db", f"sqlite:///{tmp_path / 'none.sqlite'}", "--out", "x")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def rewrite_sums(directory: Path) -> None:
    """What one who alters an export and knows the sums does to them."""
    listed = [line.split("  ")[1] for line in (directory / "SHA256SUMS").read_text().splitlines()]
    sums = subprocess.run(["sha256sum", *listed], cwd=directory, capture_output=True, text=True)
    (directory / "SHA256SUMS").write_text(sums.stdout)


def test_an_export_altered_afterwards_does_not_verify_and_says_where(tmp_path):
    url = filled_store(tmp_path)
    clean = tmp_path / "export"
    assert hall("export-log", "--db", url, "--out", str(clean)).returncode == 0

    edited = tmp_path / "edited"
    shutil.copytree(clean, edited)
    text = (edited / "sala-1.jsonl").read_text(encoding="utf-8")
    (edited / "sala-1.jsonl").write_text(text.replace('"amount":"1.50"', '"amount":"7.50"'))
    checked = verified_by_the_system_python(edited)
    assert checked.returncode == 1
    assert "sala-1.jsonl: its SHA-256 is not the one SHA256SUMS gives" in checked.stdout
    assert "sala-1: seq 2: hash mismatch" in checked.stdout
    rewrite_sums(edited)
    assert "sala-1: seq 2: hash mismatch" in verified_by_the_system_python(edited).stdout

    cut = tmp_path / "cut"
    shutil.copytree(clean, cut)
    lines = (cut / "sala-1.tables.R1.jsonl").read_text(encoding="utf-8").splitlines(True)
    (cut / "sala-1.tables.R1.jsonl").write_text("".join(lines[:-1]))
    (cut / "notes.txt").write_text("added")
    rewrite_sums(cut)
    checked = verified_by_the_system_python(cut)
    assert checked.returncode == 1 and checked.stdout.splitlines()[-1] == (
        "THE EXPORT DOES NOT VERIFY"
    )
    assert "notes.txt: in the export but not in SHA256SUMS" in checked.stdout
    assert "the head row says the log ends at seq 2" in checked.stdout


def test_a_store_altered_before_the_export_is_exported_as_it_is_and_named(tmp_path):
    url = filled_store(tmp_path)
    with sqlite3.connect(tmp_path / "hall.sqlite") as db:
        db.execute(
            "UPDATE event_log SET payload = ? WHERE hall_id = ? AND seq = 1",
            ('{"ball_set_id":"JB-9","note":"ñandú «1»"}', HALL),
        )
    db.close()
    out = tmp_path / "export"
    done = hall("export-log", "--db", url, "--out", str(out))
    assert done.returncode == 1, done.stderr
    assert "sala-1: 2 events, last seq 2" in done.stdout
    assert "DOES NOT VERIFY: seq 1: hash mismatch" in done.stdout
    assert stream_lines(out / "sala-1.jsonl")[0]["payload"]["ball_set_id"] == "JB-9"  # the evidence
    checked = verified_by_the_system_python(out)
    assert checked.returncode == 1
    assert "sala-1: seq 1: hash mismatch" in checked.stdout
    (table_line,) = [line for line in checked.stdout.splitlines() if line.startswith("sala-1/")]
    assert table_line.endswith(": VERIFIES")  # the table's own chain is whole


PAYLOADS = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.one_of(
        st.text(max_size=20),
        st.integers(-(10**12), 10**12),
        st.decimals(allow_nan=False, allow_infinity=False, places=2).map(str),
        st.booleans(),
        st.none(),
    ),
    max_size=4,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payloads=st.lists(PAYLOADS, min_size=1, max_size=6), data=st.data())
def test_any_one_byte_changed_in_a_stream_file_is_found_even_with_new_sums(
    tmp_path_factory, payloads, data
):
    folder = tmp_path_factory.mktemp("export")
    log = EventLog(make_engine(f"sqlite:///{folder / 'hall.sqlite'}"))
    for payload in payloads:
        log.append(HALL, [event("fact", **payload)])
    out = folder / "out"
    (stream,) = export_log(log, HALL, out, NOW).streams
    log.engine.dispose()
    assert (stream.events, stream.verifies) == (len(payloads), True)
    assert verify_export(out)[0]

    path = out / stream.file
    original = path.read_bytes()
    at = data.draw(st.integers(0, len(original) - 1), label="byte")
    replacement = data.draw(st.integers(0, 255).filter(lambda b: b != original[at]), label="to")
    path.write_bytes(original[:at] + bytes([replacement]) + original[at + 1 :])
    rewrite_sums(out)
    ok, said = verify_export(out)
    assert not ok, said
    assert said[-1].startswith("sala-1: ")


def test_money_in_an_exported_payload_keeps_its_digits(tmp_path):
    """Amounts are decimal strings in the log, and stay so in the export."""
    log = EventLog(make_engine(f"sqlite:///{tmp_path / 'hall.sqlite'}"))
    log.append(HALL, [event("prize", pot=str(Decimal("1234.10")))])
    export_log(log, HALL, tmp_path / "out", NOW)
    (line,) = stream_lines(tmp_path / "out" / "sala-1.jsonl")
    assert line["payload"] == {"pot": "1234.10"}
    log.engine.dispose()


def test_the_frames_the_log_cites_go_with_it_named_by_their_hash(tmp_path):
    """With --frames, every frame an event cites (a call's camera check, a showing of the set)
    is in `frames/` as <sha256>.jpg; one the store lacks is named, and the export does not
    verify; a frame swapped afterwards is found by its name."""
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    log = EventLog(make_engine(url))
    camera = SimulatedCamera(seed=5)
    camera.present(37)
    jpegs = [cv2.imencode(".jpg", frame)[1].tobytes() for frame in camera.frames(2)]
    store = FrameStore(log.engine)
    drawn, shown = (store.put(jpeg, NOW) for jpeg in jpegs)
    lost = "f" * 64  # cited, never stored
    log.append(HALL, [event("ball_drawn", number=37, camera={"frame": drawn, "confidence": 0.99})])
    log.append(HALL, [event("ball_shown_to_camera", showings=[{"ball": 37, "frame": shown}])])
    log.engine.dispose()

    whole = tmp_path / "whole"
    done = hall("export-log", "--db", url, "--out", str(whole), "--frames")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "frames: 2 of the 2 cited" in done.stdout
    assert sorted(p.name for p in (whole / "frames").iterdir()) == sorted(
        f"{digest}.jpg" for digest in (drawn, shown)
    )
    assert (whole / "frames" / f"{drawn}.jpg").read_bytes() == jpegs[0]
    checked = verified_by_the_system_python(whole)
    assert checked.returncode == 0, checked.stdout
    assert "frames: 2 frames cited by the events" in checked.stdout
    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=whole, capture_output=True)
    assert sums.returncode == 0 and b"frames/" in sums.stdout

    swapped = tmp_path / "swapped"
    shutil.copytree(whole, swapped)
    (swapped / "frames" / f"{drawn}.jpg").write_bytes(jpegs[1])
    rewrite_sums(swapped)
    checked = verified_by_the_system_python(swapped)
    assert checked.returncode == 1
    assert f"frames/{drawn}.jpg: its SHA-256 is not its name" in checked.stdout

    log = EventLog(make_engine(url))
    log.append(HALL, [event("ball_drawn", number=8, camera={"frame": lost})])
    log.engine.dispose()
    short = tmp_path / "short"
    done = hall("export-log", "--db", url, "--out", str(short), "--frames")
    assert done.returncode == 1
    assert "frames: 2 of the 3 cited" in done.stdout
    assert f"frame {lost}: cited by the log, not in the store" in done.stdout
    manifest = json.loads((short / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["frames"]["problems"] == [f"frame {lost}: cited by the log, not in the store"]
    checked = verified_by_the_system_python(short)
    assert checked.returncode == 1
    assert f"frames/{lost}.jpg: cited by an event, not in the export" in checked.stdout
    without = tmp_path / "without"
    assert hall("export-log", "--db", url, "--out", str(without)).returncode == 0
    assert not (without / "frames").exists()


def test_an_export_taken_while_the_hub_serves_and_writes_is_whole(tmp_path):
    """The inspector's export is taken while the hall plays: each stream is read in one
    snapshot, so the events a serving hub appends meanwhile are in it whole or not at all."""
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    add_staff(db, "sala1")
    exports: list[subprocess.CompletedProcess] = []
    with serving("--db", db) as hub:
        exported = asyncio.Event()

        async def register(staff: Client) -> None:
            """Ball sets registered one after the other until both exports are written."""
            number = 0
            while not exported.is_set():
                number += 1
                await staff.ok(
                    "register_ball_set",
                    ball_set_id=f"JB-{number}",
                    homologation=f"CNJ-BOLAS-{number:04d}",
                )

        async def export(number: int) -> None:
            command = ("export-log", "--db", db, "--out", str(tmp_path / f"export-{number}"))
            exports.append(await asyncio.to_thread(hall, *command))

        async def scenario() -> None:
            async with Client.login(hub.url, user="sala1", password=STAFF_PASSWORD) as staff:
                await staff.ok("register_ball_set", ball_set_id="JB-0", homologation="CNJ-0")

                async def both() -> None:
                    await asyncio.gather(export(1), export(2))
                    exported.set()

                await asyncio.gather(register(staff), both())

        run_async(scenario(), timeout=120)
    assert [done.returncode for done in exports] == [0, 0], [e.stderr for e in exports]
    log = EventLog(make_engine(db))
    head, _ = log.head(HALL)
    log.engine.dispose()
    for number in (1, 2):
        out = tmp_path / f"export-{number}"
        ok, said = verify_export(out)
        assert ok, said
        lines = stream_lines(out / "sala-1.jsonl")
        manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
        assert manifest["streams"][0]["last_seq"] == len(lines) == lines[-1]["seq"] <= head
