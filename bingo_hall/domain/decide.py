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
        raise RuleError(
            f"machine {cmd.machine_id} has no homologation reference: the model of the "
            "drawing machine must be homologated before play (S79 L1188); give it in the "
            "hall's configuration, [machine] homologation"
        )
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
        raise RuleError(f"ball set {cmd.ball_set_id} is already registered")
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
        raise RuleError(
            f"ball set {ball_set_id} has played {games} games; a pneumatic machine must change "
            f"its set at {limit} games at most: record a ball-set change"
        )


@_handles(c.ChangeBallSet)
def _change_ball_set(state: HallState, cmd: c.ChangeBallSet, now: datetime) -> list[e.Event]:
    new = state.ball_sets.get(cmd.ball_set_id)
    if new is None:
        raise RuleError(f"ball set {cmd.ball_set_id} is not registered")
    if new.retired:
        raise RuleError(f"ball set {cmd.ball_set_id} was retired and cannot go back in service")
    if cmd.ball_set_id == state.ball_set_in_service:
        raise RuleError(f"ball set {cmd.ball_set_id} is already in service")
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
        raise RuleError(
            f"ball set {cmd.ball_set_id}: every ball must be shown to the camera; "
            f"{len(missing)} were not: {shown}"
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
        raise RuleError("no ball set is being shown to the camera: there is nothing to discard")
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
        raise RuleError("no ball set is in service: record a ball-set change first")
    _require_set_fit(state, state.ball_set_in_service)
    ball_set = state.ball_sets[state.ball_set_in_service]
    return [e.BallsLoaded(ball_set_id=ball_set.ball_set_id, games=ball_set.games)]


@_handles(c.RegisterSeries)
def _register_series(state: HallState, cmd: c.RegisterSeries, now: datetime) -> list[e.Event]:
    if not SERIES_ID_PATTERN.fullmatch(cmd.series_id):
        raise RuleError(
            f"series id {cmd.series_id!r} must be a letter (or two) and an identification "
            "number, e.g. A17"
        )
    if cmd.series_id in state.series:
        raise RuleError(f"series {cmd.series_id} is already registered")
    if not cmd.face_value.is_finite() or not 0 < cmd.face_value <= MAX_FACE_VALUE:
        raise RuleError(
            f"face value of series {cmd.series_id} must be positive and at most {MAX_FACE_VALUE}"
        )
    if cmd.face_value != cmd.face_value.quantize(Decimal("0.01")):
        raise RuleError(f"face value {cmd.face_value} has more than two decimals")
    if not 1 <= cmd.size <= MAX_SERIES_SIZE:
        raise RuleError(f"series size must be 1 to {MAX_SERIES_SIZE}, not {cmd.size}")
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
        raise RuleError("the last game of this session has already been announced")
    return [e.LastGameAnnounced(next_game_id=state.games_started + 1)]


@_handles(c.CloseSession)
def _close_session(state: HallState, cmd: c.CloseSession, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    if state.phase is Phase.BALL_LOADING:
        # no game is about to begin, so there is no last one to announce (S77 L2498-2500);
        # why the balls are not loaded goes in the acta
        note = cmd.note.strip()
        if not note:
            raise RuleError(
                "the session closes at ball loading only with a note saying why the balls "
                "are not loaded"
            )
        return [e.SessionClosed(session_id=state.session_id, reason="balls_not_loaded", note=note)]
    if profile.last_game_announcement_required and not state.last_game_announced:
        raise RuleError(
            f"profile {profile.id} requires the last game to be announced aloud before the "
            "session closes: announce the last game first"
        )
    if profile.last_game_announcement_required and not state.last_game_played:
        # the warning is given «cuando vaya a comenzar la última jugada» (S77 L2498-2500):
        # the game so announced is the session's last, played or voided, before the close
        raise RuleError(
            f"profile {profile.id}: the last game was announced aloud and has not been played: "
            "announce its series (or void it) before the session closes"
        )
    return [e.SessionClosed(session_id=state.session_id, reason="closed")]


# --- sale ----------------------------------------------------------------------------------


@_handles(c.AnnounceSeries)
def _announce_series(state: HallState, cmd: c.AnnounceSeries, now: datetime) -> list[e.Event]:
    profile = state.require_profile()
    if state.last_game_played:
        raise RuleError("the announced last game has been played: close the session")
    if state.ball_set_in_service is None:
        raise RuleError("no ball set is loaded")
    _require_set_fit(state, state.ball_set_in_service)
    if len(set(cmd.series)) != len(cmd.series):
        raise RuleError("a series is named twice")
    if profile.max_series_per_game and len(cmd.series) > profile.max_series_per_game:
        raise RuleError(
            f"profile {profile.id} allows {profile.max_series_per_game} series per game, "
            f"not {len(cmd.series)}"
        )
    announced = []
    for series_id in cmd.series:
        series = state.series.get(series_id)
        if series is None:
            raise RuleError(f"series {series_id} is not registered")
        if series.remaining <= 0:
            raise RuleError(f"series {series_id} has no cards left")
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
        raise RuleError(
            f"series {cmd.series_id} is not on sale in this game (on sale: "
            f"{', '.join(game.series)})"
        )
    series = state.series[cmd.series_id]
    if cmd.first != series.next_number:
        raise RuleError(
            f"cards are sold consecutively: the next card of series {cmd.series_id} is "
            f"no. {series.next_number}, not {cmd.first}"
        )
    if cmd.last < cmd.first:
        raise RuleError(f"the range {cmd.first}-{cmd.last} is empty")
    if cmd.last > series.size:
        raise RuleError(
            f"series {cmd.series_id} has {series.size} cards; card {cmd.last} does not exist"
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
        raise RuleError(f"profile {profile.id} has no auxiliary terminals")
    block = profile.terminal_block_size
    if cmd.last - cmd.first + 1 != block:
        raise RuleError(f"a terminal buys whole blocks of {block} cards")
    machine = cmd.buyer.split("/", 1)[0] if cmd.buyer else ""
    if cmd.purchase is not None and game.purchase_of(machine, cmd.purchase):
        raise RuleError(f"terminal {machine} already made purchase {cmd.purchase} in this game")
    bought = sum(1 for holding in game.holdings if holding.terminal == machine)
    if bought >= profile.max_series_per_terminal_player:
        raise RuleError(
            f"terminal {machine} already plays {bought} series in this game; the limit per "
            f"machine and player is {profile.max_series_per_terminal_player}"
        )


@_handles(c.CloseSale)
def _close_sale(state: HallState, cmd: c.CloseSale, now: datetime) -> list[e.Event]:
    game = _game(state)
    if not game.sales:
        raise RuleError("no card has been sold: record a sale, or void the game")
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
        raise RuleError(f"profile {profile.id} does not allow a designated paying line")
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
        raise RuleError(f"ball {number} does not exist: balls are numbered 1 to 90")
    if number in game.calls:
        raise RuleError(f"ball {number} was already drawn (ball {game.calls.index(number) + 1})")


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
            raise RuleError(
                f"the camera does not confirm ball {cmd.number} "
                f"(it reads {_camera_reading(cmd.camera)}): "
                "the ball must be held for the Jefe de Mesa"
            )
        if not state.camera_may_confirm:
            raise RuleError(
                f"ball set {state.ball_set_in_service} has not passed its camera commissioning: "
                f"the camera cannot confirm its calls; ball {cmd.number} must be held for the "
                "Jefe de Mesa"
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
            raise RuleError(f"the camera confirms ball {cmd.called}: there is nothing to hold")
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
        raise RuleError(f"series {cmd.series_id} is not registered")
    if not 1 <= cmd.card_number <= series.size:
        raise RuleError(f"series {cmd.series_id} has no card no. {cmd.card_number}")
    Card.from_grid(cmd.grid)
    for claim in game.claims:
        same = (claim.series_id, claim.card_number, claim.kind) == (
            cmd.series_id,
            cmd.card_number,
            cmd.kind,
        )
        if same and claim.status in ("pending", "valid"):
            raise RuleError(
                f"card {cmd.series_id}-{cmd.card_number} already has a {claim.status} "
                f"{cmd.kind} claim (claim {claim.claim_id})"
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
        raise RuleError("no claim is waiting for verification")
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
        raise RuleError("claims are waiting for verification: verify them before the order")
    assert game.window_opened_at is not None
    waited = Decimal(str((now - game.window_opened_at).total_seconds()))
    if waited < profile.min_any_more_window_seconds:
        raise RuleError(
            f"«¿Alguna línea más? ¿Algún bingo más?» has been open {waited:.1f} s; profile "
            f"{profile.id} leaves at least {profile.min_any_more_window_seconds} s"
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
        raise RuleError(
            f"profile {profile.id} does not name {cmd.reason.value} as a cause of a void game "
            f"(causes: {', '.join(r.value for r in profile.void_reasons)})"
        )
    if cmd.reason is VoidReason.ANNOUNCEMENT_ERROR and not game.calls:
        # «error … en el anuncio de un determinado número» (S79 L1222, S77 L2518): a number
        # must have been announced (a ball the camera holds has not been)
        raise RuleError(
            f"game {game.game_id} has announced no number yet, so no announcement error can "
            "void it; name the cause that stops it"
        )
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
        raise RuleError(f"no request or complaint no. {cmd.request_id} has been recorded")
    if cmd.request_id not in state.open_requests:
        raise RuleError(f"request or complaint no. {cmd.request_id} has already been answered")
    return [e.PlayerRequestAnswered(request_id=cmd.request_id, answer=cmd.answer.strip())]


@_handles(c.PayPrize)
def _pay_prize(state: HallState, cmd: c.PayPrize, now: datetime) -> list[e.Event]:
    award = state.awards.get((cmd.game_id, cmd.claim_id))
    if award is None:
        raise RuleError(f"game {cmd.game_id} has no prize for claim {cmd.claim_id}")
    if award.status == "paid":
        raise RuleError(f"the prize of claim {cmd.claim_id} in game {cmd.game_id} is already paid")
    if not award.payable:
        payable = state.require_profile().line_prize_payable
        when = "at the end of the game" if payable is LinePrizePayable.AT_GAME_END else "later"
        raise RuleError(f"this {award.kind} prize is paid {when}")
    return [e.PrizePaid(game_id=cmd.game_id, claim_id=cmd.claim_id, amount=award.amount)]


@_handles(c.PayRefund)
def _pay_refund(state: HallState, cmd: c.PayRefund, now: datetime) -> list[e.Event]:
    """A range of a voided game's cards refunded at face value: inside what the game sold of
    its series, none of it refunded before."""
    if cmd.game_id not in state.voided_games:
        raise RuleError(
            f"game {cmd.game_id} was not voided: only a voided game's cards are refunded"
        )
    ledger = state.refunds.get(cmd.game_id)
    if ledger is None:
        raise RuleError(
            f"voided game {cmd.game_id} owes no refund: it sold no card, or every card it sold "
            "has been refunded"
        )
    cards = f"{cmd.series_id} nº {cmd.first}–{cmd.last}"
    if cmd.first > cmd.last:
        raise RuleError(f"cards {cards}: the first card is after the last")
    sold = next(
        (
            r
            for r in ledger.refunds
            if r.series_id == cmd.series_id and r.first <= cmd.first and cmd.last <= r.last
        ),
        None,
    )
    if sold is None:
        refunded = ", ".join(f"{r.series_id} nº {r.first}–{r.last}" for r in ledger.refunds)
        raise RuleError(
            f"cards {cards} were not all sold in game {cmd.game_id}, so they are not refunded "
            f"(its refunds: {refunded or 'none, nothing was sold'})"
        )
    for paid in ledger.paid:
        if paid.series_id == cmd.series_id and paid.first <= cmd.last and cmd.first <= paid.last:
            card = max(paid.first, cmd.first)
            raise RuleError(
                f"card {cmd.series_id} nº {card} of game {cmd.game_id} has already been refunded "
                f"(nº {paid.first}–{paid.last})"
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
