"""Times in the printed acta: UTC to the millisecond, whatever ISO form the log's time takes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.acta.render import clock


def test_a_whole_second_prints_like_any_other_time():
    assert clock("2026-11-21T17:02:22+00:00") == "2026-11-21 17:02:22.000 UTC"
    assert clock("2026-11-21T17:02:22.698000+00:00") == "2026-11-21 17:02:22.698 UTC"
    assert clock("2026-11-21T18:02:22.5+01:00") == "2026-11-21 17:02:22.500 UTC"
    assert clock(None) == "—"


@given(
    st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC)),
    st.integers(-12, 12).map(lambda h: timezone(timedelta(hours=h))),
)
def test_every_time_prints_in_one_form_in_utc(moment, zone):
    printed = clock(moment.astimezone(zone).isoformat())
    assert printed == moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:23] + " UTC"
