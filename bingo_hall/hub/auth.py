"""Who may give which command: staff roles, device kinds and their permissions.

Pure: no I/O, no clock. The hub authenticates a connection (``bingo_hall.store.credentials``)
and gets a :class:`Principal`; before a command reaches the rules engine it calls
:func:`authorise` (that a terminal claims only with cards it bought is the hub's check,
``HubRuntime._check_owner``, against the game's sales).

The role names are those of the 1979 catalogue's staff list (spec bingo.md §3.1, [S79] L1198);
the reasons for each permission are in docs/roles.md. Admisión y Control gives no command of
the game, so it has no role here yet (the player register is not part of the hub).

The casino tables linked to the hub have their own commands (`bingo_hall.tables.commands`),
given by the staff of the tables (spec wheels.md §2.11) and by a table's own device, which acts
on its own table only: :data:`TABLE_PERMISSIONS`, :func:`authorise_table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from bingo_hall.domain.commands import COMMAND_TYPES, DiscardBallShowings, ShowBallToCamera
from bingo_hall.domain.refusals import Param, Term, english
from bingo_hall.tables.commands import COMMAND_TYPES as TABLE_COMMAND_TYPES
from bingo_hall.tables.profiles import Role as TableRole


class Role(StrEnum):
    # staff (spec §3.1)
    JEFE_DE_SALA = "jefe_de_sala"
    JEFE_DE_MESA = "jefe_de_mesa"
    CAJERO = "cajero"
    VENDEDOR_LOCUTOR = "vendedor_locutor"
    AUXILIAR_DE_SALA = "auxiliar_de_sala"
    # the regulator's inspector («Inspección del Juego»): reads the acta, the registers and the
    # log as the acta's keepers do, and gives no command
    INSPECTOR = "inspector"
    # staff of the casino tables (spec wheels.md §2.11)
    JEFE_DE_MESA_DE_JUEGO = "jefe_de_mesa_de_juego"  # a table's head («jefe de mesa»)
    # a casino's table inspector («ikuskatzailea», EUS L216-224): directs tables as a head
    # where the profile lets him (`headed_by`); not the regulator's `inspector`
    INSPECTOR_DE_MESA = "inspector_de_mesa"
    # a two-layout table's deputy head («subjefe de mesa», N79 L119): directs it beside its
    # head, and handles no chips
    SUBJEFE_DE_MESA = "subjefe_de_mesa"
    CROUPIER = "croupier"
    # a table-end («extremo de mesa», «mahai-ertzekoa», N79 L117-131, EUS L218-228): places
    # the stakes of the players in his zone at their request, and watches over them
    EXTREMO_DE_MESA = "extremo_de_mesa"
    # devices
    MONITOR = "monitor"  # a hall monitor / display panel: reads the event stream, gives nothing
    TERMINAL = "terminal"  # an auxiliary terminal («máquina auxiliar», spec §8 item 5)
    TABLE = "table"  # a casino table's own device (the croupier's station), bound to one table


STAFF_ROLES: frozenset[Role] = frozenset(
    {
        Role.JEFE_DE_SALA,
        Role.JEFE_DE_MESA,
        Role.CAJERO,
        Role.VENDEDOR_LOCUTOR,
        Role.AUXILIAR_DE_SALA,
        Role.INSPECTOR,
        Role.JEFE_DE_MESA_DE_JUEGO,
        Role.INSPECTOR_DE_MESA,
        Role.SUBJEFE_DE_MESA,
        Role.CROUPIER,
        Role.EXTREMO_DE_MESA,
    }
)
DEVICE_ROLES: frozenset[Role] = frozenset({Role.MONITOR, Role.TERMINAL, Role.TABLE})

BUY_CARDS = "buy_cards"
"""A terminal buys cards for its player. A hub command (not a rules-engine one): the hub turns
it into a ``record_sale`` of the cards it assigns to the terminal."""

MY_CARDS = "my_cards"
"""A terminal reads its cards in the current game (series, number, grid, player): read only."""

SHOW_BALL_TO_CAMERA = ShowBallToCamera.name
"""A ball of a set being commissioned put at the exit: the hub reads it, the log keeps it."""

BALL_SHOWINGS = "ball_showings"
"""The balls shown so far of the set being commissioned: read only (a hub command)."""

DISCARD_BALL_SHOWINGS = DiscardBallShowings.name
"""The showings so far set aside, unjudged: the staff start the set's showing again."""

SHOWING_COMMANDS: frozenset[str] = frozenset(
    {SHOW_BALL_TO_CAMERA, BALL_SHOWINGS, DISCARD_BALL_SHOWINGS}
)

HUB_COMMANDS: frozenset[str] = frozenset({BUY_CARDS, MY_CARDS, BALL_SHOWINGS})
"""Commands the hub handles itself, besides the rules engine's ``COMMAND_TYPES``."""

KNOWN_COMMANDS: frozenset[str] = frozenset(COMMAND_TYPES) | HUB_COMMANDS

CAMERA_ONLY_COMMANDS: frozenset[str] = frozenset({"hold_ball"})
"""Rules-engine commands given by the hub's camera check alone, never by a person: a ball is
held because the camera disagrees, not because someone asks."""

# The game procedure run from the control table (spec §3.1 Jefe de Mesa; §5.1, §5.2).
_JEFE_DE_MESA = frozenset(
    {
        "record_equipment_check",  # §5.1 EQUIPMENT_CHECK; 1977: checks balls and cards
        "load_balls",  # §5.1 BALL_LOADING; 1977: «responsable de la comprobación de las bolas»
        "commission_ball_set",  # §4: the set shown to the CCTV camera; JM checks the balls
        *SHOWING_COMMANDS,  # the same, ball by ball under a real camera
        "announce_last_game",  # §5.1 note: «el Jefe de mesa … lo advertirá» [S77] L2498-2500
        "announce_series",  # G0 (S79 L1202)
        "start_sale",  # G0 → G1
        "close_sale",  # §3.1: «Close sale»; G1 → G2
        "announce_prizes",  # G3, S79 L1204-1208
        "start_draw",  # G3: announces «el comienzo de la partida»
        "verify_claims",  # G5/G6: «checks called cards» L1214
        "give_order",  # G7: the order to resume or finish, L1218
        "resolve_hold",  # §4: the CCTV camera disagrees with the call; the table decides
        "void_game",  # §7: initiated by the Jefe de Mesa (confirmed by the Jefe de Sala)
        # [S77] L2427-2432: «contestará las peticiones de información o reclamaciones y
        # consignará todo ello en el acta»
        "record_player_request",
        "answer_player_request",
    }
)

# Control and surveillance of the whole hall (spec §3.1 Jefe de Sala, [S77] L2423-2425), plus
# everything the Jefe de Mesa does: he supervises the control table and may take it over.
_JEFE_DE_SALA = _JEFE_DE_MESA | frozenset(
    {
        "open_session",  # §5.1: open_session (Jefe de Sala)
        "close_session",  # §3.1: «Open and close sessions»
        "register_ball_set",  # §4 E5/E6: homologated sets, the ball-set registry
        "change_ball_set",  # §3.1: «authorise ball-set changes»; E6 acta entry
        "register_series",  # the hall's card stock: a series enters the hall's records
    }
)

ACTA_ROLES = frozenset({Role.JEFE_DE_SALA, Role.JEFE_DE_MESA, Role.INSPECTOR})
"""Who reads the acta and what only it records (players' requests and complaints), and gets
each event's hash to check its chain: the staff who keep it («consignará todo ello en el
acta», [S77] L2427-2432) and the regulator's inspector."""
TABLE_RECORD_ROLES = frozenset(
    {Role.JEFE_DE_SALA, Role.INSPECTOR, Role.JEFE_DE_MESA_DE_JUEGO, Role.INSPECTOR_DE_MESA}
)
"""Who reads a casino table's record (`/api/table-record`): the director, the inspector, and
the tables' heads and inspectors, who direct the tables and control their exchanges."""

PERMISSIONS: dict[Role, frozenset[str]] = {
    Role.JEFE_DE_SALA: _JEFE_DE_SALA,
    Role.JEFE_DE_MESA: _JEFE_DE_MESA,
    # 1977: «pagará los premios» [S77] L2435-2437; §3.1 «prize payment». Sales are the sellers'.
    # The cash that pays prizes refunds a voided game's cards (S79 L1222, S77 L2518-2524).
    Role.CAJERO: frozenset({"pay_prize", "pay_refund"}),
    # S79 L1202 sells; L1214 interrupts the game at a call; L1222 announces the numbers.
    Role.VENDEDOR_LOCUTOR: frozenset({"record_sale", "draw_ball", "call_claim"}),
    # §3.1 [INF]: «May be allowed to register claims»: relays a call from the floor.
    Role.AUXILIAR_DE_SALA: frozenset({"call_claim"}),
    # [INF] the inspector watches and reads; the hall's staff run the game
    Role.INSPECTOR: frozenset(),
    Role.MONITOR: frozenset(),
    # §8 item 5: a participation support «instead of the card»: buys cards and calls claims.
    Role.TERMINAL: frozenset({"call_claim", BUY_CARDS, MY_CARDS}),
    # The tables' staff and devices give no bingo command.
    Role.JEFE_DE_MESA_DE_JUEGO: frozenset(),
    Role.INSPECTOR_DE_MESA: frozenset(),
    Role.SUBJEFE_DE_MESA: frozenset(),
    Role.CROUPIER: frozenset(),
    Role.EXTREMO_DE_MESA: frozenset(),
    Role.TABLE: frozenset(),
}

TABLE_COMMANDS: frozenset[str] = frozenset(TABLE_COMMAND_TYPES)

# The coup, run by the croupiers (spec wheels.md §2.8, §2.11: they spin, call «no va más» and
# the number, collect and pay, «podrán colocar las posturas», N79 L127); EUS: the croupier
# announces the last three balls (L2923) and declares a void when there is no head (L320).
_CROUPIER = frozenset(
    {
        "open_bets",
        "place_bet",
        "withdraw_bet",
        "issue_colour_chips",
        "return_colour_chips",  # changed back into value chips: a cash operation (§3.3)
        # «los cambios de billetes y fichas que solicitan los jugadores» (N79 L569), under
        # the head's control (N79 L125), who touches no money
        "exchange_at_table",
        "spin",  # in the director's rotation (N79 L127): the rules check whose turn it is
        "call_no_more_bets",
        "record_outcome",
        "choose_zero_option",
        "settle",
        "pay_coup",
        "announce_last_coups",
        "declare_void",
    }
)
# The table's head directs the game and handles no chips (N79 L113-131): he opens, takes over
# (`take_table`: the hub checks how many tables one head may direct, EUS L224) and closes the
# table (the seal, N79 L234), marks the last coup (§2.12) and declares voids (N79 L232).
# `open_bets` and `declare_void`: the table's profile says which of head and croupier
# (`bets_opened_by`, `void_declared_by`); the hub gives the rules the sender's role
_TABLE_HEAD = frozenset(
    {
        "open_table",
        "take_table",
        "close_table",
        "announce_last_coups",
        "declare_void",
        "open_bets",
        "set_value_chip_bets",  # EUS L338 c: he allows or stops bets in value chips
    }
)

TABLE_PERMISSIONS: dict[Role, frozenset[str]] = {role: frozenset() for role in Role} | {
    # The Jefe de Sala stands for the games director: the head's commands, the change of
    # limits («el director» N77 L277-291, N79 L210; «jokoaren zuzendariak» EUS L300-308) and
    # the croupiers' spinning rotation («establecido por la dirección», N79 L424), the float's
    # top-ups, and closing a table for a while with its float's key in his keeping
    # («Jokoaren zuzendariaren edo bere ordezkariaren esku», EUS L306).
    Role.JEFE_DE_SALA: _TABLE_HEAD
    | {"change_limits", "set_spin_rotation", "top_up_float", "suspend_table", "resume_table"},
    Role.JEFE_DE_MESA_DE_JUEGO: _TABLE_HEAD,
    Role.INSPECTOR_DE_MESA: _TABLE_HEAD,  # where the profile lets him head (`headed_by`)
    # «El jefe y el subjefe tienen por misión dirigir la partida» (N79 L125): he takes his
    # place at a two-layout table and marks its last coup; the void is the head's (N79 L232)
    Role.SUBJEFE_DE_MESA: frozenset({"take_table", "announce_last_coups"}),
    Role.CROUPIER: _CROUPIER,
    # «colocar las posturas en la zona que ellos controlan a petición de los jugadores» (N79
    # L131): the stakes, and only them; where there are none, the croupiers do it (EUS L228)
    Role.EXTREMO_DE_MESA: frozenset({"place_bet", "withdraw_bet"}),
    Role.TABLE: _CROUPIER,  # its own table only (authorise_table)
}

TABLE_ROLE: dict[Role, TableRole] = {
    Role.JEFE_DE_SALA: TableRole.TABLE_HEAD,  # he takes over a table as its head
    Role.JEFE_DE_MESA_DE_JUEGO: TableRole.TABLE_HEAD,
    Role.INSPECTOR_DE_MESA: TableRole.INSPECTOR,
    Role.SUBJEFE_DE_MESA: TableRole.DEPUTY_HEAD,
    Role.CROUPIER: TableRole.CROUPIER,
    Role.TABLE: TableRole.CROUPIER,  # the croupier's station
}
"""Who a principal is at a table, for the rules that depend on it (who declares a void)."""

TABLE_HEADS: frozenset[Role] = frozenset({Role.JEFE_DE_MESA_DE_JUEGO, Role.INSPECTOR_DE_MESA})
"""Who heads tables and acts only at those he heads (the director, the Jefe de Sala, directs
every table without heading one)."""

Kind = Literal["staff", "device"]


@dataclass(frozen=True)
class Principal:
    """Someone (a staff user) or something (a device) the hub has authenticated."""

    id: str
    role: Role
    kind: Kind
    table: str | None = None  # a table device: the one table it is bound to
    # A fingerprint of the stored credential it authenticated with (None: not from the
    # store): a connection whose credential no longer stands is cut (hub/credential_watch.py).
    credential: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        role = Role(self.role)  # a plain string from the store becomes the enum (or ValueError)
        object.__setattr__(self, "role", role)
        expected: Kind = "device" if role in DEVICE_ROLES else "staff"
        if self.kind != expected:
            raise ValueError(
                f"principal {self.id!r}: role {role.value} is a {expected} role, "
                f"not a {self.kind!r} one"
            )
        if (role is Role.TABLE) != (self.table is not None):
            raise ValueError(f"principal {self.id!r}: only a table device is bound to a table")

    def may(self, command_name: str) -> bool:
        return command_name in PERMISSIONS[self.role]

    def may_at_table(self, command_name: str, table_id: str) -> bool:
        """Whether this principal may give a table command at that table."""
        own = self.table is None or self.table == table_id
        return own and command_name in TABLE_PERMISSIONS[self.role]

    @property
    def read_only(self) -> bool:
        """True when this principal may give no command at all (a monitor)."""
        return not PERMISSIONS[self.role] and not TABLE_PERMISSIONS[self.role]

    def __str__(self) -> str:
        return f"{self.kind} {self.id!r} (role {self.role.value})"


class Denied(Exception):
    """A principal asked for a command its role may not give. No state changes."""

    def __init__(self, principal: Principal, command_name: str, reason: str = "") -> None:
        self.principal = principal
        self.command_name = command_name
        allowed = sorted(PERMISSIONS[principal.role])
        table_only = not allowed and bool(TABLE_PERMISSIONS[principal.role])
        what = f"{principal} may not give {command_name!r}"
        if reason:
            what += f": {reason}"
        elif command_name not in KNOWN_COMMANDS:
            what += ": there is no such command"
        may_do = ", ".join(allowed) if allowed else "nothing (read only)"
        if table_only:
            may_do = "no bingo command (only a casino table's commands, with `table`)"
        super().__init__(f"{what}; role {principal.role.value} may give: {may_do}")
        # the refusal of the catalogue (domain/refusals.py) the pages say in their language
        self.params: dict[str, Param] = {
            "command": Term("command", command_name),
            "role": Term("role", principal.role.value),
        }
        self.refusal = "table_role" if table_only else "read_only_role"
        if allowed:
            self.refusal = "not_your_command"
            self.params["allowed"] = [Term("command", name) for name in allowed]


class TableDenied(Denied):
    """A principal asked for a table command its role may not give, or at another table."""

    def __init__(self, principal: Principal, table_id: str, command_name: str) -> None:
        self.principal = principal
        self.command_name = command_name
        self.table_id = table_id
        # the refusal of the catalogue (domain/refusals.py) the pages say in their language
        self.params = {
            "kind": Term("principal.kind", principal.kind),
            "who": repr(principal.id),
            "role": Term("role", principal.role.value),
            "command": Term("command", command_name, repr(command_name)),
        }
        allowed = sorted(TABLE_PERMISSIONS[principal.role])
        if principal.table is not None and principal.table != table_id:
            self.refusal = "table_other_tables_device"
            self.params |= {"table": table_id, "own": principal.table}
        elif allowed:
            self.refusal = "table_not_your_command"
            self.params["allowed"] = [Term("command", name) for name in allowed]
        else:
            self.refusal = "table_no_command_of_yours"
        Exception.__init__(self, english(self.refusal, self.params))


def authorise_table(principal: Principal, table_id: str, command_name: str) -> None:
    """Return if ``principal`` may give a table command at ``table_id``; raise
    :class:`TableDenied` otherwise."""
    if not principal.may_at_table(command_name, table_id):
        raise TableDenied(principal, table_id, command_name)


def authorise(principal: Principal, command_name: str) -> None:
    """Return if ``principal`` may give ``command_name``; raise :class:`Denied` otherwise."""
    if not principal.may(command_name):
        raise Denied(principal, command_name)


def roles_allowed(command_name: str) -> list[Role]:
    """The roles that may give a command (for error messages and docs)."""
    return [role for role in Role if command_name in PERMISSIONS[role]]
