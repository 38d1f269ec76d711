"""The casino's closing time: when it next falls after a given instant (pure: `now` is passed).

The hall's configuration sets the closing time as a local wall-clock time of day («ixteko
ezarritako ordutegia», EUS L2931 d) in the hall's time zone. A session runs across midnight (a
casino may close at 04:00), so the closing that matters is the next one: at 03:30 local time
it is 30 minutes away, at 04:30 it is tomorrow's.

Each local date has one closing instant, and the next closing is the first of them strictly
after `now`. On a daylight-saving day:

- a closing time the clocks skip (spring forward: 02:30 where 02:00 jumps to 03:00) falls when
  they jump past it, the first instant whose wall time is at or after it (03:00, new time): the
  earliest reading, which is the safe side for a rule that asks for time left before closing;
- a closing time the clocks show twice (autumn: 02:30 where 03:00 goes back to 02:00) falls at
  its first showing, the earlier instant, for the same reason; once it has passed, the next
  closing is the next day's (the hall closes once a night, not again at the second 02:30).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class ClosingTime:
    """The hall's closing time of day in its time zone (`closing_time`, `time_zone`)."""

    at: time
    zone: ZoneInfo

    def next_after(self, now: datetime) -> datetime:
        """The next closing strictly after `now`, in the hall's local time (an aware datetime
        whose wall time is what the hall's clocks show, with its UTC offset)."""
        return next_closing(now, self.at, self.zone).astimezone(self.zone)


def next_closing(now: datetime, at: time, zone: ZoneInfo) -> datetime:
    """The first closing instant strictly after `now` (aware), as an aware UTC datetime: the
    next local occurrence of the wall time `at` in `zone` (module docstring: the DST days)."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now must be an aware datetime, not {now!r}")
    today = now.astimezone(zone).date()
    # a day before and after today's, for zones whose date moves oddly (a day skipped, a
    # midnight fold): the closing instants grow with the date, so the first later one is next
    for days in range(-1, 3):
        closing = closing_on(today + timedelta(days=days), at, zone)
        if closing > now:
            return closing
    raise AssertionError(f"no closing in {zone.key} within two days of {now.isoformat()}")


def closing_on(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The closing instant (aware, UTC) of one local date: the wall time `at` on `day` in
    `zone`; at its first showing when the clocks show it twice, and when the clocks skip it,
    at the instant they jump past it."""
    wall = datetime.combine(day, at.replace(tzinfo=None))
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)  # the earlier instant (PEP 495)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first  # it exists (once, or twice and this is its first showing)
    # Skipped: fold=0 reads it at the offset before the jump, an instant after the jump;
    # fold=1 at the offset after it, an instant before. The jump lies between, on a whole
    # second (the zone files count in seconds): find that second.
    before = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    offset = before.astimezone(zone).utcoffset()
    low, high = math.floor(before.timestamp()), math.ceil(first.timestamp())
    while high - low > 1:  # the offset at `low` is the old one, at `high` the new one
        middle = (low + high) // 2
        if datetime.fromtimestamp(middle, zone).utcoffset() == offset:
            low = middle
        else:
            high = middle
    return datetime.fromtimestamp(high, UTC)
