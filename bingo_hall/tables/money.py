"""Table money: exact Decimal arithmetic, one rounding rule, and the JSON form of amounts.

Everything owed is computed exactly (payouts are whole or halves; the zero rule halves). What is
handed over is rounded down to the profile's unit (a cent); the rest is the residue, reported
with the bet, never lost (docs/tables.md, spec §12 Q2).
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, Inexact, localcontext
from fractions import Fraction

# Enough digits to halve any stake the limits allow (≤ 10¹⁵) sixty times exactly.
_EXACT_DIGITS = 120


def halve(amount: Decimal, times: int) -> Decimal:
    """amount / 2**times, exactly (a Decimal halving never needs more than one digit a time)."""
    if times <= 0:
        return amount
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        context.traps[Inexact] = True
        return amount / (Decimal(2) ** times)


def times(amount: Decimal, factor: Decimal) -> Decimal:
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        context.traps[Inexact] = True
        return amount * factor


def plus(a: Decimal, b: Decimal) -> Decimal:
    """a + b, exactly (a value halved in prison has more digits than the default context)."""
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        context.traps[Inexact] = True
        return a + b


def is_multiple(amount: Decimal, unit: Decimal) -> bool:
    """Exactly, whatever the amount's size (a Decimal remainder would need more digits than
    its context has for a stake of 10²⁸ units)."""
    return Fraction(amount) % Fraction(unit) == 0


def round_down(amount: Decimal, unit: Decimal) -> Decimal:
    """Down to a whole number of `unit` (never hands over more than is owed), at the unit's
    places: 2.5 → 2.50 for a cent."""
    with localcontext() as context:
        context.prec = _EXACT_DIGITS
        whole = (amount / unit).to_integral_value(rounding=ROUND_DOWN) * unit
        exponent = unit.as_tuple().exponent
        assert isinstance(exponent, int)
        return whole.quantize(Decimal(1).scaleb(min(exponent, 0)))


def money(amount: Decimal, unit: Decimal = Decimal("0.01")) -> str:
    """An amount as a string: at the unit's places when exact there, else every digit."""
    places = -unit.normalize().as_tuple().exponent  # type: ignore[operator]
    places = max(places, 0)
    quantum = Decimal(1).scaleb(-places)
    if amount == amount.quantize(quantum, rounding=ROUND_DOWN):
        return str(amount.quantize(quantum))
    return format(amount.normalize(), "f")
