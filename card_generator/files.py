"""Card files: JSONL (one object per card) and CSV, written in streams and read back.

JSONL line: {"series": "A17", "number": 1, "face_value": "1.50", "series_size": 3000,
             "grid": [[9 cells], [9 cells], [9 cells]], "code": "…"}  (+ "strip": k)
CSV: series,number,face_value,series_size[,strip],r1c1..r3c9,code
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from card_generator.series import STRIP_SIZE, GeneratedSeries, security_code

CELLS = [f"r{r}c{c}" for r in range(1, 4) for c in range(1, 10)]


class CardFileError(Exception):
    """A card file that cannot be read or written; the message names the file."""


def format_of(path: Path) -> str:
    return "csv" if path.suffix.lower() == ".csv" else "jsonl"


def write_series(
    series: GeneratedSeries, out: Path, progress: Callable[[int], None] | None = None
) -> int:
    """Stream every card of a series to `out` (JSONL or CSV by extension); returns the count.

    Written to a temporary file beside `out` and renamed at the end: a reader never sees half
    a series.
    """
    temporary = out.with_name(f".{out.name}.part")
    try:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            writer = _csv_writer(handle, series) if format_of(out) == "csv" else None
            for first, grids in series.chunks():
                lines = []
                for offset, grid in enumerate(grids.tolist()):
                    number = first + offset
                    code = security_code(
                        series.seed, series.series_id, number, bytes(grids[offset].ravel())
                    )
                    if writer is not None:
                        writer(number, grid, code)
                    else:
                        lines.append(_json_line(series, number, grid, code))
                handle.writelines(lines)
                if progress is not None:
                    progress(len(grids))
        os.replace(temporary, out)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CardFileError(f"cannot write {out}: {error.strerror or error}") from None
    return series.size


def _json_line(series: GeneratedSeries, number: int, grid: list, code: str) -> str:
    strip = f', "strip": {(number + STRIP_SIZE - 1) // STRIP_SIZE}' if series.strips else ""
    return (
        f'{{"series": "{series.series_id}", "number": {number}, '
        f'"face_value": "{series.face_value:.2f}", "series_size": {series.size}, '
        f'"grid": {json.dumps(grid)}, "code": "{code}"{strip}}}\n'
    )


def _csv_writer(handle: TextIO, series: GeneratedSeries) -> Callable[[int, list, str], None]:
    writer = csv.writer(handle, lineterminator="\n")
    strip_column = ["strip"] if series.strips else []
    writer.writerow(
        ["series", "number", "face_value", "series_size", *strip_column, *CELLS, "code"]
    )
    face_value = f"{series.face_value:.2f}"

    def write(number: int, grid: list, code: str) -> None:
        strip = [(number + STRIP_SIZE - 1) // STRIP_SIZE] if series.strips else []
        cells = [cell for row in grid for cell in row]
        writer.writerow([series.series_id, number, face_value, series.size, *strip, *cells, code])

    return write


def read_cards(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line number, record) for every card in a JSONL or CSV file, in file order.

    A line that cannot be parsed yields (line number, message) instead of a record, so a
    verifier can report it and go on. A file that cannot be opened raises CardFileError.
    """
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as error:
        raise CardFileError(f"cannot read {path}: {error.strerror or error}") from None
    with handle:
        try:
            if format_of(path) == "csv":
                yield from _read_csv(handle)
            else:
                yield from _read_jsonl(handle)
        except UnicodeDecodeError:
            raise CardFileError(f"{path} is not UTF-8 text") from None


def _read_jsonl(handle: TextIO) -> Iterator[tuple[int, dict[str, Any] | str]]:
    for line_number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            yield line_number, f"not valid JSON ({error.msg})"
            continue
        except RecursionError:
            yield line_number, "not valid JSON (nested too deep)"
            continue
        except ValueError:  # an integer of thousands of digits
            yield line_number, "not valid JSON (a number too long)"
            continue
        yield line_number, record if isinstance(record, dict) else "not a JSON object"


def _csv_int(text: str | None) -> int:
    """A whole number as a card file writes it: ASCII digits only (int() would take "+7",
    " 7", "1_0" and other scripts' digits)."""
    if text is None or not _DIGITS.fullmatch(text):
        raise ValueError(f"{text!r} is not a whole number in digits 0-9")
    return int(text)


_DIGITS = re.compile(r"[0-9]{1,18}")


def _read_csv(handle: TextIO) -> Iterator[tuple[int, dict[str, Any] | str]]:
    reader = csv.DictReader(handle)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # a field over the csv module's limit, a stray NUL …
            yield reader.line_num, f"bad CSV row ({error})"
            return
        line_number = reader.line_num
        try:
            record: dict[str, Any] = {
                "series": row["series"],
                "number": _csv_int(row["number"]),
                "face_value": row["face_value"],
                "series_size": _csv_int(row["series_size"]),
                "grid": [[_csv_int(row[f"r{r}c{c}"]) for c in range(1, 10)] for r in range(1, 4)],
                "code": row["code"],
            }
            if row.get("strip"):
                record["strip"] = _csv_int(row["strip"])
        except (KeyError, TypeError, ValueError) as error:
            yield line_number, f"bad CSV row ({error})"
            continue
        yield line_number, record
