"""Replaying the log rebuilds exactly the same state and the same projections (both stores)."""

from __future__ import annotations

import pytest

from bingo_hall.acta import build_acta
from bingo_hall.domain import Phase
from bingo_hall.hub.service import rebuild_state
from bingo_hall.store.projections import rebuild_projections, snapshot
from support.demo import HALL, open_log, play_session


@pytest.mark.parametrize("rules", ["1979", "1977"])
def test_replay_rebuilds_state_and_projections_exactly(store_url, rules):
    log = open_log(store_url)
    try:
        service = play_session(log, rules)
        assert service.state.phase is Phase.SESSION_CLOSED
        replayed, seq = rebuild_state(log, HALL)
        assert seq == service.seq
        assert replayed == service.state

        live = snapshot(log.engine, HALL)
        rebuild_projections(log, HALL)
        assert snapshot(log.engine, HALL) == live

        balls = [e for e in log.iter_all(HALL) if e.type == "ball_drawn"]
        assert len(live["view_ball"]) == len(balls) > 0
        games = {row[1]: row for row in live["view_game"]}
        assert [g[3] for g in games.values()] == ["finished", "finished", "voided", "finished"]
        assert log.verify_chain(HALL).ok
    finally:
        log.engine.dispose()


def test_a_second_session_continues_the_same_hall(store_url):
    log = open_log(store_url)
    try:
        first = play_session(log)
        second = play_session(log)
        assert second.state.session_id == first.state.session_id + 1 == 2
        assert second.state.games_started == 8
        acta = build_acta(HALL, log.iter_all(HALL), log.verify_chain(HALL), session_id=2)
        assert [g["game_id"] for g in acta["session"]["games"]] == [5, 6, 7, 8]
        # The series continue where the first session left them.
        first_game = acta["session"]["games"][0]
        assert all(s["first_available"] > 1 for s in first_game["series"])
    finally:
        log.engine.dispose()


def test_a_second_writer_on_the_same_hall_cannot_decide_on_a_stale_state(store_url):
    """The second writer's command is decided again on the state the log gives once caught
    up: here the same ball set, now refused, and nothing written."""
    from bingo_hall.domain import commands as c
    from bingo_hall.domain.errors import RuleError
    from bingo_hall.hub.service import HallService

    log = open_log(store_url)
    try:
        first, second = HallService(log, HALL), HallService(log, HALL)
        first.execute(c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"))
        head = log.head(HALL)
        with pytest.raises(RuleError, match="JB-1 is already registered"):
            second.execute(c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"))
        assert log.head(HALL) == head
        assert second.state == first.state and second.seq == head[0]
        second.execute(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
        assert log.head(HALL)[0] == 2
    finally:
        log.engine.dispose()


def test_a_demo_killed_after_storing_a_series_cards_registers_those_cards(store_url):
    """The demo stores a series' cards, then registers the series: killed between the two,
    the cards are stored and no event names them. Carried on, it registers the cards stored,
    under their commitment, instead of new cards the store would refuse under the same id."""
    from decimal import Decimal

    from bingo_hall.store.cards import CardStore
    from card_generator.series import generate_series

    log = open_log(store_url)
    try:
        stored = CardStore(log.engine).import_series(
            generate_series("A1", 300, Decimal("1.50"), seed=b"killed before registering")
        )
        play_session(log)
        registered = [e.payload for e in log.iter_all(HALL) if e.type == "series_registered"]
        assert registered[0]["series_id"] == "A1" and registered[0]["commitment"] == stored
        assert log.verify_chain(HALL).ok
    finally:
        log.engine.dispose()
