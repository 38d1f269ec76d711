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


def manifest_of(series) -> str:
    """The manifest `bingo-cards generate` writes beside the card file."""
    return json.dumps(
        {"algorithm": series.algorithm, "seed": series.seed.hex(), "commitment": series.commitment}
    )


def test_a_tampered_series_is_refused_against_its_manifest(tmp_path):
    """An edited card fails its security code (the manifest's seed); a series cut short with
    its size rewritten is no longer the one its published commitment fixes."""
    series = generate_series("K6", 60, Decimal("1.00"), seed=b"tamper")
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    path = tmp_path / "k6.jsonl"
    write_series(series, path)
    (tmp_path / "k6.jsonl.seed.json").write_text(manifest_of(series))
    lines = path.read_text().splitlines()
    edited = json.loads(lines[4])
    edited["grid"] = json.loads(lines[5])["grid"]  # card 6's numbers under card 5's number
    path.write_text("\n".join([*lines[:4], json.dumps(edited), *lines[5:]]) + "\n")
    done = hall("import-series", str(path), "--db", url)
    assert done.returncode == 2, done.stdout
    assert "K6-5: security-code: does not match the series seed" in done.stdout
    short = [json.loads(line) | {"series_size": 30} for line in lines[:30]]
    path.write_text("".join(json.dumps(record) + "\n" for record in short))
    done = hall("import-series", str(path), "--db", url)
    assert done.returncode == 2
    assert f"is not the series published under commitment {series.commitment}" in done.stderr
    assert not (tmp_path / "hall.sqlite").exists()


def test_a_series_whose_seed_is_kept_apart_is_checked_against_its_published_commitment(
    tmp_path,
):
    """The manifest holds the seed (keep it private): without it beside the file, the hall
    gives the commitment that was published, and the series is registered under it."""
    series = generate_series("K7", 60, Decimal("1.00"), seed=b"apart")
    path = tmp_path / "k7.jsonl"
    write_series(series, path)
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    wrong = hall("import-series", str(path), "--db", url, "--commitment", "ab" * 32)
    assert wrong.returncode == 2 and "is not the series published" in wrong.stderr
    done = hall("import-series", str(path), "--db", url, "--commitment", series.commitment)
    assert done.returncode == 0, done.stderr
    assert f"commitment {series.commitment}" in done.stdout
    assert "warning" not in done.stderr


def test_an_empty_commitment_or_a_manifest_commitment_not_text_is_refused(tmp_path):
    """A commitment asked for and left empty (`--commitment "$UNSET"`) must not quietly skip
    the check it asked for; a manifest whose commitment is not text is named."""
    series = generate_series("K8", 30, Decimal("1.00"), seed=b"commit")
    path = tmp_path / "k8.jsonl"
    write_series(series, path)
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    empty = hall("import-series", str(path), "--commitment", "", "--db", url)
    assert empty.returncode == 2 and "Traceback" not in empty.stderr
    assert empty.stderr.strip().splitlines()[-1] == (
        "bingo-hall: error: --commitment is empty: give the commitment published for the series"
    )
    (tmp_path / "k8.jsonl.seed.json").write_text(json.dumps({"commitment": 12345}))
    numeric = hall("import-series", str(path), "--db", url)
    assert numeric.returncode == 2 and "Traceback" not in numeric.stderr
    assert "its manifest's commitment is not text: 12345" in numeric.stderr
    # a manifest recording another commitment than the one given: which was published?
    (tmp_path / "k8.jsonl.seed.json").write_text(json.dumps({"commitment": "0" * 64}))
    both = hall("import-series", str(path), "--db", url, "--commitment", series.commitment)
    assert both.returncode == 2 and "Traceback" not in both.stderr
    assert f"is not the commitment {'0' * 64} of {path}'s manifest" in both.stderr
    assert not (tmp_path / "hall.sqlite").exists()


def test_who_imports_is_one_line_of_text_or_nothing_is_imported(tmp_path):
    """The actor goes into the hash-chained log: an empty one, or one with a newline or a
    terminal escape, is refused before anything is read or stored."""
    series = generate_series("K6", 30, Decimal("1.00"), seed=b"actor")
    path = tmp_path / "k6.jsonl"
    write_series(series, path)
    url = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    for actor in ("", " jefe", "jefe\nde sala", "jefe\x1b[31m"):
        done = hall("import-series", str(path), "--db", url, "--actor", actor)
        assert done.returncode == 2 and "argument --actor" in done.stderr, (actor, done.stderr)
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "hall.sqlite").exists()
