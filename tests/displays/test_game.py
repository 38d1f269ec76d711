"""A whole session in headless Chromium against a real `bingo-hall serve` process.

Beside each other: the Jefe de Sala, the Jefe de Mesa, the Vendedor-locutor and the Cajero on
/control, a panel monitor (1920x1080, then 1280x720), a sound monitor and an auxiliary
terminal. Game 1 (blower draw, Basque rules): a false claim that resumes the draw, a line won
from the terminal, a hub restart the monitor rides out, a bingo shared by two cards, payment
and the acta. Game 2 (the announced last game, after a ball-set change): voided with refunds.
Screenshots at key steps go to test-output/screens/.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

from support.browser import (
    CHROMIUM,
    PASSWORD,
    HubProcess,
    PreparedHall,
    Screens,
    call_claim,
    draw,
    monitor_fits,
    page_in,
    phase,
    prepare_audio,
    served,
    staff,
)
from support.hub import Client, open_game

expect.set_options(timeout=15_000)

# Rows and numbers of the series' cards (the master cards imported in the store).


def card_rows(series, number: int) -> list[set[int]]:
    return [{n for n in row if n} for row in series.card(number)]


def card_numbers(series, number: int) -> set[int]:
    return set().union(*card_rows(series, number))


def shared_bingo_plan(series, drawn: set[int], cards: range) -> tuple[int, int, int, list[int]]:
    """Two cards and a number they share: the balls that complete both at once."""
    best = None
    for first in cards:
        for second in cards:
            if second <= first:
                continue
            common = (card_numbers(series, first) & card_numbers(series, second)) - drawn
            if not common:
                continue
            union = (card_numbers(series, first) | card_numbers(series, second)) - drawn
            if best is None or len(union) < len(best[3]) + 1:
                last = min(common)
                best = (first, second, last, sorted(union - {last}))
    assert best is not None
    return best


@pytest.fixture(scope="module")
def hall(tmp_path_factory) -> Iterator[tuple[PreparedHall, HubProcess]]:
    prepare_audio()
    prepared = PreparedHall(tmp_path_factory.mktemp("hall"))
    with served(prepared) as hub:
        yield prepared, hub


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--autoplay-policy=no-user-gesture-required", "--mute-audio"],
        )
        try:
            yield launched
        finally:
            launched.close()


def announced_before_shown(sound: Page, panel: Page) -> int:
    """Every ball the panel showed live was spoken (in Spanish) before it appeared there."""
    spoken = sound.evaluate("window.bingoMonitor.sound")
    shown = panel.evaluate("window.bingoMonitor.shown")
    checked = 0
    for ball in shown:
        if ball["replay"]:
            continue
        starts = [s["at"] for s in spoken if s["n"] == ball["n"] and s["lang"] == "es"]
        assert starts, f"ball {ball['n']} was never spoken: {spoken}"
        assert min(starts) < ball["at"], (ball, starts)
        checked += 1
    return checked


def test_a_whole_session_on_the_control_screen_monitors_and_terminal(hall, browser):
    prepared, hub = hall
    base = hub.base
    series = prepared.series
    screens = Screens()

    # --- the screens open beside each other --------------------------------------------------
    _, intruder = page_in(browser)
    intruder.goto(f"{base}/control")
    intruder.fill("#c-user", "sala")
    intruder.fill("#c-password", "not the password")
    intruder.click("#c-login-submit")
    expect(intruder.locator("#c-login-error")).to_have_text("Usuario o contraseña incorrectos.")
    expect(intruder.locator("#c-app")).to_be_hidden()
    intruder.context.close()
    sala = staff(browser, base, "sala")
    mesa = staff(browser, base, "mesa")
    locutor = staff(browser, base, "locutor")
    caja = staff(browser, base, "caja")
    _, panel = page_in(browser, 1920, 1080)
    panel.goto(f"{base}/monitor#token={prepared.tokens['mon-1']}")
    _, sound = page_in(browser, 1280, 720)
    sound.goto(f"{base}/monitor?sound=1#token={prepared.tokens['snd-1']}")
    _, terminal = page_in(browser, 1280, 900)
    terminal.goto(f"{base}/terminal#token={prepared.tokens['term-1']}")
    for device in (panel, sound):
        expect(device.locator("#m-state")).to_have_text("Sala cerrada")
        expect(device.locator("#m-conn")).to_have_attribute("data-state", "live")
    assert "#token" not in panel.url  # the token leaves the address bar, kept by the kiosk

    # The role decides what appears; the phase what is enabled.
    expect(sala.locator("#open-session")).to_be_enabled()
    expect(mesa.locator("#open-session")).to_be_hidden()
    expect(mesa.locator("#announce-series")).to_be_visible()
    expect(mesa.locator("#announce-series")).to_be_disabled()
    expect(locutor.locator("#form-record-sale")).to_be_visible()
    expect(locutor.locator("#close-sale")).to_be_hidden()
    expect(caja.locator("#open-session")).to_be_hidden()
    expect(caja.locator("#p-void")).to_be_hidden()
    expect(mesa.locator("#load-balls")).to_be_disabled()
    screens.shot(sala, "control-session-closed")

    # --- the session: open, equipment, ball set, balls, series --------------------------------
    sala.fill("#ball-set-id", "JB-1")
    sala.fill("#ball-set-homologation", "CNJ-B-0001")
    sala.click("#form-register-ball-set button[type=submit]")
    expect(sala.locator("#ball-sets tr[data-set='JB-1']")).to_contain_text("Registrado")
    sala.click("#open-session")
    phase(mesa, "Comprobación del material")
    expect(sala.locator("#open-session")).to_be_disabled()
    mesa.fill("#equipment-notes", "Extractor y monitores comprobados")
    mesa.click("#equipment-ok")
    phase(mesa, "Carga de bolas")
    # the session may close here, with a note saying why the balls are not loaded
    expect(sala.locator("#close-note")).to_be_visible()
    expect(sala.locator("#close-session")).to_be_disabled()
    sala.fill("#close-note", "el extractor no arranca")
    expect(sala.locator("#close-session")).to_be_enabled()
    sala.fill("#close-note", "")
    expect(sala.locator("#close-session")).to_be_disabled()
    expect(mesa.locator("#load-balls")).to_be_enabled()
    mesa.click("#load-balls")  # no ball set in service yet: the hub refuses, the screen says why
    expect(mesa.locator(".toast").last).to_contain_text("Bolas cargadas: no aceptado")
    expect(mesa.locator(".toast").last).to_contain_text(
        "no hay ningún juego de bolas en servicio: registre antes un cambio de juego de bolas"
    )
    expect(mesa.locator("#form-change-ball-set")).to_be_hidden()  # the Jefe de Sala's
    sala.select_option("#change-ball-set-id", "JB-1")
    sala.fill("#change-ball-set-reason", "puesta en servicio")
    sala.click("#form-change-ball-set button[type=submit]")
    expect(sala.locator("#ball-sets tr[data-set='JB-1']")).to_contain_text("En servicio")
    mesa.click("#load-balls")
    phase(mesa, "Sesión preparada")
    expect(sala.locator("#close-note")).to_be_hidden()

    # a player's complaint, taken down and answered for the acta; the cashier's page has none
    expect(caja.locator("#p-requests")).to_be_hidden()
    mesa.select_option("#request-kind", "complaint")
    mesa.fill("#request-player", "Ana, mesa 4")
    mesa.fill("#request-text", "No se ve el monitor 3")
    mesa.click("#form-player-request button[type=submit]")
    row = sala.locator("#requests tr[data-request='1']")
    expect(row).to_contain_text("Queja")
    expect(row).to_contain_text("No se ve el monitor 3")
    expect(row).to_have_attribute("data-answered", "false")
    expect(mesa.locator("#request-text")).to_have_value("")
    row.locator("input").fill("Se la cambia a la mesa 6")
    row.locator("button").click()
    answered = mesa.locator("#requests tr[data-request='1']")
    expect(answered).to_have_attribute("data-answered", "true")
    expect(answered.locator("td").nth(4)).to_have_text("Se la cambia a la mesa 6")

    # an answer being typed keeps its text and focus while another screen takes one down
    def take_down(text: str) -> None:
        mesa.select_option("#request-kind", "information")
        mesa.fill("#request-text", text)
        mesa.click("#form-player-request button[type=submit]")

    take_down("¿A qué hora es la última partida?")
    typing = sala.locator("#requests tr[data-request='2'] input")
    typing.fill("A las 23:30")
    take_down("¿Se puede pagar con tarjeta?")
    expect(sala.locator("#requests tbody tr")).to_have_count(3)
    expect(typing).to_have_value("A las 23:30")
    expect(typing).to_be_focused()
    second = sala.locator("#requests tr[data-request='2']")
    second.locator("button").click()
    expect(second).to_have_attribute("data-answered", "true")
    sala.fill("#series-id", "A1")
    sala.fill("#series-face", "1,50")
    sala.fill("#series-size", "120")
    sala.click("#form-register-series button[type=submit]")
    expect(mesa.locator("#series-table tr[data-series='A1'] .next")).to_have_text("1")
    expect(panel.locator("#m-state")).to_have_text("Próxima partida en breve")

    # --- game 1: series, sale (paper and terminal), close, announcement -----------------------
    expect(mesa.locator("#start-sale")).to_be_disabled()
    mesa.check("#series-table input[data-series='A1']")
    expect(mesa.locator("#announce-series")).to_be_enabled()
    mesa.click("#announce-series")
    phase(mesa, "Series anunciadas")
    expect(mesa.locator("#game-series-info")).to_contain_text("desde el n.º 1")
    expect(locutor.locator("#form-record-sale button")).to_be_disabled()
    mesa.click("#start-sale")
    phase(locutor, "Venta de cartones")
    expect(panel.locator("#m-state")).to_have_text("Partida 1: venta de cartones")
    expect(panel.locator("#m-info")).to_have_text("A la venta: A1, 120 cartones a 1,50 €")
    expect(mesa.locator("#announce-prizes")).to_be_disabled()
    expect(mesa.locator("#close-sale")).to_be_disabled()  # no card sold: the rules refuse it

    expect(locutor.locator("#sale-first")).to_have_value("1")
    locutor.fill("#sale-first", "5")  # not consecutive: refused, with the hub's reason
    locutor.fill("#sale-last", "60")
    locutor.click("#form-record-sale button[type=submit]")
    toast = locutor.locator(".toast").last
    expect(toast).to_contain_text("Registrar venta: no aceptado (contrario a las reglas)")
    expect(toast).to_contain_text(
        "los cartones se venden correlativos: el siguiente cartón de la serie A1 es el nº 1, "
        "no el 5"
    )
    screens.shot(locutor, "control-refused-sale")
    locutor.fill("#sale-first", "1")
    locutor.fill("#sale-last", "60")
    locutor.click("#form-record-sale button[type=submit]")
    expect(mesa.locator("#sale-total-cards")).to_have_text("60")

    terminal.fill("#t-player", "ana")
    expect(terminal.locator("#t-buy")).to_be_enabled()
    terminal.click("#t-buy")
    expect(terminal.locator("#t-cards .tcard")).to_have_count(6)
    expect(terminal.locator("#t-blocks")).to_have_text("ana: 1 de 6 series en esta partida")
    numbers = terminal.locator("#t-cards .tcard h3 span:first-child").all_inner_texts()
    assert numbers == [f"A1 · {n}" for n in range(61, 67)]
    first_card = terminal.locator(".tcard[data-card='A1-61'] td:not(.blank)")
    assert sorted(int(n) for n in first_card.all_inner_texts()) == sorted(card_numbers(series, 61))
    expect(mesa.locator("#sale-total-cards")).to_have_text("66")
    expect(mesa.locator("#sales tbody tr").last).to_contain_text("terminal term-1/ana")
    screens.shot(terminal, "terminal-bought")

    mesa.click("#close-sale")
    phase(mesa, "Venta cerrada")
    expect(terminal.locator("#t-buy")).to_be_disabled()
    preview = mesa.locator("#announce-preview")
    expect(preview).to_contain_text("Cartones vendidos de la serie A1 del número 1 al 66")
    expect(preview).to_contain_text("Premio de línea: 9,90 €. Premio de bingo: 59,40 €.")
    expect(mesa.locator("#start-draw")).to_be_disabled()
    mesa.click("#announce-prizes")
    phase(mesa, "Premios anunciados")
    expect(mesa.locator("#announcement-wording")).to_have_text(
        "Cartones vendidos de la serie A1 del número 1 al 66"
    )
    expect(mesa.locator("#announcement-start")).to_contain_text("El comienzo de la partida")
    expect(panel.locator("#m-line-prize")).to_have_text("9,90 €")
    expect(panel.locator("#m-bingo-prize")).to_have_text("59,40 €")
    expect(panel.locator("#m-info")).to_have_text(
        "Cartones vendidos de la serie A1 del número 1 al 66"
    )
    screens.shot(mesa, "control-announced", full=True)
    mesa.click("#start-draw")
    phase(mesa, "Extracción")
    expect(mesa.locator("#announcement-start")).to_have_text("La partida ha comenzado.")
    expect(panel.locator("#m-state")).to_have_text("Partida 1: en juego")

    # --- the draw; a false claim --------------------------------------------------------------
    line_row = sorted(card_rows(series, 61)[0])
    expect(locutor.locator("#draw-ball")).to_be_disabled()  # blower: key the ball first
    announcement_error = mesa.locator("#void-reason option[value='announcement_error']")
    expect(announcement_error).to_have_count(0)  # no number announced: none announced wrong
    ordinal = 0
    for number in line_row[:3]:
        ordinal += 1
        draw(locutor, number, ordinal)
    expect(announcement_error).to_have_count(1)
    expect(panel.locator("#m-last")).to_have_text(str(line_row[2]))
    expect(panel.locator("#m-count")).to_have_text("3")
    expect(panel.locator(".m-board .cell.drawn")).to_have_count(3)
    expect(panel.locator("#m-last-five li")).to_have_text([str(n) for n in line_row[2::-1]])
    card61 = terminal.locator(".tcard[data-card='A1-61']")
    expect(card61).to_have_attribute("data-line-needs", "2")
    expect(card61.locator("td.marked")).to_have_count(3)
    expect(card61.locator(".needs")).to_have_text("Para línea faltan 2 · para bingo faltan 12")

    call_claim(locutor, "line", 5)
    phase(mesa, "Comprobando cartón")
    expect(locutor.locator("#draw-ball")).to_be_disabled()
    overlay = panel.locator("#m-overlay")
    expect(overlay).to_be_visible()
    expect(panel.locator("#m-ov-title")).to_have_text("Comprobando cartón")
    expect(overlay.locator(".m-ov-card h3")).to_have_text("Línea · serie A1 · cartón 5")
    on_card = len(card_numbers(series, 5) & set(line_row[:3]))
    expect(overlay.locator("td.marked")).to_have_count(on_card)
    expect(mesa.locator("#verification .claim-box[data-status='pending']")).to_have_count(1)
    expect(mesa.locator("#verify-claims")).to_be_enabled()
    mesa.click("#verify-claims")
    phase(mesa, "Extracción")  # every claim false: the draw resumes
    expect(mesa.locator("#verification .claim-box[data-status='invalid']")).to_contain_text(
        "combinación incompleta"
    )
    expect(panel.locator("#m-ov-title")).to_have_text("Cartón no premiado: continúa la partida")
    expect(overlay.locator(".m-ov-verdict")).to_have_text("No premiado")
    screens.shot(panel, "monitor-false-claim")
    expect(mesa.locator("#verify-claims")).to_be_disabled()

    # --- a line from the terminal; the window; the order --------------------------------------
    for number in line_row[3:]:
        ordinal += 1
        draw(locutor, number, ordinal)
    expect(overlay).to_be_hidden()  # the next ball closes the false claim's notice
    expect(card61).to_have_attribute("data-line-needs", "0")
    expect(card61).to_have_class(re.compile("complete-line"))
    card61.locator(".claim-line").click()
    phase(mesa, "Comprobando cartón")
    expect(overlay.locator(".m-ov-card h3")).to_have_text("Línea · serie A1 · cartón 61")
    expect(overlay.locator("td.marked")).to_have_count(5)
    expect(card61.locator(".claim-state")).to_contain_text("Pendiente de comprobar")
    mesa.click("#verify-claims")
    phase(mesa, "¿Alguna línea más? ¿Algún bingo más?")
    expect(mesa.locator("#p-window")).to_be_visible()
    expect(mesa.locator("#give-order")).to_have_text("Continuar la partida")
    expect(mesa.locator("#give-order")).to_be_disabled()  # the prudent time runs
    expect(mesa.locator("#window-countdown")).to_have_text(re.compile(r"\d s"))
    expect(panel.locator("#m-ov-title")).to_have_text("¿Alguna línea más? ¿Algún bingo más?")
    expect(overlay.locator(".m-ov-verdict")).to_have_text("Premiado")
    expect(overlay.locator("tr.win-row")).to_have_count(1)
    expect(card61.locator(".claim-state")).to_contain_text("Premiado")
    screens.shot(mesa, "control-any-more-window", full=True)
    screens.shot(panel, "monitor-line-verified-1920")
    expect(locutor.locator("#draw-ball")).to_be_disabled()
    expect(mesa.locator("#give-order")).to_be_enabled(timeout=15_000)
    expect(mesa.locator("#window-countdown")).to_have_text("cumplido: puede dar la orden")
    mesa.click("#give-order")
    phase(mesa, "Extracción")
    expect(overlay).to_be_hidden()
    expect(mesa.locator("#split-info .split[data-kind='line']")).to_have_text(
        "Línea: 9,90 € entre 1 cartón(es): 9,90 € cada uno (resto 0,00 €)"
    )
    expect(panel.locator("#m-info")).to_contain_text("Línea: serie A1, cartón 61 — 9,90 €")
    expect(terminal.locator("#t-prizes .prize")).to_have_text(
        "Línea · A1-61: 9,90 € (cobrar en caja)"
    )
    expect(card61.locator(".claim-line")).to_be_disabled()  # the line is won

    # --- the hub restarts: every screen reconnects and resumes ---------------------------------
    for page in (panel, terminal, mesa):
        page.evaluate("window.sameDocument = true")  # gone if the page reloads
    hub.stop()
    expect(panel.locator("#m-conn")).to_have_attribute("data-state", "reconnecting")
    expect(mesa.locator("#c-conn")).to_have_attribute("data-state", "reconnecting")
    screens.shot(panel, "monitor-reconnecting")
    hub.start()
    for page, selector in ((panel, "#m-conn"), (sound, "#m-conn"), (terminal, "#t-conn")):
        expect(page.locator(selector)).to_have_attribute("data-state", "live", timeout=20_000)
    for page in (sala, mesa, locutor, caja):
        expect(page.locator("#c-conn")).to_have_attribute("data-state", "live", timeout=20_000)
    expect(panel.locator("#m-count")).to_have_text("5")
    expect(panel.locator(".m-board .cell.drawn")).to_have_count(5)
    assert hub.health()["phase"] == "drawing"
    # resumed after the last event each saw, which the log holds (its seq and its time): no
    # page took the restart for a restored log and started again
    assert all(page.evaluate("window.sameDocument === true") for page in (panel, terminal, mesa))

    # --- the shared bingo -----------------------------------------------------------------------
    drawn = set(line_row)
    first, second, last, before = shared_bingo_plan(series, drawn, range(1, 61))
    for number in before[:2]:
        ordinal += 1
        draw(locutor, number, ordinal)
    # A panel reloaded in Basque: it replays the session and shows Basque with Spanish beneath.
    panel.goto(f"{base}/monitor?lang=eu")
    expect(panel.locator("#m-state .lang-1")).to_have_text("1. partida: jokoan")
    expect(panel.locator("#m-state .lang-2")).to_have_text("Partida 1: en juego")
    expect(panel.locator("#m-count")).to_have_text(str(ordinal))
    expect(panel.locator("#m-line-prize")).to_have_text("9,90 €")
    screens.shot(panel, "monitor-basque-1920")
    for number in before[2:]:
        ordinal += 1
        draw(locutor, number, ordinal)
    ordinal += 1
    draw(locutor, last, ordinal)
    expect(panel.locator("#m-last")).to_have_text(str(last))
    expect(panel.locator("#m-count")).to_have_text(str(ordinal))
    monitor_fits(panel)
    screens.shot(panel, "monitor-drawing-1920")
    for card in (first, second):
        call_claim(locutor, "bingo", card)
        box = mesa.locator(f"#verification .claim-box h3:has-text('cartón {card}')")
        expect(box).to_be_visible()
    expect(overlay.locator(".m-ov-card")).to_have_count(2)
    expect(overlay.locator(".m-ov-card").first.locator("td.marked")).to_have_count(15)
    monitor_fits(panel)
    panel.set_viewport_size({"width": 1280, "height": 720})
    monitor_fits(panel)
    screens.shot(panel, "monitor-two-bingos-1280")
    mesa.click("#verify-claims")
    phase(mesa, "¿Alguna línea más? ¿Algún bingo más?")
    expect(mesa.locator("#verification .claim-box[data-status='valid']")).to_have_count(2)
    expect(mesa.locator("#give-order")).to_have_text("Dar por finalizada la partida")
    expect(mesa.locator("#give-order")).to_be_enabled(timeout=15_000)
    mesa.click("#give-order")
    phase(mesa, "Sesión preparada")
    split = "Bingo: 59,40 € entre 2 cartón(es): 29,70 € cada uno (resto 0,00 €)"
    expect(mesa.locator("#split-info .split[data-kind='bingo']")).to_have_text(split)
    expect(panel.locator("#m-state .lang-1")).to_have_text("1. partida amaituta")
    winners = panel.locator("#m-info .m-info-line")
    expect(winners).to_have_count(2)  # a line a prize: the bingo's two cards on one
    expect(winners.nth(1).locator(".lang-1")).to_have_text(
        f"Bingoa: 2 kartoi, 29,70 € bakoitzak — A1-{first}, A1-{second}"
    )
    expect(winners.nth(1).locator(".lang-2")).to_have_text(
        f"Bingo: 2 cartones, 29,70 € cada uno — A1-{first}, A1-{second}"
    )
    monitor_fits(panel)
    screens.shot(panel, "monitor-finished-basque-1280")
    panel.set_viewport_size({"width": 1920, "height": 1080})
    monitor_fits(panel)

    # The sound monitor spoke every ball before the panel showed it.
    assert announced_before_shown(sound, panel) >= 3

    # --- payment --------------------------------------------------------------------------------
    rows = caja.locator("#prizes tbody tr")
    expect(rows).to_have_count(3)
    line_prize = caja.locator("#prizes tbody tr", has_text="Línea")
    expect(line_prize).to_contain_text("A1-61")
    expect(line_prize.locator(".prize-state")).to_have_text("A pagar")
    expect(mesa.locator("button.pay")).to_have_count(3)
    expect(mesa.locator("button.pay").first).to_be_hidden()  # the Cajero pays
    line_prize.locator("button.pay").click()
    expect(line_prize.locator(".prize-state")).to_have_text("Pagado")
    expect(terminal.locator("#t-prizes .prize")).to_have_text("Línea · A1-61: 9,90 € (Pagado)")
    bingo_prize = caja.locator(f"#prizes tbody tr:has-text('A1-{first}')")
    bingo_prize.locator("button.pay").click()
    expect(bingo_prize.locator(".prize-state")).to_have_text("Pagado")
    screens.shot(caja, "control-payments", full=True)

    # --- the acta of game 1, printable ------------------------------------------------------------
    mesa.fill("#acta-game", "1")
    mesa.click("#acta-open")
    acta = mesa.locator("#acta-view")
    expect(acta).to_be_visible()
    expect(acta.locator("h1")).to_have_text("Acta de la partida 1 — sala-web")
    expect(acta.locator(".chain-ok")).to_be_visible()
    official = acta.locator("pre.official")
    expect(official).to_contain_text("PARTIDA 1")
    expect(official).to_contain_text("Cartones vendidos de la serie A1 del número 1 al 66")
    expect(official).to_contain_text("combinación incompleta")
    screens.element(acta.locator("#acta-doc"), "acta-game-1")
    mesa.emulate_media(media="print")
    expect(mesa.locator("#c-app")).to_be_hidden()
    mesa.emulate_media(media="screen")
    mesa.click("#acta-close")

    # --- languages: the control screen in English, and back ---------------------------------------
    mesa.select_option("#c-lang", "en")
    expect(mesa.locator("#verify-claims")).to_have_text("Check the cards")
    expect(mesa.locator("#c-phase")).to_have_text("Session ready")
    mesa.select_option("#c-lang", "es")
    phase(mesa, "Sesión preparada")

    # --- game 2: a ball-set change, the last game, a void with refunds ----------------------------
    expect(sala.locator("#ball-sets tr[data-set='JB-1'] td").nth(2)).to_have_text("1 de 1000")
    sala.fill("#ball-set-id", "JB-2")
    sala.click("#form-register-ball-set button[type=submit]")  # no homologation: not sent
    expect(sala.locator("#ball-set-homologation:invalid")).to_have_count(1)
    sala.fill("#ball-set-homologation", "CNJ-B-0002")
    sala.click("#form-register-ball-set button[type=submit]")
    expect(sala.locator("#change-ball-set-id option[value='JB-2']")).to_have_count(1)
    sala.select_option("#change-ball-set-id", "JB-2")
    sala.fill("#change-ball-set-reason", "bola 17 deteriorada")
    sala.click("#form-change-ball-set button[type=submit]")
    phase(mesa, "Carga de bolas")
    expect(mesa.locator("#ball-sets tr[data-set='JB-1']")).to_contain_text("Retirado")
    expect(mesa.locator("#ball-sets tr[data-set='JB-2']")).to_contain_text("En servicio")
    mesa.click("#load-balls")
    phase(mesa, "Sesión preparada")
    mesa.click("#announce-last-game")
    expect(mesa.locator("#last-game-note")).to_be_visible()
    mesa.check("#series-table input[data-series='A1']")
    mesa.click("#announce-series")
    expect(mesa.locator("#game-series-info")).to_contain_text("desde el n.º 67")
    expect(mesa.locator("#game-series-info")).to_contain_text("última partida")
    mesa.click("#start-sale")
    expect(locutor.locator("#sale-first")).to_have_value("67")
    locutor.fill("#sale-last", "80")
    locutor.click("#form-record-sale button[type=submit]")
    expect(mesa.locator("#sale-total-cards")).to_have_text("14")
    expect(panel.locator("#m-last-game .lang-1")).to_have_text("Saioaren azken partida")
    mesa.select_option("#void-reason", "equipment_breakdown")
    mesa.click("#void-game")
    expect(mesa.locator("#void-confirm")).to_be_visible()
    expect(mesa.locator("#void-confirm")).to_be_disabled()  # the rules ask a note
    mesa.fill("#void-note", "Avería del soplador, irreparable")
    expect(mesa.locator("#void-confirm")).to_be_enabled()
    mesa.click("#void-confirm")
    phase(mesa, "Sesión preparada")
    result = mesa.locator("#void-result")
    expect(result).to_contain_text("Partida 2 anulada: Avería del material o instalaciones")
    expect(result.locator(".refunds li")).to_have_text(
        "Serie A1, cartones 67–80: 14 cartones, se devuelven 21,00 €"
    )
    expect(result.locator(".refund-total")).to_have_text("Total a devolver: 21,00 €")
    expect(panel.locator("#m-state .lang-1")).to_have_text("2. partida baliogabetuta")
    expect(terminal.locator("#t-state")).to_have_text("Partida 2 anulada")
    screens.shot(mesa, "control-void", full=True)
    screens.shot(panel, "monitor-void-1920")
    expect(mesa.locator("#announce-series")).to_be_disabled()

    # --- the session closes ---------------------------------------------------------------------
    expect(mesa.locator("#close-session")).to_be_hidden()
    sala.click("#close-session")
    phase(sala, "Sesión cerrada")
    expect(sala.locator("#open-session")).to_be_enabled()
    expect(panel.locator("#m-state .lang-1")).to_have_text("Aretoa itxita")
    screens.shot(sala, "control-session-closed-again", full=True)

    for page in (sala, mesa, locutor, caja, panel, sound, terminal):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_the_login_waits_for_the_page_and_never_puts_the_password_in_the_address(hall, browser):
    """While the page's texts load, its script has not taken the login form yet: a click then
    would have the browser send the form itself, the password in the address (seen on a loaded
    machine). The button stays disabled until the page is ready."""
    _, hub = hall
    _, page = page_in(browser)
    held: list[Route] = []
    page.route("**/i18n/*.json", lambda route: held.append(route))  # held until released
    page.goto(f"{hub.base}/control", wait_until="domcontentloaded")
    page.fill("#c-user", "mesa")
    page.fill("#c-password", PASSWORD)
    expect(page.locator("#c-login-submit")).to_be_disabled()
    page.locator("#c-password").press("Enter")  # no implicit submission either
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the page asked for no texts"
    assert page.url == f"{hub.base}/control"
    expect(page.locator("#c-login-submit")).to_be_disabled()
    for route in held:
        route.continue_()
    page.unroute("**/i18n/*.json")
    page.click("#c-login-submit")
    expect(page.locator("#c-app")).to_be_visible()
    assert PASSWORD not in page.url and "password" not in page.url


def test_a_certified_random_draw_spoken_in_spanish_and_basque(browser, tmp_path):
    """The other draw mode (the hub draws the ball) and a bilingual sound monitor: each number
    is spoken in Spanish, then in Basque, before the (English) panel shows it."""
    prepared = PreparedHall(tmp_path, draw="certified_random", profile="1979", display_delay=3.2)
    prepared.prepare(terminals=())
    hub = HubProcess(prepared)
    hub.start()
    try:

        async def setup() -> None:
            url = f"ws://127.0.0.1:{hub.port}/ws"
            async with (
                Client.login(url, user="sala", password=PASSWORD) as sala,
                Client.login(url, user="locutor", password=PASSWORD) as locutor,
            ):
                await open_game(sala, locutor)

        # Playwright's sync API owns this thread's event loop: the protocol client runs aside.
        with ThreadPoolExecutor(1) as aside:
            aside.submit(asyncio.run, asyncio.wait_for(setup(), 60)).result()
        screens = Screens(first=50)
        _, panel = page_in(browser, 1280, 720)
        panel.goto(f"{hub.base}/monitor?lang=en#token={prepared.tokens['mon-1']}")
        _, sound = page_in(browser, 1280, 720)
        sound.goto(f"{hub.base}/monitor?sound=1&lang=eu#token={prepared.tokens['snd-1']}")
        locutor = staff(browser, hub.base, "locutor")
        expect(panel.locator("#m-state")).to_have_text("Game 1: playing")
        expect(panel.locator("#m-bingo-prize")).to_have_text("€54.00")
        expect(sound.locator("#m-conn")).to_have_attribute("data-state", "live")
        expect(locutor.locator("#draw-mode")).to_have_text(
            "Extracción aleatoria certificada: el sistema saca la bola."
        )
        expect(locutor.locator("#blower-number")).to_be_hidden()
        for count in (1, 2):
            locutor.click("#draw-ball")  # waits until the last ball is on the panels
            expect(locutor.locator("#live-count")).to_have_text(str(count))
            number = locutor.locator("#live-last").inner_text()
            expect(sound.locator("#m-last")).to_have_text(number)  # at once, for the deaf too
            expect(panel.locator("#m-last")).to_have_text(number)
        monitor_fits(panel)
        screens.shot(panel, "monitor-english-random-1280")
        spoken = sound.evaluate("window.bingoMonitor.sound")
        shown = panel.evaluate("window.bingoMonitor.shown")
        assert [ball["replay"] for ball in shown] == [False, False]
        for ball in shown:
            voices = [s for s in spoken if s["n"] == ball["n"]]
            assert [s["lang"] for s in voices] == ["es", "eu"], spoken
            assert voices[0]["at"] <= voices[1]["at"] < ball["at"], (voices, ball)
            assert all(s["how"] == "audio" for s in voices)  # espeak-ng files, not the fallback
        for page in (panel, sound, locutor):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        hub.stop()
