"""Child processes that listen on a port (`bingo-hall serve`, a test broker): a free port for
them, and the wait until the hub answers its health check."""

from __future__ import annotations

import base64
import json
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from support.cli import CLI, REPO


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_serve(*args: str) -> subprocess.Popen:
    """`bingo-hall serve ARGS` as a child process of this interpreter, run from the
    repository, its output captured."""
    return subprocess.Popen(
        [*CLI, "serve", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_health(port: int, process: subprocess.Popen, timeout: float = 20) -> dict:
    """The JSON of `GET /health` from the hub on `port`, once it answers; fails the test if
    `process` exits first or nothing answers within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/health").read())
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.1)


@dataclass
class Served:
    """A `bingo-hall serve` child process: its port, and its standard error once stopped."""

    port: int
    process: subprocess.Popen
    err: str = ""

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


@contextmanager
def serving(*args: str) -> Iterator[Served]:
    """`bingo-hall serve ARGS` on a free port until the block ends, then SIGTERM; the test fails
    if the hub does not stop cleanly (exit status 0)."""
    port = free_port()
    served = Served(port, start_serve(*args, "--port", str(port)))
    try:
        wait_for_health(port, served.process)
        yield served
    finally:
        served.process.send_signal(signal.SIGTERM)
        _, served.err = served.process.communicate(timeout=20)
    assert served.process.returncode == 0, served.err


def api_hall(port: int, user: str, password: str) -> tuple[int, dict]:
    """GET /api/hall with these staff credentials: the status and the JSON body."""
    return staff_api(port, "/api/hall", user, password)


def staff_api(port: int, path: str, user: str, password: str) -> tuple[int, dict]:
    """GET a staff data route with these credentials (Basic), once the hub has checked them
    (it answers 202 while it does): the status and the JSON body."""
    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Basic {basic}"}
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            answer = urllib.request.urlopen(request)
            status, body = answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            status, body = error.code, json.loads(error.read())
        if status != 202:
            return status, body
        assert time.monotonic() < deadline, "the hub never answered"
        time.sleep(0.05)
