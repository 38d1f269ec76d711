"""Staff users and device tokens of the hub, stored hashed (SQLite or PostgreSQL).

- A staff password is stored as ``scrypt$16384$8$1$<salt b64>$<key b64>`` (standard-library
  ``hashlib.scrypt``, 16-byte random salt, 32-byte key). The string names its own parameters,
  so stronger parameters later do not invalidate the stored hashes.
- A device token is ``<device_id>.<secret>`` with 32 random bytes of secret
  (``secrets.token_urlsafe(32)``). It is shown once, by :meth:`CredentialStore.add_device`;
  only its SHA-256 is kept. A table device is bound to one casino table (``device_table``).
- No plaintext password or token is stored, logged, or put in an exception message.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Literal

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, SQLModel

from bingo_hall.hub.auth import DEVICE_ROLES, STAFF_ROLES, Principal, Role
from bingo_hall.hub.streams import TABLE_ID_PATTERN

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
KEY_BYTES = 32
_SCRYPT_MAXMEM = 64 * 1024 * 1024  # n=2**14, r=8 needs 16 MiB; leaves room for stronger params

PASSWORD_MIN = 10
PASSWORD_MAX = 1024  # bounds the work an unauthenticated caller can ask of the hash
NAME_PATTERN = re.compile(r"[a-z0-9_.-]{3,32}")
TOKEN_SECRET_BYTES = 32

DeviceKind = Literal["monitor", "terminal", "table"]
TABLE_ID = re.compile(TABLE_ID_PATTERN)


class StaffUserRecord(SQLModel, table=True):
    __tablename__ = "staff_user"
    username: str = Field(primary_key=True)
    role: str
    password_hash: str
    active: bool = True
    created_at: str


class DeviceRecord(SQLModel, table=True):
    __tablename__ = "device"
    device_id: str = Field(primary_key=True)
    kind: str
    token_hash: str
    active: bool = True
    created_at: str


class DeviceTableRecord(SQLModel, table=True):
    """The casino table a table device is bound to (a table of its own, so that stores made
    before table devices existed need no migration)."""

    __tablename__ = "device_table"
    device_id: str = Field(primary_key=True)
    table_id: str


@dataclass(frozen=True)
class StaffUser:
    """A staff user as listed for administration: never the hash."""

    username: str
    role: Role
    active: bool
    created_at: str


@dataclass(frozen=True)
class Device:
    device_id: str
    kind: Role
    active: bool
    created_at: str
    table: str | None = None  # a table device's table


# -- hashing -----------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _encode(password: str) -> bytes:
    # surrogatepass: any str hashes (never raises); the bytes are exactly the string's.
    return password.encode("utf-8", "surrogatepass")


def hash_password(password: str, salt: bytes | None = None) -> str:
    """The self-describing scrypt string of a password, with a fresh random salt."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = hashlib.scrypt(
        _encode(password),
        salt=salt,
        n=SCRYPT_N,
        r=SCRYPT_R,
        p=SCRYPT_P,
        dklen=KEY_BYTES,
        maxmem=_SCRYPT_MAXMEM,
    )
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the stored scrypt string (constant-time comparison).

    A password with a NUL character never matches: scrypt keys HMAC with the password, and
    HMAC pads a short key with zero bytes, so "secret" and "secret\\0" hash alike (no stored
    password holds a NUL: `_check_password` refuses them). It costs one scrypt all the same."""
    has_nul = "\x00" in password
    try:
        scheme, n, r, p, salt_b64, key_b64 = stored.split("$")
        if scheme != "scrypt":
            return False
        salt = base64.b64decode(salt_b64, validate=True)
        expected = base64.b64decode(key_b64, validate=True)
        key = hashlib.scrypt(
            _encode("" if has_nul else password),
            salt=salt,
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
            maxmem=_SCRYPT_MAXMEM,
        )
    except (ValueError, TypeError):  # malformed stored string or parameters out of range
        return False
    return hmac.compare_digest(key, expected) and not has_nul


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    """A hash of a random password: checked against when the user is unknown, so that an
    unknown name costs the same scrypt as a known one."""
    return hash_password(secrets.token_urlsafe(16))


def credential_stamp(stored_hash: str) -> str:
    """A short fingerprint of a stored password or token hash. A connection keeps the one it
    authenticated with; when the store's no longer matches (the password changed) or the
    credential is gone (user disabled, device revoked), the hub cuts the connection."""
    return hashlib.sha256(stored_hash.encode("ascii")).hexdigest()[:16]


def hash_token(token: str) -> str:
    # A token carries 256 random bits: no dictionary or brute force can reach it, so a slow,
    # salted hash would add nothing; a fast hash keeps every monitor/terminal connect cheap.
    return hashlib.sha256(_encode(token)).hexdigest()


# -- validation --------------------------------------------------------------------------------


def _check_name(what: str, name: object) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"invalid {what} {name!r}: use 3 to 32 characters, each a lowercase letter, "
            "a digit, '_', '.' or '-'"
        )
    return name


def _check_password(password: object) -> str:
    # The message never repeats the password.
    if not isinstance(password, str):
        raise ValueError(f"a password must be a string, not {type(password).__name__}")
    if len(password) < PASSWORD_MIN:
        raise ValueError(
            f"password too short: {len(password)} characters, at least {PASSWORD_MIN} needed"
        )
    if len(password) > PASSWORD_MAX:
        raise ValueError(
            f"password too long: {len(password)} characters, at most {PASSWORD_MAX} allowed"
        )
    if "\x00" in password:
        raise ValueError("a password may not contain the NUL character (U+0000)")
    return password


def _check_role(role: object, allowed: frozenset[Role], what: str) -> Role:
    names = ", ".join(sorted(r.value for r in allowed))
    try:
        value = Role(role)
    except ValueError:
        raise ValueError(f"unknown {what} {role!r}: use one of {names}") from None
    if value not in allowed:
        raise ValueError(f"{value.value!r} is not a {what}: use one of {names}")
    return value


def _check_table(kind: Role, table: object) -> None:
    if kind is not Role.TABLE:
        if table is not None:
            raise ValueError(f"a {kind.value} is not bound to a table: give --table to a table")
        return
    if not isinstance(table, str) or not TABLE_ID.fullmatch(table):
        raise ValueError(
            f"a table device needs the id of its table (1 to 32 letters, digits, '_' or '-'), "
            f"not {table!r}"
        )


def _utc_now() -> datetime:
    return datetime.now(UTC)


# -- the store ---------------------------------------------------------------------------------


class CredentialStore:
    """Staff users (passwords) and devices (tokens) of a hall's hub."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = _utc_now) -> None:
        self.engine = engine
        self._clock = clock
        _dummy_hash()  # computed now, so that no login pays for it
        SQLModel.metadata.create_all(
            engine,
            tables=[
                StaffUserRecord.__table__,  # type: ignore[list-item]
                DeviceRecord.__table__,  # type: ignore[list-item]
                DeviceTableRecord.__table__,  # type: ignore[list-item]
            ],
        )

    def _now(self) -> str:
        return self._clock().isoformat()

    # staff users

    def add_user(self, username: str, role: Role | str, password: str) -> None:
        _check_name("username", username)
        staff_role = _check_role(role, STAFF_ROLES, "staff role")
        _check_password(password)
        row = {
            "username": username,
            "role": staff_role.value,
            "password_hash": hash_password(password),
            "active": True,
            "created_at": self._now(),
        }
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(StaffUserRecord), [row])
        except IntegrityError:
            raise ValueError(f"staff user {username!r} already exists") from None

    def set_password(self, username: str, password: str) -> None:
        _check_password(password)
        self._update_user(username, password_hash=hash_password(password))

    def deactivate_user(self, username: str) -> None:
        self._update_user(username, active=False)

    def activate_user(self, username: str) -> None:
        self._update_user(username, active=True)

    def _update_user(self, username: str, **values: object) -> None:
        with self.engine.begin() as conn:
            result = conn.execute(
                update(StaffUserRecord).where(StaffUserRecord.username == username).values(**values)
            )
        if result.rowcount != 1:
            raise ValueError(f"no staff user {username!r}")

    def check_password(self, username: str, password: str) -> Principal | None:
        """The staff principal, or None for an unknown or inactive user or a wrong password.

        Every path runs one scrypt and one constant-time comparison, so the answer's time
        does not tell a known name from an unknown one.
        """
        row = None
        if isinstance(username, str) and NAME_PATTERN.fullmatch(username):
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(
                        StaffUserRecord.role,
                        StaffUserRecord.password_hash,
                        StaffUserRecord.active,
                    ).where(StaffUserRecord.username == username)
                ).one_or_none()
        if not isinstance(password, str) or len(password) > PASSWORD_MAX:
            password = ""  # still hash something: same cost, and it cannot match
            row = None
        stored = row.password_hash if row is not None else _dummy_hash()
        matches = verify_password(password, stored)
        if row is None or not matches or not row.active:
            return None
        stamp = credential_stamp(row.password_hash)
        return Principal(id=username, role=Role(row.role), kind="staff", credential=stamp)

    def users(self) -> list[StaffUser]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    StaffUserRecord.username,
                    StaffUserRecord.role,
                    StaffUserRecord.active,
                    StaffUserRecord.created_at,
                ).order_by(StaffUserRecord.username)
            ).all()
        return [StaffUser(r.username, Role(r.role), bool(r.active), r.created_at) for r in rows]

    # devices

    def add_device(self, device_id: str, kind: DeviceKind | Role, table: str | None = None) -> str:
        """Register a monitor, terminal or table device (bound to ``table``); return its token.
        The token is shown only here."""
        _check_name("device id", device_id)
        device_kind = _check_role(kind, DEVICE_ROLES, "device kind")
        _check_table(device_kind, table)
        token = f"{device_id}.{secrets.token_urlsafe(TOKEN_SECRET_BYTES)}"
        row = {
            "device_id": device_id,
            "kind": device_kind.value,
            "token_hash": hash_token(token),
            "active": True,
            "created_at": self._now(),
        }
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(DeviceRecord), [row])
                if table is not None:
                    conn.execute(
                        insert(DeviceTableRecord), [{"device_id": device_id, "table_id": table}]
                    )
        except IntegrityError:
            raise ValueError(
                f"device {device_id!r} already exists (a revoked id is not reused: "
                "register the device under a new id)"
            ) from None
        return token

    def check_token(self, token: str) -> Principal | None:
        """The device principal, or None for a malformed, unknown, wrong or revoked token."""
        if not isinstance(token, str) or len(token) > 256:
            return None
        device_id, dot, secret = token.rpartition(".")
        row = None
        if dot and secret and NAME_PATTERN.fullmatch(device_id):
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(DeviceRecord.kind, DeviceRecord.token_hash, DeviceRecord.active).where(
                        DeviceRecord.device_id == device_id
                    )
                ).one_or_none()
        expected = row.token_hash if row is not None else hash_token("")
        matches = hmac.compare_digest(hash_token(token), expected)
        if row is None or not matches or not row.active:
            return None
        table = self._table_of(device_id) if row.kind == Role.TABLE.value else None
        if row.kind == Role.TABLE.value and table is None:
            return None  # a table device without its table: nothing it may do
        return Principal(
            id=device_id,
            role=Role(row.kind),
            kind="device",
            table=table,
            credential=credential_stamp(row.token_hash),
        )

    def _table_of(self, device_id: str) -> str | None:
        with self.engine.connect() as conn:
            return conn.execute(
                select(DeviceTableRecord.table_id).where(DeviceTableRecord.device_id == device_id)
            ).scalar_one_or_none()

    def revoke_device(self, device_id: str) -> None:
        """Revoke a device for good: its token no longer authenticates, and its id is not
        given again."""
        with self.engine.begin() as conn:
            result = conn.execute(
                update(DeviceRecord).where(DeviceRecord.device_id == device_id).values(active=False)
            )
        if result.rowcount != 1:
            raise ValueError(f"no device {device_id!r}")

    def standing(self) -> dict[tuple[str, str], str]:
        """The credentials that authenticate now: (``"staff"``, username) of every active
        user and (``"device"``, id) of every active device, each with its stamp."""
        with self.engine.connect() as conn:
            users = conn.execute(
                select(StaffUserRecord.username, StaffUserRecord.password_hash).where(
                    StaffUserRecord.active == True  # noqa: E712 (a SQL expression)
                )
            ).all()
            devices = conn.execute(
                select(DeviceRecord.device_id, DeviceRecord.token_hash).where(
                    DeviceRecord.active == True  # noqa: E712
                )
            ).all()
        stands = {("staff", u.username): credential_stamp(u.password_hash) for u in users}
        stands.update({("device", d.device_id): credential_stamp(d.token_hash) for d in devices})
        return stands

    def devices(self) -> list[Device]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    DeviceRecord.device_id,
                    DeviceRecord.kind,
                    DeviceRecord.active,
                    DeviceRecord.created_at,
                    DeviceTableRecord.table_id,
                )
                .outerjoin(
                    DeviceTableRecord,
                    DeviceTableRecord.device_id == DeviceRecord.device_id,  # type: ignore[arg-type]
                )
                .order_by(DeviceRecord.device_id)
            ).all()
        return [
            Device(r.device_id, Role(r.kind), bool(r.active), r.created_at, r.table_id)
            for r in rows
        ]
