"""Every HTTP route the hub serves beside /ws and /health."""

from __future__ import annotations

from bingo_hall.hub.credential_watch import CredentialWatch
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.table_runtime import TableRuntime
from bingo_hall.store.frames import FrameStore
from bingo_hall.transport.frames_http import frame_routes
from bingo_hall.transport.login_guard import LoginGuard
from bingo_hall.transport.pages import page_routes
from bingo_hall.transport.ws_server import HttpRoute


def http_routes(
    runtime: HubRuntime,
    watch: CredentialWatch | None = None,
    guard: LoginGuard | None = None,
    tables: TableRuntime | None = None,
) -> list[HttpRoute]:
    frames = frame_routes(FrameStore(runtime.service.log.engine))
    return [*page_routes(runtime, watch, guard, tables), *frames]
