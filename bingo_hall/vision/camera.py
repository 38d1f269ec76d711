"""Camera sources: a real camera or stream through OpenCV, and a simulated one.

`VideoCaptureCamera` wraps `cv2.VideoCapture` (a device index, an RTSP/HTTP URL or a video
file); a live source is read through a `LiveFeed`, so that a burst shows the ball now out.
`SimulatedCamera` renders the ball it was last shown, with the small changes from one frame
to the next that a real camera sees while a ball settles in the exit cup. It can show
a ball other than the one the caller keys (a miscall) and a ball behind a smeared, blurred
dome (`conditions="obscured"`) that no reader can make out, so that the hub's hold path can
be exercised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import cv2
import numpy as np

from bingo_hall.vision.ball_set import PrintedBallSet, print_ball_set
from bingo_hall.vision.live_feed import LiveFeed
from bingo_hall.vision.render import Scene, draw_scene, sample_scene, settle
from bingo_hall.vision.styles import HELD_OUT, StyleSet, obscured

Conditions = Literal["normal", "obscured"]
OPEN_TIMEOUT = 10.0  # seconds to connect to a stream


class CameraError(RuntimeError):
    """A camera source that cannot be opened or read."""


@dataclass(frozen=True)
class CameraStatus:
    """How a camera is doing, for the hub's /health: `kind` is "simulated", "file" or "live";
    `receiving`, whether it gives frames now; `losses`, how often a live source was lost."""

    kind: Literal["simulated", "file", "live"]
    receiving: bool
    losses: int = 0


class Camera(Protocol):
    def frames(self, count: int) -> list[np.ndarray]:
        """The next `count` frames (BGR uint8); fewer if the source runs out."""
        ...

    def status(self) -> CameraStatus: ...

    def close(self) -> None: ...


class VideoCaptureCamera:
    """Frames from OpenCV's VideoCapture: a device index, a stream URL or a video file.

    A file is read frame after frame. A device or a stream is live: a `LiveFeed` reads it
    all the time and a burst holds only frames taken after it was asked for (a live source
    left unread between two balls would give frames of the ball before)."""

    def __init__(
        self, source: int | str, *, burst_timeout: float = 2.0, read_timeout: float = 5.0
    ) -> None:
        self.source = source
        self.live = is_live(source)
        capture = _capture(source, read_timeout)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"cannot open camera source {source!r}")
        self._feed = (
            LiveFeed(
                capture,
                lambda: _capture(source, read_timeout),
                burst_timeout=burst_timeout,
                name=str(source),
            )
            if self.live
            else None
        )
        self._capture = capture
        self._ended = False  # a file read to its end

    def status(self) -> CameraStatus:
        if self._feed is None:
            return CameraStatus("file", receiving=not self._ended)
        return CameraStatus("live", receiving=self._feed.receiving, losses=self._feed.losses)

    def frames(self, count: int) -> list[np.ndarray]:
        if self._feed is not None:
            return self._feed.frames(count)
        out = []
        for _ in range(count):
            ok, frame = self._capture.read()
            if not ok or frame is None:
                self._ended = True
                break
            out.append(frame)
        return out

    def close(self) -> None:
        if self._feed is not None:
            self._feed.close()
        else:
            self._capture.release()

    def __enter__(self) -> VideoCaptureCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def is_live(source: int | str) -> bool:
    """A device index or a stream URL (rtsp://, http://, ...), not a file."""
    if isinstance(source, int):
        return True
    scheme, separator, _ = source.partition("://")
    return bool(separator) and scheme.lower() != "file"


def _capture(source: int | str, read_timeout: float) -> cv2.VideoCapture:
    """OpenCV's capture of `source`. A stream gives up a read after `read_timeout` seconds
    without data (OpenCV's own default is 30 s), so that a connection that died without
    closing is noticed and opened again."""
    if isinstance(source, int) or not is_live(source):
        return cv2.VideoCapture(source)
    timeouts = [
        cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
        int(OPEN_TIMEOUT * 1000),
        cv2.CAP_PROP_READ_TIMEOUT_MSEC,
        int(read_timeout * 1000),
    ]
    return cv2.VideoCapture(source, cv2.CAP_FFMPEG, timeouts)


class SimulatedCamera:
    """A camera on a simulated exit: `present` a ball (or None: the exit is empty), then take
    `frames`. Seeded, it gives the same frames every time; without a seed, it draws one from
    the operating system.

    With a `ball_set`, every ball carries that set's print each time it is presented, as at
    a hall's exit; without one, each presentation draws its typeface, colours and print from
    the style set (a ball of a random set every time, as the benchmark draws them)."""

    def __init__(
        self,
        seed: int | np.random.SeedSequence | None = None,
        *,
        style_set: StyleSet = HELD_OUT,
        ball_set: PrintedBallSet | None = None,
        width: int = 640,
        height: int = 480,
    ) -> None:
        self._rng = np.random.default_rng(seed)
        self._styles = style_set
        self.ball_set = ball_set
        self._size = (width, height)
        self._scene: Scene = sample_scene(None, self._rng, style_set)

    def present(self, number: int | None, *, conditions: Conditions = "normal") -> None:
        """The ball now at the exit (None: no ball), seen in normal or obscured conditions."""
        if number is not None and not 1 <= number <= 90:
            raise ValueError(f"no ball {number}: balls are numbered 1 to 90")
        if conditions not in ("normal", "obscured"):
            raise ValueError(f"unknown conditions {conditions!r}: 'normal' or 'obscured'")
        styles = self._styles if conditions == "normal" else obscured(self._styles)
        if self.ball_set is None:
            self._scene = sample_scene(number, self._rng, styles)
        else:
            self._scene = self.ball_set.scene(number, self._rng, styles)

    def frames(self, count: int) -> list[np.ndarray]:
        out = []
        for _ in range(count):
            out.append(draw_scene(self._scene, self._rng, *self._size))
            self._scene = settle(self._scene, self._rng)
        return out

    def status(self) -> CameraStatus:
        return CameraStatus("simulated", receiving=True)

    def close(self) -> None:
        """Nothing to release."""


def simulated_exit(seed: int | None = None, typeface: str | None = None) -> SimulatedCamera:
    """The simulated camera of a hall: one printed ball set (`typeface`, or one drawn from the
    held-out typefaces), drawn with the camera's frames from one seed."""
    set_seed, camera_seed = np.random.SeedSequence(seed).spawn(2)
    ball_set = print_ball_set(np.random.default_rng(set_seed), HELD_OUT, typeface)
    return SimulatedCamera(camera_seed, ball_set=ball_set)
