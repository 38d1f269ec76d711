"""The rules of the catalogue's bingo: pure, deterministic, no I/O, no clock, no randomness.

`decide(state, command, now)` gives the events a command produces (or raises a RuleError);
`evolve(state, event, time)` applies one event; `replay` folds a whole log.
"""

from bingo_hall.domain.decide import decide
from bingo_hall.domain.errors import InvalidCard, PhaseError, RuleError
from bingo_hall.domain.evolve import evolve, replay
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.state import HallState

__all__ = [
    "HallState",
    "InvalidCard",
    "Phase",
    "PhaseError",
    "RuleError",
    "decide",
    "evolve",
    "replay",
]
