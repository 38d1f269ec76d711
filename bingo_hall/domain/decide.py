"""decide(state, command, now) -> events: the rules of the game as a pure function.

Nothing here reads a clock or draws a random number: `now` and every drawn ball come in from
the shell. A rejected command raises a RuleError and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal

from bingo_hall.domain import commands as c
from bingo_hall.domain import events as e
from bingo_hall.domain.call_check import camera_verdict
from bingo_hall.domain.cards import Card
from bingo_hall.domain.claims import Verdict, verify_bingo, verify_line
from bingo_hall.domain.commissioning import (
    judge,
    missing_balls,
    require_commissionable,
    require_showable,
    showings_to_judge,
    with_cross_readings,
)
from bingo_hall.domain.errors import RuleError, require_legal_phase
from bingo_hall.domain.money import percentage_of, split_equally
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.profiles import LinePrizePayable, UnclaimedLinePrize, VoidReason
from bingo_hall.domain.refusals import Term
from bingo_hall.domain.series import MAX_FACE_VALUE, MAX_SERIES_SIZE, SERIES_ID_PATTERN
from bingo_hall.domain.state import Claim, Game, HallState
from bingo_hall.registry import registrar

NOT_SOLD = "card_not_sold"

Handler = Callable[[HallState, c.Command, datetime], list[e.Event]]
_HANDLERS: dict[type[c.Command], Handler] = {}


def decide(state: HallState, command: c.Command, now: datetime) -> list[e.Event]:
    """The events a command produces in this state, or a RuleError naming what is wrong."""
    require_legal_phase(command.name, state.phase, command.legal_in, c.commands_allowed_in)
    return _HANDLERS[type(command)](state, command, now)


_handles = registrar(_HANDLERS)


def _game(state: HallState) -> Game:
    assert state.game is not None, "game phases always have a game"
    return state.game


# --- session -------------------------------------------------------------------------------


@_handles(c.OpenSession)
def _open_session(state: HallState, cmd: c.OpenSession, now: datetime) -> list[e.Event]:
    if not cmd.machine_homologation.strip():
        raise RuleError.of("no_homologation", machine=cmd.machine_id)
    return [
        e.SessionOpened(
            session_id=state.session_id + 1,
            machine_id=cmd.machine_id,
            machine_kind=cmd.machine_kind,
            machine_homologation=cmd.machine_homologation,
            profile=cmd.profile,
            call_witness_floor=cmd.call_witness_floor,
        )
    ]


@_handles(c.RecordEquipmentCheck)
def _equipment(state: HallState, cmd: c.RecordEquipmentCheck, now: datetime) -> list[e.Event]:
    events: list[e.Event] = [e.EquipmentChecked(ok=cmd.ok, notes=cmd.notes)]
    if not cmd.ok:
        events.append(e.SessionClosed(session_id=state.session_id, reason="equipment_check_failed"))
    return events


@_handles(c.RegisterBallSet)
def _register_ball_set(state: HallState, cmd: c.RegisterBallSet, now: datetime) -> list[e.Event]:
    if cmd.ball_set_id in state.ball_sets:
        raise RuleError.of("ball_set_already_registered", ball_set=cmd.ball_set_id)
    return [e.BallSetRegistered(ball_set_id=cmd.ball_set_id, homologation=cmd.homologation)]


def _game_limit(state: HallState) -> int:
    """Games a ball set may play on this machine (0: no limit)."""
    if state.machine_kind != "pneumatic" or state.profile is None:
        return 0
    return state.profile.pneumatic_ball_set_game_limit


def _require_set_fit(state: HallState, ball_set_id: str) -> None:
    limit = _game_limit(state)
    games = state.ball_sets[ball_set_id].games
    if limit and games >= limit:
        raise RuleError.of("ball_set_worn", ball_set=ball_set_id, games=games, limit=limit)


@_handles(c.ChangeBallSet)
def _change_ball_set(state: HallState, cmd: c.ChangeBallSet, now: datetime) -> list[e.Event]:
    new = state.ball_sets.get(cmd.ball_set_id)
    if new is None:
        raise RuleError.of("ball_set_not_registered", ball_set=cmd.ball_set_id)
    if new.retired:
        raise RuleError.of("ball_set_retired", ball_set=cmd.ball_set_id)
    if cmd.ball_set_id == state.ball_set_in_service:
        raise RuleError.of("ball_set_already_in_service", ball_set=cmd.ball_set_id)
    _require_set_fit(state, cmd.ball_set_id)
    previous = state.ball_set_in_service
    return [
        e.BallSetChanged(
            previous=previous,
            previous_games=state.ball_sets[previous].games if previous else 0,
            ball_set_id=cmd.ball_set_id,
            games=new.games,
            reason=cmd.reason,
        )
    ]


@_handles(c.CommissionBallSet)
def _commission_ball_set(
    state: HallState, cmd: c.CommissionBallSet, now: datetime
) -> list[e.Event]:
    require_commissionable(state, cmd.ball_set_id)
    showings = with_cross_readings(
        showings_to_judge(state, cmd.ball_set_id, cmd.showings), cmd.cross_readings
    )
    missing = missing_balls(showings)
    if missing:
        shown = ", ".join(str(n) for n in missing[:10]) + (", …" if len(missing) > 10 else "")
        raise RuleError.of(
            "balls_not_all_shown", ball_set=cmd.ball_set_id, count=len(missing), balls=shown
        )
    verdict = judge(showings)
    return [
        e.BallSetCommissioned(
            ball_set_id=cmd.ball_set_id,
            fit=verdict.fit,
            read=verdict.read,
            wrong_guesses=verdict.wrong_guesses,
            misread=list(verdict.misread),
            near_misses=list(verdict.near_misses),
            unread=list(verdict.unread),
            refusals=list(verdict.refusals),
            showings=list(showings),
            cross_read=verdict.cross_read,
            cross_wrong=verdict.cross_wrong,
        )
    ]


@_handles(c.ShowBallToCamera)
def _show_ball(state: HallState, cmd: c.ShowBallToCamera, now: datetime) -> list[e.Event]:
    require_showable(state, cmd.ball_set_id, cmd.number)
    showing = e.BallShowing(number=cmd.number, camera=cmd.camera)
    return [e.BallShownToCamera(ball_set_id=cmd.ball_set_id, showing=showing)]


@_handles(c.DiscardBallShowings)
def _discard_showings(state: HallState, cmd: c.DiscardBallShowings, now: datetime) -> list[e.Event]:
    if state.showings is None:
        raise RuleError.of("nothing_to_discard")
    kept = state.showings
    return [
        e.BallShowingsDiscarded(
            ball_set_id=kept.ball_set_id,
            showings=len(kept.showings),
            misread=list(judge(kept.showings).misread),
        )
    ]


@_handles(c.LoadBalls)
def _load_balls(state: HallState, cmd: c.LoadBalls, now: datetime) -> list[e.Event]:
    if state.ball_set_in_service is None:
        raise RuleError.of("no_ball_set_in_service")
    _require_set_fit(state, state.ball_set_in_service)
    ball_set = state.ball_sets[state.ball_set_in_service]
    return [e.BallsLoaded(ball_set_id=ball_set.ball_set_id, games=ball_set.games)]


@_handles(c.RegisterSeries)
def _register_series(state: HallState, cmd: c.RegisterSeries, now: datetime) -> list[e.Event]:
    if not SERIES_ID_PATTERN.fullmatch(cmd.series_id):
        raise RuleError.of("series_id_form", series=repr(cmd.series_id))
    if cmd.series_id in state.series:
        raise RuleError.of("series_already_registered", series=cmd.series_id)
    if not cmd.face_value.is_finite() or not 0 < cmd.face_value <= MAX_FACE_VALUE:
        raise RuleError.of("face_value_range", series=cmd.series_id, maximum=str(MAX_FACE_VALUE))
    if cmd.face_value != cmd.face_value.quantize(Decimal("0.01")):
        raise RuleError.of("face_value_decimals", value=str(cmd.face_value))
    if not 1 <= cmd.size <= MAX_SERIES_SIZE:
        raise RuleError.of("series_size_range", maximum=MAX_SERIES_SIZE, size=cmd.size)
    return [
        e.SeriesRegistered(
            series_id=cmd.series_id,
            face_value=cmd.face_value.quantize(Decimal("0.01")),  # "1E+1" recorded as 10.00
            size=cmd.size,
            commitment=cmd.commitment,
        )
    ]


@_handles(c.AnnounceLastGame)
def _last_game(state: HallState, cmd: c.AnnounceLastGame, now: datetime) -> list[e.Event]:
    if state.last_game_announced:
        raise RuleError.of("last_game_already_announced")
    return [e.LastGameAnnounced(next_game_id=state.games_started + 1)]


@_handles(c.CloseSession)
def _close_session(state: HallState, cmd: c.CloseSession, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    if state.phase is Phase.BALL_LOADING:
        # no game is about to begin, so there is no last one to announce (S77 L2498-2500);
        # why the balls are not loaded goes in the acta
        note = cmd.note.strip()
        if not note:
            raise RuleError.of("close_needs_note")
        return [e.SessionClosed(session_id=state.session_id, reason="balls_not_loaded", note=note)]
    if profile.last_game_announcement_required and not state.last_game_announced:
        raise RuleError.of("last_game_not_announced", profile=profile.id)
    if profile.last_game_announcement_required and not state.last_game_played:
        # the warning is given «cuando vaya a comenzar la última jugada» (S77 L2498-2500):
        # the game so announced is the session's last, played or voided, before the close
        raise RuleError.of("last_game_not_played", profile=profile.id)
    return [e.SessionClosed(session_id=state.session_id, reason="closed")]


# --- sale ----------------------------------------------------------------------------------


@_handles(c.AnnounceSeries)
def _announce_series(state: HallState, cmd: c.AnnounceSeries, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    if state.last_game_played:
        raise RuleError.of("last_game_played")
    if state.ball_set_in_service is None:
        raise RuleError.of("no_ball_set_loaded")
    _require_set_fit(state, state.ball_set_in_service)
    if len(set(cmd.series)) != len(cmd.series):
        raise RuleError.of("series_named_twice")
    if profile.max_series_per_game and len(cmd.series) > profile.max_series_per_game:
        raise RuleError.of(
            "too_many_series",
            profile=profile.id,
            maximum=profile.max_series_per_game,
            count=len(cmd.series),
        )
    announced = []
    for series_id in cmd.series:
        series = state.series.get(series_id)
        if series is None:
            raise RuleError.of("series_not_registered", series=series_id)
        if series.remaining <= 0:
            raise RuleError.of("series_sold_out", series=series_id)
        announced.append(
            e.AnnouncedSeries(
                series_id=series_id,
                face_value=series.face_value,
                size=series.size,
                first_available=series.next_number,
            )
        )
    return [
        e.SeriesAnnounced(
            game_id=state.games_started + 1,
            series=tuple(announced),
            last_game=state.last_game_announced,
        )
    ]


@_handles(c.StartSale)
def _start_sale(state: HallState, cmd: c.StartSale, now: datetime) -> list[e.Event]:
    return [e.SaleStarted()]


@_handles(c.RecordSale)
def _record_sale(state: HallState, cmd: c.RecordSale, now: datetime) -> list[e.Event]:
    game = _game(state)
    if cmd.series_id not in game.series:
        raise RuleError.of("series_not_on_sale", series=cmd.series_id, on_sale=game.series)
    series = state.series[cmd.series_id]
    if cmd.first != series.next_number:
        raise RuleError.of(
            "sale_not_consecutive",
            series=cmd.series_id,
            next=series.next_number,
            first=cmd.first,
        )
    if cmd.last < cmd.first:
        raise RuleError.of("range_empty", first=cmd.first, last=cmd.last)
    if cmd.last > series.size:
        raise RuleError.of(
            "card_beyond_series", series=cmd.series_id, size=series.size, card=cmd.last
        )
    if cmd.buyer is not None:
        _check_terminal_purchase(state, game, cmd)
    sale = e.SoldRange(
        series_id=cmd.series_id, first=cmd.first, last=cmd.last, face_value=series.face_value
    )
    return [e.SaleRecorded(sale=sale, buyer=cmd.buyer, purchase=cmd.purchase)]


def _check_terminal_purchase(state: HallState, game: Game, cmd: c.RecordSale) -> None:
    """Auxiliary machines (Basque L2977-2991): whole blocks, at most N per machine and player.
    A machine replaces the card at one player's seat and the hub cannot tell players apart by
    the name a machine gives, so the limit holds per machine: N blocks a machine in a game,
    whatever player names it gives (docs/rules.md)."""
    profile = state.require_profile()
    if not profile.max_series_per_terminal_player:
        raise RuleError.of("no_terminals", profile=profile.id)
    block = profile.terminal_block_size
    if cmd.last - cmd.first + 1 != block:
        raise RuleError.of("whole_blocks", block=block)
    machine = cmd.buyer.split("/", 1)[0] if cmd.buyer else ""
    if cmd.purchase is not None and game.purchase_of(machine, cmd.purchase):
        raise RuleError.of("purchase_repeated", terminal=machine, purchase=cmd.purchase)
    bought = sum(1 for holding in game.holdings if holding.terminal == machine)
    if bought >= profile.max_series_per_terminal_player:
        raise RuleError.of(
            "terminal_series_limit",
            terminal=machine,
            count=bought,
            limit=profile.max_series_per_terminal_player,
        )


@_handles(c.CloseSale)
def _close_sale(state: HallState, cmd: c.CloseSale, now: datetime) -> list[e.Event]:
    game = _game(state)
    if not game.sales:
        raise RuleError.of("nothing_sold")
    return [
        e.SaleClosed(
            sold=game.sales,
            cards_sold=sum(sale.count for sale in game.sales),
            takings=game.takings,
        )
    ]


@_handles(c.AnnouncePrizes)
def _announce_prizes(state: HallState, cmd: c.AnnouncePrizes, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    game = _game(state)
    if cmd.paying_row is not None and not profile.designated_line_allowed:
        raise RuleError.of("no_paying_line", profile=profile.id)
    unit = profile.rounding_unit
    return [
        e.PrizesAnnounced(
            wording=profile.sale_wording([(s.series_id, s.first, s.last) for s in game.sales]),
            takings=game.takings,
            line_prize=percentage_of(game.takings, profile.line_prize_percent, unit),
            bingo_prize=percentage_of(game.takings, profile.bingo_prize_percent, unit),
            paying_row=cmd.paying_row,
        )
    ]


# --- draw and claims -----------------------------------------------------------------------


@_handles(c.StartDraw)
def _start_draw(state: HallState, cmd: c.StartDraw, now: datetime) -> list[e.Event]:
    assert state.ball_set_in_service is not None
    _require_set_fit(state, state.ball_set_in_service)
    ball_set = state.ball_sets[state.ball_set_in_service]
    return [e.DrawStarted(ball_set_id=ball_set.ball_set_id, games_on_set=ball_set.games + 1)]


def _require_in_machine(game: Game, number: int) -> None:
    if not 1 <= number <= 90:
        raise RuleError.of("ball_out_of_range", ball=number)
    if number in game.calls:
        raise RuleError.of("ball_already_drawn", ball=number, ordinal=game.calls.index(number) + 1)


def _camera_reading(check: e.CameraCheck) -> str:
    if check.reading is not None:
        return str(check.reading)
    guess = f", best guess {check.guess} at {check.confidence}" if check.guess is not None else ""
    return f"{check.reason}{guess}"


@_handles(c.DrawBall)
def _draw_ball(state: HallState, cmd: c.DrawBall, now: datetime) -> list[e.Event]:
    game = _game(state)
    _require_in_machine(game, cmd.number)
    check = None
    if cmd.camera is not None:
        check = camera_verdict(cmd.camera, cmd.number, state.call_witness_floor)
        if check is None:
            raise RuleError.of(
                "camera_does_not_confirm", ball=cmd.number, reading=_camera_reading(cmd.camera)
            )
        if not state.camera_may_confirm:
            raise RuleError.of(
                "set_not_commissioned", ball_set=str(state.ball_set_in_service), ball=cmd.number
            )
    return [
        e.BallDrawn(
            ordinal=game.ordinal + 1,
            number=cmd.number,
            source=cmd.source,
            camera=cmd.camera,
            check=check,
        )
    ]


@_handles(c.HoldBall)
def _hold_ball(state: HallState, cmd: c.HoldBall, now: datetime) -> list[e.Event]:
    game = _game(state)
    _require_in_machine(game, cmd.called)
    cause: e.HoldCause = "camera"
    if camera_verdict(cmd.camera, cmd.called, state.call_witness_floor) is not None:
        if state.camera_may_confirm:
            raise RuleError.of("nothing_to_hold", ball=cmd.called)
        cause = "uncommissioned_set"
    return [
        e.BallHeld(
            ordinal=game.ordinal + 1,
            called=cmd.called,
            source=cmd.source,
            camera=cmd.camera,
            cause=cause,
        )
    ]


@_handles(c.ResolveHold)
def _resolve_hold(state: HallState, cmd: c.ResolveHold, now: datetime) -> list[e.Event]:
    """The Jefe de Mesa confirms the call or corrects it to the ball the camera shows."""
    held = _game(state).held
    assert held is not None, "a camera hold always has its held ball"
    _require_in_machine(_game(state), cmd.number)
    verdict = "confirmed" if cmd.number == held.called else "corrected"
    return [
        e.HoldResolved(
            ordinal=held.ordinal,
            called=held.called,
            number=cmd.number,
            verdict=verdict,
            resolved_by=cmd.resolved_by,
        ),
        e.BallDrawn(
            ordinal=held.ordinal,
            number=cmd.number,
            source=held.source,
            camera=held.camera,
            check=verdict,
            resolved_by=cmd.resolved_by,
        ),
    ]


@_handles(c.CallClaim)
def _call_claim(state: HallState, cmd: c.CallClaim, now: datetime) -> list[e.Event]:
    game = _game(state)
    series = state.series.get(cmd.series_id)
    if series is None:
        raise RuleError.of("series_not_registered", series=cmd.series_id)
    if not 1 <= cmd.card_number <= series.size:
        raise RuleError.of("no_such_card", series=cmd.series_id, card=cmd.card_number)
    Card.from_grid(cmd.grid)
    for claim in game.claims:
        same = (claim.series_id, claim.card_number, claim.kind) == (
            cmd.series_id,
            cmd.card_number,
            cmd.kind,
        )
        if same and claim.status in ("pending", "valid"):
            raise RuleError.of(
                "claim_repeated",
                series=cmd.series_id,
                card=cmd.card_number,
                status=Term("claim.status", claim.status),
                kind=Term("claim.kind", cmd.kind),
                claim=claim.claim_id,
            )
    return [
        e.ClaimCalled(
            claim_id=len(game.claims) + 1,
            kind=cmd.kind,
            series_id=cmd.series_id,
            card_number=cmd.card_number,
            grid=cmd.grid,
            ordinal=game.ordinal,
        )
    ]


def _verdict(state: HallState, game: Game, claim: Claim) -> Verdict:
    if game.sold_range(claim.series_id, claim.card_number) is None:
        return Verdict(
            False, NOT_SOLD, f"card {claim.series_id}-{claim.card_number} was not sold in this game"
        )
    profile = state.require_profile()
    if claim.kind == "line":
        return verify_line(
            claim.card,
            game.calls,
            claim.ordinal,
            profile,
            game.line_won_at,
            game.paying_row,
            game.rights_closed_through,
        )
    return verify_bingo(claim.card, game.calls, claim.ordinal, profile, game.rights_closed_through)


@_handles(c.VerifyClaims)
def _verify_claims(state: HallState, cmd: c.VerifyClaims, now: datetime) -> list[e.Event]:
    game = _game(state)
    pending = [claim for claim in game.claims if claim.status == "pending"]
    if not pending:
        raise RuleError.of("no_claim_waiting")
    events: list[e.Event] = []
    any_valid = any(
        claim.status == "valid" and claim.ordinal == game.ordinal and game.unsettled(claim)
        for claim in game.claims
    )
    for claim in pending:
        verdict = _verdict(state, game, claim)
        any_valid = any_valid or verdict.valid
        events.append(
            e.ClaimVerified(
                claim_id=claim.claim_id,
                valid=verdict.valid,
                reason=verdict.reason,
                detail=verdict.detail,
                rows=verdict.rows,
                missing=verdict.missing,
                completed_at=verdict.completed_at,
            )
        )
    if state.phase is Phase.CLAIM_PAUSED:
        if any_valid:
            events.append(e.AnyMoreAsked(ordinal=game.ordinal))
        else:
            events.append(e.DrawResumed(ordinal=game.ordinal))
    return events


@_handles(c.GiveOrder)
def _give_order(state: HallState, cmd: c.GiveOrder, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    game = _game(state)
    if any(claim.status == "pending" for claim in game.claims):
        raise RuleError.of("claims_waiting")
    assert game.window_opened_at is not None
    waited = Decimal(str((now - game.window_opened_at).total_seconds()))
    if waited < profile.min_any_more_window_seconds:
        raise RuleError.of(
            "window_too_short",
            waited=f"{waited:.1f}",
            profile=profile.id,
            minimum=str(profile.min_any_more_window_seconds),
        )
    ordinal = game.ordinal
    lines = game.claims_at_window("line")
    bingos = game.claims_at_window("bingo")
    events: list[e.Event] = [e.OrderGiven(order="finish" if bingos else "resume", ordinal=ordinal)]
    unit = profile.rounding_unit
    if lines:
        events.append(_split("line", game.line_prize, lines, ordinal, unit))
    if bingos:
        pot = game.bingo_prize
        if game.line_won_at is None and not lines:
            disposition = profile.unclaimed_line_prize
            events.append(e.LinePrizeUnclaimed(amount=game.line_prize, disposition=disposition))
            if disposition is UnclaimedLinePrize.TO_BINGO:
                pot += game.line_prize
        events.append(_split("bingo", pot, bingos, ordinal, unit))
        events.append(e.GameFinished(game_id=game.game_id, balls=ordinal))
    return events


def _split(kind: e.ClaimKind, pot: Decimal, winners: list[Claim], ordinal: int, unit: Decimal):
    share, residue = split_equally(pot, len(winners), unit)
    return e.PrizeSplit(
        kind=kind,
        ordinal=ordinal,
        pot=pot,
        share=share,
        residue=residue,
        winners=tuple(
            e.Winner(claim_id=w.claim_id, series_id=w.series_id, card_number=w.card_number)
            for w in winners
        ),
    )


# --- void and payment ----------------------------------------------------------------------


@_handles(c.VoidGame)
def _void_game(state: HallState, cmd: c.VoidGame, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    game = _game(state)
    if cmd.reason not in profile.void_reasons:
        raise RuleError.of(
            "void_reason_not_in_profile",
            profile=profile.id,
            reason=Term("void.reason", cmd.reason.value),
            causes=[Term("void.reason", r.value) for r in profile.void_reasons],
        )
    if cmd.reason is VoidReason.ANNOUNCEMENT_ERROR and not game.calls:
        # «error … en el anuncio de un determinado número» (S79 L1222, S77 L2518): a number
        # must have been announced (a ball the camera holds has not been)
        raise RuleError.of("no_number_announced", game=game.game_id)
    restitutions = ()
    if profile.restitution_on_void:
        restitutions = tuple(
            e.Restitution(
                claim_id=award.claim_id,
                series_id=award.series_id,
                card_number=award.card_number,
                amount=award.amount,
                paid=award.status == "paid",
            )
            for award in state.awards.values()
            if award.game_id == game.game_id
        )
    return [
        e.GameVoided(
            game_id=game.game_id,
            reason=cmd.reason,
            note=cmd.note,
            refunds=game.sales,
            refund_total=game.takings,
            restitutions=restitutions,
            awards_withdrawn=profile.restitution_on_void,
        )
    ]


@_handles(c.RecordPlayerRequest)
def _record_player_request(
    state: HallState, cmd: c.RecordPlayerRequest, now: datetime
) -> list[e.Event]:
    return [
        e.PlayerRequestRecorded(
            request_id=state.player_requests + 1,
            kind=cmd.kind,
            player=cmd.player.strip(),
            text=cmd.text.strip(),
            answer=None if cmd.answer is None else cmd.answer.strip(),
        )
    ]


@_handles(c.AnswerPlayerRequest)
def _answer_player_request(
    state: HallState, cmd: c.AnswerPlayerRequest, now: datetime
) -> list[e.Event]:
    if not 1 <= cmd.request_id <= state.player_requests:
        raise RuleError.of("no_such_request", request=cmd.request_id)
    if cmd.request_id not in state.open_requests:
        raise RuleError.of("request_answered", request=cmd.request_id)
    return [e.PlayerRequestAnswered(request_id=cmd.request_id, answer=cmd.answer.strip())]


@_handles(c.PayPrize)
def _pay_prize(state: HallState, cmd: c.PayPrize, now: datetime) -> list[e.Event]:
    award = state.awards.get((cmd.game_id, cmd.claim_id))
    if award is None:
        raise RuleError.of("no_such_prize", game=cmd.game_id, claim=cmd.claim_id)
    if award.status == "paid":
        raise RuleError.of("prize_paid", claim=cmd.claim_id, game=cmd.game_id)
    if not award.payable:
        payable = state.require_profile().line_prize_payable
        reason = (
            "prize_paid_at_game_end"
            if payable is LinePrizePayable.AT_GAME_END
            else "prize_paid_later"
        )
        raise RuleError.of(reason, kind=Term("claim.kind", award.kind))
    return [e.PrizePaid(game_id=cmd.game_id, claim_id=cmd.claim_id, amount=award.amount)]


@_handles(c.PayRefund)
def _pay_refund(state: HallState, cmd: c.PayRefund, now: datetime) -> list[e.Event]:
    """A range of a voided game's cards refunded at face value: inside what the game sold of
    its series, none of it refunded before."""
    if cmd.game_id not in state.voided_games:
        raise RuleError.of("game_not_voided", game=cmd.game_id)
    ledger = state.refunds.get(cmd.game_id)
    if ledger is None:
        raise RuleError.of("no_refund_owed", game=cmd.game_id)
    cards = {"series": cmd.series_id, "first": cmd.first, "last": cmd.last}
    if cmd.first > cmd.last:
        raise RuleError.of("refund_range_reversed", **cards)
    sold = next(
        (
            r
            for r in ledger.refunds
            if r.series_id == cmd.series_id and r.first <= cmd.first and cmd.last <= r.last
        ),
        None,
    )
    if sold is None:
        refunded = [f"{r.series_id} nº {r.first}–{r.last}" for r in ledger.refunds]
        if not refunded:
            raise RuleError.of("refund_not_sold_none", game=cmd.game_id, **cards)
        raise RuleError.of("refund_not_sold", game=cmd.game_id, refunds=refunded, **cards)
    for paid in ledger.paid:
        if paid.series_id == cmd.series_id and paid.first <= cmd.last and cmd.first <= paid.last:
            card = max(paid.first, cmd.first)
            raise RuleError.of(
                "refund_paid",
                series=cmd.series_id,
                card=card,
                game=cmd.game_id,
                paid_first=paid.first,
                paid_last=paid.last,
            )
    count = cmd.last - cmd.first + 1
    return [
        e.RefundPaid(
            game_id=cmd.game_id,
            series_id=cmd.series_id,
            first=cmd.first,
            last=cmd.last,
            cards=count,
            amount=sold.face_value * count,
        )
    ]
