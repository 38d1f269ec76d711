"""HallService on a real store: rejected commands write nothing, listeners hear only durable
events, envelopes carry their session and game, and a restarted service carries on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import text

from bingo_hall.acta import build_acta
from bingo_hall.acta.render import render_text
from bingo_hall.domain import Phase, PhaseError, RuleError
from bingo_hall.domain import commands as c
from bingo_hall.domain.events import CameraCheck
from bingo_hall.domain.profiles import VoidReason
from bingo_hall.hub.service import HallService
from bingo_hall.store import EventLog, make_engine
from bingo_hall.store.eventlog import EventEnvelope
from bingo_hall.store.projections import PROJECTORS, create_projection_tables
from support.hall import CARD, profile, session_opening

HALL = "h1"
ROW0 = (1, 22, 41, 63, 80)  # the top line of CARD
REST = (13, 34, 52, 74, 85, 7, 18, 29, 57, 90)  # the other ten numbers of CARD
BLANKS = (2, 3, 4, 5, 6)  # numbers not on CARD


class HandClock:
    """Hall time that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 18, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(microseconds=1)  # distinct times, as on a real clock
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def log(store_url: str) -> Iterator[EventLog]:
    engine = make_engine(store_url)
    try:
        yield EventLog(engine)
    finally:
        engine.dispose()


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def service(log: EventLog, clock: HandClock) -> HallService:
    return HallService(log, HALL, clock)


def run(service: HallService, *commands: c.Command) -> list[EventEnvelope]:
    envelopes = []
    for command in commands:
        envelopes += service.execute(command, actor="test")
    return envelopes


def open_session(service: HallService, rules: str = "1979") -> list[EventEnvelope]:
    """Ball set registered, session open, material checked, balls loaded, series A1 ready."""
    return run(
        service,
        c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"),
        session_opening(profile(rules)),
        c.RecordEquipmentCheck(ok=True),
        c.ChangeBallSet(ball_set_id="JB-1", reason="puesta en servicio"),
        c.LoadBalls(),
        c.RegisterSeries(series_id="A1", face_value=Decimal("1.50"), size=300),
    )


def start_game(service: HallService, first: int = 1, last: int = 100) -> list[EventEnvelope]:
    """Series A1 announced and sold (first..last), prizes announced, draw started."""
    return run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=first, last=last),
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.StartDraw(),
    )


def win_line_and_bingo(service: HallService, clock: HandClock, card: int) -> list[EventEnvelope]:
    """CARD (as card no. `card` of A1) wins the line, then the bingo; the game finishes."""
    envelopes = run(service, *(c.DrawBall(number=n) for n in (*BLANKS, *ROW0)))
    envelopes += run(
        service,
        c.CallClaim(kind="line", series_id="A1", card_number=card, grid=CARD),
        c.VerifyClaims(),
    )
    clock.advance(10)
    envelopes += run(service, c.GiveOrder())
    envelopes += run(service, *(c.DrawBall(number=n) for n in REST))
    envelopes += run(
        service,
        c.CallClaim(kind="bingo", series_id="A1", card_number=card, grid=CARD),
        c.VerifyClaims(),
    )
    clock.advance(10)
    envelopes += run(service, c.GiveOrder())
    return envelopes


def snapshot(log: EventLog, service: HallService):
    return log.head(HALL), len(log.read(HALL)), service.seq, service.state


# --- (a) a rejected command changes nothing -------------------------------------------------


def test_a_command_in_the_wrong_phase_writes_nothing(log, service):
    before = snapshot(log, service)
    assert before[0] == (0, "0" * 64)
    with pytest.raises(PhaseError) as raised:
        service.execute(c.DrawBall(number=7))
    assert raised.value.phase == Phase.SESSION_CLOSED.value
    assert snapshot(log, service) == before

    open_session(service)
    before = snapshot(log, service)
    state = service.state
    with pytest.raises(PhaseError):
        service.execute(c.DrawBall(number=7))
    assert snapshot(log, service) == before
    assert service.state is state


def test_a_sale_out_of_order_writes_nothing(log, service):
    open_session(service)
    run(service, c.AnnounceSeries(series=("A1",)), c.StartSale())
    run(service, c.RecordSale(series_id="A1", first=1, last=6))
    before = snapshot(log, service)
    state = service.state
    for first, last in [(8, 12), (1, 6), (6, 10)]:  # a gap, a repeat, an overlap
        with pytest.raises(RuleError) as raised:
            service.execute(c.RecordSale(series_id="A1", first=first, last=last))
        assert "no. 7" in str(raised.value)
        assert snapshot(log, service) == before
        assert service.state is state
    assert service.state.game.sales[-1].last == 6
    # the hall carries on: the next sale is card 7
    (envelope,) = service.execute(c.RecordSale(series_id="A1", first=7, last=12))
    assert envelope.seq == before[2] + 1 == log.head(HALL)[0]
    assert envelope.prev_hash == before[0][1]


def test_rejected_commands_mid_draw_write_nothing(log, service):
    open_session(service)
    start_game(service)
    run(service, c.DrawBall(number=5))
    before = snapshot(log, service)
    for command in [
        c.DrawBall(number=5),  # already drawn
        c.DrawBall(number=91),  # no such ball
        c.GiveOrder(),  # no window open
        c.CallClaim(kind="line", series_id="Z9", card_number=1, grid=CARD),  # no such series
    ]:
        with pytest.raises(RuleError):
            service.execute(command)
        assert snapshot(log, service) == before


# --- (b) listeners hear only of durable events ----------------------------------------------


def test_listeners_hear_an_event_only_once_another_engine_can_read_it(store_url, log, service):
    heard: list[tuple[int, str, str | None, int]] = []

    def listener(envelope: EventEnvelope) -> None:
        other = make_engine(store_url)  # a separate engine, its own connections
        try:
            with other.connect() as conn:  # the raw row, as any other process would see it
                row = conn.execute(
                    text("SELECT type, hash FROM event_log WHERE hall_id = :h AND seq = :s"),
                    {"h": HALL, "s": envelope.seq},
                ).one_or_none()
            reader = EventLog(other)
            read = reader.read(HALL, after_seq=envelope.seq - 1, limit=1)
            head = reader.head(HALL)
        finally:
            other.dispose()
        stored = None if row is None else row.hash
        assert row is None or row.type == envelope.type
        assert read == ([envelope] if row is not None else [])
        heard.append((envelope.seq, envelope.type, stored, head[0]))

    service.subscribe(listener)
    envelopes = open_session(service) + start_game(service)
    envelopes += run(service, c.DrawBall(number=1))
    assert [(seq, kind) for seq, kind, _, _ in heard] == [(e.seq, e.type) for e in envelopes]
    for (seq, _, stored, head_seq), envelope in zip(heard, envelopes, strict=True):
        assert stored == envelope.hash, f"seq {seq} was told before it was stored"
        assert head_seq >= seq
    assert [seq for seq, *_ in heard] == list(range(1, len(envelopes) + 1))


def test_listeners_are_told_in_order_after_the_state_changed(log, service):
    seen: list[tuple[int, int, Phase]] = []
    service.subscribe(lambda env: seen.append((env.seq, service.seq, service.state.phase)))
    second: list[EventEnvelope] = []
    service.subscribe(second.append)
    run(
        service,
        c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"),
        session_opening(profile("1979"), "drum"),
    )
    # one command, two events: a failed material check closes the session at once
    batch = service.execute(c.RecordEquipmentCheck(ok=False, notes="bombo roto"))
    assert [e.type for e in batch] == ["equipment_checked", "session_closed"]
    assert seen == [
        (1, 1, Phase.SESSION_CLOSED),
        (2, 2, Phase.EQUIPMENT_CHECK),
        (3, 4, Phase.SESSION_CLOSED),  # told after the whole batch was applied
        (4, 4, Phase.SESSION_CLOSED),
    ]
    assert [e.seq for e in second] == [1, 2, 3, 4]


def test_a_rejected_command_is_not_heard(log, service):
    heard: list[EventEnvelope] = []
    service.subscribe(heard.append)
    with pytest.raises(RuleError):
        service.execute(c.LoadBalls())
    assert heard == []


# --- (c) envelopes carry their session and game ----------------------------------------------

SESSION_EVENTS = {
    "session_opened",
    "equipment_checked",
    "ball_set_changed",
    "balls_loaded",
    "series_registered",
    "session_closed",
}
GAME_EVENTS = {
    "series_announced",
    "sale_started",
    "sale_recorded",
    "sale_closed",
    "prizes_announced",
    "draw_started",
    "ball_drawn",
    "claim_called",
    "claim_verified",
    "any_more_asked",
    "order_given",
    "prize_split",
    "game_finished",
    "game_voided",
}


def ids(envelopes: list[EventEnvelope]) -> list[tuple[str, int | None, int | None]]:
    return [(e.type, e.session_id, e.game_id) for e in envelopes]


def test_envelopes_carry_session_and_game(log, service, clock):
    everything: list[EventEnvelope] = []
    service.subscribe(everything.append)
    first = open_session(service)
    assert ids(first)[0] == ("ball_set_registered", None, None)  # before any session
    assert all(e.session_id == 1 and e.game_id is None for e in first[1:])
    assert {e.type for e in first[1:]} <= SESSION_EVENTS

    game1 = start_game(service) + win_line_and_bingo(service, clock, card=1)
    assert {e.type for e in game1} >= {"ball_drawn", "prize_split", "game_finished"}
    assert {e.type for e in game1} <= GAME_EVENTS
    assert all((e.session_id, e.game_id) == (1, 1) for e in game1), ids(game1)

    between = run(
        service,
        c.RegisterSeries(series_id="B1", face_value=Decimal("3.00"), size=300),
        c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"),
    )
    assert ids(between) == [("series_registered", 1, None), ("ball_set_registered", 1, None)]

    game2 = start_game(service, 101, 110) + run(
        service, c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="avería")
    )
    assert all((e.session_id, e.game_id) == (1, 2) for e in game2), ids(game2)
    assert game2[-1].type == "game_voided"

    run(service, c.PayPrize(game_id=1, claim_id=1), c.PayPrize(game_id=1, claim_id=2))
    closing = run(service, c.CloseSession())
    assert ids(closing) == [("session_closed", 1, None)]

    after = run(service, c.RegisterBallSet(ball_set_id="JB-3", homologation="CNJ-BOLAS-0001"))
    assert ids(after) == [("ball_set_registered", None, None)]  # outside a session

    again = run(
        service,
        session_opening(profile("1979")),
    )
    assert ids(again) == [("session_opened", 2, None)]
    # what the service returned and told is what the log holds
    assert log.read(HALL) == everything
    assert everything[: len(first)] == first


def test_a_prize_paid_during_the_next_game_is_filed_under_its_own_game(log, service, clock):
    """A prize of game 1 paid while game 2 is selling belongs to game 1, not to game 2."""
    open_session(service)
    start_game(service)
    win_line_and_bingo(service, clock, card=1)
    run(service, c.AnnounceSeries(series=("A1",)), c.StartSale())
    (paid,) = run(service, c.PayPrize(game_id=1, claim_id=1))
    assert paid.type == "prize_paid"
    assert paid.payload["game_id"] == 1
    assert paid.session_id == 1
    assert paid.game_id == 1, f"game 1's prize payment filed under game {paid.game_id}"


# --- (d) a restarted service carries on -------------------------------------------------------


@pytest.mark.parametrize("stop_at", ["selling", "window", "between games"])
def test_a_new_service_rebuilds_the_same_state_and_continues_the_seq(
    store_url, log, service, clock, stop_at
):
    open_session(service)
    if stop_at == "selling":
        run(service, c.AnnounceSeries(series=("A1",)), c.StartSale())
        run(service, c.RecordSale(series_id="A1", first=1, last=6))
        next_command: c.Command = c.RecordSale(series_id="A1", first=7, last=12)
    elif stop_at == "window":
        start_game(service)
        run(service, *(c.DrawBall(number=n) for n in ROW0))
        run(
            service,
            c.CallClaim(kind="line", series_id="A1", card_number=3, grid=CARD),
            c.VerifyClaims(),
        )
        assert service.state.phase is Phase.ANY_MORE_WINDOW
        clock.advance(10)
        next_command = c.GiveOrder()
    else:
        start_game(service)
        win_line_and_bingo(service, clock, card=3)
        next_command = c.PayPrize(game_id=1, claim_id=1)

    # the same log through another engine, as after a restart
    engine = make_engine(store_url)
    try:
        restarted = HallService(EventLog(engine), HALL, clock)
        assert restarted.state == service.state
        assert restarted.seq == service.seq == log.head(HALL)[0]
        envelopes = restarted.execute(next_command)
        assert envelopes[0].seq == service.seq + 1
        assert envelopes[0].prev_hash == log.read(HALL)[service.seq - 1].hash
        assert restarted.seq == envelopes[-1].seq == log.head(HALL)[0]
        seqs = [e.seq for e in log.read(HALL)]
        assert seqs == list(range(1, len(seqs) + 1))
        assert log.verify_chain(HALL).ok
        # and a third service, rebuilt after the new events, agrees with the one that made them
        assert HallService(log, HALL, clock).state == restarted.state
    finally:
        engine.dispose()


def test_a_false_claim_after_the_order_leaves_the_game_drawing_and_the_line_paid_once(
    store_url, clock
):
    """With the projections: an order settles the line once; a false «¡bingo!» on the same
    ball is rejected and the draw goes on (it used to reopen the window and split the line
    again, which the prize view's key refused, leaving the game stuck in the window)."""
    engine = make_engine(store_url)
    try:
        create_projection_tables(engine)
        service = HallService(EventLog(engine, projectors=PROJECTORS), HALL, clock)
        open_session(service)
        start_game(service)
        run(service, *(c.DrawBall(number=n) for n in ROW0))
        run(service, c.CallClaim(kind="line", series_id="A1", card_number=1, grid=CARD))
        run(service, c.VerifyClaims())
        clock.advance(10)
        run(service, c.GiveOrder())
        false_bingo = c.CallClaim(kind="bingo", series_id="A1", card_number=2, grid=CARD)
        run(service, false_bingo)
        verified = run(service, c.VerifyClaims())
        assert [env.type for env in verified] == ["claim_verified", "draw_resumed"]
        assert service.state.phase is Phase.DRAWING
        run(service, c.DrawBall(number=BLANKS[0]))
        with engine.connect() as connection:
            prizes = connection.execute(text("SELECT kind, amount FROM view_prize")).all()
        assert [(kind, Decimal(str(amount))) for kind, amount in prizes] == [
            ("line", Decimal("15.00"))
        ]
    finally:
        engine.dispose()


def test_a_bingo_claimed_while_a_ball_is_held_ends_the_game_and_the_acta_says_so(
    log, service, clock
):
    """The held ball was never announced: the bingo called before it wins, and the acta
    records the held ball as not called, the game having ended."""
    open_session(service)
    start_game(service)
    run(service, *(c.DrawBall(number=n) for n in (*ROW0, *REST)))
    unsure = CameraCheck(reading=None, guess=73, confidence=0.6, reason="unsure")
    run(service, c.HoldBall(called=37, camera=unsure))
    run(service, c.CallClaim(kind="bingo", series_id="A1", card_number=1, grid=CARD))
    assert [env.type for env in run(service, c.VerifyClaims())] == [
        "claim_verified",
        "any_more_asked",
    ]
    clock.advance(10)
    finished = run(service, c.GiveOrder())
    assert [env.type for env in finished][-1] == "game_finished"
    assert finished[-1].payload["balls"] == 15
    acta = build_acta(HALL, log.iter_all(HALL), log.verify_chain(HALL), session_id=1)
    acta_text = render_text(acta)
    assert "Bola 16 retenida" in acta_text
    assert "no cantada: la partida terminó antes" in acta_text


def session_acta(log: EventLog, session_id: int) -> str:
    return render_text(
        build_acta(HALL, log.iter_all(HALL), log.verify_chain(HALL), session_id=session_id)
    )


def test_a_session_closed_at_ball_loading_says_so_in_its_acta(log, service):
    run(
        service,
        session_opening(profile("1977"), "drum"),
        c.RecordEquipmentCheck(ok=True),
        c.CloseSession(note="el extractor no acepta el juego JB-1"),
    )
    assert service.state.phase is Phase.SESSION_CLOSED
    acta = session_acta(log, 1)
    assert acta.count("(sin llegar a cargar las bolas: el extractor no acepta el juego JB-1)") == 1


def test_players_requests_and_complaints_are_answered_and_in_the_acta(log, service, clock):
    """«contestará las peticiones de información o reclamaciones y consignará todo ello en el
    acta» (S77 L2427-2432): each is numbered, answered once, and the acta of its session (and
    of its game) says what was asked, by whom, and the answer; one left unanswered at a close
    is listed there, and its answer in a later session is in that session's acta too."""
    open_session(service)
    run(
        service,
        c.RecordPlayerRequest(
            kind="information",
            player="mesa 12",
            text="¿Cuánto es el premio de bingo?",
            answer="60 % de lo vendido",
        ),
    )
    start_game(service)
    run(
        service,
        c.RecordPlayerRequest(
            kind="complaint", player="Ana, cartón A1 nº 17", text="No oyó el número 45"
        ),
    )
    before = service.state
    for command, message in (
        (c.AnswerPlayerRequest(request_id=3, answer="x"), "no request or complaint no. 3"),
        (c.AnswerPlayerRequest(request_id=1, answer="x"), "no. 1 has already been answered"),
    ):
        with pytest.raises(RuleError, match=message):
            run(service, command)
        assert service.state == before
    run(service, c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="avería"))
    run(service, c.CloseSession())
    first = session_acta(log, 1)
    assert "Peticiones de información y quejas de los jugadores:" in first
    assert (
        "nº 1, petición de información (" in first
        and "de «mesa 12»: «¿Cuánto es el premio de bingo?»; respuesta (" in first
        and "«60 % de lo vendido»" in first
    )
    assert "nº 2, queja (" in first and "partida 1) de «Ana, cartón A1 nº 17»" in first
    assert "«No oyó el número 45»; sin respuesta" in first
    assert "Peticiones y quejas sin respuesta al cierre de la sesión: nº 2\n" in first
    game_acta = render_text(build_acta(HALL, log.iter_all(HALL), log.verify_chain(HALL), game_id=1))
    assert "nº 2, queja" in game_acta and "nº 1," not in game_acta  # the game's alone

    run(
        service,
        session_opening(profile("1979")),
        c.RecordEquipmentCheck(ok=True),
        c.AnswerPlayerRequest(request_id=2, answer="  Se repitió el 45 por los altavoces  "),
    )
    second = session_acta(log, 2)
    assert "Respuestas a peticiones y quejas de sesiones anteriores:" in second
    # the question is repeated where it is answered, so that this acta stands alone
    assert "nº 2, queja de la sesión 1 (" in second
    assert "de «Ana, cartón A1 nº 17»: «No oyó el número 45»; respuesta (" in second
    assert "«Se repitió el 45 por los altavoces»" in second
    reprinted = session_acta(log, 1)  # the first session's acta now shows the answer, dated
    assert "«No oyó el número 45»; respuesta (dada tras el cierre, en la sesión 2, " in reprinted
    assert "Peticiones y quejas sin respuesta al cierre de la sesión: nº 2\n" in reprinted


def test_a_game_voided_during_its_sale_shows_the_cards_it_sold_and_who_voided_it(log, service):
    open_session(service)
    run(
        service,
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        c.RecordSale(series_id="A1", first=1, last=6),
        c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="corte de luz"),
    )
    acta_text = session_acta(log, 1)
    assert "Cartones vendidos: 6; recaudación: 9,00 €" in acta_text
    assert "Devolución íntegra del importe de los cartones: 9,00 €" in acta_text
    assert re.search(r"PARTIDA NULA \([0-9: .-]+ UTC, test\)", acta_text)


def test_a_prize_unpaid_at_the_close_is_listed_and_its_payment_is_in_the_paying_sessions_acta(
    log, service, clock
):
    open_session(service)
    start_game(service)
    win_line_and_bingo(service, clock, card=1)
    run(service, c.PayPrize(game_id=1, claim_id=1), c.CloseSession())  # the bingo unpaid
    closed = session_acta(log, 1)
    assert "Premios pendientes de pago al cierre de la sesión:" in closed
    assert "  partida 1, bingo, cartón A1 nº 1 (reclamación 2): 90,00 €" in closed
    assert "reclamación 1)" not in closed  # the line was paid
    run(
        service,
        session_opening(profile("1979")),
        c.PayPrize(game_id=1, claim_id=2),
    )
    paying = session_acta(log, 2)
    assert re.search(
        r"Pago de un premio de la sesión 1 \([0-9: .-]+ UTC, test\): partida 1, reclamación 2, "
        r"90,00 €",
        paying,
    )
    later = session_acta(log, 1)
    assert re.search(r"Pago \([0-9: .-]+ UTC, test, en la sesión 2\): reclamación 2", later)
    # what was unpaid when the session closed stays so in its acta
    assert "  partida 1, bingo, cartón A1 nº 1 (reclamación 2): 90,00 €" in later


def test_what_rounding_the_prize_percentages_leaves_is_in_the_acta(log, service):
    open_session(service)
    run(
        service,
        c.RegisterSeries(series_id="B1", face_value=Decimal("1.55"), size=100),
        c.AnnounceSeries(series=("B1",)),
        c.StartSale(),
        c.RecordSale(series_id="B1", first=1, last=3),  # 4.65: the line's 10 % is 0.465
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="n"),
    )
    start_game(service)  # A1 at 1.50: 10 % and 60 % of its takings are whole cents
    acta_text = session_acta(log, 1)
    assert (
        "Premio de línea: 0,46 €; premio de bingo: 2,79 € (el redondeo de los porcentajes "
        "deja 0,005 €)\n" in acta_text
    )
    assert "Premio de línea: 15,00 €; premio de bingo: 90,00 €\n" in acta_text


def test_a_series_registered_between_sessions_is_in_the_next_sessions_acta(log, service):
    open_session(service)
    run(service, c.CloseSession())
    run(service, c.RegisterSeries(series_id="Z9", face_value=Decimal("2.00"), size=50))
    assert "Serie registrada Z9" not in session_acta(log, 1)
    run(
        service,
        session_opening(profile("1979")),
    )
    assert "Serie registrada Z9: 50 cartones, valor facial 2,00 €" in session_acta(log, 2)


# --- another writer: the service catches up and decides again ---------------------------------


def test_a_service_overtaken_by_another_writer_catches_up_tells_in_order_and_decides_again(
    store_url, log, service, clock
):
    """A series imported at the console while the hub runs: the hub's next command finds the
    log moved on, applies and tells the console's event first, then decides its own command on
    the state the log gives."""
    open_session(service)
    heard: list[tuple[int, str]] = []
    service.subscribe(lambda envelope: heard.append((envelope.seq, envelope.type)))
    engine = make_engine(store_url)
    try:
        console = HallService(EventLog(engine), HALL, clock)
        console.execute(c.RegisterSeries(series_id="B1", face_value=Decimal("3"), size=120))
    finally:
        engine.dispose()
    seq = service.seq
    mine = service.execute(c.AnnounceSeries(series=("A1", "B1")), actor="test")
    assert heard == [(seq + 1, "series_registered"), (seq + 2, "series_announced")]
    assert [e.seq for e in mine] == [seq + 2]
    assert service.seq == log.head(HALL)[0] == seq + 2
    assert service.state == HallService(log, HALL, clock).state
    assert log.verify_chain(HALL).ok


def test_a_command_the_other_writers_event_made_illegal_is_refused_and_writes_nothing(
    store_url, log, service, clock
):
    open_session(service)
    engine = make_engine(store_url)
    try:
        console = HallService(EventLog(engine), HALL, clock)
        console.execute(c.AnnounceSeries(series=("A1",)))
    finally:
        engine.dispose()
    head = log.head(HALL)
    with pytest.raises(RuleError):
        service.execute(c.AnnounceSeries(series=("A1",)))
    assert log.head(HALL) == head and service.seq == head[0]
    assert service.state == HallService(log, HALL, clock).state


def test_a_games_acta_keeps_to_its_game_and_a_session_lists_what_it_still_owes(log, service, clock):
    open_session(service)
    start_game(service)
    win_line_and_bingo(service, clock, card=1)
    run(service, c.PayPrize(game_id=1, claim_id=1), c.CloseSession())  # game 1's bingo unpaid
    run(
        service,
        session_opening(profile("1979")),
        c.RecordEquipmentCheck(ok=True),
        c.LoadBalls(),
    )
    start_game(service, first=101, last=200)
    win_line_and_bingo(service, clock, card=101)
    run(service, c.PayPrize(game_id=2, claim_id=1), c.PayPrize(game_id=1, claim_id=2))
    run(service, c.CloseSession())  # game 2's bingo unpaid; game 1's paid in this session
    owed_then = "  partida 1, bingo, cartón A1 nº 1 (reclamación 2): 90,00 €"
    assert owed_then in session_acta(log, 1)
    closing = session_acta(log, 2)
    assert "  partida 2, bingo, cartón A1 nº 101 (reclamación 2): 90,00 €" in closing
    assert "partida 1 de la sesión 1" not in closing  # paid before this close

    def game_acta(game_id: int) -> str:
        chain = log.verify_chain(HALL)
        return render_text(build_acta(HALL, log.iter_all(HALL), chain, game_id=game_id))

    # a game's acta prints the money of that game only
    second = game_acta(2)
    assert "partida 2, bingo, cartón A1 nº 101" in second
    assert "partida 1," not in second and "Pago de un premio de la sesión 1" not in second
    first = game_acta(1)
    assert owed_then in first and "partida 2," not in first


def test_a_prize_owed_at_one_close_is_listed_again_at_the_next_until_it_is_paid(
    log, service, clock
):
    open_session(service)
    start_game(service)
    win_line_and_bingo(service, clock, card=1)
    run(service, c.CloseSession())
    run(
        service,
        session_opening(profile("1979")),
        c.RecordEquipmentCheck(ok=True),
        c.LoadBalls(),
        c.CloseSession(),
    )
    closing = session_acta(log, 2)
    assert "Premios pendientes de pago al cierre de la sesión:" in closing
    assert "  partida 1 de la sesión 1, línea, cartón A1 nº 1 (reclamación 1): 15,00 €" in closing
    assert "  partida 1 de la sesión 1, bingo, cartón A1 nº 1 (reclamación 2): 90,00 €" in closing


def test_prizes_a_void_leaves_standing_are_owed_at_the_close(log, service, clock):
    """Under a profile without restitution on void, the prizes of a voided game stand and are
    paid (docs/rules.md): unpaid at the close, the acta lists them."""
    run(
        service,
        c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"),
        session_opening(profile("1979", restitution_on_void=False)),
        c.RecordEquipmentCheck(ok=True),
        c.ChangeBallSet(ball_set_id="JB-1", reason="puesta en servicio"),
        c.LoadBalls(),
        c.RegisterSeries(series_id="A1", face_value=Decimal("1.50"), size=300),
    )
    start_game(service)
    run(service, *(c.DrawBall(number=n) for n in (*BLANKS, *ROW0)))
    run(
        service,
        c.CallClaim(kind="line", series_id="A1", card_number=1, grid=CARD),
        c.VerifyClaims(),
    )
    clock.advance(10)
    run(service, c.GiveOrder())
    run(service, c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="avería del bombo"))
    assert service.state.awards  # the line stands
    run(service, c.CloseSession())
    assert "  partida 1, línea, cartón A1 nº 1 (reclamación 1): 15,00 €" in session_acta(log, 1)
