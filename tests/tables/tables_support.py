"""Helpers for the table tests: the profiles as shipped, tables, limits and bets in one line."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables import commands as c
from bingo_hall.tables.bets import Bet, BetRequest, check_bet
from bingo_hall.tables.config import load_table_profiles
from bingo_hall.tables.decide import decide
from bingo_hall.tables.events import TableEvent
from bingo_hall.tables.evolve import evolve
from bingo_hall.tables.floats import minimum_float
from bingo_hall.tables.limits import LimitChoice, ResolvedLimits, resolve_limits
from bingo_hall.tables.profiles import (
    BouleRules,
    FortuneRules,
    GameName,
    RouletteRules,
    SpinDirection,
    TableGame,
    table_game,
)
from bingo_hall.tables.settlement import Settlement, settle
from bingo_hall.tables.spinning import direction_due
from bingo_hall.tables.state import TableState

PROFILES = load_table_profiles()
NOW = datetime(2024, 5, 1, 21, 0, tzinfo=UTC)

# Every (profile, game) the catalogues have.
GAMES = [(p, g.value) for p, profile in PROFILES.items() for g in profile.games]


def table(profile: str, game: str | GameName) -> TableGame:
    return table_game(PROFILES[profile], game)


def default_choice(t: TableGame, minimum: str = "1", **fields: object) -> LimitChoice:
    rules = t.rules
    base: dict[str, object] = {"minimum": Decimal(minimum)}
    if isinstance(rules, RouletteRules):
        base["tier"] = max(rules.tiers())
    if isinstance(rules, FortuneRules):
        base["maximum"] = Decimal(minimum) * 1000
    if isinstance(rules, BouleRules):
        base["tier"] = rules.number_maximum_band[1]
    base.update(fields)
    return LimitChoice.model_validate(base)


def limits(t: TableGame, minimum: str = "1", **fields: object) -> ResolvedLimits:
    return resolve_limits(t.rules, default_choice(t, minimum, **fields))


def bet(
    t: TableGame,
    kind: str,
    numbers: tuple = (),
    amount: str = "10",
    lim: ResolvedLimits | None = None,
    id: str = "b",
    **fields: object,
) -> Bet:
    request = BetRequest(id=id, type=kind, numbers=numbers, amount=Decimal(amount), **fields)
    return check_bet(t, lim or limits(t), request)


def settle_one(
    t: TableGame, b: Bet, outcome: str, lim: ResolvedLimits | None = None, **options: object
) -> Settlement:
    return settle(t, lim or limits(t), [b], outcome, **options)  # type: ignore[arg-type]


CROUPIERS = ("ana", "luis", "marta", "iker")


class Table:
    """A table driven through decide/evolve, keeping its events (for replay tests). Its
    spinning rotation is `rotation`, by default `CROUPIERS`, as many as the profile asks (at
    least two); its float, by default the least its profile gives (none where it sets none)."""

    def __init__(
        self,
        t: TableGame,
        choice: LimitChoice | None = None,
        table_id: str = "T1",
        rotation: tuple[str, ...] | None = None,
        float_amount: Decimal | None = None,
        layouts: int = 1,
    ):
        self.state = TableState()
        self.events: list[TableEvent] = []
        choice = choice or default_choice(t)
        if float_amount is None:  # the least the profile gives, where it sets one
            float_amount = minimum_float(t, choice.minimum)
        self.do(
            c.OpenTable(
                table_id=table_id,
                table=t,
                limits=choice,
                float_amount=float_amount,
                layouts=layouts,
            )
        )
        if rotation is None:
            rotation = CROUPIERS[: max(2, t.rules.min_spinners)]
        if rotation:  # () leaves the table without one
            self.do(c.SetSpinRotation(croupiers=rotation, set_by="director"))

    def spin(self) -> list[TableEvent]:
        """The croupier whose turn it is spins, the way the profile asks."""
        table, _ = self.state.require_table()
        return self.do(
            c.Spin(
                spun_by=self.state.next_spinner or "",
                direction=direction_due(table, self.state) or SpinDirection.CLOCKWISE,
            )
        )

    def do(self, command: c.TableCommand) -> list[TableEvent]:
        events = decide(self.state, command, NOW)
        for event in events:
            self.state = evolve(self.state, event)
        self.events.extend(events)
        return events

    def open_bets(self) -> list[TableEvent]:
        """«Hagan sus apuestas», announced by the role the profile names first."""
        table, _ = self.state.require_table()
        return self.do(c.OpenBets(role=table.rules.bets_opened_by[0]))

    def coup(
        self, outcome: str, *bets: BetRequest, revolutions: int | None = None
    ) -> list[TableEvent]:
        """A whole coup: open (by whom the profile says), bets, «no va más», outcome, settle,
        pay."""
        self.open_bets()
        self.spin()
        for request in bets:
            self.do(c.PlaceBet(bet=request))
        self.do(c.CallNoMoreBets())
        out = self.do(c.RecordOutcome(outcome=outcome, revolutions=revolutions))
        if self.state.phase.value != "outcome":
            return out
        settled = self.do(c.Settle())
        return settled + self.do(c.PayCoup())


def request(id: str, kind: str, numbers: tuple = (), amount: str | None = "10", **f: object):
    value = None if amount is None else Decimal(amount)
    return BetRequest(id=id, type=kind, numbers=numbers, amount=value, **f)


def refused(table_: Table, command: c.TableCommand) -> str:
    """The refusal's message; the table is as it was."""
    before = table_.state
    with pytest.raises(RuleError) as error:
        table_.do(command)
    assert table_.state == before
    return error.value.message
