"""A refusal of the hub is said in the page's language: a sale out of order refused on a
Basque control page, and the hub's own wrong-phase refusal, its phases and commands
translated, as the Spanish, Basque and English pages say it, with no name of the code left
in it."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from support.browser import (
    PreparedHall,
    chromium,
    given_by,
    page_in,
    refused_by,
    served,
    staff,
)
from support.hub import PASSWORD

# an identifier of the code (record_sale, claim_paused) where a page should have words
CODE_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b")


def said(page: Page, command: str, error: dict) -> str:
    """The refusal as the page's own `errorText` says it, in the page's language now."""
    return page.evaluate(
        "async ([command, error]) => (await import('/static/js/ui.js')).errorText(command, error)",
        [command, error],
    )


def test_the_hubs_refusals_are_said_in_the_language_of_the_page(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    with served(hall) as hub, chromium() as browser:
        given_by(hub, "sala", ("open_sale", {}))
        locutor = staff(browser, hub.base, "locutor", lang="eu")
        expect(locutor.locator("#sale-first")).to_have_value("1")
        locutor.fill("#sale-first", "5")
        locutor.fill("#sale-last", "60")
        locutor.click("#form-record-sale button[type=submit]")
        expect(locutor.locator(".toast").last).to_have_text(
            "Salmenta erregistratu: ez da onartu (arauen aurkakoa). kartoiak hurrenez hurren "
            "saltzen dira: A1 seriearen hurrengo kartoia 1. zk.a da, ez 5.a"
        )

        # a ball asked for during the sale: the rules refuse it for its phase
        error = refused_by(hub, "locutor", "draw_ball", {})
        assert error["code"] == "wrong_phase" and error["reason"] == "wrong_phase"
        assert error["params"]["phase"] == {"key": "phase.selling", "text": "selling"}
        assert error["message"].startswith("'draw_ball' is not allowed in phase selling")
        expected = {
            "eu": "Bola atera: ez da onartu (ez da unea). «Bola atera» ez da onartzen «Kartoien "
            "salmenta» fasean (onartzen da: Bolak ateratzen); orain onartzen diren aginduak: ",
            "es": "Extraer bola: no aceptado (no es el momento). «Extraer bola» no se admite en "
            "la fase «Venta de cartones» (se admite en: Extracción); órdenes admitidas ahora: ",
            "en": "Draw a ball: refused (not now). 'Draw a ball' is not allowed in phase Card sale "
            "(it is legal in: Drawing); commands allowed now: ",
        }
        for lang in ("eu", "es", "en"):
            locutor.select_option("#c-lang", lang)
            expect(locutor.locator("html")).to_have_attribute("lang", lang)
            text = said(locutor, "draw_ball", error)
            assert text.startswith(expected[lang]), text
            assert not CODE_NAME.search(text), text
        allowed = said(locutor, "draw_ball", error).split("commands allowed now: ")[1]
        assert "Record sale" in allowed and "Close the sale" in allowed, allowed

        # a malformed datum: its fault in words, with the bound it broke
        long = refused_by(
            hub, "mesa", "record_player_request", {"kind": "complaint", "text": "x" * 2001}
        )
        assert long["params"]["problem"]["vars"] == {"max_length": "2000"}
        locutor.select_option("#c-lang", "es")
        assert said(locutor, "record_player_request", long) == (
            "Anotar petición o queja: no aceptado (datos incorrectos). Anotar petición o queja: "
            "el dato text no es válido: debe tener como mucho 2000 caracteres"
        )

        # a refusal the catalogue does not hold is said as the hub said it
        other = {"code": "failed", "message": "the hub failed on this command"}
        assert said(locutor, "draw_ball", other).endswith("the hub failed on this command")


def test_a_locked_out_login_is_told_to_wait_in_the_language_of_the_page(tmp_path):
    """Five wrong passwords from one address lock it: the right one is then refused too, and
    the page says why, not that the password is wrong."""
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    with served(hall) as hub, chromium() as browser:
        _, page = page_in(browser)
        page.goto(f"{hub.base}/control")
        for guess in range(5):
            page.fill("#c-user", "mesa")
            page.fill("#c-password", f"adivinanza-{guess}")
            page.click("#c-login-submit")
            expect(page.locator("#c-login-error")).to_have_text("Usuario o contraseña incorrectos.")
            page.evaluate("document.querySelector('#c-login-error').textContent = ''")
        page.fill("#c-password", PASSWORD)
        page.click("#c-login-submit")
        expect(page.locator("#c-login-error")).to_have_text(
            "demasiados intentos fallidos desde esta dirección: espere y vuelva a intentarlo"
        )
        expect(page.locator("#c-app")).to_be_hidden()


def test_a_page_over_its_credentials_connections_says_so_and_gets_in_when_one_closes(tmp_path):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0, max_connections=1)
    with served(hall) as hub, chromium() as browser:
        first = staff(browser, hub.base, "mesa")
        _, second = page_in(browser)
        second.goto(f"{hub.base}/control")
        second.fill("#c-user", "mesa")
        second.fill("#c-password", PASSWORD)
        second.click("#c-login-submit")
        badge = second.locator("#c-conn")
        expect(badge).to_have_attribute("data-state", "too_many")
        expect(badge).to_have_text(
            "Demasiadas conexiones con esta credencial: se reintentará en unos segundos"
        )
        expect(first.locator("#c-conn")).to_have_attribute("data-state", "live")
        first.context.close()
        expect(badge).to_have_attribute("data-state", "live", timeout=30_000)
        expect(second.locator("#c-app")).to_be_visible()
