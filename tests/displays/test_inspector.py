"""The regulator's inspector on the control page: the hall's state and registers, and the acta
with its chain checked, the players' complaints in it; no control to give a command."""

from __future__ import annotations

from playwright.sync_api import expect

from support.browser import PreparedHall, chromium, given_by, served, staff

COMPLAINT = (
    "record_player_request",
    {"kind": "complaint", "player": "Ana", "text": "No oyó el 45"},
)


def test_the_inspector_reads_the_acta_and_has_no_command(tmp_path):
    hall = PreparedHall(
        tmp_path, draw="certified_random", display_delay=0, staff={"inspeccion": "inspector"}
    )
    with served(hall) as hub, chromium() as browser:
        given_by(hub, "sala", ("open_sale", {}))
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 30}))
        given_by(hub, "mesa", COMPLAINT)

        inspector = staff(browser, hub.base, "inspeccion")
        expect(inspector.locator("#c-who")).to_contain_text("Inspector del juego")
        expect(inspector.locator("#c-phase")).to_have_text("Venta de cartones")
        expect(inspector.locator("#sale-total-cards")).to_have_text("30")
        expect(inspector.locator("#p-acta")).to_be_visible()
        # every control that gives a command is hidden or disabled: only reading is left
        givers = "#c-app button:visible:enabled:not(#c-logout):not([id^='acta-'])"
        expect(inspector.locator(givers)).to_have_count(0)
        mesa = staff(browser, hub.base, "mesa")  # where the Jefe de Mesa has his
        expect(mesa.locator("#close-sale")).to_be_enabled()
        assert mesa.locator(givers).count() > 0

        inspector.click("#acta-session")
        acta = inspector.locator("#acta-view")
        expect(acta).to_be_visible()
        expect(acta.locator("h1")).to_have_text("Acta de la sesión 1 — sala-web")
        expect(acta.locator(".chain-ok")).to_be_visible()
        expect(acta).to_contain_text("No oyó el 45")
        inspector.click("#acta-close")
        inspector.fill("#acta-game", "9")  # a game the log does not hold, said in Spanish
        inspector.click("#acta-open")
        expect(inspector.locator("#c-toasts .toast").last).to_have_text(
            "Acta: no aceptado (no encontrado). la sala sala-web no tiene la partida 9"
        )
        expect(acta).to_be_hidden()
