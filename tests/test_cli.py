"""`bingo-hall` as a user runs it: real subprocesses on real SQLite files and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_DOWN, Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from support.cli import CLI, REPO, hall_config
from support.databases import fresh_database_url

HALL = "sala-1"  # the hall of config/hall.toml
CENT = Decimal("0.01")
GAME_HEADING = re.compile(r"^PARTIDA (\d+)", re.MULTILINE)


DEMO_TIMEOUT = 420  # seconds: a demo that takes longer hangs
DEMO_SEED = 20261129  # the demo's camera: an Arial Bold set, fit (178 of 180 showings read)


@dataclass
class Result:
    code: int
    out: str
    err: str


def cli_many(commands: dict[str, tuple[str, ...]], timeout: float = 60) -> dict[str, Result]:
    """Run `bingo-hall` once per entry, all at once (each run spends ~1 s importing)."""
    running = {
        name: subprocess.Popen(
            [*CLI, *args],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in commands.items()
    }
    results = {}
    try:
        for name, process in running.items():
            out, err = process.communicate(timeout=timeout)
            results[name] = Result(process.returncode, out, err)
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return results


def cli(*args: str, timeout: float = 60) -> Result:
    return cli_many({"run": args}, timeout)["run"]


def assert_one_line_error(result: Result, *mentions: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr: 'bingo-hall: error: ...'."""
    assert "Traceback" not in result.err, result.err
    assert result.code == 2, result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("bingo-hall: error:"), result.err
    for mention in mentions:
        assert mention in lines[0], result.err
    assert result.out == ""
    return lines[0]


@dataclass
class Demo:
    url: str
    path: Path
    result: Result


@pytest.fixture(scope="module")
def demo_text(tmp_path_factory) -> Demo:
    """The demo on its own SQLite file, its acta printed as text. Its JSON is the `acta
    --json` of the same store (`actas` below); `demo --json` is run on PostgreSQL."""
    path = tmp_path_factory.mktemp("demo") / "x.sqlite"
    url = f"sqlite:///{path}"
    # The hall's configuration with the simulated camera seeded: unseeded, it prints another
    # set each run, which its commissioning may refuse (every call is then held). Seeded, the
    # set and its commissioning are the same each run.
    config = str(hall_config(tmp_path_factory.mktemp("demo-config"), "simulated", seed=DEMO_SEED))
    # a demo reads every ball on camera and shows its set twice (30-60 s alone); the limit
    # only guards against a hang
    result = cli("demo", "--config", config, "--db", url, timeout=DEMO_TIMEOUT)
    return Demo(url, path, result)


@pytest.fixture(scope="module")
def demo_json(actas) -> dict[str, Any]:
    result = actas["session json"]
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.fixture(scope="module")
def actas(demo_text) -> dict[str, Result]:
    """`acta` commands, good and bad, on the text demo's store (read only)."""
    assert demo_text.result.code == 0, demo_text.result.err
    db = ("--db", demo_text.url)
    return cli_many(
        {
            "session": ("acta", "--session", "1", *db),
            "session uri": (  # SQLite's URI form, read only
                "acta",
                "--session",
                "1",
                "--db",
                f"sqlite:///file:{demo_text.path}?mode=ro&uri=true",
            ),
            "session json": ("acta", "--session", "1", *db, "--json"),
            "game 2": ("acta", "--game", "2", *db),
            "game 2 json": ("acta", "--game", "2", *db, "--json"),
            "game 3": ("acta", "--game", "3", *db),
            "game 3 json": ("acta", "--game", "3", *db, "--json"),
            "game 999": ("acta", "--game", "999", *db),
            "session 7": ("acta", "--session", "7", *db),
            "no scope": ("acta", *db),
            "both scopes": ("acta", "--game", "1", "--session", "1", *db),
        }
    )


# --- demo -------------------------------------------------------------------------------------


def test_demo_prints_the_spanish_acta(demo_text):
    result = demo_text.result
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    text = result.out
    assert text.startswith("ACTA DE LA SESIÓN 1\n")
    assert GAME_HEADING.findall(text) == ["1", "2", "3", "4"]
    assert re.search(r"^PARTIDA 4 \(última de la sesión\)$", text, re.MULTILINE)
    assert re.search(r"línea, cartón \S+ nº \d+ — INCORRECTA: ", text)
    assert "entre 2 ganadores" in text
    assert "PARTIDA NULA" in text
    assert "Devolución íntegra" in text
    assert "Devuelto el importe de todos los cartones" in text  # the Cajero refunded them all
    assert "Devoluciones de partidas nulas pendientes" not in text
    assert "Cadena de hash del registro: VERIFICADA" in text
    assert "NO VERIFICA" not in text
    # the machine's model and its homologation, from config/hall.toml (S79 L1188)
    assert "Aparato extractor: EXT-1 (neumático), modelo con homologación CNJ-EXT-0001\n" in text


def test_demo_json_games_and_their_order(demo_json):
    acta = demo_json
    assert acta["hall"] == HALL
    assert acta["scope"] == {"session": 1, "game": None}
    games = acta["session"]["games"]
    assert [g["game_id"] for g in games] == [1, 2, 3, 4]
    assert [g["status"] for g in games] == ["finished", "finished", "voided", "finished"]
    assert [g["last_game"] for g in games] == [False, False, False, True]
    assert acta["session"]["closed_at"] is not None


def test_demo_json_balls(demo_json):
    for game in demo_json["session"]["games"]:
        balls = game["balls"]
        assert balls, f"game {game['game_id']} drew no ball"
        assert [b["ordinal"] for b in balls] == list(range(1, len(balls) + 1))
        numbers = [b["number"] for b in balls]
        assert len(set(numbers)) == len(numbers)
        assert all(isinstance(n, int) and 1 <= n <= 90 for n in numbers)
        times = [datetime.fromisoformat(b["at"]) for b in balls]
        assert all(t.tzinfo is not None for t in times)
        assert times == sorted(times) and len(set(times)) == len(times)


def test_demo_json_shared_prize_loses_nothing(demo_json):
    shared = [
        prize
        for game in demo_json["session"]["games"]
        for prize in game["prizes"]
        if len(prize["winners"]) == 2
    ]
    assert shared, "no prize shared between 2 winners"
    for prize in shared:
        pot, share, residue = (Decimal(prize[k]) for k in ("pot", "share", "residue"))
        assert share * 2 + residue == pot
        assert Decimal(0) <= residue < 2 * CENT
        assert share == share.quantize(CENT)
    for game in demo_json["session"]["games"]:
        for prize in game["prizes"]:
            pot, share, residue = (Decimal(prize[k]) for k in ("pot", "share", "residue"))
            assert share * len(prize["winners"]) + residue == pot


def test_demo_json_sales_are_consecutive_across_games(demo_json):
    games = demo_json["session"]["games"]
    last_sold: dict[str, int] = {}
    for game in games:
        for announced in game["series"]:
            series = announced["series_id"]
            expected = last_sold.get(series, 0) + 1
            assert announced["first_available"] == expected, (game["game_id"], series)
        by_series: dict[str, list[dict]] = {}
        for sale in game["sales"]:
            by_series.setdefault(sale["series_id"], []).append(sale)
        for series, sales in by_series.items():
            first_available = next(
                s["first_available"] for s in game["series"] if s["series_id"] == series
            )
            assert sales[0]["first"] == first_available
            for before, after in pairwise(sales):
                assert after["first"] == before["last"] + 1
            # voided games included: their cards are spent too
            last_sold[series] = sales[-1]["last"]
        assert {s["series_id"] for s in game["sold_ranges"]} == set(by_series)
        for sold in game["sold_ranges"]:
            sales = by_series[sold["series_id"]]
            assert (sold["first"], sold["last"]) == (sales[0]["first"], sales[-1]["last"])
    assert games[2]["status"] == "voided"
    for series in games[3]["series"]:
        voided = [s for s in games[2]["sales"] if s["series_id"] == series["series_id"]]
        assert series["first_available"] == voided[-1]["last"] + 1


def test_demo_json_money(demo_json):
    session = demo_json["session"]
    line_percent = Decimal(session["profile"]["line_prize_percent"])
    bingo_percent = Decimal(session["profile"]["bingo_prize_percent"])
    assert line_percent == 10
    for game in session["games"]:
        sales = game["sales"]
        takings = Decimal(game["takings"])
        assert takings == sum((s["count"] * Decimal(s["face_value"]) for s in sales), Decimal(0))
        assert takings == sum((Decimal(s["amount"]) for s in sales), Decimal(0))
        assert all(s["count"] == s["last"] - s["first"] + 1 for s in sales)
        assert game["cards_sold"] == sum(s["count"] for s in sales)
        line = (takings * line_percent / 100).quantize(CENT, rounding=ROUND_DOWN)
        bingo = (takings * bingo_percent / 100).quantize(CENT, rounding=ROUND_DOWN)
        assert Decimal(game["line_prize"]) == line
        assert Decimal(game["bingo_prize"]) == bingo
        assert Decimal(game["line_prize"]) + Decimal(game["bingo_prize"]) <= takings


def test_demo_json_void_refunds_the_takings(demo_json):
    (voided,) = [g for g in demo_json["session"]["games"] if g["status"] == "voided"]
    void = voided["void"]
    assert void["reason"] == "equipment_breakdown"
    assert Decimal(void["refund_total"]) == Decimal(voided["takings"]) > 0
    refunded = sum(
        ((r["last"] - r["first"] + 1) * Decimal(r["face_value"]) for r in void["refunds"]),
        Decimal(0),
    )
    assert refunded == Decimal(voided["takings"])
    assert [(r["series_id"], r["first"], r["last"]) for r in void["refunds"]] == [
        (s["series_id"], s["first"], s["last"]) for s in voided["sold_ranges"]
    ]
    assert voided["payments"] == []  # nothing of a void game is paid out


def test_demo_json_ball_set_and_chain(demo_json):
    session = demo_json["session"]
    changes = session["ball_set_changes"]
    assert changes, "no ball-set change recorded"
    assert changes[0]["previous"] is None
    in_service = changes[-1]["ball_set_id"]
    assert all(g["ball_set"]["ball_set_id"] == in_service for g in session["games"])
    assert [g["ball_set"]["games_on_set"] for g in session["games"]] == [1, 2, 3, 4]
    (trial,) = session["camera_commissionings"]  # every ball shown twice to the camera
    assert (trial["ball_set_id"], trial["showings"], trial["fit"]) == (in_service, 180, True)
    chain = demo_json["chain"]
    assert chain["ok"] is True and chain["problem"] is None
    assert chain["events"] == chain["last_seq"] > 0
    assert re.fullmatch(r"[0-9a-f]{64}", chain["last_hash"])


def test_demo_on_postgresql_prints_its_acta_as_json():
    with fresh_database_url("postgresql") as url:
        result = cli("demo", "--db", url, "--json", timeout=DEMO_TIMEOUT)  # as the demo above
        assert result.code == 0, result.err
        acta = json.loads(result.out)
        assert acta["scope"] == {"session": 1, "game": None}
        statuses = [g["status"] for g in acta["session"]["games"]]
        assert statuses == ["finished", "finished", "voided", "finished"]
        assert acta["chain"]["ok"] is True
        again = cli_many(
            {
                "text": ("acta", "--session", "1", "--db", url),
                "json": ("acta", "--session", "1", "--db", url, "--json"),
            }
        )
        assert again["json"].code == 0, again["json"].err
        assert again["json"].out == result.out
        assert again["text"].code == 0, again["text"].err
        assert GAME_HEADING.findall(again["text"].out) == ["1", "2", "3", "4"]
        assert "Cadena de hash del registro: VERIFICADA" in again["text"].out


# --- acta -------------------------------------------------------------------------------------


def test_acta_reads_a_store_named_in_sqlites_uri_form(demo_text, actas):
    assert actas["session uri"].code == 0, actas["session uri"].err
    assert actas["session uri"].out == actas["session"].out
    # the URI is SQLite's to read: no directory named after it is made where the command ran
    assert not (REPO / f"file:{demo_text.path.parent}").exists()


def test_acta_of_the_session_reprints_the_demo_acta(demo_text, actas):
    text = actas["session"]
    assert text.code == 0, text.err
    assert text.out == demo_text.result.out
    as_json = actas["session json"]
    assert as_json.code == 0, as_json.err
    acta = json.loads(as_json.out)
    assert acta["scope"] == {"session": 1, "game": None}
    assert [g["game_id"] for g in acta["session"]["games"]] == [1, 2, 3, 4]
    assert acta["chain"]["ok"] is True


@pytest.mark.parametrize("game_id", [2, 3])
def test_acta_of_one_game_holds_only_that_game(actas, game_id):
    whole = json.loads(actas["session json"].out)
    result = actas[f"game {game_id} json"]
    assert result.code == 0, result.err
    acta = json.loads(result.out)
    assert acta["scope"] == {"session": None, "game": game_id}
    assert acta["session"]["games"] == [whole["session"]["games"][game_id - 1]]
    assert acta["session"]["session_id"] == 1
    assert acta["chain"] == whole["chain"]

    text = actas[f"game {game_id}"]
    assert text.code == 0, text.err
    assert text.out.startswith(f"ACTA DE LA PARTIDA {game_id}\n")
    assert GAME_HEADING.findall(text.out) == [str(game_id)]
    assert ("PARTIDA NULA" in text.out) == (game_id == 3)
    if game_id == 2:
        # The demo's game 2 always ends with a bingo shared by two cards; other games may
        # share a prize by chance, so only the guaranteed one is asserted.
        assert re.search(r"Premio de bingo \(bola \d+\): [^\n]* entre 2 ganadores", text.out)


def ball_frames(acta: dict) -> dict[str, str]:
    """The file each drawn ball's frame is exported as -> its SHA-256 (in the demo, a held
    ball's frame is the frame of the ball drawn when the hold is resolved)."""
    return {
        f"partida-{game['game_id']}-bola-{ball['ordinal']:02d}-{ball['number']:02d}.jpg": ball[
            "camera"
        ]["frame"]
        for game in acta["session"]["games"]
        for ball in game["balls"]
    }


def test_an_acta_refused_leaves_no_frames_directory_behind(demo_text, tmp_path):
    for args in (["--game", "99", "--db", demo_text.url], ["--db", f"sqlite:///{tmp_path}/no.db"]):
        folder = tmp_path / "new" / "frames"
        result = cli("acta", *(args if "--game" in args else ["--session", "1", *args]),
                     "--frames", str(folder))  # fmt: skip
        assert result.code == 2 and "Traceback" not in result.err, result.err
        assert not (tmp_path / "new").exists(), args


def test_the_frames_the_acta_cites_are_written_for_sha256sum_to_check(demo_text, actas, tmp_path):
    acta = json.loads(actas["session json"].out)
    cited = ball_frames(acta)
    assert len(cited) > 100 and all(cited.values())  # four games' balls, all seen on camera
    folder = tmp_path / "frames"
    result = cli("acta", "--session", "1", "--db", demo_text.url, "--frames", str(folder))
    assert result.code == 0, result.err
    assert result.out == actas["session"].out  # the acta, as without --frames
    assert f"{len(cited)} camera frames written to {folder}" in result.err
    lines = (folder / "SHA256SUMS").read_text().splitlines()
    sums = {name: digest for digest, name in (line.split("  ") for line in lines)}
    assert sums == cited
    assert sorted(p.name for p in folder.iterdir()) == sorted([*sums, "SHA256SUMS"])
    checked = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=folder, capture_output=True)
    assert checked.returncode == 0, checked.stdout
    game = acta["session"]["games"][0]
    first = next(folder.glob(f"partida-{game['game_id']}-bola-01-*.jpg"))
    picture = cv2.imdecode(np.fromfile(first, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (480, 640, 3)


# --- errors -----------------------------------------------------------------------------------


def test_acta_of_a_missing_game_or_session_is_a_one_line_error(actas):
    assert_one_line_error(actas["game 999"], "999")
    assert_one_line_error(actas["session 7"], "session 7")


def test_acta_needs_a_game_or_a_session(actas):
    result = actas["no scope"]
    assert result.code == 2
    assert "Traceback" not in result.err
    assert "--game" in result.err and "--session" in result.err
    assert "required" in result.err
    both = actas["both scopes"]
    assert both.code == 2 and "not allowed with" in both.err


@dataclass
class BadInput:
    folder: Path
    results: dict[str, Result]


@pytest.fixture(scope="module")
def bad_input(tmp_path_factory) -> BadInput:
    """Commands with bad input (and --help), all run at once."""
    folder = tmp_path_factory.mktemp("bad-input")
    db = ("--db", f"sqlite:///{folder / 'x.sqlite'}")
    (folder / "steam.toml").write_text(
        'hall_id = "x"\nprofile = "1979"\n[machine]\nkind = "steam"\n', encoding="utf-8"
    )
    (folder / "directory.toml").mkdir()
    (folder / "latin1.toml").write_bytes(b'hall_id = "sal\xf3n"\nprofile = "1979"\n')
    (folder / "text.sqlite").write_text("not a database\n", encoding="utf-8")
    camera = hall_config(folder, "simulated").read_text(encoding="utf-8")
    (folder / "camera.toml").write_text(
        camera.replace('source = "simulated"', "source = -1"), encoding="utf-8"
    )
    absent = f"postgresql+psycopg://bingo:s3cret-pw@127.0.0.1:5432/no_such_{folder.name}"
    results = cli_many(
        {
            "missing config demo": ("demo", "--config", "/nonexistent.toml", *db),
            "missing config acta": ("acta", "--session", "1", "--config", "/nonexistent.toml"),
            "bad config value": ("demo", "--config", str(folder / "steam.toml"), *db),
            "config is a directory": ("demo", "--config", str(folder / "directory.toml"), *db),
            "config not UTF-8": ("demo", "--config", str(folder / "latin1.toml"), *db),
            "db mysql": ("demo", "--db", "mysql://x"),
            "db in memory": ("acta", "--session", "1", "--db", "sqlite:///:memory:"),
            "db not a url": ("acta", "--game", "1", "--db", "not a url"),
            "db file missing": ("acta", "--session", "1", "--db", f"sqlite:///{folder}/no/x.db"),
            "db not a database": (
                "acta",
                "--session",
                "1",
                "--db",
                f"sqlite:///{folder}/text.sqlite",
            ),
            "db absent on postgresql": ("acta", "--session", "1", "--db", absent),
            "users in no store": ("users", "--db", f"sqlite:///{folder}/no/x.db"),
            "camera index negative": ("serve", "--config", str(folder / "camera.toml"), *db),
            "frames unwritable": ("acta", "--game", "1", "--frames", "/proc/bingo-frames", *db),
            "help": ("--help",),
            "demo help": ("demo", "--help"),
            "acta help": ("acta", "--help"),
            "no command": (),
        }
    )
    return BadInput(folder, results)


def test_a_missing_configuration_is_a_one_line_error(bad_input):
    assert_one_line_error(bad_input.results["missing config demo"], "/nonexistent.toml")
    assert_one_line_error(bad_input.results["missing config acta"], "/nonexistent.toml")


def test_a_bad_configuration_value_is_a_one_line_error(bad_input):
    config = str(bad_input.folder / "steam.toml")
    line = assert_one_line_error(bad_input.results["bad config value"], config)
    assert "machine.kind" in line


@pytest.mark.parametrize(
    ("case", "name"),
    [("config is a directory", "directory.toml"), ("config not UTF-8", "latin1.toml")],
)
def test_an_unreadable_configuration_is_a_one_line_error(bad_input, case, name):
    assert_one_line_error(bad_input.results[case], str(bad_input.folder / name))


@pytest.mark.parametrize(
    ("case", "url"),
    [
        ("db mysql", "mysql://x"),
        ("db in memory", "in-memory SQLite"),
        ("db not a url", "not a url"),
    ],
)
def test_an_unsupported_database_is_a_one_line_error(bad_input, case, url):
    assert_one_line_error(bad_input.results[case], url)


@pytest.mark.parametrize(
    ("case", "mentions"),
    [
        ("db file missing", ["no store at", "/no/x.db"]),
        ("users in no store", ["no store at", "/no/x.db"]),
        ("db not a database", ["cannot open the store", "file is not a database"]),
        ("db absent on postgresql", ["cannot open the store", "bingo:***@", "does not exist"]),
        ("camera index negative", ["camera.source", "greater than or equal to 0"]),
        ("frames unwritable", ["cannot write the frames in /proc/bingo-frames"]),
    ],
)
def test_a_store_or_camera_that_cannot_be_opened_is_a_one_line_error(bad_input, case, mentions):
    line = assert_one_line_error(bad_input.results[case], *mentions)
    assert "s3cret-pw" not in line


def test_bad_input_writes_no_store(bad_input):
    assert not (bad_input.folder / "x.sqlite").exists()
    assert not (bad_input.folder / "no").exists()  # a mistyped --db makes no folder either


def test_a_refused_command_leaves_no_new_store_behind(tmp_path):
    """user-add, device-add and serve make the hall's store when it is not there, as a hall
    starts; refused, they leave no store, journal or folder made for it behind (a refused
    serve leaves its lock file: a lock file is never deleted). A store that was there before
    a refusal is kept, even with nothing in it."""
    from support.cli import hall

    def db(name: str) -> str:
        return f"sqlite:///{tmp_path / name}"

    weak = hall(
        "user-add",
        "bob",
        "--role",
        "jefe_de_sala",
        "--password-stdin",
        "--db",
        db("typo/deep/weak.sqlite"),
        stdin="corta\n",
    )
    assert weak.returncode == 2 and "password too short" in weak.stderr, weak.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        refused = cli_many(
            {
                "table without table": (
                    "device-add",
                    "t1",
                    "--kind",
                    "table",
                    "--db",
                    db("device.sqlite"),
                ),
                "busy port": ("serve", "--port", port, "--db", db("serve.sqlite")),
            }
        )
    assert_one_line_error(refused["table without table"], "needs --table")
    assert_one_line_error(refused["busy port"], "address already in use")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["serve.sqlite.serve.lock"]

    kept = tmp_path / "kept.sqlite"
    with closing(sqlite3.connect(kept)) as empty:
        empty.execute("CREATE TABLE notes (text TEXT)")
    again = cli("device-add", "t1", "--kind", "table", "--db", f"sqlite:///{kept}")
    assert_one_line_error(again, "needs --table")
    assert kept.is_file()


@pytest.mark.parametrize(
    ("case", "usage", "mentions"),
    [
        ("help", "usage: bingo-hall", ["demo", "acta", "--help"]),
        ("demo help", "usage: bingo-hall demo", ["--db", "--config", "--json", "--trace"]),
        ("acta help", "usage: bingo-hall acta", ["--game", "--session", "--db", "--json"]),
    ],
)
def test_help(bad_input, case, usage, mentions):
    result = bad_input.results[case]
    assert result.code == 0, result.err
    assert result.out.startswith(usage)
    assert result.err == ""
    for option in mentions:
        assert option in result.out


def test_no_command_is_a_usage_error(bad_input):
    result = bad_input.results["no command"]
    assert result.code == 2
    assert "Traceback" not in result.err
    assert "usage: bingo-hall" in result.err


# --- tampering --------------------------------------------------------------------------------


def _copy_with_an_edited_ball(demo_text: Demo, folder: Path) -> tuple[str, Path, int]:
    """A copy of the demo's store with its 11th ball changed: (url, path, its seq)."""
    source = demo_text
    assert source.result.code == 0, source.result.err
    for part in source.path.parent.glob("x.sqlite*"):  # the file and any WAL left over
        shutil.copy(part, folder / part.name)
    path = folder / "x.sqlite"
    url = f"sqlite:///{path}"
    db = sqlite3.connect(path)
    try:
        with db:
            seq, payload = db.execute(
                "SELECT seq, payload FROM event_log WHERE hall_id = ? AND type = 'ball_drawn' "
                "ORDER BY seq LIMIT 1 OFFSET 10",
                (HALL,),
            ).fetchone()
            number = json.loads(payload)["number"]
            old, new = f'"number":{number},', f'"number":{number % 90 + 1},'
            assert old in payload
            changed = db.execute(
                "UPDATE event_log SET payload = replace(payload, ?, ?) "
                "WHERE hall_id = ? AND seq = ?",
                (old, new, HALL, seq),
            ).rowcount
            assert changed == 1
    finally:
        db.close()
    return url, path, seq


def test_an_edited_ball_breaks_the_chain_at_its_seq(demo_text, tmp_path):
    """Edit one ball in a copy of the demo's store: the acta says where the chain breaks."""
    url, _, seq = _copy_with_an_edited_ball(demo_text, tmp_path)
    results = cli_many(
        {
            "text": ("acta", "--session", "1", "--db", url),
            "json": ("acta", "--session", "1", "--db", url, "--json"),
            "game": ("acta", "--game", "4", "--db", url),
        }
    )
    result = results["text"]
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    (verdict,) = [line for line in result.out.splitlines() if line.startswith("Cadena de hash")]
    assert "NO VERIFICA" in verdict
    assert f"seq {seq}:" in verdict
    assert "VERIFICADA" not in result.out

    as_json = results["json"]
    assert as_json.code == 1
    chain = json.loads(as_json.out)["chain"]
    assert chain["ok"] is False
    assert chain["problem"].startswith(f"seq {seq}:")
    assert chain["last_seq"] == chain["events"] == seq - 1

    # one game's acta reports the damage too, whichever game it is in
    assert results["game"].code == 1
    assert "NO VERIFICA" in results["game"].out


def test_nothing_writes_on_a_log_whose_chain_does_not_verify(demo_text, tmp_path):
    """The demo, the hub and the console's writers refuse an altered log, status 1, and
    append nothing on top of the alteration."""
    url, path, seq = _copy_with_an_edited_ball(demo_text, tmp_path)

    def events() -> int:
        with closing(sqlite3.connect(path)) as db:
            return db.execute("SELECT count(*) FROM event_log").fetchone()[0]

    before = events()
    # one after the other: the demo and the hub each take the store's single-instance lock
    # before they read the log, and one still holding it would refuse the other for that
    results = {}
    for name, command in {
        "demo": ("demo", "--no-camera", "--db", url),
        "serve": ("serve", "--db", url, "--port", "0"),
        "commission": ("commission-ball-set", "--ball-set", "JB-001", "--db", url),
    }.items():
        results |= cli_many({name: command})
    for name, result in results.items():
        assert result.code == 1, (name, result)
        assert "Traceback" not in result.err and result.out == ""
        (line,) = result.err.strip().splitlines()
        assert line.startswith(
            f"bingo-hall: error: the event log of {HALL} does not verify (seq {seq}:"
        )
    assert events() == before


@pytest.mark.parametrize("deleted", ["series_announced", "session_opened", "any_more_asked"])
def test_a_deleted_event_the_acta_rests_on_is_reported_as_a_broken_chain(
    demo_text, tmp_path, deleted
):
    """Whatever the acta cannot be composed without: the verdict on the chain, status 1; never
    a user's error."""
    for part in demo_text.path.parent.glob("x.sqlite*"):
        shutil.copy(part, tmp_path / part.name)
    path = tmp_path / "x.sqlite"
    with closing(sqlite3.connect(path)) as db, db:
        (seq,) = db.execute(
            "SELECT seq FROM event_log WHERE hall_id = ? AND type = ? ORDER BY seq LIMIT 1",
            (HALL, deleted),
        ).fetchone()
        db.execute("DELETE FROM event_log WHERE hall_id = ? AND seq = ?", (HALL, seq))
    for scope in (("--session", "1"), ("--game", "1")):
        result = cli("acta", *scope, "--db", f"sqlite:///{path}")
        assert result.code == 1, (scope, result.out, result.err)
        assert "Traceback" not in result.err and "error" not in result.err
        assert result.out.startswith(f"Cadena de hash del registro: NO VERIFICA — seq {seq}:")
        assert "El acta no puede componerse de un registro alterado" in result.out


def test_a_cited_frame_altered_or_gone_from_the_store_is_named_and_not_written(demo_text, tmp_path):
    source = demo_text
    for part in source.path.parent.glob("x.sqlite*"):
        shutil.copy(part, tmp_path / part.name)
    path, folder = tmp_path / "x.sqlite", tmp_path / "frames"
    url = f"sqlite:///{path}"
    acta = json.loads(cli("acta", "--game", "1", "--db", url, "--json").out)
    first, second = acta["session"]["games"][0]["balls"][:2]
    altered, gone = first["camera"]["frame"], second["camera"]["frame"]
    db = sqlite3.connect(path)
    try:
        (original,) = db.execute(
            "SELECT jpeg FROM camera_frame WHERE sha256 = ?", (altered,)
        ).fetchone()
        with db:
            db.execute(
                "UPDATE camera_frame SET jpeg = CAST(jpeg || x'00' AS BLOB) WHERE sha256 = ?",
                (altered,),
            )
            db.execute("DELETE FROM camera_frame WHERE sha256 = ?", (gone,))
    finally:
        db.close()
    now_hashes_to = hashlib.sha256(original + bytes(1)).hexdigest()
    result = cli("acta", "--game", "1", "--db", url, "--frames", str(folder))
    assert result.code == 1
    errors = [line for line in result.err.splitlines() if line.startswith("bingo-hall: error:")]
    assert errors == [
        f"bingo-hall: error: game 1, ball 1 ({first['number']}): the stored frame {altered} "
        f"was altered (its bytes hash to {now_hashes_to})",
        f"bingo-hall: error: game 1, ball 2 ({second['number']}): frame {gone} is not in the store",
    ]
    sums = (folder / "SHA256SUMS").read_text()
    assert altered not in sums and gone not in sums
    assert not list(folder.glob("partida-1-bola-0[12]-*"))
    checked = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=folder, capture_output=True)
    assert checked.returncode == 0  # what was written is what the acta cites
    before = sorted(folder.iterdir())
    again = cli("acta", "--game", "1", "--db", url, "--frames", str(folder))
    assert again.code == 2 and again.out == ""
    assert "is not an empty directory" in again.err and "Traceback" not in again.err
    assert sorted(folder.iterdir()) == before


# --- mqtt-access ------------------------------------------------------------------------------

HUB_PASSWORD = "la clave del hub"


def bridged_hall(folder: Path, *, password: str | None = HUB_PASSWORD, extra: str = "") -> Path:
    """config/hall.toml (tables R1 and B1) naming a broker, with the hub's password."""
    config = hall_config(folder, "simulated")
    mqtt = '\n[mqtt]\nurl = "mqtt://127.0.0.1:1883"\n' + extra
    if password is not None:
        mqtt += f"password = {json.dumps(password)}\n"
    config.write_text(config.read_text(encoding="utf-8") + mqtt, encoding="utf-8")
    return config


def hub_users(tables: tuple[str, ...]) -> list[str]:
    streams = [f"bingo-hub-{HALL}", *(f"bingo-hub-{HALL}-table-{t}" for t in tables)]
    return [name for stream in streams for name in (stream, f"{stream}-witness")]


def test_mqtt_access_writes_the_example_acl_and_keeps_the_hubs_users(tmp_path):
    from bingo_hall.transport.mqtt_access import password_matches

    passwd = tmp_path / "bingo.passwd"
    for index, user in enumerate(("mon-1", "term-01")):
        create = ["-c"] if index == 0 else []
        subprocess.run(["mosquitto_passwd", *create, "-b", str(passwd), user, "x"], check=True)
    others = passwd.read_text().splitlines()
    config = bridged_hall(tmp_path)
    access = ("mqtt-access", "--config", str(config), "--passwd", str(passwd))
    example = tmp_path / "example.acl"
    first = cli_many(
        {
            "users": access,
            "example": ("mqtt-access", "--config", "config/hall.toml", "--acl", str(example)),
        }
    )
    # the example ACL is exactly what the command writes for the example hall
    assert first["example"].code == 0, first["example"].err
    assert example.read_text() == (REPO / "config" / "mosquitto" / "acl").read_text()
    assert first["users"].code == 0, first["users"].err
    assert f"added {', '.join(hub_users(('R1', 'B1')))}" in first["users"].out
    lines = passwd.read_text().splitlines()
    assert lines[:2] == others  # the monitor and the terminal, as they were
    entries = dict(line.split(":", 1) for line in lines[2:])
    assert list(entries) == hub_users(("R1", "B1"))
    assert all(password_matches(stored, HUB_PASSWORD) for stored in entries.values())
    assert not password_matches("$7$²$AAAA$AAAA", HUB_PASSWORD)  # a digit int() refuses

    again = cli(*access)  # nothing to do: the file is left as it was
    assert again.code == 0 and "kept as they were: 6 of the hub's users" in again.out
    assert passwd.read_text().splitlines() == lines

    # table B1 gone, a new password: B1's users removed, the others' password set again
    text = config.read_text(encoding="utf-8")
    b1 = text[text.index('[[tables]]\nid = "B1"') : text.index("\n[mqtt]")]
    changed = text.replace(b1, "").replace(HUB_PASSWORD, "otra clave del hub")
    config.write_text(changed, encoding="utf-8")
    third = cli(*access)
    assert third.code == 0, third.err
    assert f"removed (no such table now) {', '.join(hub_users(('B1',))[2:])}" in third.out
    lines = passwd.read_text().splitlines()
    assert lines[:2] == others
    entries = dict(line.split(":", 1) for line in lines[2:])
    assert list(entries) == hub_users(("R1",))
    assert all(password_matches(stored, "otra clave del hub") for stored in entries.values())
    for result in (*first.values(), again, third):
        assert "clave" not in result.out + result.err  # never a password


def test_mqtt_access_refuses_bad_input_in_one_line_and_changes_nothing(tmp_path):
    config = bridged_hall(tmp_path)
    passwd = tmp_path / "bingo.passwd"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwd), "mon-1", "x"], check=True)
    before = passwd.read_bytes()
    folder = tmp_path / "no-password"
    folder.mkdir()
    no_password = bridged_hall(folder, password=None)
    folder = tmp_path / "username"
    folder.mkdir()
    username = bridged_hall(folder, extra='username = "hub"\n')
    folder = tmp_path / "spaced"
    folder.mkdir()
    spaced = bridged_hall(folder)
    spaced.write_text(spaced.read_text().replace('hall_id = "sala-1"', 'hall_id = "sala 1"'))
    folder = tmp_path / "witness"
    folder.mkdir()
    witness = bridged_hall(folder)  # table R1-witness's bridge would be R1's witness check
    witness.write_text(witness.read_text().replace('id = "B1"', 'id = "R1-witness"'))
    assert 'id = "R1-witness"' in witness.read_text()
    acl = str(tmp_path / "new.acl")
    pipe = tmp_path / "acl.fifo"  # read, it would wait for a writer for ever
    os.mkfifo(pipe)

    def access(hall: Path, *files: str) -> tuple[str, ...]:
        return ("mqtt-access", "--config", str(hall), *files)

    results = cli_many(
        {
            "no file": access(config),
            "same file": access(config, "--acl", str(passwd), "--passwd", str(passwd)),
            "same file named otherwise": access(
                config,
                "--acl",
                str(tmp_path / "username" / ".." / passwd.name),
                "--passwd",
                str(passwd),
            ),
            "witness table": access(witness, "--acl", acl),
            "no password": access(no_password, "--acl", acl, "--passwd", str(passwd)),
            "not a password file": access(config, "--acl", acl, "--passwd", str(config)),
            "unwritable": access(config, "--acl", acl, "--passwd", "/proc/bingo.passwd"),
            "acl a named pipe": access(config, "--acl", str(pipe)),
            "username": access(username, "--acl", acl),
            "hall id": access(spaced, "--acl", acl),
        }
    )
    for case, mentions in {
        "no file": ["give --acl FILE, --passwd FILE or both"],
        "same file": ["--acl and --passwd both name", str(passwd)],
        "same file named otherwise": ["--acl and --passwd both name"],
        "witness table": ["would be one broker user, bingo-hub-sala-1-table-R1-witness"],
        "no password": ["mqtt.password is not set"],
        "not a password file": [f"{config}: line 1 is not user:password-hash", "nothing written"],
        "unwritable": ["cannot write /proc/bingo.passwd", "nothing written"],
        "acl a named pipe": [f"ACL file {pipe} is not a regular file", "nothing written"],
        "username": ["mqtt.username", "no longer read", "bingo-hall mqtt-access"],
        "hall id": ["'sala 1': a hall id is one word, without spaces"],
    }.items():
        assert_one_line_error(results[case], *mentions)
        assert "clave" not in results[case].err
    assert passwd.read_bytes() == before
    assert not Path(acl).exists()
    assert config.read_text().startswith("table_profiles_dir")  # not written over
    assert not [p.name for p in tmp_path.glob(".*")]  # the ACL staged first: removed
