"""Errors the rules raise. Each says what is wrong; none changes any state."""

from __future__ import annotations

from collections.abc import Callable, Collection
from enum import StrEnum
from typing import Any


class RuleError(Exception):
    """A command or datum that the rules reject. The message is meant for a person."""

    code = "rule_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PhaseError(RuleError):
    """A command given in a phase where it is not legal."""

    code = "wrong_phase"

    def __init__(self, command: str, phase: str, legal_in: list[str], allowed: list[str]) -> None:
        self.command = command
        self.phase = phase
        self.legal_in = legal_in
        self.allowed = allowed
        super().__init__(
            f"'{command}' is not allowed in phase {phase} (it is legal in: "
            f"{', '.join(legal_in)}); commands allowed now: {', '.join(allowed) or 'none'}"
        )


def require_legal_phase(
    command: str,
    phase: StrEnum,
    legal_in: Collection[StrEnum],
    allowed_in: Callable[[Any], list[str]],
) -> None:
    """Refuse a command outside its phases (shared by the bingo and table engines)."""
    if phase not in legal_in:
        raise PhaseError(command, phase.value, sorted(p.value for p in legal_in), allowed_in(phase))


class InvalidCard(RuleError):
    """A card that breaks one or more named rules."""

    code = "invalid_card"

    def __init__(self, violations: list[str]) -> None:
        self.violations = violations
        super().__init__("invalid card: " + "; ".join(violations))
