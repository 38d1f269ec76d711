"""Command-line numbers as a person types them: ASCII digits only.

argparse's `type=int` takes whatever `int()` takes: "١٠" (Arabic-Indic digits), "+7", " 7",
"1_0". A count, a port or a game number written so is a slip, not a number."""

from __future__ import annotations

import argparse
import re

_WHOLE = re.compile(r"-?[0-9]{1,18}")


def whole_number(text: str) -> int:
    """An argparse type: a whole number in digits 0-9 (with a minus sign where negative)."""
    if not _WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number in digits 0-9")
    return int(text)
