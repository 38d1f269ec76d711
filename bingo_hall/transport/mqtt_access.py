"""Who may connect to the hall's MQTT broker, and as whom (docs/mqtt.md, «Access control»).

The example broker (config/mosquitto/mosquitto.conf) sets ``use_username_as_clientid``: a
client's id on the broker is its user name, whatever id it connects with, so no user can take
another's connection, persistent session or replays. The hub has one connection per stream
(the hall's, each table's) and one per witness check (mqtt_witness.py), each under a client id
of its own, so it has one broker user per client id: those users are named here, all with the
hub's password (``[mqtt] password``). ``bingo-hall mqtt-access`` writes, from the hall's
configuration, the broker's ACL file (``acl_text``) and the hub's users in its password file
(``password_file_text``); a monitor or a terminal is a user of its own, added with
``mosquitto_passwd``, and needs no line of the ACL.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

# Mosquitto 2.0's password hashes: PBKDF2-SHA512 (``$7$``), as mosquitto_passwd writes them.
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12

# A name that is a broker user, a client id and a topic level: no '/', '+', '#' (Mosquitto
# denies pattern ACLs to a user or client id holding '+' or '#'), no ':' (the password file's
# separator), no space or control character (the ACL file's separator).
BROKER_NAME = re.compile(r"[^/+#:\s\x00-\x1f\x7f]+")


def hall_client_id(hall_id: str) -> str:
    """The hall bridge's client id (and broker user)."""
    return f"bingo-hub-{hall_id}"


def table_client_id(hall_id: str, table_id: str) -> str:
    """A table bridge's client id (and broker user)."""
    return f"bingo-hub-{hall_id}-table-{table_id}"


def witness_client_id(client_id: str) -> str:
    """The client id (and broker user) of a bridge's witness check."""
    return f"{client_id}-witness"


@dataclass(frozen=True)
class HubUser:
    """One of the hub's broker users: its name (= its client id), what it is, its topics."""

    name: str
    role: str
    write: tuple[str, ...]
    read: tuple[str, ...] = ()


@dataclass(frozen=True)
class HallAccess:
    """The broker access of one hall: its topic prefix, its tables, the hub's users."""

    hall_id: str
    prefix: str = "bingo"
    table_ids: tuple[str, ...] = ()
    users: tuple[HubUser, ...] = field(init=False)

    def __post_init__(self) -> None:
        named = [("hall id", self.hall_id), ("topic prefix", self.prefix)]
        for what, name in [*named, *(("table id", table) for table in self.table_ids)]:
            if not BROKER_NAME.fullmatch(name):
                raise ValueError(
                    f"the {what} {name!r} cannot name a broker user or a topic level: no /, +, "
                    "#, :, space or control character"
                )
        hall_base = f"{self.prefix}/{self.hall_id}"
        streams = [(hall_client_id(self.hall_id), "the hall", hall_base)]
        streams += [
            (table_client_id(self.hall_id, table), f"table {table}", f"{hall_base}/tables/{table}")
            for table in self.table_ids
        ]
        users = []
        for client_id, stream, base in streams:
            witness = witness_client_id(client_id)
            users += [
                HubUser(
                    client_id,
                    f"{stream}'s bridge: events, state and replays; reads the replay requests",
                    write=(f"{base}/events", f"{base}/state", f"{base}/replay/+"),
                    read=(f"{base}/replay/request/+",),
                ),
                HubUser(
                    witness,
                    f"{stream}'s witness check: reads the retained state (patterns), writes "
                    "its marker",
                    write=(f"{base}/replay/{witness}",),
                ),
            ]
        names = [user.name for user in users]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(
                f"two of the hub's connections would be one broker user, {twice[0]}: rename "
                "the table whose id ends in -witness"
            )
        object.__setattr__(self, "users", tuple(users))

    @property
    def user_names(self) -> list[str]:
        return [user.name for user in self.users]

    def is_hub_user(self, name: str) -> bool:
        """A name of this hall's hub, for any table (one no longer configured included)."""
        hall = re.escape(hall_client_id(self.hall_id))
        return re.fullmatch(rf"{hall}(-table-[A-Za-z0-9_-]+)?(-witness)?", name) is not None

    def acl_text(self) -> str:
        """The broker's whole ACL file for this hall."""
        text = ACL_HEAD.format(
            hall=self.hall_id, prefix=self.prefix, tables=", ".join(self.table_ids) or "none"
        )
        for user in self.users:
            text += f"\n# {user.role}\nuser {user.name}\n"
            text += "".join(f"topic write {topic}\n" for topic in user.write)
            text += "".join(f"topic read {topic}\n" for topic in user.read)
        return text


ACL_HEAD = """\
# Mosquitto ACL of hall {hall}'s topics (docs/mqtt.md, «Access control»), written by
# `bingo-hall mqtt-access` from its configuration (tables: {tables}): write it again when a
# table is added or removed, rather than editing it. Used with `acl_file` in mosquitto.conf,
# whose `use_username_as_clientid true` makes every client's id its user name (so %c is %u):
# no user can connect under another's client id. A publish the ACL denies is dropped silently.

# ---- every user (patterns): monitors and terminals need no lines of their own -------------
# Read the event streams and the retained states, the hall's and each table's.
pattern read {prefix}/+/events
pattern read {prefix}/+/state
pattern read {prefix}/+/tables/+/events
pattern read {prefix}/+/tables/+/state
# Read the replays addressed to its own client id; ask for one under that id only.
pattern read {prefix}/+/replay/%c
pattern write {prefix}/+/replay/request/%c
pattern read {prefix}/+/tables/+/replay/%c
pattern write {prefix}/+/tables/+/replay/request/%c
# An auxiliary terminal's own topics, named by its user (read and write).
pattern readwrite {prefix}/+/terminal/%u/#

# ---- the hub: a user per connection, named by its client id, with the hub's password ------
"""


# ------------------------------------------------------------------- password file --


def password_hash(password: str, salt: bytes | None = None) -> str:
    """A Mosquitto 2.0 password hash (``$7$``: PBKDF2-SHA512), as mosquitto_passwd makes."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS)
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"$7${PBKDF2_ITERATIONS}${encoded[0]}${encoded[1]}"


def password_matches(stored: str, password: str) -> bool:
    """Whether a ``$7$`` hash of the password file is this password's (other kinds: no)."""
    parts = stored.split("$")
    if len(parts) != 5 or parts[:2] != ["", "7"] or not (parts[2].isascii() and parts[2].isdigit()):
        return False
    try:
        salt, digest = (base64.b64decode(part, validate=True) for part in parts[3:])
    except ValueError:
        return False
    computed = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, int(parts[2]))
    return hmac.compare_digest(computed, digest)


@dataclass
class PasswordChange:
    """What writing the hub's users did to a password file (names only, never a password)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)


def password_file_text(
    text: str, path: Path, access: HallAccess, password: str
) -> tuple[str, PasswordChange]:
    """The password file `text` with the hub's users set to `password`: an entry that has it
    already is kept as it is, another is hashed again, a missing one added; the hub's users of
    a table no longer configured are removed; every other line is kept. ValueError, naming the
    line, when `text` is not a password file."""
    change = PasswordChange()
    wanted = access.user_names
    kept: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            kept.append(line)
            continue
        name, colon, stored = line.partition(":")
        if not colon or not name:
            raise ValueError(
                f"{path}: line {number} is not user:password-hash (not a Mosquitto password "
                "file?); nothing written"
            )
        if name in wanted:
            if name in change.unchanged + change.updated:
                raise ValueError(f"{path}: user {name} is there twice (line {number})")
            if password_matches(stored, password):
                change.unchanged.append(name)
                kept.append(line)
            else:
                change.updated.append(name)
                kept.append(f"{name}:{password_hash(password)}")
        elif access.is_hub_user(name):
            change.removed.append(name)
        else:
            change.others.append(name)
            kept.append(line)
    for name in wanted:
        if name not in change.unchanged + change.updated:
            change.added.append(name)
            kept.append(f"{name}:{password_hash(password)}")
    return "\n".join(kept) + "\n", change


# ------------------------------------------------------------------------- writing --


def read_text(path: Path, what: str) -> str:
    """A file's text; "" when it is not there yet. ValueError, in one line, otherwise (a named
    pipe or a device is refused before it is opened: reading one would wait for a writer)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise ValueError(f"{what} {path} is not a regular file; nothing written")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path} is not UTF-8 text; nothing written") from None
    except OSError as error:
        raise ValueError(
            f"{what} {path} cannot be read: {error.strerror or error}; nothing written"
        ) from None


def write_files(files: Mapping[Path, tuple[str, int]]) -> None:
    """Replace each file with its text (a new file gets the mode given), all or none: every new
    text is written beside its file first, with the file's owner, group and mode, and only then
    moved over it. ValueError, in one line, when one cannot be written: nothing changed."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, (text, new_mode) in files.items():
            staged.append((_staged(path, text, new_mode), path))
    except ValueError:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, path in staged:
        os.replace(temporary, path)


def _staged(path: Path, text: str, new_mode: int) -> Path:
    """`text` written to a new file in `path`'s folder, with `path`'s owner, group and mode."""

    def refused(why: object) -> ValueError:
        return ValueError(f"cannot write {path}: {why}; nothing written")

    try:
        current: os.stat_result | None = path.stat()
    except FileNotFoundError:
        current = None
    except OSError as error:
        raise refused(error.strerror or error) from None
    if current is not None and not stat.S_ISREG(current.st_mode):
        raise refused("not a regular file")
    try:
        descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise refused(error.strerror or error) from None
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, new_mode if current is None else stat.S_IMODE(current.st_mode))
        if current is not None:
            made = temporary.stat()
            if (made.st_uid, made.st_gid) != (current.st_uid, current.st_gid):
                try:
                    os.chown(temporary, current.st_uid, current.st_gid)
                except PermissionError:
                    raise refused(
                        f"cannot keep its owner and group ({current.st_uid}:{current.st_gid}): "
                        "run this as root or as its owner"
                    ) from None
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise refused(error.strerror or error) from None
        raise
    return temporary
