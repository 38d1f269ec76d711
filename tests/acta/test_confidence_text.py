"""How the acta prints a reading's confidence: never surer than the reading was."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.acta.render import confidence_text


def printed(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))


def test_a_doubtful_reading_near_certainty_does_not_print_as_one():
    assert confidence_text(0.99995) == "0,99995"
    assert confidence_text(0.99999927) == "0,9999992"
    assert confidence_text(0.9168) == "0,9168"
    assert confidence_text(1.0) == "1,0000"


@given(st.floats(min_value=0.0, max_value=1.0))
def test_the_printed_confidence_is_never_above_the_reading_and_below_one_when_it_is(value):
    shown = printed(confidence_text(value))
    assert shown <= Decimal(repr(value))
    assert (shown < 1) == (value < 1)
    assert Decimal(repr(value)) - shown < Decimal("0.0001")
