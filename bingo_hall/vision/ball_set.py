"""A simulated ball set as a maker prints it, for the simulated camera of a hall.

A hall plays one ball set: ninety balls printed in one run, in one typeface, one ball colour
and one ink, their labels laid out alike. A ball's print is the same every time it comes out;
only its pose, the light and the camera change. `PrintedBallSet` is such a set: the print of
every ball, fixed once, put on each scene the simulated camera draws of that ball. The set's
commissioning showings are then pictures of the very prints play will show, as at a real
exit (docs/vision.md, "Commissioning a ball set").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bingo_hall.vision.render import Scene, sample_scene
from bingo_hall.vision.styles import HELD_OUT, Span, StyleSet

INK_SPREAD_BETWEEN_BALLS = 0.04  # of the stroke: how much one ball's ink differs from the run's
# What a ball keeps from one presentation to the next: its print.
PRINT = (
    "font",
    "colour",
    "ink",
    "label_deg",
    "ring_inner",
    "digit_height",
    "digit_gap",
    "bar_length",
    "bar_thickness",
    "bar_gap",
    "ink_spread",
    "slant",
)


@dataclass(frozen=True)
class PrintedBallSet:
    """Ninety balls of one print run: ball n's print is the `PRINT` of `prints[n - 1]`."""

    prints: tuple[Scene, ...]

    @property
    def typeface(self) -> str:
        return self.prints[0].font.name

    @property
    def colour(self) -> str:
        return self.prints[0].colour.name

    def scene(self, number: int | None, rng: np.random.Generator, style_set: StyleSet) -> Scene:
        """A picture of ball `number` (None: the exit is empty): its print, and a pose, light
        and camera drawn from the style set's conditions."""
        scene = sample_scene(number, rng, style_set)
        if number is None:
            return scene
        printed = self.prints[number - 1]
        return replace(scene, **{name: getattr(printed, name) for name in PRINT})


def print_ball_set(
    rng: np.random.Generator, style_set: StyleSet = HELD_OUT, typeface: str | None = None
) -> PrintedBallSet:
    """A set printed in `typeface` (None: one drawn from the style set), in one of its ball
    colours and inks; each ball's ink spread differs a little from the run's."""
    if typeface is None:
        fonts = style_set.usable_fonts()
        font = fonts[int(rng.integers(len(fonts)))]
    else:
        font = style_set.font_named(typeface)
    run = replace(sample_scene(None, rng, style_set), font=font)
    spread = style_set.conditions.ink_spread
    prints = []
    for _ in range(90):
        ink_spread = run.ink_spread + float(
            rng.uniform(-INK_SPREAD_BETWEEN_BALLS, INK_SPREAD_BETWEEN_BALLS)
        )
        prints.append(replace(run, ink_spread=_within(ink_spread, spread)))
    return PrintedBallSet(tuple(prints))


def _within(value: float, span: Span) -> float:
    return min(span.hi, max(span.lo, value))
