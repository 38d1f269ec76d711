"""Where balls come from: the certified random draw, or a blower whose balls are keyed in."""

from bingo_hall.draw.sources import BallSource, CertifiedRandomDraw, KeyedBlower

__all__ = ["BallSource", "CertifiedRandomDraw", "KeyedBlower"]
