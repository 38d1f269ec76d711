"""Table limits: what the table chose (minimum, tier …) and the per-position minima and maxima.

Roulette maxima are multiples of the table minimum, one list per bet group and one entry per
tier (spec §2.6, §3.6); boule maxima lie in bands of the authorised minimum (§5.4); the wheel
of fortune has one minimum and one maximum (§6.3).
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, field_validator

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Term
from bingo_hall.tables.profiles import BouleRules, FortuneRules, GameRules, Model, RouletteRules

# A table's limits are amounts of money: whole cents, and at most this (a stake the bets allow
# is at most 10¹⁵; a limit must leave room for the multiples the profiles take of it)
LIMIT_CENT = Decimal("0.01")
MAX_LIMIT = Decimal(10) ** 12


def limit_problem(value: Decimal) -> str | None:
    """Why an amount cannot be a table limit, or None."""
    if not value.is_finite() or value <= 0:
        return "must be a positive amount"
    if value > MAX_LIMIT:
        return f"must be at most {MAX_LIMIT:,}"
    if value != value.quantize(LIMIT_CENT):
        return "must be a whole number of cents"
    return None


class LimitChoice(Model):
    """What the authorisation and the casino fixed for one table."""

    minimum: Decimal = Field(gt=0)  # the authorised table minimum
    tier: int | None = None  # roulette: straight-up maximum ×minimum; boule: number maximum
    even_tier: int | None = None  # boule: even-chance maximum ×minimum
    maximum: Decimal | None = None  # wheel of fortune: the table maximum
    layout_minimum: int = 1  # boule: this layout plays at 1 or 2 × the authorised minimum
    even_minimum: int = 1  # roulette: even-chance minimum ×minimum (EUS L294, AST L358)
    even_multiples: bool = False  # even-chance stakes must be multiples of their minimum

    @field_validator("minimum", "maximum")
    @classmethod
    def _an_amount(cls, value: Decimal | None) -> Decimal | None:
        if value is not None and (problem := limit_problem(value)) is not None:
            raise ValueError(problem)
        return value


class BetLimit(Model):
    minimum: Decimal
    maximum: Decimal


class ResolvedLimits(Model):
    """The limits in force: per limit group (straight, split, …, even_chance, number, segment)."""

    table_minimum: Decimal
    groups: dict[str, BetLimit]
    even_multiples_of: Decimal | None = None

    def of(self, group: str) -> BetLimit:
        return self.groups[group]


def resolve_limits(rules: GameRules, choice: LimitChoice) -> ResolvedLimits:
    """The limits a choice gives under the rules, or a RuleError saying what is not allowed."""
    if isinstance(rules, RouletteRules):
        return _roulette(rules, choice)
    if isinstance(rules, BouleRules):
        return _boule(rules, choice)
    return _fortune(rules, choice)


def default_tier(rules: RouletteRules) -> int:
    return max(rules.tiers())


def _roulette(rules: RouletteRules, choice: LimitChoice) -> ResolvedLimits:
    tiers = rules.tiers()
    tier = choice.tier if choice.tier is not None else (tiers[0] if len(tiers) == 1 else None)
    if tier is None:
        raise RuleError.of("table_tier_needed", tiers=[str(t) for t in tiers])
    if tier not in tiers:
        raise RuleError.of("table_tier_not_allowed", tier=tier, tiers=[str(t) for t in tiers])
    if not 1 <= choice.even_minimum <= rules.even_minimum_max_multiple:
        raise RuleError.of(
            "table_even_minimum_range",
            most=rules.even_minimum_max_multiple,
            given=choice.even_minimum,
        )
    if choice.even_multiples and not rules.even_multiples_allowed:
        raise RuleError.of("table_even_multiples_not_allowed")
    column = tiers.index(tier)
    minimum = choice.minimum
    groups = {
        group: BetLimit(minimum=minimum, maximum=minimum * row[column])
        for group, row in rules.maxima.items()
    }
    even_minimum = minimum * choice.even_minimum
    groups["even_chance"] = BetLimit(minimum=even_minimum, maximum=groups["even_chance"].maximum)
    return ResolvedLimits(
        table_minimum=minimum,
        groups=groups,
        even_multiples_of=even_minimum if choice.even_multiples else None,
    )


def _in_band(value: int | None, band: tuple[int, int], refusal: str) -> int:
    low, high = band
    if value is None:
        return high
    if not low <= value <= high:
        raise RuleError.of(refusal, low=low, high=high, given=value)
    return value


def _boule(rules: BouleRules, choice: LimitChoice) -> ResolvedLimits:
    if choice.layout_minimum not in rules.layout_minimum_multiples:
        raise _layout_refused(rules.layout_minimum_multiples, choice.layout_minimum)
    number = _in_band(choice.tier, rules.number_maximum_band, "table_number_maximum_band")
    even = _in_band(choice.even_tier, rules.even_maximum_band, "table_even_maximum_band")
    authorised = choice.minimum
    layout = authorised * choice.layout_minimum
    return ResolvedLimits(
        table_minimum=layout,
        groups={
            "number": BetLimit(minimum=layout, maximum=authorised * number),
            "even_chance": BetLimit(minimum=layout, maximum=authorised * even),
        },
    )


def _layout_refused(multiples: tuple[int, ...], given: int) -> RuleError:
    """A boule layout's minimum, «1 or 2» times the authorised one, refused."""
    *others, last = (str(m) for m in multiples)
    if not others:
        return RuleError.of("table_layout_minimum_one", multiple=last, given=given)
    return RuleError.of("table_layout_minimum", multiples=others, last=last, given=given)


def _fortune(rules: FortuneRules, choice: LimitChoice) -> ResolvedLimits:
    if choice.maximum is None:
        raise RuleError.of("table_fortune_maximum_needed")
    if choice.maximum < choice.minimum:
        raise RuleError.of(
            "table_maximum_below_minimum", maximum=str(choice.maximum), minimum=str(choice.minimum)
        )
    return ResolvedLimits(
        table_minimum=choice.minimum,
        groups={"segment": BetLimit(minimum=choice.minimum, maximum=choice.maximum)},
    )


def minimum_table_problem(
    game: str, minimum: Decimal, at_minimum: dict[str, bool]
) -> RuleError | None:
    """Why the open tables of a game (table → whether it plays at the authorised minimum, a
    change asked for counting from the request) break the rule that the casino runs at least
    one of them at the minimum its authorisation sets for the game (N79 L216, AST L258-279, EUS
    L308); None when they keep it, or none is open."""
    if not at_minimum or any(at_minimum.values()):
        return None
    return RuleError.of(
        "table_all_above_minimum" if len(at_minimum) > 1 else "table_one_above_minimum",
        game=Term("table.game", game),
        tables=sorted(at_minimum),
        minimum=str(minimum),
    )


def boule_floor_problem(layouts: dict[str, int]) -> RuleError | None:
    """Why the boule layouts open in the establishment (table → the multiple of the authorised
    minimum it plays at) break the rule that lets a layout play at twice that minimum only
    while another keeps it (N79 L440, N77 L728-734, EUS L668); None when they keep it."""
    doubled = sorted(table for table, multiple in layouts.items() if multiple != 1)
    if not doubled or len(doubled) < len(layouts):
        return None
    return RuleError.of(
        "table_boule_floor_layouts" if len(doubled) > 1 else "table_boule_floor_layout",
        tables=doubled,
    )
