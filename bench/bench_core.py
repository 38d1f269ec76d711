"""Benchmark of the bingo core: rules engine, replay, and durable appends.

Prints medians over repeated runs and compares each figure with a baseline measured in the
same process (these machines are noisy; ratios travel better than absolute numbers):

- engine: commands/s through decide + evolve for whole games, against replaying the same
  events with evolve alone (the cost of the rules' checks);
- append: events/s appended durably one command at a time through the EventLog (hash chain +
  projections, one transaction each), against a bare single-row INSERT + COMMIT per event on
  the same database (the cost of the chain and the projections).

Usage: python bench/bench_core.py [--pg URL] [--games N] [--events N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bingo_hall.domain import HallState, decide, evolve  # noqa: E402
from bingo_hall.domain import commands as c  # noqa: E402
from bingo_hall.domain.cards import Card  # noqa: E402
from bingo_hall.domain.claims import completion_ordinal  # noqa: E402
from bingo_hall.store import EventLog, NewEvent, make_engine  # noqa: E402
from bingo_hall.store.projections import PROJECTORS, create_projection_tables  # noqa: E402
from card_generator.sampler import sample_card  # noqa: E402
from support.hall import profile  # noqa: E402


def game_commands(rng: random.Random, sold: int = 300) -> tuple[list[c.Command], int]:
    """Commands of a session with one whole game: sale, draw, line and bingo claims."""
    rules = profile("1979")
    grids = [sample_card(rng) for _ in range(sold)]
    commands: list[c.Command] = [
        c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"),
        c.OpenSession(
            machine_id="EXT-1",
            machine_homologation="CNJ-EXT-0001",
            machine_kind="pneumatic",
            profile=rules,
        ),
        c.RecordEquipmentCheck(ok=True),
        c.ChangeBallSet(ball_set_id="JB-1", reason="servicio"),
        c.LoadBalls(),
        c.RegisterSeries(series_id="A1", face_value=1, size=sold),
        c.AnnounceSeries(series=("A1",)),
        c.StartSale(),
        *[c.RecordSale(series_id="A1", first=k, last=k + 5) for k in range(1, sold, 6)],
        c.CloseSale(),
        c.AnnouncePrizes(),
        c.StartDraw(),
    ]
    calls = rng.sample(range(1, 91), 90)
    cards = [Card(g) for g in grids]
    line_at = [min(completion_ordinal(r, calls) for r in card.rows) for card in cards]
    bingo_at = [completion_ordinal(card.numbers, calls) for card in cards]
    first_line, first_bingo = min(line_at), min(bingo_at)
    for ordinal, number in enumerate(calls, start=1):
        commands.append(c.DrawBall(number=number))
        winners = [("line", i) for i, a in enumerate(line_at) if a == ordinal == first_line]
        winners += [("bingo", i) for i, a in enumerate(bingo_at) if a == ordinal]
        for kind, i in winners:
            commands.append(
                c.CallClaim(kind=kind, series_id="A1", card_number=i + 1, grid=grids[i])
            )
        if winners:
            commands += [c.VerifyClaims(), c.GiveOrder()]
        if ordinal == first_bingo:
            break
    return commands, len(commands)


def run_engine(commands: list[c.Command]) -> list:
    state, now, log = HallState(), datetime(2026, 1, 1, tzinfo=UTC), []
    for command in commands:
        now += timedelta(seconds=10)
        for event in decide(state, command, now):
            state = evolve(state, event, now)
            log.append((event, now))
    return log


def run_replay(log: list) -> None:
    state = HallState()
    for event, time_ in log:
        state = evolve(state, event, time_)


def bench_engine(games: int, repeats: int = 5) -> None:
    rng = random.Random(7)
    sessions = [game_commands(rng) for _ in range(games)]
    total = sum(n for _, n in sessions)
    logs = [run_engine(cmds) for cmds, _ in sessions]
    events = sum(len(log) for log in logs)
    engine_rates, replay_rates = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for cmds, _ in sessions:
            run_engine(cmds)
        engine_rates.append(total / (time.perf_counter() - start))
        start = time.perf_counter()
        for log in logs:
            run_replay(log)
        replay_rates.append(events / (time.perf_counter() - start))
    engine, replay = statistics.median(engine_rates), statistics.median(replay_rates)
    print(f"engine: {games} games, {total} commands, {events} events, {repeats} runs")
    print(f"  decide+evolve   median {engine:>10,.0f} commands/s")
    print(f"  evolve (replay) median {replay:>10,.0f} events/s   (baseline)")
    print(f"  ratio decide+evolve / replay: {engine / replay:.2f}")


def bench_append(url: str, label: str, count: int, repeats: int = 3) -> None:
    engine = make_engine(url)
    create_projection_tables(engine)
    log = EventLog(engine, projectors=PROJECTORS)
    baseline_table = sqlalchemy.Table(
        "bench_plain",
        sqlalchemy.MetaData(),
        sqlalchemy.Column("id", sqlalchemy.Integer, primary_key=True),
        sqlalchemy.Column("payload", sqlalchemy.Text),
    )
    baseline_table.create(engine, checkfirst=True)
    payload = {"ordinal": 1, "number": 37, "source": "certified_random"}
    chained, plain = [], []
    for run in range(repeats):
        hall = f"bench-{run}-{time.time_ns()}"
        start = time.perf_counter()
        for _ in range(count):
            log.append(hall, [NewEvent(1, 1, "ball_drawn_bench", payload, datetime.now(UTC), "b")])
        chained.append(count / (time.perf_counter() - start))
        start = time.perf_counter()
        for _ in range(count):
            with engine.begin() as conn:
                conn.execute(baseline_table.insert().values(payload='{"ordinal":1}'))
        plain.append(count / (time.perf_counter() - start))
    engine.dispose()
    c_med, p_med = statistics.median(chained), statistics.median(plain)
    print(f"append ({label}): {count} single-event transactions x {repeats} runs")
    print(f"  EventLog.append  median {c_med:>8,.0f} events/s")
    print(f"  bare INSERT      median {p_med:>8,.0f} rows/s   (baseline)")
    print(f"  ratio EventLog / bare insert: {c_med / p_med:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--pg", help="PostgreSQL URL of an empty scratch database")
    args = parser.parse_args()
    bench_engine(args.games)
    with tempfile.TemporaryDirectory() as folder:
        bench_append(
            f"sqlite:///{folder}/bench.sqlite", "SQLite WAL, synchronous=FULL", args.events
        )
    if args.pg:
        bench_append(args.pg, "PostgreSQL", args.events)


if __name__ == "__main__":
    main()
