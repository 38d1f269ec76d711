"""`GET /frames/<sha256>.jpg`: the camera frame of a ball, for the monitors and the acta."""

from __future__ import annotations

from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from bingo_hall.store.frames import FrameStore
from bingo_hall.transport.ws_server import HttpRoute

PREFIX = "/frames/"


def frame_routes(frames: FrameStore) -> list[HttpRoute]:
    def answer(connection: ServerConnection, request: Request, path: str) -> Response | None:
        name = path[len(PREFIX) :]
        if not name.endswith(".jpg"):
            return None
        jpeg = frames.get(name[: -len(".jpg")])
        if jpeg is None:
            return None
        headers = Headers(
            [
                ("Content-Type", "image/jpeg"),
                ("Content-Length", str(len(jpeg))),
                ("Cache-Control", "public, max-age=31536000, immutable"),  # named by its hash
            ]
        )
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, jpeg)

    return [(PREFIX, answer)]
