"""Read models of the log: sessions, games, sales, balls, claims, prizes, voids, refunds paid,
ball sets.

They are written by `project` inside the same transaction as the events they come from, and
can be dropped and rebuilt from the log at any time (`rebuild_projections`): the log is the
truth, these tables are a convenience for screens and queries. Money is stored as text.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import sqlalchemy
from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlmodel import Field, SQLModel

from bingo_hall.registry import registrar
from bingo_hall.store.eventlog import EventEnvelope, EventLog


class SessionView(SQLModel, table=True):
    __tablename__ = "view_session"
    hall_id: str = Field(primary_key=True)
    session_id: int = Field(primary_key=True)
    profile_id: str
    machine_id: str
    machine_kind: str
    opened_at: str
    closed_at: str | None = None
    close_reason: str | None = None


class GameView(SQLModel, table=True):
    __tablename__ = "view_game"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    session_id: int
    status: str
    last_game: bool
    cards_sold: int = 0
    takings: str = "0"
    line_prize: str | None = None
    bingo_prize: str | None = None
    balls: int = 0
    announced_at: str
    ended_at: str | None = None


class SaleView(SQLModel, table=True):
    __tablename__ = "view_sale"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    series_id: str = Field(primary_key=True)
    first: int
    last: int
    face_value: str


class BallView(SQLModel, table=True):
    __tablename__ = "view_ball"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    ordinal: int = Field(primary_key=True)
    number: int
    source: str
    drawn_at: str
    seq: int


class ClaimView(SQLModel, table=True):
    __tablename__ = "view_claim"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    claim_id: int = Field(primary_key=True)
    kind: str
    series_id: str
    card_number: int
    ordinal: int
    status: str
    reason: str | None = None
    called_at: str


class PrizeView(SQLModel, table=True):
    __tablename__ = "view_prize"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    claim_id: int = Field(primary_key=True)
    kind: str
    amount: str
    status: str  # awarded, paid, withdrawn, restitution_due
    paid_at: str | None = None


class VoidView(SQLModel, table=True):
    __tablename__ = "view_void"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    reason: str
    note: str
    refund_total: str
    restitution_total: str
    voided_at: str


class RefundView(SQLModel, table=True):
    """A range of a voided game's cards the Cajero refunded (no card is refunded twice)."""

    __tablename__ = "view_refund"
    hall_id: str = Field(primary_key=True)
    game_id: int = Field(primary_key=True)
    series_id: str = Field(primary_key=True)
    first: int = Field(primary_key=True)
    last: int
    cards: int
    amount: str
    session_id: int | None = None
    paid_at: str


class BallSetView(SQLModel, table=True):
    __tablename__ = "view_ball_set"
    hall_id: str = Field(primary_key=True)
    ball_set_id: str = Field(primary_key=True)
    homologation: str
    games: int = 0
    retired: bool = False


VIEWS = (
    SessionView,
    GameView,
    SaleView,
    BallView,
    ClaimView,
    PrizeView,
    VoidView,
    RefundView,
    BallSetView,
)
TABLES: tuple[sqlalchemy.Table, ...] = tuple(v.__table__ for v in VIEWS)  # type: ignore[attr-defined]


def create_projection_tables(engine: Engine) -> None:
    SQLModel.metadata.create_all(engine, tables=list(TABLES))


def _t(view: type[SQLModel]) -> sqlalchemy.Table:
    return view.__table__  # type: ignore[attr-defined,no-any-return]


def _key(view: type[SQLModel], env: EventEnvelope, **columns: Any) -> list[Any]:
    table = _t(view)
    return [table.c.hall_id == env.hall_id, *(table.c[k] == v for k, v in columns.items())]


def _insert(conn: Connection, view: type[SQLModel], env: EventEnvelope, **values: Any) -> None:
    conn.execute(insert(_t(view)).values(hall_id=env.hall_id, **values))


def _update(
    conn: Connection, view: type[SQLModel], env: EventEnvelope, key: dict[str, Any], **values: Any
) -> None:
    conn.execute(update(_t(view)).where(*_key(view, env, **key)).values(**values))


Handler = Callable[[Connection, EventEnvelope, dict[str, Any], str], None]
_HANDLERS: dict[str, Handler] = {}


_on = registrar(_HANDLERS)


def project(conn: Connection, env: EventEnvelope) -> None:
    """The projector the event log runs for every appended event."""
    handler = _HANDLERS.get(env.type)
    if handler is not None:
        handler(conn, env, env.payload, env.time.isoformat())


PROJECTORS = (project,)


@_on("session_opened")
def _session_opened(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(
        conn,
        SessionView,
        env,
        session_id=p["session_id"],
        profile_id=p["profile"]["id"],
        machine_id=p["machine_id"],
        machine_kind=p["machine_kind"],
        opened_at=at,
    )


@_on("session_closed")
def _session_closed(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(
        conn,
        SessionView,
        env,
        {"session_id": p["session_id"]},
        closed_at=at,
        close_reason=p["reason"],
    )


@_on("ball_set_registered")
def _ball_set_registered(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(conn, BallSetView, env, ball_set_id=p["ball_set_id"], homologation=p["homologation"])


@_on("ball_set_changed")
def _ball_set_changed(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    if p["previous"] is not None:
        _update(conn, BallSetView, env, {"ball_set_id": p["previous"]}, retired=True)


@_on("draw_started")
def _draw_started(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(conn, BallSetView, env, {"ball_set_id": p["ball_set_id"]}, games=p["games_on_set"])
    _update(conn, GameView, env, {"game_id": env.game_id}, status="drawing")


@_on("series_announced")
def _series_announced(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(
        conn,
        GameView,
        env,
        game_id=p["game_id"],
        session_id=env.session_id,
        status="series_announced",
        last_game=p["last_game"],
        announced_at=at,
    )


@_on("sale_recorded")
def _sale_recorded(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    sale = p["sale"]
    key = {"game_id": env.game_id, "series_id": sale["series_id"]}
    exists = conn.execute(select(_t(SaleView).c.first).where(*_key(SaleView, env, **key))).first()
    if exists:
        _update(conn, SaleView, env, key, last=sale["last"])
    else:
        _insert(
            conn,
            SaleView,
            env,
            **key,
            first=sale["first"],
            last=sale["last"],
            face_value=sale["face_value"],
        )
    _update(conn, GameView, env, {"game_id": env.game_id}, status="selling")


@_on("sale_closed")
def _sale_closed(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(
        conn,
        GameView,
        env,
        {"game_id": env.game_id},
        status="sale_closed",
        cards_sold=p["cards_sold"],
        takings=p["takings"],
    )


@_on("prizes_announced")
def _prizes_announced(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(
        conn,
        GameView,
        env,
        {"game_id": env.game_id},
        status="announced",
        line_prize=p["line_prize"],
        bingo_prize=p["bingo_prize"],
    )


@_on("ball_drawn")
def _ball_drawn(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(
        conn,
        BallView,
        env,
        game_id=env.game_id,
        ordinal=p["ordinal"],
        number=p["number"],
        source=p["source"],
        drawn_at=at,
        seq=env.seq,
    )
    _update(conn, GameView, env, {"game_id": env.game_id}, balls=p["ordinal"])


@_on("claim_called")
def _claim_called(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(
        conn,
        ClaimView,
        env,
        game_id=env.game_id,
        claim_id=p["claim_id"],
        kind=p["kind"],
        series_id=p["series_id"],
        card_number=p["card_number"],
        ordinal=p["ordinal"],
        status="pending",
        called_at=at,
    )


@_on("claim_verified")
def _claim_verified(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(
        conn,
        ClaimView,
        env,
        {"game_id": env.game_id, "claim_id": p["claim_id"]},
        status="valid" if p["valid"] else "invalid",
        reason=p["reason"],
    )


@_on("prize_split")
def _prize_split(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    for winner in p["winners"]:
        _insert(
            conn,
            PrizeView,
            env,
            game_id=env.game_id,
            claim_id=winner["claim_id"],
            kind=p["kind"],
            amount=p["share"],
            status="awarded",
        )


@_on("prize_paid")
def _prize_paid(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(
        conn,
        PrizeView,
        env,
        {"game_id": p["game_id"], "claim_id": p["claim_id"]},
        status="paid",
        paid_at=at,
    )


@_on("game_finished")
def _game_finished(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(conn, GameView, env, {"game_id": p["game_id"]}, status="finished", ended_at=at)


@_on("game_voided")
def _game_voided(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _update(conn, GameView, env, {"game_id": p["game_id"]}, status="voided", ended_at=at)
    restitution = sum((Decimal(r["amount"]) for r in p["restitutions"] if r["paid"]), Decimal(0))
    _insert(
        conn,
        VoidView,
        env,
        game_id=p["game_id"],
        reason=p["reason"],
        note=p["note"],
        refund_total=p["refund_total"],
        restitution_total=str(restitution),
        voided_at=at,
    )
    if p["awards_withdrawn"]:
        for r in p["restitutions"]:
            _update(
                conn,
                PrizeView,
                env,
                {"game_id": p["game_id"], "claim_id": r["claim_id"]},
                status="restitution_due" if r["paid"] else "withdrawn",
            )


@_on("refund_paid")
def _refund_paid(conn: Connection, env: EventEnvelope, p: dict, at: str) -> None:
    _insert(
        conn,
        RefundView,
        env,
        game_id=p["game_id"],
        series_id=p["series_id"],
        first=p["first"],
        last=p["last"],
        cards=p["cards"],
        amount=p["amount"],
        session_id=env.session_id,
        paid_at=at,
    )


def rebuild_projections(log: EventLog, hall_id: str) -> None:
    """Drop a hall's read models and rebuild them from its log, in one transaction."""
    with log.engine.begin() as conn:
        for table in TABLES:
            conn.execute(delete(table).where(table.c.hall_id == hall_id))
        for envelope in log.iter_all(hall_id):
            project(conn, envelope)


def snapshot(engine: Engine, hall_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of a hall's read models, sorted: for comparing live and rebuilt projections."""
    with engine.connect() as conn:
        return {
            table.name: sorted(
                tuple(row) for row in conn.execute(select(table).where(table.c.hall_id == hall_id))
            )
            for table in TABLES
        }
