"""The announced last game, its sale and its void as the hall's screens show them: the
monitors (Spanish, and Basque with Spanish beneath) and an auxiliary terminal that bought a
block and won the line before the game was voided."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from support.browser import (
    MONITOR_FITS,
    PreparedHall,
    Screens,
    chromium,
    given_by,
    page_in,
    served,
)

SETUP = (
    ("register_ball_set", {"ball_set_id": "JB-1", "homologation": "CNJ-BOLAS-0001"}),
    ("open_session", {}),
    ("record_equipment_check", {"ok": True}),
    ("change_ball_set", {"ball_set_id": "JB-1", "reason": "puesta en servicio"}),
    ("load_balls", {}),
    ("register_series", {"series_id": "A1", "face_value": "1.50", "size": 120}),
)


def both(page: Page, selector: str, basque: str, spanish: str) -> None:
    """A line of the Basque monitor: the Basque text, and the Spanish beneath it."""
    expect(page.locator(f"{selector} .lang-1")).to_have_text(basque)
    expect(page.locator(f"{selector} .lang-2")).to_have_text(spanish)


def fits(*monitors: Page) -> None:
    for monitor in monitors:
        assert monitor.evaluate(MONITOR_FITS) == [], monitor.url


def test_the_last_game_its_sale_and_its_void_on_the_monitors_and_the_terminal(tmp_path):
    hall = PreparedHall(tmp_path, display_delay=0)  # Basque rules, blower draw
    screens = Screens(first=160)
    with served(hall) as hub, chromium() as browser:
        _, panel = page_in(browser, 1920, 1080)
        panel.goto(f"{hub.base}/monitor#token={hall.tokens['mon-1']}")
        _, basque = page_in(browser, 1280, 720)
        basque.goto(f"{hub.base}/monitor?lang=eu#token={hall.tokens['snd-1']}")
        _, terminal = page_in(browser, 1280, 900)
        terminal.goto(f"{hub.base}/terminal#token={hall.tokens['term-1']}")
        for page, conn in ((panel, "#m-conn"), (basque, "#m-conn"), (terminal, "#t-conn")):
            expect(page.locator(conn)).to_have_attribute("data-state", "live")
        terminal.fill("#t-player", "ana")
        given_by(hub, "sala", *SETUP)
        both(basque, "#m-frame-none", "Kameraren irudirik ez", "Sin imagen de cámara")

        # the last game announced: said at once, in the hall name's place, until it ends
        given_by(hub, "mesa", ("announce_last_game", {}))
        banner = panel.locator("#m-last-game")
        expect(banner).to_be_visible()
        expect(banner).to_have_text("La próxima partida es la última de la sesión")
        expect(panel.locator("#m-hall")).to_be_hidden()
        both(
            basque,
            "#m-last-game",
            "Hurrengo partida saioaren azkena da",
            "La próxima partida es la última de la sesión",
        )
        screens.shot(panel, "monitor-last-game-announced-1920")

        # the sale: the series on sale, and on the terminal the price of a block
        given_by(hub, "mesa", ("announce_series", {"series": ["A1"]}), ("start_sale", {}))
        expect(panel.locator("#m-info")).to_have_text("A la venta: A1, 120 cartones a 1,50 €")
        both(
            basque,
            "#m-info .m-info-line",
            "Salgai: A1, 120 kartoi (1,50 €)",
            "A la venta: A1, 120 cartones a 1,50 €",
        )
        expect(banner).to_have_text("Última partida de la sesión")
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 30}))
        buy = terminal.locator("#t-buy")
        expect(buy).to_have_text("Comprar una serie (6 cartones): 9,00 €")
        expect(buy).to_be_enabled()
        buy.click()
        expect(terminal.locator("#t-cards .tcard")).to_have_count(6)
        expect(terminal.locator(".tcard").first).to_have_attribute("data-card", "A1-31")

        # the sale closed: nothing is on sale any more
        given_by(hub, "mesa", ("close_sale", {}))
        expect(panel.locator("#m-state")).to_have_text("Partida 1: venta cerrada")
        expect(panel.locator("#m-info .m-info-line")).to_have_count(0)
        expect(basque.locator("#m-info .m-info-line")).to_have_count(0)

        # the prizes announced: on the terminal too (36 cards at 1,50 €: 10 % and 60 %)
        given_by(hub, "mesa", ("announce_prizes", {}), ("start_draw", {}))
        prizes = terminal.locator("#t-game-prizes")
        expect(prizes).to_have_text("Premios de la partida: línea 5,40 € · bingo 32,40 €")

        # the terminal's card 31 makes a line; verified, its window, the order
        row = sorted(n for n in hall.series.card(31)[0] if n)
        given_by(hub, "locutor", *[("draw_ball", {"number": n}) for n in row])
        expect(panel.locator("#m-count")).to_have_text(str(len(row)))
        # on an 800×480 terminal the card that made the line, and its claim buttons, are on
        # the screen without scrolling: the purchase form folds once the sale is over
        terminal.set_viewport_size({"width": 800, "height": 480})
        expect(terminal.locator("#t-buy")).to_be_hidden()
        expect(terminal.locator("#t-sale-note")).to_be_visible()
        buttons = terminal.locator(".tcard").first.locator(".buttons")
        expect(buttons.locator("button").first).to_be_enabled()
        box = buttons.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 480, box
        screens.shot(terminal, "terminal-800x480-line")
        terminal.set_viewport_size({"width": 1280, "height": 900})
        claim = {"kind": "line", "series_id": "A1", "card_number": 31}
        given_by(hub, "locutor", ("call_claim", claim))
        both(
            basque,
            ".m-ov-card h3",
            "Lerroa · A1 seriea · 31 kartoia",
            "Línea · serie A1 · cartón 31",
        )
        both(basque, ".m-ov-verdict", "Egiaztatzeko zain", "Pendiente de comprobar")
        given_by(hub, "mesa", ("verify_claims", {}))
        both(basque, ".m-ov-verdict", "Saritua", "Premiado")
        screens.shot(basque, "monitor-basque-overlay-1280")
        terminal.wait_for_timeout(5200)  # the profile's prudent time before the order
        given_by(hub, "mesa", ("give_order", {}))
        expect(panel.locator("#m-info")).to_have_text("Línea: serie A1, cartón 31 — 5,40 €")
        both(
            basque,
            "#m-info .m-info-line",
            "Lerroa: A1 seriea, 31 kartoia — 5,40 €",
            "Línea: serie A1, cartón 31 — 5,40 €",
        )
        expect(terminal.locator("#t-prizes .prize")).to_have_text(
            "Línea · A1-31: 5,40 € (cobrar en caja)"
        )

        # the game voided: no prize amount; the void, the refund at face value and the prize
        # withdrawn said; the last game over
        void = {"reason": "announcement_error", "note": "Bola 7 cantada como 17"}
        given_by(hub, "mesa", ("void_game", void))
        expect(panel.locator("#m-state")).to_have_text("Partida 1 anulada")
        expect(panel.locator(".m-prize").first).to_be_hidden()
        expect(panel.locator(".m-prize").last).to_be_hidden()
        lines = panel.locator("#m-info .m-info-line")
        expect(lines).to_have_text(
            [
                "Partida anulada: Error en el anuncio de un número.",
                "Se devuelve el importe íntegro de los cartones vendidos, a su valor facial "
                "(54,00 € en total), al entregar los cartones.",
                "Premios retirados por la anulación: A1-31 (5,40 €); "
                "los ya cobrados se restituyen.",
            ]
        )
        basque_lines = basque.locator("#m-info .m-info-line")
        expect(basque_lines).to_have_count(3)
        expect(basque_lines.nth(0).locator(".lang-1")).to_have_text(
            "Partida baliogabetuta: Errorea zenbaki bat iragartzean."
        )
        expect(basque_lines.nth(0).locator(".lang-2")).to_have_text(
            "Partida anulada: Error en el anuncio de un número."
        )
        expect(basque_lines.nth(1).locator(".lang-2")).to_contain_text("a su valor facial")
        expect(basque_lines.nth(2).locator(".lang-2")).to_contain_text("Premios retirados")
        expect(banner).to_be_hidden()
        expect(panel.locator("#m-hall")).to_be_visible()
        screens.shot(panel, "monitor-voided-1920")
        screens.shot(basque, "monitor-voided-basque-1280")
        fits(panel, basque)
        panel.set_viewport_size({"width": 1280, "height": 720})
        basque.set_viewport_size({"width": 1920, "height": 1080})
        panel.wait_for_timeout(300)
        fits(panel, basque)

        # the terminal: the game void, its cards refunded at the cash desk, the line withdrawn
        expect(terminal.locator("#t-void")).to_have_text(
            "Partida 1 anulada (Error en el anuncio de un número): el importe de sus "
            "cartones, 9,00 € a su valor facial, se le devuelve en caja."
        )
        needs = terminal.locator(".tcard .needs")
        expect(needs).to_have_count(6)
        for index in range(6):
            expect(needs.nth(index)).to_have_text("Partida anulada: se devuelve en caja")
        expect(terminal.locator(".tcard .buttons")).to_have_count(0)
        expect(prizes).to_be_hidden()
        expect(terminal.locator("#t-prizes li")).to_have_text(
            "Línea · A1-31: 5,40 €, retirado por la anulación"
        )
        screens.shot(terminal, "terminal-voided", full=True)

        # the Cajero refunds the terminal's block: each card says so
        refund = {"game_id": 1, "series_id": "A1", "first": 31, "last": 36}
        given_by(hub, "caja", ("pay_refund", refund))
        for index in range(6):
            expect(needs.nth(index)).to_have_text("Partida anulada: devuelto en caja")
        screens.shot(terminal, "terminal-refunded", full=True)
        for page in (panel, basque, terminal):
            assert page.errors == []  # type: ignore[attr-defined]


def test_a_void_before_any_sale_owes_nothing_and_the_banner_ends_with_the_session(tmp_path):
    """A game voided before a card is sold: the monitor says it is void and owes no refund,
    and a terminal with no card of it is told nothing about refunds. A last game announced
    and never played (a close the Basque rules allow) leaves no banner on the closed hall."""
    hall = PreparedHall(tmp_path, display_delay=0)  # Basque rules, blower draw
    with served(hall) as hub, chromium() as browser:
        _, panel = page_in(browser, 1920, 1080)
        panel.goto(f"{hub.base}/monitor#token={hall.tokens['mon-1']}")
        _, terminal = page_in(browser, 800, 480)
        terminal.goto(f"{hub.base}/terminal#token={hall.tokens['term-1']}")
        for page, conn in ((panel, "#m-conn"), (terminal, "#t-conn")):
            expect(page.locator(conn)).to_have_attribute("data-state", "live")
        given_by(hub, "sala", *SETUP)
        given_by(hub, "mesa", ("announce_series", {"series": ["A1"]}))
        void = {"reason": "equipment_breakdown", "note": "el aparato no arranca"}
        given_by(hub, "mesa", ("void_game", void))
        expect(panel.locator("#m-state")).to_have_text("Partida 1 anulada")
        expect(panel.locator("#m-info .m-info-line")).to_have_text(
            ["Partida anulada: Avería del material o instalaciones."]
        )
        expect(terminal.locator("#t-void")).to_be_hidden()
        given_by(hub, "mesa", ("announce_last_game", {}))
        banner = panel.locator("#m-last-game")
        expect(banner).to_have_text("La próxima partida es la última de la sesión")
        given_by(hub, "sala", ("close_session", {}))
        expect(panel.locator("#m-state")).to_have_text("Sala cerrada")
        expect(banner).to_be_hidden()
        expect(panel.locator("#m-hall")).to_be_visible()
        for page in (panel, terminal):
            assert page.errors == []  # type: ignore[attr-defined]
