"""How far each MQTT bridge's broker has acknowledged a stream of the log, kept in the store.

A hub killed between a commit and the broker's acknowledgement must publish that event when it
comes back, not start from the log's head and leave a gap on the `events` topic. Each bridge
(one broker, one topic base, one stream) keeps the last seq the broker acknowledged.
"""

from __future__ import annotations

from sqlalchemy import Engine, select, update
from sqlmodel import Field, SQLModel


class PublishedRecord(SQLModel, table=True):
    __tablename__ = "mqtt_published"
    bridge: str = Field(primary_key=True)  # "<host>:<port> <topic base>"
    seq: int


class PublishedPositions:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        SQLModel.metadata.create_all(engine, tables=[PublishedRecord.__table__])  # type: ignore[list-item]

    def get(self, bridge: str) -> int | None:
        with self.engine.connect() as conn:
            return conn.execute(
                select(PublishedRecord.seq).where(PublishedRecord.bridge == bridge)
            ).scalar_one_or_none()

    def set(self, bridge: str, seq: int) -> None:
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(PublishedRecord).where(PublishedRecord.bridge == bridge).values(seq=seq)
            ).rowcount
            if not changed:
                conn.execute(PublishedRecord.__table__.insert(), [{"bridge": bridge, "seq": seq}])  # type: ignore[attr-defined]
