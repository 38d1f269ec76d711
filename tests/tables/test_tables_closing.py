"""The casino's next closing time (bingo_hall/tables/closing.py): the next local occurrence of
the configured time of day, across midnight and daylight-saving days (EUS L2931 d)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bingo_hall.tables.closing import ClosingTime, closing_on, next_closing

MADRID = ZoneInfo("Europe/Madrid")
ZONES = ["Europe/Madrid", "Atlantic/Canary", "America/Santiago", "Australia/Sydney"]
FOUR = time(4, 0)


def local(zone: ZoneInfo, *fields: int, fold: int = 0) -> datetime:
    """An instant given by the wall time the zone's clocks show (its first showing unless
    `fold`), in UTC."""
    return datetime(*fields, tzinfo=zone, fold=fold).astimezone(UTC)


def test_a_session_runs_across_midnight_to_the_next_closing():
    assert next_closing(local(MADRID, 2024, 5, 2, 3, 30), FOUR, MADRID) == local(
        MADRID, 2024, 5, 2, 4, 0
    )
    assert next_closing(local(MADRID, 2024, 5, 1, 22, 0), FOUR, MADRID) == local(
        MADRID, 2024, 5, 2, 4, 0
    )
    after = local(MADRID, 2024, 5, 2, 4, 30)
    assert next_closing(after, FOUR, MADRID) == local(MADRID, 2024, 5, 3, 4, 0)
    at = local(MADRID, 2024, 5, 2, 4, 0)  # strictly after now: the closing now is past
    assert next_closing(at, FOUR, MADRID) == local(MADRID, 2024, 5, 3, 4, 0)


def test_the_canaries_close_an_hour_after_the_peninsula_at_the_same_wall_time():
    canary = ZoneInfo("Atlantic/Canary")
    now = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)
    assert next_closing(now, FOUR, canary) - next_closing(now, FOUR, MADRID) == timedelta(hours=1)


def test_a_closing_time_the_clocks_skip_falls_when_they_jump_past_it():
    """Madrid, 31 March 2024: at 02:00 the clocks go to 03:00; 02:30 does not exist."""
    now = local(MADRID, 2024, 3, 31, 1, 0)
    closing = next_closing(now, time(2, 30), MADRID)
    assert closing == datetime(2024, 3, 31, 1, 0, tzinfo=UTC)  # the jump
    assert closing.astimezone(MADRID).time() == time(3, 0)
    # the next day's exists again
    assert next_closing(closing, time(2, 30), MADRID) == local(MADRID, 2024, 4, 1, 2, 30)


def test_a_closing_time_the_clocks_show_twice_falls_at_its_first_showing():
    """Madrid, 27 October 2024: at 03:00 the clocks go back to 02:00; 02:30 shows twice."""
    first = local(MADRID, 2024, 10, 27, 2, 30)
    assert next_closing(local(MADRID, 2024, 10, 27, 1, 0), time(2, 30), MADRID) == first
    assert first == datetime(2024, 10, 27, 0, 30, tzinfo=UTC)
    # between its two showings, and after them, the hall has closed: the next is tomorrow's
    tomorrow = local(MADRID, 2024, 10, 28, 2, 30)
    between = local(MADRID, 2024, 10, 27, 2, 15, fold=1)
    assert between > first
    assert next_closing(between, time(2, 30), MADRID) == tomorrow
    assert next_closing(first, time(2, 30), MADRID) == tomorrow


def test_a_closing_at_midnight_where_the_clocks_jump_at_midnight():
    """Santiago de Chile, 8 September 2024: at 00:00 the clocks go to 01:00."""
    santiago = ZoneInfo("America/Santiago")
    closing = closing_on(datetime(2024, 9, 8).date(), time(0, 0), santiago)
    assert closing.astimezone(santiago).replace(tzinfo=None) == datetime(2024, 9, 8, 1, 0)


def test_the_hall_s_closing_time_is_given_on_its_own_clocks():
    closing = ClosingTime(FOUR, MADRID).next_after(datetime(2024, 1, 10, 12, 0, tzinfo=UTC))
    assert closing.isoformat() == "2024-01-11T04:00:00+01:00"
    summer = ClosingTime(FOUR, MADRID).next_after(datetime(2024, 7, 10, 12, 0, tzinfo=UTC))
    assert summer.isoformat() == "2024-07-11T04:00:00+02:00"


def test_now_must_be_an_instant():
    with pytest.raises(ValueError, match="aware"):
        next_closing(datetime(2024, 5, 1, 21, 0), FOUR, MADRID)


FIRST_YEAR, LAST_YEAR = 2010, 2035


@cache
def transitions(zone_name: str) -> tuple[datetime, ...]:
    """The instants (UTC, to the second) the zone's clocks change between the years tested."""
    zone = ZoneInfo(zone_name)
    found = []
    day = datetime(FIRST_YEAR, 1, 1, tzinfo=UTC)
    while day.year <= LAST_YEAR:
        following = day + timedelta(days=1)
        if day.astimezone(zone).utcoffset() != following.astimezone(zone).utcoffset():
            low, high = int(day.timestamp()), int(following.timestamp())
            while high - low > 1:
                middle = (low + high) // 2
                if (
                    datetime.fromtimestamp(middle, zone).utcoffset()
                    == day.astimezone(zone).utcoffset()
                ):
                    low = middle
                else:
                    high = middle
            found.append(datetime.fromtimestamp(high, UTC))
        day = following
    return tuple(found)


@st.composite
def near_a_change(draw: st.DrawFn) -> tuple[datetime, time, str]:
    """An instant within a day and a half of a change of the clocks, and a closing time within
    two hours of the wall time they change at: the gaps and folds, often."""
    zone_name = draw(st.sampled_from(ZONES))
    change = draw(st.sampled_from(transitions(zone_name)))
    now = change + timedelta(seconds=draw(st.integers(-36 * 3600, 36 * 3600)))
    wall = change.astimezone(ZoneInfo(zone_name)) + timedelta(minutes=draw(st.integers(-120, 120)))
    return now, time(wall.hour, wall.minute), zone_name


ANY_TIME = st.tuples(
    st.datetimes(
        min_value=datetime(FIRST_YEAR, 1, 1),
        max_value=datetime(LAST_YEAR, 12, 31),
        timezones=st.just(UTC),
    ),
    st.builds(time, st.integers(0, 23), st.integers(0, 59)),
    st.sampled_from(ZONES),
)


def test_every_zone_tested_changes_its_clocks():
    for zone_name in ZONES:
        if zone_name != "Atlantic/Canary":  # the same days as Madrid, an hour behind
            assert len(transitions(zone_name)) > 2 * 10, zone_name


@settings(max_examples=2000, deadline=None)
@given(st.one_of(ANY_TIME, near_a_change()))
@example((local(MADRID, 2024, 3, 31, 1, 59), time(2, 30), "Europe/Madrid"))  # before the jump
@example((local(MADRID, 2024, 10, 27, 2, 45), time(2, 30), "Europe/Madrid"))  # between showings
@example((local(MADRID, 2024, 10, 27, 2, 15, fold=1), time(2, 30), "Europe/Madrid"))
@example((datetime(2024, 9, 7, 12, 0, tzinfo=UTC), time(0, 0), "America/Santiago"))
@example((datetime(2024, 4, 6, 12, 0, tzinfo=UTC), time(23, 30), "America/Santiago"))
@example((datetime(2024, 10, 5, 12, 0, tzinfo=UTC), time(2, 30), "Australia/Sydney"))
@example((datetime(2024, 4, 6, 14, 0, tzinfo=UTC), time(2, 30), "Australia/Sydney"))
def test_the_next_closing_is_the_next_time_the_hall_s_clocks_show_it(case):
    """Strictly after now, within 25 hours, and the hall's clocks then show the closing time,
    or, on a day they skip it, just jumped past it; no closing falls between."""
    now, at, zone_name = case
    zone = ZoneInfo(zone_name)
    closing = next_closing(now, at, zone)
    assert closing.utcoffset() == timedelta(0)
    assert now < closing <= now + timedelta(hours=25)
    wall = closing.astimezone(zone)
    if wall.time() != at:
        # the clocks skipped it that day: it falls as they jump past it
        just_before = (closing - timedelta(seconds=1)).astimezone(zone)
        assert (
            just_before.replace(tzinfo=None)
            < datetime.combine(wall.date(), at)
            < (wall.replace(tzinfo=None))
        )
    # no closing between: if it falls on a later date than now's, now's was already past
    today = now.astimezone(zone).date()
    if wall.date() > today:
        showings = [datetime.combine(today, at, tzinfo=zone).replace(fold=f) for f in (0, 1)]
        assert min(s.astimezone(UTC) for s in showings) <= now
    assert today <= wall.date() <= today + timedelta(days=1)
