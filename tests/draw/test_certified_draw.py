"""The certified random draw: every ball equally likely at every position (chi-square, 99 %)."""

from __future__ import annotations

import random

import numpy as np
from scipy.stats import chi2, chi2_contingency

from bingo_hall.draw import CertifiedRandomDraw, KeyedBlower

GAMES = 2000  # 2000 / 90 ≈ 22 expected draws per (position, number) cell
ALPHA = 0.01


def position_number_table(draw: CertifiedRandomDraw, games: int = GAMES) -> np.ndarray:
    """Counts of number n drawn at position p over `games` complete 90-ball draws."""
    table = np.zeros((90, 90), dtype=np.int64)
    for _ in range(games):
        drawn: list[int] = []
        for position in range(90):
            ball = draw.next_ball(drawn)
            drawn.append(ball)
            table[position, ball - 1] += 1
    return table


def p_value(table: np.ndarray) -> float:
    """Pearson's test of independence, scaled for tables summed from whole draws.

    Each game adds a permutation matrix, not 90 independent (position, number) pairs: its
    cells covary by 1/(n-1) where independent pairs would not, so the plain statistic runs
    n/(n-1) high and a fair draw would fail a 1 % test about one time in twenty. Scaled by
    (n-1)/n it follows chi-square with (n-1)^2 degrees of freedom.
    """
    balls = table.shape[0]
    statistic = chi2_contingency(table, correction=False).statistic * (balls - 1) / balls
    return float(chi2.sf(statistic, (balls - 1) ** 2))


def test_every_game_draws_each_ball_once():
    draw = CertifiedRandomDraw()
    drawn: list[int] = []
    for _ in range(90):
        drawn.append(draw.next_ball(drawn))
    assert sorted(drawn) == list(range(1, 91))


def test_position_and_number_are_independent_at_99_percent():
    """Chi-square independence test on the 90 × 90 position × number table.

    A fair draw fails a single 1 % test once in a hundred runs by chance, so a failure is
    confirmed on a second, independent sample before it counts (false alarm rate 1 in 10,000);
    a real bias fails both, as the test below shows.
    """
    first = p_value(position_number_table(CertifiedRandomDraw()))
    if first < ALPHA:
        second = p_value(position_number_table(CertifiedRandomDraw()))
        assert second >= ALPHA, f"draw is biased: p = {first:.2e} then {second:.2e}"


def test_the_chi_square_test_catches_modulo_bias():
    """The same test rejects a draw that reduces 7 random bits modulo the balls left."""
    rng = random.Random(1979)
    biased = CertifiedRandomDraw(randbelow=lambda n: rng.getrandbits(7) % n)
    assert p_value(position_number_table(biased)) < ALPHA


def test_a_keyed_blower_gives_the_balls_in_the_order_keyed():
    blower = KeyedBlower([7, 3, 90])
    assert blower.next_ball([]) == 7
    assert blower.next_ball([7]) == 3
    assert blower.next_ball([7, 3]) == 90


def test_the_scaled_test_holds_its_false_alarm_rate_on_shuffles():
    """Tables of fair shuffles fail the 1 % test about one time in a hundred, not one in twenty."""
    rng = np.random.default_rng(20261126)
    trials = 300
    failures = 0
    for _ in range(trials):
        orders = np.argsort(rng.random((GAMES, 90)), axis=1)
        table = np.stack([np.bincount(orders[:, position], minlength=90) for position in range(90)])
        failures += p_value(table) < ALPHA
    assert failures <= 8  # 3 here; the unscaled statistic fails 13 of these 300
