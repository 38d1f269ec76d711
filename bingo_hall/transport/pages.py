"""The web pages the hub serves beside the websocket endpoint (control, monitor, terminal,
a casino table's station).

Pages and their assets come from `displays/` (docs/screens.md): `/control`, `/monitor`,
`/terminal`, `/table` and `/` (an index), their scripts and styles under `/static/`, the translation
files under `/i18n/`. Only regular files under those folders are served, with a content type
from a fixed table; anything else under them (an unknown name, a hidden file, `..`, an encoded
separator, a symlink that leaves the folder) is a 404. The data routes (`/api/`, `/audio/`)
are in `page_data.py`.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.table_runtime import TableRuntime
from bingo_hall.transport import page_data
from bingo_hall.transport.login_guard import LoginGuard
from bingo_hall.transport.page_data import PageData, respond
from bingo_hall.transport.ws_server import HttpRoute

PAGES = {
    "/": "index.html",
    "/control": "control.html",
    "/monitor": "monitor.html",
    "/terminal": "terminal.html",
    "/table": "table.html",
}
FOLDERS = {"/static/": "static", "/i18n/": "i18n"}

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".wav": "audio/wav",
    ".txt": "text/plain; charset=utf-8",
}

# The pages load nothing from elsewhere (no CDN) and talk only to this hub.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; "
        "script-src 'self'; connect-src 'self' ws: wss:; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
}

# One path segment: letters, digits, dot, dash, underscore; not starting with a dot.
_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")


class StaticFiles:
    """Regular files under one root, by a safe relative path."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find(self, relative: str) -> Path | None:
        """The file at `relative` (already decoded) under the root, or None."""
        segments = relative.split("/")
        if not segments or not all(_SEGMENT.fullmatch(s) for s in segments):
            return None
        if any(s in (".", "..") for s in segments):
            return None
        root = self.root.resolve()
        path = root.joinpath(*segments)
        try:
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if not resolved.is_relative_to(root) or not resolved.is_file():
            return None
        if resolved.suffix.lower() not in CONTENT_TYPES:
            return None
        return resolved

    def serve(self, connection: ServerConnection, relative: str, page: bool = False) -> Response:
        file = self.find(relative)
        if file is None:
            return not_found(connection, relative)
        try:
            body = file.read_bytes()
        except OSError:
            return not_found(connection, relative)
        headers = PAGE_HEADERS if page else None
        return respond(connection, HTTPStatus.OK, body, CONTENT_TYPES[file.suffix.lower()], headers)


def not_found(connection: ServerConnection, what: str) -> Response:
    response = connection.respond(HTTPStatus.NOT_FOUND, f"no file {what!r}\n")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def page_routes(
    runtime: HubRuntime,
    watch: CredentialWatch | None = None,
    guard: LoginGuard | None = None,
    tables: TableRuntime | None = None,
) -> list[HttpRoute]:
    """The routes of the pages, their assets and their data (from the hub's state and log, and
    the casino `tables`' streams); `watch` withdraws remembered staff logins, `guard` locks
    addresses that guess."""
    files = StaticFiles(page_data.DISPLAYS_DIR)
    data = PageData(runtime, watch=watch, guard=guard, tables=tables)

    def pages(connection: ServerConnection, request: Request, path: str) -> Response | None:
        if path in PAGES:
            return files.serve(connection, PAGES[path], page=True)
        for prefix, folder in FOLDERS.items():
            if path.startswith(prefix):
                try:
                    relative = unquote(path[len(prefix) :], errors="strict")
                except UnicodeDecodeError:
                    return not_found(connection, path)
                return files.serve(connection, f"{folder}/{relative}")
        return None  # not ours: another route, or the hub's 404

    return [("/api/", data.api), ("/audio/", data.audio), ("/", pages)]
