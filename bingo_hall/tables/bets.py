"""The bet notation, and the check that turns a requested bet into the chips it puts on the layout.

A bet is `{"id", "type", "numbers", "amount"}` (docs/tables.md). A valid bet becomes a `Bet`: its
chips, each on one position of the layout (a straight-up, a split, …) with the numbers it covers.
Ordinary bets are one chip; the Basque neighbour and sector bets are several (EUS L254-270). A
malformed or impossible bet raises a RuleError that names the bet and says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from pydantic import Field, StrictInt, StrictStr, ValidationError, field_validator

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Param, Term
from bingo_hall.tables.catalogue import (
    BOULE_PAYOUTS,
    EVEN_CHANCES,
    LIMIT_GROUP,
    ROULETTE_PAYOUTS,
    SECTOR_BETS,
    canonical_type,
)
from bingo_hall.tables.limits import ResolvedLimits
from bingo_hall.tables.money import halve, is_multiple, plus
from bingo_hall.tables.profiles import (
    BouleRules,
    FortuneRules,
    Model,
    RouletteRules,
    TableGame,
    ZeroChoice,
    ZeroRule,
)
from bingo_hall.tables.wheels import BLACK_NUMBERS, RED_NUMBERS

MAX_PRISON = 60  # zeros a bet has been through; beyond this its value is below 2⁻⁶⁰ of its stake
# a position with zero refused: with those of the layout, and where it has none
ZERO_SPLIT_REFUSALS = ("table_bet_not_a_zero_split", "table_bet_not_a_zero_split_none")
ZERO_TRIO_REFUSALS = ("table_bet_not_a_zero_trio", "table_bet_not_a_zero_trio_none")


class BetRequest(Model):
    """A bet as written in a bets file or given to PlaceBet."""

    id: str = Field(min_length=1, max_length=64)
    type: str = Field(min_length=1)
    numbers: tuple[StrictInt | StrictStr, ...] = ()
    amount: Decimal | None = None
    prison: int = Field(default=0, ge=0, le=MAX_PRISON)  # zeros it has been through in prison
    zero_choice: ZeroChoice | None = None
    player: str | None = Field(default=None, min_length=1, max_length=100)
    colour: str | None = Field(default=None, min_length=1, max_length=40)
    chips: int | None = Field(default=None, ge=1)

    @field_validator("amount", mode="before")
    @classmethod
    def _no_float(cls, value: Any) -> Any:
        if isinstance(value, float):
            raise ValueError(f"give money as a decimal string, not a float: {value!r}")
        return value


class Chip(Model):
    """Money on one position of the layout."""

    kind: str  # the position: straight, split, street, trio, corner, …, red, number, segment
    covers: tuple[str, ...]
    amount: Decimal


class Bet(Model):
    """A checked bet: what it covers, as chips, and its stake."""

    id: str
    type: str
    numbers: tuple[str, ...]
    amount: Decimal  # the initial stake S (for a bet in prison: before any halving)
    chips: tuple[Chip, ...]
    prison: int = 0
    zero_choice: ZeroChoice | None = None
    player: str | None = None
    colour: str | None = None

    @property
    def value(self) -> Decimal:
        """What the bet is worth now: S, or S/2^(k-1) after k zeros in prison (spec §2.5)."""
        return halve(self.amount, max(self.prison - 1, 0))

    def worth(self, chip: Chip) -> Decimal:
        """What one of its chips is worth now: halved as the bet is in prison."""
        return halve(chip.amount, max(self.prison - 1, 0))

    @property
    def covers(self) -> frozenset[str]:
        return frozenset(p for chip in self.chips for p in chip.covers)

    @property
    def is_even_chance(self) -> bool:
        return self.type in EVEN_CHANCES


def request_from_json(data: Any, index: int) -> BetRequest:
    """One entry of a bets file; a RuleError naming the entry and the field if it is malformed."""
    where = f"bet {data.get('id')!r}" if isinstance(data, dict) and "id" in data else None
    where = where or f"bet #{index + 1}"
    if not isinstance(data, dict):
        raise RuleError(f"{where}: each bet is an object with id, type, numbers and amount")
    try:
        return BetRequest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "bet"
        message = first["msg"].removeprefix("Value error, ")
        raise RuleError(f"{where}: {field}: {message}") from None


# --- coverage ------------------------------------------------------------------------------


def _grid(n: int) -> tuple[int, int]:
    """(row 0-11, column 0-2) of a number 1-36 on the layout (spec §2.2)."""
    return (n - 1) // 3, (n - 1) % 3


def _column(c: int) -> frozenset[int]:
    return frozenset(n for n in range(1, 37) if (n - 1) % 3 == c - 1)


def _dozen(d: int) -> frozenset[int]:
    return frozenset(range(12 * d - 11, 12 * d + 1))


EVEN_CHANCE_SETS: Mapping[str, frozenset[int]] = {
    "red": RED_NUMBERS,
    "black": BLACK_NUMBERS,
    "even": frozenset(range(2, 37, 2)),
    "odd": frozenset(range(1, 37, 2)),
    "low": frozenset(range(1, 19)),
    "high": frozenset(range(19, 37)),
}
BOULE_SETS: Mapping[str, frozenset[int]] = {
    "red": frozenset({2, 4, 7, 9}),
    "black": frozenset({1, 3, 6, 8}),
    "even": frozenset({2, 4, 6, 8}),
    "odd": frozenset({1, 3, 7, 9}),
    "low": frozenset({1, 2, 3, 4}),
    "high": frozenset({6, 7, 8, 9}),
}

# EUS L260-270: (units, position kind, numbers).
SECTORS: Mapping[str, tuple[tuple[int, str, tuple[int, ...]], ...]] = {
    "voisins": (
        (2, "trio", (0, 2, 3)),
        (1, "split", (4, 7)),
        (1, "split", (12, 15)),
        (1, "split", (18, 21)),
        (1, "split", (19, 22)),
        (2, "corner", (25, 26, 28, 29)),
        (1, "split", (32, 35)),
    ),
    "tiers": (
        (1, "split", (5, 8)),
        (1, "split", (10, 11)),
        (1, "split", (13, 16)),
        (1, "split", (23, 24)),
        (1, "split", (27, 30)),
        (1, "split", (33, 36)),
    ),
    "orphelins": (
        (1, "straight", (1,)),
        (1, "split", (6, 9)),
        (1, "split", (14, 17)),
        (1, "split", (17, 20)),
        (1, "split", (31, 34)),
    ),
}


def _labels(numbers: Iterable[int]) -> tuple[str, ...]:
    return tuple(str(n) for n in sorted(numbers))


class _Checker:
    """Checks one request against one table's rules and limits."""

    def __init__(self, table: TableGame, limits: ResolvedLimits, request: BetRequest) -> None:
        self.table = table
        self.rules = table.rules
        self.limits = limits
        self.request = request
        self.type = canonical_type(request.type)

    def fail(self, reason: str, /, **params: Param) -> RuleError:
        """A refusal of the catalogue about this bet (`bet`: its id)."""
        return RuleError.of(reason, bet=self.request.id, **params)

    def refuse(self, reason: str, /, **params: Param) -> RuleError:
        """A refusal of the catalogue about this bet (`bet`: its id; `type`: its type)."""
        return self.fail(reason, type=Term("table.bet_type", self.type), **params)

    def among(
        self, refusals: tuple[str, str], labels: tuple[str, ...], allowed: Iterable[Iterable[str]]
    ) -> RuleError:
        """`labels` are none of the positions with zero `allowed`: `refusals` names them, and
        says that there is none."""
        listed = ["-".join(position) for position in allowed]
        named, none = refusals
        if not listed:
            return self.fail(none, numbers=_show(labels))
        return self.fail(named, numbers=_show(labels), allowed=listed)

    # numbers ---------------------------------------------------------------------------------

    def pockets(self) -> tuple[str, ...]:
        wheel = self.rules.wheel()
        labels = []
        for value in self.request.numbers:
            label = str(value).strip().lower() if isinstance(value, str) else str(value)
            if label not in wheel.weights:
                raise self.fail(
                    "table_bet_not_on_wheel",
                    number=repr(value),
                    game=Term("table.game", self.table.game.value),
                    pockets=list(wheel.pockets),
                )
            labels.append(label)
        if len(set(labels)) != len(labels):
            raise self.fail("table_bet_number_twice", numbers=str(list(self.request.numbers)))
        return tuple(labels)

    def grid_numbers(self, labels: tuple[str, ...]) -> frozenset[int]:
        return frozenset(int(p) for p in labels if p not in self.rules.wheel().zeros)

    def count(self, labels: tuple[str, ...], wanted: int) -> None:
        if len(labels) != wanted:
            if wanted == 1:
                raise self.refuse("table_bet_one_number", count=len(labels))
            raise self.refuse("table_bet_numbers", wanted=wanted, count=len(labels))

    # roulette ---------------------------------------------------------------------------------

    def roulette_cover(self, rules: RouletteRules, labels: tuple[str, ...]) -> tuple[str, ...]:
        kind, given = self.type, frozenset(labels)
        if kind == "straight":
            self.count(labels, 1)
            return labels
        if kind in ("split", "zero_split"):
            return self.split(rules, kind, labels, given)
        if kind in ("street", "trio"):
            return self.street(rules, kind, labels, given)
        if kind in ("corner", "first_four"):
            return self.corner(rules, kind, labels, given)
        if kind == "five_number":
            five = frozenset({"0", "00", "1", "2", "3"})
            if rules.wheel_kind != "double_zero" or (labels and given != five):
                raise self.fail("table_bet_five_number")
            return _sorted(five)
        if kind == "sixline":
            self.count(labels, 6)
            numbers = self.grid_numbers(labels)
            low = min(numbers) if len(numbers) == 6 else 0
            if len(numbers) != 6 or _grid(low)[1] != 0 or numbers != set(range(low, low + 6)):
                raise self.fail("table_bet_not_a_sixline", numbers=_show(labels))
            return _labels(numbers)
        if kind in ("column", "dozen"):
            return self.twelve(kind, labels)
        if kind in ("two_columns", "two_dozens"):
            return self.twenty_four(kind, labels)
        if kind in EVEN_CHANCES:
            covered = EVEN_CHANCE_SETS[kind]
            if labels and given != frozenset(_labels(covered)):
                raise self.fail("table_bet_even_chance_numbers")
            return _labels(covered)
        raise AssertionError(kind)

    def split(
        self, rules: RouletteRules, kind: str, labels: tuple[str, ...], given: frozenset[str]
    ) -> tuple[str, ...]:
        double = frozenset({"0", "00"})
        if kind == "zero_split":
            if rules.wheel_kind != "double_zero" or (labels and given != double):
                raise self.fail("table_bet_zero_split")
            return _sorted(double)
        self.count(labels, 2)
        if given == double and rules.wheel_kind == "double_zero":
            return _sorted(double)
        if given & self.rules.wheel().zeros:
            if given not in {frozenset(pair) for pair in rules.zero_splits}:
                raise self.among(ZERO_SPLIT_REFUSALS, labels, rules.zero_splits)
            return _sorted(given)
        a, b = sorted(int(p) for p in labels)
        (ra, ca), (rb, cb) = _grid(a), _grid(b)
        if not ((ra == rb and cb - ca == 1) or (ca == cb and rb - ra == 1)):
            raise self.fail("table_bet_not_a_split", first=a, second=b)
        return _sorted(given)

    def street(
        self, rules: RouletteRules, kind: str, labels: tuple[str, ...], given: frozenset[str]
    ) -> tuple[str, ...]:
        self.count(labels, 3)
        trios = {frozenset(trio) for trio in rules.zero_trios}
        if given & self.rules.wheel().zeros or kind == "trio":
            if given not in trios or "trio" not in rules.bet_types:
                raise self.among(ZERO_TRIO_REFUSALS, labels, rules.zero_trios)
            return _sorted(given)
        numbers = self.grid_numbers(labels)
        low = min(numbers)
        if _grid(low)[1] != 0 or numbers != {low, low + 1, low + 2}:
            raise self.fail("table_bet_not_a_street", numbers=_show(labels))
        return _sorted(given)

    def corner(
        self, rules: RouletteRules, kind: str, labels: tuple[str, ...], given: frozenset[str]
    ) -> tuple[str, ...]:
        four = frozenset({"0", "1", "2", "3"})
        if kind == "first_four" or given == four:
            if (labels and given != four) or "first_four" not in rules.bet_types:
                raise self.fail("table_bet_first_four")
            return _sorted(four)
        self.count(labels, 4)
        numbers = self.grid_numbers(labels)
        low = min(numbers) if len(numbers) == 4 else 0
        if len(numbers) != 4 or _grid(low)[1] == 2 or numbers != {low, low + 1, low + 3, low + 4}:
            raise self.fail("table_bet_not_a_corner", numbers=_show(labels))
        return _labels(numbers)

    def twelve(self, kind: str, labels: tuple[str, ...]) -> tuple[str, ...]:
        make = _column if kind == "column" else _dozen
        if len(labels) == 1 and labels[0] in ("1", "2", "3"):
            return _labels(make(int(labels[0])))
        numbers = self.grid_numbers(labels)
        if len(labels) == 12 and len(numbers) == 12 and numbers in [make(i) for i in (1, 2, 3)]:
            return _labels(numbers)
        raise self.refuse("table_bet_twelve")

    def twenty_four(self, kind: str, labels: tuple[str, ...]) -> tuple[str, ...]:
        make = _column if kind == "two_columns" else _dozen
        pairs = {(1, 2): make(1) | make(2), (2, 3): make(2) | make(3)}
        if len(labels) == 2 and set(labels) <= {"1", "2", "3"}:
            pair = tuple(sorted(int(p) for p in labels))
            if pair not in pairs:
                named = Term("table.bet_type", kind, kind.replace("_", " "))
                raise self.fail("table_bet_not_adjacent", type=named)
            return _labels(pairs[pair])  # type: ignore[index]
        numbers = self.grid_numbers(labels)
        if len(labels) == 24 and numbers in pairs.values():
            return _labels(numbers)
        raise self.refuse("table_bet_twenty_four")

    def chips(self, amount: Decimal) -> tuple[Chip, ...]:
        rules = self.rules
        labels = self.pockets()
        if isinstance(rules, FortuneRules):
            self.count(labels, 1)
            return (Chip(kind="segment", covers=labels, amount=amount),)
        if isinstance(rules, BouleRules):
            return (self.boule_chip(labels, amount),)
        assert isinstance(rules, RouletteRules)
        if self.type in SECTOR_BETS:
            return self.sector_chips(rules, labels, amount)
        return (Chip(kind=self.type, covers=self.roulette_cover(rules, labels), amount=amount),)

    def boule_chip(self, labels: tuple[str, ...], amount: Decimal) -> Chip:
        if self.type == "number":
            self.count(labels, 1)
            return Chip(kind="number", covers=labels, amount=amount)
        covered = _labels(BOULE_SETS[self.type])
        if labels and frozenset(labels) != frozenset(covered):
            raise self.fail("table_bet_boule_even_chance_numbers")
        return Chip(kind=self.type, covers=covered, amount=amount)

    def sector_chips(
        self, rules: RouletteRules, labels: tuple[str, ...], amount: Decimal
    ) -> tuple[Chip, ...]:
        if self.type == "neighbours":
            self.count(labels, 1)
            arc = rules.wheel().neighbours(labels[0])
            positions = tuple((1, "straight", (p,)) for p in arc)
        else:
            if labels:
                raise self.refuse("table_bet_sector_numbers")
            positions = tuple(
                (units, kind, tuple(str(n) for n in numbers))
                for units, kind, numbers in SECTORS[self.type]
            )
        units = sum(u for u, _, _ in positions)
        chip = amount / units
        if not is_multiple(chip, self.table.rounding_unit):
            raise self.refuse(
                "table_bet_sector_chips",
                units=units,
                amount=str(amount),
                unit=str(self.table.rounding_unit),
            )
        return tuple(
            Chip(kind=kind, covers=tuple(sorted(covers, key=_order)), amount=chip * units)
            for units, kind, covers in positions
        )

    # money -------------------------------------------------------------------------------------

    def amount(self, colours: Mapping[str, Decimal]) -> Decimal:
        request = self.request
        if request.colour is not None or request.chips is not None:
            if not (isinstance(self.rules, RouletteRules) and self.rules.colour_chips):
                raise self.fail("table_bet_colour_chips_american_only")
            if request.amount is not None or request.colour is None or request.chips is None:
                raise self.fail("table_bet_amount_or_colour")
            value = colours.get(request.colour, self.limits.table_minimum)
            return value * request.chips
        if request.amount is None:
            raise self.fail("table_bet_amount_missing")
        amount = request.amount
        if not amount.is_finite() or amount <= 0:
            raise self.fail("table_bet_amount_not_positive", amount=str(amount))
        return amount

    def check_limits(self, chips: tuple[Chip, ...], amount: Decimal) -> None:
        unit = self.table.rounding_unit
        if not is_multiple(amount, unit):
            raise self.fail("table_bet_not_whole_unit", amount=str(amount), unit=str(unit))
        sector = self.type in SECTOR_BETS
        # A sector bet is equal chips, some positions taking two (EUS L262): each chip must be
        # at least the minimum, each position's stake at most its maximum.
        chip_value = min(c.amount for c in chips)
        for chip in chips:
            limit = self.limits.of(LIMIT_GROUP[chip.kind])
            if sector and chip_value < limit.minimum:
                raise self.refuse(
                    "table_bet_sector_chip_below_minimum",
                    amount=str(amount),
                    chip=str(chip_value),
                    minimum=str(limit.minimum),
                )
            if not sector and chip.amount < limit.minimum:
                raise self.refuse(
                    "table_bet_below_minimum", amount=str(chip.amount), minimum=str(limit.minimum)
                )
            if not sector and chip.amount > limit.maximum:
                raise self.refuse(
                    "table_bet_above_maximum", amount=str(chip.amount), maximum=str(limit.maximum)
                )
            if chip.amount > limit.maximum:
                raise self.refuse(
                    "table_bet_sector_position_above_maximum",
                    position=Term("table.bet_type", chip.kind),
                    numbers=_show(chip.covers),
                    amount=str(chip.amount),
                    maximum=str(limit.maximum),
                )
        multiple = self.limits.even_multiples_of
        if self.type in EVEN_CHANCES and multiple is not None and not is_multiple(amount, multiple):
            raise self.fail("table_bet_even_chance_multiple", multiple=str(multiple))

    def prison(self) -> None:
        request = self.request
        french = isinstance(self.rules, RouletteRules) and (
            self.rules.zero_rule is ZeroRule.HALF_OR_PRISON
        )
        if request.prison and not (french and self.type in EVEN_CHANCES):
            raise self.fail("table_bet_prison_even_chance_only")
        if request.zero_choice is not None and not (french and self.type in EVEN_CHANCES):
            raise self.fail("table_bet_zero_choice_even_chance_only")

    def check(self, colours: Mapping[str, Decimal]) -> Bet:
        rules = self.rules
        if self.type not in rules.known_bet_types():
            raise self.fail(
                "table_bet_unknown_type",
                given=repr(self.request.type),
                game=Term("table.game", self.table.game.value),
                types=_types(rules.bet_types),
            )
        if self.type not in rules.bet_types:
            raise self.refuse(
                "table_bet_type_not_in_catalogue", **self.table.named, types=_types(rules.bet_types)
            )
        self.prison()
        amount = self.amount(colours)
        chips = self.chips(amount)
        self.check_limits(chips, amount)
        return Bet(
            id=self.request.id,
            type=self.type,
            numbers=self.pockets(),
            amount=amount,
            chips=chips,
            prison=self.request.prison,
            zero_choice=self.request.zero_choice,
            player=self.request.player,
            colour=self.request.colour,
        )


def _order(pocket: str) -> tuple[int, int]:
    return (0, 0) if pocket == "0" else (0, 1) if pocket == "00" else (1, int(pocket))


def _sorted(pockets: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(pockets, key=_order))


def _show(labels: tuple[str, ...]) -> str:
    return "-".join(_sorted(labels))


def _types(bet_types: Iterable[str]) -> list[Term]:
    return [Term("table.bet_type", bet_type) for bet_type in bet_types]


def check_bet(
    table: TableGame,
    limits: ResolvedLimits,
    request: BetRequest,
    colours: Mapping[str, Decimal] | None = None,
) -> Bet:
    """The bet a request makes at this table, or a RuleError naming the bet and the reason."""
    return _Checker(table, limits, request).check(colours or {})


def check_positions(bets: Iterable[Bet], limits: ResolvedLimits) -> None:
    """One player's chips on one position add up against its maximum (spec §2.6, §12 Q9-10),
    whichever bet put them there: a position is its numbers and the maximum it takes, so a
    zero trio bet as a trio or as a street, the first four as a corner, the 0-00 split as a
    split, and a sector's chips on them are one position.

    A bet in prison counts at its value now, S/2^(k-1) (§2.5): it is still the player's stake
    on that position, freed to him if the chance comes up (docs/tables.md, choice 4).
    Bets without a player are checked one by one (already done by check_bet).
    """
    totals: dict[tuple[str, str, frozenset[str]], Decimal] = {}
    imprisoned: dict[tuple[str, str, frozenset[str]], list[Term]] = {}
    for bet in bets:
        if bet.player is None:
            continue
        for chip in bet.chips:
            group = LIMIT_GROUP[chip.kind]
            key = (bet.player, group, frozenset(chip.covers))
            totals[key] = plus(totals.get(key, Decimal(0)), bet.worth(chip))
            if bet.prison:
                imprisoned.setdefault(key, []).append(_in_prison(bet, bet.worth(chip)))
            maximum = limits.of(group).maximum
            if totals[key] > maximum:
                params: dict[str, Param] = {
                    "bet": bet.id,
                    "player": bet.player,
                    "total": str(totals[key]),
                    "position": Term("table.bet_type", group),
                    "numbers": _show(chip.covers),
                    "maximum": str(maximum),
                }
                if key in imprisoned:
                    held = imprisoned[key]
                    raise RuleError.of(
                        "table_position_above_maximum_in_prison", **params, held=held
                    )
                raise RuleError.of("table_position_above_maximum", **params)


def _in_prison(bet: Bet, worth: Decimal) -> Term:
    """«b1 in prison worth 2.50», as the pages say it (`table.prisoner.worth`)."""
    value = f"{worth:f}"
    said = f"{bet.id} in prison worth {value}"
    return Term("table.prisoner", "worth", said, (("bet", bet.id), ("worth", value)))


def check_colour_value(limits: ResolvedLimits, colour: str, value: Decimal, unit: Decimal) -> None:
    """A colour chip's value: between the straight-up minimum and maximum (N79 L270)."""
    straight = limits.of("straight")
    if not is_multiple(value, unit):
        raise RuleError.of(
            "table_colour_not_whole_unit", colour=colour, value=str(value), unit=str(unit)
        )
    if not straight.minimum <= value <= straight.maximum:
        raise RuleError.of(
            "table_colour_value_range",
            colour=colour,
            minimum=str(straight.minimum),
            maximum=str(straight.maximum),
            value=str(value),
        )


def payout(table: TableGame, chip: Chip) -> Decimal:
    """The net payout of a winning chip («35 a 1» → 35)."""
    rules = table.rules
    if isinstance(rules, FortuneRules):
        return rules.payout(chip.covers[0])
    if isinstance(rules, BouleRules):
        return BOULE_PAYOUTS[chip.kind]
    return ROULETTE_PAYOUTS[chip.kind]
