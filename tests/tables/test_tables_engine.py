"""The table as a rules engine: phases, coups, void coups, zero choices, last coups, limit
changes, colour chips, and replay of its events."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import NOW, Table, default_choice, request, table

from bingo_hall.domain.errors import PhaseError, RefusalOnRecord, RuleError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.decide import decide
from bingo_hall.tables.evolve import replay
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import Role, VoidReason, ZeroChoice
from bingo_hall.tables.settlement import BetStatus
from bingo_hall.tables.state import TableState

P = TablePhase


def french(profile: str = "1979", minimum: str = "1") -> Table:
    t = table(profile, "french-roulette")
    return Table(t, default_choice(t, minimum))


def settled(events) -> e.CoupSettled:
    return next(ev for ev in events if isinstance(ev, e.CoupSettled))


def test_a_coup_runs_bets_open_no_more_bets_outcome_settlement_payment():
    table_ = french()
    assert table_.state.phase is P.IDLE
    table_.do(c.OpenBets())
    assert (table_.state.phase, table_.state.coup) == (P.BETTING, 1)
    table_.do(c.PlaceBet(bet=request("s", "straight", (17,))))
    table_.do(c.PlaceBet(bet=request("r", "red")))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    assert table_.state.phase is P.NO_MORE_BETS
    table_.do(c.RecordOutcome(outcome="17"))
    assert (table_.state.phase, table_.state.outcome) == (P.OUTCOME, "17")
    (ev,) = table_.do(c.Settle())
    assert table_.state.phase is P.SETTLED
    assert ev.settlement.collected == ("r",)
    assert [(p.bet, p.amount) for p in ev.settlement.payment_order] == [("s", 360)]
    (paid,) = table_.do(c.PayCoup())
    assert paid.carried == ()
    assert (table_.state.phase, table_.state.bets, table_.state.previous_outcome) == (
        P.IDLE,
        {},
        "17",
    )


@pytest.mark.parametrize(
    ("command", "phase"),
    [
        (c.PlaceBet(bet=request("s", "straight", (1,))), P.IDLE),
        (c.CallNoMoreBets(), P.IDLE),
        (c.RecordOutcome(outcome="3"), P.IDLE),
        (c.Settle(), P.IDLE),
        (
            c.OpenTable(
                table_id="T",
                table=table("1979", "boule"),
                limits=default_choice(table("1979", "boule")),
            ),
            P.IDLE,
        ),
    ],
)
def test_a_command_outside_its_phases_is_refused_and_names_what_is_allowed(command, phase):
    table_ = french()
    with pytest.raises(PhaseError) as error:
        decide(table_.state, command, NOW)
    assert f"not allowed in phase {phase.value}" in error.value.message
    assert "open_bets" in error.value.message


def test_a_bet_after_no_more_bets_is_returned_and_recorded():
    table_ = french()
    table_.do(c.OpenBets())
    table_.spin()
    table_.do(c.CallNoMoreBets())
    (ev,) = table_.do(c.PlaceBet(bet=request("late", "red")))
    assert isinstance(ev, e.LateBetReturned) and ev.request.id == "late"
    assert table_.state.bets == {}
    with pytest.raises(PhaseError):
        table_.do(c.WithdrawBet(bet_id="late"))


def test_bets_can_be_withdrawn_while_betting_is_open_but_not_from_prison():
    table_ = french()
    table_.coup("0", request("r", "red"))
    assert table_.state.bets["r"].prison == 1
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("s", "straight", (5,))))
    table_.do(c.WithdrawBet(bet_id="s"))
    assert list(table_.state.bets) == ["r"]
    with pytest.raises(RuleError, match="bet r is in prison and cannot be withdrawn"):
        table_.do(c.WithdrawBet(bet_id="r"))
    with pytest.raises(RuleError, match="already on the layout"):
        table_.do(c.PlaceBet(bet=request("r", "black")))
    with pytest.raises(RuleError, match="goes to prison only on a zero"):
        table_.do(c.PlaceBet(bet=request("p", "black", prison=1)))


def test_an_imprisoned_bet_is_freed_on_the_next_coup():
    table_ = french()
    table_.coup("0", request("r", "red"))
    events = table_.coup("3")
    (result,) = settled(events).settlement.results
    assert (result.status, result.returns) == (BetStatus.RETURNED, 10)
    assert table_.state.bets == {}


def test_zero_choices_are_declared_after_the_outcome_and_forced_ones_refused():
    table_ = french(minimum="10")
    table_.coup("0", request("r", "red"), request("b", "black"))
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("e", "even")))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="0"))
    with pytest.raises(RuleError, match="below the table minimum, so it stays in prison"):
        table_.do(c.ChooseZeroOption(bet_id="r", choice=ZeroChoice.HALF, declared_by="ana"))
    table_.do(c.ChooseZeroOption(bet_id="e", choice=ZeroChoice.HALF, declared_by="eva"))
    with pytest.raises(RuleError, match="there is no bet 'x'"):
        table_.do(c.ChooseZeroOption(bet_id="x", choice=ZeroChoice.HALF, declared_by="eva"))
    statuses = {
        r.id: (r.status, r.returns, r.carried)
        for r in settled(table_.do(c.Settle())).settlement.results
    }
    assert statuses == {
        "r": (BetStatus.PRISON, 0, 5),
        "b": (BetStatus.PRISON, 0, 5),
        "e": (BetStatus.HALF_BACK, 5, 0),
    }
    table_.do(c.PayCoup())
    assert {k: b.prison for k, b in table_.state.bets.items()} == {"r": 2, "b": 2}


def test_no_choice_on_a_number_and_none_at_american_roulette():
    table_ = french()
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("r", "red")))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="4"))
    with pytest.raises(RuleError, match="not a zero: there is nothing to choose"):
        table_.do(c.ChooseZeroOption(bet_id="r", choice=ZeroChoice.HALF, declared_by="ana"))
    american = Table(table("1979", "american-roulette"))
    american.do(c.OpenBets())
    american.do(c.PlaceBet(bet=request("r", "red")))
    american.spin()
    american.do(c.CallNoMoreBets())
    american.do(c.RecordOutcome(outcome="0"))
    with pytest.raises(RuleError, match="only even chances at French roulette"):
        american.do(c.ChooseZeroOption(bet_id="r", choice=ZeroChoice.HALF, declared_by="a"))


# --- void coups -------------------------------------------------------------------------------


def void(reason: str, role: str, by: str = "jefe", no_head: bool = False) -> c.DeclareVoid:
    return c.DeclareVoid(
        reason=VoidReason(reason), declared_by=by, role=Role(role), no_head_present=no_head
    )


def test_a_void_coup_settles_nothing_and_keeps_every_bet_and_its_prison_count():
    table_ = french()
    table_.coup("0", request("r", "red"))
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("s", "straight", (7,))))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    before = table_.state.bets
    (ev,) = table_.do(void("ball_left_wheel", "table_head"))
    assert (ev.coup, ev.previous_outcome, ev.bets_open) == (1 + 1, "0", False)
    # 1979: the ball is relaunched on the same bets (spec §12 Q17)
    assert table_.state.phase is P.NO_MORE_BETS and table_.state.bets == before
    assert table_.state.coup == 2
    (relaunched,) = table_.spin()  # by the croupier who launched it (N79 L232)
    assert (relaunched.spun_by, relaunched.relaunch) == ("luis", True)
    table_.do(c.RecordOutcome(outcome="7"))
    results = {r.id: r.status for r in settled(table_.do(c.Settle())).settlement.results}
    assert results == {"r": BetStatus.RETURNED, "s": BetStatus.WON}  # 7 is red: freed


@pytest.mark.parametrize(
    ("profile", "reason", "role", "problem"),
    [
        ("1979", "ball_left_wheel", "croupier", "declared by: table_head; not by the croupier"),
        ("1979", "ball_did_not_drop", "table_head", "no void coup for ball_did_not_drop"),
        ("1977", "ball_left_wheel", "croupier", "no void coup for ball_left_wheel"),
        ("1977", "object_in_wheel", "table_head", "declared by: croupier"),
        ("asturias", "ball_did_not_drop", "table_head", None),
        ("basque", "defective_launch", "table_head", None),
        ("basque", "defective_launch", "inspector", None),
        (
            "basque",
            "defective_launch",
            "croupier",
            "the croupier declares a void coup only when no table_head or inspector is at the "
            "table: say that none is",
        ),
        ("basque", "pointer_on_pin", "croupier", "no void coup for pointer_on_pin"),
    ],
)
def test_void_triggers_and_who_declares_them_differ_by_profile(profile, reason, role, problem):
    table_ = french(profile)
    table_.do(c.OpenBets())
    if problem is None:
        (voided,) = table_.do(void(reason, role))
        assert not voided.no_head_present
    else:
        before = table_.state
        with pytest.raises(RuleError, match=problem):
            table_.do(void(reason, role))
        assert table_.state == before


def test_a_basque_croupier_declares_a_void_only_saying_no_head_is_there():
    """EUS L320: «mahaiburuak, ikuskatzaileak, edo halakorik ez balego, croupierrak berak».
    The croupier's void stands when he says neither head nor inspector is at the table, and
    the event keeps that he said so."""
    table_ = french("basque")
    table_.do(c.OpenBets())
    (voided,) = table_.do(void("defective_launch", "croupier", by="crupier", no_head=True))
    assert (voided.declared_by, voided.role, voided.no_head_present) == (
        "crupier",
        Role.CROUPIER,
        True,
    )


@pytest.mark.parametrize(("profile", "role"), [("basque", "table_head"), ("1977", "croupier")])
def test_no_head_present_is_refused_from_a_role_that_declares_a_void_as_such(profile, role):
    table_ = french(profile)
    table_.do(c.OpenBets())
    before = table_.state
    with pytest.raises(RuleError, match=f"under .* the {role} declares it as such"):
        table_.do(void("object_in_wheel", role, no_head=True))
    assert table_.state == before


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias", "basque"])
def test_at_boule_the_head_of_the_game_announces_the_bets_not_the_croupier(profile):
    """«El jefe de la partida anuncia "hagan sus apuestas"» (N79 L466, N77 L748-750, EUS
    L674); at roulette the croupier does (N79 L224)."""
    boule = Table(table(profile, "boule"))
    before = boule.state
    # under EUS the head of the game is its head or its inspector (L650, L674)
    heads = "table_head, inspector" if profile == "basque" else "table_head"
    with pytest.raises(RuleError, match=f"announced by: {heads}; not by the croupier"):
        boule.do(c.OpenBets(role=Role.CROUPIER))
    assert boule.state == before
    (opened,) = boule.do(c.OpenBets(role=Role.TABLE_HEAD))
    assert isinstance(opened, e.BetsOpened)
    roulette = french(profile)
    with pytest.raises(RuleError, match="announced by: croupier; not by the table_head"):
        roulette.do(c.OpenBets(role=Role.TABLE_HEAD))


def test_basque_bets_may_be_changed_after_a_void_coup():
    table_ = french("basque")
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("s", "straight", (7,))))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    (ev,) = table_.do(void("object_in_wheel", "table_head"))
    assert ev.bets_open and table_.state.phase is P.BETTING  # «alda ditzakezue» (EUS L320)
    table_.do(c.WithdrawBet(bet_id="s"))


def test_the_wheel_of_fortune_voids_a_spin_of_fewer_than_four_revolutions():
    t = table("wof-003", "wheel-of-fortune")
    wheel = Table(t)
    events = wheel.coup("20", request("w", "segment", ("20",)), revolutions=3)
    (ev,) = events[-1:]
    assert isinstance(ev, e.CoupVoided)
    assert (ev.reason, ev.role, ev.revolutions, ev.bets_open) == (
        VoidReason.TOO_FEW_REVOLUTIONS,
        None,
        3,
        True,
    )
    assert wheel.state.phase is P.BETTING and "w" in wheel.state.bets
    wheel.spin()
    wheel.do(c.CallNoMoreBets())
    with pytest.raises(RuleError, match="record the wheel's complete revolutions"):
        wheel.do(c.RecordOutcome(outcome="20"))
    wheel.do(c.RecordOutcome(outcome="20", revolutions=4))
    (result,) = settled(wheel.do(c.Settle())).settlement.results
    assert (result.status, result.returns) == (BetStatus.WON, 210)
    wheel.do(c.PayCoup())
    wheel.do(c.OpenBets())
    wheel.do(void("pointer_on_pin", "croupier"))
    with pytest.raises(RuleError, match="declared by: croupier, inspector"):
        wheel.do(void("obstruction", "table_head"))


def test_the_basque_wheel_of_fortune_has_no_revolution_rule():
    wheel = Table(table("basque", "wheel-of-fortune"))
    events = wheel.coup("joker", request("j", "segment", ("joker",), "2"))
    (result,) = settled(events).settlement.results
    assert result.returns == 92


# --- session: last coups, closing, limits ---------------------------------------------------


def test_1979_the_last_coup_is_marked_and_a_zero_on_it_refunds_the_half():
    table_ = french()
    table_.do(c.AnnounceLastCoups())
    with pytest.raises(RuleError, match="already been announced"):
        table_.do(c.AnnounceLastCoups())
    events = table_.coup("0", request("r", "red"))
    assert next(ev for ev in events if isinstance(ev, e.CoupSettled)).settlement.last_coup
    (result,) = settled(events).settlement.results
    assert (result.status, result.returns, result.forced) == (BetStatus.HALF_BACK, 5, "last_coup")
    with pytest.raises(RuleError, match="announced last coup has been played"):
        table_.do(c.OpenBets())
    (closed,) = table_.do(c.CloseTable(seal="precinto 0042"))
    assert (closed.coups, table_.state.phase) == (1, P.CLOSED)


def test_basque_roulette_announces_the_last_three_balls_before_closing():
    table_ = french("basque")
    table_.coup("5")
    with pytest.raises(RuleError, match="announce the last 3 balls of the session"):
        table_.do(c.CloseTable(seal="x"))
    table_.do(c.OpenBets())
    table_.do(c.AnnounceLastCoups())  # while bets are open: this coup is the first of three
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="8"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    with pytest.raises(RuleError, match="2 of the announced last coups are still to play"):
        table_.do(c.CloseTable(seal="x"))
    table_.coup("9")
    assert not table_.state.last_coup
    table_.do(c.OpenBets())
    assert table_.state.last_coup
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="1"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    table_.do(c.CloseTable(seal="x"))


def test_a_table_with_bets_in_prison_cannot_close():
    table_ = french()
    table_.coup("0", request("r", "red"))
    with pytest.raises(RuleError, match=r"1 bets are in prison \(r\)"):
        table_.do(c.CloseTable(seal="x"))


def test_limits_cannot_change_during_a_1979_or_asturias_session_and_each_attempt_is_recorded():
    """Spec §7 item 7: under ES-1979/AST-2011 any refusal of an attempted in-session change
    is logged, whatever the table is doing; the table keeps its limits."""
    for profile in ("1979", "asturias"):
        t = table(profile, "french-roulette")
        table_ = Table(t)
        for phase in (P.IDLE, P.BETTING):
            if phase is P.BETTING:
                table_.do(c.OpenBets())
            before = table_.state
            asked = default_choice(t, "2")
            with pytest.raises(RefusalOnRecord, match="may not change during the session") as no:
                decide(before, c.ChangeLimits(limits=asked, requested_by="director"), NOW)
            (refused,) = no.value.events
            assert refused == e.LimitsChangeRefused(
                choice=asked,
                current=before.choice,
                requested_by="director",
                phase=phase.value,
                reason=no.value.message,
            )
            assert replay([refused], before) == before  # on the record, nothing changed
            again = e.event_from_payload(refused.type, json.loads(json.dumps(refused.payload())))
            assert again == refused


def test_a_malformed_change_under_frozen_limits_is_refused_as_such_and_not_recorded():
    t = table("1979", "french-roulette")
    table_ = Table(t)
    bad = default_choice(t, "1").model_copy(update={"tier": 7})
    with pytest.raises(RuleError) as error:
        decide(table_.state, c.ChangeLimits(limits=bad, requested_by="director"), NOW)
    assert not isinstance(error.value, RefusalOnRecord)


def test_a_closed_table_has_no_session_limits_to_change():
    t = table("1979", "french-roulette")
    table_ = Table(t)
    table_.do(c.CloseTable(seal="S-1"))
    with pytest.raises(PhaseError):
        decide(table_.state, c.ChangeLimits(limits=default_choice(t), requested_by="d"), NOW)


def test_1977_changes_a_minimum_with_the_authorisation_reference():
    t = table("1977", "french-roulette")
    table_ = Table(t)
    with pytest.raises(RuleError, match="needs the authority's authorisation"):
        table_.do(c.ChangeLimits(limits=default_choice(t, "5"), requested_by="director"))
    table_.do(
        c.ChangeLimits(limits=default_choice(t, "5"), requested_by="director", authorisation="R-1")
    )
    assert table_.state.limits.of("straight").maximum == 150


def test_1977_only_raises_a_minimum_and_its_maxima_in_proportion():
    """N77 L277-291: «la elevación de las apuestas mínimas», the maximum raised in proportion."""
    for game in ("french-roulette", "american-roulette"):
        t = table("1977", game)
        table_ = Table(t, default_choice(t, "2"))
        before = table_.state
        for lower in ("2", "1"):
            with pytest.raises(RuleError, match="may only be raised"):
                table_.do(
                    c.ChangeLimits(
                        limits=default_choice(t, lower), requested_by="director", authorisation="R"
                    )
                )
        assert table_.state == before
        raised = default_choice(t, "4")
        table_.do(c.ChangeLimits(limits=raised, requested_by="director", authorisation="R"))
        for group, limit in before.limits.groups.items():
            assert table_.state.limits.groups[group].maximum == 2 * limit.maximum


def test_basque_new_limits_apply_after_the_last_three_balls_at_the_old_ones():
    t = table("basque", "french-roulette")
    table_ = Table(t, default_choice(t, "1", tier=30))
    new = default_choice(t, "5", tier=30)
    table_.do(c.ChangeLimits(limits=new, requested_by="director"))
    with pytest.raises(RuleError, match="already announced"):
        table_.do(c.ChangeLimits(limits=new, requested_by="director"))
    table_.coup("1", request("a", "straight", (1,), "1"))
    table_.do(c.OpenBets())
    table_.do(void("object_in_wheel", "table_head"))  # a void coup is not a ball
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="2"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    assert table_.state.limits.table_minimum == 1
    events = table_.coup("3", request("c", "straight", (3,), "1"))
    assert isinstance(events[-1], e.LimitsChanged)
    assert (events[-1].previous, events[-1].choice) == (default_choice(t, "1", tier=30), new)
    assert table_.state.limits.table_minimum == 5 and table_.state.pending_limits is None
    with pytest.raises(RuleError, match="below the minimum 5"):
        table_.coup("4", request("d", "straight", (4,), "1"))


def test_basque_limit_changes_never_go_below_the_authorised_minimum():
    """EUS L290: the licence sets the minimum; L300-308 let the director change the limit
    during the session. A table opened at 5 may be raised to 10 and brought back to 5, never
    taken below 5."""
    t = table("basque", "french-roulette")
    table_ = Table(t, default_choice(t, "5"))
    for below in ("1", "4.99"):
        before = table_.state
        with pytest.raises(RuleError, match=f"below the authorised 5 .*EUS L290.*not to {below}"):
            table_.do(c.ChangeLimits(limits=default_choice(t, below), requested_by="director"))
        assert table_.state == before
    table_.do(c.ChangeLimits(limits=default_choice(t, "10"), requested_by="director"))
    for outcome in ("7", "8", "9"):
        table_.coup(outcome)
    assert table_.state.limits.table_minimum == 10
    with pytest.raises(RuleError, match="below the authorised 5"):
        table_.do(c.ChangeLimits(limits=default_choice(t, "4"), requested_by="director"))
    table_.do(c.ChangeLimits(limits=default_choice(t, "5"), requested_by="director"))
    assert table_.state.pending_limits.limits.table_minimum == 5


@settings(max_examples=60)
@given(authorised=st.integers(1, 10_000), asked=st.integers(1, 10_000))
def test_a_basque_change_is_announced_exactly_when_it_keeps_the_authorised_minimum(
    authorised, asked
):
    t = table("basque", "french-roulette")
    cents = Decimal("0.01")
    table_ = Table(t, default_choice(t, str(authorised * cents)))
    change = c.ChangeLimits(limits=default_choice(t, str(asked * cents)), requested_by="d")
    if asked >= authorised:
        (announced,) = decide(table_.state, change, NOW)
        assert announced.limits.table_minimum == asked * cents
    else:
        with pytest.raises(RuleError, match="below the authorised"):
            decide(table_.state, change, NOW)


def test_colour_chips_are_issued_to_a_player_and_value_his_bets():
    t = table("1979", "american-roulette")
    table_ = Table(t, default_choice(t, "1"))
    table_.do(c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal("2.5")))
    (issued,) = table_.do(c.IssueColourChips(colour="blue", player="eva", chips=20))
    assert (issued.unit_value, issued.chosen) == (1, False)
    with pytest.raises(RuleError, match="colour green is already ana's"):
        table_.do(c.IssueColourChips(colour="green", player="eva", chips=20))
    green = request("g", "straight", (17,), amount=None, colour="green", chips=4)
    events = table_.coup("17", green)
    (result,) = settled(events).settlement.results
    assert (result.stake, result.returns, result.player) == (10, 360, "ana")
    table_.do(c.OpenBets())
    with pytest.raises(RuleError, match="colour red was not issued"):
        table_.do(c.PlaceBet(bet=request("x", "red", amount=None, colour="red", chips=1)))
    french_table = french()
    with pytest.raises(RuleError, match="has no colour chips"):
        french_table.do(c.IssueColourChips(colour="green", player="ana", chips=20))


def american(minimum: str = "1") -> Table:
    t = table("1979", "american-roulette")
    return Table(t, default_choice(t, minimum))


def test_a_colours_value_cannot_change_while_bets_in_it_are_on_the_layout():
    """§3.3 (N79 L246, L270): the value is fixed when the player receives the stack, and every
    bet in the colour is valued at it: the marker may not show 2 beside chips bet at 1."""
    table_ = american()
    table_.do(c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal("1")))
    table_.do(c.OpenBets())
    green = request("g1", "straight", (17,), amount=None, colour="green", chips=10)
    table_.do(c.PlaceBet(bet=green))
    before = table_.state
    with pytest.raises(RuleError, match=r"colour green: its chips are worth 1 .*\(g1\).*become 2"):
        table_.do(
            c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal("2"))
        )
    assert table_.state == before
    table_.do(
        c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal("1.00"))
    )
    table_.do(
        c.IssueColourChips(colour="green", player="ana", chips=20)
    )  # not chosen: the minimum, 1
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="17"))
    (result,) = table_.do(c.Settle())[0].settlement.results
    assert result.returns == 360
    table_.do(c.PayCoup())
    table_.do(c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal("2")))
    assert table_.state.colours["green"].unit_value == 2


@settings(max_examples=60)
@given(value=st.integers(100, 2000), new=st.integers(100, 2000))
def test_a_colour_in_play_is_issued_again_only_at_its_value(value, new):
    cents = Decimal("0.01")
    table_ = american()
    table_.do(c.IssueColourChips(colour="blue", player="eva", chips=20, unit_value=value * cents))
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("b", "red", amount=None, colour="blue", chips=2)))
    again = c.IssueColourChips(colour="blue", player="eva", chips=20, unit_value=new * cents)
    if new == value:
        assert decide(table_.state, again, NOW)[0].unit_value == value * cents
    else:
        with pytest.raises(RuleError, match="colour blue: its chips are worth"):
            decide(table_.state, again, NOW)


def test_one_players_bets_on_one_position_are_capped_together():
    table_ = french()
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("a", "straight", (7,), "20", player="ana")))
    table_.do(c.PlaceBet(bet=request("b", "straight", (7,), "20", player="eva")))
    with pytest.raises(RuleError, match="player ana has 40 on straight 7"):
        table_.do(c.PlaceBet(bet=request("c", "straight", (7,), "20", player="ana")))


def test_a_bet_in_prison_takes_its_halved_value_of_the_players_maximum():
    """§2.5, §2.6: 540 on red (1979, minimum 1: the maximum) meets two zeros and is worth 270
    in prison; its player may put a fresh 270 on red beside it, not 270.01."""
    table_ = french()
    table_.coup("0", request("r", "red", amount="540", player="ana"))
    table_.coup("0")
    assert table_.state.bets["r"].value == 270
    table_.do(c.OpenBets())
    before = table_.state
    with pytest.raises(RuleError, match=r"player ana has 540\.01 on even_chance .*\(r in prison"):
        table_.do(c.PlaceBet(bet=request("over", "red", amount="270.01", player="ana")))
    assert table_.state == before
    table_.do(c.PlaceBet(bet=request("fresh", "red", amount="270", player="ana")))
    assert set(table_.state.bets) == {"r", "fresh"}


# --- replay -------------------------------------------------------------------------------


def test_replaying_the_events_rebuilds_the_state_and_payloads_round_trip():
    table_ = french("basque")
    table_.coup("0", request("r", "red"), request("v", "voisins", amount="9"))
    table_.do(
        c.ChangeLimits(
            limits=default_choice(table("basque", "french-roulette"), "2"), requested_by="d"
        )
    )
    table_.do(c.OpenBets())
    table_.do(c.PlaceBet(bet=request("s", "split", (17, 20))))
    table_.do(void("defective_launch", "inspector"))
    table_.spin()
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="0"))
    table_.do(c.ChooseZeroOption(bet_id="r", choice=ZeroChoice.HALF, declared_by="ana"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    assert replay(table_.events) == table_.state
    stored = [(ev.type, json.loads(json.dumps(ev.payload()))) for ev in table_.events]
    rebuilt = [e.event_from_payload(kind, payload) for kind, payload in stored]
    assert rebuilt == table_.events
    assert replay(rebuilt) == table_.state
    assert len({ev.type for ev in table_.events}) == len({type(ev) for ev in table_.events})
    assert all(kind.startswith("table_") for kind in e.EVENT_TYPES)


def test_a_rejected_command_changes_nothing():
    table_ = french()
    before = table_.state
    with pytest.raises(RuleError):
        decide(
            before,
            c.ChangeLimits(
                limits=default_choice(table("1979", "french-roulette")), requested_by="d"
            ),
            NOW,
        )
    assert table_.state is before
    assert TableState().phase is P.CLOSED
