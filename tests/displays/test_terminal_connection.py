"""The terminal page and its connection: a purchase whose answer is lost on the way (the hub
recorded the sale, the connection died before the page heard so) is completed when the page is
back online, and the player is sold one block, not two; a terminal opened on a second screen
closes the first, which says so and does not fight back."""

from __future__ import annotations

import json
from decimal import Decimal

from playwright.sync_api import WebSocketRoute, expect

from bingo_hall.hub.service import HallService
from support.aio import run_async
from support.browser import HubProcess, PreparedHall, chromium, page_in
from support.demo import open_log
from support.hub import PASSWORD, Client, open_sale


def test_a_purchase_whose_answer_was_lost_is_completed_once_back_online(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    hall.prepare()
    hub = HubProcess(hall)
    hub.start()
    try:
        ws_url = f"ws://127.0.0.1:{hub.port}/ws"

        async def sale_opened() -> None:
            async with Client.login(ws_url, user="sala", password=PASSWORD) as sala:
                await open_sale(sala)

        run_async(sale_opened())
        lost: list[dict] = []

        def lose_the_first_purchase_answer(route: WebSocketRoute) -> None:
            """Passes every frame, except that the hub's answer to the first purchase never
            reaches the page: the connection dies once the hub has sent it."""
            server = route.connect_to_server()
            buying: set[int] = set()

            def from_page(message: str | bytes) -> None:
                frame = json.loads(message)
                if frame.get("command") == "buy_cards" and not lost:
                    buying.add(frame["id"])
                server.send(message)

            def from_hub(message: str | bytes) -> None:
                frame = json.loads(message)
                if frame.get("type") == "result" and frame.get("id") in buying:
                    lost.append(frame)
                    server.close()
                    route.close()
                    return
                route.send(message)

            route.on_message(from_page)
            server.on_message(from_hub)

        with chromium() as browser:
            _, terminal = page_in(browser, 1280, 900)
            terminal.route_web_socket("**/ws", lose_the_first_purchase_answer)
            terminal.goto(f"{hub.base}/terminal#token={hall.tokens['term-1']}")
            expect(terminal.locator("#t-conn")).to_have_attribute("data-state", "live")
            terminal.fill("#t-player", "ana")
            terminal.click("#t-buy")
            expect(terminal.locator("#t-cards .tcard")).to_have_count(6)
            expect(terminal.locator("#t-message")).to_have_text("Comprados 6 cartones.")
            expect(terminal.locator("#t-blocks")).to_have_text("ana: 1 de 6 series en esta partida")
            assert terminal.evaluate("localStorage.getItem('bingo.terminal.purchase')") is None
            assert terminal.errors == []  # type: ignore[attr-defined]

        # the first answer was a sale; the second attempt found it, and no other was made
        assert len(lost) == 1 and lost[0]["success"], lost
        assert lost[0]["result"]["repeated"] is False

        log = open_log(hall.db_url)
        try:
            game = HallService(log, "sala-web").state.game
        finally:
            log.engine.dispose()
        assert [(h.buyer, h.first, h.last) for h in game.holdings] == [("term-1/ana", 1, 6)]
        assert game.takings == Decimal("9.00")  # six cards at 1.50
    finally:
        hub.stop()


def test_a_terminal_opened_on_another_screen_is_closed_here_and_says_so(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    hall.prepare()
    hub = HubProcess(hall)
    hub.start()
    try:
        address = f"{hub.base}/terminal#token={hall.tokens['term-1']}"
        with chromium() as browser:
            _, first = page_in(browser, 1280, 900)
            first.goto(address)
            expect(first.locator("#t-conn")).to_have_attribute("data-state", "live")
            expect(first.locator("#t-replaced")).to_be_hidden()
            _, second = page_in(browser, 1280, 900)
            second.goto(address)
            expect(second.locator("#t-conn")).to_have_attribute("data-state", "live")
            expect(first.locator("#t-conn")).to_have_text("Abierto en otra pantalla")
            expect(first.locator("#t-replaced")).to_contain_text(
                "Este terminal se ha abierto en otra pantalla"
            )
            # the first screen does not reconnect (which would cut the second in turn)
            first.wait_for_timeout(3000)
            expect(second.locator("#t-conn")).to_have_attribute("data-state", "live")
            expect(first.locator("#t-conn")).to_have_attribute("data-state", "replaced")
            # until it is told to take the terminal back
            first.click("#t-take-back")
            expect(first.locator("#t-conn")).to_have_attribute("data-state", "live")
            expect(first.locator("#t-replaced")).to_be_hidden()
            expect(second.locator("#t-conn")).to_have_attribute("data-state", "replaced")
            expect(second.locator("#t-replaced")).to_be_visible()
            assert first.errors == second.errors == []  # type: ignore[attr-defined]
        assert "device term-1 logged in from 127.0.0.1: closing its connection" in hub.log_tail()
    finally:
        hub.stop()
