"""A simulated ball set printed once: every ball keeps its print from one presentation to
the next, as a hall's set does, and the hall's simulated camera shows that set."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bingo_hall.vision.ball_set import INK_SPREAD_BETWEEN_BALLS, PRINT, print_ball_set
from bingo_hall.vision.camera import SimulatedCamera, simulated_exit
from bingo_hall.vision.recognise import BallReader
from bingo_hall.vision.styles import HELD_OUT

RUN = [name for name in PRINT if name != "ink_spread"]  # the same on every ball of a set


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_set_is_one_print_run(seed: int) -> None:
    ball_set = print_ball_set(np.random.default_rng(seed))
    assert len(ball_set.prints) == 90
    first = ball_set.prints[0]
    for ball in ball_set.prints:
        assert [getattr(ball, name) for name in RUN] == [getattr(first, name) for name in RUN]
    spreads = [ball.ink_spread for ball in ball_set.prints]
    span = HELD_OUT.conditions.ink_spread
    assert all(span.lo <= spread <= span.hi for spread in spreads)
    assert max(spreads) - min(spreads) <= 2 * INK_SPREAD_BETWEEN_BALLS
    assert ball_set.typeface == first.font.name and ball_set.colour == first.colour.name


def test_a_ball_keeps_its_print_and_changes_its_pose() -> None:
    ball_set = print_ball_set(np.random.default_rng(4), typeface="courier")
    camera = SimulatedCamera(seed=9, ball_set=ball_set)
    scenes = []
    for ball in (45, 12, 45, 45):
        camera.present(ball)
        scenes.append(camera._scene)
    first, _, second, third = scenes
    for later in (second, third):
        assert later.font.name == "courier"
        assert [getattr(later, name) for name in PRINT] == [getattr(first, name) for name in PRINT]
        assert (later.spin, later.tilt, later.light) != (first.spin, first.tilt, first.light)
    assert scenes[1].ink_spread == ball_set.prints[11].ink_spread


def test_an_empty_exit_shows_no_ball_of_the_set() -> None:
    camera = SimulatedCamera(seed=2, ball_set=print_ball_set(np.random.default_rng(2)))
    camera.present(None)
    assert camera._scene.number is None
    assert BallReader().read_frames(camera.frames(2)).reason == "no_ball"


def test_an_unknown_typeface_is_named_with_the_ones_there_are() -> None:
    with pytest.raises(ValueError, match=r"no typeface 'comic-sans': one of .*courier"):
        print_ball_set(np.random.default_rng(1), typeface="comic-sans")


def test_the_halls_simulated_exit_is_repeatable_and_printed_in_its_typeface() -> None:
    a, b = simulated_exit(31, "times-bold"), simulated_exit(31, "times-bold")
    assert a.ball_set is not None and a.ball_set.typeface == "times-bold"
    for camera in (a, b):
        camera.present(71)
    assert all(np.array_equal(x, y) for x, y in zip(a.frames(2), b.frames(2), strict=True))
    drawn = {simulated_exit(seed).ball_set.typeface for seed in range(40)}  # type: ignore[union-attr]
    assert drawn <= {font.name for font in HELD_OUT.usable_fonts()} and len(drawn) > 3
