"""A websocket client on a bare socket that does what a library client never does: it keeps
sending frames after the server has closed the connection (a client that ignores the close)."""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import struct
import time

CLOSE = 8


class RawWebSocket:
    def __init__(self, port: int, path: str = "/ws") -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.socket.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        received = b""
        while b"\r\n\r\n" not in received:
            received += self.socket.recv(4096)
        head, self.buffer = received.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, message: dict) -> None:
        """One masked text frame, whatever the connection's state."""
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.socket.sendall(header + mask + masked)

    def receive(self, timeout: float = 10) -> tuple[int, bytes] | None:
        """(opcode, payload) of the next frame, or None when none comes within `timeout`."""
        deadline = time.monotonic() + timeout
        if not self._have(2, deadline):
            return None
        length, offset = self.buffer[1] & 0x7F, 2
        if length == 126:
            self._have(4, deadline)
            length, offset = struct.unpack(">H", self.buffer[2:4])[0], 4
        elif length == 127:
            self._have(10, deadline)
            length, offset = struct.unpack(">Q", self.buffer[2:10])[0], 10
        self._have(offset + length, deadline)
        opcode, payload = self.buffer[0] & 0x0F, self.buffer[offset : offset + length]
        self.buffer = self.buffer[offset + length :]
        return opcode, payload

    def until_close(self, timeout: float = 15) -> int:
        """The close code the server sends, skipping every frame before it."""
        deadline = time.monotonic() + timeout
        while (frame := self.receive(max(0.0, deadline - time.monotonic()))) is not None:
            if frame[0] == CLOSE:
                return struct.unpack(">H", frame[1][:2])[0]
        raise AssertionError("the server sent no close frame")

    def _have(self, count: int, deadline: float) -> bool:
        while len(self.buffer) < count:
            wait = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.socket], [], [], wait)
            if not ready:
                return False
            data = self.socket.recv(65536)
            if not data:
                return False
            self.buffer += data
        return True

    def close(self) -> None:
        self.socket.close()
