"""Child processes that listen on a port (`bingo-hall serve`, a test broker): a free port for
them, and the wait until the hub answers its health check."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request

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
