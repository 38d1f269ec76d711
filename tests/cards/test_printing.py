"""The card-printing batch job: real PDFs, rendered by poppler, QR codes read back by OpenCV."""

from __future__ import annotations

import copy
import math
import random
import shutil
import string
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import segno

from card_generator.printing import (
    CARDS_PER_PAGE,
    CardRecordError,
    parse_qr_payload,
    print_cards,
    qr_matrix,
    qr_payload,
)
from card_generator.series import card_records, generate_series

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output" / "printing"
CARDS = 14
PAGE_COLUMNS, PAGE_ROWS = 2, 3  # each card lies inside its sixth of the page
A4_POINTS = (595.276, 841.89)

Record = dict[str, Any]


@pytest.fixture(scope="module")
def records() -> list[Record]:
    series = generate_series("A17", CARDS, Decimal("1.50"), seed=b"print-test")
    records = list(card_records(series))
    for record in records:
        record["strip"] = (record["number"] - 1) // 6 + 1
    return records


@dataclass
class Printed:
    pdf: Path
    count: int
    progress: list[int]
    pages: list[Path]


def render(pdf: Path, prefix: Path) -> list[Path]:
    """Every page of `pdf` as a 150-dpi PNG, in page order."""
    subprocess.run(["pdftoppm", "-r", "150", "-png", str(pdf), str(prefix)], check=True)
    pages = prefix.parent.glob(f"{prefix.name}-*.png")
    return sorted(pages, key=lambda page: int(page.stem.rsplit("-", 1)[1]))


def slot_images(page: Path) -> Iterator[np.ndarray]:
    """The sixths of a rendered page, left to right and top to bottom: one card each."""
    image = cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
    assert image is not None, page
    height, width = image.shape
    for slot in range(CARDS_PER_PAGE):
        row, column = divmod(slot, PAGE_COLUMNS)
        yield image[
            row * height // PAGE_ROWS : (row + 1) * height // PAGE_ROWS,
            column * width // PAGE_COLUMNS : (column + 1) * width // PAGE_COLUMNS,
        ]


def slot_text(pdf: Path, page: int, slot: int) -> str:
    """pdftotext of one card's sixth of a page (crop box in points)."""
    row, column = divmod(slot, PAGE_COLUMNS)
    width, height = A4_POINTS[0] / PAGE_COLUMNS, A4_POINTS[1] / PAGE_ROWS
    box = [
        *("-x", str(int(column * width)), "-y", str(int(row * height))),
        *("-W", str(int(width)), "-H", str(int(height))),
    ]
    result = subprocess.run(
        ["pdftotext", "-f", str(page), "-l", str(page), "-r", "72", *box, str(pdf), "-"],
        check=True,
        capture_output=True,
        text=True,
    )
    return result.stdout


def decode_all(pages: list[Path]) -> list[str]:
    """The QR text read in each card slot of each page ("" where none was read)."""
    detector = cv2.QRCodeDetector()
    return [detector.detectAndDecode(image)[0] for page in pages for image in slot_images(page)]


@pytest.fixture(scope="module")
def printed(records: list[Record], tmp_path_factory: pytest.TempPathFactory) -> Printed:
    folder = tmp_path_factory.mktemp("printing")
    pdf = folder / "cards.pdf"
    seen: list[int] = []
    count = print_cards(iter(records), pdf, progress=seen.append)
    pages = render(pdf, folder / "page")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pages[0], OUTPUT / "page-1.png")
    return Printed(pdf, count, seen, pages)


# --- the printed document --------------------------------------------------------------------


def test_counts_cards_and_reports_progress_after_each(printed: Printed) -> None:
    assert printed.count == CARDS
    assert printed.progress == [1] * CARDS  # increments, as tqdm's update takes them


def test_one_page_per_cards_per_page(printed: Printed) -> None:
    assert CARDS_PER_PAGE == PAGE_COLUMNS * PAGE_ROWS
    assert len(printed.pages) == math.ceil(CARDS / CARDS_PER_PAGE) == 3


def test_every_qr_code_reads_back_in_its_card_slot(printed: Printed, records: list[Record]) -> None:
    decoded = decode_all(printed.pages)
    expected = [qr_payload(record) for record in records]
    assert decoded[:CARDS] == expected  # card k sits in slot k of the page order
    assert decoded[CARDS:] == [""] * (len(decoded) - CARDS)  # the empty slots
    assert {text for text in decoded if text} == set(expected)


def test_each_card_shows_its_identity_and_numbers(printed: Printed, records: list[Record]) -> None:
    for index, record in enumerate(records):
        page, slot = divmod(index, CARDS_PER_PAGE)
        text = slot_text(printed.pdf, page + 1, slot)
        for shown in (
            "Serie A17",
            f"Cartón nº {record['number']}",
            "Valor facial 1,50 €",
            f"Serie de {CARDS} cartones",
            f"Tira nº {record['strip']}",
            record["code"],
        ):
            assert shown in text, (record["number"], shown, text)
        numbers = {str(cell) for row in record["grid"] for cell in row if cell}
        assert numbers <= set(text.split()), (record["number"], text)


def test_document_metadata(printed: Printed) -> None:
    info = subprocess.run(
        ["pdfinfo", str(printed.pdf)], check=True, capture_output=True, text=True
    ).stdout
    assert "Title:           Cartones de bingo, serie A17" in info
    assert "Subject:         Cartones de bingo serie A17" in info
    assert "Page size:       595.276 x 841.89 pts (A4)" in info


def test_long_ids_big_amounts_and_version_3_qr_codes(records: list[Record], tmp_path: Path) -> None:
    record = copy.deepcopy(records[0])
    record.update(
        series="ZZ123456", number=987654, series_size=1_000_000, face_value="1500.00", strip=None
    )
    pdf = tmp_path / "long.pdf"
    assert print_cards([record], pdf) == 1
    payload = qr_payload(record)
    assert payload == f"BINGO1|ZZ123456|987654|{record['code']}"
    assert qr_matrix(payload).shape == (29, 29)  # version 3
    assert decode_all(render(pdf, tmp_path / "page"))[0] == payload
    text = slot_text(pdf, 1, 0)
    for shown in ("Serie ZZ123456", "Cartón nº 987654", "Valor facial 1.500,00 €"):
        assert shown in text
    assert "Tira" not in text


def test_streams_the_records(records: list[Record], tmp_path: Path) -> None:
    pulled = done = 0

    def source() -> Iterator[Record]:
        nonlocal pulled
        for record in records:
            pulled += 1
            yield record

    def progress(increment: int) -> None:
        nonlocal done
        done += increment
        assert pulled == done  # each card is drawn before the next record is read

    assert print_cards(source(), tmp_path / "streamed.pdf", progress) == CARDS


# --- QR payloads and symbols -------------------------------------------------------------------


def test_qr_payload_round_trips(records: list[Record]) -> None:
    for record in records:
        payload = qr_payload(record)
        assert payload == f"BINGO1|A17|{record['number']}|{record['code']}"
        assert parse_qr_payload(payload) == ("A17", record["number"], record["code"])


@pytest.mark.parametrize(
    "record",
    [
        {"series": "A17", "number": 1},
        {"series": "A17", "number": "1", "code": "3f9a0c12be"},
        {"series": "A17", "number": 0, "code": "3f9a0c12be"},
        {"series": "A17", "number": 10**9, "code": "3f9a0c12be"},
        {"series": "A17|x", "number": 1, "code": "3f9a0c12be"},
        {"series": "A17", "number": 1, "code": "3f9a0c12be|"},
        ["A17", 1, "3f9a0c12be"],
    ],
)
def test_qr_payload_rejects_bad_fields(record: Any) -> None:
    with pytest.raises(ValueError, match="cannot make a QR payload"):
        qr_payload(record)


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "BINGO1|A17|1",
        "BINGO1|A17|1|3f9a0c12be|x",
        "BINGO2|A17|1|3f9a0c12be",
        "bingo1|A17|1|3f9a0c12be",
        "BINGO1|a17|1|3f9a0c12be",
        "BINGO1|A|1|3f9a0c12be",
        "BINGO1|A17|0|3f9a0c12be",
        "BINGO1|A17|01|3f9a0c12be",
        "BINGO1|A17|-1|3f9a0c12be",
        "BINGO1|A17|1|3F9A0C12BE",
        "BINGO1|A17|1|3f9a0c12b",
        "BINGO1|A17|1|3f9a0c12bg",
        " BINGO1|A17|1|3f9a0c12be",
        "https://example.com/BINGO1|A17|1|3f9a0c12be",
        None,
        b"BINGO1|A17|1|3f9a0c12be",
    ],
)
def test_parse_qr_payload_rejects_junk(junk: Any) -> None:
    with pytest.raises(ValueError):
        parse_qr_payload(junk)


def test_qr_matrix_is_segnos_symbol() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "|"
    payloads = [f"BINGO1|A17|{k}|{rng.randbytes(5).hex()}" for k in range(1, 60)]
    for length in range(15, 107, 3):  # versions 1-6, levels M, Q and H, 1-4 blocks
        payloads.append("".join(rng.choice(alphabet) for _ in range(length)))
    for payload in payloads:
        expected = np.array(segno.make(payload, error="m", micro=False).matrix, dtype=np.uint8)
        assert np.array_equal(qr_matrix(payload), expected), payload


def test_qr_matrix_rejects_payloads_too_long_for_a_card() -> None:
    with pytest.raises(ValueError, match="too long"):
        qr_matrix("x" * 107)


# --- bad input ---------------------------------------------------------------------------------


def _without(field: str) -> Any:
    return lambda record: record.pop(field)


def _set(field: str, value: Any) -> Any:
    return lambda record: record.__setitem__(field, value)


BAD_RECORDS = {
    "missing code": (_without("code"), "missing field(s) code"),
    "missing grid": (_without("grid"), "missing field(s) grid"),
    "two rows": (lambda r: r["grid"].pop(), "grid must be 3 rows"),
    "eight cells": (lambda r: r["grid"][1].pop(), "R2"),
    "text cell": (lambda r: r["grid"][1].__setitem__(0, "7"), "R2"),
    "sixteen numbers": (lambda r: r["grid"][0].__setitem__(r["grid"][0].index(0), 45), "R1"),
    "bad face value": (_set("face_value", "1.5"), "face_value '1.5'"),
    "zero face value": (_set("face_value", "0.00"), "face_value '0.00'"),
    "float face value": (_set("face_value", 1.5), "face_value 1.5"),
    "number zero": (_set("number", 0), "number 0"),
    "number past size": (_set("number", 15), "number 15"),
    "bad code": (_set("code", "3F9A0C12BE"), "code '3F9A0C12BE'"),
    "bad series": (_set("series", "a17"), "series 'a17'"),
    "bad strip": (_set("strip", 0), "strip 0"),
}


@pytest.mark.parametrize("case", BAD_RECORDS, ids=list(BAD_RECORDS))
def test_a_bad_record_names_itself_and_leaves_no_file(
    case: str, records: list[Record], tmp_path: Path
) -> None:
    spoil, problem = BAD_RECORDS[case]
    batch = copy.deepcopy(records)
    spoil(batch[9])
    out = tmp_path / "cards.pdf"
    with pytest.raises(ValueError) as caught:
        print_cards(batch, out)
    message = str(caught.value)
    assert isinstance(caught.value, CardRecordError)
    assert caught.value.index == 10
    assert message.startswith("card record 10 (")
    assert problem in message
    if case not in ("bad series", "number zero", "number past size"):
        assert "series 'A17', number 10" in message
    assert list(tmp_path.iterdir()) == []  # no PDF, no temporary file


def test_a_bad_record_keeps_the_previous_file(records: list[Record], tmp_path: Path) -> None:
    out = tmp_path / "cards.pdf"
    print_cards(records[:3], out)
    before = out.read_bytes()
    batch = [*copy.deepcopy(records[:8]), {"series": "A17", "number": 9}]
    with pytest.raises(ValueError, match=r"card record 9 \(series 'A17', number 9\): missing"):
        print_cards(batch, out)
    assert out.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["cards.pdf"]


@pytest.mark.parametrize("record", [["A17", 1], "A17", None])
def test_a_record_that_is_not_an_object(record: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="card record 1: a card record is a JSON object"):
        print_cards([record], tmp_path / "cards.pdf")
    assert list(tmp_path.iterdir()) == []


def test_no_records_no_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no card records"):
        print_cards(iter([]), tmp_path / "cards.pdf")
    assert list(tmp_path.iterdir()) == []
