"""The frames an acta cites: each once, under a name a person can follow, checked against
the hash the acta cites before it is written."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from bingo_hall.acta.frames_export import (
    cited_frames,
    export_frames,
    make_frames_directory,
    unmake,
)

JPEGS = {name: f"jpeg of {name}".encode() for name in ("first", "held", "voided")}
HASH = {name: hashlib.sha256(data).hexdigest() for name, data in JPEGS.items()}


def camera(frame: str | None) -> dict:
    return {"reading": None, "guess": None, "confidence": 0.0, "reason": "unsure", "frame": frame}


def ball(ordinal: int, number: int, frame: str | None) -> dict:
    return {"ordinal": ordinal, "number": number, "camera": camera(frame) if frame else None}


def hold(ordinal: int, called: int, frame: str) -> dict:
    return {"ordinal": ordinal, "called": called, "camera": camera(frame)}


ACTA = {
    "session": {
        "games": [
            {
                "game_id": 4,
                # ball 2 was held and confirmed: the hold and the ball cite one frame
                "balls": [ball(1, 7, HASH["first"]), ball(2, 45, HASH["held"]), ball(3, 9, None)],
                "holds": [hold(2, 45, HASH["held"])],
            },
            # a game voided while ball 1 was held: only the hold cites its frame
            {"game_id": 5, "balls": [], "holds": [hold(1, 88, HASH["voided"])]},
        ]
    }
}


def test_each_cited_frame_is_named_once_after_its_game_and_ball():
    assert [(c.name, c.sha256) for c in cited_frames(ACTA)] == [
        ("partida-4-bola-01-07.jpg", HASH["first"]),
        ("partida-4-bola-02-45.jpg", HASH["held"]),
        ("partida-5-retenida-01-cantada-88.jpg", HASH["voided"]),
    ]
    assert cited_frames({"session": None}) == []


def test_frames_are_written_with_sums_that_sha256sum_checks(tmp_path):
    stored = {HASH[name]: data for name, data in JPEGS.items()}
    assert export_frames(cited_frames(ACTA), stored.get, tmp_path / "out") == []
    assert (tmp_path / "out" / "partida-5-retenida-01-cantada-88.jpg").read_bytes() == JPEGS[
        "voided"
    ]
    checked = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path / "out")
    assert checked.returncode == 0


def test_a_missing_or_changed_frame_is_reported_and_not_written(tmp_path):
    stored = {HASH["first"]: JPEGS["first"] + b"!", HASH["voided"]: JPEGS["voided"]}
    problems = export_frames(cited_frames(ACTA), stored.get, tmp_path)
    assert problems == [
        f"game 4, ball 1 (7): the stored frame {HASH['first']} was altered (its bytes hash to "
        f"{hashlib.sha256(JPEGS['first'] + b'!').hexdigest()})",
        f"game 4, ball 2 (45): frame {HASH['held']} is not in the store",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "SHA256SUMS",
        "partida-5-retenida-01-cantada-88.jpg",
    ]


def test_the_frames_go_in_a_new_or_empty_directory(tmp_path):
    made = make_frames_directory(tmp_path / "new" / "frames")  # made before anything is printed
    assert (tmp_path / "new" / "frames").is_dir()
    assert made == [tmp_path / "new" / "frames", tmp_path / "new"]
    assert make_frames_directory(tmp_path / "new" / "frames") == []  # empty: still fine
    unmake(made)  # the acta refused after all: nothing left
    assert not (tmp_path / "new").exists()
    (tmp_path / "kept.txt").write_text("other files")
    with pytest.raises(ValueError, match="is not an empty directory"):
        make_frames_directory(tmp_path)
    with pytest.raises(ValueError, match="is not an empty directory"):
        make_frames_directory(tmp_path / "kept.txt")
    with pytest.raises(ValueError, match="cannot write the frames in /proc/frames"):
        make_frames_directory(Path("/proc/frames"))
