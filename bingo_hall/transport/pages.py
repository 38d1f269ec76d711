"""The web pages the hub serves beside the websocket endpoint (control, monitor, terminal)."""

from __future__ import annotations

from bingo_hall.transport.ws_server import HttpRoute


def page_routes() -> list[HttpRoute]:
    return []
