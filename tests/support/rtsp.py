"""The test RTSP camera on the ball exit (support/rtsp_camera.py, run by Debian's python3):
it shows the ball the test presents, rendered by a seeded simulated camera, and can be
stopped and started again on the same address, as a camera that reboots."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np

from bingo_hall.vision.camera import SimulatedCamera
from support.mjpeg import rendered
from support.serve import free_port

SERVER = Path(__file__).with_name("rtsp_camera.py")
DEBIAN_PYTHON = "/usr/bin/python3"  # the one python3-gi is installed for


class RtspExit:
    def __init__(self, folder: Path, seed: int) -> None:
        self.folder = folder
        self.port = free_port()
        self._camera = SimulatedCamera(seed=seed)
        self.shown: list[np.ndarray] = []
        self._server: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"rtsp://127.0.0.1:{self.port}/exit"

    def present(self, number: int) -> list[np.ndarray]:
        """The ball now at the exit: its frames, written as the stream's files (each replaced
        whole, so the server never reads half a file)."""
        jpegs, self.shown = rendered(self._camera, number)
        for index, jpeg in enumerate(jpegs):
            partial = self.folder / f"frame-{index}.part"
            partial.write_bytes(jpeg)
            os.replace(partial, self.folder / f"frame-{index}.jpg")
        return self.shown

    def start(self) -> None:
        self._server = subprocess.Popen(
            [DEBIAN_PYTHON, str(SERVER), str(self.folder), str(self.port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._server.stdout is not None
        assert self._server.stdout.readline().strip() == "ready", "the RTSP camera did not start"

    def stop(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server.wait()
            self._server = None
