"""The demo shows its ball set to the simulated camera ball by ball: a demo stopped half-way
keeps the showings made, and the next one goes on from the next ball."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bingo_hall.demo import Demo, SimulatedClock
from bingo_hall.domain.events import BallSetCommissioned, event_from_payload
from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.hub.service import HallService
from bingo_hall.store.cards import CardStore
from bingo_hall.store.eventlog import EventLog
from bingo_hall.store.frames import FrameStore
from bingo_hall.vision.camera import simulated_exit
from bingo_hall.vision.recognise import BallReader
from support.demo import HALL, open_log
from support.hall import profile

SEED = 20261129  # the seeded set of tests/test_cli.py: fit
STOPPED_AFTER = 40  # showings the first demo makes


def demo_on(log: EventLog, reader: BallReader, start: datetime) -> Demo:
    clock = SimulatedClock(start)
    check = BallCheck(simulated_exit(SEED), reader, FrameStore(log.engine))
    service = HallService(log, HALL, clock)
    return Demo(
        service,
        CardStore(log.engine),
        profile("1979"),
        "EXT-1",
        "pneumatic",
        clock,
        "CNJ-EXT-0001",
        ball_check=check,
    )


def test_a_demo_stopped_while_it_shows_its_set_goes_on_from_the_next_ball(tmp_path):
    log = open_log(f"sqlite:///{tmp_path / 'x.sqlite'}")
    reader = BallReader()
    try:
        first = demo_on(log, reader, datetime(2026, 11, 30, 17, 0, tzinfo=UTC))
        while first.state.showings is None or len(first.state.showings.showings) < STOPPED_AFTER:
            assert first.step()
        made = first.state.showings.showings
        assert [s.number for s in made] == list(range(1, STOPPED_AFTER + 1))

        # a new process, started later: its state replayed from the log
        second = demo_on(log, reader, first.clock.now + timedelta(minutes=10))
        assert second.state.showings is not None
        assert second.state.showings.showings == made
        ball_set = second.state.ball_set_in_service
        assert ball_set is not None
        while second.state.ball_sets[ball_set].camera_fit is None:
            assert second.step()
        (judged,) = [
            event_from_payload(e.type, e.payload)
            for e in log.iter_all(HALL)
            if e.type == BallSetCommissioned.type
        ]
        assert isinstance(judged, BallSetCommissioned)
        assert [s.number for s in judged.showings] == [*range(1, 91), *range(1, 91)]
        kept = [s.camera for s in judged.showings[:STOPPED_AFTER]]
        assert kept == [s.camera for s in made]  # the showings made before the stop, judged
        assert judged.fit
    finally:
        log.engine.dispose()


def test_the_demo_camera_prints_the_set_the_log_registered_in_every_process(tmp_path):
    """Without a configured seed, the demo's simulated set is printed from the first ball set
    registered in the log: a demo killed and started again shows the camera the set it was
    commissioning (any other set would fail its own commissioning), and another hall's log
    another set."""
    import numpy as np

    from bingo_hall.cli import _demo_camera
    from bingo_hall.config import load_config
    from bingo_hall.domain import commands as c
    from support.cli import REPO

    config = load_config(REPO / "config" / "hall.toml")
    assert config.camera.seed is None

    def first_frame(log: EventLog) -> np.ndarray:
        camera = _demo_camera(config, log).camera
        camera.present(68)
        return camera.frames(1)[0]

    frames = []
    for name in ("a", "b"):
        log = open_log(f"sqlite:///{tmp_path / name}.sqlite")
        try:
            HallService(log, config.hall_id).execute(
                c.RegisterBallSet(ball_set_id="JB-001", homologation="CNJ-BOLAS-0001")
            )
            once, again = first_frame(log), first_frame(log)  # two processes on one log
            assert np.array_equal(once, again)
            frames.append(once)
        finally:
            log.engine.dispose()
    assert not np.array_equal(*frames)
