"""Runs the demo session in-process on a given store, for tests."""

from __future__ import annotations

from datetime import UTC, datetime

from bingo_hall.demo import Demo, SimulatedClock
from bingo_hall.hub.service import HallService
from bingo_hall.store import EventLog, make_engine
from bingo_hall.store.cards import CardStore
from bingo_hall.store.projections import PROJECTORS, create_projection_tables
from support.hall import profile

HALL = "sala-test"


def open_log(url: str) -> EventLog:
    engine = make_engine(url)
    create_projection_tables(engine)
    return EventLog(engine, projectors=PROJECTORS)


def play_session(log: EventLog, rules: str = "1979") -> HallService:
    clock = SimulatedClock(datetime(2026, 11, 21, 17, 0, tzinfo=UTC))
    service = HallService(log, HALL, clock)
    Demo(
        service, CardStore(log.engine), profile(rules), "EXT-1", "pneumatic", clock, "CNJ-EXT-0001"
    ).run()
    return service
