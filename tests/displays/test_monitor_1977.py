"""A hall under the 1977 catalogue: the line that pays is the one the Jefe de Mesa designated
(S77 L2472-2474), and the hall's monitors say which, under the sale's wording, for the whole
game."""

from __future__ import annotations

from playwright.sync_api import expect

from support.browser import PreparedHall, chromium, given_by, page_in, served


def test_the_monitor_shows_the_designated_paying_line_under_1977(tmp_path):
    hall = PreparedHall(tmp_path, profile="1977", draw="certified_random", display_delay=0)
    with served(hall) as hub, chromium() as browser:
        _, panel = page_in(browser, 1280, 720)
        panel.goto(f"{hub.base}/monitor#token={hall.tokens['mon-1']}")
        expect(panel.locator("#m-conn")).to_have_attribute("data-state", "live")
        given_by(hub, "sala", ("open_sale", {}))
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 30}))
        given_by(hub, "sala", ("close_sale", {}), ("announce_prizes", {"paying_row": 1}))
        info = panel.locator("#m-info .m-info-line")
        expect(info).to_have_count(2)
        expect(info.nth(0)).to_have_text("Se han vendido los cartones número 1 a 30 de la serie A1")
        expect(info.nth(1)).to_have_text("Paga la línea central")
        given_by(hub, "sala", ("start_draw", {}))
        given_by(hub, "locutor", ("draw_ball", {}))
        expect(panel.locator("#m-count")).to_have_text("1")
        expect(info.nth(1)).to_have_text("Paga la línea central")  # all through the game
        assert panel.errors == []  # type: ignore[attr-defined]
