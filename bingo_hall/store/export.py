"""`bingo-hall export-log`: a hall's whole log (the bingo's stream and each casino table's) as
files the regulator can take away and verify without this system.

The export is a directory: a JSON Lines file per stream, each line an event exactly as stored
and hashed (its payload as JSON, its time as stored, its prev_hash and hash); MANIFEST.json
with each stream's head (last seq and hash) and its chain's verdict when exported;
verify_export.py, the chain's recipe and checker (`chain_recipe.py`, standard library only);
SHA256SUMS over every file; and, asked for, the camera frames the events cite (`frames/`, each
named by the SHA-256 of its JPEG). It is written under a temporary name and renamed when
complete, so a directory of that name is always a whole export.

A stream whose chain does not verify is exported all the same, as the evidence it is; the
manifest says where it breaks.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy

from bingo_hall.store import chain_recipe
from bingo_hall.store.chain_recipe import (
    FRAMES,
    MANIFEST,
    SUMS,
    canonical_json,
    cited_frames,
    sums_text,
)
from bingo_hall.store.eventlog import ChainVerifier, EventLog, format_time, stored_fields
from bingo_hall.store.frames import frame_hash

VERIFIER = "verify_export.py"


class ExportError(Exception):
    """The export cannot be written (its directory exists, the hall has no log)."""


@dataclass(frozen=True)
class StreamExport:
    stream: str
    file: str
    events: int  # the lines written: every stored event, whether its link verifies or not
    last_seq: int  # the stream's head when exported
    last_hash: str
    verifies: bool
    problem: str | None


def hall_streams(log: EventLog, hall_id: str) -> list[str]:
    """The hall's own stream and its tables' (``hall/tables/ID``), in name order."""
    return [name for name in log.halls() if name == hall_id or name.startswith(f"{hall_id}/")]


def _line(row: sqlalchemy.Row[Any]) -> dict[str, Any]:
    """An event as stored; a payload that is not JSON any more (an altered store) is kept as
    its text, for the verifier to reject."""
    try:
        payload: Any = json.loads(row.payload)
    except ValueError:
        payload = row.payload
    return stored_fields(row) | {"payload": payload}


def _export_stream(log: EventLog, stream: str, path: Path, cited: set[str]) -> StreamExport:
    """One stream's file; the frames its events cite go into `cited`."""
    verifier = ChainVerifier()
    events = 0
    with log.snapshot_rows(stream) as ((head_seq, head_hash), rows), path.open("w") as out:
        for row in rows:
            line = _line(row)
            out.write(canonical_json(line) + "\n")
            cited.update(cited_frames(line["payload"]))
            events += 1
            if verifier.problem is None:
                verifier.check_row(row)
    if verifier.problem is None:
        verifier.check_head(head_seq, head_hash)
    return StreamExport(
        stream, path.name, events, head_seq, head_hash, verifier.problem is None, verifier.problem
    )


def _export_frames(
    cited: set[str], fetch: Callable[[str], bytes | None], folder: Path
) -> tuple[int, list[str]]:
    """Each cited frame as `folder/<sha256>.jpg`; how many were written, and the problems (a
    frame not in the store, or whose bytes changed)."""
    folder.mkdir()
    written, problems = 0, []
    for digest in sorted(cited):
        jpeg = fetch(digest)
        if jpeg is None:
            problems.append(f"frame {digest}: cited by the log, not in the store")
        elif frame_hash(jpeg) != digest:
            problems.append(f"frame {digest}: its stored bytes hash to {frame_hash(jpeg)}")
        else:
            (folder / f"{digest}.jpg").write_bytes(jpeg)
            written += 1
    return written, problems


@dataclass(frozen=True)
class Export:
    streams: list[StreamExport]
    frames: dict[str, Any] | None  # None: not asked for; else cited, written, problems

    @property
    def whole(self) -> bool:
        """Every stream verifies and every frame asked for was written."""
        frames_whole = self.frames is None or not self.frames["problems"]
        return frames_whole and all(stream.verifies for stream in self.streams)


def export_log(
    log: EventLog,
    hall_id: str,
    directory: Path,
    exported_at: datetime,
    frames: Callable[[str], bytes | None] | None = None,
) -> Export:
    """Write the hall's export to `directory`, which must not exist; `frames`: where to fetch
    the frames the log cites (None: no frames)."""
    if directory.exists():
        raise ExportError(f"{directory} exists: give a new directory for the export")
    streams = hall_streams(log, hall_id)
    if not streams:
        raise ExportError(f"hall {hall_id} has no events in this store")
    partial = directory.with_name(f".{directory.name}.partial-{os.getpid()}")
    partial.mkdir(parents=True)
    try:
        cited: set[str] = set()
        exported = [
            _export_stream(log, stream, partial / f"{stream.replace('/', '.')}.jsonl", cited)
            for stream in streams
        ]
        frames_said = None
        if frames is not None:
            written, problems = _export_frames(cited, frames, partial / FRAMES)
            frames_said = {"cited": len(cited), "written": written, "problems": problems}
        manifest = {
            "hall": hall_id,
            "exported_at": format_time(exported_at),
            "recipe": (
                "each event's hash is SHA-256 of the canonical JSON (keys sorted, no spaces, "
                f"UTF-8) of {', '.join(chain_recipe.HASHED)}; the first prev_hash is 64 zeros. "
                f"Check it all with: python3 {VERIFIER} DIRECTORY"
            ),
            "streams": [asdict(stream) for stream in exported],
            "frames": frames_said,
        }
        (partial / MANIFEST).write_text(
            json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        shutil.copyfile(chain_recipe.__file__, partial / VERIFIER)
        (partial / SUMS).write_text(sums_text(partial), encoding="utf-8")
        partial.rename(directory)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return Export(exported, frames_said)
