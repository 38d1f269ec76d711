"""The websocket protocol's messages. docs/protocol.md shows their JSON Schemas.

Client to hub: `auth` (first frame), then `subscribe`, `command`, `tables` and `ping`, each
with an `id` the answer repeats. Hub to client: `auth_required`, `auth_ok` / `auth_invalid`,
`event`, `result` and `pong`; `error` for a frame the hub could not read at all. A command or
subscription may name a casino table (`table`, `stream: "table:<id>"`); `tables` answers with
each table's `TableStateMessage`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter

from bingo_hall.hub.streams import TABLE_ID_PATTERN
from bingo_hall.tables.bets import Bet
from bingo_hall.tables.colours import ColourChips
from bingo_hall.tables.limits import ResolvedLimits
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.profiles import GameName, SpinDirection, ZeroChoice
from bingo_hall.tables.settlement import Settlement
from bingo_hall.tables.spinning import direction_due

if TYPE_CHECKING:
    from bingo_hall.hub.table_service import TableSnapshot
    from bingo_hall.tables.profiles import TableGame

MAX_FRAME_BYTES = 64 * 1024
STREAM_PATTERN = r"^(hall|table:[A-Za-z0-9][A-Za-z0-9_-]{0,31})$"


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
    """Every event of a stream with seq > after_seq, in order, then each new one as it is
    committed.

    stream "hall" (the default) is the hall's bingo; "table:R1" is casino table R1's own stream
    (its own seqs). A connection may subscribe to several streams, each once.
    channel "panel" (monitors) receives each ball `display_delay` after it was announced;
    "caller" (the sound channel, the control screen) receives it at once.
    """

    id: int = Field(ge=0)
    type: Literal["subscribe"]
    after_seq: int = Field(default=0, ge=0, le=2**63 - 1)
    # the `time` of the event at after_seq as the client got it: a log restored from an older
    # copy that has gone on past after_seq holds another event there (`not_in_log`)
    after_time: AwareDatetime | None = None
    channel: Literal["caller", "panel"] = "caller"
    stream: str = Field(default="hall", pattern=STREAM_PATTERN)


class Command(_Message):
    """A command of the rules engine, by name, with its arguments; with `table`, a command of
    that casino table (see "Table commands")."""

    id: int = Field(ge=0)
    type: Literal["command"]
    command: str = Field(max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)
    table: str | None = Field(default=None, pattern=TABLE_ID_PATTERN)


class Tables(_Message):
    """The hall's casino tables: the answer's `result.tables` is a list of `TableStateMessage`,
    each with the seq of its stream to subscribe after."""

    id: int = Field(ge=0)
    type: Literal["tables"]


class Ping(_Message):
    id: int = Field(ge=0)
    type: Literal["ping"]


# Told apart by `type`, so that a bad frame is answered about the message it meant to be.
ClientMessage = TypeAdapter(
    Annotated[Subscribe | Command | Tables | Ping, Field(discriminator="type")]
)

# --- hub to client -------------------------------------------------------------------------


class AuthRequired(_Message):
    type: Literal["auth_required"] = "auth_required"
    hall: str


class AuthOk(_Message):
    type: Literal["auth_ok"] = "auth_ok"
    principal: str
    role: str
    commands: list[str]
    table_commands: list[str] | None = Field(
        default=None, description="the table commands the role may give (absent: none)"
    )
    table: str | None = Field(default=None, description="a table device: its own table")
    acta: bool = Field(
        default=False,
        description="whether the role reads the acta (`/api/acta`), the players' requests and "
        "complaints, and each event's hash",
    )
    table_record: bool = Field(
        default=False,
        description="whether the role reads the casino tables' records (`/api/table-record`)",
    )


class AuthInvalid(_Message):
    type: Literal["auth_invalid"] = "auth_invalid"
    code: Literal["unauthorized", "locked", "busy", "bad_frame"] = Field(
        default="unauthorized",
        description="why, for the pages to say in their language (`error.<code>`): an unknown "
        "credential, an address locked after failed logins, the hub too busy checking logins, "
        "a first frame that is no `auth`",
    )
    message: str


class Event(_Message):
    """One fact of the hall's log; sent only once it is durable. An event of a table's stream
    carries `table`; its `seq` is the table's, `session` the table's session, `game` the coup.
    Monitors and terminals get some payloads with fewer fields: a camera hold's, a sale's, and a
    casino table's public view (see "Casino tables"); never fewer events. They, and the staff
    who do not keep the acta (who get a player's request without its text), get no `hash`
    (null) on any event: each hash covers its payload and the hash before it, so the hash of a
    payload seen whole would let them test guesses at what was left out of the one before (the
    player who bought, the ball held, what a player asked)."""

    type: Literal["event"] = "event"
    hall: str
    table: str | None = None
    seq: int
    session: int | None
    game: int | None
    event: str
    payload: dict[str, Any]
    time: str
    actor: str
    hash: str | None


class ErrorBody(_Message):
    code: str
    message: str = Field(description="What is wrong, in English.")
    reason: str | None = Field(
        default=None,
        description="A refusal of the catalogue (bingo_hall/domain/refusals.py): the pages "
        "say `refusal.<reason>` of their translation files, with `params`.",
    )
    params: dict[str, Any] | None = Field(
        default=None,
        description="The refusal's parameters: a number, a text, a term the pages translate "
        '(`{"key": "phase.selling", "text": "selling"}`), or a list of these.',
    )


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


class Showings(_Message):
    """The balls shown so far of the set being commissioned under a real camera, pushed to
    every other connection that may read them (`ball_showings`) when a ball is shown or the
    showings are discarded: what the `ball_showings` command answers (null: none kept)."""

    type: Literal["showings"] = "showings"
    showings: dict[str, Any] | None


class TableStateMessage(_Message):
    """A casino table after the events of its stream up to `seq`: in the `tables` answer, and
    retained on MQTT `{prefix}/{hall}/tables/{table}/state`. Money is a decimal string.
    Staff, and the table's own device, get it whole; its public view, for monitors and
    terminals and on MQTT, has no `bets`, `spin_rotation` or `colour_chips` (empty lists), no
    `zero_choices` (empty), and no `settlement` and no `next_spinner` (null)."""

    hall: str
    table: str
    name: str
    seq: int = Field(description="last event of the table's stream it includes (0: none)")
    game: GameName
    profile: str
    currency: str
    phase: TablePhase
    session: int | None = Field(description="the table's open session; null while closed")
    coup: int = Field(description="the current or last coup of the session; voids keep it")
    last_coup: bool = Field(description="the current coup is the last of the session")
    last_coups_left: int | None = Field(description="announced last coups still to play")
    outcome: str | None = Field(description="this coup's outcome, once recorded")
    previous_outcome: str | None = Field(description="the last paid coup's outcome")
    recent_outcomes: list[str] = Field(description="the session's last 20 outcomes, oldest first")
    limits: ResolvedLimits | None = Field(description="the limits in force; null while closed")
    head: str | None = Field(description="who directs the table now (null: no head has taken it)")
    spinning: bool = Field(description="the coup is spun and not yet at rest nor void")
    direction_due: SpinDirection | None = Field(
        description="the way the next spin turns the cylinder (null: either way, or none ruled)"
    )
    spin_rotation: list[str] = Field(
        description="the croupiers who spin, in the director's order (public view: empty)"
    )
    next_spinner: str | None = Field(
        description="who spins now: whose turn it is, or a void coup's croupier again "
        "(public view: null)"
    )
    bets: list[Bet] = Field(
        description="on the layout, in placement order; prisoners stay (public view: empty)"
    )
    settlement: Settlement | None = Field(
        description="from settle until the coup is paid (public view: null)"
    )
    zero_choices: dict[str, ZeroChoice] = Field(
        description="French roulette, on a zero: the choice declared for each even-chance bet "
        "so far, by bet id (public view: empty)"
    )
    colour_chips: list[ColourChips] = Field(
        description="American roulette: the colours players hold, the value each marker shows, "
        "the stacks issued and changed back (public view: empty)"
    )


def table_state_message(
    hall_id: str,
    table_id: str,
    name: str,
    configured: TableGame,
    snapshot: TableSnapshot,
    *,
    public: bool = False,
) -> TableStateMessage:
    """The state message of a table; game and profile are the open session's, or the
    configured ones while the table is closed. `public`: the public view, without the bets, the
    settlement, the croupiers and the colour chips."""
    state = snapshot.state
    game = state.table or configured
    is_open = state.phase is not TablePhase.CLOSED
    return TableStateMessage(
        hall=hall_id,
        table=table_id,
        name=name,
        seq=snapshot.seq,
        game=game.game,
        profile=game.profile_id,
        currency=game.currency,
        phase=state.phase,
        session=state.session_id if is_open else None,
        coup=state.coup,
        last_coup=state.last_coup,
        last_coups_left=state.last_coups_left,
        outcome=state.outcome,
        previous_outcome=state.previous_outcome,
        recent_outcomes=list(snapshot.recent),
        limits=state.limits,
        head=state.head if is_open else None,
        spinning=state.spinning,
        direction_due=direction_due(state.table, state) if state.table else None,
        spin_rotation=[] if public else list(state.rotation),
        next_spinner=None if public else state.next_spinner,
        bets=[] if public else list(state.bets.values()),
        settlement=None if public else state.settlement,
        zero_choices={} if public else dict(state.zero_choices),
        colour_chips=[] if public else list(state.colours.values()),
    )


CLIENT_MESSAGES: tuple[type[BaseModel], ...] = (Auth, Subscribe, Command, Tables, Ping)
HUB_MESSAGES: tuple[type[BaseModel], ...] = (
    AuthRequired,
    AuthOk,
    AuthInvalid,
    Event,
    Result,
    Pong,
    Error,
    Showings,
)

# Close codes (4000-4999 are the application's).
# Every `error.code` the hub may answer with (the screens translate each one).
ERROR_CODES = frozenset(
    {
        "unauthorized",
        "forbidden",
        "wrong_phase",
        "rule_error",
        "invalid_card",
        "invalid_args",
        "unknown_command",
        "unknown_card",
        "unknown_table",
        "duplicate_cards",
        "already_subscribed",
        "not_in_log",
        "bad_frame",
        "bad_json",
        "not_found",
        "not_prepared",
        "altered_log",
        "busy",
        "failed",
        "store_failed",
        "connection_closing",
        "locked",
        "not_complete",
    }
)

CLOSE_AUTH_FAILED = 4001
CLOSE_AUTH_TIMEOUT = 4002
CLOSE_CREDENTIAL_WITHDRAWN = 4003  # its device revoked, its user disabled or password changed
# A terminal's token logged in on another connection: one screen per terminal, so a copied
# token shows (the page stops reconnecting and says so)
CLOSE_REPLACED = 4009
# A credential already holds as many connections as the hub allows it: try again later
CLOSE_TOO_MANY = 4010
CLOSE_TOO_SLOW = 4008  # the client fell behind: reconnect and resume from the last seq seen
CLOSE_STREAM_FAILED = 1011  # the hub could not go on serving a subscription: reconnect, resume
