"""The CCTV check of every call through the hub, with the real reader and the simulated camera
on the ball exit: agreement announces the ball with its frame; a miskeyed or unreadable ball
holds the game, reaches no panel, and the Jefe de Mesa confirms or corrects it."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

import cv2
import numpy as np
import pytest

from bingo_hall.acta import build_acta, render_text
from bingo_hall.domain.commissioning import MIN_READ_SHARE
from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.store.frames import FrameStore
from bingo_hall.vision.camera import SimulatedCamera, simulated_exit
from bingo_hall.vision.recognise import BallReader
from bingo_hall.vision.set_references import SIMILARITY_FLOOR, ReferenceMatch, corroborates
from bingo_hall.vision.styles import CHECK, HELD_OUT
from support.hub import (
    PASSWORD,
    Client,
    announce_game,
    hall_staff,
    open_game,
    prepare_store,
    running_hub,
)
from support.mjpeg import MjpegExit


class Exit:
    """The simulated ball exit: what comes out is up to the test, not the call."""

    def __init__(self) -> None:
        self.camera = SimulatedCamera(seed=20261122)
        self.reader = BallReader()

    def check(self, engine) -> BallCheck:
        return BallCheck(self.camera, self.reader, FrameStore(engine), frames_per_ball=2)

    def show(self, ball: int | None, conditions: str = "normal") -> None:
        self.camera.present(ball, conditions=conditions)

    async def commissioned_game(self, hub, staff: Client, locutor: Client) -> None:
        """The hub shows the set to the camera, every ball, and a game is drawing; from then
        on the test decides what comes out."""
        hub.runtime.ball_check.stage = self.show
        await open_game(staff, locutor, commission=True)
        hub.runtime.ball_check.stage = None

    @asynccontextmanager
    async def blower_game(self, store, **hall: object) -> AsyncIterator[tuple]:
        """A hub in blower mode and its staff, the set commissioned and a game drawing:
        (hub, staff, mesa, locutor, monitor); `hall`, more of the hall's configuration."""
        async with (
            running_hub(*store, draw="blower", ball_check=self.check, **hall) as hub,
            hall_staff(hub) as (staff, mesa, locutor, monitor),
        ):
            await self.commissioned_game(hub, staff, locutor)
            yield hub, staff, mesa, locutor, monitor


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    return url, token, series


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


async def subscribe(client: Client, after_seq: int, channel: str = "caller") -> None:
    body = {"type": "subscribe", "after_seq": after_seq, "channel": channel}
    assert (await client.request(body))["success"]


async def next_event(client: Client, kind: str, timeout: float = 10.0) -> dict:
    while True:
        (event,) = await client.events(1, timeout)
        if event["event"] == kind:
            return event


async def no_event(client: Client, within: float = 0.4) -> None:
    with pytest.raises(TimeoutError):
        await client.events(1, within)


def test_a_ball_the_camera_confirms_is_announced_with_its_frame(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with exit_.blower_game(store) as (hub, _staff, mesa, locutor, monitor):
            await subscribe(monitor, hub.runtime.service.seq)
            # Clear balls until the camera confirms one (a doubtful reading is held and the
            # Jefe de Mesa confirms it; the reader's accuracy is measured in bench/).
            for ball in (37, 12, 64, 5, 81, 23, 50, 8, 71, 46):
                exit_.show(ball)
                result = await locutor.ok("draw_ball", number=ball)
                if [e["type"] for e in result["events"]] == ["ball_drawn"]:
                    break
                await mesa.ok("resolve_hold", number=ball)
            else:
                pytest.fail("the camera confirmed none of ten clear balls")
            drawn = await next_event(monitor, "ball_drawn")
            while drawn["payload"]["check"] != "agreed":
                drawn = await next_event(monitor, "ball_drawn")
            camera = drawn["payload"]["camera"]
            assert drawn["payload"]["number"] == ball and camera["reading"] == ball
            status, kind, jpeg = await asyncio.to_thread(
                fetch, f"{hub.http}/frames/{camera['frame']}.jpg"
            )
            assert (status, kind) == (200, "image/jpeg")
            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            assert image is not None and image.shape[:2] == (480, 640)
            assert exit_.reader.read(image).guess == ball  # the kept frame shows the ball
            for bad in ("0" * 64, "not-a-hash", "../hall"):
                status, _, _ = await asyncio.to_thread(fetch, f"{hub.http}/frames/{bad}.jpg")
                assert status == 404

    asyncio.run(scenario())


def test_a_ball_the_networks_doubt_is_confirmed_on_the_sets_own_prints(store):
    """A set of one typeface commissioned through the hub: its kept frames become references,
    and a ball the networks alone would hold is announced when they and the references agree,
    with the margin in the event and the acta."""
    exit_ = Exit()
    styles = replace(HELD_OUT, fonts=HELD_OUT.fonts[:1], colours=HELD_OUT.colours[:1])
    exit_.camera = SimulatedCamera(seed=20261129, style_set=styles)

    async def scenario() -> None:
        async with exit_.blower_game(store) as (hub, _staff, mesa, locutor, monitor):
            kept = hub.runtime.service.state.camera_references
            assert len(kept) == 90  # one frame kept of each ball shown
            assert hub.runtime.ball_check.references(kept).complete
            await subscribe(monitor, hub.runtime.service.seq)
            threshold = exit_.reader.model.threshold  # the highest: one label's
            on_the_set = None
            for ball in range(1, 91):
                exit_.show(ball)
                result = await locutor.ok("draw_ball", number=ball)
                if [e["type"] for e in result["events"]] != ["ball_drawn"]:
                    await mesa.ok("resolve_hold", number=ball)
                    continue
                drawn = await next_event(monitor, "ball_drawn")
                while drawn["payload"]["number"] != ball:
                    drawn = await next_event(monitor, "ball_drawn")
                camera = drawn["payload"]["camera"]
                assert camera["reading"] == ball
                if camera["set_margin"] is not None:
                    on_the_set = camera
                    break
            assert on_the_set is not None, "no ball of the set was confirmed on its references"
            assert on_the_set["confidence"] < threshold  # the networks alone held it
            margin = on_the_set["set_margin"]
            recognised = ReferenceMatch(ball, margin, SIMILARITY_FLOOR)  # as the hub's was
            assert corroborates(ball, on_the_set["confidence"], recognised)

            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            assert "reconocida por las bolas del juego en su prueba, margen" in render_text(acta)

    asyncio.run(scenario())


def test_a_hall_taking_the_call_as_a_witness_announces_a_doubted_ball_guessed_as_called(store):
    """A hall configured with a witness floor: a ball the camera doubts, but whose best guess is
    the call at the floor or more and whose set's prints lie nearest it, is announced as
    witnessed; a miskey is still held; the acta says which rule was in force and which balls
    it confirmed."""
    exit_ = Exit()
    doubted = [font for font in HELD_OUT.fonts if font.name == "arial-bold-italic"]
    styles = replace(HELD_OUT, fonts=tuple(doubted), colours=HELD_OUT.colours[:1])
    exit_.camera = SimulatedCamera(seed=20261130, style_set=styles)
    floor = 0.9

    async def scenario() -> None:
        async with exit_.blower_game(store, call_witness_floor=floor) as hall:
            hub, staff, mesa, locutor, monitor = hall
            refused = await staff.command("open_session", call_witness_floor=0.5)
            assert refused["error"]["code"] == "invalid_args"
            assert refused["error"]["message"] == (
                "open_session: call_witness_floor: from the hall's configuration"
            )
            assert hub.runtime.service.state.call_witness_floor == floor
            await subscribe(monitor, hub.runtime.service.seq)

            exit_.show(37)
            result = await locutor.ok("draw_ball", number=38)  # the caller keys 38
            assert [e["type"] for e in result["events"]] == ["ball_held"]
            await mesa.ok("resolve_hold", number=37)

            witnessed = None
            for ball in range(1, 91):
                if ball == 37:
                    continue
                exit_.show(ball)
                result = await locutor.ok("draw_ball", number=ball)
                if [e["type"] for e in result["events"]] == ["ball_held"]:
                    await mesa.ok("resolve_hold", number=ball)
                drawn = await next_event(monitor, "ball_drawn")
                while drawn["payload"]["number"] != ball:
                    drawn = await next_event(monitor, "ball_drawn")
                if drawn["payload"]["check"] == "witnessed":
                    witnessed = drawn["payload"]
                    break
            assert witnessed is not None, "the camera doubted no ball it guessed as called"
            camera = witnessed["camera"]
            assert (camera["reading"], camera["guess"], camera["set_nearest"]) == (None, ball, ball)
            assert floor <= camera["confidence"] < exit_.reader.model.threshold

            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            assert acta["session"]["call_witness_floor"] == floor
            text = render_text(acta)
            assert "con una confianza de 0,9 o más, y las bolas del juego" in text
            assert "confirmada por la cámara con el canto como segundo testigo" in text
            assert "cantada 38, cámara:" in text  # the miskey held

    asyncio.run(scenario())


def test_the_ball_before_still_in_view_is_held_and_named(store):
    """A set printed once, as a hall's, commissioned; 37 goes out, and the caller keys 38 while
    the camera still sees 37. 37 is no longer in the machine: the camera names it as its guess
    and never reads it as a ball still in it; the call is held, the acta says the guess was a
    ball already out, and the Jefe de Mesa confirms the 38 put at the exit."""
    exit_ = Exit()
    exit_.camera = simulated_exit(20261130)

    async def scenario() -> None:
        async with exit_.blower_game(store) as (hub, _staff, mesa, locutor, _monitor):
            exit_.show(37)
            result = await locutor.ok("draw_ball", number=37)
            if [e["type"] for e in result["events"]] != ["ball_drawn"]:
                await mesa.ok("resolve_hold", number=37)
            await subscribe(mesa, hub.runtime.service.seq)
            result = await locutor.ok("draw_ball", number=38)  # 37 still at the exit
            assert [e["type"] for e in result["events"]] == ["ball_held"]
            held = await next_event(mesa, "ball_held")
            camera = held["payload"]["camera"]
            assert (camera["reading"], camera["guess"], camera["reason"]) == (None, 37, "unsure")
            assert (camera["set_ball"], camera["set_nearest"]) == (None, 37)
            assert hub.runtime.service.state.phase.value == "camera_hold"

            exit_.show(38)  # the Jefe de Mesa sees 38 put at the exit, and confirms the call
            result = await mesa.ok("resolve_hold", number=38)
            assert [e["type"] for e in result["events"]] == ["hold_resolved", "ball_drawn"]
            assert hub.runtime.service.state.game.calls == (37, 38)

            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            text = render_text(acta)
            assert "cantada 38, cámara: lectura dudosa, quizá 37, ya extraída (confianza " in text
            assert text.count("quizá 37, ya extraída") == 2  # the hold's line and the ball's

    asyncio.run(scenario())


def test_a_restarted_hub_makes_the_sets_references_again_from_the_store_before_play(store):
    """The references are no fact of their own: the log names the kept frames, the store
    keeps them, and a hub started again makes them when it starts, not at the first call."""
    exit_ = Exit()

    async def scenario() -> None:
        async with exit_.blower_game(store) as (hub, *_clients):
            kept = hub.runtime.service.state.camera_references
            assert hub.runtime.references_ready is not None  # begun after the set went in
            before = await hub.runtime.references_ready
            assert before.complete
        async with running_hub(*store, draw="blower", ball_check=exit_.check) as hub:
            assert hub.runtime.service.state.camera_references == kept
            assert hub.runtime.references_ready is not None  # begun when the hub started
            again = await hub.runtime.references_ready
            assert again.complete and np.array_equal(again.balls, before.balls)
            assert np.allclose(again.features, before.features)
            assert hub.runtime.ball_check.references(kept) is again  # made once

    asyncio.run(scenario())


def test_a_miskeyed_call_holds_the_game_and_the_jefe_de_mesa_corrects_it(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, draw="blower", ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, locutor, monitor),
        ):
            await open_game(staff, locutor)
            head = hub.runtime.service.seq
            await subscribe(monitor, head)
            await subscribe(mesa, head)
            exit_.show(73)
            result = await locutor.ok("draw_ball", number=37)  # the caller keys 37
            assert [e["type"] for e in result["events"]] == ["ball_held"]
            held = await next_event(mesa, "ball_held")
            assert held["payload"]["called"] == 37
            assert held["payload"]["camera"]["reading"] == 73
            seen = await next_event(monitor, "ball_held")
            assert seen["payload"] == {"ordinal": 1}  # nothing of the held ball on the panels
            await no_event(monitor)
            assert hub.runtime.service.state.phase.value == "camera_hold"

            # Nothing moves the game on but the Jefe de Mesa's decision.
            refused = await locutor.command("draw_ball", number=12)
            assert refused["error"]["code"] == "wrong_phase"
            refused = await locutor.command("resolve_hold", number=73)
            assert refused["error"]["code"] == "forbidden"
            refused = await mesa.command("resolve_hold", number=73, resolved_by="someone")
            assert refused["error"]["code"] == "invalid_args"

            result = await mesa.ok("resolve_hold", number=73)
            assert [e["type"] for e in result["events"]] == ["hold_resolved", "ball_drawn"]
            resolved = await next_event(monitor, "hold_resolved")
            assert resolved["payload"] == {"ordinal": 1}
            drawn = await next_event(monitor, "ball_drawn")
            payload = drawn["payload"]
            assert (payload["number"], payload["check"], payload["resolved_by"]) == (
                73,
                "corrected",
                "mesa",
            )
            assert hub.runtime.service.state.game.calls == (73,)

            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            text = render_text(acta)
            assert "cantada 37, cámara: lee 73" in text and "corregida a 73 por mesa" in text
            assert "1. 73" in text and "corregida por el Jefe de Mesa" in text

    asyncio.run(scenario())


def test_an_unreadable_ball_holds_and_the_jefe_de_mesa_confirms_the_call(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="mesa", password=PASSWORD) as mesa,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await exit_.commissioned_game(hub, staff, locutor)
            # Random-draw mode: the exit shows whatever the draw called, here obscured.
            hub.runtime.ball_check.stage = lambda ball: exit_.show(ball, "obscured")
            result = await locutor.ok("draw_ball")
            assert [e["type"] for e in result["events"]] == ["ball_held"]
            held = hub.runtime.service.state.game.held
            # doubted, with no number; the set's own prints do not recognise a smear either,
            # so they name no ball for the Jefe de Mesa
            assert held.camera.reading is None and held.camera.set_ball is None
            assert held.camera.reason in ("unsure", "no_ball")
            assert held.camera.frame is not None
            result = await mesa.ok("resolve_hold", number=held.called)
            assert [e["type"] for e in result["events"]] == ["hold_resolved", "ball_drawn"]
            assert hub.runtime.service.state.game.calls == (held.called,)
            # The next ball, seen clearly: announced at once when the reading agrees with the
            # call, held otherwise; never announced against the camera.
            hub.runtime.ball_check.stage = exit_.show
            result = await locutor.ok("draw_ball")
            game = hub.runtime.service.state.game
            if [e["type"] for e in result["events"]] == ["ball_drawn"]:
                assert len(game.calls) == 2 and game.held is None
            else:
                assert game.held.camera.reading != game.held.called

    asyncio.run(scenario())


def test_the_panel_channel_never_gets_a_held_ball_before_it_is_resolved(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, draw="blower", ball_check=exit_.check, display_delay=0.2) as hub,
            hall_staff(hub) as (staff, mesa, locutor, panel),
        ):
            await open_game(staff, locutor)
            await subscribe(panel, hub.runtime.service.seq, channel="panel")
            exit_.show(5)
            await locutor.ok("draw_ball", number=50)
            frames = []
            with pytest.raises(TimeoutError):
                while True:
                    frames.append(json.loads(await asyncio.wait_for(panel.connection.recv(), 0.6)))
            assert all("50" not in json.dumps(f["payload"]) for f in frames)
            assert [f["event"] for f in frames] == ["ball_held"]
            await mesa.ok("resolve_hold", number=5)
            events = await panel.events(2)
            assert [e["event"] for e in events] == ["hold_resolved", "ball_drawn"]
            assert events[1]["payload"]["number"] == 5

    asyncio.run(scenario())


def test_on_a_set_not_commissioned_a_ball_the_camera_reads_right_is_still_held(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, draw="blower", ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, locutor, _monitor),
        ):
            await open_game(staff, locutor)
            for ball in (37, 12, 64, 5, 81, 23, 50, 8, 71, 46):
                exit_.show(ball)
                result = await locutor.ok("draw_ball", number=ball)
                assert [e["type"] for e in result["events"]] == ["ball_held"]
                held = hub.runtime.service.state.game.held
                await mesa.ok("resolve_hold", number=ball)
                if held.camera.reading == ball:
                    break
            else:
                pytest.fail("the camera read none of ten clear balls")
            assert held.cause == "uncommissioned_set"

    asyncio.run(scenario())


def test_commissioning_through_the_hub_refuses_what_the_hub_cannot_do(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            seq = hub.runtime.service.seq
            answers = [
                await staff.command("commission_ball_set", ball_set_id="JB-1", showings=[]),
                await staff.command("commission_ball_set", ball_set_id="JB-7"),
                # a real camera (no stage): the staff key each ball at the hub's console
                await staff.command("commission_ball_set", ball_set_id="JB-1"),
                await locutor.command("commission_ball_set", ball_set_id="JB-1"),
            ]
            codes = [(a["success"], a["error"]["code"]) for a in answers]
            assert codes == [(False, "invalid_args")] * 3 + [(False, "forbidden")]
            messages = [a["error"]["message"] for a in answers]
            assert messages[0] == (
                "commission_ball_set: showings: the hub's readings of the balls shown"
            )
            assert "no ball set 'JB-7'" in messages[1]
            assert "bingo-hall commission-ball-set" in messages[2]
            hub.runtime.ball_check.stage = exit_.show
            answer = await staff.command(
                "commission_ball_set", ball_set_id="JB-1", showings_per_ball=0
            )
            assert "showings_per_ball must be 1 to 10" in answer["error"]["message"]
            assert hub.runtime.service.seq == seq  # nothing recorded
            await announce_game(staff)  # a game has begun
            seq = hub.runtime.service.seq
            answer = await staff.command("commission_ball_set", ball_set_id="JB-1")
            assert answer["error"]["code"] == "wrong_phase", answer
            assert hub.runtime.service.seq == seq

    asyncio.run(scenario())


def test_a_real_cameras_set_is_shown_ball_by_ball_kept_through_a_restart_and_judged(store):
    exit_ = Exit()  # no stage: the hub cannot show the camera a ball, the staff do

    async def show(mesa: Client, balls: range) -> int:
        read = 0
        for ball in balls:
            exit_.show(ball)  # the Jefe de Mesa puts the ball at the exit and keys it
            answer = await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=ball)
            shown = answer["shown"]
            assert shown["number"] == ball and shown["camera"]["reading"] in (ball, None)
            assert [e["type"] for e in answer["events"]] == ["ball_shown_to_camera"]
            assert len(answer["showings"]["showings"]) == ball
            assert answer["showings"]["balls_missing"] == list(range(ball + 1, 91))
            read += shown["camera"]["reading"] == ball
        return read

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, _monitor),
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            seq = hub.runtime.service.seq
            read = await show(mesa, range(1, 46))
            service = hub.runtime.service
            shown = service.log.read(service.hall_id, after_seq=seq)
            assert [e.type for e in shown] == ["ball_shown_to_camera"] * 45  # facts as shown
            assert [e.payload["showing"]["number"] for e in shown] == list(range(1, 46))
        # the hub stops and starts again: the showings so far are the log's, not its memory
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, _monitor),
        ):
            kept = (await staff.ok("ball_showings"))["showings"]
            assert kept["ball_set_id"] == "JB-1"
            assert [s["number"] for s in kept["showings"]] == list(range(1, 46))
            assert [s["camera"] for s in kept["showings"]] == [
                e.payload["showing"]["camera"] for e in shown
            ]
            read += await show(mesa, range(46, 91))
            judged_after = hub.runtime.service.seq
            result = await mesa.ok("commission_ball_set", ball_set_id="JB-1")
            assert [e["type"] for e in result["events"]] == ["ball_set_commissioned"]
            service = hub.runtime.service
            (envelope,) = service.log.read(service.hall_id, after_seq=judged_after)
            payload = envelope.payload
            assert [s["number"] for s in payload["showings"]] == list(range(1, 91))
            # each ball was shown once: no other print of it, so nothing was read on the others
            assert payload["read"] == read and payload["cross_read"] == 0
            assert payload["fit"] is True  # a clear simulated set
            assert service.state.ball_sets["JB-1"].camera_fit is True
            assert (await mesa.ok("ball_showings"))["showings"] is None  # judged: a new trial

    asyncio.run(scenario())


def test_a_set_the_networks_read_too_little_of_is_judged_on_its_own_prints_and_passes(store):
    """IBM 3270's digits, shown ball by ball twice: the networks alone read too few of them
    for the set to pass. Each showing's frame read against the other showings' prints, as
    play reads calls against the set's references, the set is read enough and is fit; the
    acta says how many the other prints read."""
    exit_ = Exit()
    (face,) = (font for font in CHECK.usable_fonts() if font.name == "3270-regular")
    styles = replace(HELD_OUT, fonts=(face,), colours=HELD_OUT.colours[:1])
    exit_.camera = SimulatedCamera(seed=20261130, style_set=styles)

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, _monitor),
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            networks_read = 0
            for _ in range(2):
                for ball in range(1, 91):
                    exit_.show(ball)
                    answer = await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=ball)
                    networks_read += answer["shown"]["camera"]["reading"] == ball
                    await staff.pushed("showings", timeout=5)  # the other page follows them
            assert networks_read < MIN_READ_SHARE * 180  # alone, the networks would refuse it
            result = await mesa.ok("commission_ball_set", ball_set_id="JB-1")
            (event,) = result["events"]
            payload = hub.runtime.service.log.read("sala-1", after_seq=event["seq"] - 1)[0].payload
            assert payload["fit"] is True, payload["refusals"]
            assert payload["read"] == networks_read + payload["cross_read"] >= MIN_READ_SHARE * 180
            doubted = [s for s in payload["showings"] if s["camera"]["reading"] is None]
            confirmed = [s for s in doubted if s["cross"] and s["cross"]["confirms"]]
            assert len(confirmed) == payload["cross_read"]
            for showing in confirmed:  # their best guess the ball shown, confirmed
                assert showing["camera"]["guess"] == showing["number"] == showing["cross"]["ball"]
                cross = ReferenceMatch(
                    showing["number"], showing["cross"]["margin"], SIMILARITY_FLOOR
                )
                assert corroborates(showing["number"], showing["camera"]["confidence"], cross)
            ball_set = hub.runtime.service.state.ball_sets["JB-1"]
            assert ball_set.camera_fit is True and len(ball_set.camera_references) == 180
            await staff.ok("open_session")  # the trial is in the acta of the next session
            log = hub.runtime.service.log
            acta = render_text(
                build_acta(
                    "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
                )
            )
            assert (
                f"{payload['read']} leídas" in acta
                and f"{payload['cross_read']} de ellas reconocidas por las otras bolas del juego"
                in acta
            )

    asyncio.run(scenario())


def test_every_other_control_connection_is_told_of_each_showing_and_of_their_discarding(
    store,
):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, locutor, monitor),
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            for ball in (7, 70):
                exit_.show(ball)
                answer = await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=ball)
                push = await staff.pushed("showings", timeout=5)
                assert push["showings"] == answer["showings"]  # what mesa was answered
            assert [s["number"] for s in push["showings"]["showings"]] == [7, 70]
            assert push["showings"]["balls_missing"][:7] == [1, 2, 3, 4, 5, 6, 8]
            # a refused showing changes nothing and is pushed to no one
            answer = await mesa.command("show_ball_to_camera", ball_set_id="JB-1", number=0)
            assert not answer["success"]
            discarded = await staff.ok("discard_ball_showings")
            assert discarded["discarded"] == 2
            assert [e["type"] for e in discarded["events"]] == ["ball_showings_discarded"]
            assert (await mesa.pushed("showings", timeout=5))["showings"] is None
            # neither the one who showed nor those who may not read the showings are told
            for client in (staff, locutor, monitor):
                with pytest.raises(TimeoutError):
                    await client.pushed("showings", timeout=0.5)
            assert hub.runtime.showings is None

    asyncio.run(scenario())


def test_showing_balls_to_the_camera_refuses_what_is_wrong_and_keeps_what_was_shown(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, locutor, _monitor),
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            await staff.ok("register_ball_set", ball_set_id="JB-2", homologation="CNJ-BOLAS-0001")
            answer = await mesa.command("commission_ball_set", ball_set_id="JB-1")
            assert answer["error"]["code"] == "invalid_args"
            assert "show_ball_to_camera" in answer["error"]["message"]
            for ball in (7, 70):
                exit_.show(ball)
                await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=ball)
            seq = hub.runtime.service.seq
            bad = [
                ({"ball_set_id": "JB-1", "number": 0}, "number must be a ball, 1 to 90"),
                ({"ball_set_id": "JB-1", "number": "7"}, "number must be a ball, 1 to 90"),
                ({"ball_set_id": "JB-1", "number": True}, "number must be a ball, 1 to 90"),
                ({"ball_set_id": "JB-1"}, "number must be a ball, 1 to 90"),
                ({"ball_set_id": "JB-9", "number": 5}, "no ball set 'JB-9' is registered"),
                ({"ball_set_id": "JB-2", "number": 5}, "the balls of JB-1 are being shown"),
                (
                    {"ball_set_id": "JB-1", "number": 5, "camera": {}},
                    "camera: the hub's reading of the ball at the exit",
                ),
            ]
            for args, message in bad:
                answer = await mesa.command("show_ball_to_camera", **args)
                assert answer["error"]["code"] == "invalid_args", (args, answer)
                assert message in answer["error"]["message"], (args, answer)
            answer = await locutor.command("show_ball_to_camera", ball_set_id="JB-1", number=5)
            assert answer["error"]["code"] == "forbidden"
            # the rules refuse a set with balls never shown, naming them; the showings stay
            answer = await mesa.command("commission_ball_set", ball_set_id="JB-1")
            assert not answer["success"] and "1, 2, 3" in answer["error"]["message"], answer
            answer = await mesa.command(
                "commission_ball_set", ball_set_id="JB-1", showings_per_ball=2
            )
            assert "judged as shown" in answer["error"]["message"]
            kept = (await mesa.ok("ball_showings"))["showings"]
            assert [s["number"] for s in kept["showings"]] == [7, 70]
            assert hub.runtime.service.seq == seq  # nothing refused was recorded
            discarded = await mesa.ok("discard_ball_showings")
            assert discarded["discarded"] == 2 and hub.runtime.service.seq == seq + 1
            assert (await mesa.ok("ball_showings"))["showings"] is None
            assert await mesa.ok("discard_ball_showings") == {"discarded": 0}  # none: no event
            assert hub.runtime.service.seq == seq + 1
            exit_.show(5)
            for _ in range(10):  # now JB-2's turn
                await mesa.ok("show_ball_to_camera", ball_set_id="JB-2", number=5)
            answer = await mesa.command("show_ball_to_camera", ball_set_id="JB-2", number=5)
            assert "ball 5 was shown 10 times" in answer["error"]["message"], answer
            # the hub shows its simulated camera every ball of JB-1, twice unless told, so
            # that each showing is also read on its ball's other print: JB-2's showings stay
            hub.runtime.ball_check.stage = exit_.show
            result = await mesa.ok("commission_ball_set", ball_set_id="JB-1")
            hub.runtime.ball_check.stage = None
            (event,) = result["events"]
            (envelope,) = hub.runtime.service.log.read("sala-1", after_seq=event["seq"] - 1)
            numbers = [s["number"] for s in envelope.payload["showings"]]
            assert numbers == [*range(1, 91), *range(1, 91)]
            crossed = sum(s["cross"] is not None for s in envelope.payload["showings"])
            assert crossed >= 0.9 * 180, crossed  # none could be with one showing a ball
            kept = (await mesa.ok("ball_showings"))["showings"]
            assert kept["ball_set_id"] == "JB-2" and len(kept["showings"]) == 10
            seq = hub.runtime.service.seq
            await announce_game(staff)  # a game has begun
            answer = await mesa.command("show_ball_to_camera", ball_set_id="JB-2", number=6)
            assert answer["error"]["code"] == "wrong_phase", answer

    asyncio.run(scenario())


def test_trials_set_aside_are_in_the_sessions_acta_with_the_balls_read_as_others(store):
    exit_ = Exit()

    async def scenario() -> None:
        async with (
            running_hub(*store, ball_check=exit_.check) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, _monitor),
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            misread = []
            for ball in (3, 15, 27, 44, 61, 78):  # each put at the exit, keyed one higher
                exit_.show(ball)
                answer = await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=ball + 1)
                if answer["shown"]["camera"]["reading"] == ball:
                    misread.append(ball + 1)
            if not misread:
                pytest.fail("the camera read none of six clear balls")
            await mesa.ok("discard_ball_showings")  # no session open yet: the next one's acta
            await staff.ok("open_session")
            exit_.show(9)
            await mesa.ok("show_ball_to_camera", ball_set_id="JB-1", number=9)
            await mesa.ok("discard_ball_showings")
            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            before, during = acta["session"]["camera_commissionings"]
            assert (before["discarded"], before["showings"], before["misread"]) == (
                True,
                6,
                misread,
            )
            assert (during["showings"], during["misread"]) == (1, [])
            assert before["at"] < acta["session"]["opened_at"] < during["at"]
            text = render_text(acta)
            assert "JB-1 ante la cámara" in text and "DESCARTADA sin juzgar, 6 bolas" in text
            assert "leídas como otro número: " + ", ".join(map(str, misread)) in text
            assert "DESCARTADA sin juzgar, 1 bola mostrada\n" in text

    asyncio.run(scenario())


def test_a_network_camera_is_read_live_and_a_call_it_cannot_see_is_held_with_no_picture(store):
    """The exit's camera is an IP camera streaming MJPEG over HTTP. The hub reads the ball
    now out, not frames the stream queued; when the stream stops, the call is held with
    `no_picture`, /health says the camera is not receiving, and the acta says so."""
    stream = MjpegExit(seed=20261122)

    async def camera_health(hub) -> dict:
        status, _, body = await asyncio.to_thread(fetch, f"{hub.http}/health")
        assert status == 200
        return json.loads(body)["camera"]

    async def scenario() -> None:
        async with (
            running_hub(*store, draw="blower", ball_check=stream.ball_check) as hub,
            hall_staff(hub) as (staff, mesa, locutor, _monitor),
        ):
            await open_game(staff, locutor)  # a set not commissioned: every call is held
            assert await camera_health(hub) == {"kind": "live", "receiving": True, "losses": 0}
            for ball in (37, 12):
                stream.present(ball)
                await asyncio.sleep(1.5)  # the stream runs on, unread, as between two balls
                await locutor.ok("draw_ball", number=ball)
                held = hub.runtime.service.state.game.held
                assert (held.called, held.camera.guess) == (ball, ball)
                frame_url = f"{hub.http}/frames/{held.camera.frame}.jpg"
                status, kind, jpeg = await asyncio.to_thread(fetch, frame_url)
                assert (status, kind) == (200, "image/jpeg")
                picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
                assert min(cv2.absdiff(picture, shown).mean() for shown in stream.shown) < 3
                await mesa.ok("resolve_hold", number=ball)
            stream.freeze()
            await asyncio.sleep(2.6)  # more than the 2 s after which a camera is not receiving
            assert (await camera_health(hub))["receiving"] is False
            result = await locutor.ok("draw_ball", number=64)
            assert [e["type"] for e in result["events"]] == ["ball_held"]
            held = hub.runtime.service.state.game.held
            assert (held.camera.reason, held.camera.frame, held.camera.guess) == (
                "no_picture",
                None,
                None,
            )
            await mesa.ok("resolve_hold", number=64)
            stream.freeze(False)
            for _ in range(100):  # at once, or after a reconnection if the read timed out
                if (await camera_health(hub))["receiving"]:
                    break
                await asyncio.sleep(0.1)
            else:
                pytest.fail("the camera did not come back")
            log = hub.runtime.service.log
            acta = build_acta(
                "sala-1", log.iter_all("sala-1"), log.verify_chain("sala-1"), session_id=1
            )
            assert "cantada 64, cámara: la cámara no dio imagen;" in render_text(acta)

    try:
        asyncio.run(scenario())
    finally:
        stream.close()
