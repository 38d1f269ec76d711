"""The monitor's verification overlay with many claims on one ball: every master card is shown
whole (S79 L1214: the whole audience sees it), its title and verdicts on the screen and its
numbers legible, at 1920x1080 and at 1280x720."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from support.browser import (
    MONITOR_FITS,
    PreparedHall,
    Screens,
    chromium,
    given_by,
    monitor_fits,
    page_in,
    served,
)

SIZES = ((1920, 1080), (1280, 720))

# The overlay's title, each card and its verdict inside the screen, and the smallest number of
# a card, in pixels.
OVERLAY = """() => {
  const w = innerWidth, h = innerHeight;
  const inside = (e) => {
    const r = e.getBoundingClientRect();
    return r.top >= -1 && r.left >= -1 && r.bottom <= h + 1 && r.right <= w + 1;
  };
  const parts = [document.querySelector('#m-ov-title'),
    ...document.querySelectorAll('.m-ov-card, .m-ov-card h3, .m-ov-verdict, .m-ov-reason')];
  const cells = [...document.querySelectorAll('.m-ov-card td')];
  return {
    outside: parts.filter((e) => !inside(e)).map((e) => e.id || e.className || e.tagName),
    smallest: Math.min(...cells.map((td) => parseFloat(getComputedStyle(td).fontSize))),
  };
}"""


def overlay_fits(monitor: Page, screens: Screens, name: str) -> None:
    for width, height in SIZES:
        monitor.set_viewport_size({"width": width, "height": height})
        monitor.wait_for_timeout(300)  # the overlay is fitted on the next frame
        screens.shot(monitor, f"{name}-{width}")
        assert monitor.evaluate(MONITOR_FITS) == [], (width, height)
        monitor_fits(monitor)
        found = monitor.evaluate(OVERLAY)
        assert found["outside"] == [], (width, height, found)
        # legible across a hall: a card's numbers no smaller than 2.4 % of the screen's height
        assert found["smallest"] >= 0.024 * height, (width, height, found)


@pytest.mark.parametrize("count", [5, 8])
def test_every_card_claimed_on_one_ball_fits_the_monitor(tmp_path, count):
    hall = PreparedHall(tmp_path, draw="certified_random", display_delay=0)
    screens = Screens(first=100 + count * 5)
    with served(hall) as hub, chromium() as browser:
        _, panel = page_in(browser, 1920, 1080)
        panel.goto(f"{hub.base}/monitor#token={hall.tokens['mon-1']}")
        expect(panel.locator("#m-conn")).to_have_attribute("data-state", "live")
        given_by(hub, "sala", ("open_sale", {}))
        given_by(hub, "locutor", ("record_sale", {"series_id": "A1", "first": 1, "last": 60}))
        given_by(hub, "sala", ("close_sale", {}), ("announce_prizes", {}), ("start_draw", {}))
        given_by(hub, "locutor", *[("draw_ball", {})] * 4)
        claims = [
            ("call_claim", {"kind": "line", "series_id": "A1", "card_number": card})
            for card in range(1, count + 1)
        ]
        given_by(hub, "locutor", *claims)
        overlay = panel.locator("#m-overlay")
        expect(overlay).to_be_visible()
        expect(overlay.locator(".m-ov-card")).to_have_count(count)
        expect(panel.locator("#m-ov-title")).to_have_text("Comprobando cartón")
        overlay_fits(panel, screens, f"monitor-{count}-claims-pending")

        # verified: each verdict, and the reason of a false claim, under its card
        given_by(hub, "sala", ("verify_claims", {}))
        expect(overlay.locator(".m-ov-verdict")).to_have_count(count)
        expect(overlay.locator(".m-ov-verdict.verdict-pending")).to_have_count(0)
        overlay_fits(panel, screens, f"monitor-{count}-claims-verified")
        assert panel.errors == []  # type: ignore[attr-defined]
