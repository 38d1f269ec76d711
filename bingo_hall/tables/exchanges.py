"""Exchanges at a table («cambios», N79 L125; spec wheels.md §7 item 9): a player's banknotes
for value chips, or value chips for others of the same total. The croupiers make them («se
ocuparán, asimismo, de los cambios de billetes y fichas que solicitan los jugadores», N79
L569); the head, or his deputy, controls them and touches nothing («controlar los cambios
realizados en el curso de la misma, estándoles prohibido manipular … el dinero, las placas o
las fichas», N79 L125). Pure: the rules of one exchange."""

from __future__ import annotations

from enum import StrEnum

from bingo_hall.domain.errors import RuleError


class ExchangeKind(StrEnum):
    BANKNOTES = "banknotes"  # banknotes in, value chips out: the money goes into the cash box
    CHIPS = "chips"  # value chips changed for others, the same total: no money moves


def exchange_controller(head: str | None, deputy: str | None) -> str:
    """Who controls an exchange: the table's head, or else its deputy head; a RuleError when
    neither is there, for no exchange is made uncontrolled."""
    controller = head or deputy
    if controller is None:
        raise RuleError.of("table_exchange_uncontrolled")
    return controller
