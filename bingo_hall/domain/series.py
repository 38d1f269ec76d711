"""What identifies a series (spec §2): a letter or two and an identification number."""

from __future__ import annotations

import re

SERIES_ID_PATTERN = re.compile(r"[A-Z]{1,2}[0-9]{1,6}")  # match with fullmatch, e.g. "A17"
MAX_SERIES_SIZE = 10_000_000
