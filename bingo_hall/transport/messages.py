"""The websocket protocol's messages. docs/protocol.md shows their JSON Schemas.

Client to hub: `auth` (first frame), then `subscribe`, `command` and `ping`, each with an `id`
the answer repeats. Hub to client: `auth_required`, `auth_ok` / `auth_invalid`, `event`,
`result` and `pong`; `error` for a frame the hub could not read at all.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

MAX_FRAME_BYTES = 64 * 1024


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- client to hub -------------------------------------------------------------------------


class Auth(_Message):
    """First frame: a device token, or a staff user's name and password."""

    type: Literal["auth"]
    token: str | None = Field(default=None, max_length=512)
    user: str | None = Field(default=None, max_length=64)
    password: str | None = Field(default=None, max_length=256)


class Subscribe(_Message):
    """Every event with seq > after_seq, in order, then each new one as it is committed.

    channel "panel" (monitors) receives each ball `display_delay` after it was announced;
    "caller" (the sound channel, the control screen) receives it at once.
    """

    id: int = Field(ge=0)
    type: Literal["subscribe"]
    after_seq: int = Field(default=0, ge=0)
    channel: Literal["caller", "panel"] = "caller"


class Command(_Message):
    """A command of the rules engine, by name, with its arguments."""

    id: int = Field(ge=0)
    type: Literal["command"]
    command: str = Field(max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)


class Ping(_Message):
    id: int = Field(ge=0)
    type: Literal["ping"]


ClientMessage = TypeAdapter(Subscribe | Command | Ping)

# --- hub to client -------------------------------------------------------------------------


class AuthRequired(_Message):
    type: Literal["auth_required"] = "auth_required"
    hall: str


class AuthOk(_Message):
    type: Literal["auth_ok"] = "auth_ok"
    principal: str
    role: str
    commands: list[str]


class AuthInvalid(_Message):
    type: Literal["auth_invalid"] = "auth_invalid"
    message: str


class Event(_Message):
    """One fact of the hall's log; sent only once it is durable."""

    type: Literal["event"] = "event"
    hall: str
    seq: int
    session: int | None
    game: int | None
    event: str
    payload: dict[str, Any]
    time: str
    actor: str
    hash: str


class ErrorBody(_Message):
    code: str
    message: str


class Result(_Message):
    id: int
    type: Literal["result"] = "result"
    success: bool
    result: dict[str, Any] | None = None
    error: ErrorBody | None = None


class Pong(_Message):
    id: int
    type: Literal["pong"] = "pong"


class Error(_Message):
    """For a frame without a usable id (not JSON, not an object, unknown type)."""

    type: Literal["error"] = "error"
    error: ErrorBody


CLIENT_MESSAGES: tuple[type[BaseModel], ...] = (Auth, Subscribe, Command, Ping)
HUB_MESSAGES: tuple[type[BaseModel], ...] = (
    AuthRequired,
    AuthOk,
    AuthInvalid,
    Event,
    Result,
    Pong,
    Error,
)

# Close codes (4000-4999 are the application's).
CLOSE_AUTH_FAILED = 4001
CLOSE_AUTH_TIMEOUT = 4002
CLOSE_TOO_SLOW = 4008  # the client fell behind: reconnect and resume from the last seq seen
