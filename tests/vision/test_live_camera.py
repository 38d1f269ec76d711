"""A live camera (an IP camera's MJPEG stream over real HTTP, and an RTSP camera) read through
OpenCV: a burst shows the ball now at the exit however long the stream went unread, a dropped
stream is opened again, and a stream that stops gives no frames, so the hub holds the call."""

from __future__ import annotations

import time
from collections.abc import Iterator

import cv2
import numpy as np
import pytest

from bingo_hall.domain.commands import HoldBall
from bingo_hall.domain.state import BallSet, HallState
from bingo_hall.hub.ball_check import BallCheck, call_command
from bingo_hall.store.frames import FrameStore
from bingo_hall.vision.camera import CameraStatus, VideoCaptureCamera, is_live
from bingo_hall.vision.recognise import BallReader
from support.demo import open_log
from support.mjpeg import MjpegExit
from support.rtsp import RtspExit

PACE = 3.0  # seconds the stream goes unread, as between two balls of a game
# A ball is called once it sits at the exit: by then the frames the stream sent of the ball
# before (those in the network's buffers too) have been read. A few frame periods.
SETTLED = 0.3


@pytest.fixture
def exit_camera() -> Iterator[MjpegExit]:
    stream = MjpegExit(seed=3)
    yield stream
    stream.close()


def _distance(frame: np.ndarray, shown: list[np.ndarray]) -> float:
    return min(float(cv2.absdiff(frame, picture).mean()) for picture in shown)


def _of(frames: list[np.ndarray], now: list[np.ndarray], before: list[np.ndarray]) -> list[str]:
    """For each frame, which ball's stream it came from (the nearer of the two)."""
    return ["now" if _distance(f, now) < _distance(f, before) else "before" for f in frames]


def test_a_burst_shows_the_ball_now_out_however_long_the_stream_went_unread(exit_camera):
    before = exit_camera.present(12)
    with VideoCaptureCamera(exit_camera.url) as camera:
        assert camera.live
        first = camera.frames(3)
        assert len(first) == 3 and all(f.shape == (480, 640, 3) for f in first)
        assert max(_distance(f, before) for f in first) < 3  # the stream's own frames
        now = exit_camera.present(77)
        time.sleep(PACE)  # an unread device or stream queues these seconds of frames
        burst = camera.frames(3)
        assert _of(burst, now, before) == ["now"] * 3
        time.sleep(PACE)
        again = exit_camera.present(12)
        time.sleep(SETTLED)
        assert _of(camera.frames(5), again, now) == ["now"] * 5
        assert camera.status().losses == 0


def test_the_reader_reads_the_ball_now_out_of_a_live_stream(exit_camera):
    reader = BallReader()
    with VideoCaptureCamera(exit_camera.url) as camera:
        for ball in (12, 77, 5):
            exit_camera.present(ball)
            time.sleep(1.0)
            assert reader.read_frames(camera.frames(3)).guess == ball


def test_a_dropped_stream_is_opened_again(exit_camera):
    with VideoCaptureCamera(exit_camera.url, burst_timeout=5.0) as camera:
        assert len(camera.frames(2)) == 2
        exit_camera.hang_up()
        now = exit_camera.present(41)
        time.sleep(SETTLED)
        burst = camera.frames(3)
        assert len(burst) == 3 and max(_distance(f, now) for f in burst) < 3
        assert camera.status().losses == 1


def test_a_stream_that_stops_gives_no_frames_and_the_call_is_held(exit_camera, tmp_path):
    exit_camera.present(30)
    log = open_log(f"sqlite:///{tmp_path / 'hall.sqlite'}")
    camera = VideoCaptureCamera(exit_camera.url, burst_timeout=0.5)
    try:
        check = BallCheck(camera, BallReader(), FrameStore(log.engine), 3)
        assert check.check(30, range(1, 91)).guess == 30
        exit_camera.freeze()
        time.sleep(0.3)  # a frame on its way when the stream stopped has arrived
        started = time.monotonic()
        assert camera.frames(3) == []
        assert time.monotonic() - started < 2
        reading = check.check(30, range(1, 91))
        assert (reading.reading, reading.reason, reading.frame) == (None, "no_picture", None)
        commissioned = HallState(
            ball_sets={"JB-1": BallSet("JB-1", "", camera_fit=True)}, ball_set_in_service="JB-1"
        )
        assert isinstance(call_command(30, "blower", reading, commissioned), HoldBall)
        exit_camera.freeze(False)
        assert check.check(30, range(1, 91)).guess == 30  # the picture is back
    finally:
        camera.close()
        log.engine.dispose()


def test_which_sources_are_live():
    assert is_live(0) and is_live("rtsp://10.0.0.7/exit") and is_live("HTTP://cam/exit.mjpg")
    assert not is_live("/var/hall/exit.avi") and not is_live("file:///var/hall/exit.avi")


def test_a_stream_that_stalls_without_closing_is_given_up_and_opened_again(exit_camera):
    """A connection that died without closing (a cable pulled) sends nothing and never ends:
    after `read_timeout` without data the camera gives it up and connects again."""
    exit_camera.present(8)
    with VideoCaptureCamera(exit_camera.url, burst_timeout=0.5, read_timeout=1.0) as camera:
        assert len(camera.frames(2)) == 2
        exit_camera.freeze()
        time.sleep(2.5)
        assert camera.status() == CameraStatus("live", receiving=False, losses=1)
        assert camera.frames(2) == []
        now = exit_camera.present(63)
        exit_camera.freeze(False)
        deadline = time.monotonic() + 15
        while not (burst := camera.frames(3)):
            assert time.monotonic() < deadline, "the stream was not opened again"
        assert len(burst) == 3 and max(_distance(f, now) for f in burst) < 3
        assert camera.status() == CameraStatus("live", receiving=True, losses=1)


def test_an_rtsp_camera_is_read_live_and_again_after_it_restarts(tmp_path):
    """GStreamer's RTSP server as the exit's CCTV camera (RTP/JPEG): the ball now out is read,
    not what the stream carried seconds before; a camera that goes away and comes back on
    its address is opened again by itself."""
    rtsp = RtspExit(tmp_path, seed=3)
    before = rtsp.present(12)
    rtsp.start()
    try:
        # on a busy machine the RTSP server may send nothing for over a second: a burst waits
        # up to 5 s, and the stream is given up after 2 s without data
        with VideoCaptureCamera(rtsp.url, burst_timeout=5.0, read_timeout=2.0) as camera:
            first = camera.frames(3)
            assert len(first) == 3 and max(_distance(f, before) for f in first) < 3
            now = rtsp.present(77)
            time.sleep(PACE)
            assert _of(camera.frames(3), now, before) == ["now"] * 3
            rtsp.stop()  # the camera reboots
            deadline = time.monotonic() + 10
            while camera.status().losses == 0:
                assert time.monotonic() < deadline, "the lost stream was not noticed"
                time.sleep(0.1)
            assert camera.frames(2) == []
            after = rtsp.present(5)
            rtsp.start()
            deadline = time.monotonic() + 20
            while not (burst := camera.frames(3)):
                assert time.monotonic() < deadline, "the camera was not opened again"
            assert len(burst) == 3 and max(_distance(f, after) for f in burst) < 3
            assert BallReader().read_frames(burst).guess == 5
            assert camera.status() == CameraStatus("live", receiving=True, losses=1)
    finally:
        rtsp.stop()
