"""Benchmark of the hub's fan-out: from a ball drawn to 1,000 websocket clients and 1,000 MQTT
subscribers receiving it, against bare senders measured in the same run with the same clients.

A real hub runs as a subprocess (`bingo-hall serve`, SQLite in a temporary directory, users
and a monitor device provisioned with the CLI, the MQTT bridge on the local Mosquitto under a
throwaway hall id). Client processes (bench/fanout_clients.py) hold the websocket clients
(monitor token, `subscribe` from the head, caller channel: no display delay) and the MQTT
subscribers (aiomqtt, `bingo/<hall>/events`, clean sessions). The Jefe de Sala and the
Vendedor-locutor open a game through the protocol and the locutor draws balls at a fixed pace,
slow enough that one fan-out ends before the next ball (the run says when they overlapped).
Each client stamps `time.time()` when a `ball_drawn` frame reaches it; its latency is that
stamp minus the envelope's `time`, the hub's clock when it decided the draw, just before the
commit: from decision to receipt, so a little more than from commit (the durable SQLite commit
is inside it). Same machine, same clock.

Baselines, with the same client processes and the same count, pace and frame size:

- websocket: a bare `websockets` server (the hub's settings) sending a timestamped frame to all
  its connections with `websockets.broadcast`;
- MQTT: an aiomqtt publisher publishing the same frames straight to Mosquitto (QoS as chosen).

By default one transport is measured at a time (hub, then baseline; websocket, then MQTT): on
a 2-core machine the clients' own CPU would otherwise slow down the other transport's clients.
--together connects both kinds of client at once, as in a hall, for the hub and the baselines.
Prints, for each, frames received against clients x balls (and what is missing), p50, p99 and
max latency in ms, the median over balls of the last client's latency (the time a fan-out
takes), and the ratios hub / baseline of the p99s and of those medians.

Usage: python bench/bench_fanout.py [--balls 40] [--interval 0.5] [--ws-procs 2]
       [--ws-clients 500] [--mqtt-procs 2] [--mqtt-clients 500] [--mqtt-qos {0,1}] [--together]
       [--per-ball] [--drain 2] [--timeout 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.hub import Client, open_game  # noqa: E402

CLIENTS = Path(__file__).resolve().parent / "fanout_clients.py"
RAW_CLIENTS = Path(__file__).resolve().parent / "raw_clients.py"
BROKER = ("127.0.0.1", 1883)
PASSWORD = "bench fanout password"
STAFF = {"sala": "jefe_de_sala", "locutor": "vendedor_locutor"}


class BenchError(Exception):
    pass


def _die_with_parent() -> None:
    """Linux: SIGTERM this child if the benchmark dies without cleaning up."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _tail(path: Path, lines: int = 15) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


class Child:
    """A subprocess; the client and baseline processes talk JSON lines on stdin/stdout."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, log: Path) -> None:
        self.name, self.process, self.log = name, process, log

    @classmethod
    async def spawn(cls, name: str, args: list[str], folder: Path, protocol: bool = True) -> Child:
        log = folder / f"{name}.log"
        with log.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.PIPE if protocol else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE if protocol else err,
                stderr=err,
                cwd=ROOT,
                limit=2**26,
                preexec_fn=_die_with_parent,
            )
        return cls(name, process, log)

    async def ask(self, body: dict, timeout: float) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(body).encode() + b"\n")
        await self.process.stdin.drain()
        return await self.read(timeout)

    async def read(self, timeout: float) -> dict:
        assert self.process.stdout is not None
        try:
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        except TimeoutError:
            raise BenchError(f"{self.name}: no answer in {timeout:.0f} s") from None
        if not line:
            await asyncio.wait_for(self.process.wait(), 5)
            raise BenchError(
                f"{self.name} exited with {self.process.returncode}:\n{_tail(self.log)}"
            )
        return json.loads(line)

    async def stop(self) -> None:
        """Client processes: close stdin (they disconnect and exit); the hub: SIGTERM."""
        if self.process.returncode is None:
            with contextlib.suppress(Exception):
                if self.process.stdin is not None:
                    self.process.stdin.close()
                else:
                    self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 15)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


# ------------------------------------------------------------------------------ the hub --


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(folder: Path, hall: str, port: int) -> Path:
    """The fields of config/hall.toml, with the store in `folder`, a free port and MQTT."""
    config = folder / "hall.toml"
    config.write_text(
        f"""hall_id = "{hall}"
name = "Sala de banco de pruebas (fan-out)"
profile = "1979"
profiles_dir = "{ROOT / "config" / "profiles"}"
category = "first"

[store]
url = "sqlite:///{folder / "hall.sqlite"}"

[machine]
id = "EXT-1"
kind = "pneumatic"
homologation = "CNJ-EXT-0001"
draw = "certified_random"

[camera]
source = "none"  # the fan-out is measured, not the camera check before the decision

[server]
host = "127.0.0.1"
port = {port}
queue_size = 1000
# no display delay: the fan-out is measured from the draw (the caller channel); with one, the
# hub paces the draws to it and MQTT publishes each ball that much later
display_delay_seconds = 0
# every client logs in with the one monitor token (a hall gives each monitor its own)
max_connections_per_credential = 100000

[mqtt]
url = "mqtt://{BROKER[0]}:{BROKER[1]}"
""",
        encoding="utf-8",
    )
    return config


def cli(config: Path, *args: str, stdin: str | None = None) -> str:
    command = [sys.executable, "-m", "bingo_hall.cli", *args, "--config", str(config)]
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    if done.returncode:
        raise BenchError(f"{' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def provision(config: Path) -> str:
    """Staff users and a monitor device through the CLI; returns the monitor's token."""
    for user, role in STAFF.items():
        cli(config, "user-add", user, "--role", role, "--password-stdin", stdin=PASSWORD + "\n")
    out = cli(config, "device-add", "mon-bench", "--kind", "monitor")
    found = re.search(r"token \(shown only now\): (\S+)", out)
    if not found:
        raise BenchError(f"device-add printed no token: {out!r}")
    return found.group(1)


def health(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
        return json.loads(answer.read())


async def wait_health(port: int, hub: Child, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        if hub.process.returncode is not None:
            raise BenchError(f"the hub exited with {hub.process.returncode}:\n{_tail(hub.log)}")
        try:
            return await asyncio.to_thread(health, port)
        except OSError:
            if time.monotonic() > deadline:
                raise BenchError(f"no /health in {timeout:.0f} s:\n{_tail(hub.log)}") from None
            await asyncio.sleep(0.2)


async def bridge_running(hall: str) -> str | None:
    """None if the hub's MQTT bridge publishes (its retained state is on the broker), else why
    not."""
    try:
        import aiomqtt

        import bingo_hall.transport.mqtt_bridge  # noqa: F401
    except Exception as error:
        return f"the MQTT bridge is not importable ({type(error).__name__}: {error})"
    try:
        async with aiomqtt.Client(*BROKER, identifier=f"bench-probe-{hall}") as probe:
            await probe.subscribe(f"bingo/{hall}/state", qos=1)
            async with asyncio.timeout(5):
                async for _ in probe.messages:
                    return None
    except TimeoutError:
        return "the hub published nothing on MQTT in 5 s (serve.py does not start the bridge?)"
    except aiomqtt.MqttError as error:
        return f"the broker at {BROKER[0]}:{BROKER[1]} is not reachable ({error})"
    return "no state"


async def forget_hall_on_broker(hall: str) -> None:
    """Remove what the bridge left on Mosquitto for this throwaway hall: its retained state
    and its persistent session (client id bingo-hub-<hall>)."""
    import aiomqtt

    with contextlib.suppress(Exception):
        async with asyncio.timeout(10):
            async with aiomqtt.Client(*BROKER, identifier=f"bench-clean-{hall}") as client:
                await client.publish(f"bingo/{hall}/state", b"", qos=1, retain=True)
            async with aiomqtt.Client(*BROKER, identifier=f"bingo-hub-{hall}", clean_session=True):
                pass


async def draw(locutor: Client, balls: int, interval: float) -> tuple[list[int], list[float]]:
    """`draw_ball` every `interval` s; the ball_drawn seqs and the commands' round trips."""
    seqs, round_trips = [], []
    start = time.monotonic()
    for k in range(balls):
        delay = start + k * interval - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        sent = time.perf_counter()
        result = await locutor.ok("draw_ball")
        round_trips.append((time.perf_counter() - sent) * 1000)
        seqs += [e["seq"] for e in result["events"] if e["type"] == "ball_drawn"]
    return seqs, round_trips


# -------------------------------------------------------------------------- reporting --


def percentile(ordered: list[float], fraction: float) -> float:
    """Nearest rank."""
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


class Outcome:
    def __init__(self, results: list[dict], seqs: list[int], clients: int) -> None:
        wanted = set(seqs)
        counts: Counter[int] = Counter()
        by_seq: dict[int, list[float]] = {seq: [] for seq in seqs}
        self.duplicates = self.extra = 0
        self.closed: Counter[str] = Counter()
        self.lost: Counter[str] = Counter()
        for result in results:
            counts.update({int(seq): n for seq, n in result["counts"].items()})
            for seq, latency in result["latencies"]:
                if seq in wanted:
                    by_seq[seq].append(latency)
            self.duplicates += result["duplicates"]
            self.closed.update(result.get("closed_early", {}))
            self.lost.update(result.get("lost", {}))
        self.extra = sum(n for seq, n in counts.items() if seq not in wanted)
        self.expected = clients * len(seqs)
        self.received = sum(counts[seq] for seq in seqs)
        self.latencies = sorted(x for values in by_seq.values() for x in values)
        lasts = [max(values) for values in by_seq.values() if values]
        self.lasts = lasts  # in the order of the balls
        self.last_median = statistics.median(lasts) if lasts else float("nan")

    def p(self, fraction: float) -> float:
        return percentile(self.latencies, fraction) if self.latencies else float("nan")

    def line(self, label: str) -> str:
        text = (
            f"  {label:<37} {self.received:>6,}/{self.expected:<6,} {self.p(0.50):7.1f}"
            f" {self.p(0.99):7.1f} {self.p(1.0):7.1f} {self.last_median:12.1f}"
        )
        notes = []
        if self.received < self.expected:
            notes.append(f"MISSING {self.expected - self.received:,}")
        if self.duplicates:
            notes.append(f"{self.duplicates} duplicates")
        if self.extra:
            notes.append(f"{self.extra} frames of unexpected seqs")
        if self.closed:
            notes.append(f"connections closed early by code: {dict(self.closed)}")
        if self.lost:
            notes.append(f"MQTT connections lost: {dict(self.lost)}")
        return text + ("\n    " + "; ".join(notes) if notes else "")


HEADER = f"{'received':>15} {'p50':>7} {'p99':>7} {'max':>7} {'last client':>12}   (ms)"


def ratio(hub: Outcome, bare: Outcome) -> str:
    if not hub.latencies or not bare.latencies:
        return "n/a"
    return (
        f"p99 {hub.p(0.99) / bare.p(0.99):.2f}, "
        f"last client (median over balls) {hub.last_median / bare.last_median:.2f}"
    )


# ---------------------------------------------------------------------------- the run --


async def open_all(workers: list[Child], body: dict, per: int, what: str) -> float:
    """Open `per` connections in each worker; the seconds it took."""
    start = time.monotonic()
    answers = await asyncio.gather(*(w.ask({**body, "count": per}, 120) for w in workers))
    connected = sum(a["connected"] for a in answers)
    if connected < per * len(workers):
        failed = [a["failed"] for a in answers if a["failed"]]
        print(f"  ! {what}: {connected} of {per * len(workers)} connected; failures: {failed}")
    return time.monotonic() - start


async def collect(workers: list[Child], body: dict, seqs: list[int], clients: int) -> Outcome:
    return Outcome(await asyncio.gather(*(w.ask(body, 60) for w in workers)), seqs, clients)


async def run(args: argparse.Namespace) -> None:
    folder_holder = tempfile.TemporaryDirectory(prefix="bench-fanout-")
    folder = Path(folder_holder.name)
    hall = f"bench-{secrets.token_hex(4)}"
    hub_topic, bare_topic = f"bingo/{hall}/events", f"bench-fanout/{hall}/bare"
    port = free_port()
    config = write_config(folder, hall, port)
    python = sys.executable
    ws_clients = args.ws_procs * args.ws_clients
    mqtt_clients = args.mqtt_procs * args.mqtt_clients
    children: list[Child] = []
    hub: Child | None = None
    bridge_problem: str | None = "not checked"
    round_trips: list[float] = []
    connect: dict[str, float] = {}
    started = time.monotonic()
    clients_script = str(RAW_CLIENTS if args.clients == "raw" else CLIENTS)
    try:
        spawns = [
            *(
                Child.spawn(f"ws-{i}", [python, clients_script, "ws-clients"], folder)
                for i in range(args.ws_procs)
            ),
            *(
                Child.spawn(f"mqtt-{i}", [python, clients_script, "mqtt-clients"], folder)
                for i in range(args.mqtt_procs)
            ),
            Child.spawn("bare-ws", [python, str(CLIENTS), "bare-ws", hall], folder),
            Child.spawn("bare-mqtt", [python, str(CLIENTS), "bare-mqtt", hall], folder),
        ]
        children = list(await asyncio.gather(*spawns))  # they start while we provision
        token = await asyncio.to_thread(provision, config)
        ws_workers = children[: args.ws_procs]
        mqtt_workers = children[args.ws_procs : args.ws_procs + args.mqtt_procs]
        bare_ws, bare_mqtt = children[-2:]
        hub = await Child.spawn(
            "hub",
            [python, "-m", "bingo_hall.cli", "serve", "--config", str(config)],
            folder,
            protocol=False,
        )
        await wait_health(port, hub)
        bare_port = (await bare_ws.read(30))["port"]
        await bare_mqtt.read(30)
        url = f"ws://127.0.0.1:{port}/ws"

        async with (
            Client.login(url, user="sala", password=PASSWORD) as staff,
            Client.login(url, user="locutor", password=PASSWORD) as locutor,
        ):
            await open_game(staff, locutor)
            bridge_problem = await bridge_running(hall)

            async def open_ws(mode: str) -> None:
                if mode == "hub":
                    head = (await asyncio.to_thread(health, port))["seq"]
                    body = {"mode": "hub", "url": url, "token": token, "after_seq": head}
                else:
                    body = {"mode": "bare", "url": f"ws://127.0.0.1:{bare_port}/"}
                what = f"websocket clients ({mode})"
                body["cmd"] = "open"
                connect[what] = await open_all(ws_workers, body, args.ws_clients, what)

            async def open_mqtt() -> None:
                body = {
                    "cmd": "open",
                    "host": BROKER[0],
                    "port": BROKER[1],
                    "qos": args.mqtt_qos,
                    "topics": [hub_topic, bare_topic],  # subscribed once, for both senders
                }
                what = "MQTT subscribers"
                connect[what] = await open_all(mqtt_workers, body, args.mqtt_clients, what)

            async def hub_balls() -> list[int]:
                await asyncio.sleep(1.0)  # the connections settle
                seqs, trips = await draw(locutor, args.balls, args.interval)
                round_trips.extend(trips)
                await asyncio.sleep(args.drain)
                return seqs

            async def bare_balls(ws: bool, mqtt: bool) -> list[int]:
                await asyncio.sleep(1.0)
                runs = {"cmd": "run", "count": args.balls, "interval": args.interval}
                limit = args.balls * args.interval + 60
                await asyncio.gather(
                    *([bare_ws.ask(runs, limit)] if ws else []),
                    *(
                        [bare_mqtt.ask({**runs, "topic": bare_topic, "qos": args.mqtt_qos}, limit)]
                        if mqtt
                        else []
                    ),
                )
                await asyncio.sleep(args.drain)
                return list(range(1, args.balls + 1))

            def ws_collect(seqs: list[int]):
                return collect(ws_workers, {"cmd": "collect"}, seqs, ws_clients)

            def mqtt_collect(topic: str, seqs: list[int]):
                body = {"cmd": "collect", "topic": topic}
                return collect(mqtt_workers, body, seqs, mqtt_clients)

            if args.together:  # both transports at once, as in a hall
                await open_mqtt()
                await open_ws("hub")
                seqs = await hub_balls()
                hub_ws, hub_mqtt = await ws_collect(seqs), await mqtt_collect(hub_topic, seqs)
                await open_ws("bare")
                seqs = await bare_balls(ws=True, mqtt=True)
                base_ws, base_mqtt = await ws_collect(seqs), await mqtt_collect(bare_topic, seqs)
            else:  # one transport at a time: the clients' CPU does not slow down the other
                await open_ws("hub")
                hub_ws = await ws_collect(await hub_balls())
                await open_ws("bare")
                base_ws = await ws_collect(await bare_balls(ws=True, mqtt=False))
                await open_mqtt()
                hub_mqtt = await mqtt_collect(hub_topic, await hub_balls())
                base_mqtt = await mqtt_collect(bare_topic, await bare_balls(ws=False, mqtt=True))
            await asyncio.gather(*(w.ask({"cmd": "close"}, 60) for w in mqtt_workers))
    finally:
        await asyncio.gather(*(child.stop() for child in children), return_exceptions=True)
        if hub is not None:
            await hub.stop()
        problems = [
            (child.name, _tail(child.log, 8))
            for child in [*children, *([hub] if hub else [])]
            if re.search(r"Traceback|ERROR|WARNING|[Ee]rror", _tail(child.log, 200))
        ]
        await forget_hall_on_broker(hall)
        folder_holder.cleanup()

    how = "together" if args.together else "one transport at a time"
    print(
        f"fan-out of {args.balls} balls per measurement, one every {args.interval * 1000:.0f} ms, "
        f"{how}; hall {hall}\n"
        f"  clients: {args.clients}; websocket: {ws_clients:,} clients "
        f"({args.ws_procs} processes x {args.ws_clients}, "
        f"monitor token, caller channel); MQTT: {mqtt_clients:,} subscribers "
        f"({args.mqtt_procs} x {args.mqtt_clients}, QoS {args.mqtt_qos}, clean session)"
    )
    print(
        "latency = time.time() at receipt - the event's `time` (the hub's clock when it decided "
        "the draw,\n  just before the durable SQLite commit): from decision to receipt, a little "
        "more than from commit;\n  baselines: from the sender's stamp just before it sends"
    )
    print(
        "connect: "
        + ", ".join(f"{what} {seconds:.1f} s" for what, seconds in connect.items())
        + f"\ndraw_ball round trip (locutor, decide + commit + answer): "
        f"median {statistics.median(round_trips):.1f} ms, max {max(round_trips):.1f} ms"
    )
    print(f"{'websocket':<39}{HEADER}")
    print(hub_ws.line("hub /ws"))
    print(base_ws.line("bare websockets.broadcast (baseline)"))
    print(f"  ratio hub / bare: {ratio(hub_ws, base_ws)}")
    print(f"{'MQTT':<39}{HEADER}")
    if bridge_problem is None:
        print(hub_mqtt.line("hub bridge -> Mosquitto"))
    else:
        print(f"  hub bridge -> Mosquitto: NOT MEASURED: {bridge_problem}")
    print(base_mqtt.line("aiomqtt publish -> Mosquitto (base)"))
    if bridge_problem is None:
        print(f"  ratio hub / bare: {ratio(hub_mqtt, base_mqtt)}")
    overlapped = [
        name
        for name, outcome in (
            ("hub ws", hub_ws),
            ("bare ws", base_ws),
            ("hub MQTT", hub_mqtt),
            ("bare MQTT", base_mqtt),
        )
        if outcome.latencies and outcome.p(1.0) > args.interval * 1000
    ]
    if overlapped:
        print(
            f"note: some fan-outs overlapped (a client got a ball more than {args.interval} s "
            f"after it was sent: {', '.join(overlapped)}); raise --interval to separate them"
        )
    print(
        "(last client: per ball, the latency of the last of the clients to get it, i.e. how long "
        "the fan-out took;\n  the median over balls. With 1,000 clients a ball is 1,000 samples: "
        "p99 and max come from the slowest ball)"
    )
    if args.per_ball:
        for name, outcome in (
            ("hub ws", hub_ws),
            ("bare ws", base_ws),
            ("hub MQTT", hub_mqtt),
            ("bare MQTT", base_mqtt),
        ):
            print(f"last client per ball, {name}: " + " ".join(f"{x:.0f}" for x in outcome.lasts))
    for name, tail in problems:
        print(f"note: {name} logged errors or warnings; its last lines:\n{tail}")
    print(f"whole run {time.monotonic() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--balls", type=int, default=40, help="balls per measurement")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between balls")
    parser.add_argument("--ws-procs", type=int, default=2)
    parser.add_argument("--ws-clients", type=int, default=500, help="per process")
    parser.add_argument("--mqtt-procs", type=int, default=2)
    parser.add_argument("--mqtt-clients", type=int, default=500, help="per process")
    parser.add_argument("--mqtt-qos", type=int, choices=[0, 1], default=1)
    parser.add_argument(
        "--clients",
        choices=["raw", "library"],
        default="raw",
        help="raw: lean epoll clients (bench/raw_clients.py); library: websockets and aiomqtt",
    )
    parser.add_argument("--drain", type=float, default=2.0, help="seconds after the last ball")
    parser.add_argument("--timeout", type=float, default=200, help="give up after this long")
    parser.add_argument(
        "--per-ball", action="store_true", help="print each ball's last-client latency"
    )
    parser.add_argument(
        "--together", action="store_true", help="websocket and MQTT clients at the same time"
    )
    args = parser.parse_args()
    if not 1 <= args.balls <= (90 if args.together else 45):
        parser.error("--balls: at most 90 balls in a game (45 when it draws twice)")
    try:
        asyncio.run(asyncio.wait_for(run(args), args.timeout))
    except (BenchError, TimeoutError) as error:
        sys.exit(f"bench_fanout: {str(error) or f'gave up after {args.timeout:.0f} s (--timeout)'}")


if __name__ == "__main__":
    main()
