"""The cylinder's seal between two sessions (spec wheels.md §2.12; N79 L234, AST L333-335): the
seal (or key) a table is closed with is checked when it next opens. A seal that differs opens
the table only with a note of what was found; without one the opening is refused and the
finding kept on the record. The record of the closed session says how its seal was found."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tables_support import NOW, Table, default_choice, refused, table

from bingo_hall.acta.table_build import build_table_record
from bingo_hall.acta.table_render import render_table_record
from bingo_hall.domain.errors import RefusalOnRecord, RuleError
from bingo_hall.hub.table_service import TableService
from bingo_hall.store import EventLog, make_engine
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.decide import decide
from bingo_hall.tables.state import TablePhase

ROULETTE = table("1979", "french-roulette")


def opening(seal_found: str | None = None, seal_note: str | None = None) -> c.OpenTable:
    return c.OpenTable(
        table_id="T1",
        table=ROULETTE,
        limits=default_choice(ROULETTE),
        seal_found=seal_found,
        seal_note=seal_note,
    )


def closed_with(seal: str) -> Table:
    table_ = Table(ROULETTE)
    table_.do(c.CloseTable(seal=seal))
    return table_


def test_a_tables_first_session_has_no_seal_to_check():
    (opened, *_) = Table(ROULETTE).events
    assert isinstance(opened, e.TableOpened)
    assert (opened.seal_expected, opened.seal_found, opened.seal_note) == (None, None, None)


def test_the_next_opening_says_the_seal_found_and_opens_when_it_is_the_closes():
    table_ = closed_with("P-0042 ")  # spaces typed at either end are no part of a seal
    assert table_.state.seal == "P-0042 "
    message = refused(table_, opening())
    assert message == (
        "the cylinder was closed with seal P-0042: say the seal (or key) found on it (seal_found)"
    )
    assert table_.state.phase is TablePhase.CLOSED  # refused, nothing changed
    (opened,) = table_.do(opening(" P-0042"))
    assert (opened.seal_expected, opened.seal_found, opened.seal_note) == ("P-0042", "P-0042", None)
    assert (opened.session_id, table_.state.phase, table_.state.seal) == (2, TablePhase.IDLE, None)


def test_a_seal_that_differs_is_refused_on_the_record_until_a_note_says_what_was_found():
    table_ = closed_with("P-0042")
    before = table_.state
    with pytest.raises(RefusalOnRecord) as refusal:
        decide(table_.state, opening("P-0043"), NOW)
    assert str(refusal.value) == (
        "the seal on the cylinder, P-0043, is not the one it was closed with, P-0042: the "
        "cylinder may have been opened. The table opens only with a note of what was found and "
        "whom it was reported to (seal_note); the finding is on the record"
    )
    (finding,) = refusal.value.events
    assert finding == e.SealMismatchFound(
        session_id=1, expected="P-0042", found="P-0043", reason=str(refusal.value)
    )
    assert table_.state == before
    with pytest.raises(RefusalOnRecord):  # a blank note is no note
        decide(table_.state, opening("P-0043", "  "), NOW)

    note = "tag P-0043 on the lid; reported to the inspector on duty"
    (opened,) = table_.do(opening("P-0043", note))
    assert (opened.seal_expected, opened.seal_found, opened.seal_note) == ("P-0042", "P-0043", note)


SEALS = st.sampled_from(["P-1", "P-2", "llave 7"])


@given(
    closed=SEALS,
    found=st.one_of(st.none(), SEALS),
    note=st.one_of(st.none(), st.just(""), st.just("reported to the inspector")),
)
def test_a_table_opens_only_on_its_seal_or_with_a_note(closed, found, note):
    table_ = closed_with(closed)
    command = opening(found, note)
    if found is not None and (found == closed or note):
        (opened,) = decide(table_.state, command, NOW)
        assert (opened.seal_expected, opened.seal_found) == (closed, found)
        assert opened.seal_note == (note or None)
        return
    with pytest.raises(RuleError) as refusal:
        decide(table_.state, command, NOW)
    kept = refusal.value.events if isinstance(refusal.value, RefusalOnRecord) else []
    # only a seal found wrong is a finding to keep; a seal not said is a request to mend
    assert [type(event) for event in kept] == ([e.SealMismatchFound] if found else [])


def test_the_record_of_the_closed_session_says_how_its_seal_was_found(tmp_path):
    log = EventLog(make_engine(f"sqlite:///{tmp_path / 'hall.sqlite'}"))
    service = TableService(log, "sala-1", "T1")
    service.execute(opening(), "jmj")
    service.execute(c.CloseTable(seal="P-0042"), "jmj")
    with pytest.raises(RefusalOnRecord):
        service.execute(opening("P-0043"), "luis")
    note = "tag P-0043 on the lid; reported to the inspector on duty"
    service.execute(opening("P-0043", note), "jmj")
    stream = service.stream
    assert [env.type for env in log.iter_all(stream)] == [
        "table_opened",
        "table_closed",
        "table_seal_mismatch_found",
        "table_opened",
    ]

    def record(session_id: int) -> dict:
        envelopes = log.iter_all(stream)
        return build_table_record("sala-1", "T1", envelopes, log.verify_chain(stream), session_id)

    first = record(1)
    checks = first["session"]["seal_checks"]
    assert [
        (k["by"], k["found"], k["matches"], k["opened_session"], k["note"]) for k in checks
    ] == [
        ("luis", "P-0043", False, None, None),
        ("jmj", "P-0043", False, 2, note),
    ]
    text = render_table_record(first)
    assert "Cilindro cerrado con llave o precinto: P-0042\n" in text
    assert "por luis); NO COINCIDE: apertura rechazada\n" in text
    assert f"por jmj); NO COINCIDE, se abre la sesión 2 con la nota: {note}\n" in text

    second = record(2)
    assert second["session"]["seal_at_opening"] == {
        "expected": "P-0042",
        "found": "P-0043",
        "note": note,
    }
    assert (
        "Precinto del cilindro al abrir: P-0043; NO COINCIDE con el del último cierre, P-0042. "
        f"Nota: {note}\n"
    ) in render_table_record(second)
    log.engine.dispose()
