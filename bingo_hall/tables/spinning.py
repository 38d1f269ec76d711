"""Who spins a coup and which way (spec wheels.md §2.8, §2.11, §5.6, §6.5).

The croupiers spin «sucesivamente y siguiendo un orden de rotación establecido» (N79 L127; EUS
L226), the director's order (N79 L424), and at boule none may specialise in throwing the ball.
A roulette cylinder turns «cada vez … en un sentido opuesto a la anterior» (N79 L224, AST
L285-287, EUS L314); the 003 wheel of fortune is set turning clockwise (WOF L25). A void coup
is launched again by its own croupier («entregarla al croupier para que la vuelva a lanzar»,
N79 L232) and keeps the turn. The checks run before the ball is launched, so a croupier's
station can refuse a spin out of turn or the wrong way before it happens.
"""

from __future__ import annotations

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Term
from bingo_hall.tables.profiles import DirectionRule, SpinDirection, TableGame
from bingo_hall.tables.state import TableState

OPPOSITE = {
    SpinDirection.CLOCKWISE: SpinDirection.ANTICLOCKWISE,
    SpinDirection.ANTICLOCKWISE: SpinDirection.CLOCKWISE,
}


def check_rotation(table: TableGame, croupiers: tuple[str, ...]) -> tuple[str, ...]:
    """The rotation as the rules take it (names stripped), or a RuleError naming the fault."""
    names = tuple(name.strip() for name in croupiers)
    if any(not name for name in names):
        raise RuleError.of("table_rotation_empty_name")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise RuleError.of("table_rotation_repeats", croupiers=repeated)
    least = table.rules.min_spinners
    if len(names) < least:
        raise RuleError.of("table_rotation_too_short", **table.named, least=least)
    return names


def direction_due(table: TableGame, state: TableState) -> SpinDirection | None:
    """The way the next spin must turn; None: either way (the session's first roulette coup,
    or a game whose text sets none)."""
    rule = table.rules.spin_direction
    if rule is DirectionRule.CLOCKWISE:
        return SpinDirection.CLOCKWISE
    if rule is DirectionRule.ALTERNATE and state.last_direction is not None:
        return OPPOSITE[state.last_direction]
    return None


def spin_direction(
    table: TableGame, state: TableState, given: SpinDirection | None
) -> SpinDirection | None:
    """The direction recorded for a spin, or a RuleError if the profile's rule refuses it."""
    rule = table.rules.spin_direction
    due = direction_due(table, state)
    if rule is DirectionRule.CLOCKWISE:
        if given is SpinDirection.ANTICLOCKWISE:
            raise RuleError.of("table_wheel_turns_clockwise", **table.named)
        return due
    if rule is DirectionRule.ALTERNATE:
        if given is None and due is None:
            raise RuleError.of("table_first_direction_needed")
        if given is None:
            raise RuleError.of("table_direction_needed", direction=_direction(due))
        if due is not None and given is not due:
            raise RuleError.of(
                "table_direction_wrong", before=_direction(OPPOSITE[due]), due=_direction(due)
            )
    return given


def check_spinner(state: TableState, spun_by: str) -> None:
    """A RuleError unless `spun_by` is the croupier who spins now."""
    due = state.next_spinner
    if due is None:
        raise RuleError.of("table_no_rotation")
    if spun_by == due:
        return
    if state.spin is not None:
        raise RuleError.of("table_void_relaunched_by", coup=state.coup, due=due, spun_by=spun_by)
    raise RuleError.of(
        "table_not_spinners_turn", due=due, rotation=list(state.rotation), spun_by=spun_by
    )


def _direction(direction: SpinDirection) -> Term:
    """A direction as the pages say it (`station.dir.<name>`)."""
    return Term("station.dir", direction.value)
