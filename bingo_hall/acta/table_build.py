"""The record of a casino table's session, built from its stream of the hall's log as plain JSON.

What an inspector checks of a table (spec wheels.md §7): the session (game, profile, layouts,
limits, float and top-ups, opening, closing and seal, closures for a while), the staff (heads,
deputies, the spinning rotation, who resumed play), each coup (who spun it and which way, the
times of «hagan juego», «no va más» and the outcome, every void, every bet with who entered it
and what became of it, the zero choices, the settlement and the payments in order), the changes
of limits asked for (applied, announced or refused), the colour chips and the value-chip bets.
Every entry carries the time and the login the log recorded with its event.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from bingo_hall.acta.build import AlteredLog, NotInLog, chain_json
from bingo_hall.store.eventlog import ChainReport, EventEnvelope

Json = dict[str, Any]


def _at(envelope: EventEnvelope) -> str:
    return envelope.time.isoformat(timespec="microseconds")


class _TableRecordBuilder:
    """Folds one table's envelopes (in seq order) into its sessions."""

    def __init__(self) -> None:
        self.sessions: dict[int, Json] = {}
        self.current: Json | None = None  # the open session

    def add(self, envelope: EventEnvelope) -> None:
        handler = getattr(self, f"_on_{envelope.type.removeprefix('table_')}", None)
        if handler is not None:
            handler(envelope, envelope.payload, _at(envelope))

    @property
    def session(self) -> Json:
        assert self.current is not None, "a table's events between sessions are only openings"
        return self.current

    def coup(self, number: int) -> Json:
        coups = self.session["coups"]
        if not coups or coups[-1]["coup"] != number:
            coups.append(
                {
                    "coup": number,
                    "last_coup": False,
                    "bets_opened_at": None,
                    "bets_opened_by": None,
                    "timeline": [],  # spins, «no va más», voids, late bets, outcome, zeros
                    "outcome": None,
                    "bets": [],
                    "settlement": None,
                    "settled_at": None,
                    "payments": [],
                    "carried": [],
                    "paid_at": None,
                }
            )
        return coups[-1]

    # --- the session
    def _on_opened(self, env: EventEnvelope, p: Json, at: str) -> None:
        table = p["table"]
        seal = {
            "expected": p.get("seal_expected"),
            "found": p.get("seal_found"),
            "note": p.get("seal_note"),
        }
        closed_before = self.sessions.get(p["session_id"] - 1)
        if closed_before is not None and seal["expected"] is not None:
            closed_before["seal_checks"].append(
                _seal_check(env, at, seal["found"], seal["expected"], p["session_id"], seal["note"])
            )
        self.current = self.sessions[p["session_id"]] = {
            "session_id": p["session_id"],
            "table_id": p["table_id"],
            "game": table["game"],
            "profile": table["profile_id"],
            "currency": table.get("currency", "EUR"),
            "layouts": p.get("layouts", 1),
            "minimum_exemption": p.get("minimum_exemption"),
            "opened_at": at,
            "opened_by": env.actor,
            "seal_at_opening": seal,
            "head_at_opening": p.get("head"),
            "limits": p["choice"],
            "resolved_limits": p["limits"],
            "float": {"issued": p.get("float_amount"), "top_ups": [], "at_close": None},
            "staff": [],
            "limit_changes": [],
            "closures": [],
            "last_coups": None,
            "value_chip_bets": [],
            "colour_chips": [],
            "colour_ledger": [],
            "exchanges": [],
            "cash_box_at_close": None,
            "count": None,
            "coups": [],
            "closed_at": None,
            "closed_by": None,
            "seal": None,
            "seal_checks": [],  # the seal checked when the table next opened, or tried to
            "coups_played": None,
            "spins_per_croupier": {},
            "closed_while_suspended": False,
        }

    def _on_closed(self, env: EventEnvelope, p: Json, at: str) -> None:
        session = self.session
        session.update(
            closed_at=at,
            closed_by=env.actor,
            seal=p["seal"],
            coups_played=p["coups"],
            spins_per_croupier=p.get("spins", {}),
            closed_while_suspended=p.get("suspended", False),
            colour_ledger=p.get("colour_chips", []),
            cash_box_at_close=p.get("cash_box", "0"),
            count=_count(p),
        )
        session["float"]["at_close"] = p.get("float_amount")
        self.current = None

    def _on_seal_mismatch_found(self, env: EventEnvelope, p: Json, at: str) -> None:
        closed = self.sessions[p["session_id"]]
        closed["seal_checks"].append(_seal_check(env, at, p["found"], p["expected"], None, None))

    def _on_head_taken(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["staff"].append(
            {
                "at": at,
                "what": "head_taken",
                "who": p["head"],
                "role": p.get("role", "table_head"),
                "relieves": p.get("previous"),
                "by": env.actor,
            }
        )

    def _on_spin_rotation_set(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["staff"].append(
            {"at": at, "what": "rotation_set", "croupiers": p["croupiers"], "by": p["set_by"]}
        )

    def _on_suspended(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["closures"].append(
            {
                "suspended_at": at,
                "key_held_by": p["key_held_by"],
                "float_locked": p.get("float_amount"),
                "closes_at": p.get("closes_at"),
                "resumed_at": None,
                "unlocked_by": None,
                "croupier": None,
                "head": None,
                "head_role": None,
            }
        )

    def _on_resumed(self, env: EventEnvelope, p: Json, at: str) -> None:
        closure = self.session["closures"][-1]
        closure.update(
            resumed_at=at,
            unlocked_by=p["unlocked_by"],
            croupier=p["croupier"],
            head=p["head"],
            head_role=p.get("head_role", "table_head"),
        )
        self.session["staff"].append(
            {"at": at, "what": "resumed", "who": p["head"], "role": closure["head_role"]}
        )

    # --- money beside the bets
    def _on_float_topped_up(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["float"]["top_ups"].append(
            {
                "at": at,
                "amount": p["amount"],
                "ordered_by": p["ordered_by"],
                "with": "order",
                "float_after": p.get("float_amount"),
            }
        )

    def _limit_change(self, env: EventEnvelope, p: Json, at: str, status: str) -> Json:
        change = {
            "at": at,
            "status": status,
            "requested_by": p["requested_by"],
            "previous": p.get("previous"),
            "limits": p["choice"],
            "authorisation": p.get("authorisation", ""),
            "float_top_up": p.get("float_top_up", "0"),
            "old_limit_coups": p.get("old_limit_coups"),
            "applies_from_coup": None,
            "applied_at": None,
            "reason": None,
        }
        self.session["limit_changes"].append(change)
        top_up = Decimal(change["float_top_up"])
        if top_up:
            self.session["float"]["top_ups"].append(
                {
                    "at": at,
                    "amount": change["float_top_up"],
                    "ordered_by": p["requested_by"],
                    "with": "limits",
                    "float_after": None,
                }
            )
        return change

    def _on_limits_change_announced(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._limit_change(env, p, at, "announced")

    def _on_limits_changed(self, env: EventEnvelope, p: Json, at: str) -> None:
        changes = self.session["limit_changes"]
        announced = next((c for c in reversed(changes) if c["status"] == "announced"), None)
        if (
            announced is not None
            and announced["limits"] == p["choice"]
            and not p.get("authorisation")
        ):  # an announced change falling due after its last balls (EUS L304)
            coups = self.session["coups"]
            announced.update(
                status="applied",
                applied_at=at,
                applies_from_coup=(coups[-1]["coup"] + 1) if coups else 1,
            )
            return
        change = self._limit_change(env, p, at, "applied")
        change["applied_at"] = at

    def _on_limits_change_refused(self, env: EventEnvelope, p: Json, at: str) -> None:
        change = self._limit_change(env, p | {"previous": p["current"]}, at, "refused")
        change.update(reason=p["reason"], phase=p["phase"])

    def _on_exchange_made(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["exchanges"].append(
            {
                "at": at,
                "kind": p["kind"],
                "amount": p["amount"],
                "croupier": p["croupier"],
                "controlled_by": p["controlled_by"],
                "player": p.get("player"),
                "cash_box": p["cash_box"],
                "by": env.actor,
            }
        )

    def _on_last_coups_announced(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["last_coups"] = {
            "at": at,
            "by": env.actor,
            "coups": p["coups"],
            "counting_current": p["counting_current"],
        }

    def _on_value_chip_bets_set(self, env: EventEnvelope, p: Json, at: str) -> None:
        self.session["value_chip_bets"].append(
            {"at": at, "allowed": p["allowed"], "set_by": p["set_by"]}
        )

    def _colour_move(self, env: EventEnvelope, p: Json, what: str, chips: int, value: str) -> None:
        self.session["colour_chips"].append(
            {
                "at": _at(env),
                "what": what,
                "colour": p["colour"],
                "player": p["player"],
                "chips": chips,
                "unit_value": p["unit_value"],
                "value": value,
                "by": env.actor,
            }
        )

    def _on_colour_chips_issued(self, env: EventEnvelope, p: Json, at: str) -> None:
        chips = p.get("chips", 0)
        self._colour_move(env, p, "issued", chips, str(Decimal(p["unit_value"]) * chips))

    def _on_colour_chips_returned(self, env: EventEnvelope, p: Json, at: str) -> None:
        what = "returned_and_left" if p["leaves"] else "returned"
        self._colour_move(env, p, what, p["chips"], p["value"])

    # --- the coups
    def _on_bets_opened(self, env: EventEnvelope, p: Json, at: str) -> None:
        coup = self.coup(p["coup"])
        coup.update(last_coup=p["last_coup"])
        if coup["bets_opened_at"] is None:  # a void that opens betting again keeps the first
            coup.update(bets_opened_at=at, bets_opened_by=env.actor)

    def _moment(self, env: EventEnvelope, coup: int, what: str, **details: Any) -> None:
        """One step of a coup, in the log's order."""
        self.coup(coup)["timeline"].append(
            {"seq": env.seq, "at": _at(env), "by": env.actor, "what": what, **details}
        )

    def _on_spun(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._moment(
            env,
            p["coup"],
            "spin",
            spun_by=p["spun_by"],
            direction=p.get("direction"),
            relaunch=p.get("relaunch", False),
        )

    def _on_bet_placed(self, env: EventEnvelope, p: Json, at: str) -> None:
        bet = p["bet"]
        self.coup(p["coup"])["bets"].append(
            {
                "id": bet["id"],
                "type": bet["type"],
                "numbers": bet["numbers"],
                "amount": bet["amount"],
                "player": bet.get("player"),
                "colour": bet.get("colour"),
                "placed_at": at,
                "placed_by": env.actor,
                "withdrawn_at": None,
                "withdrawn_by": None,
                "carried_in": False,
                "status": None,
                "returns": None,
            }
        )

    def _on_bet_withdrawn(self, env: EventEnvelope, p: Json, at: str) -> None:
        for bet in self.coup(p["coup"])["bets"]:
            if bet["id"] == p["bet_id"] and bet["withdrawn_at"] is None:
                bet.update(withdrawn_at=at, withdrawn_by=env.actor)

    def _on_late_bet_returned(self, env: EventEnvelope, p: Json, at: str) -> None:
        request = p["request"]
        self._moment(
            env,
            p["coup"],
            "late_bet_returned",
            bet=request["id"],
            type=request["type"],
            amount=request.get("amount"),
            player=request.get("player"),
            colour=request.get("colour"),
        )

    def _on_no_more_bets(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._moment(env, p["coup"], "no_more_bets")

    def _on_coup_voided(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._moment(
            env,
            p["coup"],
            "void",
            reason=p["reason"],
            declared_by=p["declared_by"],
            role=p.get("role"),
            no_head_present=p.get("no_head_present", False),
            previous_outcome=p.get("previous_outcome"),
            revolutions=p.get("revolutions"),
            bets_open=p["bets_open"],
        )
        self.coup(p["coup"])["outcome"] = None

    def _on_outcome_recorded(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._moment(
            env, p["coup"], "outcome", outcome=p["outcome"], revolutions=p.get("revolutions")
        )
        self.coup(p["coup"])["outcome"] = p["outcome"]

    def _on_zero_option_chosen(self, env: EventEnvelope, p: Json, at: str) -> None:
        self._moment(
            env,
            p["coup"],
            "zero_choice",
            bet=p["bet_id"],
            choice=p["choice"],
            declared_by=p["declared_by"],
        )

    def _on_coup_settled(self, env: EventEnvelope, p: Json, at: str) -> None:
        coup = self.coup(p["coup"])
        settlement = p["settlement"]
        coup.update(settlement=settlement, settled_at=at)
        placed = {bet["id"]: bet for bet in coup["bets"] if bet["withdrawn_at"] is None}
        for result in settlement["results"]:
            bet = placed.get(result["id"])
            if bet is None:  # in prison from an earlier coup: on the layout, placed before
                bet = {
                    "id": result["id"],
                    "type": result["type"],
                    "numbers": result["numbers"],
                    "amount": result["stake"],
                    "player": result.get("player"),
                    "colour": None,
                    "placed_at": None,
                    "placed_by": None,
                    "withdrawn_at": None,
                    "withdrawn_by": None,
                    "carried_in": True,
                }
                coup["bets"].append(bet)
            bet.update(
                status=result["status"],
                stake=result["stake"],
                returns=result["returns"],
                carried=result.get("carried", "0"),
                residue=result.get("residue", "0"),
                zero_choice=result.get("zero_choice"),
                forced=result.get("forced"),
                prison_after=result.get("prison", 0),
            )

    def _on_coup_paid(self, env: EventEnvelope, p: Json, at: str) -> None:
        coup = self.coup(p["coup"])
        coup.update(
            payments=p["payments"],
            carried=[bet["id"] for bet in p["carried"]],
            paid_at=at,
            paid_by=env.actor,
        )


def _seal_check(
    env: EventEnvelope,
    at: str,
    found: str | None,
    expected: str,
    opened_session: int | None,
    note: str | None,
) -> Json:
    """The seal found on a closed session's cylinder when the table next opened (its next
    session), or was refused to (None: a seal that differs, with no note of it)."""
    return {
        "at": at,
        "by": env.actor,
        "found": found,
        "matches": found == expected,
        "opened_session": opened_session,
        "note": note,
    }


def _count(closed: Json) -> Json:
    """The count at the close: the float counted against what it should hold, the difference
    (counted − expected; None where either is not known), and the tips."""
    counted, expected = closed.get("float_count"), closed.get("float_expected")
    difference = (
        None if counted is None or expected is None else str(Decimal(counted) - Decimal(expected))
    )
    return {
        "float_count": counted,
        "float_expected": expected,
        "difference": difference,
        "bank_result": closed.get("bank_result"),
        "tips": closed.get("tips"),
    }


def _totals(session: Json) -> Json:
    """The session's settled coups added up: what was staked, returned to the players, carried
    in prison, and what the bank kept (+) or paid (−)."""
    keys = ("staked", "returns", "carried", "residue", "bank_result")
    sums = dict.fromkeys(keys, Decimal(0))
    settled = 0
    for coup in session["coups"]:
        settlement = coup["settlement"]
        if settlement is None:
            continue
        settled += 1
        for key in keys:
            sums[key] += Decimal(settlement["totals"][key])
    return {"coups_settled": settled, **{key: str(value) for key, value in sums.items()}}


def build_table_record(
    hall_id: str,
    table_id: str,
    envelopes: Iterable[EventEnvelope],
    chain: ChainReport,
    session_id: int | None = None,
) -> Json:
    """The record of one session of a table (its latest when `session_id` is None), with the
    verdict of its stream's hash chain. LookupError naming the sessions there are for one the
    log does not hold; AlteredLog when the chain does not verify and what is left of the
    stream cannot be composed."""
    try:
        builder = _TableRecordBuilder()
        for envelope in envelopes:
            builder.add(envelope)
    except Exception as error:
        if chain.ok:
            raise
        raise AlteredLog(chain, error) from error
    if not builder.sessions:
        raise NotInLog("table_never_opened", table=table_id)
    chosen = max(builder.sessions) if session_id is None else session_id
    session = builder.sessions.get(chosen)
    if session is None:
        raise NotInLog(
            "no_such_table_session", table=table_id, session=chosen, sessions=list(builder.sessions)
        )
    return {
        "hall": hall_id,
        "table": table_id,
        "sessions": sorted(builder.sessions),
        "session": session | {"totals": _totals(session)},
        "chain": chain_json(chain),
    }
