"""What the camera made of one ball: the value the hub compares with the call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# "set_disagrees": only a reading against a ball set's references (`set_references`) gives it
NoNumberReason = Literal["no_ball", "unsure", "unreadable", "set_disagrees"]


@dataclass(frozen=True)
class Reading:
    """A reading of the ball at the exit.

    `number` is set only when the reading passes the acceptance threshold; otherwise `reason`
    says why not and `guess` holds the best candidate, if there is one. `confidence` is the
    calibrated probability that `guess` is the ball's number (0.0 when there is no guess).
    `set_margin` is set when the number was accepted on the ball set's own references
    (`set_references`), below the networks' own threshold: the references' margin. When the
    set's references name another ball than the guess (`reason` "set_disagrees"), `set_ball`
    is that ball and `set_margin` the margin by which they name it. `set_nearest` is the ball
    the set's references lie nearest, however faintly, on a frame they recognise (None: no
    references, no print, or a frame unlike every print of the set).
    """

    number: int | None
    confidence: float
    guess: int | None
    reason: NoNumberReason | None
    set_margin: float | None = None
    set_ball: int | None = None
    set_nearest: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "confidence": round(self.confidence, 6),
            "guess": self.guess,
            "reason": self.reason,
        }
