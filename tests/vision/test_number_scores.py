"""From digit probabilities to the 90 numbers: every ball is printed with two digits (7 as 07),
so two digits read are tens and units, and one digit read is a damaged print."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bingo_hall.vision.recognise import number_scores

digit_probabilities = arrays(
    np.float64, 10, elements=st.floats(1e-6, 1.0, allow_nan=False, allow_infinity=False)
).map(lambda p: p / p.sum())


def posterior(scores: np.ndarray) -> np.ndarray:
    p = np.exp(scores - scores.max())
    return p / p.sum()


@given(tens=digit_probabilities, units=digit_probabilities, miscount=st.floats(1e-4, 0.3))
def test_two_digits_read_are_the_tens_and_units_as_printed(
    tens: np.ndarray, units: np.ndarray, miscount: float
) -> None:
    got = posterior(number_scores(np.log(np.stack([tens, units])), miscount))
    printed = [(n // 10, n % 10) for n in range(1, 91)]  # 01 … 09, 10 … 90
    expected = np.array([tens[t] * units[u] for t, u in printed])
    assert np.allclose(got, expected / expected.sum())


@given(digit=st.integers(0, 9))
def test_a_clear_two_digit_print_reads_as_its_ball(digit: int) -> None:
    for tens in range(10):
        number = 10 * tens + digit
        if not 1 <= number <= 90:
            continue
        logp = np.full((2, 10), np.log(1e-6))
        logp[0, tens] = logp[1, digit] = 0.0
        assert int(np.argmax(number_scores(logp, 0.001))) + 1 == number


@given(seen=digit_probabilities, miscount=st.floats(1e-4, 0.3))
def test_one_digit_read_alone_never_names_a_ball(seen: np.ndarray, miscount: float) -> None:
    """A print seen as one digit lost the other (to a glare or the ball's edge): 78 that
    lost its 7 must not read as ball 8. At best it narrows the ball to those holding the
    digit (77 is likeliest for a clear 7, at about one chance in ten)."""
    got = posterior(number_scores(np.log(seen)[None], miscount))
    assert got.max() < 0.11
