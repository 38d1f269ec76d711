"""The phases of a session and of its games (spec §5.1, §5.2)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    SESSION_CLOSED = "session_closed"
    EQUIPMENT_CHECK = "equipment_check"
    BALL_LOADING = "ball_loading"
    SESSION_READY = "session_ready"
    SERIES_ANNOUNCED = "series_announced"  # G0
    SELLING = "selling"  # G1
    SALE_CLOSED = "sale_closed"  # G2
    ANNOUNCED = "announced"  # G3
    DRAWING = "drawing"  # G4
    CAMERA_HOLD = "camera_hold"  # G4: the camera disagrees with the call or is unsure
    CLAIM_PAUSED = "claim_paused"  # G5/G6
    ANY_MORE_WINDOW = "any_more_window"  # G7


GAME_PHASES = frozenset(
    {
        Phase.SERIES_ANNOUNCED,
        Phase.SELLING,
        Phase.SALE_CLOSED,
        Phase.ANNOUNCED,
        Phase.DRAWING,
        Phase.CAMERA_HOLD,
        Phase.CLAIM_PAUSED,
        Phase.ANY_MORE_WINDOW,
    }
)
SESSION_OPEN_PHASES = frozenset(Phase) - {Phase.SESSION_CLOSED}
BETWEEN_GAMES = frozenset(Phase) - GAME_PHASES
