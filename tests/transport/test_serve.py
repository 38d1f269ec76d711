"""`bingo-hall serve` as a real process: provisioning, health, a monitor, a clean stop."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from pathlib import Path

from bingo_hall.serve import stop_tasks
from support.aio import run_async
from support.cli import STAFF_PASSWORD, add_device, add_staff, hall, hall_config
from support.hub import Client
from support.serve import free_port, serving, start_serve, wait_for_health


def test_serve_runs_the_hub_until_sigterm(tmp_path):
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    add_staff(db, "sala1")
    short = hall(
        "user-add",
        "sala2",
        "--role",
        "jefe_de_sala",
        "--password-stdin",
        "--db",
        db,
        stdin="corta\n",
    )
    assert short.returncode == 2 and "password" in short.stderr and "corta" not in short.stderr
    token = add_device(db, "mon-1")
    assert token.startswith("mon-1.")
    port = free_port()
    process = start_serve("--db", db, "--port", str(port))
    try:
        health = wait_for_health(port, process)
        assert health["phase"] == "session_closed"
        assert health["camera"] == {"kind": "simulated", "receiving": True, "losses": 0}

        async def scenario():
            url = f"ws://127.0.0.1:{port}/ws"
            async with (
                Client.login(url, token=token) as monitor,
                Client.login(url, user="sala1", password=STAFF_PASSWORD) as staff,
            ):
                await monitor.request({"type": "subscribe", "after_seq": 0})
                await staff.ok(
                    "register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"
                )
                await staff.ok("open_session")
                events = await monitor.events(2)
                assert [e["event"] for e in events] == ["ball_set_registered", "session_opened"]
                assert events[1]["payload"]["profile"]["id"] == "1979"

        run_async(scenario(), timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "stopped at seq 2" in err


def test_serve_names_a_camera_it_cannot_open_in_one_line(tmp_path):
    """A hall configured with a network camera that does not answer: no hub starts, and the
    error says which source, not a stack trace."""
    port = free_port()  # nothing listens there
    config = hall_config(tmp_path, f"http://127.0.0.1:{port}/exit.mjpg")
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    done = hall("serve", "--config", str(config), "--db", db, "--port", str(free_port()))
    assert done.returncode == 2
    error = [line for line in done.stderr.splitlines() if line.startswith("bingo-hall:")]
    assert error == [
        f"bingo-hall: error: cannot open camera source 'http://127.0.0.1:{port}/exit.mjpg': "
        "check camera.source in the hall configuration"
    ]
    assert "Traceback" not in done.stderr


def test_a_series_imported_at_the_console_while_the_hub_runs_reaches_the_hub_and_its_panels(
    tmp_path,
):
    """`import-series` writes to the hall's log from another process: the running hub catches
    up within a second, tells its subscribers, and its next command follows on."""
    from decimal import Decimal

    from card_generator.files import write_series
    from card_generator.series import generate_series

    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    add_staff(db, "sala1")
    token = add_device(db, "mon-1")
    cards = tmp_path / "B7.jsonl"
    write_series(generate_series("B7", 60, Decimal("2.00"), seed=b"console"), cards)
    with serving("--db", db) as hub:

        async def scenario():
            async with (
                Client.login(hub.url, token=token) as monitor,
                Client.login(hub.url, user="sala1", password=STAFF_PASSWORD) as staff,
            ):
                await monitor.request({"type": "subscribe", "after_seq": 0})
                await staff.ok(
                    "register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"
                )
                imported = await asyncio.to_thread(hall, "import-series", str(cards), "--db", db)
                assert imported.returncode == 0, imported.stderr
                heard = await monitor.events(2, timeout=15)  # no hub command in between
                assert [(e["seq"], e["event"]) for e in heard] == [
                    (1, "ball_set_registered"),
                    (2, "series_registered"),
                ]
                opened = await staff.ok("open_session")
                assert [e["seq"] for e in opened["events"]] == [3]
                assert [e["seq"] for e in await monitor.events(1)] == [3]

        run_async(scenario(), timeout=60)
        assert wait_for_health(hub.port, hub.process)["seq"] == 3


def test_a_task_that_will_not_end_when_the_hub_stops_is_cancelled_again(caplog):
    """A task whose clean-up waits for something that never comes (an MQTT client's goodbye
    that is never written) is cancelled a second time, and the hub stops; a task that
    had failed before is named with its error."""
    ended: list[str] = []

    async def stuck_in_its_goodbye() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            try:
                await asyncio.Event().wait()  # the goodbye that never goes out
            finally:
                ended.append("goodbye")

    async def serving_until_cancelled() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("serving")

    async def failed_before() -> None:
        raise OSError("the store went away")

    async def scenario() -> None:
        tasks = [
            asyncio.create_task(stuck_in_its_goodbye(), name="mqtt-bridge"),
            asyncio.create_task(serving_until_cancelled(), name="follow-log"),
            asyncio.create_task(failed_before(), name="credentials"),
        ]
        await asyncio.sleep(0.05)
        await stop_tasks(tasks, grace=0.2)
        assert all(task.done() for task in tasks)

    with caplog.at_level(logging.WARNING, logger="bingo_hall.serve"):
        run_async(scenario(), timeout=10)
    assert sorted(ended) == ["goodbye", "serving"]
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [
        "mqtt-bridge had not stopped 0.2 s after it was cancelled: cancelling it again",
        "credentials had stopped: OSError('the store went away')",
    ]


def test_sigterm_while_the_hub_starts_stops_it_cleanly(tmp_path):
    """A hub told to stop while it starts (here, while it waits for a network camera that
    accepts the connection and never answers) stops there, status 0, in one line, and leaves
    the store free for the next hub."""
    silent = socket.create_server(("127.0.0.1", 0))  # the camera: it listens, says nothing
    try:
        config = hall_config(tmp_path, f"http://127.0.0.1:{silent.getsockname()[1]}/exit.mjpg")
        db = tmp_path / "hall.sqlite"
        serve = ("--config", str(config), "--db", f"sqlite:///{db}", "--port", str(free_port()))
        starting = start_serve(*serve)
        silent.settimeout(30)
        connection, _ = silent.accept()  # it holds the store, and opens its camera
        assert Path(f"{db}.serve.lock").exists() and starting.poll() is None
        starting.send_signal(signal.SIGTERM)
        out, err = starting.communicate(timeout=30)
        connection.close()
    finally:
        silent.close()
    assert (starting.returncode, out) == (0, "")
    assert err.strip().splitlines()[-1] == "bingo-hall serve: stopped while starting"
    assert "Traceback" not in err
    done = hall("users", "--config", str(config), "--db", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr  # the store is free and whole
