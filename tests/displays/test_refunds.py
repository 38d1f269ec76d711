"""The Cajero refunds a voided game's cards on the control page: the range owed of each series
offered by default, a part of it refunded, a range already refunded refused with the hub's
message, and the rest refunded in the next session, where the page shows the earlier session's
void from the registers."""

from __future__ import annotations

from playwright.sync_api import expect

from support.browser import PreparedHall, Screens, chromium, given_by, served, staff

SALE = ("record_sale", {"series_id": "A1", "first": 1, "last": 30})
VOID = ("void_game", {"reason": "equipment_breakdown", "note": "Avería del soplador"})


def test_the_cajero_refunds_a_voided_game_in_parts_and_in_the_next_session(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    screens = Screens(first=80)
    with served(hall) as hub, chromium() as browser:
        given_by(hub, "sala", ("open_sale", {}))
        given_by(hub, "locutor", SALE)
        given_by(hub, "mesa", VOID)

        caja = staff(browser, hub.base, "caja")
        mesa = staff(browser, hub.base, "mesa")
        row = caja.locator("#refunds tbody[data-game='1'][data-series='A1']")
        expect(row).to_have_attribute("data-state", "owed")
        expect(row.locator(".refund-sold")).to_have_text("nº 1–30 (30): 45,00 €")
        expect(row.locator(".refund-paid")).to_have_text("—")
        expect(row.locator(".refund-owed")).to_have_text("nº 1–30 (30): 45,00 €")
        expect(row.locator(".refund-first")).to_have_value("1")  # the whole range owed
        expect(row.locator(".refund-last")).to_have_value("30")
        expect(caja.locator("#refunds-none")).to_be_hidden()
        # the Jefe de Mesa sees what is owed, and pays nothing
        mesa_row = mesa.locator("#refunds tbody[data-game='1'][data-series='A1']")
        expect(mesa_row.locator(".refund-owed")).to_have_text("nº 1–30 (30): 45,00 €")
        expect(mesa_row.locator("form.pay-refund")).to_be_hidden()
        expect(mesa_row.locator("tr.refund-form")).to_be_hidden()  # no empty row either

        # the first ten cards handed back
        row.locator(".refund-last").fill("10")
        row.locator("button[type=submit]").click()
        expect(row.locator(".refund-paid")).to_have_text("nº 1–10 (10): 15,00 €")
        expect(row.locator(".refund-owed")).to_have_text("nº 11–30 (20): 30,00 €")
        expect(row.locator(".refund-first")).to_have_value("11")
        expect(row.locator(".refund-last")).to_have_value("30")
        expect(mesa.locator("#void-result .refund-state")).to_have_text(
            "Devuelto: 15,00 € · pendiente de devolver: 30,00 €"
        )
        screens.shot(caja, "control-refund-part", full=True)

        # a card already refunded: the hub's refusal is shown and nothing changes
        row.locator(".refund-first").fill("5")
        row.locator(".refund-last").fill("12")
        row.locator("button[type=submit]").click()
        expect(caja.locator("#c-toasts .toast").last).to_contain_text(
            "el cartón A1 nº 5 de la partida 1 ya se devolvió (nº 1–10)"
        )
        expect(row.locator(".refund-owed")).to_have_text("nº 11–30 (20): 30,00 €")

        # the session closes with 20 cards owed; in the next one the Cajero refunds them
        given_by(hub, "sala", ("close_session", {}), ("open_session", {}))
        caja.reload()
        caja.fill("#c-user", "caja")
        caja.fill("#c-password", "correct horse battery")
        caja.click("#c-login-submit")
        expect(caja.locator("#c-app")).to_be_visible()
        row = caja.locator("#refunds tbody[data-game='1'][data-series='A1']")
        expect(row.locator(".refund-game")).to_have_text("1 (sesión 1)")
        expect(row.locator(".refund-first")).to_have_value("11")
        expect(row.locator(".refund-last")).to_have_value("30")
        row.locator("button[type=submit]").click()
        expect(row).to_have_attribute("data-state", "refunded")
        expect(row.locator(".refund-paid")).to_have_text(
            "nº 1–10 (10): 15,00 €; nº 11–30 (20): 30,00 €"
        )
        expect(row.locator(".refund-owed")).to_have_text("Devuelto íntegramente")
        expect(row.locator("form.pay-refund")).to_have_count(0)
        expect(caja.locator("#refunds-none")).to_be_visible()
        screens.shot(caja, "control-refund-done", full=True)
        assert caja.errors == [] and mesa.errors == []  # type: ignore[attr-defined]
