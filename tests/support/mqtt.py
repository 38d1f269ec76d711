"""MQTT test helpers: a Mosquitto broker of the test's own on a free port (the system broker is
never touched), the hall's example broker configuration with its ACL and users, and aiomqtt
clients that read a given number of messages or a whole replay."""

from __future__ import annotations

import asyncio
import getpass
import json
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import aiomqtt

from bingo_hall.config import MqttConfig
from bingo_hall.transport.mqtt_access import HallAccess, password_file_text, read_text, write_files
from bingo_hall.transport.mqtt_bridge import StreamBridge
from support.aio import until
from support.serve import free_port

REPO = Path(__file__).resolve().parents[2]
MOSQUITTO = "/usr/sbin/mosquitto"


class Mosquitto:
    """A broker of our own: configure, start, kill -9, start again on the same port."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = directory / "mosquitto.conf"
        self.log = directory / "broker.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.acl: Path | None = None  # an example broker's ACL and password files
        self.passwd: Path | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def configure(self, text: str) -> None:
        self.conf.write_text(f"{text.rstrip()}\nuser {getpass.getuser()}\n", encoding="utf-8")

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 10
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(5)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()


def anonymous_broker(directory: Path, *, persistent: bool = False) -> Mosquitto:
    """A broker (configured, not started) that lets anyone in; a persistent one keeps its
    sessions on disk, saved every second, so that they outlive a kill -9."""
    broker = Mosquitto(directory)
    text = f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
    if persistent:
        text += (
            f"persistence true\npersistence_location {broker.directory}/\n"
            "autosave_interval 1\nautosave_on_changes true\n"
        )
    broker.configure(text)
    return broker


HALL = "sala-1"
HUB_PASSWORD = "clave-del-hub"


def example_broker(
    tmp_path: Path, users: dict[str, str], tables: tuple[str, ...] = (), *, access: bool = True
) -> Mosquitto:
    """The example config/mosquitto/mosquitto.conf on tmp paths (``broker.acl``,
    ``broker.passwd``), not started. `users` (monitors, terminals: user → password) are added
    to its password file with mosquitto_passwd; with `access`, the hub's users (password
    HUB_PASSWORD) and the ACL are written for hall sala-1 and `tables` as `bingo-hall
    mqtt-access` writes them."""
    broker = Mosquitto(tmp_path / "acl")
    broker.acl, broker.passwd = broker.directory / "acl", broker.directory / "passwd"
    for index, (user, password) in enumerate(users.items()):
        create = ["-c"] if index == 0 else []
        subprocess.run(
            ["mosquitto_passwd", *create, "-b", str(broker.passwd), user, password], check=True
        )
    if access:
        hall = HallAccess(HALL, "bingo", tables)
        old = read_text(broker.passwd, "password file")
        hub_users, _ = password_file_text(old, broker.passwd, hall, HUB_PASSWORD)
        write_files({broker.acl: (hall.acl_text(), 0o644), broker.passwd: (hub_users, 0o600)})
    text = (REPO / "config" / "mosquitto" / "mosquitto.conf").read_text(encoding="utf-8")
    for key, value in {
        "listener": f"{broker.port} 127.0.0.1",
        "password_file": str(broker.passwd),
        "acl_file": str(broker.acl),
        "persistence_location": f"{broker.directory}/",
        "log_dest": f"file {broker.log}",
    }.items():
        text, found = re.subn(rf"^{key} .*$", f"{key} {value}", text, flags=re.M)
        assert found == 1, key
    assert re.search(r"^allow_anonymous false$", text, re.M)
    broker.configure(text)
    return broker


def hub_login(broker: Mosquitto) -> MqttConfig:
    """The hub's [mqtt] for an example broker: its bridges log in as their client ids."""
    return MqttConfig(url=broker.url, password=HUB_PASSWORD)


def login(
    broker: Mosquitto, user: str, password: str, identifier: str | None = None, **options
) -> aiomqtt.Client:
    """A client of `user`, asking for client id `identifier` (by default the user's name)."""
    return mqtt_client(broker, identifier or user, username=user, password=password, **options)


def mqtt_client(broker: Mosquitto, identifier: str | None = None, **options) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", broker.port, identifier=identifier, **options)


async def take(client: aiomqtt.Client, count: int, timeout: float = 10.0) -> list[aiomqtt.Message]:
    got: list[aiomqtt.Message] = []

    async def read() -> None:
        async for message in client.messages:
            got.append(message)
            if len(got) == count:
                return

    await asyncio.wait_for(read(), timeout)
    return got


async def take_until_done(client: aiomqtt.Client, timeout: float = 10.0) -> list[dict]:
    """Replay messages up to and including replay_done."""
    got: list[dict] = []

    async def read() -> None:
        async for message in client.messages:
            got.append(json.loads(message.payload))
            if got[-1].get("type") == "replay_done":
                return

    await asyncio.wait_for(read(), timeout)
    return got


async def persistent_subscriber(
    broker: Mosquitto, topic: str, received: list[int], online: asyncio.Event
) -> asyncio.Task:
    """A monitor with a persistent session (client id "monitor-p") on `topic`, appending each
    message's seq to `received`; it reconnects whenever `online` is set and the broker is back.

    Returns its task once the broker has acknowledged its first subscription: a session gets
    only what is published after it subscribed, so a game started before then could publish
    its first events to nobody."""
    subscribed = asyncio.Event()

    async def monitor() -> None:
        while True:
            await online.wait()
            try:
                async with mqtt_client(broker, "monitor-p", clean_session=False) as client:
                    await client.subscribe(topic, qos=1)
                    subscribed.set()
                    async for message in client.messages:
                        received.append(json.loads(message.payload)["seq"])
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)

    task = asyncio.create_task(monitor())
    await asyncio.wait_for(subscribed.wait(), 10)
    return task


async def all_delivered(subscriber: asyncio.Task, received: list[int], head: int) -> float:
    """Wait until a persistent subscriber has every seq up to `head`; the seconds it took. If
    some never come, the failure names them and says whether the subscriber still runs."""
    try:
        return await until(lambda: len(set(received)) == head)
    except AssertionError:
        missing = sorted(set(range(1, head + 1)) - set(received))
        state = subscriber.exception() if subscriber.done() else "still running"
        raise AssertionError(f"seqs {missing} never reached the subscriber ({state})") from None


async def published(bridge: StreamBridge, seq: int, timeout: float = 10.0) -> None:
    """Wait until the broker acknowledged `events` and the retained state up to seq."""
    deadline = asyncio.get_running_loop().time() + timeout
    while bridge.published_seq < seq or bridge.state_seq != seq:
        assert asyncio.get_running_loop().time() < deadline, (bridge.published_seq, seq)
        await asyncio.sleep(0.01)
