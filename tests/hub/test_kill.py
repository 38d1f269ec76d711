"""kill -9 a running demo at random instants: nothing committed is lost, the chain verifies,
the state and projections rebuild, and the demo carries on to the end."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bingo_hall.hub.service import rebuild_state
from bingo_hall.store.projections import rebuild_projections, snapshot
from support.databases import fresh_database_url
from support.demo import open_log

REPO = Path(__file__).resolve().parents[2]
HALL = "sala-1"  # the hall of config/hall.toml, which the demo command uses


def start_demo(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bingo_hall.cli", "demo", "--db", url, "--trace"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def committed(trace: str) -> dict[int, str]:
    """seq -> type of every event the demo said was committed."""
    found = {}
    for line in trace.splitlines():
        if line.startswith("committed "):
            _, seq, kind = line.split()
            found[int(seq)] = kind
    return found


def check_store(url: str, promised: dict[int, str]) -> int:
    log = open_log(url)
    try:
        report = log.verify_chain(HALL)
        assert report.ok, report.problem
        stored = {e.seq: e.type for e in log.iter_all(HALL)}
        missing = {s: t for s, t in promised.items() if stored.get(s) != t}
        assert not missing, f"committed events lost: {missing}"
        rebuild_state(log, HALL)  # replays without error
        live = snapshot(log.engine, HALL)
        rebuild_projections(log, HALL)
        assert snapshot(log.engine, HALL) == live
        return report.last_seq
    finally:
        log.engine.dispose()


def kill_until_finished(url: str, rng: random.Random, budget: int) -> int:
    """Start the demo again and again, killing it at a random instant, until a run ends by
    itself (or `budget` kills are spent). After every kill the store must hold everything the
    demo said was committed. Returns the number of kills."""
    promised: dict[int, str] = {}
    kills = last_seq = 0
    while kills < budget:
        process = start_demo(url)
        time.sleep(rng.uniform(0.9, 2.6))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        _, trace = process.communicate()
        promised.update(committed(trace))
        seq = check_store(url, promised)
        assert seq >= last_seq
        last_seq = seq
        if process.returncode == 0:
            break
        assert process.returncode == -signal.SIGKILL, trace[-2000:]
    return kills


@pytest.mark.parametrize(("kind", "kills"), [("sqlite", 50), ("postgresql", 10)])
def test_kill_minus_nine_at_random_instants_loses_nothing(kind, kills, tmp_path):
    rng = random.Random(int.from_bytes(os.urandom(8), "big"))
    done = 0
    while done < kills:
        with fresh_database_url(kind, tmp_path) as url:
            done += kill_until_finished(url, rng, kills - done)
            # Unkilled, the demo finishes whatever session is open and prints a verified acta.
            final = subprocess.run(
                [sys.executable, "-m", "bingo_hall.cli", "demo", "--db", url],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=240,  # as the demo of test_cli: guards a hang, not a speed
            )
            assert final.returncode == 0, final.stderr
            assert "Cadena de hash del registro: VERIFICADA" in final.stdout
            assert "ACTA DE LA SESIÓN" in final.stdout
