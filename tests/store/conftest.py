"""Fixtures of the store tests: an engine and an event log on a fresh database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy

from bingo_hall.store import EventLog, NewEvent, make_engine

T0 = datetime(2026, 11, 21, 22, 27, 23, 123456, tzinfo=UTC)

MakeEvent = Callable[..., NewEvent]


@pytest.fixture
def engine(store_url: str) -> Iterator[sqlalchemy.Engine]:
    eng = make_engine(store_url)
    yield eng
    eng.dispose()


@pytest.fixture
def log(engine: sqlalchemy.Engine) -> EventLog:
    return EventLog(engine)


@pytest.fixture
def make_event() -> MakeEvent:
    """Build NewEvents with sensible defaults; each call is one microsecond later."""
    counter = iter(range(1_000_000))

    def build(
        type: str = "ball_drawn", payload: dict[str, Any] | None = None, **kw: Any
    ) -> NewEvent:
        fields: dict[str, Any] = {
            "session_id": 1,
            "game_id": 1,
            "type": type,
            "payload": {"ball": 7} if payload is None else payload,
            "time": T0 + timedelta(microseconds=next(counter)),
            "actor": "jefe_de_mesa",
        }
        fields.update(kw)
        return NewEvent(**fields)

    return build
