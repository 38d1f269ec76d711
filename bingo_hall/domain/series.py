"""What identifies a series (spec §2): a letter or two and an identification number."""

from __future__ import annotations

import re
from decimal import Decimal

SERIES_ID_PATTERN = re.compile(r"[A-Z]{1,2}[0-9]{1,6}")  # match with fullmatch, e.g. "A17"
MAX_SERIES_SIZE = 10_000_000
# A card's face value is a few euros; the bound keeps every sum of sales and prizes far from
# what a Decimal context can hold, and turns a mistyped amount into a clear refusal.
MAX_FACE_VALUE = Decimal("10000.00")
