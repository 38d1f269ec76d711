"""The game as a state machine: phases, sale, claims, window, prizes, voids, ball sets."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from bingo_hall.domain import Phase, PhaseError, RuleError, decide
from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.commands import COMMAND_TYPES
from bingo_hall.domain.events import CameraCheck
from bingo_hall.domain.profiles import VoidReason
from support.hall import CARD, OTHER, READ_RIGHT, Hall, profile

ROW0 = (1, 22, 41, 63, 80)
ROW1 = (13, 34, 52, 74, 85)
ROW2 = (7, 18, 29, 57, 90)
OTHER_ROW0 = (2, 23, 42, 64, 81)
UNSURE = CameraCheck(reading=None, guess=5, confidence=0.4, reason="unsure")


def drawing(name: str = "1979", **changes) -> Hall:
    return Hall(profile(name, **changes)).open_ready().game_drawing()


def test_every_command_in_a_wrong_phase_is_refused_naming_phase_and_allowed_commands():
    hall = Hall(profile("1979"))
    samples = {
        "open_session": hall.opening("drum"),
        "record_equipment_check": c.RecordEquipmentCheck(ok=True),
        "register_ball_set": c.RegisterBallSet(ball_set_id="X", homologation="CNJ-BOLAS-0001"),
        "change_ball_set": c.ChangeBallSet(ball_set_id="X", reason="r"),
        "show_ball_to_camera": c.ShowBallToCamera(ball_set_id="X", number=5, camera=UNSURE),
        "discard_ball_showings": c.DiscardBallShowings(),
        "commission_ball_set": c.CommissionBallSet(ball_set_id="X", showings=READ_RIGHT),
        "load_balls": c.LoadBalls(),
        "register_series": c.RegisterSeries(series_id="Z9", face_value=Decimal(1), size=10),
        "announce_last_game": c.AnnounceLastGame(),
        "close_session": c.CloseSession(),
        "announce_series": c.AnnounceSeries(series=("A1",)),
        "start_sale": c.StartSale(),
        "record_sale": c.RecordSale(series_id="A1", first=1, last=2),
        "close_sale": c.CloseSale(),
        "announce_prizes": c.AnnouncePrizes(),
        "start_draw": c.StartDraw(),
        "draw_ball": c.DrawBall(number=5),
        "hold_ball": c.HoldBall(called=5, camera=UNSURE),
        "resolve_hold": c.ResolveHold(number=5, resolved_by="mesa"),
        "call_claim": c.CallClaim(kind="line", series_id="A1", card_number=1, grid=CARD),
        "verify_claims": c.VerifyClaims(),
        "give_order": c.GiveOrder(),
        "void_game": c.VoidGame(reason=VoidReason.ANNOUNCEMENT_ERROR, note="n"),
        "pay_prize": c.PayPrize(game_id=1, claim_id=1),
        "pay_refund": c.PayRefund(game_id=1, series_id="A1", first=1, last=1),
        "record_player_request": c.RecordPlayerRequest(kind="complaint", text="t"),
        "answer_player_request": c.AnswerPlayerRequest(request_id=1, answer="a"),
    }
    assert set(samples) == set(COMMAND_TYPES)
    # Walk the phases of a game and try every command that is not legal there.
    hall.open_ready()
    checkpoints = [hall.state]
    hall.game_drawing()
    checkpoints.append(hall.state)
    refused = 0
    for state in checkpoints:
        for name, command in samples.items():
            if state.phase in command.legal_in:
                continue
            with pytest.raises(PhaseError) as caught:
                decide(state, command, hall.now)
            message = str(caught.value)
            assert state.phase.value in message and name in message
            assert set(caught.value.allowed) == {
                n for n, cls in COMMAND_TYPES.items() if state.phase in cls.legal_in
            }
            refused += 1
    assert refused > 20


def test_session_walks_through_the_procedure_of_section_5():
    hall = Hall(profile("1979"))
    hall.run(c.RegisterBallSet(ball_set_id="JB-1", homologation="CNJ-BOLAS-0001"))
    hall.run(hall.opening("pneumatic"))
    assert hall.state.phase is Phase.EQUIPMENT_CHECK
    hall.run(c.RecordEquipmentCheck(ok=True))
    assert hall.state.phase is Phase.BALL_LOADING
    with pytest.raises(RuleError, match="no ball set is in service"):
        hall.run(c.LoadBalls())
    hall.run(c.ChangeBallSet(ball_set_id="JB-1", reason="puesta en servicio"))
    hall.run(c.LoadBalls())
    assert hall.state.phase is Phase.SESSION_READY
    hall.run(c.RegisterSeries(series_id="A1", face_value=Decimal("1.50"), size=300))
    hall.game_drawing()
    assert hall.state.phase is Phase.DRAWING
    assert hall.state.ball_sets["JB-1"].games == 1


@pytest.mark.parametrize("reference", ["", "   "])
def test_a_session_opens_only_with_the_machine_models_homologation(reference):
    """S79 L1188: the drawing machine's model must be homologated before play; a machine
    with no reference opens no session, and nothing is recorded."""
    hall = Hall(profile("1979"))
    opening = c.OpenSession(
        machine_id="EXT-1",
        machine_homologation=reference,
        machine_kind="drum",
        profile=hall.rules,
    )
    with pytest.raises(RuleError, match=r"EXT-1 has no homologation reference.*S79 L1188"):
        decide(hall.state, opening, hall.now)
    assert hall.state.phase is Phase.SESSION_CLOSED and hall.state.session_id == 0


def test_failed_equipment_check_closes_the_session():
    hall = Hall(profile("1979"))
    hall.run(hall.opening("drum"))
    events = hall.run(c.RecordEquipmentCheck(ok=False, notes="monitor 3 sin imagen"))
    assert isinstance(events[-1], e.SessionClosed)
    assert events[-1].reason == "equipment_check_failed"
    assert hall.state.phase is Phase.SESSION_CLOSED


@pytest.mark.parametrize("rules", ["1977", "1979", "basque"])
def test_a_session_whose_balls_cannot_be_loaded_closes_from_ball_loading(rules):
    """No set in service, or none that may be loaded: the session closes from ball loading,
    as a failed equipment check closes it, with no last game to announce (none begins)."""
    hall = Hall(profile(rules))
    hall.run(hall.opening("drum"))
    hall.run(c.RecordEquipmentCheck(ok=True))
    assert hall.state.phase is Phase.BALL_LOADING
    with pytest.raises(RuleError, match="no ball set is in service"):
        hall.run(c.LoadBalls())
    closed = hall.run(c.CloseSession(note="  ningún juego de bolas homologado en la sala "))
    assert [(type(ev), ev.reason, ev.note) for ev in closed] == [
        (e.SessionClosed, "balls_not_loaded", "ningún juego de bolas homologado en la sala")
    ]
    assert hall.state.phase is Phase.SESSION_CLOSED


@pytest.mark.parametrize("rules", ["1977", "1979"])
def test_a_close_at_ball_loading_says_why_the_balls_are_not_loaded(rules):
    """Mid-session, after a set change: a set that could be loaded is not, and the session
    ends only on the staff's stated reason, which the event keeps for the acta."""
    hall = Hall(profile(rules)).open_ready()
    hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0002"))
    hall.run(c.ChangeBallSet(ball_set_id="JB-2", reason="bola 17 defectuosa"))
    assert hall.state.phase is Phase.BALL_LOADING
    before = hall.state
    for note in ("", "   "):
        with pytest.raises(RuleError, match="with a note saying why the balls are not loaded"):
            hall.run(c.CloseSession(note=note))
        assert hall.state == before
    reason = "los jugadores hallan la bola 40 del juego JB-2 marcada"
    closed = hall.run(c.CloseSession(note=reason))
    assert [(ev.reason, ev.note) for ev in closed] == [("balls_not_loaded", reason)]


class TestSale:
    def test_sales_are_consecutive_and_continue_in_the_next_game(self):
        hall = Hall(profile("1979")).open_ready()
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        hall.run(c.RecordSale(series_id="A1", first=1, last=10))
        with pytest.raises(RuleError, match=r"next card of series A1 is no\. 11"):
            hall.run(c.RecordSale(series_id="A1", first=12, last=20))
        hall.run(c.RecordSale(series_id="A1", first=11, last=40))
        closed = hall.run(c.CloseSale())[0]
        assert isinstance(closed, e.SaleClosed)
        assert [(s.first, s.last) for s in closed.sold] == [(1, 40)]
        assert closed.cards_sold == 40 and closed.takings == Decimal("60.00")
        hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="prueba"))
        announced = hall.run(c.AnnounceSeries(series=("A1",)))[0]
        assert announced.series[0].first_available == 41

    def test_a_range_beyond_the_series_or_an_unannounced_series_is_refused(self):
        hall = Hall(profile("1979")).open_ready((("A1", "1.50", 50), ("B1", "3", 50)))
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        before = hall.state
        with pytest.raises(RuleError, match="card 51 does not exist"):
            hall.run(c.RecordSale(series_id="A1", first=1, last=51))
        with pytest.raises(RuleError, match="not on sale in this game"):
            hall.run(c.RecordSale(series_id="B1", first=1, last=5))
        with pytest.raises(RuleError, match="empty"):
            hall.run(c.RecordSale(series_id="A1", first=1, last=0))
        assert hall.state == before

    def test_a_terminal_names_each_purchase_once_in_a_game(self):
        """The name a terminal gives a purchase finds it again after a lost answer; used
        twice by one machine in a game it would be a second block, and is refused."""
        hall = Hall(profile("basque")).open_ready()
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        buy = {"series_id": "A1", "purchase": "purchase-1"}
        (sold,) = hall.run(c.RecordSale(first=1, last=6, buyer="term-1/ana", **buy))
        assert isinstance(sold, e.SaleRecorded) and sold.purchase == "purchase-1"
        before = hall.state
        with pytest.raises(RuleError, match="terminal term-1 already made purchase purchase-1"):
            hall.run(c.RecordSale(first=7, last=12, buyer="term-1/luis", **buy))
        assert hall.state == before
        hall.run(c.RecordSale(first=7, last=12, buyer="term-2/eva", **buy))
        assert hall.state.game.purchase_of("term-1", "purchase-1").buyer == "term-1/ana"
        assert hall.state.game.purchase_of("term-2", "purchase-1").first == 7
        assert hall.state.game.purchase_of("term-3", "purchase-1") is None

    def test_closing_a_sale_with_nothing_sold_is_refused(self):
        hall = Hall(profile("1979")).open_ready()
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        with pytest.raises(RuleError, match="no card has been sold"):
            hall.run(c.CloseSale())

    def test_announcement_uses_the_profiles_legal_wording_and_prize_percentages(self):
        hall = Hall(profile("1979")).open_ready((("A17", "1.50", 300), ("B3", "3.00", 300)))
        hall.run(c.AnnounceSeries(series=("A17", "B3")))
        hall.run(c.StartSale())
        hall.run(c.RecordSale(series_id="A17", first=1, last=37))
        hall.run(c.RecordSale(series_id="B3", first=1, last=11))
        hall.run(c.CloseSale())
        announced = hall.run(c.AnnouncePrizes())[0]
        assert announced.wording == (
            "Cartones vendidos de la serie A17 del número 1 al 37 "
            "y de la serie B3 del número 1 al 11"
        )
        assert announced.takings == Decimal("88.50")
        assert announced.line_prize == Decimal("8.85")
        assert announced.bingo_prize == Decimal("53.10")

    def test_1977_wording_and_one_series_per_game(self):
        hall = Hall(profile("1977")).open_ready((("A1", "1.00", 300), ("B1", "1.00", 300)))
        with pytest.raises(RuleError, match="allows 1 series per game"):
            hall.run(c.AnnounceSeries(series=("A1", "B1")))
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        hall.run(c.RecordSale(series_id="A1", first=1, last=33))
        hall.run(c.CloseSale())
        announced = hall.run(c.AnnouncePrizes())[0]
        assert announced.wording == "Se han vendido los cartones número 1 a 33 de la serie A1"
        assert announced.line_prize == Decimal("3.30")  # 10 % of 33.00, rounded down

    def test_designated_line_only_where_the_profile_allows_it(self):
        hall = Hall(profile("1979")).open_ready()
        hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.StartSale())
        hall.run(c.RecordSale(series_id="A1", first=1, last=10))
        hall.run(c.CloseSale())
        with pytest.raises(RuleError, match="designated paying line"):
            hall.run(c.AnnouncePrizes(paying_row=1))


class TestDraw:
    def test_balls_are_1_to_90_and_never_repeat(self):
        hall = drawing()
        hall.draw(5)
        with pytest.raises(RuleError, match="already drawn"):
            hall.draw(5)
        with pytest.raises(RuleError, match="1 to 90"):
            hall.draw(91)
        with pytest.raises(RuleError, match="1 to 90"):
            hall.draw(0)
        assert hall.state.game.calls == (5,)


class TestClaims:
    def test_a_false_claim_is_recorded_and_the_draw_resumes(self):
        hall = drawing().draw(*ROW0[:4])
        hall.claim("line", 1)
        assert hall.state.phase is Phase.CLAIM_PAUSED
        verified, resumed = hall.verify()
        assert not verified.valid and verified.reason == "not_complete"
        assert verified.missing == (80,)
        assert isinstance(resumed, e.DrawResumed)
        assert hall.state.phase is Phase.DRAWING
        hall.draw(80)
        hall.claim("line", 1)
        assert hall.verify()[0].valid

    def test_a_claim_on_a_card_not_sold_in_this_game_is_false(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 200)
        verified = hall.verify()[0]
        assert not verified.valid and verified.reason == "card_not_sold"

    def test_simultaneous_line_winners_share_equally_and_residue_is_recorded(self):
        hall = Hall(profile("1979")).open_ready((("A1", "1.00", 300),))
        hall.game_drawing((("A1", 1, 100),))  # takings 100.00 → line 10.00
        hall.draw(*ROW0[:4], *OTHER_ROW0[:4], 80)
        hall.claim("line", 1)
        hall.verify()
        assert hall.state.phase is Phase.ANY_MORE_WINDOW
        with pytest.raises(PhaseError):
            hall.run(c.DrawBall(number=81))
        hall.claim("line", 2, grid=((2, 0, 23, 0, 42, 0, 64, 0, 80), *OTHER[1:]))
        hall.verify()
        hall.claim("line", 3, grid=OTHER)
        hall.verify()
        assert [cl.status for cl in hall.state.game.claims] == ["valid", "valid", "invalid"]
        events = hall.order()
        order, split = events
        assert order.order == "resume"
        assert split.pot == Decimal("10.00") and len(split.winners) == 2
        assert split.share == Decimal("5.00") and split.residue == Decimal("0")
        assert hall.state.phase is Phase.DRAWING

    def test_three_way_split_rounds_down_and_keeps_the_residue(self):
        hall = Hall(profile("1979")).open_ready((("A1", "1.00", 300),))
        hall.game_drawing((("A1", 1, 100),))
        twin = ((1, 0, 22, 0, 41, 0, 63, 0, 80), *OTHER[1:])
        third = (
            (1, 0, 22, 0, 41, 0, 63, 0, 80),
            (0, 14, 0, 31, 0, 53, 0, 75, 86),
            (9, 19, 0, 36, 0, 58, 0, 0, 89),
        )
        hall.draw(*ROW0)
        for number, grid in ((1, CARD), (2, twin), (3, third)):
            hall.claim("line", number, grid=grid)
        hall.verify()
        split = hall.order()[1]
        assert split.share == Decimal("3.33") and split.residue == Decimal("0.01")
        assert split.share * 3 + split.residue == split.pot

    def test_only_the_first_correctly_claimed_line_pays(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.order()
        hall.draw(*OTHER_ROW0)
        hall.claim("line", 2, grid=OTHER)
        verified = hall.verify()[0]
        assert not verified.valid and verified.reason == "line_already_won"

    def test_rights_on_a_play_are_lost_at_the_order(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.order()
        # Same ball, after the order: a second line on another card is out of time, and the
        # draw goes on: the line the order settled does not open the window again.
        hall.claim("line", 2, grid=((2, 0, 22, 0, 42, 0, 64, 0, 81), *OTHER[1:]))
        verified, resumed = hall.verify()
        assert not verified.valid
        assert isinstance(resumed, e.DrawResumed)
        assert hall.state.phase is Phase.DRAWING

    @pytest.mark.parametrize("payable", ["at_verification", "at_game_end"])
    def test_a_false_claim_after_the_order_does_not_pay_the_line_again(self, payable):
        hall = drawing(line_prize_payable=payable).draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.order()
        if payable == "at_verification":
            hall.run(c.PayPrize(game_id=1, claim_id=1))
        hall.claim("bingo", 2, grid=OTHER)  # shouted before the next ball: false
        assert [type(ev) for ev in hall.verify()] == [e.ClaimVerified, e.DrawResumed]
        with pytest.raises(PhaseError):
            hall.order()
        hall.draw(*ROW1, *ROW2)
        hall.claim("bingo", 1)
        hall.verify()
        hall.order()
        splits = [ev for ev, _ in hall.log if isinstance(ev, e.PrizeSplit)]
        assert [(s.kind, s.share) for s in splits] == [
            ("line", Decimal("15.00")),
            ("bingo", Decimal("90.00")),
        ]
        if payable == "at_verification":
            with pytest.raises(RuleError, match="already paid"):
                hall.run(c.PayPrize(game_id=1, claim_id=1))

    def test_bingo_finishes_the_game_and_the_unclaimed_line_goes_to_bingo(self):
        hall = drawing().draw(*ROW0, *ROW1)
        hall.draw(*ROW2)  # both claims of line were never made: bingo at ball 15
        hall.claim("bingo", 1)
        hall.verify()
        events = hall.order()
        kinds = [type(ev) for ev in events]
        assert kinds == [e.OrderGiven, e.LinePrizeUnclaimed, e.PrizeSplit, e.GameFinished]
        assert events[2].pot == Decimal("15.00") + Decimal("90.00")  # line 10 % + bingo 60 %
        assert hall.state.phase is Phase.SESSION_READY and hall.state.game is None

    def test_line_prize_lapses_when_the_profile_says_so(self):
        hall = drawing(unclaimed_line_prize="lapses").draw(*ROW0, *ROW1, *ROW2)
        hall.claim("bingo", 1)
        hall.verify()
        events = hall.order()
        assert events[1].disposition == "lapses"
        assert events[2].pot == Decimal("90.00")

    def test_the_window_lasts_at_least_the_profiles_prudent_time(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        with pytest.raises(RuleError, match="at least 5 s"):
            hall.run(c.GiveOrder(), seconds=1)
        hall.order()

    def test_the_order_waits_for_pending_claims(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.claim("line", 2, grid=OTHER)
        with pytest.raises(RuleError, match="verify them"):
            hall.order()

    def test_a_card_cannot_hold_two_live_claims_of_the_same_kind(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        with pytest.raises(RuleError, match="already has a pending line claim"):
            hall.claim("line", 1)

    def test_an_invalid_master_card_is_refused_with_the_rules_it_breaks(self):
        hall = drawing().draw(1)
        bad = ((1, 2, 3, 4, 5, 6, 0, 0, 0), CARD[1], CARD[2])
        with pytest.raises(RuleError, match=r"R1|R3|R4|C1"):
            hall.claim("line", 1, grid=bad)

    def test_1977_claim_must_come_before_the_next_number(self):
        hall = drawing("1977").draw(*ROW0, 2)
        hall.claim("line", 1)
        verified = hall.verify()[0]
        assert not verified.valid
        assert verified.reason == "last_number_not_on_combination"
        assert verified.completed_at == 5

    def test_1979_claim_until_the_order(self):
        hall = drawing("1979").draw(*ROW0, 2, 3)
        hall.claim("line", 1)
        verified = hall.verify()[0]
        assert verified.valid and verified.rows == (0,)

    def test_1977_designated_line(self):
        hall = Hall(profile("1977")).open_ready().game_drawing(paying_row=2)
        hall.draw(*ROW0)
        hall.claim("line", 1)
        verified = hall.verify()[0]
        assert not verified.valid and verified.reason == "not_designated_row"


class TestVoid:
    def _line_won(self, name: str, **changes) -> Hall:
        hall = drawing(name, **changes).draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.order()
        return hall

    def test_void_refunds_every_card_and_withdraws_prizes_awarded(self):
        hall = self._line_won("1979")
        voided = hall.run(c.VoidGame(reason=VoidReason.ANNOUNCEMENT_ERROR, note="bola 41 mal"))[0]
        assert voided.refund_total == Decimal("150.00")
        assert [(r.first, r.last) for r in voided.refunds] == [(1, 100)]
        assert [(r.claim_id, r.amount, r.paid) for r in voided.restitutions] == [
            (1, Decimal("15.00"), False)
        ]
        assert hall.state.awards == {}
        assert hall.state.phase is Phase.SESSION_READY

    def test_a_paid_line_prize_is_owed_back(self):
        hall = self._line_won("1979", line_prize_payable="at_verification")
        hall.run(c.PayPrize(game_id=1, claim_id=1))
        voided = hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="avería"))[0]
        assert voided.restitutions[0].paid is True

    def test_without_restitution_the_line_prize_stands(self):
        hall = self._line_won("1979", restitution_on_void=False)
        voided = hall.run(c.VoidGame(reason=VoidReason.ANNOUNCEMENT_ERROR, note="x"))[0]
        assert voided.restitutions == ()
        award = hall.state.awards[(1, 1)]
        assert award.payable and award.amount == Decimal("15.00")
        hall.run(c.PayPrize(game_id=1, claim_id=1))

    def test_a_void_reason_the_profile_does_not_name_is_refused(self):
        hall = drawing("1977")
        with pytest.raises(RuleError, match="does not name reglamento_art36_other"):
            hall.run(c.VoidGame(reason=VoidReason.REGLAMENTO_ART36_OTHER, note="x"))

    @pytest.mark.parametrize("profile_id", ["1977", "1979", "basque"])
    def test_no_announcement_error_before_a_number_is_announced(self, profile_id):
        """«error … en el anuncio de un determinado número» (S79 L1222, S77 L2518): with no
        number announced there is none to be wrong, and the refusal changes nothing."""
        hall = drawing(profile_id)
        before = hall.state
        with pytest.raises(RuleError, match="announced no number yet"):
            hall.run(c.VoidGame(reason=VoidReason.ANNOUNCEMENT_ERROR, note="x"))
        assert hall.state == before
        hall.draw(ROW0[0])
        voided = hall.run(c.VoidGame(reason=VoidReason.ANNOUNCEMENT_ERROR, note="bola mal"))[0]
        assert voided.reason is VoidReason.ANNOUNCEMENT_ERROR

    def test_voided_cards_are_never_sold_again(self):
        hall = drawing()
        hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="x"))
        assert hall.state.series["A1"].next_number == 101


class TestPayment:
    def test_line_prize_is_paid_at_the_end_of_the_game_by_default(self):
        hall = drawing().draw(*ROW0)
        hall.claim("line", 1)
        hall.verify()
        hall.order()
        with pytest.raises(RuleError, match="paid at the end of the game"):
            hall.run(c.PayPrize(game_id=1, claim_id=1))
        hall.draw(*OTHER_ROW0, *ROW1, *ROW2)
        hall.claim("bingo", 1)
        hall.verify()
        hall.order()
        hall.run(c.PayPrize(game_id=1, claim_id=1))
        with pytest.raises(RuleError, match="already paid"):
            hall.run(c.PayPrize(game_id=1, claim_id=1))
        hall.run(c.PayPrize(game_id=1, claim_id=2))


class TestSessionRules:
    def test_1977_requires_the_last_game_announcement_before_closing(self):
        hall = Hall(profile("1977")).open_ready()
        with pytest.raises(RuleError, match="last game to be announced"):
            hall.run(c.CloseSession())
        hall.run(c.AnnounceLastGame())
        before = hall.state
        with pytest.raises(RuleError, match="last game was announced aloud and has not been"):
            hall.run(c.CloseSession())  # the game so announced is the session's last: played
        assert hall.state == before
        hall.game_drawing()
        assert hall.state.game.last_game
        hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="x"))
        with pytest.raises(RuleError, match="last game has been played"):
            hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.CloseSession())
        assert hall.state.phase is Phase.SESSION_CLOSED

    def test_pneumatic_machine_refuses_a_game_at_1000_games_until_a_set_change(self):
        hall = Hall(profile("1979", pneumatic_ball_set_game_limit=3)).open_ready()
        for _ in range(3):
            hall.game_drawing(
                (("A1", hall.state.series["A1"].next_number, hall.state.series["A1"].next_number),)
            )
            hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="x"))
        with pytest.raises(RuleError, match="has played 3 games"):
            hall.run(c.AnnounceSeries(series=("A1",)))
        hall.run(c.RegisterBallSet(ball_set_id="JB-2", homologation="CNJ-BOLAS-0001"))
        changed = hall.run(c.ChangeBallSet(ball_set_id="JB-2", reason="1.000 partidas"))[0]
        assert changed.previous == "JB-1" and changed.previous_games == 3
        assert hall.state.phase is Phase.BALL_LOADING
        with pytest.raises(RuleError, match="retired"):
            hall.run(c.ChangeBallSet(ball_set_id="JB-1", reason="vuelta"))
        hall.run(c.LoadBalls())
        hall.run(c.AnnounceSeries(series=("A1",)))

    def test_the_real_limit_is_1000_games_in_1979_and_none_on_a_drum(self):
        assert profile("1979").pneumatic_ball_set_game_limit == 1000
        hall = Hall(profile("1979", pneumatic_ball_set_game_limit=1), machine_kind="drum")
        hall.open_ready()
        for _ in range(2):
            hall.game_drawing(
                (("A1", hall.state.series["A1"].next_number, hall.state.series["A1"].next_number),)
            )
            hall.run(c.VoidGame(reason=VoidReason.EQUIPMENT_BREAKDOWN, note="x"))
        assert hall.state.ball_sets["JB-1"].games == 2

    def test_bad_series_registration_is_refused(self):
        hall = Hall(profile("1979")).open_ready()
        for kwargs, message in [
            ({"series_id": "a17"}, "letter"),
            ({"face_value": Decimal("-1")}, "positive"),
            ({"face_value": Decimal("1.505")}, "two decimals"),
            ({"size": 0}, "size"),
            ({"series_id": "A1"}, "already registered"),
        ]:
            command = {"series_id": "C5", "face_value": Decimal(1), "size": 10, **kwargs}
            with pytest.raises(RuleError, match=message):
                hall.run(c.RegisterSeries(**command))

    def test_a_face_value_in_exponent_notation_is_recorded_in_cents(self):
        """«1E+1» is ten euros: recorded as 10.00, so no amount derived from it (a sale, a
        refund) is written 2E+1, which the pages cannot read as money."""
        hall = Hall(profile("1979")).open_ready()
        (registered,) = hall.run(
            c.RegisterSeries(series_id="C5", face_value=Decimal("1E+1"), size=10)
        )
        assert str(registered.face_value) == "10.00"
        assert registered.payload()["face_value"] == "10.00"


@pytest.mark.parametrize("homologation", ["", "   "])
def test_a_ball_set_without_its_homologation_is_not_registered(homologation):
    """Only homologated balls may be used (S79 L1194): a set is registered with its
    homologation reference, and one without is refused, naming the field."""
    with pytest.raises(ValidationError) as refused:
        c.RegisterBallSet(ball_set_id="JB-9", homologation=homologation)
    assert refused.value.errors()[0]["loc"] == ("homologation",)
    with pytest.raises(ValidationError):
        c.RegisterBallSet(ball_set_id="JB-9")
    registered = Hall(profile("1979")).run(
        c.RegisterBallSet(ball_set_id="JB-9", homologation="CNJ-B-0009")
    )
    assert [(ev.ball_set_id, ev.homologation) for ev in registered] == [("JB-9", "CNJ-B-0009")]
