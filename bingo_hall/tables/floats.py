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
from bingo_hall.domain.refusals import Param, Term
from bingo_hall.tables.money import is_multiple
from bingo_hall.tables.profiles import LimitChange, TableGame

LARGEST = Decimal(10) ** 15  # no float or top-up is larger: its sums stay exact
AMOUNTS = {
    "float": "a float",
    "top_up": "a float top-up",
    "exchange": "an exchange",
    "float_count": "the float counted",
    "tips": "the tips",
}
"""The amounts of the float checked, as a refusal names them (`table.amount.<name>`)."""


def minimum_float(table: TableGame, minimum: Decimal) -> Decimal | None:
    """The least float a table of this game at this minimum is given; None: the profile sets
    none (the Casino Regulation's art. 47, which does, is not among the texts)."""
    multiple = table.rules.float_minimum_multiple
    return None if multiple is None else minimum * multiple


def check_amount(table: TableGame, what: str, amount: Decimal, *, zero: bool = False) -> None:
    """An amount of the float (`what`, one of `AMOUNTS`) is positive (or, where `zero`,
    nothing) in the table's unit, and no more than `LARGEST`."""
    if (
        amount < 0
        or (amount == 0 and not zero)
        or amount > LARGEST
        or not is_multiple(amount, table.rounding_unit)
    ):
        raise RuleError.of(
            "table_amount_zero_or_more" if zero else "table_amount_positive",
            what=Term("table.amount", what, AMOUNTS[what]),
            unit=str(table.rounding_unit),
            largest=f"{LARGEST:,f}",
            amount=str(amount),
        )


def check_float(table: TableGame, minimum: Decimal, amount: Decimal | None) -> None:
    """A float is a positive amount in the table's unit, and at least the profile's minimum."""
    least = minimum_float(table, minimum)
    if amount is None:
        if least is not None:
            raise RuleError.of("table_float_needed", **_float_params(table, minimum, least))
        return
    check_amount(table, "float", amount)
    if least is not None and amount < least:
        raise RuleError.of(
            "table_float_below_minimum", **_float_params(table, minimum, least), amount=str(amount)
        )


def _float_params(table: TableGame, minimum: Decimal, least: Decimal) -> dict[str, Param]:
    multiple = table.rules.float_minimum_multiple
    assert multiple is not None, "a profile that sets a least float sets its multiple"
    return {**table.named, "least": str(least), "minimum": str(minimum), "multiple": multiple}


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
    check_amount(table, "top_up", top_up, zero=True)
    due = top_up_due(table, float_amount, old_minimum, new_minimum)
    if top_up < due:
        params: dict[str, Param] = {
            **table.named,
            "old": str(old_minimum),
            "new": str(new_minimum),
            "float": str(float_amount),
            "due": str(due),
            "top_up": str(top_up),
        }
        if table.rules.limit_change is LimitChange.WITH_AUTHORISATION:
            raise RuleError.of("table_top_up_in_proportion", **params)
        multiple = table.rules.float_minimum_multiple
        assert multiple is not None, "a top-up is due only where the profile sets a least float"
        raise RuleError.of("table_top_up_below_least", **params, multiple=multiple)
