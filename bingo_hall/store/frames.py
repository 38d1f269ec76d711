"""The camera frames of the balls, kept for the acta and the monitors (spec §4).

A frame is a JPEG stored under the SHA-256 of its bytes: the ball's event names that hash, so
the frame it shows can be proven to be the one the camera took. A frame is stored before the
event that names it is appended, so no event ever names a missing frame.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from sqlalchemy import Engine, LargeBinary, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Column, Field, SQLModel

FRAME_HASH = re.compile(r"^[0-9a-f]{64}$")


class FrameRecord(SQLModel, table=True):
    __tablename__ = "camera_frame"
    sha256: str = Field(primary_key=True)
    jpeg: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    stored_at: datetime


def frame_hash(jpeg: bytes) -> str:
    return hashlib.sha256(jpeg).hexdigest()


class FrameStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        SQLModel.metadata.create_all(engine, tables=[FrameRecord.__table__])  # type: ignore[list-item]

    def put(self, jpeg: bytes, stored_at: datetime) -> str:
        """Keep a frame (once: the same bytes are stored once); returns its hash."""
        digest = frame_hash(jpeg)
        dialect = sqlite_insert if self.engine.dialect.name == "sqlite" else pg_insert
        statement = (
            dialect(FrameRecord)
            .values(sha256=digest, jpeg=jpeg, stored_at=stored_at)
            .on_conflict_do_nothing(index_elements=["sha256"])
        )
        with self.engine.begin() as conn:
            conn.execute(statement)
        return digest

    def get(self, digest: str) -> bytes | None:
        if not FRAME_HASH.match(digest):
            return None
        with self.engine.connect() as conn:
            return conn.execute(
                select(FrameRecord.jpeg).where(FrameRecord.sha256 == digest)
            ).scalar_one_or_none()
