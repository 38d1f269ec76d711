"""`bingo-hall` run as a child process of this interpreter, from the repository, as the hall's
staff run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = (sys.executable, "-m", "bingo_hall.cli")


def hall(*args: str, stdin: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """`bingo-hall ARGS` run to its end, its output captured as text. The timeout only stops a
    command that hangs: a ball set commissioned on a loaded machine has taken over two minutes."""
    return subprocess.run(
        [*CLI, *args], cwd=REPO, capture_output=True, text=True, input=stdin, timeout=timeout
    )


def hall_config(folder: Path, source: str, seed: int | None = None) -> Path:
    """config/hall.toml with another camera; its profiles found in the repository."""
    text = (REPO / "config" / "hall.toml").read_text()
    text = text.replace('profiles_dir = "profiles"', f'profiles_dir = "{REPO}/config/profiles"')
    text = text.replace(
        'source = "simulated"',
        f"source = {json.dumps(source)}" + (f"\nseed = {seed}" if seed is not None else ""),
    )
    path = folder / "hall.toml"
    path.write_text(f'table_profiles_dir = "{REPO}/config/tables"\n{text}')
    return path
