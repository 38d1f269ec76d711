"""`bingo-hall commission-ball-set`: every ball of a set shown to the hall's camera, keyed by
the staff with a real camera (here OpenCV reading a video file of the balls), shown by the hub
with the simulated one; the verdict is recorded and decides whether the camera confirms calls."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from bingo_hall.domain.commands import RegisterBallSet, ShowBallToCamera
from bingo_hall.domain.events import CameraCheck
from bingo_hall.hub.service import HallService
from bingo_hall.vision.camera import SimulatedCamera
from bingo_hall.vision.styles import HELD_OUT
from support.cli import hall, hall_config
from support.demo import open_log

HALL_ID = "sala-1"
FRAMES_PER_BALL = 3


def store_with_a_set(folder: Path) -> str:
    url = f"sqlite:///{folder / 'hall.sqlite'}"
    log = open_log(url)
    try:
        HallService(log, HALL_ID).execute(
            RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"), actor="sala"
        )
    finally:
        log.engine.dispose()
    return url


def commission(config: Path, url: str, *args: str, stdin: str = ""):
    """`bingo-hall commission-ball-set` on the store `url` with the hall's `config`."""
    return hall("commission-ball-set", "--config", str(config), "--db", url, *args, stdin=stdin)


def recorded(url: str) -> list[dict]:
    log = open_log(url)
    try:
        return [e.payload for e in log.iter_all(HALL_ID) if e.type == "ball_set_commissioned"]
    finally:
        log.engine.dispose()


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> str:
    return str(video_of_the_set(tmp_path_factory.mktemp("camera") / "exit.avi"))


def video_of_the_set(path: Path) -> Path:
    """A recording of the exit as the staff show balls 1 to 90 in turn, one typeface (a set)."""
    styles = replace(HELD_OUT, fonts=HELD_OUT.usable_fonts()[:1])
    camera = SimulatedCamera(seed=7, style_set=styles)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 480))
    for number in range(1, 91):
        camera.present(number)
        for frame in camera.frames(FRAMES_PER_BALL):
            writer.write(frame)
    writer.release()
    return path


def test_a_set_keyed_ball_by_ball_under_a_real_camera_is_judged_and_recorded(tmp_path, video):
    config = hall_config(tmp_path, video)
    url = store_with_a_set(tmp_path)
    keyed = "\n".join(str(n) for n in range(1, 91)) + "\nfin\n"
    done = commission(config, url, "--ball-set", "JB-1", stdin=keyed)
    verdict = json.loads(done.stdout)
    (event,) = recorded(url)
    assert done.returncode == (0 if verdict["fit"] else 1), done.stderr
    assert verdict["showings"] == 90 and len(event["showings"]) == 90
    assert [s["number"] for s in event["showings"]] == list(range(1, 91))
    assert verdict["read"] >= 72 and verdict["misread"] == []  # one clear typeface
    assert all(s["camera"]["frame"] for s in event["showings"])  # every showing's frame kept


def test_balls_keyed_wrong_are_read_as_other_numbers_and_the_set_is_refused(tmp_path, video):
    """The staff key each ball as the next number: the camera sees another ball every time."""
    config = hall_config(tmp_path, video)
    url = store_with_a_set(tmp_path)
    keyed = "\n".join(str(n % 90 + 1) for n in range(1, 91)) + "\n"
    done = commission(config, url, "--ball-set", "JB-1", stdin=keyed)
    verdict = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr
    assert not verdict["fit"] and len(verdict["misread"]) > 45
    assert any("read as another number" in refusal for refusal in verdict["refusals"])


def test_the_simulated_camera_is_shown_every_ball_by_the_hub(tmp_path):
    config = hall_config(tmp_path, "simulated", seed=11)
    url = store_with_a_set(tmp_path)
    done = commission(config, url, "--ball-set", "JB-1", "--showings-per-ball", "2")
    verdict = json.loads(done.stdout)
    assert done.returncode == (0 if verdict["fit"] else 1), done.stderr
    (event,) = recorded(url)
    showings = event["showings"]
    assert sorted(s["number"] for s in showings) == sorted([*range(1, 91)] * 2)
    # every frame read against the other showings' prints before the rules judged
    assert sum(s["cross"] is not None for s in showings) > 170
    by_camera = sum(s["camera"]["reading"] == s["number"] for s in showings)
    by_prints = sum(
        s["camera"]["reading"] != s["number"] and s["cross"] is not None and s["cross"]["confirms"]
        for s in showings
    )
    assert (verdict["read"], verdict["cross_read"]) == (by_camera + by_prints, by_prints)


def test_bad_input_is_refused_with_one_line_and_records_nothing(tmp_path, video):
    config = hall_config(tmp_path, video)
    url = store_with_a_set(tmp_path)
    cases = {
        "a word for a ball": (("--ball-set", "JB-1"), "1\n2\ntres\n", "line 3: 'tres'"),
        "a ball beyond 90": (("--ball-set", "JB-1"), "91\n", "'91' is not a ball number"),
        "a superscript digit": (("--ball-set", "JB-1"), "²\n", "'²' is not a ball number"),
        "too few balls": (("--ball-set", "JB-1"), "1\n2\nfin\n", "88 were not: 3, 4"),
        "no such set": (("--ball-set", "JB-9"), "", "JB-9 is not registered"),
    }
    for name, (args, keyed, message) in cases.items():
        done = commission(config, url, *args, stdin=keyed)
        assert done.returncode == 2, (name, done.stderr)
        assert done.stderr.count("\n") == 1 and message in done.stderr, (name, done.stderr)
        assert "Traceback" not in done.stderr and done.stdout == ""
    missing = hall_config(tmp_path, str(tmp_path / "no-such-video.avi"))
    done = commission(missing, url, "--ball-set", "JB-1")
    assert done.returncode == 2 and "cannot open camera source" in done.stderr
    assert recorded(url) == []


def test_showings_kept_from_the_control_page_are_named_before_a_ball_is_keyed(tmp_path, video):
    config = hall_config(tmp_path, video)
    url = store_with_a_set(tmp_path)
    log = open_log(url)
    try:
        camera = CameraCheck(reading=7, guess=7, confidence=0.99999, reason=None)
        HallService(log, HALL_ID).execute(
            ShowBallToCamera(ball_set_id="JB-1", number=7, camera=camera), actor="mesa"
        )
        seq = log.head(HALL_ID)
    finally:
        log.engine.dispose()
    done = commission(config, url, "--ball-set", "JB-1", stdin="1\n")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "1 showings of JB-1 are kept from the control page" in done.stderr
    log = open_log(url)
    try:
        assert log.head(HALL_ID) == seq  # nothing recorded
    finally:
        log.engine.dispose()
