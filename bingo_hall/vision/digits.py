"""What is printed on each ball: `printed_digits` says it once; the renderer prints it,
training labels with it, the reader scores numbers by it."""

from __future__ import annotations


def printed_digits(number: int) -> str:
    """The digits printed on ball `number`: always two, a leading zero below 10.

    With a constant count, a print that lost a digit (to a glare, or the ball's edge) reads as
    one digit and is known to be damaged; with one-digit prints, 78 that lost its 7 would be
    ball 8 to the reader."""
    return f"{number:02d}"
