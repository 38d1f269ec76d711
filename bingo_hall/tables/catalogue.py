"""The bet types of the wheel games: payouts, limit groups and payment slots (fixed by the texts).

What differs between the catalogues (which of these types a table offers, the maxima, the
payment order) is profile data; what is the same in every text is here. Payouts are net
(«35 a 1»: 35 × the stake won and the stake kept, spec §0.2).
"""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

EVEN_CHANCES: tuple[str, ...] = ("red", "black", "even", "odd", "low", "high")
SECTOR_BETS: tuple[str, ...] = ("neighbours", "voisins", "tiers", "orphelins")

# N79 L141-165; AST L134-189; AST L425-434 (double zero); EUS L236-252.
ROULETTE_PAYOUTS = MappingProxyType(
    {
        "straight": Decimal(35),
        "split": Decimal(17),
        "zero_split": Decimal(17),
        "street": Decimal(11),
        "trio": Decimal(11),
        "corner": Decimal(8),
        "first_four": Decimal(8),
        "five_number": Decimal(6),
        "sixline": Decimal(5),
        "column": Decimal(2),
        "dozen": Decimal(2),
        "two_columns": Decimal("0.5"),
        "two_dozens": Decimal("0.5"),
        **dict.fromkeys(EVEN_CHANCES, Decimal(1)),
    }
)
ROULETTE_BET_TYPES: tuple[str, ...] = (*ROULETTE_PAYOUTS, *SECTOR_BETS)

# N79 L434-436: «recibe siete veces el valor de su apuesta»; even chances 1:1.
BOULE_PAYOUTS = MappingProxyType({"number": Decimal(7), **dict.fromkeys(EVEN_CHANCES, Decimal(1))})
BOULE_BET_TYPES: tuple[str, ...] = tuple(BOULE_PAYOUTS)

FORTUNE_BET_TYPES: tuple[str, ...] = ("segment",)

# Which maximum a position takes: the zero trios are streets, the first four a corner [INFERRED,
# spec §2.6, §12 Q10]; the 0-00 split a split.
LIMIT_GROUP = MappingProxyType(
    {
        "straight": "straight",
        "split": "split",
        "zero_split": "split",
        "street": "street",
        "trio": "street",
        "corner": "corner",
        "first_four": "corner",
        "five_number": "five_number",
        "sixline": "sixline",
        "column": "column",
        "dozen": "dozen",
        "two_columns": "two_columns",
        "two_dozens": "two_dozens",
        "number": "number",
        "segment": "segment",
        **dict.fromkeys(EVEN_CHANCES, "even_chance"),
    }
)

# Where a position is paid in the texts' payment lists, which name only the classic types: the
# trios with the streets, the first four and the «cuadro especial» 0-00-1-2-3 with the corners,
# the 0-00 split with the splits [INFERRED, spec §2.10].
PAYMENT_KIND = MappingProxyType(
    {
        **{kind: kind for kind in LIMIT_GROUP},
        "zero_split": "split",
        "trio": "street",
        "first_four": "corner",
        "five_number": "corner",
    }
)

# Other names accepted in a bets file (the Basque text's names, EUS L254-270, and English ones).
BET_TYPE_ALIASES = MappingProxyType(
    {
        "six_line": "sixline",
        "ondokoak": "neighbours",
        "neighbors": "neighbours",
        "zero_sector": "voisins",
        "zero_sektorea": "voisins",
        "serie_handia": "voisins",
        "big_series": "voisins",
        "herena": "tiers",
        "serie_txikia": "tiers",
        "small_series": "tiers",
        "zurtzak": "orphelins",
        "orphans": "orphelins",
    }
)


def canonical_type(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    return BET_TYPE_ALIASES.get(key, key)
