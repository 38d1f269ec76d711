"""The acta (minutes): a projection of the event log for the Jefe de Sala and the inspector."""

from bingo_hall.acta.build import AlteredLog, build_acta
from bingo_hall.acta.render import render_text

__all__ = ["AlteredLog", "build_acta", "render_text"]
