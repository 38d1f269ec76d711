"""The phases of a table and of its coups: bets open → «no va más» → outcome → settlement →
payment (spec §2.8, §5.5, §6.5)."""

from __future__ import annotations

from enum import StrEnum


class TablePhase(StrEnum):
    CLOSED = "closed"
    IDLE = "idle"  # open, between coups
    BETTING = "betting"  # «hagan sus apuestas»; the ball or wheel may already be running
    NO_MORE_BETS = "no_more_bets"  # «no va más»: no bet placed, touched or withdrawn
    OUTCOME = "outcome"  # the result is called; zero choices are declared
    SETTLED = "settled"  # losing bets collected; the winners are to be paid
    SUSPENDED = "suspended"  # closed for a while, its float locked at it (EUS L306)


OPEN_PHASES = frozenset(TablePhase) - {TablePhase.CLOSED}
PLAYING_PHASES = OPEN_PHASES - {TablePhase.SUSPENDED}  # open and not closed for a while
