"""`bingo-hall vision read IMAGE...`: one JSON line per image with the ball read on it."""

from __future__ import annotations

import argparse
import json
import stat
from pathlib import Path
from typing import Any


class VisionInputError(ValueError):
    """An image the user named that is not there (reported in one line, exit status 2)."""


def run_read(args: argparse.Namespace) -> int:
    paths = [Path(name) for name in args.images]
    for path in paths:
        _readable(path)
    from bingo_hall.vision.reading import Reading
    from bingo_hall.vision.recognise import BallReader, load_frame

    reader = BallReader()
    candidates = _candidates(args.candidates)
    for path, name in zip(paths, args.images, strict=True):
        try:
            frame = load_frame(path)
        except OSError as error:  # gone or locked since it was looked at
            raise VisionInputError(f"{path}: cannot read it ({error.strerror})") from None
        if frame is None:
            reading = Reading(None, 0.0, None, "unreadable")
        else:
            reading = reader.read(frame, candidates)
        print(json.dumps({"image": name, **reading.to_json()}), flush=True)
    return 0


def _readable(path: Path) -> None:
    """VisionInputError, in one line, unless `path` is a file this user may read."""
    try:
        regular = stat.S_ISREG(path.stat().st_mode)  # not a folder, nor a pipe to wait on
        if regular:
            with path.open("rb"):
                pass
    except (FileNotFoundError, NotADirectoryError):
        regular = False
    except PermissionError:
        raise VisionInputError(f"{path}: cannot read it (permission denied)") from None
    except OSError as error:
        raise VisionInputError(f"{path}: cannot read it ({error.strerror})") from None
    if not regular:
        raise VisionInputError(f"{path}: no such image file")


def _candidates(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        numbers = [int(part) for part in text.split(",") if part.strip()]
        if any(not part.strip().isascii() for part in text.split(",")):
            raise ValueError(text)  # other scripts' digits: not how a ball is written
    except ValueError:
        raise VisionInputError(f"--candidates: not a list of numbers: {text!r}") from None
    if not numbers:
        raise VisionInputError(f"--candidates: no ball given in {text!r}")
    bad = [n for n in numbers if not 1 <= n <= 90]
    if bad:
        raise VisionInputError(f"--candidates: no ball {bad[0]}: balls are numbered 1 to 90")
    return numbers


def add_vision_parser(commands: Any) -> None:
    """The `vision` command and its subcommands, on the main parser's subparsers."""
    vision = commands.add_parser(
        "vision",
        help="the CCTV ball reader",
        description="The CCTV check of each ball: read the number on a camera image.",
    )
    actions = vision.add_subparsers(dest="vision_command", required=True)
    read = actions.add_parser(
        "read",
        help="read the ball on each image",
        description="Prints one JSON line per image: {image, number, confidence, guess, "
        "reason}. number is set only when the reading passes the acceptance threshold the "
        "hub uses; otherwise it is null, reason says why (no_ball, unsure, unreadable) and "
        "guess holds the best candidate, if any. An image that cannot be decoded gives "
        "reason unreadable; a missing file is an error (exit status 2).",
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="image file (PNG, JPEG, ...)")
    read.add_argument(
        "--candidates",
        metavar="N,N,...",
        help="the balls still in the machine: only these can be read (a ball already out "
        "may be guessed, never read)",
    )
    read.set_defaults(run=run_read)
