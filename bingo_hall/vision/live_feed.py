"""The newest frames of a live camera source (a device or a stream), read all the time.

A live source keeps producing frames whether anyone reads them or not. Between two balls
(seconds) a device's driver buffers and a network stream queues what was not read, so
reading a burst only when a ball comes out would hand over frames taken before it did: the
previous ball, or an empty exit. A `LiveFeed` reads the source on its own thread, keeps only
the newest frames, and gives a burst of frames that began after it was asked for. A source
that stops (a stream dropped, a camera unplugged) is opened again until it comes back.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

import numpy as np

KEPT_FRAMES = 64  # more than the largest burst a hall can configure (30)
RECEIVING_WITHIN = 2.0  # seconds: a source whose last frame is older is not receiving
REOPEN_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0)  # seconds between attempts to open a lost source


class Capture(Protocol):
    """What a `LiveFeed` needs of `cv2.VideoCapture`."""

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


class LiveFeed:
    """Reads `capture` on a daemon thread; `open_capture` opens the source again after a loss."""

    def __init__(
        self,
        capture: Capture,
        open_capture: Callable[[], Capture],
        *,
        burst_timeout: float = 2.0,
        name: str = "camera",
    ) -> None:
        self._capture = capture
        self._open_capture = open_capture
        self.burst_timeout = burst_timeout
        self._frames: deque[tuple[int, np.ndarray]] = deque(maxlen=KEPT_FRAMES)
        self._received = 0  # frames read since the feed began; the next one's index
        self._losses = 0  # times the source was lost
        self._last_frame_at: float | None = None  # time.monotonic() of the newest frame
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"live-feed {name}", daemon=True)
        self._thread.start()

    @property
    def losses(self) -> int:
        """How many times the source stopped giving frames and had to be opened again."""
        with self._changed:
            return self._losses

    @property
    def receiving(self) -> bool:
        """Whether a frame came in the last `RECEIVING_WITHIN` seconds."""
        with self._changed:
            last = self._last_frame_at
        return last is not None and time.monotonic() - last < RECEIVING_WITHIN

    def frames(self, count: int) -> list[np.ndarray]:
        """`count` frames that began after this call (the one being read when it was made is
        skipped); fewer, maybe none, if the source gives no more within `burst_timeout`."""
        deadline = time.monotonic() + self.burst_timeout
        with self._changed:
            first = self._received + 1
            while self._received < first + count and not self._stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return [frame for index, frame in self._frames if first <= index < first + count]

    def close(self) -> None:
        self._stopping.set()
        with self._changed:
            self._changed.notify_all()
        self._thread.join(timeout=5)  # a read stalled longer releases when it returns

    def _run(self) -> None:
        try:
            self._read_until_closed()
        finally:
            self._capture.release()

    def _read_until_closed(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            ok, frame = self._capture.read()
            if ok and frame is not None:
                failures = 0
                with self._changed:
                    self._frames.append((self._received, frame))
                    self._received += 1
                    self._last_frame_at = time.monotonic()
                    self._changed.notify_all()
                continue
            if failures == 0:
                with self._changed:
                    self._losses += 1
            self._capture.release()
            delay = REOPEN_DELAYS[min(failures, len(REOPEN_DELAYS) - 1)]
            failures += 1
            if self._stopping.wait(delay):
                return
            self._capture = self._open_capture()
