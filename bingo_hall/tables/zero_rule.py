"""The French zero rule for even chances: half back or «prison» (spec §2.5, N79 L167-171).

A stake S meeting its k-th zero is worth C_k = S / 2^(k-1). The player either takes back half of
it (W_k = C_k / 2 = S / 2^k) or leaves it in prison worth C_k. The next coup that is not a zero
frees an imprisoned bet in its chance (C_k back, no winnings) and loses the others; another zero
is the (k+1)-th. On the last coup of the session the half is forced; a value below the table
minimum must stay in prison (not in N77). Trente-et-quarante reuses this (N79 L522).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from bingo_hall.tables.money import halve
from bingo_hall.tables.profiles import PrisonSettings, ZeroChoice

Forced = Literal["last_coup", "below_minimum"]


@dataclass(frozen=True, slots=True)
class ZeroVerdict:
    """What the k-th zero does to an even-chance bet."""

    zeros: int  # k: the zeros this bet has now been through
    value: Decimal  # C_k
    choice: ZeroChoice
    forced: Forced | None

    @property
    def refund(self) -> Decimal:
        """W_k, handed back on HALF; nothing on PRISON (the bet stays, worth C_k)."""
        return halve(self.value, 1) if self.choice is ZeroChoice.HALF else Decimal(0)


def value_at_zero(stake: Decimal, zeros: int) -> Decimal:
    """C_k = S / 2^(k-1): the value of a stake at its k-th zero."""
    return halve(stake, zeros - 1)


def options(
    stake: Decimal, zeros_before: int, settings: PrisonSettings, minimum: Decimal, last_coup: bool
) -> tuple[frozenset[ZeroChoice], Forced | None]:
    """The choices the player has at the next zero, and why a choice is forced, if it is."""
    zeros = zeros_before + 1
    value = value_at_zero(stake, zeros)
    # The session ends: nothing can stay in prison, so this overrides the below-minimum clause
    # (spec §12 Q4 recommended default).
    if last_coup and settings.last_coup_forces_half:
        return frozenset({ZeroChoice.HALF}), "last_coup"
    if settings.below_minimum_stays and (zeros >= 2 or settings.below_minimum_from_first_zero):
        compared = value if settings.below_minimum_compares == "value" else halve(value, 1)
        if compared < minimum:
            return frozenset({ZeroChoice.PRISON}), "below_minimum"
    return frozenset(ZeroChoice), None


def on_zero(
    stake: Decimal,
    zeros_before: int,
    settings: PrisonSettings,
    minimum: Decimal,
    last_coup: bool,
    choice: ZeroChoice | None,
) -> ZeroVerdict:
    """The verdict at the next zero: the player's choice where he has one, else the forced one,
    else the profile's default for a silent player."""
    allowed, forced = options(stake, zeros_before, settings, minimum, last_coup)
    if forced is not None:
        (chosen,) = allowed
    else:
        chosen = choice or settings.default_choice
    return ZeroVerdict(
        zeros=zeros_before + 1,
        value=value_at_zero(stake, zeros_before + 1),
        choice=chosen,
        forced=forced,
    )
