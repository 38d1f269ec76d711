"""What the acta says and where: the session's entries in time among the games, the ball set's
homologation wherever the set is put in service, loaded or played, the buyer of a terminal's
sale, and the time of every step of a game."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from bingo_hall.acta import build_acta, render_text
from bingo_hall.domain import commands as c
from bingo_hall.domain.profiles import VoidReason
from bingo_hall.hub.service import HallService
from bingo_hall.store import EventLog, make_engine
from support.hall import CARD, profile, session_opening

HALL = "h1"
ROW0 = (1, 22, 41, 63, 80)  # the top line of CARD
REST = (13, 34, 52, 74, 85, 7, 18, 29, 57, 90)  # the other ten numbers of CARD
START = datetime(2026, 11, 21, 0, 0, tzinfo=UTC)


class SetClock:
    """Hall time that stands where the test puts it (a microsecond more at each reading)."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)
        return self.now

    def at(self, hh_mm_ss: str) -> None:
        """On the test's day, at this time (never back)."""
        hours, minutes, seconds = map(int, hh_mm_ss.split(":"))
        moment = START.replace(hour=hours, minute=minutes, second=seconds)
        assert moment > self.now
        self.now = moment


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    """The acta reads only the log: one store kind is enough (tests/store checks both)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'hall.sqlite'}")
    try:
        yield EventLog(engine)
    finally:
        engine.dispose()


@pytest.fixture
def clock() -> SetClock:
    return SetClock()


@pytest.fixture
def service(log: EventLog, clock: SetClock) -> HallService:
    return HallService(log, HALL, clock)


def run(service: HallService, *commands: c.Command, actor: str = "test") -> None:
    for command in commands:
        service.execute(command, actor=actor)


def acta(log: EventLog, **scope: int) -> dict:
    return build_acta(HALL, log.iter_all(HALL), log.verify_chain(HALL), **scope)


def text(log: EventLog, **scope: int) -> str:
    return render_text(acta(log, **scope))


def open_session(service: HallService, clock: SetClock, rules: str = "1979") -> None:
    """At 17:00 set JB-1 registered; from 17:01 the session open, checked, JB-1 put in service
    and loaded, series A1 registered."""
    clock.at("17:00:00")
    run(service, c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"))
    clock.at("17:01:00")
    run(
        service,
        session_opening(profile(rules)),
        c.RecordEquipmentCheck(ok=True),
        c.ChangeBallSet(ball_set_id="JB-1", reason="puesta en servicio"),
        c.LoadBalls(),
        c.RegisterSeries(series_id="A1", face_value=Decimal("1.50"), size=300),
    )


def play_game(service: HallService, clock: SetClock, card: int) -> None:
    """Series A1 sold (card..card+5), CARD as card `card` wins line and bingo."""
    run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=card, last=card + 5),
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.StartDraw(),
        *(c.DrawBall(number=n) for n in ROW0),
        c.CallClaim(kind="line", series_id="A1", card_number=card, grid=CARD),
        c.VerifyClaims(),
    )
    clock.now += timedelta(seconds=10)
    run(service, c.GiveOrder(), *(c.DrawBall(number=n) for n in REST))
    run(
        service,
        c.CallClaim(kind="bingo", series_id="A1", card_number=card, grid=CARD),
        c.VerifyClaims(),
    )
    clock.now += timedelta(seconds=10)
    run(service, c.GiveOrder())


def line_index(lines: list[str], start: str) -> int:
    (index,) = [i for i, line in enumerate(lines) if line.startswith(start)]
    return index


# --- 1. the session's entries in time among the games --------------------------------------------


def two_games_with_a_set_change(
    service: HallService, clock: SetClock, announce_last_game: bool = False
) -> None:
    """Game 1 at 18:00 on JB-1; at 18:30 JB-2 registered, put in service and loaded (and, at
    18:31, the last game announced); game 2 at 18:32."""
    open_session(service, clock)
    clock.at("18:00:00")
    play_game(service, clock, card=1)
    clock.at("18:30:00")
    run(
        service,
        c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0002"),
        c.ChangeBallSet(ball_set_id="JB-2", reason="bola 37 mellada"),
        c.LoadBalls(),
    )
    if announce_last_game:
        clock.at("18:31:00")
        run(service, c.AnnounceLastGame())
    clock.at("18:32:00")
    play_game(service, clock, card=7)


def test_a_set_change_and_the_last_game_announcement_between_games_are_printed_between_them(
    log, service, clock
):
    """An entry made after game 1 ended is printed after game 1, not above «PARTIDA 1»; those
    made before the first game stay before it; opening and check at the top, close at the
    bottom."""
    two_games_with_a_set_change(service, clock, announce_last_game=True)
    clock.at("19:00:00")
    run(service, c.CloseSession())

    lines = text(log, session_id=1).splitlines()
    opening = line_index(lines, "Apertura: 2026-11-21 17:01:00.000 UTC")
    check = line_index(lines, "Comprobación del material (2026-11-21 17:01:00.000 UTC): correcto")
    first_change = line_index(lines, "Cambio de juego de bolas (2026-11-21 17:01:00.000 UTC)")
    first_load = line_index(lines, "Introducción de las bolas (2026-11-21 17:01:00.000 UTC)")
    series = line_index(lines, "Serie registrada A1:")
    game_1 = lines.index("PARTIDA 1")
    end_1 = line_index(lines, "Partida finalizada: 2026-11-21 18:00:")
    change = line_index(lines, "Cambio de juego de bolas (2026-11-21 18:30:00.000 UTC)")
    load = line_index(lines, "Introducción de las bolas (2026-11-21 18:30:00.000 UTC)")
    last = lines.index("Anuncio de la última partida: 2026-11-21 18:31:00.000 UTC")
    game_2 = lines.index("PARTIDA 2 (última de la sesión)")
    close = line_index(lines, "Cierre de la sesión: 2026-11-21 19:00:00.000 UTC")
    assert opening < check < first_change < first_load < series < game_1 < end_1
    assert end_1 < change < load < last < game_2 < close
    assert lines[change - 1] == ""  # a paragraph of its own between the games

    # the JSON keeps its structure; each entry says where it falls in the log
    session = acta(log, session_id=1)["session"]
    game_seqs = [game["announced_seq"] for game in session["games"]]
    changes = [change["seq"] for change in session["ball_set_changes"]]
    loads = [load["seq"] for load in session["balls_loaded"]]
    assert changes[0] < loads[0] < game_seqs[0] < changes[1] < loads[1] < game_seqs[1]
    assert game_seqs[0] < session["last_game_announced_seq"] < game_seqs[1]
    assert session["series_registered"][0]["seq"] < game_seqs[0]

    # a game's acta: the session's entries before the game above it, those after below it
    one = text(log, game_id=1).splitlines()
    assert one.index("PARTIDA 1") < line_index(one, "Cambio de juego de bolas (2026-11-21 18:30")
    two = text(log, game_id=2).splitlines()
    assert line_index(two, "Cambio de juego de bolas (2026-11-21 18:30") < two.index(
        "PARTIDA 2 (última de la sesión)"
    )


def second_session_with_game_1s_bingo_unpaid(service: HallService, clock: SetClock) -> None:
    """Session 1: game 1 at 17:10, its line paid and its bingo not at the close (17:20);
    session 2 open, checked and its balls loaded at 18:00."""
    open_session(service, clock)
    clock.at("17:10:00")
    play_game(service, clock, card=1)
    clock.at("17:20:00")
    run(service, c.PayPrize(game_id=1, claim_id=1), c.CloseSession())
    clock.at("18:00:00")
    run(
        service,
        session_opening(profile("1979")),
        c.RecordEquipmentCheck(ok=True),
        c.LoadBalls(),
    )


def test_a_series_registered_and_an_earlier_prize_paid_during_the_session_fall_in_time(
    log, service, clock
):
    """A series registered after game 1 and the payment, after game 1, of a prize of the
    session before: each printed after game 1, before game 2."""
    second_session_with_game_1s_bingo_unpaid(service, clock)
    clock.at("18:10:00")
    play_game(service, clock, card=7)
    clock.at("18:40:00")
    run(service, c.PayPrize(game_id=1, claim_id=2))
    clock.at("18:41:00")
    run(service, c.RegisterSeries(series_id="B1", face_value=Decimal("3.00"), size=300))
    clock.at("18:42:00")
    play_game(service, clock, card=13)

    lines = text(log, session_id=2).splitlines()
    end_2 = line_index(lines, "Partida finalizada: 2026-11-21 18:1")
    paid = line_index(lines, "Pago de un premio de la sesión 1 (2026-11-21 18:40:00.000 UTC")
    series = line_index(lines, "Serie registrada B1: 300 cartones, valor facial 3,00 €")
    game_3 = lines.index("PARTIDA 3")
    assert lines.index("PARTIDA 2") < end_2 < paid < series < game_3


def test_a_payment_made_while_a_game_runs_is_said_to_be_during_it(log, service, clock):
    """The session before's bingo paid while game 2 sells: printed after game 2's lines (the
    game's own lines are not broken up), and said to be during game 2, at its own time."""
    second_session_with_game_1s_bingo_unpaid(service, clock)
    run(service, c.AnnounceSeries(series=("A1",)), c.StartSale())
    clock.at("18:11:00")
    run(service, c.PayPrize(game_id=1, claim_id=2))  # while game 2 sells
    clock.at("18:12:00")
    run(
        service,
        c.RecordSale(series_id="A1", first=7, last=12),
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.StartDraw(),
        *(c.DrawBall(number=n) for n in ROW0 + REST),
        c.CallClaim(kind="bingo", series_id="A1", card_number=7, grid=CARD),
        c.VerifyClaims(),
    )
    clock.now += timedelta(seconds=10)
    run(service, c.GiveOrder())

    lines = text(log, session_id=2).splitlines()
    end = line_index(lines, "Partida finalizada: 2026-11-21 18:12")
    paid = line_index(
        lines, "Durante la partida 2: Pago de un premio de la sesión 1 (2026-11-21 18:11:00"
    )
    assert lines.index("PARTIDA 2") < end < paid
    assert not [line for line in lines if line.startswith("Pago de un premio")]


# --- 2. the ball set's homologation -----------------------------------------------------------


def test_the_acta_names_the_homologation_of_the_set_put_in_service_loaded_and_played(
    log, service, clock
):
    two_games_with_a_set_change(service, clock)
    lines = text(log, session_id=1).splitlines()
    # the homologation of the machine's model (S79 L1188), required to open a session
    assert "Aparato extractor: EXT-1 (neumático), modelo con homologación CNJ-EXT-0001" in lines
    assert (
        "Cambio de juego de bolas (2026-11-21 17:01:00.000 UTC): — (0 partidas) → JB-1 "
        "(homologación CNJ-BOLAS-0001; 0 partidas); motivo: puesta en servicio"
    ) in lines
    assert (
        "Introducción de las bolas (2026-11-21 17:01:00.000 UTC): juego JB-1 (homologación "
        "CNJ-BOLAS-0001), 0 partidas jugadas"
    ) in lines
    assert (
        "Cambio de juego de bolas (2026-11-21 18:30:00.000 UTC): JB-1 (homologación "
        "CNJ-BOLAS-0001; 1 partidas) → JB-2 (homologación CNJ-BOLAS-0002; 0 partidas); "
        "motivo: bola 37 mellada"
    ) in lines
    assert (
        "Introducción de las bolas (2026-11-21 18:30:00.000 UTC): juego JB-2 (homologación "
        "CNJ-BOLAS-0002), 0 partidas jugadas"
    ) in lines
    assert (
        "Comienzo de la partida (2026-11-21 18:00:00.000 UTC): juego de bolas JB-1 "
        "(homologación CNJ-BOLAS-0001), partida nº 1 con este juego"
    ) in lines
    assert (
        "Comienzo de la partida (2026-11-21 18:32:00.000 UTC): juego de bolas JB-2 "
        "(homologación CNJ-BOLAS-0002), partida nº 1 con este juego"
    ) in lines
    session = acta(log, session_id=1)["session"]
    assert [change["homologation"] for change in session["ball_set_changes"]] == [
        "CNJ-BOLAS-0001",
        "CNJ-BOLAS-0002",
    ]
    assert session["ball_set_changes"][1]["previous_homologation"] == "CNJ-BOLAS-0001"
    assert [load["homologation"] for load in session["balls_loaded"]] == [
        "CNJ-BOLAS-0001",
        "CNJ-BOLAS-0002",
    ]
    assert [game["ball_set"]["homologation"] for game in session["games"]] == [
        "CNJ-BOLAS-0001",
        "CNJ-BOLAS-0002",
    ]


# --- 3. the buyer of a terminal's sale --------------------------------------------------------


def test_a_sale_at_an_auxiliary_terminal_names_its_buyer(log, service, clock):
    """Under the Basque profile a terminal buys a block for a player: the acta says who."""
    open_session(service, clock, rules="basque")
    clock.at("18:00:00")
    run(service, c.AnnounceSeries(series=("A1",)), c.StartSale())
    clock.at("18:01:00")
    run(service, c.RecordSale(series_id="A1", first=1, last=12), actor="vendedor-1")
    clock.at("18:02:00")
    run(
        service,
        c.RecordSale(
            series_id="A1", first=13, last=18, buyer="term-1/ana", purchase="purchase-0001"
        ),
        actor="term-1",
    )
    clock.at("18:03:00")
    run(service, c.CloseSale())
    lines = text(log, game_id=1).splitlines()
    assert (
        "Venta en terminal auxiliar (2026-11-21 18:02:00.000 UTC, term-1): serie A1 del nº 13 "
        "al 18 (6 cartones × 1,50 €); comprador «term-1/ana»"
    ) in lines
    assert not any("vendedor-1" in line for line in lines)  # the staff's sales: the ranges
    sales = acta(log, game_id=1)["session"]["games"][0]["sales"]
    assert [sale["buyer"] for sale in sales] == [None, "term-1/ana"]


# --- 4. the time of every step of a game ------------------------------------------------------


def test_each_step_of_a_game_is_printed_with_its_time(log, service, clock):
    open_session(service, clock)
    run(service, c.RegisterSeries(series_id="B1", face_value=Decimal("3.00"), size=300))
    clock.at("18:00:00")
    run(service, c.AnnounceSeries(series=("A1", "B1")), c.StartSale())
    clock.at("18:01:00")
    run(
        service,
        c.RecordSale(series_id="A1", first=1, last=10),
        c.RecordSale(series_id="B1", first=1, last=10),
    )
    clock.at("18:05:00")
    run(service, c.CloseSale())
    clock.at("18:06:00")
    run(service, c.AnnouncePrizes())
    clock.at("18:07:00")
    run(service, c.StartDraw())
    lines = text(log, game_id=1).splitlines()
    game = lines.index("PARTIDA 1")
    assert lines[game + 2 :][:8] == [
        "Serie anunciada A1 (2026-11-21 18:00:00.000 UTC): 300 cartones, valor facial 1,50 €, "
        "primer cartón disponible nº 1",
        "Serie anunciada B1 (2026-11-21 18:00:00.000 UTC): 300 cartones, valor facial 3,00 €, "
        "primer cartón disponible nº 1",
        "Vendidos serie A1: del nº 1 al 10 (10 cartones × 1,50 €)",
        "Vendidos serie B1: del nº 1 al 10 (10 cartones × 3,00 €)",
        "Cierre de la venta (2026-11-21 18:05:00.000 UTC): 20 cartones vendidos; "
        "recaudación: 45,00 €",
        "Anuncio (2026-11-21 18:06:00.000 UTC): «Cartones vendidos de la serie A1 del número 1 "
        "al 10 y de la serie B1 del número 1 al 10»",
        "Premio de línea: 4,50 €; premio de bingo: 27,00 €",
        "Comienzo de la partida (2026-11-21 18:07:00.000 UTC): juego de bolas JB-1 "
        "(homologación CNJ-BOLAS-0001), partida nº 1 con este juego",
    ]
    (game_json,) = acta(log, game_id=1)["session"]["games"]
    assert game_json["prizes_announced_at"] == "2026-11-21T18:06:00.000001+00:00"


def test_a_sale_not_closed_prints_its_running_totals_without_a_close(log, service, clock):
    open_session(service, clock)
    clock.at("18:00:00")
    run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=1, last=6),
    )
    acta_text = text(log, game_id=1)
    assert "Cartones vendidos: 6; recaudación: 9,00 €\n" in acta_text
    assert "Cierre de la venta" not in acta_text and "Comienzo de la partida" not in acta_text


# --- 5. the refunds of a voided game ----------------------------------------------------------


def void_game_1(service: HallService, clock: SetClock) -> None:
    """Game 1 sells A1 1-60 (90,00 €) from 18:00 and is voided at 18:05."""
    clock.at("18:00:00")
    run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=1, last=60),
    )
    clock.at("18:05:00")
    run(service, c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="Avería del soplador"))


def test_refunds_paid_are_printed_under_the_void_and_what_is_owed_at_the_close(log, service, clock):
    """Under the void: each refund (range, amount, when, by whom) and what is still owed; at
    the close, the cards not refunded yet, as unpaid prizes are."""
    open_session(service, clock)
    void_game_1(service, clock)
    clock.at("18:10:00")
    run(service, c.PayRefund(game_id=1, series_id="A1", first=1, last=10), actor="caja")
    clock.at("18:11:00")
    run(service, c.PayRefund(game_id=1, series_id="A1", first=21, last=21), actor="caja")
    clock.at("19:00:00")
    run(service, c.CloseSession())

    lines = text(log, session_id=1).splitlines()
    void = line_index(lines, "PARTIDA NULA (2026-11-21 18:05:00.000 UTC, test)")
    assert lines[void + 1 : void + 10] == [
        "Devolución íntegra del importe de los cartones: 90,00 €",
        "  serie A1 del nº 1 al 60",
        "Devolución pagada (2026-11-21 18:10:00.000 UTC, caja): serie A1 del nº 1 al 10 "
        "(10 cartones), 15,00 €",
        "Devolución pagada (2026-11-21 18:11:00.000 UTC, caja): serie A1 del nº 21 al 21 "
        "(1 cartón), 1,50 €",
        "Pendiente de devolver: 73,50 €",
        "  serie A1 del nº 11 al 20 (10 cartones × 1,50 €): 15,00 €",
        "  serie A1 del nº 22 al 60 (39 cartones × 1,50 €): 58,50 €",
        "",
        "Devoluciones de partidas nulas pendientes al cierre de la sesión:",
    ]
    assert lines[void + 10 : void + 13] == [
        "  partida 1, serie A1 del nº 11 al 20 (10 cartones × 1,50 €): 15,00 €",
        "  partida 1, serie A1 del nº 22 al 60 (39 cartones × 1,50 €): 58,50 €",
        "Cierre de la sesión: 2026-11-21 19:00:00.000 UTC",
    ]
    # the JSON: the payments and what is owed under the void, the close's list in the session
    session = acta(log, session_id=1)["session"]
    void_json = session["games"][0]["void"]
    assert [
        (p["first"], p["last"], p["amount"], p["actor"]) for p in void_json["refunds_paid"]
    ] == [
        (1, 10, "15.00", "caja"),
        (21, 21, "1.50", "caja"),
    ]
    assert [(o["first"], o["last"]) for o in void_json["refunds_owed"]] == [(11, 20), (22, 60)]
    assert (void_json["refunded_total"], void_json["owed_total"]) == ("16.50", "73.50")
    assert [(o["game_id"], o["first"], o["amount"]) for o in session["refunds_owed_at_close"]] == [
        (1, 11, "15.00"),
        (1, 22, "58.50"),
    ]
    assert "Pendiente de devolver: 73,50 €" in text(log, game_id=1)


def test_the_prizes_of_a_voided_game_are_not_read_among_the_refunds_owed(log, service, clock):
    """A line won, then the game voided and part of its cards refunded: the prize withdrawn is
    under a heading of its own, not in the list of cards still owed (whose sum it would
    break)."""
    open_session(service, clock)
    clock.at("18:00:00")
    run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=1, last=20),
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.StartDraw(),
        *(c.DrawBall(number=n) for n in ROW0),
        c.CallClaim(kind="line", series_id="A1", card_number=1, grid=CARD),
        c.VerifyClaims(),
    )
    clock.now += timedelta(seconds=10)
    run(service, c.GiveOrder())
    clock.at("18:20:00")
    run(service, c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="Avería del soplador"))
    run(service, c.PayRefund(game_id=1, series_id="A1", first=2, last=5), actor="caja")

    lines = text(log, game_id=1).splitlines()
    void = line_index(lines, "PARTIDA NULA")
    assert lines[void + 1 : void + 8] == [
        "Devolución íntegra del importe de los cartones: 30,00 €",
        "  serie A1 del nº 1 al 20",
        "Premios otorgados en la partida:",
        "  premio de la reclamación 1 (cartón A1 nº 1): 3,00 €, no pagado, anulado",
        "Devolución pagada (2026-11-21 18:20:00.000 UTC, caja): serie A1 del nº 2 al 5 "
        "(4 cartones), 6,00 €",
        "Pendiente de devolver: 24,00 €",
        "  serie A1 del nº 1 al 1 (1 cartón × 1,50 €): 1,50 €",
    ]
    assert lines[void + 8] == "  serie A1 del nº 6 al 20 (15 cartones × 1,50 €): 22,50 €"


def test_a_refund_paid_in_a_later_session_is_printed_in_that_sessions_acta_in_time(
    log, service, clock
):
    """The rest refunded in session 2, after its game 2: printed in session 2's acta between
    games 2 and 3, and under game 1's void («en la sesión 2»), which is then refunded in full;
    session 1's close keeps what was owed then."""
    open_session(service, clock)
    void_game_1(service, clock)
    clock.at("18:10:00")
    run(service, c.PayRefund(game_id=1, series_id="A1", first=1, last=10), actor="caja")
    clock.at("19:00:00")
    run(service, c.CloseSession())
    clock.at("20:00:00")
    run(
        service,
        session_opening(profile("1979")),
        c.RecordEquipmentCheck(ok=True),
        c.LoadBalls(),
    )
    clock.at("20:10:00")
    play_game(service, clock, card=61)
    clock.at("20:40:00")
    run(service, c.PayRefund(game_id=1, series_id="A1", first=11, last=60), actor="caja")
    clock.at("20:41:00")
    play_game(service, clock, card=67)

    later = text(log, session_id=2).splitlines()
    paid = later.index(
        "Devolución de cartones de una partida nula de la sesión 1 (2026-11-21 20:40:00.000 "
        "UTC, caja): partida 1, serie A1 del nº 11 al 60 (50 cartones), 75,00 €"
    )
    assert later.index("PARTIDA 2") < paid < later.index("PARTIDA 3")
    earlier = text(log, session_id=1)
    assert (
        "Devolución pagada (2026-11-21 20:40:00.000 UTC, caja, en la sesión 2): serie A1 del "
        "nº 11 al 60 (50 cartones), 75,00 €\nDevuelto el importe de todos los cartones\n"
    ) in earlier
    assert "Pendiente de devolver" not in earlier
    assert (
        "Devoluciones de partidas nulas pendientes al cierre de la sesión:\n"
        "  partida 1, serie A1 del nº 11 al 60 (50 cartones × 1,50 €): 75,00 €\n"
    ) in earlier
    # a game's acta prints that game's money alone
    assert "Devolución de cartones" not in text(log, game_id=2)


@pytest.mark.parametrize(("rules", "warned"), [("1977", False), ("1979", True)])
def test_a_session_closed_from_ball_loading_after_play_says_its_last_game_was_not_announced(
    log, service, clock, rules, warned
):
    """1977 asks the Jefe de Mesa to warn aloud of the session's last game (S77 L2498-2500). A
    session that played games and then closed from ball loading (a set changed, none loaded)
    gave no warning: the acta says so at the close. 1979 asks for no warning."""
    open_session(service, clock, rules)
    play_game(service, clock, 1)
    run(service, c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0002"))
    run(service, c.ChangeBallSet(ball_set_id="JB-2", reason="bola 17 defectuosa"))
    clock.at("19:00:00")
    run(service, c.CloseSession(note="no queda juego de bolas que cargar"))
    lines = text(log, session_id=1).splitlines()
    close = next(line for line in lines if line.startswith("Cierre de la sesión"))
    assert close.startswith("Cierre de la sesión: 2026-11-21 19:00")
    assert "(sin llegar a cargar las bolas: no queda juego de bolas que cargar)" in close
    said = close.endswith("; sin haberse anunciado la última partida, como exige el reglamento")
    assert said is not warned
