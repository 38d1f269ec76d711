"""Lean client processes for bench/bench_fanout.py: many websocket or MQTT connections served
by one `select.epoll` loop on raw sockets, speaking just enough of each protocol.

Why: a `websockets` or aiomqtt client spends tens of microseconds of Python per message (task
switches, futures, parsing). A thousand of them on a 2-core machine take a core away from the
hub they measure, and their own queueing shows up as latency. Here a readable socket costs one
`recv`, one clock read and a few slices: the clients get out of the way of what is measured.

Protocols, as real peers: the websocket opening handshake (RFC 6455, no extension offered,
masked client frames, pings answered) with the hub's auth and subscribe; MQTT 3.1.1 CONNECT,
SUBSCRIBE, PUBLISH with PUBACK for QoS 1, DISCONNECT. Commands arrive as JSON lines on stdin
(the same as bench/fanout_clients.py: open, collect, close, quit) and are answered on stdout.

Usage: python bench/raw_clients.py {ws-clients|mqtt-clients}
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import select
import socket
import struct
import sys
import time
from collections import Counter
from urllib.parse import urlsplit

from fanout_clients import raise_nofile, reply, summarise

Frames = list[tuple[float, bytes]]


class ProtocolError(Exception):
    pass


def _recv_exactly(sock: socket.socket, buffer: bytearray, size: int) -> None:
    """Blocking: read until the buffer holds at least `size` bytes (set-up only)."""
    while len(buffer) < size:
        chunk = sock.recv(65536)
        if not chunk:
            raise ProtocolError("connection closed during set-up")
        buffer += chunk


# ------------------------------------------------------------------------------ websocket --


def ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    """A masked client frame (FIN set)."""
    mask = secrets.token_bytes(4)
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return header + mask + masked


def ws_parse(buffer: bytearray) -> tuple[int, bytes] | None:
    """Take one complete server frame (unmasked) off the buffer: (opcode, payload)."""
    if len(buffer) < 2:
        return None
    size = buffer[1] & 0x7F
    start = 2
    if size == 126:
        if len(buffer) < 4:
            return None
        size, start = struct.unpack_from("!H", buffer, 2)[0], 4
    elif size == 127:
        if len(buffer) < 10:
            return None
        size, start = struct.unpack_from("!Q", buffer, 2)[0], 10
    end = start + size
    if len(buffer) < end:
        return None
    opcode, payload = buffer[0] & 0x0F, bytes(buffer[start:end])
    del buffer[:end]
    return opcode, payload


class WsConnection:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()
        self.frames: Frames = []
        self.closed_code: str | None = None
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        self.sock.sendall(
            (
                f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        while b"\r\n\r\n" not in self.buffer:
            _recv_exactly(self.sock, self.buffer, len(self.buffer) + 1)
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise ProtocolError(head.split(b"\r\n", 1)[0].decode(errors="replace"))
        self.buffer = bytearray(rest)

    def send_json(self, body: dict) -> None:
        self.sock.sendall(ws_frame(json.dumps(body).encode()))

    def recv_json(self) -> dict:
        """Blocking, set-up only."""
        while (frame := ws_parse(self.buffer)) is None:
            _recv_exactly(self.sock, self.buffer, len(self.buffer) + 1)
        return json.loads(frame[1])

    def readable(self) -> bool:
        """Take what arrived; False once the connection is closed."""
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        stamp = time.time()
        if not data:
            self.closed_code = self.closed_code or "none"
            return False
        self.buffer += data
        while (frame := ws_parse(self.buffer)) is not None:
            opcode, payload = frame
            if opcode in (1, 2):
                self.frames.append((stamp, payload))
            elif opcode == 9:
                self.sock.sendall(ws_frame(payload, opcode=10))
            elif opcode == 8:
                self.closed_code = str(struct.unpack("!H", payload[:2])[0]) if payload else "none"
                return False
        return True


def open_ws(spec: dict) -> WsConnection:
    connection = WsConnection(spec["url"])
    if spec["mode"] == "hub":
        if connection.recv_json()["type"] != "auth_required":
            raise ProtocolError("no auth_required")
        connection.send_json({"type": "auth", "token": spec["token"]})
        answer = connection.recv_json()
        if answer["type"] != "auth_ok":
            raise ProtocolError(str(answer))
        connection.send_json({"id": 1, "type": "subscribe", "after_seq": spec["after_seq"]})
        answer = connection.recv_json()
        if not answer.get("success"):
            raise ProtocolError(str(answer))
    connection.sock.setblocking(False)
    return connection


# ----------------------------------------------------------------------------------- MQTT --


def _remaining_length(size: int) -> bytes:
    out = bytearray()
    while True:
        byte, size = size % 128, size // 128
        out.append(byte | (0x80 if size else 0))
        if not size:
            return bytes(out)


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("!H", len(data)) + data


def mqtt_packet(first: int, body: bytes) -> bytes:
    return bytes([first]) + _remaining_length(len(body)) + body


def mqtt_parse(buffer: bytearray) -> tuple[int, bytes] | None:
    """Take one complete packet off the buffer: (first byte, body)."""
    size, multiplier, index = 0, 1, 1
    while True:
        if index >= len(buffer):
            return None
        byte = buffer[index]
        size += (byte & 0x7F) * multiplier
        multiplier *= 128
        index += 1
        if not byte & 0x80:
            break
    end = index + size
    if len(buffer) < end:
        return None
    first, body = buffer[0], bytes(buffer[index:end])
    del buffer[:end]
    return first, body


class MqttConnection:
    def __init__(self, host: str, port: int, topics: list[str], qos: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()
        self.by_topic: dict[str, Frames] = {topic: [] for topic in topics}
        self.lost: str | None = None
        client_id = f"bench-raw-{secrets.token_hex(6)}"
        # CONNECT: MQTT 3.1.1, clean session, no keepalive (the run is short).
        variable = _string("MQTT") + bytes([4, 0x02]) + struct.pack("!H", 0)
        self.sock.sendall(mqtt_packet(0x10, variable + _string(client_id)))
        first, body = self._wait()
        if first != 0x20 or body[1] != 0:
            raise ProtocolError(f"CONNACK refused: {body.hex()}")
        filters = b"".join(_string(topic) + bytes([qos]) for topic in topics)
        self.sock.sendall(mqtt_packet(0x82, struct.pack("!H", 1) + filters))
        first, body = self._wait()
        if first != 0x90 or any(code & 0x80 for code in body[2:]):
            raise ProtocolError(f"SUBACK refused: {body.hex()}")
        self.sock.setblocking(False)

    def _wait(self) -> tuple[int, bytes]:
        while (packet := mqtt_parse(self.buffer)) is None:
            _recv_exactly(self.sock, self.buffer, len(self.buffer) + 1)
        return packet

    def readable(self) -> bool:
        try:
            data = self.sock.recv(262144)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        stamp = time.time()
        if not data:
            self.lost = "closed by the broker"
            return False
        self.buffer += data
        acks = bytearray()
        while (packet := mqtt_parse(self.buffer)) is not None:
            first, body = packet
            if first >> 4 != 3:  # only PUBLISH is expected once subscribed
                continue
            qos = (first >> 1) & 0x03
            topic_size = struct.unpack_from("!H", body)[0]
            topic = body[2 : 2 + topic_size].decode()
            start = 2 + topic_size
            if qos:
                acks += mqtt_packet(0x40, body[start : start + 2])
                start += 2
            frames = self.by_topic.get(topic)
            if frames is not None:
                frames.append((stamp, body[start:]))
        if acks:
            self.sock.sendall(acks)
        return True

    def close(self) -> None:
        try:
            self.sock.setblocking(True)
            self.sock.sendall(b"\xe0\x00")
        except OSError:
            pass
        self.sock.close()


# ---------------------------------------------------------------------------- the loop --


class Clients:
    """Every connection of this process and the epoll loop that reads them."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.poll = select.epoll()
        self.connections: dict[int, WsConnection | MqttConnection] = {}
        self.finished: list[WsConnection | MqttConnection] = []  # closed early: frames kept
        self.closed: Counter[str] = Counter()
        self.stdin = bytearray()
        self.poll.register(sys.stdin.fileno(), select.EPOLLIN)

    def open(self, spec: dict) -> dict:
        failures: Counter[str] = Counter()
        opened = 0
        for _ in range(spec["count"]):
            try:
                if self.kind == "ws":
                    connection: WsConnection | MqttConnection = open_ws(spec)
                else:
                    connection = MqttConnection(
                        spec["host"], spec["port"], spec["topics"], spec["qos"]
                    )
            except (OSError, ProtocolError, ValueError) as error:
                failures[f"{type(error).__name__}: {error}"[:120]] += 1
                continue
            self.connections[connection.sock.fileno()] = connection
            self.poll.register(connection.sock.fileno(), select.EPOLLIN)
            opened += 1
        if self.kind == "ws":
            return {"connected": opened, "failed": dict(failures)}
        return {"connected": opened, "failed": spec["count"] - opened}

    def drop(self, fd: int, early: bool = True) -> None:
        connection = self.connections.pop(fd)
        self.poll.unregister(fd)
        if early:
            self.finished.append(connection)
            if isinstance(connection, WsConnection):
                self.closed[connection.closed_code or "none"] += 1
        connection.sock.close()

    def collect(self, spec: dict) -> dict:
        everyone = [*self.connections.values(), *self.finished]
        if self.kind == "ws":
            result = summarise([c.frames for c in everyone])  # type: ignore[union-attr]
            result["closed_early"] = dict(self.closed)
            for fd in list(self.connections):
                self.drop(fd, early=False)
            self.finished.clear()
            self.closed.clear()
            return result
        topic = spec["topic"]
        frames = [c.by_topic.get(topic, []) for c in everyone]  # type: ignore[union-attr]
        result = summarise([list(f) for f in frames])
        for f in frames:
            f.clear()
        lost = Counter(c.lost for c in everyone if c.lost)  # type: ignore[union-attr]
        return {**result, "lost": dict(lost)}

    def close_all(self) -> None:
        self.finished.clear()
        for fd in list(self.connections):
            connection = self.connections.pop(fd)
            self.poll.unregister(fd)
            if isinstance(connection, MqttConnection):
                connection.close()
            else:
                connection.sock.close()

    def command(self, body: dict) -> bool:
        """Run one command; False to stop."""
        if body["cmd"] == "open":
            reply(self.open(body))
        elif body["cmd"] == "collect":
            reply(self.collect(body))
        elif body["cmd"] == "close":
            self.close_all()
            reply({"closed": True})
        elif body["cmd"] == "quit":
            return False
        return True

    def run(self) -> None:
        stdin = sys.stdin.fileno()
        while True:
            for fd, _ in self.poll.poll():
                if fd == stdin:
                    data = os.read(stdin, 65536)
                    if not data:
                        return
                    self.stdin += data
                    while b"\n" in self.stdin:
                        line, _, rest = bytes(self.stdin).partition(b"\n")
                        self.stdin = bytearray(rest)
                        if not self.command(json.loads(line)):
                            return
                    continue
                connection = self.connections.get(fd)
                if connection is not None and not connection.readable():
                    self.drop(fd)


def main() -> None:
    raise_nofile()
    kinds = {"ws-clients": "ws", "mqtt-clients": "mqtt"}
    if len(sys.argv) != 2 or sys.argv[1] not in kinds:
        sys.exit(__doc__)
    clients = Clients(kinds[sys.argv[1]])
    try:
        clients.run()
    finally:
        clients.close_all()


if __name__ == "__main__":
    main()
