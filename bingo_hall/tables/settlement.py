"""Settlement of one coup: each bet's status and what goes back to the player (pure).

`returns` is everything handed back now (stake plus winnings, a half, a freed prison stake; 0
when lost). `carried` is what stays on the layout for the next coup (a bet in prison, every bet
of a void coup). The exact amount owed is rounded down to the profile's unit; the difference is
the bet's `residue` (docs/tables.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from enum import StrEnum

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Term
from bingo_hall.tables.bets import Bet, payout
from bingo_hall.tables.limits import ResolvedLimits
from bingo_hall.tables.money import halve, round_down, times
from bingo_hall.tables.payment import Payment, payment_order
from bingo_hall.tables.profiles import (
    Model,
    RouletteRules,
    TableGame,
    VoidReason,
    ZeroChoice,
    ZeroRule,
)
from bingo_hall.tables.zero_rule import on_zero


class BetStatus(StrEnum):
    WON = "won"
    LOST = "lost"
    PRISON = "prison"  # stays on the layout in prison, worth `carried`
    HALF_BACK = "half_back"  # a zero: half back (French choice, American rule, last coup)
    RETURNED = "returned"  # freed from prison: the imprisoned value back, no winnings
    VOID = "void"  # void coup: nothing settled, the bet stays as it was


class BetResult(Model):
    id: str
    type: str
    numbers: tuple[str, ...]
    player: str | None = None
    stake: Decimal  # the bet's value on the layout this coup (C_k for a bet in prison)
    status: BetStatus
    returns: Decimal
    residue: Decimal = Decimal(0)  # owed but below the rounding unit
    carried: Decimal = Decimal(0)
    prison: int = 0  # zeros the bet has been through (after this coup)
    zero_choice: ZeroChoice | None = None  # what was applied at a zero
    forced: str | None = None  # last_coup | below_minimum
    payments: tuple[Payment, ...] = ()


class Totals(Model):
    staked: Decimal
    returns: Decimal
    carried: Decimal
    residue: Decimal
    bank_result: Decimal  # staked − returns − carried: what the bank keeps (+) or pays (−)


class Settlement(Model):
    outcome: str | None
    void_reason: VoidReason | None = None
    last_coup: bool = False
    results: tuple[BetResult, ...]
    totals: Totals
    collected: tuple[str, ...]  # losing bets, collected first (N79 L228)
    payment_order: tuple[Payment, ...]  # then the winners, in the profile's order


def check_outcome(table: TableGame, outcome: str) -> str:
    wheel = table.rules.wheel()
    label = str(outcome).strip().lower()
    if label not in wheel.weights:
        raise RuleError.of(
            "table_outcome_not_on_wheel",
            outcome=repr(outcome),
            game=Term("table.game", table.game.value),
            pockets=list(wheel.pockets),
        )
    return label


def settle(
    table: TableGame,
    limits: ResolvedLimits,
    bets: Iterable[Bet],
    outcome: str,
    *,
    last_coup: bool = False,
    zero_choices: Mapping[str, ZeroChoice] | None = None,
    zero_choice: ZeroChoice | None = None,
) -> Settlement:
    """Settle `bets` on `outcome`. A bet's zero choice: `zero_choices[id]`, else the bet's own,
    else `zero_choice`, else the profile's default (forced choices override all)."""
    outcome = check_outcome(table, outcome)
    choices = zero_choices or {}
    results = tuple(
        _settle_bet(
            table,
            limits,
            bet,
            outcome,
            last_coup,
            choices.get(bet.id) or bet.zero_choice or zero_choice,
        )
        for bet in bets
    )
    return _settlement(table, outcome, None, last_coup, results)


def void_coup(
    table: TableGame, bets: Iterable[Bet], reason: VoidReason, *, last_coup: bool = False
) -> Settlement:
    """«Tirada nula»: nothing is settled; every bet stays, prison count included (spec §2.9)."""
    results = tuple(
        BetResult(
            id=bet.id,
            type=bet.type,
            numbers=bet.numbers,
            player=bet.player,
            stake=bet.value,
            status=BetStatus.VOID,
            returns=Decimal(0),
            carried=bet.value,
            prison=bet.prison,
        )
        for bet in bets
    )
    return _settlement(table, None, reason, last_coup, results)


def _settlement(
    table: TableGame,
    outcome: str | None,
    reason: VoidReason | None,
    last_coup: bool,
    results: tuple[BetResult, ...],
) -> Settlement:
    staked = sum((r.stake for r in results), Decimal(0))
    returns = sum((r.returns for r in results), Decimal(0))
    carried = sum((r.carried for r in results), Decimal(0))
    return Settlement(
        outcome=outcome,
        void_reason=reason,
        last_coup=last_coup,
        results=results,
        totals=Totals(
            staked=staked,
            returns=returns,
            carried=carried,
            residue=sum((r.residue for r in results), Decimal(0)),
            bank_result=staked - returns - carried,
        ),
        collected=tuple(r.id for r in results if r.status is BetStatus.LOST),
        payment_order=payment_order(table.rules, results),
    )


def _result(
    table: TableGame, bet: Bet, status: BetStatus, due: Decimal, **fields: object
) -> BetResult:
    returns = round_down(due, table.rounding_unit)
    payments = fields.pop("payments", None)
    if payments is None and returns > 0:
        payments = (Payment(bet=bet.id, kind=bet.type, amount=returns, player=bet.player),)
    return BetResult(
        id=bet.id,
        type=bet.type,
        numbers=bet.numbers,
        player=bet.player,
        stake=bet.value,
        status=status,
        returns=returns,
        residue=due - returns,
        payments=payments or (),
        **fields,  # type: ignore[arg-type]
    )


def _settle_bet(
    table: TableGame,
    limits: ResolvedLimits,
    bet: Bet,
    outcome: str,
    last_coup: bool,
    choice: ZeroChoice | None,
) -> BetResult:
    rules = table.rules
    if bet.is_even_chance and isinstance(rules, RouletteRules):
        return _even_chance(table, limits, rules, bet, outcome, last_coup, choice)
    payments = []
    due = Decimal(0)
    for chip in bet.chips:
        if outcome in chip.covers:
            paid = times(chip.amount, payout(table, chip) + 1)
            due += paid
            payments.append(Payment(bet=bet.id, kind=chip.kind, amount=paid, player=bet.player))
    if not payments:
        return _result(table, bet, BetStatus.LOST, Decimal(0))
    if len(bet.chips) == 1:
        return _result(table, bet, BetStatus.WON, due)
    return _result(table, bet, BetStatus.WON, due, payments=tuple(payments))


def _even_chance(
    table: TableGame,
    limits: ResolvedLimits,
    rules: RouletteRules,
    bet: Bet,
    outcome: str,
    last_coup: bool,
    choice: ZeroChoice | None,
) -> BetResult:
    """Red/black, even/odd, low/high at roulette, with the game's zero rule (spec §2.5, §3.5)."""
    in_chance = outcome in bet.covers
    zero = outcome in rules.wheel().zeros
    if bet.prison == 0 and in_chance:
        return _result(table, bet, BetStatus.WON, times(bet.amount, Decimal(2)))
    if bet.prison and in_chance:  # «recobran pura y simplemente su libertad»
        return _result(table, bet, BetStatus.RETURNED, bet.value)
    if not zero:
        return _result(table, bet, BetStatus.LOST, Decimal(0))
    if rules.zero_rule is ZeroRule.HALF_BACK:
        if outcome in rules.half_back_pockets:
            return _result(table, bet, BetStatus.HALF_BACK, halve(bet.amount, 1))
        return _result(table, bet, BetStatus.LOST, Decimal(0))
    assert rules.prison is not None
    verdict = on_zero(bet.amount, bet.prison, rules.prison, limits.table_minimum, last_coup, choice)
    common = {"prison": verdict.zeros, "zero_choice": verdict.choice, "forced": verdict.forced}
    if verdict.choice is ZeroChoice.HALF:
        return _result(table, bet, BetStatus.HALF_BACK, verdict.refund, **common)
    return _result(table, bet, BetStatus.PRISON, Decimal(0), carried=verdict.value, **common)
