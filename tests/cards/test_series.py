"""Series: distinct valid cards, determinism from the seed, commitment, codes and errors."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest

from bingo_hall.domain.cards import Grid, card_violations
from card_generator.randomness import _repeated_or_banned, bit_generator, distinct_ranks
from card_generator.series import (
    ALGORITHM_VERSION,
    SERIES_ID_PATTERN,
    GeneratedSeries,
    card_records,
    generate_series,
    validate_face_value,
    validate_series_id,
)

PRICE = Decimal("1.50")


@pytest.fixture(scope="module")
def big_series() -> GeneratedSeries:
    return generate_series("B2", 5_000, PRICE, b"five thousand")


def with_cell(grid: Grid, row: int, column: int, value: int) -> Grid:
    rows = [list(r) for r in grid]
    rows[row][column] = value
    return tuple(tuple(r) for r in rows)


# --- determinism and commitment ---------------------------------------------------------------


def test_same_seed_gives_the_same_series_bit_for_bit() -> None:
    one = generate_series("A17", 300, PRICE, b"seed")
    two = generate_series("A17", 300, PRICE, b"seed")
    assert (one.ranks == two.ranks).all() and one.cards == two.cards
    assert one.commitment == two.commitment
    assert [one.security_code(k) for k in (1, 150, 300)] == [
        two.security_code(k) for k in (1, 150, 300)
    ]


def test_different_seed_gives_a_different_commitment() -> None:
    one = generate_series("A17", 100, PRICE, b"seed")
    two = generate_series("A17", 100, PRICE, b"seed 2")
    assert one.cards != two.cards
    assert one.commitment != two.commitment


def test_changing_one_card_changes_the_commitment() -> None:
    series = generate_series("A17", 50, PRICE, b"seed")
    ranks = series.ranks.copy()
    ranks[24] += np.uint64(1)  # the next card in rank order: another valid card
    changed = replace(series, ranks=ranks)
    assert changed.cards[24] != series.cards[24]
    assert changed.cards[:24] == series.cards[:24]
    assert changed.commitment != series.commitment


def test_the_header_is_committed() -> None:
    series = generate_series("A17", 20, PRICE, b"seed")
    assert replace(series, series_id="A18").commitment != series.commitment
    assert replace(series, face_value=Decimal("2.00")).commitment != series.commitment
    assert replace(series, algorithm="3").commitment != series.commitment


def test_commitment_and_codes_follow_the_documented_encoding() -> None:
    series = generate_series("AB123", 40, Decimal("3"), b"encoding")
    digest = hashlib.sha256(b"bingo-series/v1\nAB123\n3.00\n40\n" + ALGORITHM_VERSION.encode())
    digest.update(b"\n")
    for number, grid in enumerate(series.cards, start=1):
        digest.update(number.to_bytes(4, "big") + bytes(c for row in grid for c in row))
    assert series.commitment == digest.hexdigest()
    message = b"AB123\x00" + (7).to_bytes(4, "big") + bytes(c for r in series.cards[6] for c in r)
    code = hmac.new(b"encoding", message, hashlib.sha256).hexdigest()[:10]
    assert series.security_code(7) == code


def test_known_answer_for_algorithm_version_2() -> None:
    """If this changes, generated series changed: bump ALGORITHM_VERSION."""
    series = generate_series("A17", 3, Decimal("1.5"), b"known series")
    assert ALGORITHM_VERSION == "2"
    assert series.ranks.tolist() == [972451900305797635, 554399883690373435, 1240825219504620858]
    assert series.cards[0] == (
        (0, 12, 0, 30, 40, 55, 60, 0, 0),
        (7, 17, 0, 33, 0, 57, 0, 0, 89),
        (0, 0, 25, 38, 49, 0, 61, 76, 0),
    )
    assert series.commitment == "65da056c95d55d0a99eda923137d35378bc3f3378696ae1bf292f44af2c14444"
    assert [series.security_code(k) for k in (1, 2, 3)] == [
        "b06dd55059",
        "d6b43f40cb",
        "cc41febb21",
    ]


def test_without_a_seed_a_fresh_one_is_drawn() -> None:
    one = generate_series("C1", 5, PRICE)
    two = generate_series("C1", 5, PRICE)
    assert len(one.seed) == 16 and one.seed != two.seed
    assert (generate_series("C1", 5, PRICE, one.seed).ranks == one.ranks).all()


# --- cards --------------------------------------------------------------------------------------


def test_a_series_of_5000_holds_distinct_valid_cards(big_series: GeneratedSeries) -> None:
    assert len(big_series.cards) == big_series.size == 5_000
    assert len(set(big_series.cards)) == 5_000
    assert all(card_violations(card) == [] for card in big_series.cards)


def test_a_repeated_or_excluded_card_is_drawn_again() -> None:
    ranks = np.array([5, 7, 5, 9, 7, 5, 3], dtype=np.uint64)
    banned = np.array([9], dtype=np.uint64)
    assert _repeated_or_banned(ranks, banned).tolist() == [0, 0, 1, 1, 1, 1, 0]
    plain = distinct_ranks(bit_generator(b"x", b"test"), 50)
    excluded = distinct_ranks(bit_generator(b"x", b"test"), 50, exclude=plain[:10])
    assert not np.isin(excluded, plain[:10]).any()
    assert excluded[10:40].tolist() == plain[10:40].tolist()  # the same stream, the banned redrawn
    assert len(set(excluded.tolist())) == 50


def test_a_series_can_avoid_the_cards_of_other_series() -> None:
    first = generate_series("A1", 200, PRICE, b"one")
    second = generate_series("B1", 200, PRICE, b"one", exclude=first.ranks[:100])
    assert not set(second.cards) & set(first.cards[:100])


def test_card_records_are_the_jsonl_objects(big_series: GeneratedSeries) -> None:
    records = list(card_records(big_series))
    assert len(records) == 5_000
    first = records[0]
    assert set(first) == {"series", "number", "face_value", "series_size", "grid", "code"}
    assert first["series"] == "B2" and first["number"] == 1
    assert first["face_value"] == "1.50" and first["series_size"] == 5_000
    assert first["grid"] == [list(row) for row in big_series.cards[0]]
    assert [r["number"] for r in records] == list(range(1, 5_001))
    assert all(len(r["code"]) == 10 and int(r["code"], 16) >= 0 for r in records)
    assert len({r["code"] for r in records}) == 5_000
    assert json.loads(json.dumps(first)) == first


def test_security_code_of_a_card_outside_the_series_is_refused() -> None:
    series = generate_series("A17", 3, PRICE, b"seed")
    for number in (0, 4, -1):
        with pytest.raises(ValueError, match="has cards 1-3"):
            series.security_code(number)


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, -5, 10_000_001, True, 2.0, "10"])
def test_bad_sizes_are_refused(size: object) -> None:
    with pytest.raises(
        ValueError, match=r"series size .* must be a whole number from 1 to 10,000,000"
    ):
        generate_series("A17", size, PRICE, b"seed")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1.5, "must be a Decimal"),
        ("1.50", "must be a Decimal"),
        (Decimal("0"), "positive"),
        (Decimal("-1.00"), "positive"),
        (Decimal("NaN"), "positive"),
        (Decimal("Infinity"), "positive"),
        (Decimal("1.505"), "at most 2 decimals"),
        (Decimal("0.001"), "at most 2 decimals"),
    ],
)
def test_bad_face_values_are_refused(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_series("A17", 3, value, b"seed")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "canonical"),
    [("1.5", "1.50"), ("1.500", "1.50"), ("3", "3.00"), ("2E+1", "20.00"), ("0.01", "0.01")],
)
def test_face_values_are_kept_to_the_cent(value: str, canonical: str) -> None:
    assert str(validate_face_value(Decimal(value))) == canonical


@pytest.mark.parametrize("text", ["A17", "Z1", "AB123456"])
def test_good_series_ids_pass(text: str) -> None:
    assert validate_series_id(text) == text
    assert SERIES_ID_PATTERN.fullmatch(text)


@pytest.mark.parametrize(
    "text", ["", "a17", "A", "17", "ABC1", "A1234567", "A17\n", " A17", "Á1", "A\u0661", "A-17", 17]
)
def test_bad_series_ids_are_refused(text: object) -> None:
    with pytest.raises(ValueError, match="one or two capital letters"):
        validate_series_id(text)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not valid"):
        generate_series(text, 3, PRICE, b"seed")  # type: ignore[arg-type]


def test_an_empty_or_text_seed_is_refused() -> None:
    for seed in (b"", "seed"):
        with pytest.raises(ValueError, match="non-empty bytes"):
            generate_series("A17", 3, PRICE, seed)  # type: ignore[arg-type]


def test_a_series_must_hold_its_size() -> None:
    series = generate_series("A17", 3, PRICE, b"seed")
    with pytest.raises(ValueError, match="holds 2 cards"):
        replace(series, ranks=series.ranks[:2].copy())
