"""The record of a table's session (bingo_hall/acta/table_*.py), built from a table's stream on a
real store: every fact spec wheels.md §7 asks of a session, a coup, a bet, a void, a zero, a
settlement, a change of limits and the colour chips, with who and when."""

from __future__ import annotations

import json
import sqlite3
import tempfile
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tables_support import NOW, default_choice, request, table

from bingo_hall.acta.table_build import build_table_record
from bingo_hall.acta.table_render import render_table_record
from bingo_hall.domain.errors import RefusalOnRecord
from bingo_hall.hub.table_service import TableService
from bingo_hall.store import EventLog, make_engine
from bingo_hall.tables import commands as c
from bingo_hall.tables.exchanges import ExchangeKind
from bingo_hall.tables.profiles import Role
from support.cli import hall, hall_config

HALL = "sala-1"  # config/hall.toml's, with its table R1


def record_of(service: TableService, session_id: int | None = None) -> dict:
    log = service.log
    stream = service.stream
    return build_table_record(
        HALL, service.table_id, log.iter_all(stream), log.verify_chain(stream), session_id
    )


def play_french_session(log: EventLog) -> TableService:
    """A 1979 French roulette session at R1: a refused change of limits, a top-up, a coup on a
    zero with a bet put in prison, a withdrawn and a late bet, a void coup relaunched, the last
    coup marked, and the closing with its seal. Each command as its login gives it."""
    roulette = table("1979", "french-roulette")
    service = TableService(log, HALL, "R1")

    def do(actor: str, command: c.TableCommand) -> None:
        service.execute(command, actor)

    do(
        "jmj",
        c.OpenTable(
            table_id="R1",
            table=roulette,
            limits=default_choice(roulette),
            head="jmj",
            float_amount=Decimal("20000"),
            minimum_exemption="DGJ 2026/114",
        ),
    )
    do("sala", c.SetSpinRotation(croupiers=("ana", "luis"), set_by="sala"))
    try:
        do("sala", c.ChangeLimits(limits=default_choice(roulette, "2"), requested_by="sala"))
    except RefusalOnRecord:
        pass
    else:
        raise AssertionError("a 1979 table's limits changed during its session")
    do("sala", c.TopUpFloat(amount=Decimal("5000"), ordered_by="sala"))
    banknotes = ExchangeKind.BANKNOTES
    do("mesa-R1", c.ExchangeAtTable(kind=banknotes, amount=Decimal(500), croupier="ana"))
    # coup 1: a zero; the red bet goes to prison by its player's choice
    do("mesa-R1", c.OpenBets())
    do("mesa-R1", c.Spin(spun_by="ana", direction="clockwise"))
    do("mesa-R1", c.PlaceBet(bet=request("a1", "straight", (17,), "10", player="P-7")))
    do("tere", c.PlaceBet(bet=request("a2", "red", (), "20")))
    do("tere", c.PlaceBet(bet=request("a3", "black", (), "5")))
    do("tere", c.WithdrawBet(bet_id="a3"))
    do("mesa-R1", c.CallNoMoreBets())
    do("mesa-R1", c.PlaceBet(bet=request("late", "odd", (), "5")))
    do("mesa-R1", c.RecordOutcome(outcome="0"))
    do("mesa-R1", c.ChooseZeroOption(bet_id="a2", choice="prison", declared_by="P-2"))
    do("mesa-R1", c.Settle())
    do("mesa-R1", c.PayCoup())
    # coup 2: the ball leaves the wheel; relaunched on the same bets
    do("mesa-R1", c.OpenBets())
    do("mesa-R1", c.Spin(spun_by="luis", direction="anticlockwise"))
    do("mesa-R1", c.PlaceBet(bet=request("b1", "dozen", (1,), "30")))
    do("mesa-R1", c.CallNoMoreBets())
    do("jmj", c.DeclareVoid(reason="ball_left_wheel", declared_by="jmj", role=Role.TABLE_HEAD))
    do("mesa-R1", c.Spin(spun_by="luis", direction="anticlockwise"))
    do("mesa-R1", c.RecordOutcome(outcome="5"))
    do("mesa-R1", c.Settle())
    do("mesa-R1", c.PayCoup())
    # coup 3, the last
    do("jmj", c.AnnounceLastCoups())
    do("mesa-R1", c.OpenBets())
    do("mesa-R1", c.Spin(spun_by="ana", direction="clockwise"))
    do("mesa-R1", c.CallNoMoreBets())
    do("mesa-R1", c.RecordOutcome(outcome="12"))
    do("mesa-R1", c.Settle())
    do("mesa-R1", c.PayCoup())
    closing = c.CloseTable(seal="PRECINTO-0042", float_count=Decimal(24440), tips=Decimal(35))
    do("sala", closing)
    return service


def test_a_french_session_record_names_every_fact_with_who_and_when(store_url):
    engine = make_engine(store_url)
    try:
        record = record_of(play_french_session(EventLog(engine)))
    finally:
        engine.dispose()
    session = record["session"]
    assert (record["hall"], record["table"], record["chain"]["ok"]) == (HALL, "R1", True)
    assert (session["game"], session["profile"], session["layouts"]) == (
        "french-roulette",
        "1979",
        1,
    )
    assert (session["opened_by"], session["head_at_opening"]) == ("jmj", "jmj")
    assert Decimal(session["float"]["issued"]) == 20000
    (top_up,) = session["float"]["top_ups"]
    assert (Decimal(top_up["amount"]), top_up["ordered_by"], Decimal(top_up["float_after"])) == (
        5000,
        "sala",
        25000,
    )
    assert Decimal(session["float"]["at_close"]) == 25000
    (refused,) = session["limit_changes"]
    assert (refused["status"], refused["requested_by"], refused["phase"]) == (
        "refused",
        "sala",
        "idle",
    )
    assert (refused["previous"]["minimum"], refused["limits"]["minimum"]) == ("1", "2")
    assert [s["what"] for s in session["staff"]] == ["rotation_set"]
    (exchange,) = session["exchanges"]
    assert (exchange["croupier"], exchange["controlled_by"], exchange["by"]) == (
        "ana",
        "jmj",
        "mesa-R1",
    )
    assert Decimal(session["cash_box_at_close"]) == 500
    count = session["count"]
    assert {key: Decimal(value) for key, value in count.items()} == {
        "float_count": 24440,
        "float_expected": 24450,  # 20,000 + 5,000 topped up − 50 the bank lost − 500 exchanged
        "difference": -10,
        "bank_result": -50,
        "tips": 35,
    }

    first, second, third = session["coups"]
    assert [step["what"] for step in first["timeline"]] == [
        "spin",
        "no_more_bets",
        "late_bet_returned",
        "outcome",
        "zero_choice",
    ]
    bets = {bet["id"]: bet for bet in first["bets"]}
    assert (bets["a2"]["placed_by"], bets["a2"]["status"], Decimal(bets["a2"]["carried"])) == (
        "tere",
        "prison",
        Decimal(20),
    )
    assert (bets["a3"]["withdrawn_by"], bets["a3"]["status"]) == ("tere", None)
    assert (bets["a1"]["player"], bets["a1"]["status"]) == ("P-7", "lost")
    assert first["carried"] == ["a2"] and first["payments"] == []

    assert [step["what"] for step in second["timeline"]] == [
        "spin",
        "no_more_bets",
        "void",
        "spin",
        "outcome",
    ]
    void = second["timeline"][2]
    assert (void["declared_by"], void["role"], void["previous_outcome"], void["bets_open"]) == (
        "jmj",
        "table_head",
        "0",
        False,
    )
    assert second["timeline"][3]["relaunch"] is True
    prisoner = next(bet for bet in second["bets"] if bet["id"] == "a2")
    assert (prisoner["carried_in"], prisoner["status"], Decimal(prisoner["returns"])) == (
        True,
        "returned",
        20,
    )
    assert [(p["bet"], Decimal(p["amount"])) for p in second["payments"]] == [
        ("b1", 90),
        ("a2", 20),
    ]
    assert third["last_coup"] is True and third["outcome"] == "12"

    totals = session["totals"]
    assert totals["coups_settled"] == 3
    assert {key: Decimal(value) for key, value in totals.items() if key != "coups_settled"} == {
        "staked": 80,
        "returns": 110,
        "carried": 20,
        "residue": 0,
        "bank_result": -50,
    }
    assert (session["seal"], session["coups_played"], session["closed_by"]) == (
        "PRECINTO-0042",
        3,
        "sala",
    )
    assert session["spins_per_croupier"] == {"ana": 2, "luis": 1}

    text = render_table_record(record)
    for line in (
        "REGISTRO DE LA MESA R1 — SESIÓN 1",
        "su juego, exento de tener una mesa al mínimo autorizado (autorización DGJ 2026/114)",
        "DENEGADO — el perfil no permite cambiar los límites durante la sesión",
        "Reposición del anticipo",
        "TIRADA NULA — la bola salió del cilindro; declarada por jmj (jefe de mesa); la bola "
        "vuelve al 0; se relanza la bola",
        "apuesta late después de «no va más»: devuelta al jugador",
        "a2: rojo, 20,00 €, en prisión desde una jugada anterior; sale de prisión, devuelve "
        "20,00 €",
        "en este orden: b1 docena 90,00 €; a2 rojo 20,00 €",
        "Anuncio de la última jugada",
        "lanzamientos por croupier: ana 2, luis 1",
        "Cilindro cerrado con llave o precinto: PRECINTO-0042",
        "Anticipo entregado y repuesto, que vuelve a caja: 25.000,00 €",
        "Arqueo del anticipo: contado 24.440,00 €; esperado 24.450,00 € (anticipo y "
        "reposiciones, más el resultado de la banca -50,00 €, menos las fichas entregadas por "
        "billetes 500,00 €): DIFERENCIA -10,00 € (falta)",
        "Propinas contadas: 35,00 €",
        "billetes por fichas de valor, 500,00 €; croupier ana, bajo el control de jmj; caja "
        "de la mesa: 500,00 €",
        "Caja de la mesa (billetes cambiados en la sesión): 500,00 €",
        "Cadena de hash del registro: VERIFICADA",
    ):
        assert line in text, line


def test_a_basque_record_shows_the_colour_chips_the_value_chip_bets_and_an_announced_change(
    tmp_path,
):
    """EUS: a change of limits announced and applied after its last balls (the coup it applies
    from), the colour chips issued and changed back, the head stopping value-chip bets."""
    engine = make_engine(f"sqlite:///{tmp_path / 'b.sqlite'}")
    try:
        roulette = table("basque", "american-roulette")
        service = TableService(EventLog(engine), HALL, "K1", clock=lambda: NOW)
        service.execute(
            c.OpenTable(
                table_id="K1", table=roulette, limits=default_choice(roulette, "1", tier=30)
            ),
            "sala",
        )
        service.execute(c.SetSpinRotation(croupiers=("ana", "luis"), set_by="sala"), "sala")
        service.execute(c.TakeTable(head="insp", role=Role.INSPECTOR), "insp")
        service.execute(
            c.IssueColourChips(colour="verde", player="P-1", chips=20, unit_value=Decimal("2")),
            "mesa-K1",
        )
        service.execute(c.SetValueChipBets(allowed=False, set_by="insp"), "insp")
        service.execute(
            c.ChangeLimits(limits=default_choice(roulette, "5", tier=30), requested_by="sala"),
            "sala",
        )
        for coup, outcome in enumerate(("7", "8", "9"), start=1):
            service.execute(c.OpenBets(), "mesa-K1")
            direction = "clockwise" if coup % 2 else "anticlockwise"
            spinner = service.state.next_spinner or ""
            service.execute(c.Spin(spun_by=spinner, direction=direction), "mesa-K1")
            bet = request(f"v{coup}", "straight", (7,), None, colour="verde", chips=1)
            service.execute(c.PlaceBet(bet=bet), "mesa-K1")
            service.execute(c.CallNoMoreBets(), "mesa-K1")
            service.execute(c.RecordOutcome(outcome=outcome), "mesa-K1")
            service.execute(c.Settle(), "mesa-K1")
            service.execute(c.PayCoup(), "mesa-K1")
        service.execute(c.ReturnColourChips(colour="verde", chips=87, leaves=True), "mesa-K1")
        closes_at = datetime(2024, 5, 2, 4, 0, tzinfo=ZoneInfo("Europe/Madrid"))
        service.execute(c.SuspendTable(key_held_by="sala", closes_at=closes_at), "sala")
        resume = c.ResumeTable(
            unlocked_by="sala", croupier="ana", head="insp", head_role=Role.INSPECTOR
        )
        service.execute(resume, "sala")
        record = record_of(service)
    finally:
        engine.dispose()
    session = record["session"]
    (change,) = session["limit_changes"]
    assert (change["status"], change["old_limit_coups"], change["applies_from_coup"]) == (
        "applied",
        3,
        4,
    )
    assert (change["previous"]["minimum"], change["limits"]["minimum"]) == ("1", "5")
    assert [(m["what"], m["chips"], Decimal(m["value"])) for m in session["colour_chips"]] == [
        ("issued", 20, 40),
        ("returned_and_left", 87, 174),
    ]
    assert session["value_chip_bets"] == [
        {"at": session["value_chip_bets"][0]["at"], "allowed": False, "set_by": "insp"}
    ]
    assert session["staff"][1] | {"at": None} == {
        "at": None,
        "what": "head_taken",
        "who": "insp",
        "role": "inspector",
        "relieves": None,
        "by": "insp",
    }
    first = session["coups"][0]["bets"][0]
    assert (first["colour"], first["status"], Decimal(first["returns"])) == ("verde", "won", 72)
    assert session["closed_at"] is None
    text = render_table_record(record)
    assert "anunciado; aplicado desde la jugada 4" in text
    assert "entrega, color verde, jugador P-1: 20 fichas de 2,00 € = 40,00 €" in text
    assert "apuestas con fichas de valor: se suspenden, por insp" in text
    assert "insp toma la mesa como inspector de mesa" in text
    assert "La mesa sigue abierta." in text
    (closure,) = session["closures"]
    assert (closure["key_held_by"], closure["croupier"], closure["head"]) == ("sala", "ana", "insp")
    assert (
        "llave del anticipo en poder de sala; el casino cierra a las 04:00 (hora local); "
        "reapertura" in text
    )
    assert "insp dirige la mesa al reabrirse (inspector de mesa)" in text


coups = st.lists(
    st.tuples(
        st.lists(
            st.tuples(
                st.sampled_from(("straight", "red", "black", "dozen", "column")),
                st.integers(min_value=1, max_value=30),
            ),
            max_size=4,
        ),
        st.integers(min_value=0, max_value=36),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coups)
def test_a_records_bets_and_totals_add_up_to_its_settlements(played):
    """Whatever the bets and outcomes: every bet placed is in its coup's record once, the bets'
    returns add up to each settlement's, and the session's totals to the coups'."""
    roulette = table("1979", "french-roulette")
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'p.sqlite'}")
        try:
            service = TableService(EventLog(engine), HALL, "R1")
            service.execute(
                c.OpenTable(table_id="R1", table=roulette, limits=default_choice(roulette))
            )
            service.execute(c.SetSpinRotation(croupiers=("ana", "luis"), set_by="sala"))
            placed: list[set[str]] = []
            for number, (bets, outcome) in enumerate(played, start=1):
                service.execute(c.OpenBets())
                state = service.state
                service.execute(
                    c.Spin(
                        spun_by=state.next_spinner or "",
                        direction="clockwise" if number % 2 else "anticlockwise",
                    )
                )
                ids = set()
                for index, (kind, amount) in enumerate(bets):
                    numbers = {"straight": (amount,), "dozen": (2,), "column": (3,)}.get(kind, ())
                    bet_id = f"c{number}b{index}"
                    service.execute(c.PlaceBet(bet=request(bet_id, kind, numbers, str(amount))))
                    ids.add(bet_id)
                placed.append(ids)
                service.execute(c.CallNoMoreBets())
                service.execute(c.RecordOutcome(outcome=str(outcome)))
                for bet in service.state.bets.values():
                    if service.state.outcome == "0" and bet.type in ("red", "black"):
                        service.execute(
                            c.ChooseZeroOption(bet_id=bet.id, choice="half", declared_by="p")
                        )
                service.execute(c.Settle())
                service.execute(c.PayCoup())
            record = record_of(service)
        finally:
            engine.dispose()
    session = record["session"]
    assert len(session["coups"]) == len(played)
    staked = bank = Decimal(0)
    for coup, ids in zip(session["coups"], placed, strict=True):
        assert sorted(bet["id"] for bet in coup["bets"]) == sorted(ids)
        totals = coup["settlement"]["totals"]
        assert sum((Decimal(b["returns"]) for b in coup["bets"]), Decimal(0)) == Decimal(
            totals["returns"]
        )
        assert sum(Decimal(p["amount"]) for p in coup["payments"]) <= Decimal(totals["returns"])
        staked += Decimal(totals["staked"])
        bank += Decimal(totals["bank_result"])
    assert Decimal(session["totals"]["staked"]) == staked
    assert Decimal(session["totals"]["bank_result"]) == bank


def test_the_console_prints_a_tables_record_and_says_when_its_chain_is_broken(tmp_path):
    """`bingo-hall table-record`: the text and the JSON of R1's session; an unknown session is
    a one-line error (status 2); a payload changed in the store: status 1, «NO VERIFICA»."""
    path = tmp_path / "hall.sqlite"
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    try:
        play_french_session(EventLog(engine))
    finally:
        engine.dispose()
    config = str(hall_config(tmp_path, "none"))
    text = hall("table-record", "--config", config, "--db", url, "--table", "R1", timeout=60)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("REGISTRO DE LA MESA R1 — SESIÓN 1\nSala: sala-1\n")
    as_json = hall(
        "table-record", "--config", config, "--db", url, "--table", "R1", "--json", timeout=60
    )
    assert json.loads(as_json.stdout)["session"]["seal"] == "PRECINTO-0042"

    missing = hall(
        "table-record", "--config", config, "--db", url, "--table", "R1", "--session", "2"
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "table R1 has no session 2 (its sessions: 1) (the hall's tables: R1, B1)" in (
        missing.stderr
    )
    empty = hall("table-record", "--config", config, "--db", url, "--table", "B1")
    assert empty.returncode == 2 and "table B1 has no session in the log" in empty.stderr

    db = sqlite3.connect(path)
    try:
        with db:
            changed = db.execute(
                "UPDATE event_log SET payload = replace(payload, ?, ?) "
                "WHERE type = 'table_outcome_recorded' AND instr(payload, ?) > 0",
                ('"outcome":"5"', '"outcome":"6"', '"outcome":"5"'),
            ).rowcount
        assert changed == 1
    finally:
        db.close()
    broken = hall("table-record", "--config", config, "--db", url, "--table", "R1")
    assert broken.returncode == 1 and "Traceback" not in broken.stderr
    assert "Cadena de hash del registro: NO VERIFICA" in broken.stdout
