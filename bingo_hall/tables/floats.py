"""A table's float («anticipo», «aurrerakina»): the house's bank the cash desk hands it for the
session, what the profile asks of it, and the top-ups a change of minimum calls for (pure).

The texts tie the float to the table's minimum: a raised minimum raises it «en las proporciones
que respectivamente correspondan» (N77 L285-290), a Basque change tops it up «beharrezkoa
balitz» (if needed, EUS L304), and the Basque wheel of fortune's is at least 15,000 times its
minimum (EUS additional provision 6.2 a, L51-53).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.money import is_multiple
from bingo_hall.tables.profiles import LimitChange, TableGame

LARGEST = Decimal(10) ** 15  # no float or top-up is larger: its sums stay exact


def minimum_float(table: TableGame, minimum: Decimal) -> Decimal | None:
    """The least float a table of this game at this minimum is given; None: the profile sets
    none (the Casino Regulation's art. 47, which does, is not among the texts)."""
    multiple = table.rules.float_minimum_multiple
    return None if multiple is None else minimum * multiple


def check_amount(table: TableGame, what: str, amount: Decimal, *, zero: bool = False) -> None:
    """An amount of the float is positive (or, where `zero`, nothing) in the table's unit, and
    no more than `LARGEST`."""
    if (
        amount < 0
        or (amount == 0 and not zero)
        or amount > LARGEST
        or not is_multiple(amount, table.rounding_unit)
    ):
        raise RuleError(
            f"{what} is {'an amount of 0 or more' if zero else 'a positive amount'} in units "
            f"of {table.rounding_unit}, up to {LARGEST:,f}, not {amount}"
        )


def check_float(table: TableGame, minimum: Decimal, amount: Decimal | None) -> None:
    """A float is a positive amount in the table's unit, and at least the profile's minimum."""
    least = minimum_float(table, minimum)
    if amount is None:
        if least is not None:
            raise RuleError(
                f"{table.label}: a table is given a float of at least {least} ({minimum} × "
                f"{table.rules.float_minimum_multiple}, EUS L51-53): configure its float"
            )
        return
    check_amount(table, "a float", amount)
    if least is not None and amount < least:
        raise RuleError(
            f"{table.label}: its float {amount} is below the {least} a table at minimum "
            f"{minimum} is given ({minimum} × {table.rules.float_minimum_multiple}, EUS L51-53)"
        )


def top_up_due(
    table: TableGame, float_amount: Decimal | None, old_minimum: Decimal, new_minimum: Decimal
) -> Decimal:
    """What a change of minimum obliges the cash desk to add to the table's float: under N77
    the float rises in proportion to the minimum; elsewhere only what the profile's minimum
    float asks (a Basque top-up beyond it is the director's judgement). 0 when the hall
    records no float for the table."""
    if float_amount is None:
        return Decimal(0)
    if table.rules.limit_change is LimitChange.WITH_AUTHORISATION:
        unit = Fraction(table.rounding_unit)
        exact = Fraction(float_amount) * Fraction(new_minimum) / Fraction(old_minimum)
        raised = math.ceil(exact / unit) * table.rounding_unit  # up to the unit, exactly
        return max(Decimal(0), raised - float_amount)
    least = minimum_float(table, new_minimum)
    return Decimal(0) if least is None else max(Decimal(0), least - float_amount)


def check_top_up(
    table: TableGame,
    float_amount: Decimal | None,
    old_minimum: Decimal,
    new_minimum: Decimal,
    top_up: Decimal,
) -> None:
    """A change of minimum brings at least the top-up it obliges, in the table's unit."""
    check_amount(table, "a float top-up", top_up, zero=True)
    due = top_up_due(table, float_amount, old_minimum, new_minimum)
    if top_up < due:
        why = (
            "the float rises in proportion to the minimum (N77 L285-290)"
            if table.rules.limit_change is LimitChange.WITH_AUTHORISATION
            else f"a float is at least {table.rules.float_minimum_multiple} times the minimum"
        )
        raise RuleError(
            f"{table.label}: raising the minimum from {old_minimum} to {new_minimum} tops the "
            f"float {float_amount} up by at least {due}, not {top_up}: {why}"
        )
