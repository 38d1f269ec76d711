"""The hash chain's recipe, and a check of a chain link by link: the Python standard library
only, so that the same file, copied into a log's export (`bingo-hall export-log`), lets an
inspector verify the export with any Python 3.11, without this system.

Every event is hashed as SHA-256 of the canonical JSON (keys sorted, no spaces, UTF-8, no NaN)
of its hall, seq, session, game, type, payload, time, actor and the previous event's hash;
the first event's previous hash is 64 zeros.

Run on an export: ``python3 verify_export.py DIRECTORY`` (status 0: every stream verifies,
every file is the one its SHA256SUMS line names, and, where the export holds the camera frames,
each is named by its SHA-256 and every frame an event cites is there; 1: it does not, with the
first problem of each stream).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GENESIS_HASH = "0" * 64
HASHED = ("hall", "seq", "session", "game", "type", "payload", "time", "actor", "prev_hash")
MANIFEST = "MANIFEST.json"
SUMS = "SHA256SUMS"
FRAMES = "frames"  # the camera frames, each named by the SHA-256 of its JPEG
_DIGEST = re.compile(r"[0-9a-f]{64}")


def canonical_json(obj: Any) -> str:
    """The one JSON text of ``obj`` that is hashed and stored (NaN/Infinity refused)."""
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def hash_of(event: dict[str, Any]) -> str:
    """SHA-256 hex of an event's hashed fields (HASHED), from a dict holding them."""
    body = {key: event[key] for key in HASHED}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def cited_frames(value: Any) -> Iterator[str]:
    """The camera frames a payload cites: every `frame` that is a SHA-256 (a call's camera
    check, a held ball's, a showing of a ball set to the camera)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "frame" and isinstance(item, str) and _DIGEST.fullmatch(item):
                yield item
            else:
                yield from cited_frames(item)
    elif isinstance(value, list):
        for item in value:
            yield from cited_frames(item)


def _files(directory: Path) -> list[str]:
    """Every file below `directory`, as a relative POSIX path, in order."""
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def sums_text(directory: Path) -> str:
    """SHA256SUMS of every file below `directory` (as `sha256sum` writes and checks it)."""
    return "".join(
        f"{hashlib.sha256((directory / name).read_bytes()).hexdigest()}  {name}\n"
        for name in _files(directory)
        if name != SUMS
    )


class ChainCheck:
    """Walks one stream's events in seq order and stops at the first broken link: `events`,
    `last_seq`, `last_hash` describe the verified prefix, `problem` the first bad seq."""

    def __init__(self) -> None:
        self.events = 0
        self.last_seq = 0
        self.last_hash = GENESIS_HASH
        self.problem: str | None = None

    def check(self, event: dict[str, Any], payload_text: str | None = None) -> bool:
        """One more event; `payload_text`: its payload as stored (then `event` need not hold
        it), which must be the canonical JSON of a payload."""
        self.problem = self._problem(event, payload_text)
        if self.problem is None:
            self.events += 1
            self.last_seq, self.last_hash = event["seq"], event["hash"]
        return self.problem is None

    def check_head(self, head_seq: int, head_hash: str) -> None:
        """The stream's head, as its store or its export states it, against the last event."""
        if (head_seq, head_hash) != (self.last_seq, self.last_hash):
            self.problem = (
                f"seq {self.last_seq + 1}: the head row says the log ends at seq {head_seq} "
                f"(hash {head_hash[:12]}…) but the stored log ends at seq {self.last_seq} "
                f"(hash {self.last_hash[:12]}…): events at the end were removed or altered"
            )

    def _problem(self, event: dict[str, Any], payload_text: str | None) -> str | None:
        seq, expected_seq = event["seq"], self.last_seq + 1
        if seq != expected_seq:
            missing = (
                f"seq {expected_seq} is missing"
                if seq == expected_seq + 1
                else f"seqs {expected_seq}..{seq - 1} are missing"
            )
            return (
                f"seq {expected_seq}: gap in seq, {missing} "
                f"(the log jumps from seq {self.last_seq} to seq {seq})"
            )
        if event["prev_hash"] != self.last_hash:
            return (
                f"seq {seq}: prev_hash mismatch: stored {event['prev_hash'][:12]}…, but the "
                f"hash of seq {self.last_seq} is {self.last_hash[:12]}…"
            )
        if payload_text is not None:  # as stored: it must be the canonical text of a payload
            try:
                payload = json.loads(payload_text)
            except ValueError as error:
                return f"seq {seq}: payload is not valid JSON ({error}): content was tampered with"
            if canonical_json(payload) != payload_text:
                return f"seq {seq}: payload is not in canonical form: content was tampered with"
            event = {**event, "payload": payload}
        digest = hash_of(event)
        if digest != event["hash"]:
            return (
                f"seq {seq}: hash mismatch: stored {event['hash'][:12]}…, recomputed "
                f"{digest[:12]}…: content was tampered with"
            )
        return None


# --- an export -------------------------------------------------------------------------------


def _sums_problems(directory: Path) -> list[str]:
    """Every file named in SHA256SUMS is there with that digest, and nothing else is there."""
    listed: dict[str, str] = {}
    for line in (directory / SUMS).read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    problems = []
    for name, digest in listed.items():
        path = directory / name
        if not path.is_file():
            problems.append(f"{name}: named in {SUMS} but not in the export")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"{name}: its SHA-256 is not the one {SUMS} gives")
    extra = sorted(set(_files(directory)) - set(listed) - {SUMS})
    problems += [f"{name}: in the export but not in {SUMS}" for name in extra]
    return problems


def _frame_problems(directory: Path, cited: set[str]) -> list[str]:
    """Each frame is named by its SHA-256, and every frame the events cite is there."""
    folder = directory / FRAMES
    problems = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else ():
        if hashlib.sha256(path.read_bytes()).hexdigest() + ".jpg" != path.name:
            problems.append(f"{FRAMES}/{path.name}: its SHA-256 is not its name")
    for digest in sorted(cited):
        if not (folder / f"{digest}.jpg").is_file():
            problems.append(f"{FRAMES}/{digest}.jpg: cited by an event, not in the export")
    return problems


def _stream_problem(directory: Path, stream: dict[str, Any], cited: set[str]) -> str | None:
    """The first problem of one stream's file, against the head the manifest gives it; the
    frames its events cite go into `cited`. Lines end at a newline byte, and only there."""
    check = ChainCheck()
    text = (directory / stream["file"]).read_bytes()
    lines = text.split(b"\n")
    if lines[-1]:
        return f"line {len(lines)} does not end with a newline"
    for number, line in enumerate(lines[:-1], 1):
        try:
            event = json.loads(line.decode("utf-8"))
        except ValueError as error:
            return f"line {number} is not JSON ({error})"
        fields = (*HASHED, "hash")
        if not (isinstance(event, dict) and all(key in event for key in fields)) or not (
            isinstance(event["seq"], int) and isinstance(event["prev_hash"], str)
        ):
            return f"line {number} is not an event (fields {', '.join(HASHED)}, hash)"
        if event["hall"] != stream["stream"]:
            return f"line {number} is an event of {event['hall']!r}"
        if not check.check(event):
            return check.problem
        cited.update(cited_frames(event["payload"]))
    check.check_head(stream["last_seq"], stream["last_hash"])
    return check.problem


def verify_export(directory: Path) -> tuple[bool, list[str]]:
    """Whether an export verifies, and what to say of it: a line per stream, then problems."""
    if not (directory / MANIFEST).is_file() or not (directory / SUMS).is_file():
        return False, [f"{directory}: no export here (no {MANIFEST} or {SUMS})"]
    problems = _sums_problems(directory)
    manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    lines, cited = [], set()
    for stream in manifest["streams"]:
        problem = _stream_problem(directory, stream, cited)
        verdict = "VERIFIES" if problem is None else f"DOES NOT VERIFY: {problem}"
        lines.append(
            f"{stream['stream']}: {stream['events']} events, last seq {stream['last_seq']}, "
            f"hash {stream['last_hash']}: {verdict}"
        )
        problems += [] if problem is None else [f"{stream['stream']}: {problem}"]
    if manifest.get("frames") is not None:
        problems += _frame_problems(directory, cited)
        lines.append(f"{FRAMES}: {len(cited)} frames cited by the events")
    return not problems, lines + problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python3 verify_export.py DIRECTORY", file=sys.stderr)
        return 2
    ok, lines = verify_export(Path(args[0]))
    print("\n".join(lines))
    print("THE EXPORT VERIFIES" if ok else "THE EXPORT DOES NOT VERIFY")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
