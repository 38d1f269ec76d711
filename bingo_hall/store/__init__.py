"""Persistence: the hash-chained event log (the source of truth), its engines and projections."""

from bingo_hall.store.database import StoreError, make_engine
from bingo_hall.store.eventlog import (
    GENESIS_HASH,
    ChainReport,
    ConcurrentAppend,
    EventEnvelope,
    EventLog,
    NewEvent,
    Projector,
    canonical_json,
    event_hash,
)

__all__ = [
    "GENESIS_HASH",
    "ChainReport",
    "ConcurrentAppend",
    "EventEnvelope",
    "EventLog",
    "NewEvent",
    "Projector",
    "StoreError",
    "canonical_json",
    "event_hash",
    "make_engine",
]
