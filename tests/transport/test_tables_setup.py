"""Registering casino tables with the hub: `[[tables]]` in the hall's file, the table roles and
the table device, `device-add --kind table`, and `bingo-hall serve` with tables."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from bingo_hall.config import load_config
from bingo_hall.domain.errors import RuleError
from bingo_hall.hub.auth import (
    STAFF_ROLES,
    TABLE_COMMANDS,
    TABLE_PERMISSIONS,
    Principal,
    Role,
    TableDenied,
    authorise_table,
)
from bingo_hall.hub.table_runtime import TABLE_ARGS, load_tables
from bingo_hall.store import make_engine
from bingo_hall.store.credentials import CredentialStore
from support.aio import run_async
from support.cli import REPO, hall
from support.hub import Client
from support.serve import free_port, start_serve, wait_for_health

CHIP_COMMANDS = {
    "place_bet",
    "withdraw_bet",
    "issue_colour_chips",
    "return_colour_chips",
    "settle",
    "pay_coup",
}


def hall_file(tmp_path: Path, tables: str) -> Path:
    path = tmp_path / "hall.toml"
    path.write_text(
        'hall_id = "sala-9"\nprofile = "1979"\n'
        f'profiles_dir = "{REPO / "config" / "profiles"}"\n'
        f'table_profiles_dir = "{REPO / "config" / "tables"}"\n'
        '[camera]\nsource = "none"\n' + tables,
        encoding="utf-8",
    )
    return path


TWO_TABLES = """
[[tables]]
id = "R1"
game = "french-roulette"
profile = "basque"
limits = { minimum = "2", tier = 20 }

[[tables]]
id = "W1"
game = "wheel-of-fortune"
profile = "wof-003"
limits = { minimum = "1", maximum = "100" }
"""


# -- roles and permissions (pure) ----------------------------------------------------------


def test_every_table_command_is_some_staff_roles_and_heads_handle_no_chips() -> None:
    assert set(TABLE_ARGS) == TABLE_COMMANDS
    for command in TABLE_COMMANDS:
        assert any(command in TABLE_PERMISSIONS[role] for role in STAFF_ROLES), command
    for head in (Role.JEFE_DE_SALA, Role.JEFE_DE_MESA_DE_JUEGO):
        assert not TABLE_PERMISSIONS[head] & CHIP_COMMANDS  # N79 L113-131
    assert TABLE_PERMISSIONS[Role.TABLE] == TABLE_PERMISSIONS[Role.CROUPIER]
    assert not TABLE_PERMISSIONS[Role.MONITOR] and not TABLE_PERMISSIONS[Role.TERMINAL]
    assert [r for r in Role if "change_limits" in TABLE_PERMISSIONS[r]] == [Role.JEFE_DE_SALA]
    for role in (Role.JEFE_DE_MESA_DE_JUEGO, Role.CROUPIER):
        assert not Principal("x", role, "staff").read_only


def test_a_table_device_is_bound_to_its_table() -> None:
    device = Principal("mesa-r1", Role.TABLE, "device", table="R1")
    authorise_table(device, "R1", "place_bet")
    with pytest.raises(TableDenied, match=r"table R1's device and acts on that table only"):
        authorise_table(device, "R2", "place_bet")
    with pytest.raises(TableDenied, match=r"may give at a table: announce_last_coups"):
        authorise_table(device, "R1", "open_table")
    with pytest.raises(ValueError, match="only a table device is bound to a table"):
        Principal("mesa-r1", Role.TABLE, "device")
    with pytest.raises(ValueError, match="only a table device is bound to a table"):
        Principal("mon-1", Role.MONITOR, "device", table="R1")


# -- credentials on SQLite and PostgreSQL --------------------------------------------------


@pytest.fixture
def credentials(store_url: str) -> Iterator[CredentialStore]:
    engine = make_engine(store_url)
    try:
        yield CredentialStore(engine)
    finally:
        engine.dispose()


def test_a_table_device_token_names_its_table(credentials: CredentialStore) -> None:
    token = credentials.add_device("mesa-r1", "table", "R1")
    monitor = credentials.add_device("mon-1", "monitor")
    assert credentials.check_token(token) == Principal("mesa-r1", Role.TABLE, "device", "R1")
    assert credentials.check_token(monitor) == Principal("mon-1", Role.MONITOR, "device")
    assert [(d.device_id, d.kind, d.table) for d in credentials.devices()] == [
        ("mesa-r1", Role.TABLE, "R1"),
        ("mon-1", Role.MONITOR, None),
    ]
    with pytest.raises(ValueError, match="needs the id of its table"):
        credentials.add_device("mesa-r2", "table")
    with pytest.raises(ValueError, match="needs the id of its table"):
        credentials.add_device("mesa-r3", "table", "R/3")
    with pytest.raises(ValueError, match="a monitor is not bound to a table"):
        credentials.add_device("mon-2", "monitor", "R1")
    assert [d.device_id for d in credentials.devices()] == ["mesa-r1", "mon-1"]
    credentials.revoke_device("mesa-r1")
    assert credentials.check_token(token) is None


# -- the configuration -----------------------------------------------------------------------


def test_tables_are_read_from_the_hall_file_and_checked(tmp_path: Path) -> None:
    specs = load_tables(load_config(hall_file(tmp_path, TWO_TABLES)))
    assert [(s.id, s.game.label) for s in specs] == [
        ("R1", "french-roulette under profile basque"),
        ("W1", "wheel-of-fortune under profile wof-003"),
    ]
    for shipped in ("hall.toml", "hall.postgresql.toml"):
        assert load_tables(load_config(REPO / "config" / shipped))
    twice = TWO_TABLES.replace('id = "W1"', 'id = "R1"')
    with pytest.raises(RuleError, match="table ids must be unique: R1 given twice"):
        load_config(hall_file(tmp_path, twice))
    for wrong, reason in (
        ('profile = "wof-003"', "table W1: unknown table profile 'nada'"),
        ('game = "wheel-of-fortune"', "table W1: profile wof-003 has no boule"),
        ('maximum = "100"', "table W1: a wheel-of-fortune table needs its maximum"),
        ('profile = "basque"', "^configuration: table R1: profile 1977 is not for a live table"),
    ):
        replacement = {
            'profile = "wof-003"': 'profile = "nada"',
            'game = "wheel-of-fortune"': 'game = "boule"',
            'maximum = "100"': "layout_minimum = 1",
            'profile = "basque"': 'profile = "1977"',  # replaced by 1979's (spec §0.3)
        }[wrong]
        config = load_config(hall_file(tmp_path, TWO_TABLES.replace(wrong, replacement)))
        with pytest.raises(RuleError, match=reason):
            load_tables(config)


BOULE = """
[[tables]]
id = "{id}"
game = "boule"
profile = "1979"
limits = {{ minimum = "5", layout_minimum = {multiple} }}
"""


def test_boule_tables_all_at_twice_the_minimum_are_refused(tmp_path: Path) -> None:
    """None of them could ever open: one layout must keep the authorised minimum (N79 L440)."""
    doubled = BOULE.format(id="B1", multiple=2) + BOULE.format(id="B2", multiple=2)
    with pytest.raises(RuleError, match=r"configuration: boule layouts B1, B2 would play at tw"):
        load_tables(load_config(hall_file(tmp_path, doubled)))
    kept = BOULE.format(id="B1", multiple=1) + BOULE.format(id="B2", multiple=2)
    assert [s.id for s in load_tables(load_config(hall_file(tmp_path, kept)))] == ["B1", "B2"]


ROULETTE = """
[[tables]]
id = "{id}"
game = "french-roulette"
profile = "1979"
limits = {{ minimum = "{minimum}" }}
"""


def test_a_games_authorised_minimum_is_the_halls_or_its_tables_lowest(tmp_path: Path) -> None:
    """No table plays below the minimum the authorisation sets for its game, and one table of
    the game is configured at it (N79 L216): else none could ever open."""
    two = ROULETTE.format(id="R1", minimum="5") + ROULETTE.format(id="R2", minimum="10")
    specs = load_tables(load_config(hall_file(tmp_path, two)))
    assert [s.authorised_minimum for s in specs] == [Decimal("5"), Decimal("5")]
    stated = '[table_minimums]\n"french-roulette" = "10"\n' + two
    below = "table R1: its minimum 5 is below the 10 the hall's authorisation sets for french"
    with pytest.raises(RuleError, match=below):
        load_tables(load_config(hall_file(tmp_path, stated)))
    lower = '[table_minimums]\n"french-roulette" = "2"\n' + two
    with pytest.raises(RuleError, match=r"configuration: french-roulette tables R1, R2 would pl"):
        load_tables(load_config(hall_file(tmp_path, lower)))
    with pytest.raises(RuleError, match="table_minimums"):
        load_config(hall_file(tmp_path, '[table_minimums]\n"roulette" = "2"\n' + two))
    # unless the authorisation «dispusiera otra cosa» (N79 L216): its reference, then none need
    exempt = '[table_minimum_exemptions]\n"french-roulette" = "DGJ 2026/114"\n'
    specs = load_tables(load_config(hall_file(tmp_path, exempt + lower)))
    assert [s.minimum_exemption for s in specs] == ["DGJ 2026/114", "DGJ 2026/114"]
    for reference in ('""', '" spaced"', '"two\\nlines"'):
        blank = f'[table_minimum_exemptions]\n"french-roulette" = {reference}\n'
        with pytest.raises(RuleError, match="table_minimum_exemptions"):
            load_config(hall_file(tmp_path, blank + lower))


FORTUNE = """
[[tables]]
id = "F1"
game = "wheel-of-fortune"
profile = "basque"
limits = { minimum = "2", maximum = "100" }
"""


def test_a_basque_wheel_of_fortune_is_configured_with_its_least_float(tmp_path: Path) -> None:
    """EUS L51-53: at least 15,000 times its minimum; the hub stops at the file, naming it."""
    for extra, reason in (
        ("", "configuration: table F1: .* a float of at least 30000 .*: configure its float"),
        ('float_amount = "29999"\n', "table F1: .* its float 29999 is below the 30000"),
    ):
        with pytest.raises(RuleError, match=reason):
            load_tables(load_config(hall_file(tmp_path, FORTUNE + extra)))
    (spec,) = load_tables(load_config(hall_file(tmp_path, FORTUNE + 'float_amount = "30000"\n')))
    assert spec.float_amount == Decimal(30000)
    with pytest.raises(RuleError, match="float_amount"):
        load_config(hall_file(tmp_path, FORTUNE + 'float_amount = "-1"\n'))
    two_layouts = FORTUNE + 'float_amount = "30000"\nlayouts = 2\n'
    with pytest.raises(RuleError, match=r"table F1: .* a table on two layouts is a roulette's"):
        load_tables(load_config(hall_file(tmp_path, two_layouts)))


# -- the command line and the real hub process -------------------------------------------------


def test_serve_runs_the_configured_tables_for_their_devices(tmp_path: Path) -> None:
    config = str(hall_file(tmp_path, TWO_TABLES))
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    added = hall(
        "device-add", "mesa-w1", "--kind", "table", "--table", "W1", "--config", config, "--db", db
    )
    assert added.returncode == 0, added.stderr
    assert "table mesa-w1 for table W1 added" in added.stdout
    token = added.stdout.strip().rsplit(" ", 1)[-1]
    unknown = hall(
        "device-add", "mesa-x", "--kind", "table", "--table", "X9", "--config", config, "--db", db
    )
    assert unknown.returncode == 2 and "has no table 'X9'" in unknown.stderr
    misplaced = hall(
        "device-add", "mon-1", "--kind", "monitor", "--table", "R1", "--config", config, "--db", db
    )
    assert misplaced.returncode == 2 and "--table is for a table device" in misplaced.stderr

    port = free_port()
    process = start_serve("--config", config, "--db", db, "--port", str(port))
    try:
        health = wait_for_health(port, process)
        assert health["tables"] == {
            "R1": {"seq": 0, "phase": "closed"},
            "W1": {"seq": 0, "phase": "closed"},
        }

        async def scenario() -> None:
            async with Client.login(f"ws://127.0.0.1:{port}/ws", token=token) as device:
                answer = await device.request(
                    {"type": "command", "table": "W1", "command": "open_bets"}
                )
                assert answer["error"]["code"] == "wrong_phase"  # the table is not open yet
                tables = (await device.request({"type": "tables"}))["result"]["tables"]
                assert [(t["table"], t["game"], t["profile"]) for t in tables] == [
                    ("R1", "french-roulette", "basque"),
                    ("W1", "wheel-of-fortune", "wof-003"),
                ]

        run_async(scenario(), timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "table W1 (wheel-of-fortune under profile wof-003) at seq 0, phase closed" in out
