"""The casino tables on asyncio: authorised table commands in, durable events out.

Each configured table has its own TableService (its own stream of the log), its own fan-out
and its own lock: a table's commands run one at a time, in a worker thread; tables do not wait
for each other or for the bingo. The hub fills in what the rules take from outside: the
table's game, profile and limits (from the configuration) at `open_table`, who declares a
void, asks for a change of limits, sets the spinning rotation or (a croupier) spins, and at
`suspend_table` the casino's next closing time (from the configuration and the runtime's clock).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bingo_hall.config import HallConfig, TableConfig
from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Param, Term
from bingo_hall.hub.auth import (
    TABLE_HEADS,
    TABLE_ROLE,
    Principal,
    Role,
    TableDenied,
    authorise_table,
)
from bingo_hall.hub.runtime import (
    Admitted,
    CommandFailed,
    always_admitted,
    check_admitted,
    invalid_args,
    store_failure,
)
from bingo_hall.hub.service import utc_now
from bingo_hall.hub.table_service import TableService, TableSnapshot
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.store.database import STORE_FAILURES
from bingo_hall.store.eventlog import EventLog
from bingo_hall.tables import commands as c
from bingo_hall.tables.closing import ClosingTime
from bingo_hall.tables.config import find_table_profile
from bingo_hall.tables.exchanges import ExchangeKind
from bingo_hall.tables.floats import check_float
from bingo_hall.tables.heads import HeadedTable, check_layouts, heading_problem
from bingo_hall.tables.limits import (
    LimitChoice,
    boule_floor_problem,
    minimum_table_problem,
    resolve_limits,
)
from bingo_hall.tables.phases import PLAYING_PHASES, TablePhase
from bingo_hall.tables.profiles import (
    BouleRules,
    GameName,
    LimitChange,
    RouletteRules,
    SpinDirection,
    TableGame,
    VoidReason,
    table_game,
)
from bingo_hall.tables.state import TableState
from bingo_hall.transport.fanout import Fanout

# --- what a client sends: the args of each table command ------------------------------------


class _Args(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenTableArgs(_Args):
    """The table's game, profile and limits (its authorisation) come from the hall's
    configuration. From the second session on, who opens it says the seal (or key) found on
    the cylinder, and where it is not the one it was closed with, a note of what was found and
    whom it was reported to."""

    seal_found: str | None = Field(default=None, max_length=100)
    seal_note: str | None = Field(default=None, max_length=500)


class OpenBetsArgs(_Args):
    """Nothing: who announces «hagan sus apuestas», and in what role, is who sends it."""


class DeclareVoidArgs(_Args):
    """Who declares it, and in what role, is who sends it; a croupier whom the profile lets
    declare only in the head's absence says that no head is there."""

    reason: VoidReason
    no_head_present: bool = False


class ChangeLimitsArgs(_Args):
    """Who asks for it is who sends it."""

    limits: LimitChoice
    authorisation: str = ""


class TakeTableArgs(_Args):
    """Nothing: who takes the table is who sends it."""


class SetSpinRotationArgs(_Args):
    """Who sets it is who sends it."""

    croupiers: tuple[str, ...]


class SuspendTableArgs(_Args):
    """Nothing: who closes it for a while holds the float's key, and is who sends it."""


class ResumeTableArgs(_Args):
    """Who unlocks the float is who sends it; he names the croupier and the head (or
    inspector) there, the hall's active staff: the head's role comes from his login."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)
    croupier: str
    head: str


class TopUpFloatArgs(_Args):
    """Who orders it is who sends it."""

    amount: Decimal


class SetValueChipBetsArgs(_Args):
    """Who sets it is who sends it."""

    allowed: bool


class SpinArgs(_Args):
    """A croupier logged in as himself spins as himself: he leaves `spun_by` out. A table's
    station names the croupier at the wheel."""

    spun_by: str | None = None
    direction: SpinDirection | None = None


class ExchangeAtTableArgs(_Args):
    """A croupier logged in as himself makes the exchange himself: he leaves `croupier` out.
    A table's station names the croupier who makes it. The head who controls it is the
    table's (the rules find him)."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)
    kind: ExchangeKind
    amount: Decimal
    croupier: str | None = None
    player: str | None = None


TABLE_ARGS: dict[str, type[BaseModel]] = {
    **c.COMMAND_TYPES,
    "open_table": OpenTableArgs,
    "open_bets": OpenBetsArgs,
    "declare_void": DeclareVoidArgs,
    "change_limits": ChangeLimitsArgs,
    "set_spin_rotation": SetSpinRotationArgs,
    "spin": SpinArgs,
    "exchange_at_table": ExchangeAtTableArgs,
    "take_table": TakeTableArgs,
    "suspend_table": SuspendTableArgs,
    "resume_table": ResumeTableArgs,
    "top_up_float": TopUpFloatArgs,
    "set_value_chip_bets": SetValueChipBetsArgs,
}
"""The `args` of each table command, as the protocol takes them (docs/protocol.md)."""

HUB_FILLED: dict[str, dict[str, str]] = {
    "open_table": {
        "table_id": "the table is the one the command names",
        "table": "the game and profile come from the hall's configuration",
        "limits": "the limits the table's authorisation gives come from the hall's "
        "configuration (change_limits changes them where the profile allows it)",
        "head": "a table's head who opens it heads it; the director opens it without one",
        "head_role": "the role is that of who opens it",
        "float_amount": "the float comes from the hall's configuration (top_up_float adds to it)",
        "layouts": "the number of layouts comes from the hall's configuration",
        "minimum_exemption": "an authorisation exempting the game from keeping a table at "
        "its minimum comes from the hall's configuration (table_minimum_exemptions)",
    },
    "take_table": {
        "head": "who takes it is who sends it",
        "role": "the role is that of who sends it",
    },
    "open_bets": {"role": "the role is that of who sends it"},
    "declare_void": {
        "declared_by": "who declares it is who sends it",
        "role": "the role is that of who sends it",
    },
    "change_limits": {"requested_by": "who asks for it is who sends it"},
    "set_spin_rotation": {"set_by": "who sets it is who sends it"},
    "suspend_table": {
        "key_held_by": "who closes it for a while holds the key",
        "closes_at": "the casino's next closing comes from the hall's configuration "
        "(closing_time, time_zone) and the hub's clock",
    },
    "resume_table": {
        "unlocked_by": "who unlocks the float is who sends it",
        "head_role": "the head's role is that of his login",
    },
    "top_up_float": {"ordered_by": "who orders it is who sends it"},
    "set_value_chip_bets": {"set_by": "who sets it is who sends it"},
}


# --- the configured tables -----------------------------------------------------------------


@dataclass(frozen=True)
class TableSpec:
    """A configured table: its game under its profile, and its authorised limits."""

    id: str
    name: str
    game: TableGame
    limits: LimitChoice
    sector: str = ""  # the hall's sector the table stands in ("" none)
    authorised_minimum: Decimal | None = None  # its game's, by the hall's authorisation
    float_amount: Decimal | None = None  # what the cash desk hands it each session
    layouts: int = 1
    # its game's authorisation exempts it from keeping a table at the minimum: its reference
    minimum_exemption: str | None = None


def load_tables(config: HallConfig) -> list[TableSpec]:
    """The configured tables, each checked (its profile is for live tables and has the game,
    the limits resolve); a one-line RuleError naming the table otherwise."""
    directory = config.base_dir / config.table_profiles_dir
    specs = []
    lowest: dict[GameName, Decimal] = {}
    for table in config.tables:
        lowest[table.game] = min(lowest.get(table.game, table.limits.minimum), table.limits.minimum)
    authorised = lowest | config.table_minimums
    for table in config.tables:
        try:
            exemption = config.table_minimum_exemptions.get(table.game)
            specs.append(_spec(table, directory, authorised[table.game], exemption))
        except RuleError as error:
            raise RuleError(f"configuration: table {table.id}: {error.message}") from None
    refusal = boule_floor_problem(
        {s.id: s.limits.layout_minimum for s in specs if isinstance(s.game.rules, BouleRules)}
    ) or _unopenable(specs)
    if refusal is not None:  # none of them could ever open
        raise RuleError(f"configuration: {refusal.message}")
    return specs


def _unopenable(specs: list[TableSpec]) -> RuleError | None:
    """Why the tables of a roulette game could never open: none is at the authorised minimum."""
    for game in dict.fromkeys(s.game.game for s in specs):
        tables = [s for s in specs if s.game.game is game]
        if _keeps_minimum_table(tables[0]):
            minimum = tables[0].authorised_minimum
            at_minimum = {s.id: s.limits.minimum == minimum for s in tables}
            refusal = minimum_table_problem(game.value, minimum or Decimal(0), at_minimum)
            if refusal is not None:
                return refusal
    return None


def _spec(
    table: TableConfig, directory: Any, authorised: Decimal, exemption: str | None
) -> TableSpec:
    profile = find_table_profile(table.profile, directory)
    if not profile.live:
        raise RuleError(
            f"profile {profile.id} is not for a live table: its catalogue was replaced, and "
            "it is kept for comparison only (spec §0.3)"
        )
    game = table_game(profile, table.game)
    resolve_limits(game.rules, table.limits)
    check_float(game, table.limits.minimum, table.float_amount)
    check_layouts(game, table.layouts)
    if table.limits.minimum < authorised:
        raise RuleError(
            f"its minimum {table.limits.minimum} is below the {authorised} the hall's "
            f"authorisation sets for {table.game.value} (table_minimums; N79 L177)"
        )
    return TableSpec(
        table.id,
        table.name or table.id,
        game,
        table.limits,
        table.sector,
        authorised,
        table.float_amount,
        table.layouts,
        exemption,
    )


# --- the runtime -----------------------------------------------------------------------------


@dataclass
class LinkedTable:
    """One table in the hub: its rules engine, its subscribers, its lock."""

    spec: TableSpec
    service: TableService
    fanout: Fanout
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class TableRuntime:
    def __init__(
        self,
        log: EventLog,
        hall_id: str,
        specs: Iterable[TableSpec] = (),
        clock: Callable[[], datetime] = utc_now,
        closing: ClosingTime | None = None,
    ) -> None:
        """Replays every table's stream: call it in a worker thread when there are tables.
        `clock` gives each command's time; `closing` is the casino's closing time of day
        (`HallConfig.closing()`; None: not configured), whose next occurrence by that clock
        the hub fills into `suspend_table` (EUS L2931 d)."""
        self.log = log
        self.hall_id = hall_id
        self.clock = clock
        self.closing = closing
        self.tables: dict[str, LinkedTable] = {}
        self._floors = asyncio.Lock()  # opening, changing and closing tables with a floor rule
        self._heads = asyncio.Lock()  # a head opening or taking a table
        self._credentials: CredentialStore | None = None  # who the croupiers are
        for spec in specs:
            service = TableService(log, hall_id, spec.id, clock)
            self.tables[spec.id] = LinkedTable(spec, service, Fanout(log, service.stream))

    def attach(self) -> None:
        """Route each table's committed events to its fan-out, on the running loop, in order."""
        loop = asyncio.get_running_loop()
        for table in self.tables.values():
            fanout = table.fanout
            table.service.subscribe(
                lambda envelope, fanout=fanout: loop.call_soon_threadsafe(fanout.publish, envelope)
            )

    def _next_closing(self) -> datetime | None:
        """The casino's next closing after now, in the hall's local time; None: not
        configured."""
        return None if self.closing is None else self.closing.next_after(self.clock())

    def table(self, table_id: str) -> LinkedTable:
        table = self.tables.get(table_id)
        if table is None:
            if not self.tables:
                raise CommandFailed.of("unknown_table", "table_unknown_none", table=repr(table_id))
            raise CommandFailed.of(
                "unknown_table", "table_unknown", table=repr(table_id), tables=list(self.tables)
            )
        return table

    async def execute(
        self,
        principal: Principal,
        table_id: str,
        name: str,
        args: dict[str, Any],
        admitted: Admitted = always_admitted,
    ) -> dict:
        """Run one table command for a principal; its events are durable when this returns.
        A store that fails under it answers `store_failed`; a sender no longer `admitted` when
        the command's turn comes, `connection_closing`."""
        try:
            return await self._execute(principal, table_id, name, args, admitted)
        except STORE_FAILURES as error:
            raise CommandFailed("store_failed", store_failure(error)) from None

    async def _execute(
        self,
        principal: Principal,
        table_id: str,
        name: str,
        args: dict[str, Any],
        admitted: Admitted,
    ) -> dict:
        table = self.table(table_id)
        if name not in c.COMMAND_TYPES:
            raise CommandFailed.of(
                "unknown_command",
                "table_unknown_command",
                command=repr(name),
                commands=[Term("command", known) for known in c.COMMAND_TYPES],
            )
        try:
            authorise_table(principal, table_id, name)
        except TableDenied as denied:
            raise CommandFailed.of("forbidden", denied.refusal, **denied.params) from None
        command = _build(table.spec, principal, name, args, self._next_closing)
        if isinstance(command, c.ResumeTable):
            role = await asyncio.to_thread(self._check_resumers, command)
            command = command.model_copy(update={"head_role": role})
        if isinstance(command, c.SetSpinRotation):
            await asyncio.to_thread(
                self._check_croupiers, command.croupiers, "set_spin_rotation", "croupiers"
            )
        if isinstance(command, c.ExchangeAtTable) and principal.kind != "staff":
            await asyncio.to_thread(
                self._check_croupiers, (command.croupier,), "exchange_at_table", "croupier"
            )
        head = _taking_head(principal, command)
        if head is not None:
            async with self._heads:  # no other table changes heads meanwhile
                if principal.role is Role.SUBJEFE_DE_MESA:
                    self._check_deputising(table, head)
                else:
                    self._check_heading(table, head, command)
                envelopes = await self._dispatch(table, command, principal, admitted)
        else:
            envelopes = await self._dispatch(table, command, principal, admitted)
        return {"table": table_id, "events": [{"seq": e.seq, "type": e.type} for e in envelopes]}

    async def _dispatch(
        self,
        table: LinkedTable,
        command: c.TableCommand,
        principal: Principal,
        admitted: Admitted,
    ):
        if isinstance(command, LAYOUT_COMMANDS) and _has_floor(table):
            async with self._floors:  # no other table of the rule opens or closes meanwhile
                self._keep_floors(table, command)
                return await self._run(table, command, principal, admitted)
        return await self._run(table, command, principal, admitted)

    async def _run(
        self,
        table: LinkedTable,
        command: c.TableCommand,
        principal: Principal,
        admitted: Admitted = always_admitted,
    ):
        table_id = table.spec.id
        async with table.lock:
            check_admitted(admitted)
            if principal.role in DIRECTING and not isinstance(
                command, HEAD_TAKING
            ):  # checked under the lock: a relief may have come first
                self._check_heads(table, principal)
            try:
                return await asyncio.to_thread(table.service.execute, command, principal.id)
            except RuleError as error:  # a PhaseError too: its code is wrong_phase
                raise _at_table(table_id, error) from None

    def _check_heads(self, table: LinkedTable, principal: Principal) -> None:
        """A table's head (or deputy head) gives its commands at an open table only if he heads
        it (is its deputy): he directs it (N79 L125), and the table records who does
        (`take_table`)."""
        state = table.service.snapshot.state
        head = principal.id
        if state.phase is TablePhase.SUSPENDED:
            raise CommandFailed.of(
                "forbidden",
                "table_closed_for_a_while",
                table=table.spec.id,
                key=state.key_held_by or "",
            )
        if state.phase is TablePhase.CLOSED:
            return
        if principal.role is Role.SUBJEFE_DE_MESA:
            if state.deputy != head:
                raise _not_directing(table.spec.id, head, state.deputy, DEPUTY_REFUSALS)
            return
        if state.head != head:
            raise _not_directing(table.spec.id, head, state.head, HEAD_REFUSALS)

    def _check_heading(self, table: LinkedTable, head: str, command: c.TableCommand) -> None:
        """Refuse a table whose heading would break its profile's rule on how many tables one
        head directs (`tables/heads.py`); a command its phase refuses is left to the rules."""
        if table.service.snapshot.state.phase not in command.legal_in:
            return
        headed = [
            _headed(other)
            for other in self.tables.values()
            if other is not table
            and other.service.snapshot.state.phase is not TablePhase.CLOSED
            and other.service.snapshot.state.head == head
        ]
        refusal = heading_problem(head, headed, _headed(table))
        if refusal is not None:
            raise _at_table(table.spec.id, refusal)

    def _check_deputising(self, table: LinkedTable, deputy: str) -> None:
        """A deputy head stands at one table (N79 L119: «un jefe de mesa y un subjefe de
        mesa» for each)."""
        elsewhere = [
            other.spec.id
            for other in self.tables.values()
            if other is not table
            and other.service.snapshot.state.phase is not TablePhase.CLOSED
            and other.service.snapshot.state.deputy == deputy
        ]
        if elsewhere:
            raise CommandFailed.of(
                "rule_error",
                "table_deputy_elsewhere",
                table=table.spec.id,
                deputy=deputy,
                other=elsewhere[0],
            )

    def _active_staff(self) -> dict[str, Role]:
        """The hall's active staff, by login, with their roles."""
        if self._credentials is None:
            self._credentials = CredentialStore(self.log.engine)
        return {user.username: user.role for user in self._credentials.users() if user.active}

    def _check_croupiers(self, named: tuple[str, ...], command: str, field: str) -> None:
        """A rotation, or a station's exchange, names the hall's active croupiers only: a
        station could not name anyone else, and a typing slip would otherwise stop the table
        at its first spin, or put an exchange on no one."""
        _require_croupiers(self._active_staff(), named, command, field)

    def _check_resumers(self, command: c.ResumeTable) -> c.Role:
        """A table plays again only with a croupier and its head or inspector there (EUS
        L306): both are the hall's active staff; the head's role (at the table) is his
        login's."""
        staff = self._active_staff()
        _require_croupiers(staff, (command.croupier,), "resume_table", "croupier")
        role = staff.get(command.head)
        if role not in TABLE_HEADS:
            raise CommandFailed.of("invalid_args", "table_resume_head_not_staff", head=command.head)
        return TABLE_ROLE[role]

    def _keep_floors(self, table: LinkedTable, command: c.TableCommand) -> None:
        """Refuse a command its phase allows that would break a rule spanning the tables: the
        boule floor, or a roulette game's table at the authorised minimum."""
        if table.service.snapshot.state.phase not in command.legal_in:
            return  # left to the rules
        if isinstance(table.spec.game.rules, BouleRules):
            self._keep_boule_floor(table, command)
        else:
            self._keep_minimum_table(table, command)

    def _keep_minimum_table(self, table: LinkedTable, command: c.TableCommand) -> None:
        """N79 L216, EUS L308: while tables of a roulette game play, one of them plays at the
        minimum the hall's authorisation sets for it (a change counts from its request)."""
        spec = table.spec
        if isinstance(command, c.ChangeLimits) and spec.game.rules.limit_change is (
            LimitChange.FORBIDDEN
        ):
            return  # the rules refuse any change, and say why
        minimum = spec.authorised_minimum
        assert minimum is not None, "a configured table has its game's authorised minimum"
        at_minimum = {
            other.spec.id: _at_minimum(other.service.snapshot.state, minimum)
            for other in self.tables.values()
            if other is not table
            and other.spec.game.game is spec.game.game
            and other.service.snapshot.state.phase in PLAYING_PHASES
        }
        state = table.service.snapshot.state
        if isinstance(command, c.OpenTable):
            at_minimum[spec.id] = command.limits.minimum == minimum
        elif isinstance(command, c.ChangeLimits):
            at_minimum[spec.id] = _at_minimum(state, minimum) and command.limits.minimum == minimum
        elif isinstance(command, c.ResumeTable):
            at_minimum[spec.id] = _at_minimum(state, minimum)
        refusal = minimum_table_problem(spec.game.game.value, minimum, at_minimum)
        if refusal is not None:
            raise _at_table(spec.id, refusal)

    def _keep_boule_floor(self, table: LinkedTable, command: c.TableCommand) -> None:
        """Refuse a command that would leave boule layouts at twice the authorised minimum with
        none open at it (`boule_floor_problem`). The rule spans the establishment's tables, so
        the hub checks it, not one table's rules."""
        state = table.service.snapshot.state
        others = (t.service.snapshot.state for t in self.tables.values() if t is not table)
        layouts = {
            other.table_id: _layout_multiple(other)
            for other in others
            if other.phase in PLAYING_PHASES
            and other.table is not None
            and isinstance(other.table.rules, BouleRules)
        }
        if isinstance(command, c.OpenTable):
            layouts[table.spec.id] = command.limits.layout_minimum
        elif isinstance(command, c.ChangeLimits):  # doubled from the request until it applies
            layouts[table.spec.id] = max(_layout_multiple(state), command.limits.layout_minimum)
        elif isinstance(command, c.ResumeTable):
            layouts[table.spec.id] = _layout_multiple(state)
        refusal = boule_floor_problem(layouts)
        if refusal is not None:
            raise _at_table(table.spec.id, refusal)

    async def snapshot(self, table_id: str) -> TableSnapshot:
        """The table's state and seq, consistent with each other (no command half applied)."""
        table = self.table(table_id)
        async with table.lock:
            return table.service.snapshot


LAYOUT_COMMANDS = (c.OpenTable, c.ChangeLimits, c.CloseTable, c.SuspendTable, c.ResumeTable)
"""What opens, changes or stops a table's play: the rules spanning the tables check them."""


def _has_floor(table: LinkedTable) -> bool:
    """Whether a table opens, changes and closes under a rule spanning the tables."""
    return isinstance(table.spec.game.rules, BouleRules) or _keeps_minimum_table(table.spec)


def _keeps_minimum_table(spec: TableSpec) -> bool:
    """Whether one table of this table's game must play at the authorised minimum: where the
    profile says so (N79 L216, AST L270, EUS L308), unless the game's authorisation «dispusiera
    otra cosa» (`table_minimum_exemptions`)."""
    rules = spec.game.rules
    return (
        isinstance(rules, RouletteRules)
        and rules.one_table_at_minimum
        and spec.minimum_exemption is None
    )


def _at_minimum(state: TableState, minimum: Decimal) -> bool:
    """An open table plays at the authorised minimum, and no change it asked for leaves it."""
    assert state.choice is not None, "an open table has its limits"
    pending = state.pending_limits
    return state.choice.minimum == minimum and (
        pending is None or pending.choice.minimum == minimum
    )


def _require_croupiers(
    staff: dict[str, Role], named: tuple[str, ...], command: str, field: str
) -> None:
    croupiers = sorted(name for name, role in staff.items() if role is Role.CROUPIER)
    unknown = [name for name in named if name.strip() not in croupiers]
    if not unknown:
        return
    params: dict[str, Param] = {
        "command": Term("command", command),
        "field": field,
        "unknown": unknown,
    }
    if not croupiers:
        raise CommandFailed.of("invalid_args", "table_no_active_croupiers", **params)
    raise CommandFailed.of(
        "invalid_args", "table_not_active_croupiers", **params, croupiers=croupiers
    )


def _at_table(table_id: str, error: RuleError) -> CommandFailed:
    """A refusal of the rules at a table: its message names the table; its reason and
    parameters, which the pages say, are the rules'."""
    return CommandFailed(
        error.code, f"table {table_id}: {error.message}", reason=error.reason, params=error.params
    )


HEAD_REFUSALS = ("table_not_its_head", "table_not_its_head_none")
DEPUTY_REFUSALS = ("table_not_its_deputy", "table_not_its_deputy_none")
"""A head (deputy head) at a table he does not direct: another does, or none does."""


def _not_directing(
    table_id: str, who: str, directing: str | None, refusals: tuple[str, str]
) -> CommandFailed:
    named, none = refusals
    if directing is None:
        return CommandFailed.of("forbidden", none, table=table_id, head=who)
    return CommandFailed.of("forbidden", named, table=table_id, head=who, current=directing)


HEAD_TAKING = (c.OpenTable, c.TakeTable)
DIRECTING = TABLE_HEADS | {Role.SUBJEFE_DE_MESA}
"""Who acts only at the tables he directs: the heads, and the deputy heads."""


def _taking_head(principal: Principal, command: c.TableCommand) -> str | None:
    """Who comes to head (or deputise at) the table with this command, if anyone: a head
    opening or taking it, a deputy head taking his place, or the head named when play
    resumes."""
    if isinstance(command, c.ResumeTable):
        return command.head
    if principal.role in DIRECTING and isinstance(command, HEAD_TAKING):
        return principal.id
    return None


def _headed(table: LinkedTable) -> HeadedTable:
    spec = table.spec
    game = spec.game
    return HeadedTable(spec.id, spec.sector, game.rules.tables_per_head, game.game, game.profile_id)


def _layout_multiple(state: TableState) -> int:
    """The multiple of the authorised minimum an open boule layout plays at: the higher of its
    limits and any change it waits to apply."""
    assert state.choice is not None, "an open table has its limits"
    pending = state.pending_limits
    return max(state.choice.layout_minimum, pending.choice.layout_minimum if pending else 1)


def _build(
    spec: TableSpec,
    principal: Principal,
    name: str,
    args: dict[str, Any],
    next_closing: Callable[[], datetime | None] = lambda: None,
) -> c.TableCommand:
    """The rules engine's command from a client's args and what the hub fills in
    (`next_closing`: the casino's next closing time, asked only at `suspend_table`)."""
    for key, why in HUB_FILLED.get(name, {}).items():
        if key in args:
            raise CommandFailed.of(
                "invalid_args",
                "filled_by_hub",
                command=Term("command", name),
                field=key,
                why=why,
            )
    where = _float_in(args, "")
    if where is not None:
        raise CommandFailed.of(
            "invalid_args", "table_money_as_float", command=Term("command", name), field=where
        )
    given = _validate(name, TABLE_ARGS[name], args)
    fields = given.model_dump()
    if name == "open_table":
        head = principal.id if principal.role in TABLE_HEADS else None
        fields |= {
            "table_id": spec.id,
            "table": spec.game,
            "limits": spec.limits,
            "head": head,
            "head_role": TABLE_ROLE[principal.role],
            "float_amount": spec.float_amount,
            "layouts": spec.layouts,
            "minimum_exemption": spec.minimum_exemption,
        }
    elif name == "take_table":
        fields |= {"head": principal.id, "role": TABLE_ROLE[principal.role]}
    elif name == "open_bets":
        fields |= {"role": TABLE_ROLE[principal.role]}
    elif name == "declare_void":
        fields |= {"declared_by": principal.id, "role": TABLE_ROLE[principal.role]}
    elif name == "change_limits":
        fields |= {"requested_by": principal.id}
    elif name == "set_spin_rotation":
        fields |= {"set_by": principal.id}
    elif name == "suspend_table":
        fields |= {"key_held_by": principal.id, "closes_at": next_closing()}
    elif name == "resume_table":
        fields |= {"unlocked_by": principal.id}
    elif name == "top_up_float":
        fields |= {"ordered_by": principal.id}
    elif name == "set_value_chip_bets":
        fields |= {"set_by": principal.id}
    elif name in ACTING:
        field = ACTING[name][0]
        fields |= {field: _acting_croupier(principal, name, fields[field])}
    else:
        return given  # type: ignore[return-value]  # the args are the command itself
    return _validate(name, c.COMMAND_TYPES[name], fields)  # type: ignore[return-value]


ACTING = {
    "spin": ("spun_by", "table_spins_as_himself", "table_station_names_spinner"),
    "exchange_at_table": (
        "croupier",
        "table_exchanges_as_himself",
        "table_station_names_exchanger",
    ),
}
"""The commands a croupier acts by: the argument naming him, and the refusals of a croupier
naming another, and of a station naming none."""


def _acting_croupier(principal: Principal, name: str, named: str | None) -> str:
    """Who acts (spins, makes an exchange): a croupier himself; the croupier a table's station
    names."""
    field, as_himself, unnamed = ACTING[name]
    command = Term("command", name)
    if principal.kind == "staff":
        if named is not None and named != principal.id:
            raise CommandFailed.of(
                "invalid_args",
                as_himself,
                command=command,
                field=field,
                who=principal.id,
                named=named,
            )
        return principal.id
    if not named:
        raise CommandFailed.of("invalid_args", unnamed, command=command, field=field)
    return named


def _float_in(value: object, where: str) -> str | None:
    """Where a JSON number with a fraction (a float) is in the args, or None: no table
    argument is a float, and money is never one."""
    if isinstance(value, float):
        return where or "args"
    if isinstance(value, dict):
        items: list[tuple[Any, Any]] = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return None
    for key, item in items:
        found = _float_in(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _validate(name: str, model: type[BaseModel], data: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise invalid_args(name, error) from None
