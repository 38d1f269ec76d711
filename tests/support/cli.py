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


STAFF_PASSWORD = "una clave muy larga"


def add_staff(db: str, name: str, role: str = "jefe_de_sala", password: str = STAFF_PASSWORD):
    """`bingo-hall user-add` on the store `db`; the test fails if it is refused."""
    added = hall(
        "user-add", name, "--role", role, "--password-stdin", "--db", db, stdin=password + "\n"
    )
    assert added.returncode == 0, added.stderr


def add_device(db: str, device: str, kind: str = "monitor") -> str:
    """`bingo-hall device-add` on the store `db`; returns the device's token."""
    added = hall("device-add", device, "--kind", kind, "--db", db)
    assert added.returncode == 0, added.stderr
    return added.stdout.strip().rsplit(" ", 1)[-1]
