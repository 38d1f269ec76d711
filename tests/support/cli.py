"""`bingo-hall` run as a child process of this interpreter, from the repository, as the hall's
staff run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = (sys.executable, "-m", "bingo_hall.cli")


def hall(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`bingo-hall ARGS` run to its end, its output captured as text."""
    return subprocess.run(
        [*CLI, *args], cwd=REPO, capture_output=True, text=True, input=stdin, timeout=timeout
    )
