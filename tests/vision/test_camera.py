"""Camera sources: OpenCV's VideoCapture on a real video file, and the simulated camera."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from bingo_hall.vision.camera import (
    Camera,
    CameraError,
    CameraStatus,
    SimulatedCamera,
    VideoCaptureCamera,
)
from bingo_hall.vision.recognise import BallReader


@pytest.fixture(scope="module")
def reader() -> BallReader:
    return BallReader()


def _video(path: Path, frames: list[np.ndarray]) -> None:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
    assert writer.isOpened()
    for frame in frames:
        writer.write(frame)
    writer.release()


def test_video_file_through_videocapture(tmp_path: Path, reader: BallReader) -> None:
    camera = SimulatedCamera(seed=21)
    camera.present(58)
    rendered = camera.frames(5)
    path = tmp_path / "exit.avi"
    _video(path, rendered)
    video: Camera = VideoCaptureCamera(str(path))
    try:
        frames = video.frames(3)
        rest = video.frames(10)  # only two left: the file runs out
    finally:
        video.close()
    assert len(frames) == 3 and len(rest) == 2
    assert video.status() == CameraStatus("file", receiving=False)  # read to its end
    assert all(f.shape == (480, 640, 3) and f.dtype == np.uint8 for f in frames)
    # what went in comes out (MJPEG is lossy, but close)
    assert float(cv2.absdiff(frames[0], rendered[0]).mean()) < 6
    reading = reader.read_frames(frames)
    assert reading.guess == 58 and reading.number in (None, 58)


def test_a_source_that_cannot_open_names_itself(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-video.avi"
    with pytest.raises(CameraError, match=r"no-such-video\.avi"):
        VideoCaptureCamera(str(missing))
    garbage = tmp_path / "garbage.avi"
    garbage.write_bytes(b"this is not a video" * 100)
    with pytest.raises(CameraError, match=r"garbage\.avi"):
        VideoCaptureCamera(str(garbage))


def test_simulated_camera_is_deterministic_when_seeded() -> None:
    a, b = SimulatedCamera(seed=5), SimulatedCamera(seed=5)
    a.present(33)
    b.present(33)
    first, second = a.frames(3), b.frames(3)
    assert all(np.array_equal(x, y) for x, y in zip(first, second, strict=True))
    # the ball settles: the frames are alike, but not the same
    assert not np.array_equal(first[0], first[1])
    assert float(cv2.absdiff(first[0], first[1]).mean()) < 12


def test_simulated_camera_shows_what_it_is_given(reader: BallReader) -> None:
    camera = SimulatedCamera(seed=8)
    assert reader.read_frames(camera.frames(2)).reason == "no_ball"  # nothing presented yet
    # a miscall: the caller keys 21, the ball at the exit is 12
    camera.present(12)
    reading = reader.read_frames(camera.frames(3), candidates=range(1, 91))
    assert reading.guess == 12 and reading.number in (None, 12)
    camera.present(None)
    assert reader.read_frames(camera.frames(2)).reason == "no_ball"
    with pytest.raises(ValueError, match="1 to 90"):
        camera.present(95)
    with pytest.raises(ValueError, match="conditions"):
        camera.present(5, conditions="foggy")  # type: ignore[arg-type]
    camera.close()


def test_simulated_camera_other_frame_sizes() -> None:
    camera = SimulatedCamera(seed=3, width=320, height=240)
    camera.present(7)
    assert camera.frames(1)[0].shape == (240, 320, 3)
