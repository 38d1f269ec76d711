"""Claim verification against the ordered call sequence (spec §6.2, §6.3).

A claim is stamped with the ordinal k of the last ball announced when it was called. It is
judged only on the balls drawn up to k, so the verdict never depends on anything after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bingo_hall.domain.cards import ROW_NAMES, Card
from bingo_hall.domain.profiles import ClaimDeadline, RuleProfile

# Reason codes of a false claim, in the order they are checked.
LINE_ALREADY_WON = "line_already_won"
NOT_COMPLETE = "not_complete"
NOT_DESIGNATED_ROW = "not_designated_row"
LAST_NUMBER_NOT_ON_COMBINATION = "last_number_not_on_combination"
CLAIMED_TOO_LATE = "claimed_too_late"
RIGHTS_LOST_AT_ORDER = "rights_lost_at_order"


@dataclass(frozen=True, slots=True)
class Verdict:
    valid: bool
    reason: str | None = None
    detail: str = ""
    rows: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()  # numbers not yet called (incomplete claims)
    completed_at: int | None = None  # ball that completed the combination (late claims)


def completion_ordinal(numbers: frozenset[int], calls: Sequence[int]) -> int | None:
    """The ordinal (1-based) of the call that completed `numbers`, or None if not complete."""
    position = {number: index + 1 for index, number in enumerate(calls)}
    try:
        return max(position[n] for n in numbers)
    except KeyError:
        return None


def verify_line(
    card: Card,
    calls: Sequence[int],
    ordinal: int,
    profile: RuleProfile,
    line_won_at: int | None,
    paying_row: int | None = None,
    rights_closed_through: int = 0,
) -> Verdict:
    """A line claim at ordinal `ordinal` against the first `ordinal` calls."""
    if line_won_at is not None and line_won_at < ordinal:
        return Verdict(False, LINE_ALREADY_WON, f"a line was already won at ball {line_won_at}")
    seen = calls[:ordinal]
    candidates = range(3) if paying_row is None else (paying_row,)
    complete = [
        (row, completion_ordinal(card.rows[row], seen))
        for row in candidates
        if completion_ordinal(card.rows[row], seen) is not None
    ]
    if not complete:
        if paying_row is not None and any(
            completion_ordinal(card.rows[row], seen) for row in range(3)
        ):
            return Verdict(False, NOT_DESIGNATED_ROW, f"only the {ROW_NAMES[paying_row]} line pays")
        missing = min((sorted(card.rows[row] - set(seen)) for row in candidates), key=len)
        return Verdict(
            False, NOT_COMPLETE, f"numbers not called: {missing}", missing=tuple(missing)
        )
    return _apply_timing(complete, seen, ordinal, profile, "line", rights_closed_through)


def verify_bingo(
    card: Card,
    calls: Sequence[int],
    ordinal: int,
    profile: RuleProfile,
    rights_closed_through: int = 0,
) -> Verdict:
    """A bingo claim at ordinal `ordinal`: all 15 numbers among the first `ordinal` calls."""
    seen = calls[:ordinal]
    completed_at = completion_ordinal(card.numbers, seen)
    if completed_at is None:
        missing = sorted(card.numbers - set(seen))
        return Verdict(
            False, NOT_COMPLETE, f"numbers not called: {missing}", missing=tuple(missing)
        )
    return _apply_timing(
        [(None, completed_at)], seen, ordinal, profile, "bingo", rights_closed_through
    )


def _apply_timing(
    complete: list[tuple[int | None, int]],
    seen: Sequence[int],
    ordinal: int,
    profile: RuleProfile,
    kind: str,
    rights_closed_through: int,
) -> Verdict:
    """The order's closing of rights, the last-number rule and the claim deadline."""
    open_ = [(row, at) for row, at in complete if at > rights_closed_through]
    if not open_:
        at = max(at for _, at in complete)
        return Verdict(
            False,
            RIGHTS_LOST_AT_ORDER,
            f"the {kind} was complete at ball {at}; every right to claim on it was lost at "
            f"the order given at ball {rights_closed_through}",
            completed_at=at,
        )
    complete = open_
    if profile.last_number_on_combination or profile.claim_deadline is ClaimDeadline.NEXT_BALL:
        # Both rules keep exactly the combinations completed by the last ball announced.
        timely = [(row, at) for row, at in complete if at == ordinal]
        if not timely:
            at = max(at for _, at in complete)
            if profile.last_number_on_combination:
                return Verdict(
                    False,
                    LAST_NUMBER_NOT_ON_COMBINATION,
                    f"the last number called ({seen[-1] if seen else '-'}) is not on the "
                    f"{kind}; it was complete at ball {at}",
                    completed_at=at,
                )
            return Verdict(
                False,
                CLAIMED_TOO_LATE,
                f"complete at ball {at}, claimed at ball {ordinal}",
                completed_at=at,
            )
        complete = timely
    rows = tuple(sorted(row for row, _ in complete if row is not None))
    return Verdict(True, rows=rows)
