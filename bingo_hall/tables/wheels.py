"""The wheels: their pockets, colours, order round the wheel, and how often each pocket comes up.

Pockets are strings everywhere ("0", "00", "17", "joker"), so that the double zero and the
wheel of fortune's figures need no special case. Spec: ../shared/spec/wheels.md §2.1, §4, §5.1,
§6.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType


def _digit_sum(n: int) -> int:
    return sum(int(d) for d in str(n))


# N79 L107 / EUS L206: «los números cuya suma de cifras sea par son siempre negros, así como el 10
# y el 29 y a excepción del 19». N77 omits «a excepción del 19» [ERR?]: it would give 19 blacks.
BLACK_NUMBERS = frozenset(({n for n in range(1, 37) if _digit_sum(n) % 2 == 0} | {10, 29}) - {19})
RED_NUMBERS = frozenset(range(1, 37)) - BLACK_NUMBERS

# No text gives the pocket sequence [INFERRED, spec §2.1, §4]: the standard wheels, clockwise.
_EUROPEAN = "0 32 15 19 4 21 2 25 17 34 6 27 13 36 11 30 8 23 10 5 24 16 33 1 20 14 31 9 22 18 29 7"
_AMERICAN = "0 28 9 26 30 11 7 20 32 17 5 22 34 15 3 24 36 13 1 00 27 10 25 29 12 8 19 31 18 6 21"
EUROPEAN_ORDER: tuple[str, ...] = (*_EUROPEAN.split(), "28", "12", "35", "3", "26")
AMERICAN_ORDER: tuple[str, ...] = (*_AMERICAN.split(), "33", "16", "4", "23", "35", "14", "2")

NUMBERS_1_36: tuple[str, ...] = tuple(str(n) for n in range(1, 37))

# Boule (N79 L415, L417; EUS L640, L644): 5 is the house number, neither red nor black, and
# outside odd, high and low.
BOULE_NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(1, 10))
BOULE_HOUSE_NUMBER = "5"


@dataclass(frozen=True, slots=True)
class Wheel:
    """The outcomes of one game and their relative frequencies (holes or slots per outcome)."""

    name: str
    weights: Mapping[str, int]
    order: tuple[str, ...] = ()  # round the wheel, clockwise (roulette only)
    zeros: frozenset[str] = field(default_factory=frozenset)  # pockets outside every even chance

    @property
    def pockets(self) -> tuple[str, ...]:
        return tuple(self.weights)

    @property
    def total(self) -> int:
        return sum(self.weights.values())

    def probability(self, pocket: str) -> Fraction:
        return Fraction(self.weights[pocket], self.total)

    def neighbours(self, pocket: str, each_side: int = 2) -> tuple[str, ...]:
        """The pocket and `each_side` pockets either side of it on the wheel (EUS L256)."""
        at = self.order.index(pocket)
        size = len(self.order)
        return tuple(self.order[(at + step) % size] for step in range(-each_side, each_side + 1))


def _uniform(pockets: tuple[str, ...], per_pocket: int = 1) -> Mapping[str, int]:
    return MappingProxyType(dict.fromkeys(pockets, per_pocket))


SINGLE_ZERO = Wheel("single_zero", _uniform(("0", *NUMBERS_1_36)), EUROPEAN_ORDER, frozenset({"0"}))
DOUBLE_ZERO = Wheel(
    "double_zero", _uniform(("0", "00", *NUMBERS_1_36)), AMERICAN_ORDER, frozenset({"0", "00"})
)


def boule_wheel(holes_per_number: int) -> Wheel:
    """Nine numbers, each in `holes_per_number` holes (N79 L413: 18 holes; N77 L672: 9)."""
    return Wheel("boule", _uniform(BOULE_NUMBERS, holes_per_number))


def fortune_wheel(slots_by_symbol: Mapping[str, int]) -> Wheel:
    """The wheel of fortune: each symbol and the number of its slots (EUS L1495: 54 slots)."""
    return Wheel("wheel_of_fortune", MappingProxyType(dict(slots_by_symbol)))
