"""Flattening a label: the window holds the whole print even when the print finder sees only
a piece of it (one digit of a thin face, a stroke beside a highlight)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from bingo_hall.vision import prints
from bingo_hall.vision.locate import find_ball
from bingo_hall.vision.render import draw_scene, sample_scene
from bingo_hall.vision.styles import HELD_OUT, TRAINING, StyleSet

# The generator's state just before two rendered balls on which the print finder, left to
# itself, closes in on one digit: a 41 in Hershey Duplex (training styles) and a 42 in
# Hershey Plain (held-out styles; the reader took it for a 48 before the window had a floor).
# The typeface is given by name, so that a longer font list does not change the ball.
ZOOMING_IN = [
    (
        TRAINING,
        "hershey-duplex",
        {
            "state": 46346679981902017006723425777172231476,
            "inc": 69081386212300882839914119748915158347,
        },
        (0, 0),
    ),
    (
        HELD_OUT,
        "hershey-plain",
        {
            "state": 114845843921045417206711066451174563927,
            "inc": 12857189188339622910064602082720338765,
        },
        (1, 1997704303),
    ),
]


def _scene_and_frame(
    style_set: StyleSet, font_name: str, pcg64: dict[str, int], spare: tuple[int, int]
):
    """The ball rendered in that typeface by a generator started from the recorded state."""
    rng = np.random.default_rng()
    has_uint32, uinteger = spare
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": pcg64,
        "has_uint32": has_uint32,
        "uinteger": uinteger,
    }
    truth = int(rng.integers(1, 91))
    font = next(font for font in style_set.fonts if font.name == font_name)
    scene = replace(sample_scene(truth, rng, style_set), font=font)
    return scene, draw_scene(scene, rng)


def _window_share(scene, frame) -> float:
    """The narrowest window of the two labels read, as a share of a label's true half-width."""
    ball = find_ball(frame)
    assert ball is not None
    labels = prints.find_labels(prints.ball_crop(frame, ball), 2)
    assert labels
    return min(label.span for label in labels) / math.sin(math.radians(scene.label_deg))


@pytest.mark.parametrize(("style_set", "font_name", "pcg64", "spare"), ZOOMING_IN)
def test_the_window_never_closes_in_on_a_piece_of_the_print(
    style_set: StyleSet, font_name: str, pcg64: dict[str, int], spare: tuple[int, int], monkeypatch
) -> None:
    scene, frame = _scene_and_frame(style_set, font_name, pcg64, spare)
    assert scene.number in (41, 42)
    # the print (two digits and the bar) reaches about 0.6 of the label's half-width
    assert _window_share(scene, frame) > 0.55
    monkeypatch.setattr(prints, "MIN_SPAN", 0.0)  # without the floor, the finder zooms in
    assert _window_share(scene, frame) < 0.45
