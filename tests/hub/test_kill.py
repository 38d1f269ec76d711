"""kill -9 a running demo at random instants: nothing committed is lost, the chain verifies,
the state and projections rebuild, and the demo carries on to the end.

The instants are spread over the whole demo: each run is killed a random number of commits
in (and a random fraction of a second after the last), or now and then during its start-up.
A kill at a random time after the start would land in the start-up again and again (a
restarted hub reads the set's kept prints before it plays), and a demo killed so never gets
past it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bingo_hall.hub.service import rebuild_state
from bingo_hall.store.projections import rebuild_projections, snapshot
from support.databases import fresh_database_url
from support.demo import open_log

REPO = Path(__file__).resolve().parents[2]
HALL = "sala-1"  # the hall of config/hall.toml, which the demo command uses
DEMO_EVENTS = 520  # about what the demo commits, its set shown to the camera ball by ball
START_UP_KILLS = 0.15  # the share of runs killed while they start


class DemoRun:
    """The demo started on `url`, its trace (`--trace`: a line per event committed) read as
    it comes."""

    def __init__(self, url: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bingo_hall.cli", "demo", "--db", url, "--trace"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.commits = 0
        self.ended = False
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._changed:
                self.lines.append(line)
                self.commits += line.startswith("committed ")
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for_commits(self, count: int) -> None:
        """Until `count` events are committed or the run ends; a run that has not got there
        in four minutes hangs."""
        with self._changed:
            done = self._changed.wait_for(lambda: self.commits >= count or self.ended, timeout=240)
        assert done, f"the demo hung after {self.commits} commits"

    def kill(self) -> bool:
        """kill -9 unless it already ended; whether it was killed."""
        if self.process.poll() is not None:
            return False
        self.process.send_signal(signal.SIGKILL)
        return True

    def trace(self) -> str:
        self.process.wait(timeout=60)
        self._reader.join(timeout=60)
        return "".join(self.lines)


def committed(trace: str) -> dict[int, str]:
    """seq -> type of every event the demo said was committed."""
    found = {}
    for line in trace.splitlines():
        if line.startswith("committed "):
            _, seq, kind = line.split()
            found[int(seq)] = kind
    return found


def check_store(url: str, promised: dict[int, str]) -> tuple[int, set[int]]:
    """The last seq stored, and the seqs of the events stored in a game (their envelope names
    it)."""
    log = open_log(url)
    try:
        report = log.verify_chain(HALL)
        assert report.ok, report.problem
        envelopes = list(log.iter_all(HALL))
        stored = {e.seq: e.type for e in envelopes}
        missing = {s: t for s, t in promised.items() if stored.get(s) != t}
        assert not missing, f"committed events lost: {missing}"
        rebuild_state(log, HALL)  # replays without error
        live = snapshot(log.engine, HALL)
        rebuild_projections(log, HALL)
        assert snapshot(log.engine, HALL) == live
        return report.last_seq, {e.seq for e in envelopes if e.game_id is not None}
    finally:
        log.engine.dispose()


def kill_again_and_again(url: str, rng: random.Random, kills: int) -> tuple[list[str], int]:
    """Start the demo again and again on one store, killing it `kills` times at random
    instants; a run that ends by itself (its session closed) is started again, and opens the
    next session. After every run the store must hold everything the demo said was committed.
    While no kill has yet fallen in a game, it kills on (random instants may all fall in the
    set-up, a few hundred commits long), up to three times `kills`.
    Returns the type of the last event committed before each kill, and how many of those
    events were a game's."""
    promised: dict[int, str] = {}
    killed_after: list[str] = []
    in_games = 0
    last_seq = 0
    most = 2 * DEMO_EVENTS // kills  # commits into a run: the kills spread over the demo
    while len(killed_after) < kills or not in_games:
        assert len(killed_after) < 3 * kills, f"no kill fell in a game: {killed_after}"
        run = DemoRun(url)
        if rng.random() < START_UP_KILLS:
            time.sleep(rng.uniform(0.05, 2.5))
        else:
            run.wait_for_commits(rng.randint(1, most))
            time.sleep(rng.uniform(0, 0.1))
        killed = run.kill()
        trace = run.trace()
        promised.update(committed(trace))
        last = max(promised, default=None)
        if killed:
            killed_after.append("nothing" if last is None else promised[last])
        seq, in_a_game = check_store(url, promised)
        in_games += killed and last in in_a_game
        assert seq >= last_seq
        last_seq = seq
        expected = -signal.SIGKILL if killed else 0
        assert run.process.returncode == expected, trace[-2000:]
    return killed_after, in_games


@pytest.mark.parametrize(("kind", "kills"), [("sqlite", 20), ("postgresql", 10)])
def test_kill_minus_nine_at_random_instants_loses_nothing(kind, kills, tmp_path):
    rng = random.Random(int.from_bytes(os.urandom(8), "big"))
    with fresh_database_url(kind, tmp_path) as url:
        killed_after, in_games = kill_again_and_again(url, rng, kills)
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
    # the kills fell while the set was shown to the camera and while the games were played
    assert "ball_shown_to_camera" in killed_after, killed_after
    assert in_games, killed_after
