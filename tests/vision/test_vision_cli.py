"""`bingo-hall vision read` as a user runs it: a real subprocess on real image files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from bingo_hall.vision.render import render_ball
from bingo_hall.vision.styles import HELD_OUT

REPO = Path(__file__).resolve().parents[2]
BINGO_HALL = Path(sys.executable).parent / "bingo-hall"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BINGO_HALL), *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_read_prints_one_json_line_per_image(tmp_path: Path) -> None:
    rng = np.random.default_rng(31)
    ball = tmp_path / "ball.png"
    cv2.imwrite(str(ball), render_ball(27, rng, HELD_OUT))
    jpeg = tmp_path / "ball.jpg"
    cv2.imwrite(str(jpeg), render_ball(6, rng, HELD_OUT))
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), render_ball(None, rng, HELD_OUT))
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"\x89PNG but not really" * 50)
    zero = tmp_path / "zero.jpg"
    zero.write_bytes(b"")
    result = run("vision", "read", str(ball), str(jpeg), str(empty), str(garbage), str(zero))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["image"] for line in lines] == [
        str(ball),
        str(jpeg),
        str(empty),
        str(garbage),
        str(zero),
    ]
    assert all(set(line) == {"image", "number", "confidence", "guess", "reason"} for line in lines)
    for line, ball in zip(lines[:2], (27, 6), strict=True):
        assert line["guess"] == ball and line["number"] in (None, ball)
        if line["number"] is None:
            assert line["reason"] == "unsure"
        else:
            assert line["reason"] is None and line["confidence"] >= 0.99
    assert lines[2] == {
        "image": str(empty),
        "number": None,
        "confidence": 0.0,
        "guess": None,
        "reason": "no_ball",
    }
    for line in lines[3:]:
        assert line["number"] is None and line["reason"] == "unreadable"


def test_candidates_option(tmp_path: Path) -> None:
    ball = tmp_path / "ball.png"
    cv2.imwrite(str(ball), render_ball(44, np.random.default_rng(32), HELD_OUT))
    result = run("vision", "read", "--candidates", "44", str(ball))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["number"] == 44
    other = run("vision", "read", "--candidates", "12", str(ball))  # 44 is already out
    assert other.returncode == 0, other.stderr
    reading = json.loads(other.stdout)
    assert (reading["number"], reading["guess"], reading["reason"]) == (None, 44, "unsure")
    bad = run("vision", "read", "--candidates", "44,99", str(ball))
    assert bad.returncode != 0 and "99" in bad.stderr and "Traceback" not in bad.stderr
    for given, message in ((",", "no ball given"), ("\u0664\u0664", "not a list of numbers")):
        refused = run("vision", "read", "--candidates", given, str(ball))  # , and ٤٤
        assert refused.returncode == 2 and message in refused.stderr, refused.stderr
        assert refused.stdout == ""


def test_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.png"
    result = run("vision", "read", str(missing))
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere.png" in lines[0]


def test_an_image_it_may_not_read_is_a_one_line_error(tmp_path: Path) -> None:
    """A file there but not readable by the user (as root, the check runs as nobody): one
    line naming it, no traceback, nothing printed for any image."""
    locked = tmp_path / "locked.png"
    cv2.imwrite(str(locked), render_ball(44, np.random.default_rng(32), HELD_OUT))
    locked.chmod(0o600 if os.geteuid() == 0 else 0)
    tmp_path.chmod(0o755)
    as_user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    command = [*(as_user if os.geteuid() == 0 else []), str(BINGO_HALL), "vision", "read"]
    result = subprocess.run(
        [*command, str(locked)], cwd="/", capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and result.stdout == "", result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == [f"bingo-hall: error: {locked}: cannot read it (permission denied)"]


def test_help() -> None:
    for args in (("vision", "--help"), ("vision", "read", "--help")):
        result = run(*args)
        assert result.returncode == 0
        assert "read" in result.stdout
