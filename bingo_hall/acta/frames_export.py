"""The camera frames an acta cites, written out for an inspector (spec §4).

The acta names each ball's frame by the SHA-256 of its JPEG. Exported, each frame gets a name
a person can follow (game, ball, number) and a line in `SHA256SUMS`, so `sha256sum -c
SHA256SUMS` proves the pictures are the ones the acta cites. A frame whose stored bytes no
longer hash to the cited value, or that is missing, is not written: it is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bingo_hall.store.frames import frame_hash

Json = dict[str, Any]
SUMS_FILE = "SHA256SUMS"


@dataclass(frozen=True)
class CitedFrame:
    """A frame the acta cites: the file name it is exported under and its SHA-256."""

    name: str
    sha256: str
    what: str  # for a person: "game 3, ball 12 (45)"


def cited_frames(acta: Json) -> list[CitedFrame]:
    """Every frame the acta's games cite, once each, in the order of the games and balls: a
    drawn ball's frame, and the frame of a hold whose ball never came (a game voided on it)."""
    cited: dict[str, CitedFrame] = {}
    for game in acta["session"]["games"] if acta.get("session") else ():
        for cite in _game_frames(game):
            cited.setdefault(cite.sha256, cite)
    return list(cited.values())


def _game_frames(game: Json) -> Iterator[CitedFrame]:
    game_id = game["game_id"]
    for ball in game["balls"]:
        frame = (ball.get("camera") or {}).get("frame")
        if frame:
            yield CitedFrame(
                f"partida-{game_id}-bola-{ball['ordinal']:02d}-{ball['number']:02d}.jpg",
                frame,
                f"game {game_id}, ball {ball['ordinal']} ({ball['number']})",
            )
    for hold in game["holds"]:
        frame = hold["camera"].get("frame")
        if frame:
            yield CitedFrame(
                f"partida-{game_id}-retenida-{hold['ordinal']:02d}-cantada-{hold['called']:02d}.jpg",
                frame,
                f"game {game_id}, ball {hold['ordinal']} held (called {hold['called']})",
            )


def export_frames(
    cited: list[CitedFrame], fetch: Callable[[str], bytes | None], directory: Path
) -> list[str]:
    """Write each cited frame into `directory` (see `make_frames_directory`) with
    `SHA256SUMS`; returns the problems (a frame missing from the store, or whose bytes
    changed), each naming the ball."""
    directory.mkdir(parents=True, exist_ok=True)
    problems, sums = [], []
    for cite in cited:
        jpeg = fetch(cite.sha256)
        if jpeg is None:
            problems.append(f"{cite.what}: frame {cite.sha256} is not in the store")
        elif frame_hash(jpeg) != cite.sha256:
            problems.append(
                f"{cite.what}: the stored frame {cite.sha256} was altered "
                f"(its bytes hash to {frame_hash(jpeg)})"
            )
        else:
            (directory / cite.name).write_bytes(jpeg)
            sums.append(f"{cite.sha256}  {cite.name}\n")
    (directory / SUMS_FILE).write_text("".join(sums), encoding="ascii")
    return problems


def make_frames_directory(directory: Path) -> list[Path]:
    """The frames go in a new or empty directory, so that nothing else is taken for them; it
    is made now (and must take files), before anything is printed. Returns the directories
    made, for `unmake` to take away if the acta is then refused."""
    try:
        taken = directory.exists() and (not directory.is_dir() or any(directory.iterdir()))
    except OSError as error:  # a folder this user may not list
        raise ValueError(f"cannot use {directory} for the frames: {error.strerror}") from None
    if taken:
        raise ValueError(f"{directory} is not an empty directory: the frames go in a new one")
    made = [folder for folder in (directory, *directory.parents) if not folder.exists()]
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".probe"
        probe.touch()
        probe.unlink()
    except OSError as error:
        unmake(made)
        raise ValueError(f"cannot write the frames in {directory}: {error.strerror}") from None
    return made


def unmake(made: list[Path]) -> None:
    """The directories `make_frames_directory` made, taken away again (deepest first) while
    they are still empty."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return
