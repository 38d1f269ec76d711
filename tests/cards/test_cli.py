"""`bingo-cards` end to end: real files, real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from card_generator.files import read_cards

REPO = Path(__file__).resolve().parents[2]
COFFEE = "c0ffee" * 6  # a seed given by hand: at least 16 bytes


def cards(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "card_generator.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def generate(tmp_path: Path, name: str = "a17.jsonl", *extra: str, count: str = "300"):
    return cards(
        "generate",
        "--series",
        "A17",
        "--count",
        count,
        "--face-value",
        "1.50",
        "--out",
        str(tmp_path / name),
        *extra,
        cwd=tmp_path,
    )


def test_generate_writes_the_jsonl_contract_and_records_the_seed(tmp_path):
    done = generate(tmp_path, "a17.jsonl", "--seed", COFFEE)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "a17.jsonl").read_text().splitlines()
    assert len(lines) == 300
    first = json.loads(lines[0])
    assert set(first) == {"series", "number", "face_value", "series_size", "grid", "code"}
    assert (first["series"], first["number"], first["face_value"], first["series_size"]) == (
        "A17",
        1,
        "1.50",
        300,
    )
    assert [json.loads(line)["number"] for line in lines] == list(range(1, 301))
    manifest = json.loads((tmp_path / "a17.jsonl.seed.json").read_text())
    assert manifest["seed"] == COFFEE and manifest["series_size"] == 300
    assert manifest["commitment"] in done.stdout
    again = generate(tmp_path, "again.jsonl", "--seed", COFFEE)
    assert again.returncode == 0
    assert (tmp_path / "again.jsonl").read_bytes() == (tmp_path / "a17.jsonl").read_bytes()


def test_without_a_seed_each_series_is_new_and_its_seed_regenerates_it(tmp_path):
    generate(tmp_path, "one.jsonl")
    generate(tmp_path, "two.jsonl")
    one, two = (tmp_path / "one.jsonl").read_bytes(), (tmp_path / "two.jsonl").read_bytes()
    assert one != two
    seed = json.loads((tmp_path / "one.jsonl.seed.json").read_text())["seed"]
    assert len(bytes.fromhex(seed)) == 16
    generate(tmp_path, "three.jsonl", "--seed", seed)
    assert (tmp_path / "three.jsonl").read_bytes() == one


def test_csv_holds_the_same_cards(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "01" * 16)
    generate(tmp_path, "a.csv", "--seed", "01" * 16)
    jsonl = [r for _, r in read_cards(tmp_path / "a.jsonl")]
    csv = [r for _, r in read_cards(tmp_path / "a.csv")]
    assert csv == jsonl
    assert cards("verify", str(tmp_path / "a.csv"), cwd=tmp_path).returncode == 0


def test_strips_carry_their_strip_number_and_verify(tmp_path):
    done = generate(tmp_path, "s.jsonl", "--strips", "--seed", "02" * 16, count="60")
    assert done.returncode == 0, done.stderr
    records = [r for _, r in read_cards(tmp_path / "s.jsonl")]
    assert [r["strip"] for r in records] == [k for k in range(1, 11) for _ in range(6)]
    for k in range(10):
        numbers = sorted(
            n for r in records[6 * k : 6 * k + 6] for row in r["grid"] for n in row if n
        )
        assert numbers == list(range(1, 91))
    verified = cards("verify", str(tmp_path / "s.jsonl"), cwd=tmp_path)
    assert verified.returncode == 0 and "60 cards checked, all good" in verified.stdout


def test_verify_names_every_broken_rule_and_exits_1(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "03" * 16)
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    broken = json.loads(lines[4])
    broken["grid"][0] = [0] * 9  # row 1 emptied
    lines[4] = json.dumps(broken)
    lines[9] = lines[3].replace('"number": 4,', '"number": 10,')  # card 10 repeats card 4
    lines[20] = "{not json"
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    done = cards("verify", str(tmp_path / "bad.jsonl"), cwd=tmp_path)
    assert done.returncode == 1
    out = done.stdout
    assert "card A17-5: R3 five-per-row" in out and "card A17-5: R1 fifteen-distinct-numbers" in out
    assert "card A17-10: unique: same card as no. 4" in out
    assert "line 21" in out and "format" in out
    assert out.strip().endswith("problems")


def test_verify_with_the_seed_checks_security_codes(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "04" * 16)
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    forged = json.loads(lines[7])
    forged["code"] = "0000000000"
    lines[7] = json.dumps(forged)
    (tmp_path / "f.jsonl").write_text("\n".join(lines) + "\n")
    assert cards("verify", str(tmp_path / "f.jsonl"), cwd=tmp_path).returncode == 0
    done = cards("verify", str(tmp_path / "f.jsonl"), "--seed", "04" * 16, cwd=tmp_path)
    assert done.returncode == 1 and "A17-8: security-code" in done.stdout
    assert (
        cards("verify", str(tmp_path / "a.jsonl"), "--seed", "04" * 16, cwd=tmp_path).returncode
        == 0
    )


@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("number", 2**80, "numbering"),
        ("number", -1, "numbering"),
        ("number", True, "numbering"),
        ("series", 17, "series-id"),
        ("series", "Á17", "series-id"),
    ],
)
def test_verify_names_a_malformed_record_with_or_without_the_seed(tmp_path, field, value, rule):
    generate(tmp_path, "a.jsonl", "--seed", "05" * 16)
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    lines[0] = json.dumps(json.loads(lines[0]) | {field: value})
    (tmp_path / "m.jsonl").write_text("\n".join(lines) + "\n")
    for seed in ((), ("--seed", "05" * 16)):
        done = cards("verify", str(tmp_path / "m.jsonl"), *seed, cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f": {rule}: " in done.stdout


def test_distinct_from_keeps_two_series_of_a_game_apart(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "05" * 16, count="500")
    done = cards(
        "generate",
        "--series",
        "B3",
        "--count",
        "500",
        "--face-value",
        "3",
        "--seed",
        "05" * 16,
        "--distinct-from",
        str(tmp_path / "a.jsonl"),
        "--out",
        str(tmp_path / "b.jsonl"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    grids = lambda name: {json.dumps(r["grid"]) for _, r in read_cards(tmp_path / name)}  # noqa: E731
    assert not grids("a.jsonl") & grids("b.jsonl")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--series", "a17", "--count", "10", "--face-value", "1.50"], "series id 'a17'"),
        (["--series", "A17", "--count", "0", "--face-value", "1.50"], "series size 0"),
        (["--series", "A17", "--count", "20000000", "--face-value", "1"], "10,000,000"),
        (["--series", "A17", "--count", "10", "--face-value", "1.505"], "2 decimals"),
        (["--series", "A17", "--count", "10", "--face-value", "abc"], "face value 'abc'"),
        (["--series", "A17", "--count", "10", "--face-value", "-1"], "positive"),
        (["--series", "A17", "--count", "10", "--face-value", "1", "--strips"], "multiple of 6"),
        (["--series", "A17", "--count", "10", "--face-value", "1", "--seed", "xyz"], "hexadecimal"),
        (["--series", "A17", "--count", "10", "--face-value", "1", "--seed", "00"], "1 bytes"),
        (
            ["--series", "A17", "--count", "10", "--face-value", "1", "--seed", "01" * 15],
            "at least 16 (32 hexadecimal digits)",
        ),
        (["--series", "A17", "--count", "10", "--face-value", "1e2"], "face value '1e2'"),
        (["--series", "A17", "--count", "10", "--face-value", " 1.50"], "face value ' 1.50'"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):  # fmt: skip
    done = cards("generate", *args, "--out", str(tmp_path / "x.jsonl"), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bingo-cards: error:") and message in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_unreadable_files_are_one_line_errors(tmp_path):
    for args in (["verify", "missing.jsonl"], ["print", "missing.jsonl", "--out", "x.pdf"]):
        done = cards(*args, cwd=tmp_path)
        assert done.returncode == 2 and "cannot read missing.jsonl" in done.stderr
        assert "Traceback" not in done.stderr
    (tmp_path / "latin1.jsonl").write_bytes(b'{"series": "\xf1"}\n')
    done = cards("verify", "latin1.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "not UTF-8" in done.stderr


def test_a_bad_print_destination_or_avoided_file_is_a_one_line_error(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "06" * 16)
    (tmp_path / "folder").mkdir()
    for kept in ("kept.pdf", "kept-0002.pdf"):
        (tmp_path / kept).write_bytes(b"%PDF-1.4 an earlier print\n")
    seed = (tmp_path / "a.jsonl.seed.json").read_bytes()
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    broken = json.loads(lines[0])
    broken["grid"][0] = [0] * 9
    (tmp_path / "broken.jsonl").write_text(json.dumps(broken) + "\n")
    for args, message in (
        (["print", "a.jsonl", "--out", "nowhere/a.pdf"], "folder nowhere does not exist"),
        (["print", "a.jsonl", "--out", "folder"], "folder is a folder"),
        (["print", "a.jsonl", "--out", "a.jsonl"], "is the card file itself"),
        (["print", "a.jsonl", "--out", "a.jsonl.seed.json"], "does not end in .pdf"),
        (["print", "a.jsonl", "--out", "kept.pdf"], "kept.pdf exists"),
        (["print", "a.jsonl", "--out", "kept.pdf", "--per-file", "2"], "kept-0002.pdf exists"),
        (
            ["generate", "--series", "B1", "--count", "6", "--face-value", "1",
             "--distinct-from", "broken.jsonl", "--out", "b.jsonl"],
            "broken.jsonl, line 1: not a valid card",
        ),
    ):  # fmt: skip
        done = cards(*args, cwd=tmp_path)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert json.loads((tmp_path / "a.jsonl").read_text().splitlines()[0])["number"] == 1
    assert not (tmp_path / "b.jsonl").exists()
    assert (tmp_path / "a.jsonl.seed.json").read_bytes() == seed
    assert (tmp_path / "kept.pdf").read_bytes() == b"%PDF-1.4 an earlier print\n"
    assert not (tmp_path / "kept-0001.pdf").exists()  # nothing written when one part exists


@pytest.mark.parametrize("command", [[], ["generate"], ["verify"], ["print"]])
def test_every_command_has_help(tmp_path, command):
    done = cards(*command, "--help", cwd=tmp_path)
    assert done.returncode == 0 and "usage: bingo-cards" in done.stdout


def pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(next(line for line in info.stdout.splitlines() if line.startswith("Pages:"))[6:])


def test_print_makes_the_pdf_and_splits_a_large_series(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "06" * 16, count="20")
    done = cards("print", "a.jsonl", "--out", "a.pdf", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert pages(tmp_path / "a.pdf") == 4  # six cards a page
    split = cards("print", "a.jsonl", "--out", "p.pdf", "--per-file", "8", cwd=tmp_path)
    assert split.returncode == 0 and "3 files" in split.stdout
    assert [pages(tmp_path / f"p-{k:04d}.pdf") for k in (1, 2, 3)] == [2, 2, 1]


def test_print_refuses_a_broken_file_without_leaving_a_pdf(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"series": "A17"}\n')
    done = cards("print", "bad.jsonl", "--out", "bad.pdf", cwd=tmp_path)
    assert done.returncode == 2 and "missing field" in done.stderr
    assert not (tmp_path / "bad.pdf").exists()


def test_a_series_and_its_seed_are_never_overwritten_nor_parted(tmp_path):
    """The seed checks every printed card's security code: a second series written over the
    first would lose it, and cards written without their seed could never be checked."""
    assert generate(tmp_path, count="12").returncode == 0
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    again = generate(tmp_path, count="12")
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert again.stderr.strip().splitlines() == [
        f"bingo-cards: error: {tmp_path / 'a17.jsonl'} exists: a generated series and its seed "
        "are never overwritten (its printed cards would lose the seed that checks them); "
        "choose another name"
    ]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    (tmp_path / "b.jsonl.seed.json").mkdir()  # its seed could not be written
    blocked = generate(tmp_path, "b.jsonl", count="12")
    assert blocked.returncode == 2 and "b.jsonl.seed.json exists" in blocked.stderr
    assert not (tmp_path / "b.jsonl").exists()


def test_malformed_lines_and_absurd_amounts_are_named_not_a_traceback(tmp_path):
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    (tmp_path / "long.jsonl").write_text('{"number": ' + "9" * 5000 + "}\n")
    for name, why in (("deep", "nested too deep"), ("long", "a number too long")):
        done = cards("verify", f"{name}.jsonl", cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"line 1, card -: format: not valid JSON ({why})" in done.stdout
    huge = cards(
        "generate",
        "--series",
        "Z1",
        "--count",
        "3",
        "--face-value",
        "1" + "0" * 400,
        "--out",
        "z.jsonl",
        cwd=tmp_path,
    )
    assert huge.returncode == 2
    assert (
        huge.stderr.strip()
        == f"bingo-cards: error: face value 1{'0' * 400} is over the maximum, 10000.00"
    )
    assert not (tmp_path / "z.jsonl").exists()


def test_printing_in_parts_writes_all_parts_or_none_and_counts_records_in_the_file(tmp_path):
    assert generate(tmp_path, count="12").returncode == 0
    lines = (tmp_path / "a17.jsonl").read_text().splitlines()
    record = json.loads(lines[7])
    record["grid"] = [[0] * 9] * 3
    lines[7] = json.dumps(record)
    (tmp_path / "bad8.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "parts").mkdir()
    done = cards("print", "bad8.jsonl", "--out", "parts/b.pdf", "--per-file", "5", cwd=tmp_path)
    assert done.returncode == 2 and "card record 8 (series 'A17', number 8)" in done.stderr
    assert list((tmp_path / "parts").iterdir()) == []
    unwritable = cards("print", "a17.jsonl", "--out", "/proc/cards.pdf", cwd=tmp_path)
    assert unwritable.returncode == 2 and "Traceback" not in unwritable.stderr
    assert unwritable.stderr.startswith("bingo-cards: error: cannot write /proc/cards.pdf")


def test_card_files_with_what_no_generator_writes_are_refused_in_one_line(tmp_path):
    """A series size of `true`, a face value with a newline, a card number in other digits
    than 0-9, a CSV field past the csv module's limit: each is named, never a traceback,
    never "all good"."""
    generate(tmp_path, "a.jsonl", "--seed", "06" * 16, count="6")
    record = json.loads((tmp_path / "a.jsonl").read_text().splitlines()[0])
    generate(tmp_path, "c.csv", "--seed", "06" * 16, count="6")
    header, first, *rest = (tmp_path / "c.csv").read_text().splitlines()
    columns = header.split(",")
    arabic = first.split(",")
    arabic[columns.index("number")] = "\u0661"  # ١, an Arabic-Indic one
    huge = first.split(",")
    huge[columns.index("code")] = "x" * 200_000
    files = {
        "size.jsonl": json.dumps({**record, "series_size": True}) + "\n",
        "face.jsonl": json.dumps({**record, "face_value": "1.50\n"}) + "\n",
        "arabic.csv": "\n".join([header, ",".join(arabic), *rest]) + "\n",
        "huge.csv": "\n".join([header, ",".join(huge), *rest]) + "\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        done = cards("verify", name, cwd=tmp_path)
        assert done.returncode != 0, (name, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "all good" not in done.stdout, name


def test_numbers_on_the_command_line_are_in_digits_0_to_9(tmp_path):
    """argparse's int takes «١٠» (Arabic-Indic ten), «+7» and «1_0»: slips, not numbers."""
    for count in ("\u0661\u0660", "+7", "1_0", " 7"):
        done = cards(
            "generate", "--series", "A1", "--count", count, "--face-value", "1",
            "--out", "a.jsonl", cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 2 and "is not a whole number in digits 0-9" in done.stderr
        assert not (tmp_path / "a.jsonl").exists()


def test_print_refuses_what_verify_refuses_and_prints_nothing(tmp_path):
    """The printing batch job prints only a card file the hall could import: a number used
    twice, a card repeated, a face value or series that differs from the first card's, or a
    number out of its column (C1) is refused, and no PDF is written."""
    generate(tmp_path, "a.jsonl", "--seed", "07" * 16, count="12")
    lines = (tmp_path / "a.jsonl").read_text().splitlines()

    def edited(name: str, index: int, change) -> None:
        copy = list(lines)
        record = json.loads(copy[index])
        change(record)
        copy[index] = json.dumps(record)
        (tmp_path / name).write_text("\n".join(copy) + "\n")

    edited("twice.jsonl", 5, lambda r: r.update(number=4))
    edited("repeated.jsonl", 1, lambda r: r.update(grid=json.loads(lines[0])["grid"]))
    edited("price.jsonl", 3, lambda r: r.update(face_value="2.00"))
    first = json.loads(lines[0])
    column = next(c for c in range(8) if first["grid"][0][c])  # a number not in the last column

    def out_of_column(record: dict) -> None:
        numbers = {n for row in record["grid"] for n in row}
        record["grid"][0][column] = 81 if 81 not in numbers else 82

    edited("column.jsonl", 0, out_of_column)
    for name, rule in (
        ("twice", "numbering"),
        ("repeated", "unique: same card as no. 1"),
        ("price", "series"),
        ("column", "C"),
    ):
        verified = cards("verify", f"{name}.jsonl", cwd=tmp_path)
        assert verified.returncode == 1, name
        done = cards("print", f"{name}.jsonl", "--out", f"{name}.pdf", cwd=tmp_path)
        errors = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(errors) == 1, (name, done.stderr)
        assert "does not verify" in errors[0] and rule in errors[0], (name, errors[0])
        assert "nothing printed" in errors[0]
        assert not (tmp_path / f"{name}.pdf").exists()


def test_a_strip_series_is_printed_whole_strips_to_a_file(tmp_path):
    generate(tmp_path, "s.jsonl", "--strips", "--seed", "08" * 16, count="12")
    parted = cards("print", "s.jsonl", "--out", "s.pdf", "--per-file", "4", cwd=tmp_path)
    assert parted.returncode == 2 and "give a multiple of 6" in parted.stderr, parted.stderr
    assert list(tmp_path.glob("*.pdf")) == []
    whole = cards("print", "s.jsonl", "--out", "s.pdf", "--per-file", "6", cwd=tmp_path)
    assert whole.returncode == 0 and "2 files" in whole.stdout, whole.stderr
    default = cards("print", "s.jsonl", "--out", "one.pdf", cwd=tmp_path)  # whole strips too
    assert default.returncode == 0 and "12 cards printed to one.pdf" in default.stdout


def test_verify_checks_the_code_format_and_the_order_without_the_seed(tmp_path):
    generate(tmp_path, "a.jsonl", "--seed", "09" * 16, count="6")
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    (tmp_path / "reversed.jsonl").write_text("\n".join(reversed(lines)) + "\n")
    record = json.loads(lines[2]) | {"code": "zz"}
    (tmp_path / "code.jsonl").write_text(
        "\n".join([*lines[:2], json.dumps(record), *lines[3:]]) + "\n"
    )
    code = cards("verify", "code.jsonl", cwd=tmp_path)
    assert code.returncode == 1
    assert "card A17-3: security-code: 'zz' is not 10 lowercase hexadecimal digits" in code.stdout
    order = cards("verify", "reversed.jsonl", cwd=tmp_path)
    assert order.returncode == 1 and "numbering: out of order: after card no. 6" in order.stdout


def test_a_card_file_printed_again_gives_the_same_pdf_bytes(tmp_path):
    """No clock in the PDF: a batch printed again is byte for byte the one printed first, so
    the hash kept with a series checks any print of it."""
    generate(tmp_path, "a.jsonl", "--seed", "0a" * 16, count="12")
    for name in ("first.pdf", "again.pdf"):
        done = cards("print", "a.jsonl", "--out", name, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "first.pdf").read_bytes() == (tmp_path / "again.pdf").read_bytes()
