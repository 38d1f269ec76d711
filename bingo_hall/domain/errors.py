"""Errors the rules raise. Each says what is wrong; none changes any state."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from enum import StrEnum
from typing import Any, Self

from bingo_hall.domain.refusals import Param, Term, english


class RuleError(Exception):
    """A command or datum that the rules reject. The message is meant for a person; a
    refusal of the catalogue (`refusals.py`) also has its reason and parameters, by which the
    pages say it in their language."""

    code = "rule_error"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        params: Mapping[str, Param] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.params = dict(params or {})

    @classmethod
    def of(cls, reason: str, /, **params: Param) -> Self:
        """The refusal `reason` of the catalogue, in English with `params` filled in."""
        return cls(english(reason, params), reason=reason, params=params)


class RefusalOnRecord(RuleError):
    """A refusal the rules want on the record (spec wheels.md §7 item 7: an attempted change
    the profile forbids is logged): the shell appends `events`, which change no state, and
    answers with the refusal."""

    def __init__(self, error: RuleError, events: list[Any]) -> None:
        super().__init__(error.message, reason=error.reason, params=error.params)
        self.events = events


class PhaseError(RuleError):
    """A command given in a phase where it is not legal."""

    code = "wrong_phase"

    def __init__(
        self,
        command: str,
        phase: str,
        legal_in: list[str],
        allowed: list[str],
        phase_family: str = "phase",
    ) -> None:
        """`phase_family`: the pages' words for the phases (`phase.<name>` for the bingo's,
        `table.phase.<name>` for a casino table's); commands are `command.<name>`."""
        self.command = command
        self.phase = phase
        self.legal_in = legal_in
        self.allowed = allowed
        params: dict[str, Param] = {
            "command": Term("command", command),
            "phase": Term(phase_family, phase),
            "legal_in": [Term(phase_family, name) for name in legal_in],
        }
        reason = "wrong_phase_nothing_allowed"
        if allowed:
            params["allowed"] = [Term("command", name) for name in allowed]
            reason = "wrong_phase"
        super().__init__(english(reason, params), reason=reason, params=params)


def require_legal_phase(
    command: str,
    phase: StrEnum,
    legal_in: Collection[StrEnum],
    allowed_in: Callable[[Any], list[str]],
    phase_family: str = "phase",
) -> None:
    """Refuse a command outside its phases (shared by the bingo and table engines)."""
    if phase not in legal_in:
        raise PhaseError(
            command,
            phase.value,
            sorted(p.value for p in legal_in),
            allowed_in(phase),
            phase_family,
        )


class InvalidCard(RuleError):
    """A card that breaks one or more named rules."""

    code = "invalid_card"

    def __init__(self, violations: list[str]) -> None:
        self.violations = violations
        params = {"violations": "; ".join(violations)}
        super().__init__(english("invalid_card", params), reason="invalid_card", params=params)
