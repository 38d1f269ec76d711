"""The order in which winners are paid, as the texts give it (spec §2.10, §3.7, §6.5).

Losing bets are collected first; then every payment (a winning position, a half back, a stake
freed from prison) is made in the profile's order: by bet type (roulette), from the smallest
bet to the largest (WOF L33), or as placed where no order is prescribed. A sector bet's
winning chips sort under their own position type [INFERRED]. Under the American rule «si un
jugador tiene varias combinaciones ganadoras, se pagan todas de una sola vez» (N79 L262) a
player's wins are paid together, at his first place in the order; EUS L366 leaves his even
chances at their own place.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from bingo_hall.tables.catalogue import EVEN_CHANCES, PAYMENT_KIND
from bingo_hall.tables.profiles import CoupRules, Model, PaymentRule

if TYPE_CHECKING:
    from bingo_hall.tables.settlement import BetResult


class Payment(Model):
    bet: str
    kind: str  # the position paid: straight, split, …, red, number, segment
    amount: Decimal
    player: str | None = None


def payment_order(rules: CoupRules, results: Sequence[BetResult]) -> tuple[Payment, ...]:
    indexed = [
        (index, result.stake, payment)
        for index, result in enumerate(results)
        for payment in result.payments
    ]
    if rules.payment_rule is PaymentRule.SMALLEST_FIRST:
        indexed.sort(key=lambda item: (item[1], item[0]))
        return tuple(payment for _, _, payment in indexed)
    if rules.payment_rule is PaymentRule.AS_PLACED:
        return tuple(payment for _, _, payment in indexed)
    rank = {kind: position for position, kind in enumerate(rules.payment_order)}
    indexed.sort(key=lambda item: (rank[PAYMENT_KIND[item[2].kind]], item[0]))
    ordered = [payment for _, _, payment in indexed]
    if rules.pay_player_wins_at_once:
        ordered = _at_once(ordered, rules.at_once_excludes_even_chances)
    return tuple(ordered)


def _at_once(ordered: list[Payment], except_even_chances: bool) -> list[Payment]:
    """Each player's payments together, at the place of his first one."""

    def grouped(payment: Payment) -> bool:
        return payment.player is not None and not (
            except_even_chances and payment.kind in EVEN_CHANCES
        )

    result: list[Payment] = []
    done: set[str] = set()
    for payment in ordered:
        if not grouped(payment):
            result.append(payment)
            continue
        assert payment.player is not None
        if payment.player in done:
            continue
        done.add(payment.player)
        result.extend(p for p in ordered if grouped(p) and p.player == payment.player)
    return result
