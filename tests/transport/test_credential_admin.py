"""Staff users and devices administered while the hub runs: `users`, `devices`,
`user-password`, `user-disable`, `user-enable`, `device-revoke`, and the running hub cutting
whatever authenticated with a credential that no longer stands."""

from __future__ import annotations

import asyncio
import json
import time

from bingo_hall.transport.page_data import REFUSAL_TTL
from support.aio import run_async
from support.cli import REPO, add_device, add_staff, hall
from support.demo import open_log
from support.hub import Client, auth_answer
from support.raw_ws import RawWebSocket
from support.serve import api_hall, serving

OLD = "una clave muy larga"
NEW = "otra clave aun mas larga"
WITHDRAWN = 4003
HALL = "sala-1"  # the hall of the default configuration


async def _closed_with(client: Client, timeout: float = 15) -> int | None:
    await asyncio.wait_for(client.connection.wait_closed(), timeout)
    return client.connection.close_code


def test_the_running_hub_cuts_a_revoked_device_a_disabled_user_and_a_changed_password(tmp_path):
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    for name in ("sala1", "sala2", "sala3"):
        add_staff(db, name, password=OLD)
    lost, kept = add_device(db, "mon-1"), add_device(db, "mon-2")
    with serving("--db", db) as hub:
        url = hub.url
        assert api_hall(hub.port, "sala1", OLD)[0] == 200  # remembered by the hub from now on

        async def console(*args: str, stdin: str | None = None) -> None:
            done = await asyncio.to_thread(hall, *args, "--db", db, stdin=stdin)
            assert done.returncode == 0, done.stderr

        async def scenario():
            async with (
                Client.login(url, token=lost) as stolen,
                Client.login(url, token=kept) as monitor,
                Client.login(url, user="sala1", password=OLD) as leaked,
                Client.login(url, user="sala2", password=OLD) as leaving,
                Client.login(url, user="sala3", password=OLD) as staying,
            ):
                await console("device-revoke", "mon-1")
                assert await _closed_with(stolen) == WITHDRAWN
                await console("user-disable", "sala2")
                assert await _closed_with(leaving) == WITHDRAWN
                await console("user-password", "sala1", "--password-stdin", stdin=NEW + "\n")
                assert await _closed_with(leaked) == WITHDRAWN
                # what still stands is not touched, and works
                assert (await monitor.request({"type": "ping"}))["type"] == "pong"
                assert (
                    await staying.ok(
                        "register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"
                    )
                ) is not None
                assert (await auth_answer(url, token=lost))["type"] == "auth_invalid"
                assert (await auth_answer(url, user="sala2", password=OLD))[
                    "type"
                ] == "auth_invalid"
                assert (await auth_answer(url, user="sala1", password=OLD))[
                    "type"
                ] == "auth_invalid"
                async with Client.login(url, user="sala1", password=NEW) as again:
                    await asyncio.sleep(5)  # two checks of the store: the new login stands
                    assert (await again.request({"type": "ping"}))["type"] == "pong"
                    assert not monitor.connection.close_code and not staying.connection.close_code

        run_async(scenario(), timeout=90)
        # the page data's remembered login went with the old password
        assert api_hall(hub.port, "sala1", OLD)[0] == 401
        assert api_hall(hub.port, "sala1", NEW)[0] == 200
        assert api_hall(hub.port, "sala2", OLD)[0] == 401
        enabled = hall("user-enable", "sala2", "--db", db)
        assert enabled.returncode == 0, enabled.stderr
        time.sleep(REFUSAL_TTL)  # the pages answer a refused login from memory this long
        assert api_hall(hub.port, "sala2", OLD)[0] == 200
    assert hub.err.count("credential withdrawn") == 3


def test_a_client_that_ignores_the_close_runs_no_command_once_its_user_is_disabled(tmp_path):
    """The hub closes a disabled user's connection; a client that goes on sending as if it
    had not heard the close gets no command run: nothing of it reaches the log."""
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    add_staff(db, "sala1", password=OLD)
    with serving("--db", db) as hub:
        client = RawWebSocket(hub.port)
        try:
            assert json.loads(client.receive()[1])["type"] == "auth_required"
            client.send({"type": "auth", "user": "sala1", "password": OLD})
            assert json.loads(client.receive()[1])["type"] == "auth_ok"
            disabled = hall("user-disable", "sala1", "--db", db)
            assert disabled.returncode == 0, disabled.stderr
            assert client.until_close() == WITHDRAWN
            command = {"type": "command", "command": "register_ball_set"}
            args = {"ball_set_id": "JB-9", "homologation": "CNJ-BOLAS-0009"}
            client.send({**command, "id": 1, "args": args})
            assert client.receive(2) is None  # no answer
        finally:
            client.close()
        time.sleep(0.5)
        assert [e.type for e in open_log(db).read(HALL)] == []
    assert "credential withdrawn" in hub.err


def _admin(capsys, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """`bingo-hall ARGS` in-process (the same `main` the script runs): exit status, output,
    errors."""
    import io
    import sys

    from bingo_hall.cli import main

    saved = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        status = main(list(args))
    finally:
        sys.stdin = saved
    out, err = capsys.readouterr()
    return status, out, err


def test_listings_show_state_and_never_a_secret(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    added = _admin(
        capsys,
        "user-add",
        "caja1",
        "--role",
        "cajero",
        "--password-stdin",
        "--db",
        db,
        stdin=OLD + "\n",
    )
    assert added[0] == 0, added
    status, out, _ = _admin(capsys, "device-add", "mon-1", "--kind", "monitor", "--db", db)
    token = out.strip().rsplit(" ", 1)[-1]
    assert status == 0 and token.startswith("mon-1.")
    assert _admin(capsys, "user-disable", "caja1", "--db", db)[0] == 0
    assert _admin(capsys, "device-revoke", "mon-1", "--db", db)[0] == 0
    users = _admin(capsys, "users", "--db", db)
    devices = _admin(capsys, "devices", "--db", db)
    assert users[0] == devices[0] == 0
    assert [line.split("\t")[:3] for line in users[1].splitlines()] == [
        ["caja1", "cajero", "disabled"]
    ]
    assert [line.split("\t")[:4] for line in devices[1].splitlines()] == [
        ["mon-1", "monitor", "-", "revoked"]
    ]
    secret = token.split(".", 1)[1]
    for listing in (users[1], devices[1]):
        assert OLD not in listing and secret not in listing and "scrypt" not in listing


def test_a_user_of_every_staff_role_is_added_at_the_console(tmp_path, capsys):
    from bingo_hall.hub.auth import STAFF_ROLES

    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    roles = sorted(role.value for role in STAFF_ROLES)
    for number, role in enumerate(roles):
        added = _admin(
            capsys,
            "user-add",
            f"persona{number}",
            "--role",
            role,
            "--password-stdin",
            "--db",
            db,
            stdin=OLD + "\n",
        )
        assert added[0] == 0, (role, added)
    listed = _admin(capsys, "users", "--db", db)[1]
    assert sorted(line.split("\t")[1] for line in listed.splitlines()) == roles


def test_unknown_names_are_one_line_errors_that_change_nothing(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    added = _admin(
        capsys,
        "user-add",
        "sala1",
        "--role",
        "jefe_de_sala",
        "--password-stdin",
        "--db",
        db,
        stdin=OLD + "\n",
    )
    assert added[0] == 0, added
    before = _admin(capsys, "users", "--db", db)[1]
    for args, stdin, message in [
        (("user-disable", "nadie"), None, "no staff user 'nadie'"),
        (("user-enable", "nadie"), None, "no staff user 'nadie'"),
        (("device-revoke", "mon-9"), None, "no device 'mon-9'"),
        (("user-password", "nadie", "--password-stdin"), NEW + "\n", "no staff user 'nadie'"),
        (
            ("user-password", "sala1", "--password-stdin"),
            "corta\n",
            "password too short: 5 characters, at least 10 needed",
        ),
    ]:
        status, _, err = _admin(capsys, *args, "--db", db, stdin=stdin)
        assert (status, err) == (2, f"bingo-hall: error: {message}\n")
    assert _admin(capsys, "users", "--db", db)[1] == before


def test_a_revoked_terminal_frees_its_place_under_the_hall_limit(tmp_path, capsys):
    config = tmp_path / "hall.toml"
    config.write_text(
        f'hall_id = "sala-9"\nprofile = "basque"\nprofiles_dir = "{REPO / "config" / "profiles"}"\n'
        f'category = "third"\n[store]\nurl = "sqlite:///{tmp_path / "h.sqlite"}"\n'
    )

    def add(device: str) -> tuple[int, str, str]:
        return _admin(capsys, "device-add", device, "--kind", "terminal", "--config", str(config))

    assert [add(f"term-{k}")[0] for k in range(1, 8)] == [0] * 6 + [2]
    assert _admin(capsys, "device-revoke", "term-3", "--config", str(config))[0] == 0
    assert add("term-7")[0] == 0
    assert _admin(capsys, "device-revoke", "term-4", "--config", str(config))[0] == 0
    status, _, err = add("term-3")
    assert status == 2 and "a revoked id is not reused" in err
