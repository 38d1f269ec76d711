"""Streams of the event log: a hall's own (bingo) stream and one stream per casino table.

Every stream is keyed in the log by a string with its own contiguous seq and hash chain: the
hall's is its id (`sala-1`), a table's is `<hall>/tables/<table>` (`sala-1/tables/R1`).
"""

from __future__ import annotations

import re

TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
"""A table id: 1-32 letters, digits, '_' or '-' (it is an MQTT topic level and part of a
stream id, so never '/', '+', '#' or a space)."""

_TABLE_ID = re.compile(TABLE_ID_PATTERN)
_SEPARATOR = "/tables/"


def table_stream(hall_id: str, table_id: str) -> str:
    """The log stream of one table of a hall."""
    return f"{hall_id}{_SEPARATOR}{table_id}"


def split_stream(stream: str) -> tuple[str, str | None]:
    """(hall, table) of a stream id; table is None for a hall's own stream."""
    hall, separator, table = stream.rpartition(_SEPARATOR)
    if separator and hall and _TABLE_ID.fullmatch(table):
        return hall, table
    return stream, None
