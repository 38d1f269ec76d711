"""Fixtures shared by the transport tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.mqtt import Mosquitto, anonymous_broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """An anonymous broker without persistence, started, stopped after the test."""
    mosquitto = anonymous_broker(tmp_path / "broker")
    mosquitto.start()
    yield mosquitto
    mosquitto.stop()
