"""Camera holds on the screens, in headless Chromium: the hold panel of the control screen (the
frame, the reading, the call; confirm and correct), «Comprobando bola» on the monitor, the frame
of each ball on the monitor; and the caller's draw form when the hub's reply to a draw comes
after the ball it drew.

The hub here is the tests' real hub in this process (`support.hub.running_hub`: the same
HubServer, HubRuntime, routes and store as `bingo-hall serve`, the real ball reader), because
the test must choose what the simulated camera at the ball exit shows, which a `bingo-hall
serve` process cannot be told. It runs on its own event loop in a thread beside Playwright's.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect, sync_playwright

from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.store.frames import FrameStore
from bingo_hall.vision.camera import SimulatedCamera, simulated_exit
from bingo_hall.vision.recognise import BallReader
from support.browser import (
    ACTIONS,
    CHROMIUM,
    Screens,
    call_claim,
    page_in,
    page_states,
    phase,
    prepare_audio,
    staff,
)
from support.hub import PASSWORD, Client, announce_game, open_game, prepare_store, running_hub
from support.mjpeg import MjpegExit

expect.set_options(timeout=15_000)


class Exit:
    """The simulated ball exit: what the camera sees is up to the test, not the call."""

    def __init__(self) -> None:
        self.camera: SimulatedCamera = SimulatedCamera(seed=20261123)
        self.reader = BallReader()

    def check(self, engine) -> BallCheck:
        return BallCheck(self.camera, self.reader, FrameStore(engine), frames_per_ball=2)

    def show(self, ball: int | None, conditions: str = "normal") -> None:
        self.camera.present(ball, conditions=conditions)


class HubThread:
    """`running_hub` on its own event loop in a thread."""

    def __init__(self, **options: object) -> None:
        self.options = options
        self.ready = threading.Event()
        self.error: BaseException | None = None

    def __enter__(self) -> HubThread:
        self.thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self.thread.start()
        assert self.ready.wait(60), "the hub did not start"
        if self.error is not None:
            raise self.error
        return self

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.stop = asyncio.Event()
        try:
            async with running_hub(**self.options) as hub:  # type: ignore[arg-type]
                self.hub = hub
                self.ready.set()
                await self.stop.wait()
        except BaseException as error:
            self.error = error
            self.ready.set()

    def call(self, coroutine, timeout: float = 60.0):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


async def open_blower_game(url: str) -> None:
    """The game open for the draw, as the Jefe de Sala and the caller open it."""
    async with (
        Client.login(url, user="sala", password=PASSWORD) as sala,
        Client.login(url, user="locutor", password=PASSWORD) as locutor,
    ):
        await open_game(sala, locutor)


@contextmanager
def blower_hall(tmp_path: Path, store: str) -> Iterator[tuple[Exit, HubThread, str]]:
    """A blower hall on a store of its own, its exit shown by the test, its game open for the
    draw: (the exit, the hub's thread, the monitor's token)."""
    url = f"sqlite:///{tmp_path / store}"
    token, series = prepare_store(url)
    exit_ = Exit()
    options = dict(url=url, token=token, series=series, draw="blower", display_delay=0.5)
    with HubThread(ball_check=exit_.check, **options) as threaded:
        threaded.call(open_blower_game(threaded.hub.url))
        yield exit_, threaded, token


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    prepare_audio()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--mute-audio"])
        try:
            yield launched
        finally:
            launched.close()


FRAME_SHOWN = "e => e.complete && e.naturalWidth > 0 && e.getAttribute('src')"


def control_and_panel(browser: Browser, base: str, token: str) -> tuple[Page, Page, Page]:
    """The Jefe de Mesa's and the caller's control pages, and a 1080p panel monitor."""
    mesa = staff(browser, base, "mesa")
    locutor = staff(browser, base, "locutor")
    _, panel = page_in(browser, 1920, 1080)
    panel.goto(f"{base}/monitor#token={token}")
    return mesa, locutor, panel


def draw_through_camera(mesa, locutor, number: int, count: int) -> None:
    """Draw a ball the camera sees; if its reading is unsure, the Jefe de Mesa confirms it."""
    locutor.fill("#blower-number", str(number))
    locutor.click("#draw-ball")
    counted = mesa.locator("#live-count")
    held = mesa.locator("#p-hold:not([hidden])")  # the panel is in the page, hidden, otherwise
    expect(counted.filter(has_text=re.compile(f"^{count}$")).or_(held)).to_be_visible()
    if held.is_visible():
        expect(mesa.locator("#hold-called")).to_have_text(str(number))
        mesa.click("#hold-confirm")
    expect(locutor.locator("#live-count")).to_have_text(str(count))
    expect(locutor.locator("#live-last")).to_have_text(str(number))


def test_the_jefe_de_mesa_corrects_a_miskeyed_ball_and_confirms_an_unreadable_one(
    browser, tmp_path
):
    with blower_hall(tmp_path, "hold.sqlite") as (exit_, threaded, token):
        base = threaded.hub.http
        screens = Screens(first=70)
        mesa, locutor, panel = control_and_panel(browser, base, token)
        expect(panel.locator("#m-state")).to_have_text("Partida 1: en juego")
        expect(locutor.locator("#hold-confirm")).to_be_hidden()  # the Jefe de Mesa's

        # The camera sees the ball called: it goes out with its frame, shown on the monitor
        # (were the reading unsure, the Jefe de Mesa confirms it: the frame is kept the same).
        exit_.show(23)
        draw_through_camera(mesa, locutor, 23, 1)
        expect(panel.locator("#m-last")).to_have_text("23")
        frame = panel.locator("#m-frame")
        expect(frame).to_be_visible()
        expect(frame).to_have_attribute("src", re.compile(r"^/frames/[0-9a-f]{64}\.jpg$"))
        assert frame.evaluate(FRAME_SHOWN)
        first_frame = frame.get_attribute("src")
        expect(panel.locator("#m-frame-none")).to_be_hidden()

        # The caller keys 54; the camera reads 45: the game holds.
        exit_.show(45)
        locutor.fill("#blower-number", "54")
        locutor.click("#draw-ball")
        phase(mesa, "Comprobando bola")
        hold = mesa.locator("#p-hold")
        expect(hold).to_be_visible()
        expect(mesa.locator("#hold-called")).to_have_text("54")
        expect(mesa.locator("#hold-reading")).to_have_text(re.compile(r"^(45|¿45\? \(dudosa\))$"))
        confidence = mesa.evaluate("window.bingoControl.model().game.hold.camera.confidence")
        percent = int(confidence * 100)  # cut, never rounded up: 0.996 is 99 %, not 100 %
        expect(mesa.locator("#hold-confidence")).to_have_text(f"{percent} %")
        expect(mesa.locator("#hold-reason")).to_have_text(
            re.compile("^(la cámara lee otro número|lectura dudosa)$")
        )
        expect(mesa.locator("#hold-confirm")).to_have_text("Confirmar el 54")
        expect(mesa.locator("#hold-correct-number")).to_have_attribute(
            "placeholder", "Bola correcta (¿45?)"
        )
        hold_frame = mesa.locator("#hold-frame")
        expect(hold_frame).to_be_visible()
        assert hold_frame.evaluate(FRAME_SHOWN)
        expect(panel.locator("#m-hold")).to_be_visible()
        expect(panel.locator("#m-hold")).to_have_text("Comprobando bola")
        expect(panel.locator("#m-state")).to_have_text("Comprobando bola")
        expect(panel.locator("#m-count")).to_have_text("1")  # nothing of the held ball
        expect(locutor.locator("#draw-ball")).to_be_disabled()
        # what a failing test's report says of the caller's screen: the phase holds the draw
        actions = locutor.evaluate(ACTIONS)
        assert actions["phase"] == "camera_hold" and actions["drawLegal"] is False
        assert actions["busy"] == [] and actions["requestsAwaitingReply"] == 0
        assert actions["socket"] == 1  # open
        assert sum("\nactions: {" in state for state in page_states(browser)) == 2  # the staff
        screens.shot(mesa, "control-camera-hold")
        screens.shot(panel, "monitor-checking-ball")
        mesa.fill("#hold-correct-number", "45")
        mesa.click("#hold-correct")
        phase(mesa, "Extracción")
        expect(hold).to_be_hidden()
        expect(mesa.locator("#live-last")).to_have_text("45")
        expect(mesa.locator("#events-log")).to_contain_text("Retención resuelta")
        expect(panel.locator("#m-hold")).to_be_hidden()
        expect(panel.locator("#m-last")).to_have_text("45")
        expect(panel.locator("#m-count")).to_have_text("2")
        expect(panel.locator("#m-frame-check")).to_have_text("Corregida por el Jefe de Mesa")
        expect(frame).not_to_have_attribute("src", first_frame)
        assert frame.evaluate(FRAME_SHOWN)

        # An obscured ball: the camera cannot read it; the Jefe de Mesa confirms the call.
        exit_.show(67, "obscured")
        locutor.fill("#blower-number", "67")
        locutor.click("#draw-ball")
        phase(mesa, "Comprobando bola")
        expect(mesa.locator("#hold-called")).to_have_text("67")
        expect(mesa.locator("#hold-reason")).not_to_have_text("—")
        mesa.click("#hold-confirm")
        phase(mesa, "Extracción")
        expect(panel.locator("#m-last")).to_have_text("67")
        expect(panel.locator("#m-last-five li")).to_have_text(["67", "45", "23"])
        expect(panel.locator("#m-frame-check")).to_have_text("Confirmada por el Jefe de Mesa")
        expect(mesa.locator("#events-log li").first).to_contain_text(
            "Bola 67 (3) · Confirmada por el Jefe de Mesa"
        )
        screens.shot(panel, "monitor-frame-of-the-last-ball")
        for page in (mesa, locutor, panel):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_a_claim_called_while_a_ball_is_held_is_checked_and_the_hold_comes_back(browser, tmp_path):
    """The held ball is not announced, so a claim may still be called on the balls before it;
    the draw pauses for it, and once it is judged the Jefe de Mesa finds the held ball as he
    left it."""
    with blower_hall(tmp_path, "claim-on-hold.sqlite") as (exit_, threaded, token):
        base = threaded.hub.http
        mesa, locutor, panel = control_and_panel(browser, base, token)
        for count, number in enumerate((23, 45), start=1):
            exit_.show(number)
            draw_through_camera(mesa, locutor, number, count)

        exit_.show(67, "obscured")  # unreadable: held
        locutor.fill("#blower-number", "67")
        locutor.click("#draw-ball")
        phase(mesa, "Comprobando bola")
        expect(mesa.locator("#hold-called")).to_have_text("67")

        call_claim(locutor, "line", 5)
        phase(mesa, "Comprobando cartón")
        expect(mesa.locator("#p-hold")).to_be_hidden()
        expect(panel.locator("#m-ov-title")).to_have_text("Comprobando cartón")
        claim = mesa.locator("#verification .claim-box[data-status='pending']")
        expect(claim.locator(".claim-meta")).to_contain_text("tras la bola 2")
        mesa.click("#verify-claims")

        phase(mesa, "Comprobando bola")  # back to the held ball, as it was
        expect(mesa.locator("#p-hold")).to_be_visible()
        expect(mesa.locator("#hold-called")).to_have_text("67")
        expect(panel.locator("#m-hold")).to_be_visible()
        expect(panel.locator("#m-count")).to_have_text("2")  # nothing of the held ball
        actions = locutor.evaluate(ACTIONS)
        assert actions["phase"] == "camera_hold" and actions["drawLegal"] is False
        mesa.click("#hold-confirm")
        phase(mesa, "Extracción")
        expect(panel.locator("#m-last")).to_have_text("67")
        expect(panel.locator("#m-count")).to_have_text("3")
        for page in (mesa, locutor, panel):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def answers_a_draw(message: dict) -> bool:
    events = (message.get("result") or {}).get("events", [])
    return message.get("type") == "result" and any(e["type"] == "ball_drawn" for e in events)


def test_a_ball_keyed_before_the_last_draw_is_answered_is_kept(browser, tmp_path):
    """The hub's reply to a draw can reach the caller's screen after the ball it drew (seen on
    a loaded machine): the caller keys the next ball as soon as the last one shows, and the
    late reply must not wipe it (the draw button would stay disabled on an empty field)."""
    url = f"sqlite:///{tmp_path / 'late.sqlite'}"
    token, series = prepare_store(url)
    with HubThread(url=url, token=token, series=series, draw="blower") as threaded:
        threaded.call(open_blower_game(threaded.hub.url))
        late: list[str] = []
        holding = threading.Event()
        routes: list[WebSocketRoute] = []

        def intercept(page_side: WebSocketRoute) -> None:
            routes.append(page_side)
            hub_side = page_side.connect_to_server()

            def to_page(message: str | bytes) -> None:
                if holding.is_set() and answers_a_draw(json.loads(message)):
                    late.append(str(message))
                else:
                    page_side.send(message)

            hub_side.on_message(to_page)

        _, locutor = page_in(browser)
        locutor.route_web_socket(re.compile(r"/ws$"), intercept)
        locutor.goto(f"{threaded.hub.http}/control")
        locutor.fill("#c-user", "locutor")
        locutor.fill("#c-password", PASSWORD)
        locutor.click("#c-login-submit")
        expect(locutor.locator("#c-app")).to_be_visible()
        assert routes, "the control screen's websocket was not routed"

        holding.set()
        locutor.fill("#blower-number", "23")
        locutor.click("#draw-ball")
        expect(locutor.locator("#live-last")).to_have_text("23")  # the ball, not the reply
        for _ in range(100):
            if late:
                break
            locutor.wait_for_timeout(50)
        assert len(late) == 1, late
        locutor.fill("#blower-number", "45")
        holding.clear()
        routes[-1].send(late.pop())  # the reply to the draw of 23, late
        expect(locutor.locator("#blower-number")).to_have_value("45")
        locutor.click("#draw-ball")
        expect(locutor.locator("#live-count")).to_have_text("2")
        expect(locutor.locator("#live-last")).to_have_text("45")
        expect(locutor.locator("#blower-number")).to_have_value("")  # answered, now emptied
        assert locutor.errors == [], locutor.errors  # type: ignore[attr-defined]


async def register_ball_set(url: str) -> None:
    async with Client.login(url, user="sala", password=PASSWORD) as sala:
        await sala.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")


async def play_on_the_set(url: str) -> None:
    """A game drawing on the registered set JB-1."""
    async with (
        Client.login(url, user="sala", password=PASSWORD) as sala,
        Client.login(url, user="locutor", password=PASSWORD) as locutor,
    ):
        await announce_game(sala)
        await sala.ok("start_sale")
        await locutor.ok("record_sale", series_id="A1", first=1, last=60)
        await sala.ok("close_sale")
        await sala.ok("announce_prizes")
        await sala.ok("start_draw")


def test_the_jefe_de_mesa_tests_a_ball_set_under_a_real_camera_from_the_control_page(
    browser, tmp_path
):
    """A real camera (no stage: the hub cannot put a ball at the exit): each ball is put at
    the exit and keyed on the control page, the hub reads it and keeps the showing; another
    control page sees the showings so far, then each one as it is made; once every ball was
    shown the set is judged. In play on it, a call made while the ball before is still in
    view is held, and the hold names the ball the set's prints show."""
    url = f"sqlite:///{tmp_path / 'commission.sqlite'}"
    token, series = prepare_store(url)
    exit_ = Exit()
    exit_.camera = simulated_exit(20261130)  # one set, printed once, as a hall's
    options = dict(url=url, token=token, series=series, draw="blower")
    with HubThread(ball_check=exit_.check, **options) as threaded:
        threaded.call(register_ball_set(threaded.hub.url))
        base = threaded.hub.http
        mesa = staff(browser, base, "mesa")
        panel = mesa.locator("#commissioning")
        expect(panel).to_be_visible()
        expect(mesa.locator("#commissioning-how")).to_contain_text("Ponga cada bola")
        expect(mesa.locator("#ball-sets tr[data-set='JB-1'] td").nth(4)).to_have_text("Sin probar")
        judge = mesa.locator("#commission-judge")
        progress = mesa.locator("#commissioning-progress")

        def show(at_exit: int, keyed: int, count: int) -> None:
            exit_.show(at_exit)  # the ball put at the exit
            mesa.fill("#commission-number", str(keyed))
            mesa.click("#form-show-ball button")
            expect(progress).to_contain_text(f"JB-1: {count} lecturas")

        show(45, 54, 1)  # miskeyed: the row shows what the camera read, marked
        row = mesa.locator("#showings tbody tr[data-ball='54']")
        expect(row).to_have_class("warn")
        expect(row.locator("td").nth(1)).to_have_text(re.compile(r"^(45|¿45\? \(dudosa\))$"))
        expect(judge).to_be_disabled()  # 89 balls never shown
        mesa.click("#commission-discard")
        expect(mesa.locator("#showings tbody tr")).to_have_count(0)
        expect(progress).to_have_text("")

        for ball in range(1, 46):
            show(ball, ball, ball)
        expect(progress).to_contain_text("faltan (45): 46, 47")
        sala = staff(browser, base, "sala")  # another control page sees the showings so far
        expect(sala.locator("#commissioning-progress")).to_contain_text(
            "JB-1: 45 lecturas, 45 de 90 bolas"
        )
        expect(sala.locator("#showings tbody tr")).to_have_count(45)
        Screens(first=90).element(sala.locator("#p-ball-sets"), "control-camera-test-of-a-ball-set")
        for ball in range(46, 91):
            show(ball, ball, ball)
        expect(progress).not_to_contain_text("faltan")
        # the other page is told of each showing as the Jefe de Mesa makes it
        expect(sala.locator("#commissioning-progress")).to_contain_text(
            "JB-1: 90 lecturas, 90 de 90 bolas"
        )
        expect(sala.locator("#showings tbody tr")).to_have_count(90)
        expect(judge).to_be_enabled()
        judge.click()
        expect(progress).to_contain_text("JB-1 APTO")
        expect(mesa.locator("#ball-sets tr[data-set='JB-1'] td").nth(4)).to_have_text("APTO")
        expect(mesa.locator("#events-log li").first).to_contain_text(
            "Prueba del juego de bolas ante la cámara JB-1: APTO"
        )
        expect(sala.locator("#commissioning-progress")).to_contain_text("JB-1 APTO")
        expect(sala.locator("#showings tbody tr")).to_have_count(0)
        assert threaded.hub.runtime.service.state.ball_sets["JB-1"].camera_fit is True

        threaded.call(play_on_the_set(threaded.hub.url))
        locutor = staff(browser, base, "locutor")
        exit_.show(37)
        draw_through_camera(mesa, locutor, 37, 1)
        locutor.fill("#blower-number", "38")  # keyed while 37 is still at the exit
        locutor.click("#draw-ball")
        phase(mesa, "Comprobando bola")
        expect(mesa.locator("#hold-called")).to_have_text("38")
        # the camera sees the ball before, and says so; it is not offered as the correction
        expect(mesa.locator("#hold-reason")).to_have_text(
            "la cámara ve el 37, que ya salió: ¿sigue a la vista?"
        )
        expect(mesa.locator("#hold-reading")).to_have_text("¿37? (dudosa)")
        expect(mesa.locator("#hold-correct-number")).not_to_have_attribute(
            "placeholder", re.compile("37")
        )
        exit_.show(38)  # 38 put at the exit: the Jefe de Mesa confirms the call
        mesa.click("#hold-confirm")
        phase(mesa, "Extracción")
        expect(mesa.locator("#live-last")).to_have_text("38")
        for page in (mesa, sala, locutor):
            assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_the_control_page_shows_when_a_network_camera_stops_giving_pictures(browser, tmp_path):
    """An IP camera streaming MJPEG over HTTP: the header says whether it gives pictures; a
    ball keyed while it does not is held, and the Jefe de Mesa is told why."""
    url = f"sqlite:///{tmp_path / 'live.sqlite'}"
    token, series = prepare_store(url)
    stream = MjpegExit(seed=20261123)

    options = dict(url=url, token=token, series=series, draw="blower")
    try:
        with HubThread(ball_check=stream.ball_check, **options) as threaded:
            threaded.call(open_blower_game(threaded.hub.url))
            mesa = staff(browser, threaded.hub.http, "mesa")
            locutor = staff(browser, threaded.hub.http, "locutor")
            badge = mesa.locator("#c-camera")
            expect(badge).to_have_text("Cámara: con imagen")
            expect(badge).to_have_attribute("data-state", "live")
            stream.freeze()
            expect(badge).to_have_text("Cámara: SIN IMAGEN")
            expect(badge).to_have_attribute("data-state", "no_picture")
            locutor.fill("#blower-number", "31")
            locutor.click("#draw-ball")
            phase(mesa, "Comprobando bola")
            expect(mesa.locator("#hold-called")).to_have_text("31")
            expect(mesa.locator("#hold-reason")).to_have_text("la cámara no da imagen")
            expect(mesa.locator("#hold-reading")).to_have_text("—")
            expect(mesa.locator("#hold-confidence")).to_have_text("—")  # nothing was read
            expect(mesa.locator("#hold-frame")).to_be_hidden()
            stream.freeze(False)
            expect(badge).to_have_text("Cámara: con imagen")
            mesa.click("#hold-confirm")
            phase(mesa, "Extracción")
            expect(mesa.locator("#live-last")).to_have_text("31")
            for page in (mesa, locutor):
                assert page.errors == [], page.errors  # type: ignore[attr-defined]
    finally:
        stream.close()


def test_the_cctv_receiver_shows_the_exit_camera_frame_filling_the_screen(browser, tmp_path):
    """S79 L1190: the camera's image reaches enough monitors for every player to see the ball
    clearly. On the composite monitor the frame is a corner; `/monitor?camera=1` shows the
    frame of the last ball as large as the screen allows, beside its number."""
    with blower_hall(tmp_path, "cctv.sqlite") as (exit_, threaded, token):
        base = threaded.hub.http
        mesa, locutor, panel = control_and_panel(browser, base, token)
        _, receiver = page_in(browser, 1920, 1080)
        receiver.goto(f"{base}/monitor?camera=1#token={token}")
        exit_.show(23)
        draw_through_camera(mesa, locutor, 23, 1)
        for page in (panel, receiver):
            expect(page.locator("#m-last")).to_have_text("23")
            assert page.locator("#m-frame").evaluate(FRAME_SHOWN)
        corner = panel.locator("#m-frame").bounding_box()
        shown = receiver.locator("#m-frame").bounding_box()
        assert corner is not None and shown is not None
        assert shown["height"] >= 0.6 * 1080 and shown["width"] >= 0.5 * 1920, shown
        assert shown["width"] * shown["height"] >= 8 * corner["width"] * corner["height"]
        expect(receiver.locator("#m-board")).to_be_hidden()
        expect(receiver.locator("#m-last-five")).to_be_hidden()
        expect(panel.locator("#m-board")).to_be_visible()
        Screens(first=90).shot(receiver, "monitor-cctv-receiver")
