"""Whether the camera confirms a call (spec §4): the one rule the hub applies before it
announces a ball and the rules apply when they record it.

The camera confirms a call when its accepted reading is the call (`agreed`). A hall may also
let the call stand as a second witness (`witnessed`): the networks' best guess is the call, at
a confidence of at least the hall's floor, and the set's prints from its commissioning
recognise the frame and lie nearest the call too (`set_nearest`). A wrong ball then needs a
wrong call *and* both of the camera's readers on that same wrong number. Prints that lean to
another ball, however faintly, refuse the witness, as they refuse the networks' own
acceptance (`vision.set_references.contradicts`).
"""

from __future__ import annotations

from typing import Literal

from bingo_hall.domain.events import CameraCheck

CameraVerdict = Literal["agreed", "witnessed"]


def camera_verdict(
    check: CameraCheck, called: int, witness_floor: float | None
) -> CameraVerdict | None:
    """How the camera's check confirms the call, or None: the ball must be held."""
    if check.reading == called:
        return "agreed"
    if (
        witness_floor is not None
        and check.reading is None
        and check.guess == called
        and check.set_nearest == called
        and check.confidence >= witness_floor
    ):
        return "witnessed"
    return None
