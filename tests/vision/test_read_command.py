"""`bingo-hall vision read` through a real subprocess: one JSON line per image, a reason for
every frame without a number, a one-line error for a missing file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import cv2
import numpy as np

from bingo_hall.vision.camera import SimulatedCamera
from support.cli import hall


def read(*paths: Path) -> subprocess.CompletedProcess[str]:
    return hall("vision", "read", *map(str, paths))


def test_each_image_gets_a_line_and_frames_without_a_number_say_why(tmp_path):
    camera = SimulatedCamera(seed=7)
    camera.present(None)
    empty_exit = tmp_path / "empty-exit.png"
    cv2.imwrite(str(empty_exit), camera.frames(1)[0])
    camera.present(42)
    ball = tmp_path / "ball.png"
    cv2.imwrite(str(ball), camera.frames(1)[0])
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((480, 640, 3), np.uint8))
    garbage = tmp_path / "garbage.jpg"
    garbage.write_bytes(b"this is not an image")

    done = read(ball, empty_exit, black, garbage)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(p) for p in (ball, empty_exit, black, garbage)]
    for line in lines:
        assert set(line) >= {"image", "number", "confidence", "guess", "reason"}
        assert (line["number"] is None) == (line["reason"] is not None)
        assert 0.0 <= line["confidence"] <= 1.0
    assert lines[0]["number"] in (42, None) and lines[0]["guess"] == 42
    assert lines[1]["number"] is None and lines[1]["reason"] == "no_ball"
    assert lines[2]["number"] is None and lines[2]["reason"] in ("no_ball", "unreadable")
    assert lines[3]["number"] is None and lines[3]["reason"] == "unreadable"


def test_a_missing_file_is_a_one_line_error(tmp_path):
    done = read(tmp_path / "nowhere.png")
    assert done.returncode != 0
    assert "nowhere.png" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
