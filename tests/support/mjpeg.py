"""A network camera on the ball exit, for real: an HTTP server streaming MJPEG
(multipart/x-mixed-replace, as IP cameras serve it) of the ball the test presents, rendered by
a seeded simulated camera while it settles."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
from sqlalchemy import Engine

from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.store.frames import FrameStore
from bingo_hall.vision.camera import SimulatedCamera, VideoCaptureCamera
from bingo_hall.vision.recognise import BallReader

BOUNDARY = b"exitframe"
FRAMES_SHOWN = 4  # the frames of one ball a stream cycles through, as it settles


def rendered(camera: SimulatedCamera, number: int | None) -> tuple[list[bytes], list[np.ndarray]]:
    """The ball `number` as `camera` renders it: its frames as JPEG files, and as a client
    decodes them."""
    camera.present(number)
    jpegs = [
        cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1]
        for frame in camera.frames(FRAMES_SHOWN)
    ]
    return [jpeg.tobytes() for jpeg in jpegs], [cv2.imdecode(j, cv2.IMREAD_COLOR) for j in jpegs]


class MjpegExit:
    """Streams `fps` frames a second to every client of `url`; `present` changes the ball,
    `hang_up` drops the clients (the camera stays up), `freeze` stops sending without
    closing."""

    def __init__(self, seed: int, fps: float = 25) -> None:
        self._camera = SimulatedCamera(seed=seed)
        self.period = 1 / fps
        self.shown: list[np.ndarray] = []  # the frames of the ball now out, as sent
        self._jpegs: list[bytes] = []
        self._generation = 0  # bumped by hang_up: older connections end
        self._frozen = threading.Event()
        self._lock = threading.Lock()
        self.present(None)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/exit.mjpg"

    def present(self, number: int | None) -> list[np.ndarray]:
        """The ball now at the exit; returns the frames the stream cycles through."""
        jpegs, shown = rendered(self._camera, number)
        with self._lock:
            self._jpegs, self.shown = jpegs, shown
        return shown

    def ball_check(self, engine: Engine) -> BallCheck:
        """The hub's check of every call with this stream as the hall's camera (a stalled
        stream gives up a burst after half a second)."""
        camera = VideoCaptureCamera(self.url, burst_timeout=0.5)
        return BallCheck(camera, BallReader(), FrameStore(engine), frames_per_ball=2)

    def hang_up(self) -> None:
        with self._lock:
            self._generation += 1

    def freeze(self, frozen: bool = True) -> None:
        if frozen:
            self._frozen.set()
        else:
            self._frozen.clear()

    def close(self) -> None:
        self.hang_up()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, generation: int, index: int) -> bytes | None:
        with self._lock:
            if generation != self._generation:
                return None
            return self._jpegs[index % len(self._jpegs)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        exit_ = self

        class Stream(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with exit_._lock:
                    generation = exit_._generation
                self.send_response(200)
                self.send_header(
                    "Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY.decode()}"
                )
                self.end_headers()
                index = 0
                try:
                    while (jpeg := exit_._next(generation, index)) is not None:
                        if not exit_._frozen.is_set():
                            self.wfile.write(
                                b"--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                                % (BOUNDARY, len(jpeg))
                                + jpeg
                                + b"\r\n"
                            )
                            index += 1
                        time.sleep(exit_.period)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: the test's output is the test's."""

        return Stream
