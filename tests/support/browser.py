"""Browser tests: a real `bingo-hall serve` process on a free port with a temporary store and
configuration, and Debian's Chromium driven by Playwright (never `playwright install`)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from bingo_hall.config import HallConfig
from bingo_hall.store.credentials import CredentialStore
from support.aio import run_async
from support.demo import open_log
from support.hub import PASSWORD, USERS, Client, open_sale, prepare_store

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
SCREENS = REPO / "test-output" / "screens"

__all__ = [
    "CHROMIUM",
    "PASSWORD",
    "SCREENS",
    "USERS",
    "HubProcess",
    "PreparedHall",
    "Screens",
    "chromium",
    "draw",
    "monitor_fits",
    "page_in",
    "phase",
    "served",
    "staff",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class PreparedHall:
    """A hall's store (users, devices, an imported series) and its configuration file, with
    its casino tables (`[[tables]]` entries: id, name, game, profile, limits), each with its
    own table device `mesa-<id>`."""

    directory: Path
    draw: str = "blower"
    profile: str = "basque"
    display_delay: float = 1.5
    max_connections: int = 8  # per credential
    tables: list[dict] = field(default_factory=list)
    staff: dict[str, str] = field(default_factory=dict)  # users besides USERS: name → role
    closing_time: str | None = None  # the casino's, "HH:MM" in Europe/Madrid (None: unset)
    tokens: dict[str, str] = field(default_factory=dict)
    series: object = None
    config: Path = field(init=False)
    db_url: str = field(init=False)

    def __post_init__(self) -> None:
        self.db_url = f"sqlite:///{self.directory / 'hall.sqlite'}"
        self.config = self.directory / "hall.toml"

    def prepare(self, terminals: tuple[str, ...] = ("term-1",), monitors=("snd-1",)) -> None:
        self.tokens["mon-1"], self.series = prepare_store(self.db_url)
        log = open_log(self.db_url)
        try:
            credentials = CredentialStore(log.engine)
            for name, role in self.staff.items():
                credentials.add_user(name, role, PASSWORD)
            for name in monitors:
                self.tokens[name] = credentials.add_device(name, "monitor")
            for name in terminals:
                self.tokens[name] = credentials.add_device(name, "terminal")
            for table in self.tables:
                device = f"mesa-{table['id'].lower()}"
                self.tokens[device] = credentials.add_device(device, "table", table["id"])
        finally:
            log.engine.dispose()
        lines = [
            'hall_id = "sala-web"',
            'name = "Sala de pruebas"',
            f'profile = "{self.profile}"',
            f'profiles_dir = "{REPO / "config" / "profiles"}"',
            f'table_profiles_dir = "{REPO / "config" / "tables"}"',
            *([f'closing_time = "{self.closing_time}"'] if self.closing_time else []),
            "[store]",
            f'url = "{self.db_url}"',
            "[machine]",
            'id = "EXT-1"',
            'kind = "pneumatic"',
            'homologation = "CNJ-EXT-0001"',
            f'draw = "{self.draw}"',
            "[server]",
            'host = "127.0.0.1"',
            f"display_delay_seconds = {self.display_delay}",
            f"max_connections_per_credential = {self.max_connections}",
        ]
        if "camera" in HallConfig.model_fields:  # the CCTV check, where the hub has one
            lines += ["[camera]", 'source = "none"']
        for table in self.tables:  # JSON strings and numbers are TOML ones
            limits = ", ".join(f"{k} = {json.dumps(v)}" for k, v in table["limits"].items())
            lines += ["[[tables]]", f"limits = {{ {limits} }}"]
            lines += [f"{k} = {json.dumps(v)}" for k, v in table.items() if k != "limits"]
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")


class HubProcess:
    """`bingo-hall serve --config FILE --port N` as a subprocess; restartable on its port.

    `running` holds the hubs started and not yet stopped, so that a failing browser test can
    show their logs (tests/displays/conftest.py)."""

    running: ClassVar[list[HubProcess]] = []

    def __init__(self, hall: PreparedHall, port: int | None = None) -> None:
        self.hall = hall
        self.port = port or free_port()
        self.process: subprocess.Popen[str] | None = None
        self.log = hall.directory / "serve.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        command = [sys.executable, "-m", "bingo_hall.cli", "serve"]
        command += ["--config", str(self.hall.config), "--port", str(self.port)]
        with self.log.open("a", encoding="utf-8") as out:
            self.process = subprocess.Popen(
                command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, text=True, env=os.environ
            )
        HubProcess.running.append(self)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=2) as answer:
                    json.loads(answer.read())
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"bingo-hall serve did not start: {self.log.read_text()[-2000:]}"
                    ) from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is None:
            return
        if self in HubProcess.running:
            HubProcess.running.remove(self)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def log_tail(self, characters: int = 8000) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return text[-characters:]

    def health(self) -> dict:
        with urllib.request.urlopen(f"{self.base}/health", timeout=5) as answer:
            return json.loads(answer.read())


@contextmanager
def served(hall: PreparedHall) -> Iterator[HubProcess]:
    """The hall prepared (its store and configuration) and served by `bingo-hall serve` until
    the block ends."""
    hall.prepare()
    hub = HubProcess(hall)
    hub.start()
    try:
        yield hub
    finally:
        hub.stop()


def prepare_audio() -> None:
    """The spoken numbers in the repository's (git-ignored) cache, as at install."""
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "prepare_audio.py")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr


# --- pages -------------------------------------------------------------------------------


class Screens:
    """Screenshots under test-output/screens/, numbered in the order they are taken."""

    def __init__(self, first: int = 0) -> None:
        SCREENS.mkdir(parents=True, exist_ok=True)
        self.count = first

    def path(self, name: str) -> str:
        self.count += 1
        return str(SCREENS / f"{self.count:02d}-{name}.png")

    def shot(self, page: Page, name: str, full: bool = False) -> None:
        page.screenshot(path=self.path(name), full_page=full)

    def element(self, locator, name: str) -> None:
        locator.screenshot(path=self.path(name))


@contextmanager
def chromium(*args: str) -> Iterator[Browser]:
    """Debian's Chromium, headless, with these command-line switches."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=list(args))
        try:
            yield launched
        finally:
            launched.close()


def page_in(browser: Browser, width: int = 1600, height: int = 1000) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


MONITOR_FITS = """() => {
  const w = innerWidth, h = innerHeight, bad = [];
  const root = document.documentElement;
  if (root.scrollWidth > w || root.scrollHeight > h) {
    bad.push(`document ${root.scrollWidth}x${root.scrollHeight}`);
  }
  const boxes = '.m-top, .m-main, .m-bottom, #m-last, #m-board, .m-board .cell, '
    + '#m-last-five li, .m-prize, #m-state, #m-count, .m-frame-box, #m-ov-cards, .m-ov-card, '
    + '.m-table, .m-table-head, .m-table-now, .m-table-recent, .m-pocket, .m-table-limits';
  for (const e of document.querySelectorAll(boxes)) {
    const r = e.getBoundingClientRect();
    if (!r.width || getComputedStyle(e).display === 'none') continue;
    if (r.left < -1 || r.top < -1 || r.right > w + 1 || r.bottom > h + 1) {
      bad.push(`outside ${e.id || e.className}`);
    }
  }
  const texts = '.m-board .cell, #m-last, .m-prize-amount, #m-count, #m-last-five li, #m-info, '
    + '.m-table, .m-table-outcome, .m-pocket, .m-table-limit dd, .m-table-phase';
  for (const e of document.querySelectorAll(texts)) {
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
      bad.push(`clipped ${e.id || e.textContent}`);
    }
  }
  return bad;
}"""
LAST_BALL_SIZE = "parseFloat(getComputedStyle(document.querySelector('#m-last')).fontSize)"


def monitor_fits(monitor: Page) -> None:
    """Nothing of the monitor leaves the screen or is cut, and the last ball is very large."""
    assert monitor.evaluate(MONITOR_FITS) == []
    size = monitor.evaluate(LAST_BALL_SIZE)
    assert size >= 0.25 * monitor.viewport_size["height"], size


LOGIN_PREFIX = {"control": "c", "table": "t"}  # the ids of a staff page's login and app
FRENCH_ROULETTE = {
    "id": "R1",
    "name": "Ruleta francesa 1",
    "game": "french-roulette",
    "profile": "1979",
    "limits": {"minimum": "5"},
}
"""A table of the hall's configuration (`PreparedHall.tables`): French roulette, 1979, minimum 5."""


def staff(
    browser: Browser, base: str, user: str, lang: str | None = None, screen: str = "control"
) -> Page:
    """A staff page (`/control`, or a table's station `/table`) logged in as `user`."""
    prefix = LOGIN_PREFIX[screen]
    _, page = page_in(browser)
    page.goto(f"{base}/{screen}" + (f"?lang={lang}" if lang else ""))
    page.fill(f"#{prefix}-user", user)
    page.fill(f"#{prefix}-password", PASSWORD)
    page.click(f"#{prefix}-login-submit")
    expect(page.locator(f"#{prefix}-app")).to_be_visible()
    expect(page.locator(f"#{prefix}-conn")).to_have_attribute("data-state", "live")
    return page


def phase(page: Page, text: str) -> None:
    expect(page.locator("#c-phase")).to_have_text(text)


def draw(locutor: Page, number: int, count: int) -> None:
    locutor.fill("#blower-number", str(number))
    locutor.click("#draw-ball")
    expect(locutor.locator("#live-count")).to_have_text(str(count))
    expect(locutor.locator("#live-last")).to_have_text(str(number))


ACTIONS = "window.bingoControl?.actions ? window.bingoControl.actions() : null"


def call_claim(locutor: Page, kind: str, card: int) -> None:
    """The caller keys a claim of series A1's card `card` in the claim form."""
    locutor.select_option("#claim-kind", kind)
    locutor.fill("#claim-card", str(card))
    locutor.click("#form-claim button[type=submit]")


def page_states(browser: Browser) -> list[str]:
    """Each open page's address, what holds a control screen's actions back (busy commands,
    the wait before the next ball, replies awaited) and the start of its visible text."""
    states = []
    for context in browser.contexts:
        for page in context.pages:
            try:
                actions = page.evaluate(ACTIONS)
                text = page.evaluate("document.body ? document.body.innerText : ''")
            except PlaywrightError as error:
                actions, text = None, f"(unreadable: {error})"
            held = f"\nactions: {actions}" if actions is not None else ""
            states.append(f"{page.url}{held}\n{' '.join(str(text).split())[:600]}")
    return states


def given_by(hub: HubProcess, user: str, *commands: tuple[str, dict]) -> None:
    """Commands of a member of staff, over the protocol ("open_sale": the session opened and
    a game's sale started)."""

    async def given(staff: Client) -> None:
        for name, args in commands:
            if name == "open_sale":
                await open_sale(staff)
            else:
                await staff.ok(name, **args)

    _as_staff(hub, user, given)


def refused_by(hub: HubProcess, user: str, name: str, args: dict) -> dict:
    """The hub's answer (`error`) to a command of a member of staff that it refuses."""
    answers: list[dict] = []

    async def refused(staff: Client) -> None:
        answer = await staff.command(name, **args)
        assert not answer["success"], answer
        answers.append(answer["error"])

    _as_staff(hub, user, refused)
    return answers[0]


def _as_staff(hub: HubProcess, user: str, act: Callable[[Client], Awaitable[None]]) -> None:
    """`act` with a member of staff's connection to the hub, on a thread of its own: the
    browser's sync API holds this thread's event loop."""

    async def logged_in() -> None:
        url = f"ws://127.0.0.1:{hub.port}/ws"
        async with Client.login(url, user=user, password=PASSWORD) as staff:
            await act(staff)

    failures: list[BaseException] = []
    worker = threading.Thread(target=lambda: _collect(failures, logged_in()))
    worker.start()
    worker.join()
    if failures:
        raise failures[0]


def _collect(failures: list[BaseException], coroutine) -> None:
    try:
        run_async(coroutine)
    except BaseException as failure:  # handed to the test's thread
        failures.append(failure)
