"""TableService on a real store: overtaken by another writer of its table's stream, it catches
up, tells its listeners in order and decides its command again."""

from __future__ import annotations

from tables_support import default_choice, table

from bingo_hall.hub.table_service import TableService, rebuild_table
from bingo_hall.store import EventLog, make_engine
from bingo_hall.tables import commands as c


def test_a_table_overtaken_by_another_writer_catches_up_and_decides_again(store_url):
    roulette = table("1979", "french-roulette")
    engines = [make_engine(store_url), make_engine(store_url)]
    try:
        hub, other = (TableService(EventLog(engine), "h1", "R1") for engine in engines)
        heard: list[tuple[int, str]] = []
        hub.subscribe(lambda envelope: heard.append((envelope.seq, envelope.type)))
        hub.execute(c.OpenTable(table_id="R1", table=roulette, limits=default_choice(roulette)))
        hub.execute(c.SetSpinRotation(croupiers=("ana", "luis"), set_by="director"))
        other.catch_up()
        other.execute(c.OpenBets())  # written behind the hub's back
        hub.execute(c.Spin(spun_by="ana", direction="clockwise"))
        assert heard == [
            (1, "table_opened"),
            (2, "table_spin_rotation_set"),
            (3, "table_bets_opened"),
            (4, "table_spun"),
        ]
        assert hub.snapshot == rebuild_table(EventLog(engines[0]), hub.stream)
        assert EventLog(engines[0]).verify_chain(hub.stream).ok
    finally:
        for engine in engines:
            engine.dispose()
