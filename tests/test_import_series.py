"""`bingo-hall import-series`: a generated card file becomes a registered series of the hall."""

from __future__ import annotations

import json
from decimal import Decimal

from bingo_hall.store.cards import CardStore
from card_generator.files import write_series
from card_generator.series import generate_series
from support.cli import hall
from support.demo import open_log


def test_a_generated_series_is_imported_with_its_commitment(tmp_path):
    series = generate_series("K4", 120, Decimal("2.50"), seed=b"import")
    path = tmp_path / "k4.jsonl"
    write_series(series, path)
    (tmp_path / "k4.jsonl.seed.json").write_text(json.dumps({"algorithm": series.algorithm}))
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    done = hall("import-series", str(path), "--db", url)
    assert done.returncode == 0, done.stderr
    assert series.commitment in done.stdout
    log = open_log(url)
    try:
        registered = [e for e in log.iter_all("sala-1") if e.type == "series_registered"]
        assert [e.payload for e in registered] == [
            {"series_id": "K4", "face_value": "2.50", "size": 120, "commitment": series.commitment}
        ]
        store = CardStore(log.engine)
        assert store.grid("K4", 77) == series.card(77)
    finally:
        log.engine.dispose()
    again = hall("import-series", str(path), "--db", url)
    assert again.returncode == 2 and "already registered" in again.stderr


def test_a_bad_file_is_refused_and_nothing_is_stored(tmp_path):
    series = generate_series("K5", 30, Decimal("1.00"), seed=b"bad")
    path = tmp_path / "k5.jsonl"
    write_series(series, path)
    lines = path.read_text().splitlines()
    lines[3] = lines[2].replace('"number": 3,', '"number": 4,')
    path.write_text("\n".join(lines) + "\n")
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    done = hall("import-series", str(path), "--db", url)
    assert done.returncode == 2
    assert "K5-4: unique: same card as no. 3" in done.stdout
    assert "nothing imported" in done.stderr
    assert not (tmp_path / "hall.sqlite").exists()
