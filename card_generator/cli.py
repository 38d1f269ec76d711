"""`bingo-cards`: generate, verify and print series of bingo cards."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import numpy as np
from tqdm import tqdm

from bingo_hall.domain.cards import card_violations
from card_generator.arguments import whole_number
from card_generator.files import CardFileError, read_cards, write_series
from card_generator.ranking import rank
from card_generator.series import (
    STRIP_SIZE,
    GeneratedSeries,
    generate_series,
    generate_strip_series,
)
from card_generator.verify import problems_said, verify_records


class UsageError(Exception):
    """A mistake in the command line; reported in one line, exit status 2."""


# digits and a point (the series says what it allows of them); fullmatch: "$" lets "\n" by
AMOUNT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
PER_FILE = 19_998  # cards per PDF by default: a multiple of 6, so a strip is never parted
# A seed keys the security codes' HMAC: one printed card and its code let a forger try every
# seed, so a seed given by hand must be as long as the 16 bytes a fresh one has.
MIN_SEED_BYTES = 16


def _face_value(text: str) -> Decimal:
    if not AMOUNT.fullmatch(text):
        raise UsageError(f"face value {text!r} is not an amount like 1.50")
    return Decimal(text)


def _seed(text: str | None, minimum: int = 1) -> bytes | None:
    if text is None:
        return None
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"seed {text!r} is not hexadecimal") from None
    if not seed:
        raise UsageError("the seed is empty")
    if len(seed) < minimum:
        raise UsageError(
            f"the seed has {len(seed)} bytes: a series seed needs at least {minimum} "
            f"({2 * minimum} hexadecimal digits), or none for a fresh one, since one printed "
            "card lets a forger try every shorter seed"
        )
    return seed


def _ranks_of(paths: Sequence[str]) -> np.ndarray | None:
    """The ranks of every valid card in other series files (cards a new series must avoid)."""
    if not paths:
        return None
    ranks = []
    for path in paths:
        for line, record in read_cards(Path(path)):
            if isinstance(record, str):
                raise UsageError(f"{path}, line {line}: {record}")
            grid = record.get("grid")
            broken = card_violations(grid) if isinstance(grid, list) else ["no grid"]
            if broken:
                raise UsageError(f"{path}, line {line}: not a valid card ({broken[0]})")
            ranks.append(rank(grid))
    return np.array(ranks, dtype=np.uint64)


def _progress(total: int, what: str) -> tqdm:
    return tqdm(total=total, unit=" cards", desc=what, disable=None, file=sys.stderr)


def manifest_path(out: Path) -> Path:
    return out.with_name(out.name + ".seed.json")


def run_generate(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"folder {out.parent} does not exist")
    for target in (out, manifest_path(out)):
        if target.exists() or target.is_symlink():
            raise UsageError(
                f"{target} exists: a generated series and its seed are never overwritten "
                "(its printed cards would lose the seed that checks them); choose another name"
            )
    make = generate_strip_series if args.strips else generate_series
    try:
        series: GeneratedSeries = make(
            args.series,
            args.count,
            _face_value(args.face_value),
            _seed(args.seed, MIN_SEED_BYTES),
            exclude=_ranks_of(args.distinct_from),
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    manifest = {
        "series": series.series_id,
        "face_value": f"{series.face_value:.2f}",
        "series_size": series.size,
        "strips": series.strips,
        "algorithm": series.algorithm,
        "seed": series.seed.hex(),
        "commitment": series.commitment,
        "file": out.name,
        "note": "keep private: the seed proves (and could forge) the security codes",
    }
    # The seed first, aside: cards are never left without the seed that made their codes.
    pending = manifest_path(out).with_name(manifest_path(out).name + ".part")
    try:
        pending.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        with _progress(series.size, f"generating {series.series_id}") as bar:
            write_series(series, out, bar.update)
        pending.replace(manifest_path(out))
    except OSError as error:
        why = f"cannot write {out} and its seed: {error.strerror or error}"
        if out.exists() and pending.exists():
            raise UsageError(f"{why}; the seed of the cards written is in {pending}") from None
        pending.unlink(missing_ok=True)
        raise UsageError(why) from None
    print(f"{series.series_id}: {series.size} cards written to {out}")
    print(f"commitment {series.commitment}")
    print(f"seed recorded in {manifest_path(out)}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    path = Path(args.file)
    bad = 0
    checked = 0

    def counted(records):
        nonlocal checked
        for item in records:
            checked += 1
            yield item

    for problem in verify_records(counted(read_cards(path)), _seed(args.seed)):
        bad += 1
        print(problem)
    status = "all good" if bad == 0 else problems_said(bad)
    print(f"{path}: {checked} cards checked, {status}")
    return 0 if bad == 0 else 1


def run_print(args: argparse.Namespace) -> int:
    from itertools import islice

    from card_generator.printing import check_record, print_cards

    path, out = Path(args.file), Path(args.out)
    if args.per_file < 1:
        raise UsageError("--per-file must be at least 1")
    if not out.parent.is_dir():
        raise UsageError(f"folder {out.parent} does not exist")
    if out.is_dir():
        raise UsageError(f"{out} is a folder: --out names the PDF to write")
    if out.resolve() == path.resolve():
        raise UsageError(f"--out {out} is the card file itself")
    if out.suffix.lower() != ".pdf":  # a slip of the card file's or its seed's name
        raise UsageError(f"--out {out} does not end in .pdf: it names the PDF to write")
    # Every card checked before any part is written, as `verify` checks a file (the card
    # rules, numbering, one series, no card twice), and as printing needs it: no part is left
    # half done, and no card is printed that the hall could not import.
    total, strips = 0, False

    def checked():
        nonlocal total, strips
        for line, record in read_cards(path):
            total += 1
            if isinstance(record, str):
                raise UsageError(f"{path}, line {line}: {record}")
            try:
                check_record(record, total)
            except ValueError as error:
                raise UsageError(f"{path}: {error}") from None
            strips = strips or "strip" in record
            yield line, record

    first, problems = None, 0
    for problem in verify_records(checked()):
        first, problems = first or problem, problems + 1
    if first is not None:
        raise UsageError(
            f"{path} does not verify ({problems_said(problems)}, the first {first}): nothing "
            f"printed; bingo-cards verify lists them all"
        )
    if strips and args.per_file % STRIP_SIZE:
        raise UsageError(
            f"--per-file {args.per_file}: a series in strips is printed whole strips to a file, "
            f"so give a multiple of {STRIP_SIZE}"
        )

    def records():
        for _, record in read_cards(path):
            yield record

    parts = -(-total // args.per_file) if total else 1
    names = (
        [out]
        if parts == 1
        else [out.with_name(f"{out.stem}-{k:04d}{out.suffix}") for k in range(1, parts + 1)]
    )
    existing = [name for name in names if name.exists()]
    if existing:  # a series, its seed or an earlier print: never written over
        raise UsageError(f"{existing[0]} exists: printing writes no file over another")
    stream = records()
    printed = 0
    written: list[Path] = []
    with _progress(total, f"printing {path.name}") as bar:
        for name in names:
            try:
                printed += print_cards(islice(stream, args.per_file), name, bar.update)
            except (ValueError, OSError) as error:
                for part in written:  # all the parts or none
                    part.unlink(missing_ok=True)
                why = error.strerror if isinstance(error, OSError) else None
                raise UsageError(
                    f"cannot write {name}: {why}" if why else f"{path}: {error}"
                ) from None
            written.append(name)
    where = out if parts == 1 else f"{parts} files {names[0].name} .. {names[-1].name}"
    print(f"{printed} cards printed to {where}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bingo-cards", description="Generate, verify and print series of bingo cards."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate",
        help="generate a series of cards",
        description="Generates a series of distinct cards drawn exactly uniformly from all valid "
        "cards (or, with --strips, from all strips of 6 cards holding 1-90 once), deterministic "
        "from the seed, and writes them as JSONL (or CSV if FILE ends in .csv). The seed, the "
        "algorithm and the series commitment are recorded in FILE.seed.json.",
    )
    generate.add_argument(
        "--series", required=True, help="series id: letter(s) and number, e.g. A17"
    )
    generate.add_argument("--count", required=True, type=whole_number, help="cards in the series")
    generate.add_argument("--face-value", required=True, help="price of a card, e.g. 1.50")
    generate.add_argument("--strips", action="store_true", help="strips of 6 cards holding 1-90")
    generate.add_argument(
        "--seed",
        help=f"seed in hexadecimal, at least {MIN_SEED_BYTES} bytes (default: fresh from the OS)",
    )
    generate.add_argument(
        "--distinct-from",
        action="append",
        default=[],
        metavar="FILE",
        help="another series file of the same game: no card may repeat one of its cards",
    )
    generate.add_argument("--out", required=True, help="output file (.jsonl or .csv)")
    generate.set_defaults(run=run_generate)

    verify = commands.add_parser(
        "verify",
        help="check a card file",
        description="Checks every card of a file: the card rules (R1-R4, C1-C2), the series "
        "fields, the numbering 1..N, strips, and that no card repeats. Prints each problem with "
        "the rule it breaks; exit status 1 if there is any.",
    )
    verify.add_argument("file")
    verify.add_argument("--seed", help="the series seed (hex): also check the security codes")
    verify.set_defaults(run=run_verify)

    printer = commands.add_parser(
        "print",
        help="print a card file to PDF",
        description="The card-printing batch job: lays the cards of a file out on A4 pages, each "
        "with its series, number, face value, series size, grid, security code and QR code.",
    )
    printer.add_argument("file")
    printer.add_argument("--out", required=True, help="the PDF to write")
    printer.add_argument(
        "--per-file",
        type=whole_number,
        default=PER_FILE,
        metavar="N",
        help="cards per PDF (a larger series is split into OUT-0001.pdf, ...; default 19998, "
        "whole strips of 6, which keeps memory near 350 MB)",
    )
    printer.set_defaults(run=run_print)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, CardFileError) as error:
        print(f"bingo-cards: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
