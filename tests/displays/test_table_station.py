"""A casino table's station (`/table`), in headless Chromium against a real `bingo-hall serve`
whose configuration links a French roulette table.

The director opens the table and sets the croupiers' rotation from the station; a croupier
logged in as himself enters the players' bets, spins, calls «no va más», keys the number,
settles and pays; the settlement shown is the hub's, to the cent. The table's own device (its
token in the address) runs the next coup, naming the croupier at the wheel, and a zero's
choice. Refusals are said in the page's language with the hub's reason; the director closes
the table with its seal, and the station must give that seal to open it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from support.browser import (
    FRENCH_ROULETTE,
    HubProcess,
    PreparedHall,
    Screens,
    chromium,
    page_in,
    staff,
)

expect.set_options(timeout=15_000)

R1 = FRENCH_ROULETTE
R2 = {**R1, "id": "R2", "name": "Ruleta francesa 2", "limits": {"minimum": "10"}}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium("--mute-audio") as launched:
        yield launched


def station(browser: Browser, base: str, user: str, lang: str | None = None) -> Page:
    return staff(browser, base, user, lang, screen="table")


def bet(page: Page, kind: str, numbers: str, amount: str, player: str) -> None:
    page.select_option("#t-bet-type", kind)
    page.fill("#t-bet-numbers", numbers)
    page.fill("#t-bet-amount", amount)
    page.fill("#t-bet-player", player)
    page.click("#t-bet button[type=submit]")


def fits_the_width(page: Page) -> bool:
    """Nothing widens the page beyond its window (a panel's table scrolls inside it)."""
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth")


def hub_state(page: Page) -> dict:
    return page.evaluate("window.bingoTable.state()")


def test_a_croupier_runs_a_french_roulette_coup_from_the_station(browser, tmp_path):
    prepared = PreparedHall(
        tmp_path,
        profile="1979",
        tables=[R1, R2],
        staff={"crupier": "croupier", "luis": "croupier"},
    )
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    screens = Screens(first=80)
    try:
        # the director: opens R1 and sets the rotation; he enters no bet
        director = station(browser, hub.base, "sala")
        expect(director.locator("#t-table option")).to_have_text(
            ["R1 — Ruleta francesa", "R2 — Ruleta francesa"]
        )
        expect(director.locator("#t-phase")).to_have_text("Mesa cerrada")
        expect(director.locator("#p-bets")).to_be_hidden()
        expect(director.locator("#t-open-bets")).to_be_disabled()  # closed: not yet
        director.click("#t-open button[type=submit]")
        expect(director.locator("#t-phase")).to_have_text("Mesa abierta")
        expect(director.locator("#t-limits dd")).to_have_text(["5,00 €", "150,00 €", "2.700,00 €"])

        # a croupier: «hagan juego» before the rotation is set is refused, in Spanish
        croupier = station(browser, hub.base, "crupier")
        expect(croupier.locator("#t-phase")).to_have_text("Mesa abierta")
        expect(croupier.locator("#p-direction")).to_be_hidden()  # the head's, not his
        toasts = croupier.locator("#t-toasts .toast")
        croupier.click("#t-open-bets")
        expect(toasts.last).to_have_text(
            "Hagan juego: no aceptado (contrario a las reglas). no hay turno de lanzamiento: "
            "la dirección fija el orden de los croupiers (Fijar el turno de lanzamiento) antes "
            "de la primera jugada (N79 L127, L424)"
        )
        director.fill("#t-rotation-croupiers", "crupier, luis")
        director.click("#t-rotation button[type=submit]")
        expect(croupier.locator("#t-spinner")).to_have_text("crupier")

        croupier.click("#t-open-bets")
        expect(croupier.locator("#t-phase")).to_have_text("Hagan juego")
        expect(croupier.locator("#t-coup")).to_have_text("1")
        bet(croupier, "straight", "17", "5", "ana")
        bet(croupier, "red", "", "10", "bea")
        bet(croupier, "split", "17-20", "2,50", "carla")  # below the minimum of 5
        expect(toasts.last).to_contain_text("una apuesta a Caballo de 2.50 no llega al mínimo 5")
        bet(croupier, "black", "", "3000", "dani")  # above the even chances' maximum
        expect(toasts.last).to_contain_text("una apuesta a Negro de 3000 supera su máximo 2700")
        bet(croupier, "black", "", "cinco", "dani")  # not an amount: never sent
        expect(toasts.last).to_have_text(
            "«cinco» no es un importe: escriba euros con decimales opcionales (p. ej. 5 o 2,50)."
        )
        bet(croupier, "black", "", "20", "dani")
        rows = croupier.locator("#t-bets tbody tr")
        expect(rows).to_have_count(3)
        expect(croupier.locator("#t-bets-total")).to_have_text("3 apuestas, 35,00 € en total")
        dani = rows.filter(has_text="dani")
        dani.locator("button[data-action=withdraw]").click()  # he takes it back
        expect(rows).to_have_count(2)
        expect(rows.nth(0).locator("td")).to_have_text(
            [re.compile(r"^1-[0-9a-f]{6}$"), "ana", "Pleno", "17", "5,00 €", "Retirar"]
        )

        # the first spin of the session sets the direction: none given is refused
        croupier.select_option("#t-direction", "")
        croupier.click("#t-spin button[type=submit]")
        expect(toasts.last).to_contain_text(
            "indique el sentido del cilindro (horario o antihorario)"
        )
        croupier.select_option("#t-direction", "clockwise")
        croupier.click("#t-spin button[type=submit]")
        expect(croupier.locator("#t-note")).to_have_text("La bola gira")
        expect(croupier.locator("#t-spin button")).to_be_disabled()
        croupier.click("#t-no-more-bets")
        expect(croupier.locator("#t-phase")).to_have_text("No va más")
        croupier.select_option("#t-outcome-value", "17")
        croupier.click("#t-outcome-form button[type=submit]")
        expect(croupier.locator("#t-phase")).to_have_text("Resultado")
        expect(croupier.locator("#t-outcome")).to_have_text("17")
        expect(croupier.locator("#t-outcome")).to_have_attribute("data-colour", "black")
        croupier.click("#t-settle")
        settlement = croupier.locator("#p-settlement")
        expect(settlement).to_be_visible()
        totals = settlement.locator("#t-settlement-totals dd")
        expect(totals).to_have_text(["15,00 €", "180,00 €", "0,00 €", "-165,00 €"])
        results = settlement.locator("#t-results tbody tr")
        expect(results.filter(has_text="ana").locator("td").nth(4)).to_have_text("Gana")
        expect(results.filter(has_text="ana").locator("td").nth(5)).to_have_text("180,00 €")
        expect(results.filter(has_text="bea").locator("td").nth(4)).to_have_text("Pierde")
        expect(settlement.locator("#t-payments li")).to_have_count(1)
        expect(settlement.locator("#t-payments li")).to_contain_text("180,00 € a ana")
        state = hub_state(croupier)
        assert Decimal(state["settlement"]["totals"]["bank_result"]) == Decimal("-165")
        assert fits_the_width(croupier)
        screens.shot(croupier, "table-station-settlement", full=True)
        croupier.click("#t-pay")
        expect(croupier.locator("#t-phase")).to_have_text("Mesa abierta")
        expect(settlement).to_be_hidden()
        expect(croupier.locator("#t-recent li")).to_have_text(["17"])

        # the table's own device: bound to R1, it names the croupier at the wheel (luis's
        # turn), and a player on an even chance chooses on a zero
        _, device = page_in(browser, 1280, 900)
        device.goto(f"{hub.base}/table#token={prepared.tokens['mesa-r1']}")
        expect(device.locator("#t-conn")).to_have_attribute("data-state", "live")
        expect(device.locator("#t-table-choice")).to_be_hidden()
        expect(device.locator("#t-name")).to_have_text("Ruleta francesa 1 (R1)")
        expect(device.locator("#t-logout")).to_be_hidden()
        device.click("#t-open-bets")
        bet(device, "red", "", "10", "ana")
        expect(device.locator("#t-spun-by")).to_have_value("luis")
        expect(device.locator("#t-direction")).to_have_value("anticlockwise")  # opposite
        device.select_option("#t-spun-by", "crupier")  # not his turn
        device.click("#t-spin button[type=submit]")
        expect(device.locator("#t-toasts .toast").last).to_contain_text(
            "le toca lanzar a luis (turno: crupier, luis; N79 L127), no a crupier"
        )
        device.select_option("#t-spun-by", "luis")
        device.click("#t-spin button[type=submit]")
        device.click("#t-no-more-bets")
        device.select_option("#t-outcome-value", "0")
        device.click("#t-outcome-form button[type=submit]")
        expect(device.locator("#t-outcome")).to_have_attribute("data-colour", "green")
        device.locator("#t-bets button[data-action=zero-half]").click()
        expect(device.locator("#t-bets button[data-action=zero-half]")).to_have_class(
            re.compile("chosen")
        )
        device.click("#t-settle")
        half = device.locator("#t-results tbody tr").first
        expect(half.locator("td").nth(4)).to_have_text("Recupera la mitad")
        expect(half.locator("td").nth(5)).to_have_text("5,00 €")
        device.click("#t-pay")
        expect(device.locator("#t-recent li")).to_have_text(["0", "17"])
        assert fits_the_width(device)
        screens.shot(device, "table-station-device")

        # the director closes the table with its seal; it opens again only on that seal
        director.fill("#t-close-seal", "precinto-0042")
        expect(director.locator("#t-float-count")).to_be_hidden()  # it keeps no float
        director.click("#t-close button[type=submit]")
        expect(director.locator("#t-phase")).to_have_text("Mesa cerrada")
        expect(device.locator("#t-phase")).to_have_text("Mesa cerrada")
        director.click("#t-open button[type=submit]")
        expect(director.locator("#t-toasts .toast").last).to_contain_text(
            "el cilindro se cerró con el precinto precinto-0042: indique el precinto"
        )
        expect(director.locator("#t-phase")).to_have_text("Mesa cerrada")  # nothing changed
        director.fill("#t-seal-found", "precinto-0042")
        director.click("#t-open button[type=submit]")
        expect(director.locator("#t-phase")).to_have_text("Mesa abierta")
        expect(director.locator("#t-session")).to_have_text("2")
        director.fill("#t-rotation-croupiers", "crupier, luis")
        director.click("#t-rotation button[type=submit]")
        expect(director.locator("#t-spinner")).to_have_text("crupier")

        # another table, and another language: the same words from the same reasons
        director.select_option("#t-table", "R2")
        expect(director.locator("#t-name")).to_have_text("Ruleta francesa 2 (R2)")
        expect(director.locator("#t-phase")).to_have_text("Mesa cerrada")
        english = station(browser, hub.base, "crupier", lang="en")
        expect(english.locator("#t-phase")).to_have_text("Table open")
        english.click("#t-open-bets")
        expect(english.locator("#t-phase")).to_have_text("Place your bets")
        bet(english, "split", "17-20", "2.50", "carla")
        expect(english.locator("#t-toasts .toast").last).to_contain_text(
            "a Split bet of 2.50 is below the minimum 5"
        )
        for page in (director, croupier, device, english):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        hub.stop()


def test_a_table_device_token_that_is_not_known_asks_for_a_login(browser, tmp_path):
    prepared = PreparedHall(tmp_path, profile="1979", tables=[R1])
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    try:
        _, page = page_in(browser, 1280, 800)
        page.goto(f"{hub.base}/table#token=not-a-token")
        expect(page.locator("#t-login")).to_be_visible()
        expect(page.locator("#t-login-error")).to_have_text("Usuario o contraseña incorrectos.")
        assert page.evaluate("localStorage.getItem('bingo.table.token')") is None
        # a user of the bingo alone gives no table command: the station shows the table only
        locutor = station(browser, hub.base, "locutor")
        expect(locutor.locator("#t-name")).to_have_text("Ruleta francesa 1 (R1)")
        for panel in ("#p-coup", "#p-bets", "#p-direction"):
            expect(locutor.locator(panel)).to_be_hidden()
        assert page.errors == [] and locutor.errors == []  # type: ignore[attr-defined]
    finally:
        hub.stop()


def test_the_station_runs_a_basque_american_table_its_money_and_its_closure(browser, tmp_path):
    """A Basque American roulette table with a float (EUS): its head takes it and rules on bets
    in value chips; a croupier changes a player's banknotes, gives her a colour, takes her bet
    in its chips and changes back what she has left when she goes; the director tops up the
    float, is refused a change of limits before the last three coups are announced and played
    (EUS L304), closes the table for a while and opens it again with a croupier and its head
    there (EUS L306)."""
    closing = datetime.now(ZoneInfo("Europe/Madrid")) + timedelta(hours=12)
    american = {
        "id": "A1",
        "name": "Ruleta americana 1",
        "game": "american-roulette",
        "profile": "basque",
        "limits": {"minimum": "5", "tier": 30},
        "float_amount": "20000",
    }
    prepared = PreparedHall(
        tmp_path,
        profile="1979",
        tables=[american],
        staff={"crupier": "croupier", "jmj": "jefe_de_mesa_de_juego"},
        closing_time=f"{closing:%H:%M}",
    )
    prepared.prepare(terminals=(), monitors=())
    hub = HubProcess(prepared)
    hub.start()
    try:
        director = station(browser, hub.base, "sala")
        expect(director.locator("#t-table-choice")).to_be_hidden()  # the hall's one table
        director.click("#t-open button[type=submit]")
        expect(director.locator("#t-phase")).to_have_text("Mesa abierta")
        director.fill("#t-rotation-croupiers", "crupier")
        director.click("#t-rotation button[type=submit]")
        expect(director.locator("#t-float-count")).to_be_visible()  # it keeps a float

        head = station(browser, hub.base, "jmj")
        head.click("#t-take")
        expect(head.locator("#t-head")).to_have_text("jmj")
        expect(head.locator("#p-cash")).to_be_hidden()  # a head touches no money
        head.click("#t-value-chips-stop")
        ok = head.locator("#t-toasts .toast[data-kind=ok]")
        expect(ok.last).to_have_text("Apuestas con fichas de valor: hecho.")

        croupier = station(browser, hub.base, "crupier")
        expect(croupier.locator("#t-value-chips-stop")).to_be_hidden()  # the head's
        croupier.fill("#t-exchange-amount", "100")
        croupier.fill("#t-exchange-player", "eva")
        croupier.click("#t-exchange button[type=submit]")
        done = croupier.locator("#t-toasts .toast[data-kind=ok]")
        expect(done.last).to_have_text("Cambio en la mesa: hecho.")
        croupier.fill("#t-colour-name", "azul")
        croupier.fill("#t-colour-player", "eva")
        croupier.fill("#t-colour-chips", "20")
        croupier.click("#t-colour-issue button[type=submit]")  # at the table minimum each
        colour = croupier.locator("#t-colours tbody tr[data-colour=azul] td")
        expect(colour).to_have_text(
            ["azul", "eva", "5,00 €", "20 (100,00 €)", "0 (0,00 €)", re.compile("se va")]
        )

        croupier.click("#t-open-bets")
        croupier.select_option("#t-bet-type", "red")
        croupier.select_option("#t-bet-colour", "azul")
        croupier.fill("#t-bet-amount", "2,5")  # chips are counted whole
        croupier.click("#t-bet button[type=submit]")
        expect(croupier.locator("#t-toasts .toast").last).to_have_text(
            "«2,5» no es un número de fichas: escriba un número entero."
        )
        croupier.fill("#t-bet-amount", "2")
        croupier.click("#t-bet button[type=submit]")
        row = croupier.locator("#t-bets tbody tr").first.locator("td")
        expect(row.nth(1)).to_have_text("eva")  # the colour's holder
        expect(row.nth(4)).to_have_text("10,00 €")
        # value chips stopped by the head: a bet in them is refused
        croupier.select_option("#t-bet-colour", "")
        croupier.fill("#t-bet-amount", "5")
        croupier.fill("#t-bet-player", "eva")
        croupier.click("#t-bet button[type=submit]")
        expect(croupier.locator("#t-toasts .toast").last).to_contain_text("no aceptado")
        expect(croupier.locator("#t-bets tbody tr")).to_have_count(1)
        croupier.select_option("#t-direction", "clockwise")
        croupier.click("#t-spin button[type=submit]")
        croupier.click("#t-no-more-bets")
        croupier.select_option("#t-outcome-value", "1")
        croupier.click("#t-outcome-form button[type=submit]")
        croupier.click("#t-settle")
        expect(croupier.locator("#t-settlement-totals dd").nth(1)).to_have_text("20,00 €")
        croupier.click("#t-pay")
        expect(croupier.locator("#t-phase")).to_have_text("Mesa abierta")
        returned = croupier.locator("#t-colours tbody tr[data-colour=azul]")
        returned.locator("input[type=number]").fill("8")  # she changes 8 and plays on
        returned.locator("input[type=checkbox]").uncheck()
        # meanwhile the director tops up the float: the station redraws, what is typed stays
        drawn = croupier.locator("#p-status").get_attribute("data-seq")
        director.fill("#t-top-up-amount", "500")
        director.click("#t-top-up button[type=submit]")
        expect(director.locator("#t-toasts .toast[data-kind=ok]").last).to_have_text(
            "Reponer la dotación: hecho."
        )
        expect(croupier.locator("#p-status")).not_to_have_attribute("data-seq", drawn or "")
        expect(returned.locator("input[type=number]")).to_have_value("8")
        expect(returned.locator("input[type=checkbox]")).not_to_be_checked()
        returned.locator("button[data-action=return]").click()
        expect(returned.locator("td").nth(4)).to_have_text("8 (40,00 €)")
        returned.locator("input[type=number]").fill("14")  # her winnings too, as she leaves
        returned.locator("button[data-action=return]").click()
        expect(croupier.locator("#t-colours")).to_be_hidden()  # no colour held now

        # open, its limits change only after the last three coups are announced and played
        director.fill("#t-limits-minimum", "10")
        director.fill("#t-limits-tier", "30")
        director.click("#t-limits-form button[type=submit]")
        expect(director.locator("#t-toasts .toast").last).to_contain_text("no aceptado")
        expect(croupier.locator("#t-limits dd").first).to_have_text("5,00 €")
        director.click("#t-suspend")
        expect(croupier.locator("#t-phase")).to_have_text("Mesa cerrada temporalmente")
        expect(croupier.locator("#t-open-bets")).to_be_disabled()
        expect(director.locator("#t-limits-form button")).to_be_disabled()  # not now either
        director.fill("#t-resume-croupier", "crupier")
        director.fill("#t-resume-head", "jmj")
        director.click("#t-resume button[type=submit]")
        expect(croupier.locator("#t-phase")).to_have_text("Mesa abierta")
        for page in (director, head, croupier):
            assert fits_the_width(page)
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
        Screens(first=83).shot(croupier, "table-station-american", full=True)
    finally:
        hub.stop()
