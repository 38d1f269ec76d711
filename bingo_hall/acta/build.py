"""Builds the acta of a session or of one game from the hall's events, as plain JSON data."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from bingo_hall.domain.commissioning import verdict_summary
from bingo_hall.domain.refusals import Param, english
from bingo_hall.store.eventlog import ChainReport, EventEnvelope

Json = dict[str, Any]


def _money(value: str | Decimal) -> str:
    return str(Decimal(value))


class _ActaBuilder:
    """Folds envelopes into session and game records (one pass, in seq order)."""

    def __init__(self) -> None:
        self.sessions: dict[int, Json] = {}
        self.games: dict[int, Json] = {}
        self.trials_between_sessions: list[Json] = []  # for the acta of the next session
        self.series_between_sessions: list[Json] = []  # for the acta of the next session
        self.requests: dict[int, Json] = {}  # players' requests and complaints, by number
        self.homologations: dict[str, str] = {}  # each registered ball set's, hall-wide

    def session(self, envelope: EventEnvelope) -> Json:
        return self.sessions[envelope.session_id]  # type: ignore[index]

    def game(self, envelope: EventEnvelope) -> Json:
        return self.games[envelope.game_id]  # type: ignore[index]

    def homologation(self, ball_set_id: str | None) -> str | None:
        """The homologation reference a ball set was registered with (S79 L1194); "" when it
        was registered without one (a log older than the rule); None for no set."""
        return None if ball_set_id is None else self.homologations.get(ball_set_id, "")

    def add(self, env: EventEnvelope) -> None:
        handler = getattr(self, f"_on_{env.type}", None)
        if handler is not None:
            handler(env, env.payload, env.time.isoformat(timespec="microseconds"))

    # session events
    def _on_session_opened(self, env: EventEnvelope, p: Json, at: str) -> None:
        profile = p["profile"]
        self.sessions[p["session_id"]] = {
            "session_id": p["session_id"],
            "opened_at": at,
            "closed_at": None,
            "close_reason": None,
            "close_note": "",
            "profile": {
                "id": profile["id"],
                "title": profile["title"],
                "line_prize_percent": profile["line_prize_percent"],
                "bingo_prize_percent": profile["bingo_prize_percent"],
                "currency": profile["currency"],
                "last_game_announcement_required": profile.get(
                    "last_game_announcement_required", False
                ),
            },
            "machine": {
                "id": p["machine_id"],
                "kind": p["machine_kind"],
                "homologation": p.get("machine_homologation", ""),
            },
            "call_witness_floor": p.get("call_witness_floor"),
            "equipment_checks": [],
            "ball_set_changes": [],
            "camera_commissionings": self.trials_between_sessions,
            "balls_loaded": [],
            "series_registered": self.series_between_sessions,
            "last_game_announced_at": None,
            "last_game_announced_seq": None,
            "games": [],
            "prizes_paid_for_earlier_sessions": [],
            "unpaid_at_close": [],
            "refunds_paid_for_earlier_sessions": [],
            "refunds_owed_at_close": [],  # of voided games, this session's and earlier ones
            "player_requests": [],  # recorded in this session, with their answers
            "answers_for_earlier_sessions": [],
            "unanswered_at_close": [],
        }
        self.trials_between_sessions = []
        self.series_between_sessions = []

    def _on_equipment_checked(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session(env)["equipment_checks"].append({"at": at, "ok": p["ok"], "notes": p["notes"]})

    def _on_ball_set_registered(self, env: EventEnvelope, p: Json, at: str) -> None:
        """A hall-wide record: the acta names a set's homologation where the set is put in
        service, loaded or played."""
        self.homologations[p["ball_set_id"]] = p.get("homologation", "")

    def _on_ball_set_changed(self, env: EventEnvelope, p: Json, at: str) -> None:
        if env.session_id in self.sessions:
            self.session(env)["ball_set_changes"].append(
                {
                    "at": at,
                    "seq": env.seq,
                    "actor": env.actor,
                    **p,
                    "homologation": self.homologation(p["ball_set_id"]),
                    "previous_homologation": self.homologation(p["previous"]),
                }
            )

    def _on_ball_set_commissioned(self, env: EventEnvelope, p: Json, at: str) -> None:
        """The verdict and its figures; each showing's reading and frame stay in the log."""
        trial = {"at": at, "seq": env.seq, "actor": env.actor, **verdict_summary(p)}
        self._camera_trial(env, trial)

    def _on_ball_showings_discarded(self, env: EventEnvelope, p: Json, at: str) -> None:
        """A trial set aside unjudged is listed with the others, in its place."""
        trial = {"at": at, "seq": env.seq, "actor": env.actor, "discarded": True, **p}
        self._camera_trial(env, trial)

    def _camera_trial(self, env: EventEnvelope, trial: Json) -> None:
        """A ball set's trial under the camera, in its session's acta; one made while no
        session was open, in the next session's (the acta of the sets it may play)."""
        if env.session_id in self.sessions:
            self.session(env)["camera_commissionings"].append(trial)
        else:
            self.trials_between_sessions.append(trial)

    def _on_balls_loaded(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session(env)["balls_loaded"].append(
            {"at": at, "seq": env.seq, **p, "homologation": self.homologation(p["ball_set_id"])}
        )

    def _on_series_registered(self, env: EventEnvelope, p: Json, at: str) -> None:
        """In its session's acta; one registered while no session was open, in the next
        session's (the first that may sell it), as a camera trial is."""
        series = {"at": at, "seq": env.seq, **p}
        if env.session_id in self.sessions:
            self.session(env)["series_registered"].append(series)
        else:
            self.series_between_sessions.append(series)

    def _on_last_game_announced(self, env: EventEnvelope, p: Json, at: str) -> None:
        session = self.session(env)
        session["last_game_announced_at"], session["last_game_announced_seq"] = at, env.seq

    def _on_session_closed(self, env: EventEnvelope, p: Json, at: str) -> None:
        """What the hall still owes at the close: every prize won so far and not paid, of this
        session's games and of earlier sessions' (a prize is owed until paid); a voided game's
        prizes only where the void left them standing (no restitution under the profile); and
        every voided game's cards not refunded yet."""
        session = self.session(env)
        session["closed_at"], session["close_reason"] = at, p["reason"]
        session["close_note"] = p.get("note", "")
        session["unanswered_at_close"] = [
            {key: request[key] for key in ("request_id", "session_id", "game_id", "kind")}
            for request in self.requests.values()
            if request["answer"] is None
        ]
        session["refunds_owed_at_close"] = [
            {"game_id": game["game_id"], "session_id": game["session_id"], **owed}
            for game in self.games.values()
            if game["void"] is not None
            for owed in game["void"]["refunds_owed"]
        ]
        for game in self.games.values():
            if game["status"] == "voided" and game["void"]["awards_withdrawn"]:
                continue
            paid = {payment["claim_id"] for payment in game["payments"]}
            session["unpaid_at_close"] += [
                {
                    "game_id": game["game_id"],
                    "session_id": game["session_id"],
                    "claim_id": winner["claim_id"],
                    "kind": prize["kind"],
                    "series_id": winner["series_id"],
                    "card_number": winner["card_number"],
                    "amount": prize["share"],
                }
                for prize in game["prizes"]
                for winner in prize["winners"]
                if winner["claim_id"] not in paid
            ]

    # game events
    def _on_series_announced(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = {
            "game_id": p["game_id"],
            "session_id": env.session_id,
            "last_game": p["last_game"],
            "status": "in_progress",
            "announced_at": at,
            "announced_seq": env.seq,  # where the game begins in the log (the acta's order)
            "series": p["series"],
            "sales": [],
            "cards_sold": 0,
            "takings": "0",
            "announcement": None,
            "prizes_announced_at": None,
            "line_prize": None,
            "bingo_prize": None,
            "paying_row": None,
            "ball_set": None,
            "balls": [],
            "holds": [],
            "claims": [],
            "any_more": [],
            "prizes": [],
            "line_unclaimed": None,
            "payments": [],
            "void": None,
            "finished_at": None,
        }
        self.games[p["game_id"]] = game
        self.session(env)["games"].append(game)

    def _on_sale_recorded(self, env: EventEnvelope, p: Json, at: str) -> None:
        """Each sale, and the running totals: a game voided before its sale closed sold what
        its sales say (and refunds it)."""
        sale = p["sale"]
        count = sale["last"] - sale["first"] + 1
        amount = Decimal(sale["face_value"]) * count
        game = self.game(env)
        game["sales"].append(
            {
                "at": at,
                "actor": env.actor,
                **sale,
                "count": count,
                "amount": _money(amount),
                "buyer": p.get("buyer"),  # "terminal/player": a terminal's purchase; else None
            }
        )
        game["cards_sold"] += count
        game["takings"] = _money(Decimal(game["takings"]) + amount)

    def _on_sale_closed(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        game["cards_sold"], game["takings"] = p["cards_sold"], _money(p["takings"])
        game["sale_closed_at"] = at
        game["sold_ranges"] = [{**s, "count": s["last"] - s["first"] + 1} for s in p["sold"]]

    def _on_prizes_announced(self, env: EventEnvelope, p: Json, at: str) -> None:
        """The prizes, and what rounding their percentages of the takings down left: recorded,
        never lost (the log holds the takings, the percentages and the prizes)."""
        game = self.game(env)
        game["announcement"], game["prizes_announced_at"] = p["wording"], at
        game["line_prize"], game["bingo_prize"] = p["line_prize"], p["bingo_prize"]
        profile = self.session(env)["profile"]
        takings = Decimal(p["takings"])
        game["prize_rounding"] = _money(
            sum(
                takings * Decimal(str(profile[f"{kind}_prize_percent"])) / 100
                - Decimal(p[f"{kind}_prize"])
                for kind in ("line", "bingo")
            )
        )
        game["paying_row"] = p["paying_row"]

    def _on_draw_started(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        game["ball_set"] = {
            "ball_set_id": p["ball_set_id"],
            "games_on_set": p["games_on_set"],
            "homologation": self.homologation(p["ball_set_id"]),
        }
        game["draw_started_at"] = at

    def _on_ball_drawn(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        hold = game["holds"][-1] if game["holds"] else None
        game["balls"].append(
            {
                "ordinal": p["ordinal"],
                "number": p["number"],
                "source": p["source"],
                "at": at,
                "camera": p.get("camera"),
                "guess_drawn": _guess_drawn(game, p.get("camera")),
                "check": p.get("check"),
                "hold": hold if hold is not None and hold["ordinal"] == p["ordinal"] else None,
            }
        )

    def _on_ball_held(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        game["holds"].append(
            {
                "ordinal": p["ordinal"],
                "called": p["called"],
                "camera": p["camera"],
                "guess_drawn": _guess_drawn(game, p["camera"]),
                "cause": p.get("cause", "camera"),
                "held_at": at,
                "number": None,
                "verdict": None,
                "resolved_by": None,
                "resolved_at": None,
            }
        )

    def _on_hold_resolved(self, env: EventEnvelope, p: Json, at: str) -> None:
        hold = self.game(env)["holds"][-1]
        hold.update(
            number=p["number"], verdict=p["verdict"], resolved_by=p["resolved_by"], resolved_at=at
        )

    def _on_claim_called(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.game(env)["claims"].append(
            {
                "claim_id": p["claim_id"],
                "kind": p["kind"],
                "series_id": p["series_id"],
                "card_number": p["card_number"],
                "ordinal": p["ordinal"],
                "called_at": at,
                "grid": p["grid"],
                "result": "pending",
                "reason": None,
                "detail": "",
                "rows": [],
            }
        )

    def _on_claim_verified(self, env: EventEnvelope, p: Json, at: str) -> None:
        for claim in self.game(env)["claims"]:
            if claim["claim_id"] == p["claim_id"]:
                claim.update(
                    result="valid" if p["valid"] else "invalid",
                    reason=p["reason"],
                    detail=p["detail"],
                    rows=p["rows"],
                    missing=p["missing"],
                    completed_at=p["completed_at"],
                    verified_at=at,
                )

    def _on_any_more_asked(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.game(env)["any_more"].append(
            {"ordinal": p["ordinal"], "asked_at": at, "order": None, "order_at": None}
        )

    def _on_draw_resumed(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.game(env).setdefault("resumed_after_false_claims", []).append(
            {"ordinal": p["ordinal"], "at": at}
        )

    def _on_order_given(self, env: EventEnvelope, p: Json, at: str) -> None:
        window = self.game(env)["any_more"][-1]
        window.update(order=p["order"], order_at=at, actor=env.actor)

    def _on_prize_split(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.game(env)["prizes"].append(
            {
                "kind": p["kind"],
                "ordinal": p["ordinal"],
                "pot": p["pot"],
                "share": p["share"],
                "residue": p["residue"],
                "winners": p["winners"],
            }
        )

    def _on_line_prize_unclaimed(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.game(env)["line_unclaimed"] = p

    def _on_game_finished(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        game["status"], game["finished_at"], game["finished_seq"] = "finished", at, env.seq

    def _on_game_voided(self, env: EventEnvelope, p: Json, at: str) -> None:
        game = self.game(env)
        game["status"], game["finished_at"], game["finished_seq"] = "voided", at, env.seq
        game["void"] = {
            "at": at,
            "actor": env.actor,
            **p,
            "refunds_paid": [],  # the Cajero's refunds, in this session or a later one
            "refunds_owed": [_range(r) for r in p["refunds"]],  # what is still owed, as of now
            "refunded_total": "0",
            "owed_total": _money(p["refund_total"]),
        }

    def _on_refund_paid(self, env: EventEnvelope, p: Json, at: str) -> None:
        """Under the void of the game it refunds; and, paid in a later session, in that
        session's acta too (whose cash paid it)."""
        game = self.games.get(p["game_id"])
        if game is None or game["void"] is None:
            return
        void = game["void"]
        payment = {"at": at, "seq": env.seq, "actor": env.actor, "session_id": env.session_id, **p}
        void["refunds_paid"].append(payment)
        void["refunds_owed"] = _less(void["refunds_owed"], p["series_id"], p["first"], p["last"])
        void["refunded_total"] = _money(Decimal(void["refunded_total"]) + Decimal(p["amount"]))
        void["owed_total"] = _money(
            sum((Decimal(r["amount"]) for r in void["refunds_owed"]), Decimal(0))
        )
        if env.session_id != game["session_id"] and env.session_id in self.sessions:
            later = self.sessions[env.session_id]["refunds_paid_for_earlier_sessions"]
            later.append({**payment, "game_session_id": game["session_id"]})

    # players' requests for information and complaints (S77 L2427-2432)
    def _on_player_request_recorded(self, env: EventEnvelope, p: Json, at: str) -> None:
        request = {
            **p,
            "at": at,
            "actor": env.actor,
            "session_id": env.session_id,
            "game_id": env.game_id,
            **_answered(p.get("answer"), env, at),
        }
        self.requests[p["request_id"]] = request
        self.session(env)["player_requests"].append(request)

    def _on_player_request_answered(self, env: EventEnvelope, p: Json, at: str) -> None:
        """Under the request; and, answered in a later session, in that session's acta too."""
        request = self.requests[p["request_id"]]
        request.update(_answered(p["answer"], env, at))
        if env.session_id != request["session_id"]:
            # as it stood when answered, under the game during which it was answered
            later = {**request, "request_game_id": request["game_id"], "game_id": env.game_id}
            self.session(env)["answers_for_earlier_sessions"].append(later)

    def _on_prize_paid(self, env: EventEnvelope, p: Json, at: str) -> None:
        """Under the game it pays; and, paid in a later session, in that session's acta too
        (whose cash paid it)."""
        game = self.games.get(p["game_id"])
        if game is None:
            return
        payment = {
            "at": at,
            "seq": env.seq,
            "actor": env.actor,
            "session_id": env.session_id,
            **p,
        }
        game["payments"].append(payment)
        if env.session_id != game["session_id"] and env.session_id in self.sessions:
            later = self.sessions[env.session_id]["prizes_paid_for_earlier_sessions"]
            later.append({**payment, "game_session_id": game["session_id"]})


def _range(sold: Json, first: int | None = None, last: int | None = None) -> Json:
    """A range of a series' cards at face value, with its count and amount."""
    first = sold["first"] if first is None else first
    last = sold["last"] if last is None else last
    cards = last - first + 1
    return {
        "series_id": sold["series_id"],
        "first": first,
        "last": last,
        "cards": cards,
        "face_value": sold["face_value"],
        "amount": _money(Decimal(sold["face_value"]) * cards),
    }


def _less(owed: list[Json], series_id: str, first: int, last: int) -> list[Json]:
    """The ranges owed, less the cards first..last of a series (a refund paid)."""
    left = []
    for r in owed:
        if r["series_id"] != series_id or r["last"] < first or last < r["first"]:
            left.append(r)
            continue
        if r["first"] < first:
            left.append(_range(r, r["first"], first - 1))
        if last < r["last"]:
            left.append(_range(r, last + 1, r["last"]))
    return left


def _guess_drawn(game: Json, camera: Json | None) -> bool:
    """The camera's guess is a ball the game has already drawn: the ball before, in view."""
    guess = (camera or {}).get("guess")
    return guess is not None and guess in {ball["number"] for ball in game["balls"]}


def _answered(answer: str | None, env: EventEnvelope, at: str) -> Json:
    """A request's answer, and when, by whom and in which session it was given (None: not
    answered)."""
    given = answer is not None
    return {
        "answer": answer,
        "answer_at": at if given else None,
        "answer_actor": env.actor if given else None,
        "answer_session_id": env.session_id if given else None,
    }


def chain_json(chain: ChainReport) -> Json:
    """The verdict of a stream's hash chain, as a record states it."""
    return {
        "ok": chain.ok,
        "events": chain.events,
        "last_seq": chain.last_seq,
        "last_hash": chain.last_hash,
        "problem": chain.problem,
    }


class NotInLog(LookupError):
    """A record asked of what the log does not hold: its message in English, and a reason of
    the refusals' catalogue with its parameters for the pages to say it in theirs."""

    def __init__(self, reason: str, **params: Param) -> None:
        super().__init__(english(reason, params))
        self.reason = reason
        self.params = params


class AlteredLog(Exception):
    """The log does not verify, and the acta cannot be composed from what is left of it."""

    def __init__(self, chain: ChainReport, cause: Exception) -> None:
        self.chain = chain
        super().__init__(
            f"Cadena de hash del registro: NO VERIFICA — {chain.problem}\n"
            f"El acta no puede componerse de un registro alterado ({type(cause).__name__}: "
            f"{cause})"
        )


def build_acta(
    hall_id: str,
    envelopes: Iterable[EventEnvelope],
    chain: ChainReport,
    session_id: int | None = None,
    game_id: int | None = None,
) -> Json:
    """The acta of one session (all its games) or of one game, with the chain's verdict.

    LookupError for a session or game the log does not hold; AlteredLog when the chain does
    not verify and what is left of the log cannot be composed (an event the acta rests on was
    deleted or changed): the break is reported as such, never as a user's mistake."""
    try:
        return _build(hall_id, envelopes, chain, session_id, game_id)
    except Exception as error:
        if chain.ok:
            raise
        raise AlteredLog(chain, error) from error


def _build(
    hall_id: str,
    envelopes: Iterable[EventEnvelope],
    chain: ChainReport,
    session_id: int | None,
    game_id: int | None,
) -> Json:
    builder = _ActaBuilder()
    for envelope in envelopes:
        builder.add(envelope)
    if game_id is not None:
        game = builder.games.get(game_id)
        if game is None:
            raise NotInLog("no_such_game", hall=hall_id, game=game_id)
        session = dict(builder.sessions[game["session_id"]])
        session["games"] = [game]
        # of the session's money lines and players' requests, this game's alone
        for lines in (
            "prizes_paid_for_earlier_sessions",
            "unpaid_at_close",
            "refunds_paid_for_earlier_sessions",
            "refunds_owed_at_close",
            "player_requests",
            "answers_for_earlier_sessions",
            "unanswered_at_close",
        ):
            session[lines] = [line for line in session[lines] if line["game_id"] == game_id]
    else:
        if session_id not in builder.sessions:
            raise NotInLog("no_such_session", hall=hall_id, session=str(session_id))
        session = builder.sessions[session_id]  # type: ignore[index]
    return {
        "hall": hall_id,
        "scope": {"session": session_id, "game": game_id},
        "session": session,
        "chain": chain_json(chain),
    }
