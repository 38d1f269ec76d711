"""The American table's colour chips (spec §3.3): who holds each colour, the value its marker
shows, and the session's ledger of the chips issued and changed back (pure).

A colour's chips are tied to the table: a player receives a stack at the value he gives it
(N79 L270) and changes what he holds back into value chips when he leaves, a cash operation
the ledger records. Winnings may be paid in colour chips or in value chips (N79 L262), so the
chips changed back are not bounded by those issued: the ledger records both, each at the value
the marker showed.
"""

from __future__ import annotations

from decimal import Decimal

from bingo_hall.tables.profiles import Model


class ColourChips(Model):
    """One player's colour at the table: its value and his stacks issued and changed back."""

    colour: str
    player: str
    unit_value: Decimal
    issued: int = 0  # chips received
    issued_value: Decimal = Decimal(0)
    returned: int = 0  # chips changed back into value chips
    returned_value: Decimal = Decimal(0)
    left: bool = False  # the player has left the colour, which another may now receive

    def with_issue(self, chips: int, unit_value: Decimal) -> ColourChips:
        return self.model_copy(
            update={
                "unit_value": unit_value,
                "issued": self.issued + chips,
                "issued_value": self.issued_value + chips * unit_value,
            }
        )

    def with_return(self, chips: int, leaves: bool) -> ColourChips:
        return self.model_copy(
            update={
                "returned": self.returned + chips,
                "returned_value": self.returned_value + chips * self.unit_value,
                "left": leaves,
            }
        )
