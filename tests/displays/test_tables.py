"""The casino tables on the hall monitor, in headless Chromium against a real `bingo-hall serve`
process whose configuration links a French roulette table (`[[tables]]`).

The table's head (the Jefe de Sala) opens it and its device (the croupier's station) runs the
coups over the websocket, as in tests/transport/test_tables_hub.py; the monitor shows each
phase, the outcome in its colour, the recent outcomes newest first and the limits, never a
player's bet or payment; its picture of the table is the hub's own state; it is the same after
a reload (from the hub's `tables` answer) and after a hub restart (resumed from the last seq it
saw). A hall without tables shows no table view.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from bingo_hall.tables.wheels import RED_NUMBERS
from bingo_hall.transport.messages import TableStateMessage
from support.browser import (
    FRENCH_ROULETTE,
    PASSWORD,
    HubProcess,
    PreparedHall,
    Screens,
    chromium,
    monitor_fits,
    page_in,
    staff,
)
from support.hub import Client

expect.set_options(timeout=15_000)

R1 = FRENCH_ROULETTE
# What the page keeps of a table: the hub's TableStateMessage but the bets and the settlement.
# What a panel keeps of a table: its public state, but for the croupier's station's fields (who
# spins, which way next, who heads the table), which a panel does not show.
SPINNING = {"spinning", "direction_due", "spin_rotation", "next_spinner", "head"}
PUBLIC = set(TableStateMessage.model_fields) - {
    "hall",
    "bets",
    "settlement",
    "colour_chips",
    "zero_choices",
}
PUBLIC -= SPINNING
COLOURS = """async () => {
  const { outcomeColour } = await import('/static/js/tables.js');
  const of = (game, outcomes) => outcomes.map((o) => outcomeColour(game, o));
  const roulette = Array.from({ length: 37 }, (_, n) => String(n));
  return {
    'french-roulette': of('french-roulette', roulette),
    'american-roulette-00': of('american-roulette-00', ['00', '0', '19', '29']),
    boule: of('boule', ['1', '2', '5', '9']),
    'wheel-of-fortune': of('wheel-of-fortune', ['20', 'joker']),
  };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium("--mute-audio") as launched:
        yield launched


class Hall:
    """The hub's clients, run on an event loop of their own beside Playwright's."""

    def __init__(self, hub: HubProcess, tokens: dict[str, str]) -> None:
        self.url = f"ws://127.0.0.1:{hub.port}/ws"
        self.tokens = tokens
        self.aside = ThreadPoolExecutor(1)

    def _run(self, coroutine):
        return self.aside.submit(asyncio.run, asyncio.wait_for(coroutine, 30)).result()

    def table(self, *steps: tuple[str, dict], **auth: str) -> None:
        """Table R1's commands, each of which must succeed; by its device unless `auth`."""

        async def run() -> None:
            async with Client.login(self.url, **(auth or {"token": self.tokens["mesa-r1"]})) as who:
                for command, args in steps:
                    frame = {"type": "command", "table": "R1", "command": command, "args": args}
                    answer = await who.request(frame)
                    assert answer["success"], answer

        self._run(run())

    def state(self) -> dict:
        """Table R1 as the hub states it (`tables`, asked as a monitor)."""

        async def run() -> dict:
            async with Client.login(self.url, token=self.tokens["mon-1"]) as monitor:
                answer = await monitor.request({"type": "tables"})
                return next(t for t in answer["result"]["tables"] if t["table"] == "R1")

        return self._run(run())


def coup(
    outcome: str, spin: tuple[str, str], *before_outcome: tuple[str, dict]
) -> tuple[tuple[str, dict], ...]:
    """A coup spun by `spin` (the croupier, the cylinder's direction) at R1's station."""
    spun_by, direction = spin
    return (
        ("open_bets", {}),
        ("spin", {"spun_by": spun_by, "direction": direction}),
        *before_outcome,
        ("call_no_more_bets", {}),
        ("record_outcome", {"outcome": outcome}),
    )


PAY = (("settle", {}), ("pay_coup", {}))


def same_as_the_hub(monitor: Page, hall: Hall) -> dict:
    """The page's picture of R1 is the hub's state (its public part)."""
    hub = {key: value for key, value in hall.state().items() if key in PUBLIC}
    (page,) = monitor.evaluate("window.bingoMonitor.tables()")
    assert {key: page[key] for key in PUBLIC} == hub
    assert "bets" not in page and "settlement" not in page  # a public panel keeps none
    return hub


def shows_outcomes(monitor: Page, outcome: str, colour: str, recent: list[tuple[str, str]]):
    """The outcome large in its colour; the recent outcomes newest first, in theirs."""
    table = monitor.locator(".m-table[data-table='R1']")
    expect(table.locator(".m-table-outcome")).to_have_text(outcome)
    expect(table.locator(".m-table-outcome")).to_have_attribute("data-colour", colour)
    pockets = table.locator(".m-table-recent li")
    expect(pockets).to_have_text([n for n, _ in recent])
    assert [p.get_attribute("data-colour") for p in pockets.all()] == [c for _, c in recent]


def test_the_monitor_follows_a_french_roulette_table(browser, tmp_path):
    prepared = PreparedHall(
        tmp_path,
        profile="1979",
        display_delay=0.2,
        tables=[R1],
        staff={"crupier": "croupier", "luis": "croupier"},
    )
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    hall = Hall(hub, prepared.tokens)
    screens = Screens(first=70)
    try:
        _, monitor = page_in(browser, 1920, 1080)
        monitor.goto(f"{hub.base}/monitor#token={prepared.tokens['mon-1']}")
        table = monitor.locator("#m-tables .m-table[data-table='R1']")
        phase = table.locator(".m-table-phase")
        expect(table.locator(".m-table-name")).to_have_text("Ruleta francesa 1")
        expect(table.locator(".m-table-game")).to_have_text("Ruleta francesa")
        expect(phase).to_have_text("Mesa cerrada")
        expect(monitor.locator("body")).to_have_attribute("data-tables", "1")
        expect(monitor.locator("#m-state")).to_have_text("Sala cerrada")  # the bingo beside it

        # the pockets' colours are the catalogue's (N79 L107), as the rules engine has them
        colours = monitor.evaluate(COLOURS)
        assert colours["french-roulette"] == ["green"] + [
            "red" if n in RED_NUMBERS else "black" for n in range(1, 37)
        ]
        assert colours["american-roulette-00"] == ["green", "green", "red", "black"]
        assert colours["boule"] == ["black", "red", "house", "red"]
        assert colours["wheel-of-fortune"] == ["segment-20", "segment-joker"]

        # coup 1: «Hagan juego», a player's bet (never on the panel), «No va más», 17
        rotation = ("set_spin_rotation", {"croupiers": ["crupier", "luis"]})
        hall.table(("open_table", {}), rotation, user="sala", password=PASSWORD)
        expect(phase).to_have_text("Mesa abierta")
        limits = table.locator(".m-table-limit dd")
        expect(limits).to_have_text(["5,00 €", "150,00 €", "2.700,00 €"])
        expect(table.locator(".m-table-limit dt")).to_have_text(
            ["Mínimo", "Máximo a pleno", "Máximo suertes sencillas"]
        )
        ana = {"id": "b1", "type": "straight", "numbers": [17], "amount": "5", "player": "ana"}
        spin = ("spin", {"spun_by": "crupier", "direction": "clockwise"})
        hall.table(("open_bets", {}), spin, ("place_bet", {"bet": ana}))
        expect(phase).to_have_text("Hagan juego")
        expect(table.locator(".m-table-coup")).to_have_text("Jugada 1")
        hall.table(("call_no_more_bets", {}))
        expect(phase).to_have_text("No va más")
        hall.table(("record_outcome", {"outcome": "17"}))
        expect(phase).to_have_text("Resultado")
        shows_outcomes(monitor, "17", "black", [("17", "black")])
        hall.table(*PAY)
        expect(phase).to_have_text("Mesa abierta")
        expect(table.locator(".m-table-outcome.previous")).to_have_text("17")  # until the next
        assert "ana" not in table.inner_text() and "180" not in table.inner_text()  # its win

        # coup 2 ends on zero; coup 3, announced as the last, on 32
        hall.table(*coup("0", ("luis", "anticlockwise")))
        shows_outcomes(monitor, "0", "green", [("0", "green"), ("17", "black")])
        hall.table(*PAY, *coup("32", ("crupier", "clockwise"), ("announce_last_coups", {})))
        expect(table.locator(".m-table-note")).to_have_text("Última jugada")
        expect(table.locator(".m-table-coup")).to_have_text("Jugada 3")
        recent = [("32", "red"), ("0", "green"), ("17", "black")]
        shows_outcomes(monitor, "32", "red", recent)
        state = same_as_the_hub(monitor, hall)
        assert state["recent_outcomes"] == ["17", "0", "32"]  # the hub's order: oldest first
        monitor_fits(monitor)
        screens.shot(monitor, "monitor-table-1920")
        monitor.set_viewport_size({"width": 1280, "height": 720})
        monitor_fits(monitor)
        screens.shot(monitor, "monitor-table-1280")

        # a reload starts from the hub's `tables` answer
        monitor.reload()
        shows_outcomes(monitor, "32", "red", recent)
        expect(phase).to_have_text("Resultado")
        same_as_the_hub(monitor, hall)

        # a hub restart: the page resumes the table's stream from the last seq it saw
        hub.stop()
        expect(monitor.locator("#m-conn")).to_have_attribute("data-state", "reconnecting")
        hub.start()
        expect(monitor.locator("#m-conn")).to_have_attribute("data-state", "live")
        hall.table(*PAY)
        expect(table.locator(".m-table-note")).to_have_text("Última jugada terminada")
        expect(phase).to_have_text("Mesa abierta")
        shows_outcomes(monitor, "32", "red", recent)
        assert same_as_the_hub(monitor, hall)["seq"] == 22
        assert monitor.errors == [], monitor.errors  # type: ignore[attr-defined]
    finally:
        hall.aside.shutdown()
        hub.stop()


def cell(view: Locator, label: str) -> Locator:
    """The value beside the heading `label` (exactly) in a record's table."""
    return view.locator(f"tr:has(th:text-is('{label}')) td")


def test_the_inspector_reads_a_tables_record_on_the_control_page(browser, tmp_path):
    """The control page lists the hall's tables for those who read their records (the
    director, the inspector, the tables' heads and inspectors); the record of a session, its
    latest by default, opens beside the acta's view with its chain verified and its official
    text. A session there is not is named with those there are; a role that does not read
    the tables' records has no such panel."""
    prepared = PreparedHall(
        tmp_path,
        profile="1979",
        tables=[R1],
        staff={"crupier": "croupier", "luis": "croupier", "inspeccion": "inspector"},
    )
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    hall = Hall(hub, prepared.tokens)
    try:
        rotation = ("set_spin_rotation", {"croupiers": ["crupier", "luis"]})
        hall.table(("open_table", {}), rotation, user="sala", password=PASSWORD)
        ana = {"id": "b1", "type": "straight", "numbers": [17], "amount": "5", "player": "ana"}
        spin = ("crupier", "clockwise")
        hall.table(*coup("17", spin, ("place_bet", {"bet": ana})), *PAY)
        hall.table(("close_table", {"seal": "precinto-0042"}), user="sala", password=PASSWORD)
        reopen = ("open_table", {"seal_found": "precinto-0042"})
        hall.table(reopen, rotation, user="sala", password=PASSWORD)

        inspector = staff(browser, hub.base, "inspeccion")
        panel = inspector.locator("#p-table-record")
        expect(panel).to_be_visible()
        expect(panel.locator("h2")).to_have_text("Registro de las mesas de juego")
        expect(inspector.locator("#table-record-table option")).to_have_text(
            ["R1 — Ruleta francesa"]
        )
        view = inspector.locator("#acta-view")

        inspector.click("#table-record-open")  # the latest session: open again
        expect(view.locator("h1")).to_have_text("Registro de la mesa R1, sesión 2 — sala-web")
        expect(view.locator(".chain-ok")).to_be_visible()
        expect(cell(view, "Sesiones de la mesa")).to_have_text("1, 2")
        expect(cell(view, "Cierre")).to_have_text("la mesa sigue abierta")
        expect(cell(view, "Precinto al abrir")).to_have_text("precinto-0042, el del último cierre")
        expect(view.locator("pre.official")).to_contain_text("REGISTRO DE LA MESA R1 — SESIÓN 2")
        inspector.click("#acta-close")

        inspector.fill("#table-record-session", "1")
        inspector.click("#table-record-open")
        expect(view.locator("h1")).to_have_text("Registro de la mesa R1, sesión 1 — sala-web")
        expect(cell(view, "Juego (reglamento)")).to_have_text("Ruleta francesa (1979)")
        closed = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC, por sala$")
        expect(cell(view, "Cierre")).to_have_text(closed)
        expect(cell(view, "Precinto del cilindro")).to_have_text("precinto-0042")
        expect(cell(view, "Precinto al abrir")).to_have_text("—")  # the table's first session
        expect(cell(view, "Jugadas liquidadas")).to_have_text("1")
        expect(cell(view, "Apostado")).to_have_text("5,00 €")
        expect(cell(view, "Devuelto a los jugadores")).to_have_text("180,00 €")
        expect(cell(view, "Resultado de la banca")).to_have_text("-175,00 €")
        official = view.locator("pre.official")
        expect(official).to_contain_text("REGISTRO DE LA MESA R1 — SESIÓN 1")
        expect(official).to_contain_text("precinto-0042")
        expect(official).to_contain_text("por sala); coincide, se abre la sesión 2")
        Screens(first=75).shot(inspector, "control-table-record")
        inspector.click("#acta-close")

        toasts = inspector.locator("#c-toasts .toast")
        inspector.fill("#table-record-session", "9")
        inspector.click("#table-record-open")
        expect(toasts.last).to_contain_text("la mesa R1 no tiene la sesión 9 (sus sesiones: 1, 2)")
        inspector.fill("#table-record-session", "-1")
        inspector.click("#table-record-open")
        expect(toasts.last).to_have_text("La sesión es un número: déjela en blanco para la última.")
        expect(view).to_be_hidden()

        locutor = staff(browser, hub.base, "locutor")  # sells cards: reads no table's record
        expect(locutor.locator("#p-acta")).to_be_hidden()
        expect(locutor.locator("#p-table-record")).to_be_hidden()
        for page in (inspector, locutor):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        hall.aside.shutdown()
        hub.stop()


def test_a_hall_without_tables_shows_no_table_view(browser, tmp_path):
    prepared = PreparedHall(tmp_path, profile="1979")
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    try:
        _, monitor = page_in(browser, 1280, 720)
        monitor.goto(f"{hub.base}/monitor#token={prepared.tokens['mon-1']}")
        expect(monitor.locator("body")).to_have_attribute("data-tables", "0")  # asked, none
        expect(monitor.locator("#m-tables")).to_be_hidden()
        expect(monitor.locator("body")).not_to_have_class(re.compile("with-tables"))
        monitor_fits(monitor)
        director = staff(browser, hub.base, "sala")  # reads tables' records: there are none
        expect(director.locator("#p-acta")).to_be_visible()
        expect(director.locator("#p-table-record")).to_be_hidden()
        assert monitor.errors == [], monitor.errors  # type: ignore[attr-defined]
    finally:
        hub.stop()


def test_the_monitor_shows_a_basque_table_closed_for_a_while_and_open_again(browser, tmp_path):
    """EUS L306: the director closes a table left without customers for a while; the panel
    says so, and shows it open again when he resumes it with a croupier and its head there.
    The hub runs on the wall clock: the casino closes twelve hours from now (EUS L2931 d asks
    for an hour left)."""
    basque = R1 | {"profile": "basque", "limits": {"minimum": "5", "tier": 30}}
    closing = datetime.now(ZoneInfo("Europe/Madrid")) + timedelta(hours=12)
    prepared = PreparedHall(
        tmp_path,
        profile="1979",
        tables=[basque | {"float_amount": "20000"}],
        staff={"crupier": "croupier", "jmj": "jefe_de_mesa_de_juego"},
        closing_time=f"{closing:%H:%M}",
    )
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    hall = Hall(hub, prepared.tokens)
    director = {"user": "sala", "password": PASSWORD}
    try:
        _, monitor = page_in(browser, 1920, 1080)
        monitor.goto(f"{hub.base}/monitor#token={prepared.tokens['mon-1']}")
        phase = monitor.locator("#m-tables .m-table[data-table='R1'] .m-table-phase")
        expect(phase).to_have_text("Mesa cerrada")
        hall.table(("open_table", {}), ("suspend_table", {}), **director)
        expect(phase).to_have_text("Mesa cerrada temporalmente")
        assert same_as_the_hub(monitor, hall)["phase"] == "suspended"
        monitor.reload()  # from the hub's `tables` answer
        expect(phase).to_have_text("Mesa cerrada temporalmente")
        resume = {"croupier": "crupier", "head": "jmj"}
        hall.table(("resume_table", resume), **director)
        expect(phase).to_have_text("Mesa abierta")
        assert same_as_the_hub(monitor, hall)["phase"] == "idle"
        assert "20000" not in monitor.locator("#m-tables").inner_text()  # the bank's float
        assert monitor.errors == [], monitor.errors  # type: ignore[attr-defined]
    finally:
        hall.aside.shutdown()
        hub.stop()
