"""Money: Decimal only, with the one rounding rule the system uses.

Rule: every amount the hall pays (a prize, a share of a prize) is rounded *down* to the
profile's rounding unit (one cent by default). What rounding leaves behind is never lost:
it is returned as a residue and recorded in the acta.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

CENT = Decimal("0.01")


def round_down(amount: Decimal, unit: Decimal = CENT) -> Decimal:
    """Round down to a whole number of units (never pays more than is due)."""
    return (amount / unit).to_integral_value(rounding=ROUND_DOWN) * unit


def percentage_of(base: Decimal, percent: Decimal, unit: Decimal = CENT) -> Decimal:
    """`percent` % of `base`, rounded down to `unit`."""
    return round_down(base * percent / Decimal(100), unit)


def split_equally(pot: Decimal, ways: int, unit: Decimal = CENT) -> tuple[Decimal, Decimal]:
    """Split `pot` into `ways` equal shares rounded down to `unit`.

    Returns (share, residue) with share * ways + residue == pot, 0 <= residue < ways * unit.
    """
    if ways <= 0:
        raise ValueError("a pot is split among at least one winner")
    share = round_down(pot / ways, unit)
    residue = pot - share * ways
    return share, residue
