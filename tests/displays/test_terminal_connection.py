"""The terminal page and its connection: a purchase whose answer is lost on the way (the hub
recorded the sale, the connection died before the page heard so) is completed when the page is
back online, and the player is sold one block, not two; a terminal opened on a second screen
closes the first, which says so and does not fight back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from bingo_hall.domain.state import HallState
from bingo_hall.hub.service import HallService
from support.browser import HubProcess, PreparedHall, chromium, given_by, page_in, served
from support.demo import open_log


@pytest.fixture
def hall_served(tmp_path) -> Iterator[tuple[PreparedHall, HubProcess]]:
    """A Basque hall with a terminal, served by a `bingo-hall serve` process of its own."""
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    with served(hall) as hub:
        yield hall, hub


class FlakyLink:
    """The terminal page's websocket, routed: every frame passes, except that the first
    purchase is lost on the way (its command before the hub gets it, `lose="command"`, or the
    hub's answer, `lose="answer"`), and the link goes down then, until `back()`."""

    def __init__(self, lose: str) -> None:
        self.lose = lose
        self.lost: list[dict] = []
        self.down = False

    def back(self) -> None:
        self.down = False

    def route(self, route: WebSocketRoute) -> None:
        if self.down:
            route.close()
            return
        server = route.connect_to_server()
        buying: set[int] = set()

        def cut() -> None:
            self.down = True
            server.close()
            route.close()

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("command") == "buy_cards" and not self.lost:
                if self.lose == "command":
                    self.lost.append(frame)
                    cut()
                    return
                buying.add(frame["id"])
            server.send(message)

        def from_hub(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "result" and frame.get("id") in buying:
                self.lost.append(frame)
                cut()
                return
            route.send(message)

        route.on_message(from_page)
        server.on_message(from_hub)


def hall_state(hall: PreparedHall) -> HallState:
    log = open_log(hall.db_url)
    try:
        return HallService(log, "sala-web").state
    finally:
        log.engine.dispose()


PENDING = "localStorage.getItem('bingo.terminal.purchase')"


def buying_over(browser: Browser, hall: PreparedHall, hub: HubProcess, link: FlakyLink) -> Page:
    """The terminal page on `link`, live, its player's purchase pressed and lost on the way:
    the page says it will complete it."""
    _, terminal = page_in(browser, 1280, 900)
    terminal.route_web_socket("**/ws", link.route)
    terminal.goto(f"{hub.base}/terminal#token={hall.tokens['term-1']}")
    expect(terminal.locator("#t-conn")).to_have_attribute("data-state", "live")
    terminal.fill("#t-player", "ana")
    terminal.click("#t-buy")
    expect(terminal.locator("#t-message")).to_contain_text("la compra se completará")
    return terminal


def test_a_purchase_whose_answer_was_lost_is_completed_once_back_online(hall_served):
    """The hub sold the block and its answer was lost; the page, reloaded while the link is
    down, completes the purchase once back: the block bought then, and no second one."""
    hall, hub = hall_served
    given_by(hub, "sala", ("open_sale", {}))
    link = FlakyLink(lose="answer")
    with chromium() as browser:
        terminal = buying_over(browser, hall, hub, link)
        assert json.loads(terminal.evaluate(PENDING))["game"] == 1
        # no other purchase meanwhile: it could not be sent, and would take this one's place
        expect(terminal.locator("#t-buy")).to_be_disabled()
        terminal.reload()
        expect(terminal.locator("#t-conn")).to_have_attribute("data-state", "reconnecting")
        expect(terminal.locator("#t-buy")).to_be_disabled()
        link.back()
        expect(terminal.locator("#t-cards .tcard")).to_have_count(6)
        expect(terminal.locator("#t-message")).to_have_text("Comprados 6 cartones.")
        expect(terminal.locator("#t-blocks")).to_have_text("ana: 1 de 6 series en esta partida")
        assert terminal.evaluate(PENDING) is None
        expect(terminal.locator("#t-buy")).to_be_enabled()  # the next purchase is a new one
        assert terminal.errors == []  # type: ignore[attr-defined]

    # the first answer was a sale; the second attempt found it, and no other was made
    assert len(link.lost) == 1 and link.lost[0]["success"], link.lost
    assert link.lost[0]["result"]["repeated"] is False
    game = hall_state(hall).game
    assert [(h.buyer, h.first, h.last) for h in game.holdings] == [("term-1/ana", 1, 6)]
    assert game.takings == Decimal("9.00")  # six cards at 1.50


def test_a_purchase_the_hub_never_got_is_not_made_in_a_later_game(hall_served):
    """The purchase is lost before the hub gets it; while the link is down that game ends
    and the next one's sale opens. Back online, the page does not buy in the new game: it
    says the purchase was not made."""
    hall, hub = hall_served
    given_by(hub, "sala", ("open_sale", {}))
    link = FlakyLink(lose="command")
    with chromium() as browser:
        terminal = buying_over(browser, hall, hub, link)
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 10}))
        given_by(
            hub,
            "sala",
            ("close_sale", {}),
            ("void_game", {"reason": "equipment_breakdown", "note": "prueba"}),
            ("announce_series", {"series": ["A1"]}),
            ("start_sale", {}),
        )
        link.back()
        expect(terminal.locator("#t-message")).to_contain_text("La compra pendiente no se hizo")
        expect(terminal.locator("#t-message")).to_contain_text(
            "la partida 1 no es la que está a la venta (la partida 2)"
        )
        assert terminal.evaluate(PENDING) is None
        expect(terminal.locator("#t-cards .tcard")).to_have_count(0)
        assert terminal.errors == []  # type: ignore[attr-defined]
    state = hall_state(hall)
    assert state.game.game_id == 2 and state.game.holdings == ()
    assert state.ended_game.holdings == ()


def test_a_terminal_opened_on_another_screen_is_closed_here_and_says_so(hall_served):
    hall, hub = hall_served
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
