"""The master cards of each series, imported into the hall's store.

A claim is checked against the master card («cartón-matriz») kept here, never against what a
player shows. The series' commitment is recomputed on import and recorded with the series.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Engine, func, insert, select
from sqlmodel import Field, SQLModel

from card_generator.series import GeneratedSeries


class SeriesRecord(SQLModel, table=True):
    __tablename__ = "card_series"
    series_id: str = Field(primary_key=True)
    face_value: str
    size: int
    seed: str
    algorithm: str
    commitment: str


class CardRecord(SQLModel, table=True):
    __tablename__ = "card_master"
    series_id: str = Field(primary_key=True)
    number: int = Field(primary_key=True)
    grid: str
    code: str


class CardStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        SQLModel.metadata.create_all(
            engine,
            tables=[SeriesRecord.__table__, CardRecord.__table__],  # type: ignore[list-item]
        )

    def commitment_of(self, series_id: str) -> str | None:
        """The commitment of the series stored under `series_id`, or None."""
        with self.engine.connect() as connection:
            return connection.execute(
                select(SeriesRecord.commitment).where(SeriesRecord.series_id == series_id)
            ).scalar_one_or_none()

    def import_series(self, series: GeneratedSeries) -> str:
        """Store every card of a generated series in one transaction; returns the commitment.

        Importing the same series again is a no-op; a different series under the same id is
        refused.
        """
        face_value = f"{series.face_value:.2f}"
        records = (
            {"number": first + offset, "grid": grid, "code": series.security_code(first + offset)}
            for first, grids in series.chunks()
            for offset, grid in enumerate(grids.tolist())
        )
        self.import_records(
            series.series_id,
            face_value,
            series.size,
            series.commitment,
            records,
            seed=series.seed.hex(),
            algorithm=series.algorithm,
        )
        return series.commitment

    def import_records(
        self,
        series_id: str,
        face_value: str,
        size: int,
        commitment: str,
        records: Iterable[dict[str, Any]],
        seed: str = "",
        algorithm: str = "imported",
        batch: int = 10_000,
    ) -> None:
        """Store a series' cards (number, grid, code) in one transaction: all or nothing."""
        with self.engine.begin() as connection:
            known = connection.execute(
                select(SeriesRecord.commitment).where(SeriesRecord.series_id == series_id)
            ).scalar_one_or_none()
            if known is not None:
                if known != commitment:
                    raise ValueError(f"series {series_id} is already stored with other cards")
                return
            series_row = {
                "series_id": series_id,
                "face_value": face_value,
                "size": size,
                "seed": seed,
                "algorithm": algorithm,
                "commitment": commitment,
            }
            connection.execute(insert(SeriesRecord), [series_row])
            rows = []
            for record in records:
                rows.append(
                    {
                        "series_id": series_id,
                        "number": record["number"],
                        "grid": json.dumps(record["grid"]),
                        "code": record["code"],
                    }
                )
                if len(rows) == batch:
                    connection.execute(insert(CardRecord), rows)
                    rows = []
            if rows:
                connection.execute(insert(CardRecord), rows)

    def grid(self, series_id: str, number: int) -> tuple[tuple[int, ...], ...] | None:
        """The master card, or None if the store has no such card."""
        with self.engine.connect() as connection:
            text = connection.execute(
                select(CardRecord.grid).where(
                    CardRecord.series_id == series_id, CardRecord.number == number
                )
            ).scalar_one_or_none()
        return None if text is None else tuple(tuple(row) for row in json.loads(text))

    def repeated_cards(self, series_ids: Sequence[str], most: int = 5) -> list[list[str]]:
        """Cards printed more than once among these series (within one or across them), each
        as its places ("A1-12"); at most `most` of them. A game selling them could pay one
        combination twice over (spec §2.1: a data-integrity alarm)."""
        chosen = CardRecord.series_id.in_(list(series_ids))
        repeated = (
            select(CardRecord.grid)
            .where(chosen)
            .group_by(CardRecord.grid)
            .having(func.count() > 1)
            .limit(most)
            .subquery()
        )
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(CardRecord.grid, CardRecord.series_id, CardRecord.number)
                .where(chosen, CardRecord.grid.in_(select(repeated.c.grid)))
                .order_by(CardRecord.grid, CardRecord.series_id, CardRecord.number)
            ).all()
        places: dict[str, list[tuple[str, int]]] = {}
        for grid, series_id, number in rows:
            places.setdefault(grid, []).append((series_id, number))
        return [[f"{s}-{n}" for s, n in card] for card in sorted(places.values())]

    def grids(
        self, series_id: str, first: int, last: int
    ) -> dict[int, tuple[tuple[int, ...], ...]]:
        """The master cards of a range, by number."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(CardRecord.number, CardRecord.grid).where(
                    CardRecord.series_id == series_id,
                    CardRecord.number >= first,
                    CardRecord.number <= last,
                )
            ).all()
        return {number: tuple(tuple(r) for r in json.loads(text)) for number, text in rows}
