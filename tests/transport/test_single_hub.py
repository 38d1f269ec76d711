"""One hub per store (bingo_hall/store/instance_lock.py): a second `bingo-hall serve`, or a
demo, on a store a hub serves refuses to start in one line, status 2, and the first serves on;
the lock goes with the process, kill -9 included; the console's other commands run beside."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import time

import pytest
import sqlalchemy
from sqlalchemy.engine import make_url

from bingo_hall.store import StoreError, make_engine
from bingo_hall.store.instance_lock import LOCK_SUFFIX, StoreInUse, take_instance_lock
from support.aio import run_async
from support.cli import STAFF_PASSWORD, add_device, add_staff, hall
from support.databases import fresh_database_url
from support.hub import Client
from support.serve import free_port, serving, start_serve, wait_for_health


def holder(role: str, pid: int) -> str:
    return f"bingo-hall {role}, pid {pid} on {socket.gethostname()}"[:63]


def shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def error_line(done: subprocess.CompletedProcess) -> str:
    """The one line a refused command writes, and nothing else."""
    assert done.returncode == 2, done
    assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    return line


def test_a_second_serve_and_a_demo_are_refused_while_the_first_serves_on(store_url):
    """On SQLite and on PostgreSQL: the second hub and a demo name the store and the hub that
    serves it; the first keeps serving, and the console's commands run beside it."""
    add_staff(store_url, "sala1")
    with serving("--db", store_url) as first:
        busy = f"another hub is serving the store {shown(store_url)} "
        busy += f"({holder('serve', first.process.pid)})"
        second = hall("serve", "--db", store_url, "--port", str(free_port()), timeout=60)
        assert error_line(second) == (
            f"bingo-hall: error: {busy}: one hub per store; stop that hub first, or give this "
            "one another store (--db)"
        )
        demo = hall("demo", "--no-camera", "--db", store_url, timeout=60)
        assert error_line(demo).startswith(f"bingo-hall: error: {busy}: the demo would write")

        health = wait_for_health(first.port, first.process)
        assert (health["seq"], health["store_lock"]) == (0, True)
        token = add_device(store_url, "mon-1")  # the console's commands: beside the hub

        async def scenario():
            async with (
                Client.login(first.url, token=token) as monitor,
                Client.login(first.url, user="sala1", password=STAFF_PASSWORD) as staff,
            ):
                await monitor.request({"type": "subscribe", "after_seq": 0})
                await staff.ok(
                    "register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"
                )
                await staff.ok("open_session")
                assert [e["seq"] for e in await monitor.events(2)] == [1, 2]

        run_async(scenario(), timeout=60)
        users = hall("users", "--db", store_url)
        assert users.returncode == 0 and "sala1" in users.stdout, users.stderr
        acta = hall("acta", "--session", "1", "--db", store_url, timeout=60)
        assert acta.returncode == 0, acta.stderr
        assert wait_for_health(first.port, first.process)["seq"] == 2


def test_after_a_hub_killed_with_sigkill_a_new_one_starts(store_url):
    port = free_port()
    killed = start_serve("--db", store_url, "--port", str(port))
    try:
        wait_for_health(port, killed)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.communicate(timeout=20)
    # The kernel closes the dead hub's file and socket at once; PostgreSQL ends its session
    # as it reads the end of the socket, a moment later at most.
    deadline = time.monotonic() + 15
    while True:
        attempt = start_serve("--db", store_url, "--port", str(free_port()))
        try:
            attempt.wait(timeout=3)
        except subprocess.TimeoutExpired:
            break  # it serves
        _, err = attempt.communicate()
        assert "another hub is serving" in err and time.monotonic() < deadline, err
        time.sleep(0.5)
    attempt.send_signal(signal.SIGTERM)
    _, err = attempt.communicate(timeout=20)
    assert attempt.returncode == 0, err


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_two_hubs_on_two_stores_both_serve(kind, tmp_path):
    with (
        fresh_database_url(kind, tmp_path) as one,
        fresh_database_url(kind, tmp_path) as other,
        serving("--db", one) as first,
        serving("--db", other) as second,
    ):
        for hub in (first, second):
            assert wait_for_health(hub.port, hub.process)["store_lock"] is True


def test_sqlite_names_one_lock_for_a_file_however_its_url_names_it(tmp_path):
    """The lock file is the one beside the file SQLite opened: a `file:` URI, a symlink and
    a relative path name the same lock as the plain path; it is never deleted."""
    path = tmp_path / "hall.sqlite"
    (tmp_path / "link.sqlite").symlink_to(path)
    engines = [make_engine(f"sqlite:///{path}")]
    lock = take_instance_lock(engines[0], "serve")
    try:
        assert (tmp_path / f"hall.sqlite{LOCK_SUFFIX}").read_text() == holder(
            "serve", os.getpid()
        ) + "\n"
        relative = os.path.relpath(path)
        for url in (
            f"sqlite:///file:{path}?uri=true",
            f"sqlite:///file://localhost{path}?mode=rw&uri=true",
            f"sqlite:///{tmp_path / 'link.sqlite'}",
            f"sqlite:///{relative}",
        ):
            engines.append(make_engine(url))
            with pytest.raises(StoreInUse) as refused:
                take_instance_lock(engines[-1], "demo")
            assert refused.value.holder == holder("serve", os.getpid())
    finally:
        lock.release()
        for engine in engines:
            engine.dispose()
    assert lock.held is False
    again = take_instance_lock(engines[1], "demo")  # released: anyone may take it
    again.release()
    assert (tmp_path / f"hall.sqlite{LOCK_SUFFIX}").exists()


def test_a_lock_file_that_cannot_be_made_is_a_store_error(tmp_path):
    """Whatever stands in the lock file's way (here a folder of its name) is said in one line,
    and serve refuses to start without its lock."""
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    (tmp_path / f"hall.sqlite{LOCK_SUFFIX}").mkdir()
    engine = make_engine(url)
    try:
        with pytest.raises(StoreError, match=r"cannot make the lock file .*: Is a directory"):
            take_instance_lock(engine, "serve")
    finally:
        engine.dispose()
    done = hall("serve", "--db", url, "--port", str(free_port()), timeout=60)
    assert "cannot make the lock file" in error_line(done)


def _terminate_lock_sessions(url: str, pid: int) -> int:
    """Ends the PostgreSQL sessions of the lock connection of process `pid` (as a PostgreSQL
    restart would); how many."""
    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            return len(
                conn.execute(
                    sqlalchemy.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE application_name = :name AND datname = current_database()"
                    ),
                    {"name": holder("serve", pid)},
                ).all()
            )
    finally:
        engine.dispose()


def test_a_hub_whose_lock_connection_drops_says_so_and_takes_the_lock_again():
    """PostgreSQL ends the lock's session (its restart would): the hub says so once, serves
    on, takes the lock again within seconds; a second hub is still refused."""
    with fresh_database_url("postgresql") as url, serving("--db", url) as hub:
        assert _terminate_lock_sessions(url, hub.process.pid) == 1
        deadline = time.monotonic() + 20
        time.sleep(0.5)
        while not _lock_held_by(url, hub.process.pid):
            assert time.monotonic() < deadline, "the hub never took its lock again"
            time.sleep(0.2)
        assert wait_for_health(hub.port, hub.process)["store_lock"] is True
        second = hall("serve", "--db", url, "--port", str(free_port()), timeout=60)
        assert "another hub is serving the store" in error_line(second)
    said = [line for line in hub.err.splitlines() if "lock on the store" in line]
    assert len(said) == 2, hub.err
    assert "was lost (terminating connection due to administrator command)" in said[0]
    assert "holds its lock on the store" in said[1] and "again" in said[1]
    assert "Traceback" not in hub.err


def _lock_held_by(url: str, pid: int) -> bool:
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            return bool(
                conn.execute(
                    sqlalchemy.text(
                        "SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a "
                        "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                        "AND a.application_name = :name)"
                    ),
                    {"name": holder("serve", pid)},
                ).scalar()
            )
    finally:
        engine.dispose()


def test_a_lock_taken_elsewhere_while_its_connection_was_down_is_said_and_taken_back(caplog):
    """In one process, two locks on one database: the first's session ended, the second takes
    the lock; the first says two hubs serve the store (an error, never an exception), and takes
    the lock back once the second lets it go."""
    caplog.set_level(logging.WARNING, logger="bingo_hall.store.instance_lock")
    with fresh_database_url("postgresql") as url:
        engine = make_engine(url)
        first = take_instance_lock(engine, "serve", check_seconds=0.1)
        second = None
        try:
            with pytest.raises(StoreInUse):
                take_instance_lock(engine, "serve")
            assert _terminate_lock_sessions(url, os.getpid()) == 1
            deadline = time.monotonic() + 10
            while second is None:
                try:
                    second = take_instance_lock(engine, "demo", check_seconds=0.1)
                except StoreInUse:  # the first took it back first: end its session again
                    assert time.monotonic() < deadline
                    _terminate_lock_sessions(url, os.getpid())
            _until(lambda: "two hubs are serving it" in caplog.text)
            assert first.held is False and second.held is True
            assert holder("demo", os.getpid()) in caplog.text
            second.release()
            _until(lambda: first.held)
            assert "holds its lock on the store" in caplog.records[-1].getMessage()
        finally:
            first.release()
            if second is not None:
                second.release()
            engine.dispose()
    assert not [r for r in caplog.records if r.exc_info], caplog.text


def _until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.05)
