"""The pages' HTTP routes on a real hub (in-process, ephemeral port): content types, 404s,
directory traversal refused, the data routes (/api/start, /api/hall, /api/acta, /audio) with
staff authentication checked off the event loop; and the translation files' completeness."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import get_args

import pytest

from bingo_hall.config import load_config
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.service import HallService
from bingo_hall.serve import authenticator
from bingo_hall.store.cards import CardStore
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.transport import page_data
from bingo_hall.transport.pages import StaticFiles
from bingo_hall.transport.routes import http_routes
from bingo_hall.transport.ws_server import HubServer
from support.demo import open_log
from support.hub import PASSWORD, Client, open_game, prepare_store

REPO = Path(__file__).resolve().parents[2]
DISPLAYS = REPO / "displays"


@asynccontextmanager
async def hub_with_pages(url: str) -> AsyncIterator[int]:
    """A hub serving the pages as `bingo-hall serve` does (routes.py), on a free port."""
    config = load_config(REPO / "config" / "hall.toml").model_copy(update={"profile": "basque"})
    log = open_log(url)
    service = await asyncio.to_thread(HallService, log, config.hall_id)
    runtime = HubRuntime(service, CardStore(log.engine), config, config.load_profile())
    routes = http_routes(runtime)
    server = HubServer(runtime, authenticator(CredentialStore(log.engine)), routes=routes)
    ws_server = await server.start("127.0.0.1", 0)
    try:
        yield ws_server.sockets[0].getsockname()[1]
    finally:
        ws_server.close()
        await ws_server.wait_closed()
        log.engine.dispose()


def get(port: int, path: str, headers: dict[str, str] | None = None):
    """A raw GET: the path is sent exactly as written (no client-side normalisation)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


async def aget(port: int, path: str, headers: dict[str, str] | None = None):
    return await asyncio.to_thread(get, port, path, headers)


async def staff_get(port: int, path: str, user: str, password: str = PASSWORD):
    """Ask again while the hub answers 202 (the password is being checked off the loop)."""
    auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    for _ in range(200):
        status, headers, body = await aget(port, path, {"Authorization": auth})
        if status != 202:
            return status, headers, body
        assert headers["Retry-After"]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} stayed pending")


@pytest.fixture
def store(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'pages.sqlite'}"
    prepare_store(url)
    audio = tmp_path / "audio"
    (audio / "es").mkdir(parents=True)
    (audio / "es" / "37.wav").write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt fake")
    monkeypatch.setattr(page_data, "AUDIO_DIR", audio)
    return url


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def test_pages_and_assets_have_their_content_types(store):
    async def scenario():
        async with hub_with_pages(store) as port:
            expected = {
                "/": "text/html; charset=utf-8",
                "/control": "text/html; charset=utf-8",
                "/monitor": "text/html; charset=utf-8",
                "/terminal": "text/html; charset=utf-8",
                "/static/js/hub.js": "text/javascript; charset=utf-8",
                "/static/css/monitor.css": "text/css; charset=utf-8",
                "/i18n/eu.json": "application/json; charset=utf-8",
                "/audio/es/37.wav": "audio/wav",
            }
            for path, content_type in expected.items():
                status, headers, body = await aget(port, path)
                assert (status, headers["Content-Type"]) == (200, content_type), path
                assert int(headers["Content-Length"]) == len(body)
                assert headers["X-Content-Type-Options"] == "nosniff"
            status, headers, body = await aget(port, "/control")
            assert "script-src 'self'" in headers["Content-Security-Policy"]
            assert b'src="/static/js/control.js"' in body
            status, _, body = await aget(port, "/static/js/hub.js?v=2")  # a query is ignored
            assert status == 200 and b"export class Hub" in body
            assert json.loads((await aget(port, "/i18n/es.json"))[2])["_meta.name"] == "Español"
            assert (await aget(port, "/health"))[0] == 200  # the hub's own routes still answer

    run(scenario())


@pytest.mark.parametrize(
    "path",
    [
        "/static/js/nope.js",
        "/i18n/xx.json",
        "/nothing-here",
        "/controls",
        "/static/",
        "/static/js",
        "/audio/es/91.wav",
        "/audio/es/0.wav",
        "/audio/xx/1.wav",
        "/audio/es/36.wav",  # not prepared (and no espeak-ng run in this test's cache)
        "/static/../pyproject.toml",
        "/static/js/../../control.html",
        "/static/..%2f..%2fpyproject.toml",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/i18n/..%5c..%5cpyproject.toml",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/.hidden",
        "/static/js/hub.js%00.png",
        "/static/%ff.js",
        "/i18n/../README.md",
        "/api/nothing",
    ],
)
def test_unknown_files_and_traversal_are_404(store, path):
    async def scenario():
        async with hub_with_pages(store) as port:
            status, _, body = await aget(port, path)
            assert status == 404, (path, body)
            assert b"bingo-hall" not in body and b"[project]" not in body

    run(scenario())


def test_static_files_refuse_a_symlink_out_of_their_folder(tmp_path):
    root = tmp_path / "displays"
    (root / "static").mkdir(parents=True)
    (root / "static" / "ok.js").write_text("export {};\n")
    secret = tmp_path / "secret.js"
    secret.write_text("the hall's secrets\n")
    (root / "static" / "leak.js").symlink_to(secret)
    (root / "static" / "run.sh").write_text("echo\n")
    files = StaticFiles(root)
    assert files.find("static/ok.js") == (root / "static" / "ok.js").resolve()
    assert files.find("static/leak.js") is None
    assert files.find("static/run.sh") is None  # not a content type the pages use
    assert files.find("static/../static/ok.js") is None


def test_start_data_tells_where_each_command_is_legal(store):
    async def scenario():
        async with hub_with_pages(store) as port:
            status, headers, body = await aget(port, "/api/start")
            data = json.loads(body)
            assert status == 200 and headers["Content-Type"].startswith("application/json")
            assert data["hall"] == "sala-1" and data["seq"] == 0 and data["session_from"] == 0
            assert data["phase"] == "session_closed"
            assert data["legal"]["open_session"] == ["session_closed"]
            assert data["legal"]["buy_cards"] == ["selling"]
            assert data["draw"] == "certified_random"

    run(scenario())


def test_staff_data_needs_a_staff_password_and_the_acta_a_jefe(store):
    async def scenario():
        async with hub_with_pages(store) as port:
            # a game under way, so that the log has a session and a game
            url = f"ws://127.0.0.1:{port}/ws"
            async with (
                Client.login(url, user="sala", password=PASSWORD) as staff,
                Client.login(url, user="locutor", password=PASSWORD) as locutor,
            ):
                await staff.ok(
                    "register_ball_set", ball_set_id="JB-0", homologation="CNJ-BOLAS-0001"
                )
                await open_game(staff, locutor)
            assert (await aget(port, "/api/hall"))[0] == 401
            refused = await staff_get(port, "/api/hall", "mesa", "not the password")
            assert refused[0] == 401
            assert json.loads(refused[2])["error"]["code"] == "unauthorized"
            status, _, body = await staff_get(port, "/api/hall", "caja")
            hall = json.loads(body)
            assert status == 200 and hall["phase"] == "drawing"
            assert hall["session_from"] == 2  # two ball sets, then the session opened at seq 3
            assert {s["ball_set_id"] for s in hall["ball_sets"]} == {"JB-0", "JB-1"}
            (series,) = hall["series"]
            assert series == {
                "series_id": "A1",
                "face_value": "1.50",
                "size": 120,
                "next_number": 61,
                "remaining": 60,
            }
            assert hall["ball_set_game_limit"] == 1000 and hall["game_id"] == 1

            forbidden = await staff_get(port, "/api/acta?game=1", "caja")
            assert forbidden[0] == 403
            assert (await staff_get(port, "/api/acta", "mesa"))[0] == 400
            assert (await staff_get(port, "/api/acta?game=x", "mesa"))[0] == 400
            for digits in ("%C2%B2", "%D9%A1"):  # ² and Arabic-Indic 1: digits, not numbers
                for name in ("game", "session"):
                    refused = await staff_get(port, f"/api/acta?{name}={digits}", "mesa")
                    assert refused[0] == 400 and b"must be a number" in refused[2], refused
            assert (await staff_get(port, "/api/acta?game=9", "mesa"))[0] == 404
            status, _, body = await staff_get(port, "/api/acta?game=1", "mesa")
            acta = json.loads(body)
            assert status == 200 and acta["acta"]["chain"]["ok"]
            assert "PARTIDA 1" in acta["text"]
            status, _, body = await staff_get(port, "/api/acta?session=1", "sala")
            assert status == 200 and json.loads(body)["acta"]["session"]["session_id"] == 1

    run(scenario())


# --- the translation files --------------------------------------------------------------------


def _texts(lang: str) -> dict[str, str]:
    return json.loads((DISPLAYS / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_every_language_has_every_text_and_the_same_placeholders():
    spanish = _texts("es")
    for lang in ("eu", "en"):
        other = _texts(lang)
        assert other.keys() == spanish.keys(), set(other) ^ set(spanish)
        for key, text in spanish.items():
            fields = set(re.findall(r"\{(\w+)\}", text))
            assert set(re.findall(r"\{(\w+)\}", other[key])) == fields, (lang, key)
            assert other[key], (lang, key)


def test_every_text_the_pages_use_is_in_the_translation_files():
    keys = set(_texts("es"))
    used: set[str] = set()
    for page in DISPLAYS.glob("*.html"):
        attributes = r'data-i18n(?:-placeholder|-title|-label)?="([^"]+)"'
        used |= set(re.findall(attributes, page.read_text()))
    namespaces = {key.split(".")[0] for key in keys}
    for script in (DISPLAYS / "static" / "js").glob("*.js"):
        literals = re.findall(r"'((?:[a-z_]+\.)+[a-z_0-9]+)'", script.read_text())
        used |= {key for key in literals if key.split(".")[0] in namespaces}
    assert used - keys == set()
    # keys built at run time: one per phase, event, role, reason and command of the hub
    from bingo_hall.domain import claims
    from bingo_hall.domain.decide import NOT_SOLD
    from bingo_hall.domain.events import EVENT_TYPES, CameraCheck, CheckVerdict
    from bingo_hall.domain.phases import Phase
    from bingo_hall.domain.profiles import VoidReason
    from bingo_hall.hub.auth import KNOWN_COMMANDS, Role
    from bingo_hall.tables.phases import TablePhase
    from bingo_hall.tables.profiles import GameName
    from bingo_hall.transport.messages import ERROR_CODES
    from bingo_hall.transport.page_data import CAMERA_KINDS

    dynamic = {f"phase.{p.value}" for p in Phase} | {f"monitor.state.{p.value}" for p in Phase}
    dynamic |= {f"event.{name}" for name in EVENT_TYPES} | {f"role.{r.value}" for r in Role}
    dynamic |= {f"command.{name}" for name in KNOWN_COMMANDS}
    dynamic |= {f"commissioning.how_{kind}" for kind in CAMERA_KINDS if kind != "none"}
    dynamic |= {f"void.reason.{r.value}" for r in VoidReason}
    dynamic |= {f"check.{verdict}" for verdict in get_args(CheckVerdict)}
    camera_reasons = get_args(get_args(CameraCheck.model_fields["reason"].annotation)[0])
    dynamic |= {f"hold.reason.{reason}" for reason in camera_reasons}
    claim_reasons = {value for name, value in vars(claims).items() if name.isupper()}
    dynamic |= {f"claim.reason.{r}" for r in claim_reasons | {NOT_SOLD} if isinstance(r, str)}
    dynamic |= {f"table.phase.{p.value}" for p in TablePhase}
    dynamic |= {f"table.game.{g.value}" for g in GameName}
    dynamic |= {f"error.{code}" for code in ERROR_CODES}
    # a table's station: its commands, bets, voids, directions, results and totals
    from bingo_hall.tables.catalogue import BOULE_BET_TYPES, FORTUNE_BET_TYPES, ROULETTE_BET_TYPES
    from bingo_hall.tables.commands import COMMAND_TYPES as TABLE_COMMANDS
    from bingo_hall.tables.profiles import SpinDirection
    from bingo_hall.tables.profiles import VoidReason as TableVoidReason
    from bingo_hall.tables.settlement import BetStatus, Totals

    dynamic |= {f"command.{name}" for name in TABLE_COMMANDS}
    bet_types = {*ROULETTE_BET_TYPES, *BOULE_BET_TYPES, *FORTUNE_BET_TYPES}
    dynamic |= {f"table.bet_type.{kind}" for kind in bet_types}
    dynamic |= {f"table.void_reason.{r.value}" for r in TableVoidReason}
    dynamic |= {f"station.dir.{d.value}" for d in SpinDirection}
    dynamic |= {f"station.status.{s.value}" for s in BetStatus}
    dynamic |= {f"station.total.{name}" for name in Totals.model_fields if name != "residue"}
    assert dynamic - keys == set()


def test_no_text_is_written_into_the_pages():
    """Visible words come from the translation files: the HTML elements hold none."""
    for page in DISPLAYS.glob("*.html"):
        html = page.read_text()
        body = html.split("<body", 1)[1]
        body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
        body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
        texts = [w.strip() for w in re.findall(r">([^<]+)<", body)]
        words = [w for w in texts if w and w not in {"—", "0", "·"}]
        assert words == [], (page.name, words)


def test_the_basque_names_of_the_table_games_are_basque():
    """A Basque monitor shows each table's game in Basque with the Spanish beneath: the same
    text twice («Bola (boule) Bola (boule)») is a Spanish text in the Basque file."""
    spanish, basque = _texts("es"), _texts("eu")
    games = [key for key in spanish if key.startswith("table.game.")]
    assert games
    assert [key for key in games if basque[key] == spanish[key]] == []


def _station_data(profile: str, game: str) -> dict:
    from bingo_hall.hub.table_runtime import TableSpec
    from bingo_hall.tables.config import find_table_profile
    from bingo_hall.tables.limits import LimitChoice
    from bingo_hall.tables.profiles import table_game
    from bingo_hall.transport.page_data import table_data

    rules = table_game(find_table_profile(profile, REPO / "config" / "tables"), game)
    return table_data(TableSpec("T1", "Mesa 1", rules, LimitChoice(minimum=Decimal(5))))


def test_a_tables_station_offers_its_catalogues_bets_and_its_wheels_outcomes():
    """`/api/start` gives each table's station what to offer: the bets its profile lists, the
    outcomes in the order people read them (the zeros first), its voids and particulars."""
    double_zero = _station_data("asturias", "american-roulette-00")
    assert double_zero["outcomes"] == ["0", "00", *map(str, range(1, 37))]
    assert {"zero_split", "five_number"} <= set(double_zero["bet_types"])
    assert double_zero["zero_choices"] is False and double_zero["revolutions"] is False
    french = _station_data("1979", "french-roulette")
    assert french["outcomes"] == list(map(str, range(37)))
    assert french["zero_choices"] is True and "zero_split" not in french["bet_types"]
    fortune = _station_data("basque", "wheel-of-fortune")
    assert fortune["bet_types"] == ["segment"] and fortune["revolutions"] is True
    assert "pointer_on_pin" in fortune["void_reasons"]
    numbered = [o for o in fortune["outcomes"] if o.isdigit()]
    assert fortune["outcomes"][: len(numbered)] == sorted(numbered, key=int)
    basque = _station_data("basque", "french-roulette")
    assert basque["void_in_absence_by"] == ["croupier"]
