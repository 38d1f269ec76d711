"""Ball sources. The rules never draw; the hub asks a source for the next ball and the rules
check it (range, not drawn before)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

ALL_BALLS = tuple(range(1, 91))


class BallSource(Protocol):
    name: str

    def next_ball(self, drawn: Sequence[int]) -> int:
        """The next ball, given the balls already drawn in this game."""
        ...


class CertifiedRandomDraw:
    """Draws uniformly among the balls still in the machine, from the OS CSPRNG.

    `secrets.randbelow` rejects out-of-range random bits instead of reducing them modulo n,
    so every remaining ball has exactly the same probability (no modulo bias).
    """

    name = "certified_random"

    def __init__(self, randbelow: Callable[[int], int] = secrets.randbelow) -> None:
        self._randbelow = randbelow

    def next_ball(self, drawn: Sequence[int]) -> int:
        taken = set(drawn)
        remaining = [ball for ball in ALL_BALLS if ball not in taken]
        if not remaining:
            raise ValueError("all 90 balls have been drawn")
        return remaining[self._randbelow(len(remaining))]


class KeyedBlower:
    """A physical blower: the caller keys each ball as it comes out (here, from a list)."""

    name = "blower"

    def __init__(self, sequence: Iterable[int]) -> None:
        self._sequence = list(sequence)

    def next_ball(self, drawn: Sequence[int]) -> int:
        if len(drawn) >= len(self._sequence):
            raise ValueError("the blower has no more balls keyed in")
        return self._sequence[len(drawn)]
