"""Authorisation (roles × commands) and the credential store on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from bingo_hall.domain.commands import COMMAND_TYPES
from bingo_hall.hub.auth import (
    BUY_CARDS,
    CAMERA_ONLY_COMMANDS,
    DEVICE_ROLES,
    KNOWN_COMMANDS,
    PERMISSIONS,
    STAFF_ROLES,
    Denied,
    Principal,
    Role,
    authorise,
    roles_allowed,
)
from bingo_hall.store import make_engine
from bingo_hall.store.credentials import CredentialStore, verify_password

PASSWORD = "correct horse battery"
HASH_FORMAT = re.compile(r"scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=")


def staff(role: Role, id: str = "someone") -> Principal:
    return Principal(id=id, role=role, kind="staff")


def device(role: Role, id: str = "dev-1") -> Principal:
    return Principal(id=id, role=role, kind="device")


# -- permissions (pure) ------------------------------------------------------------------------


def test_every_role_has_an_entry_and_names_only_known_commands() -> None:
    assert set(PERMISSIONS) == set(Role)
    assert set(Role) == STAFF_ROLES | DEVICE_ROLES
    for role, commands in PERMISSIONS.items():
        assert commands <= KNOWN_COMMANDS, (role, commands - KNOWN_COMMANDS)


@pytest.mark.parametrize("command", sorted(set(COMMAND_TYPES) - CAMERA_ONLY_COMMANDS))
def test_every_engine_command_is_allowed_to_some_staff_role(command: str) -> None:
    assert any(command in PERMISSIONS[role] for role in STAFF_ROLES), command


@pytest.mark.parametrize("command", sorted(CAMERA_ONLY_COMMANDS))
def test_what_only_the_camera_check_gives_no_role_may_give(command: str) -> None:
    assert command in COMMAND_TYPES
    assert not any(command in PERMISSIONS[role] for role in Role), command


def test_monitor_may_do_nothing() -> None:
    monitor = device(Role.MONITOR, "mon-3")
    assert PERMISSIONS[Role.MONITOR] == frozenset()
    assert monitor.read_only
    for command in KNOWN_COMMANDS:
        assert not monitor.may(command)
        with pytest.raises(Denied, match=r"read only"):
            authorise(monitor, command)


def test_terminal_may_only_call_claims_buy_cards_and_read_its_cards() -> None:
    assert PERMISSIONS[Role.TERMINAL] == {"call_claim", BUY_CARDS, "my_cards"}
    assert BUY_CARDS == "buy_cards"
    terminal = device(Role.TERMINAL, "term-1")
    assert not terminal.read_only
    authorise(terminal, "call_claim")
    authorise(terminal, "buy_cards")
    for command in COMMAND_TYPES:
        if command != "call_claim":
            with pytest.raises(Denied):
                authorise(terminal, command)


def test_only_the_inspector_of_the_staff_is_read_only_and_buy_cards_is_the_terminals_alone():
    for role in STAFF_ROLES:
        assert staff(role).read_only == (role is Role.INSPECTOR), role
    inspector = staff(Role.INSPECTOR, "inspeccion")
    for command in KNOWN_COMMANDS:
        with pytest.raises(Denied, match=r"read only"):
            authorise(inspector, command)
    assert roles_allowed(BUY_CARDS) == [Role.TERMINAL]


def test_a_cajero_may_not_draw_a_ball() -> None:
    cajero = staff(Role.CAJERO, "marisa")
    assert not cajero.may("draw_ball")
    with pytest.raises(Denied) as caught:
        authorise(cajero, "draw_ball")
    message = str(caught.value)
    assert "'marisa'" in message
    assert "cajero" in message
    assert "'draw_ball'" in message
    assert "pay_prize" in message  # it says what the role may do
    assert caught.value.principal == cajero
    assert caught.value.command_name == "draw_ball"


def test_the_cajero_pays_and_the_vendedor_locutor_sells_draws_and_calls() -> None:
    authorise(staff(Role.CAJERO), "pay_prize")
    authorise(staff(Role.CAJERO), "pay_refund")  # the same cash refunds a voided game's cards
    assert roles_allowed("pay_refund") == roles_allowed("pay_prize") == [Role.CAJERO]
    assert PERMISSIONS[Role.CAJERO] == {"pay_prize", "pay_refund"}
    assert PERMISSIONS[Role.VENDEDOR_LOCUTOR] == {"record_sale", "draw_ball", "call_claim"}
    assert PERMISSIONS[Role.AUXILIAR_DE_SALA] == {"call_claim"}
    assert roles_allowed("record_sale") == [Role.VENDEDOR_LOCUTOR]


def test_jefe_de_sala_may_do_everything_the_jefe_de_mesa_may_and_opens_sessions() -> None:
    assert PERMISSIONS[Role.JEFE_DE_MESA] < PERMISSIONS[Role.JEFE_DE_SALA]
    for command in ("open_session", "close_session", "change_ball_set", "register_series"):
        assert staff(Role.JEFE_DE_SALA).may(command)
        assert not staff(Role.JEFE_DE_MESA).may(command)
    for command in ("start_draw", "verify_claims", "give_order", "void_game"):
        assert staff(Role.JEFE_DE_MESA).may(command)


def test_an_unknown_command_is_denied_and_says_so() -> None:
    with pytest.raises(Denied, match=r"'launch_rocket': there is no such command"):
        authorise(staff(Role.JEFE_DE_SALA), "launch_rocket")


def test_principal_kind_must_match_its_role() -> None:
    with pytest.raises(ValueError, match=r"monitor is a device role"):
        Principal(id="x", role=Role.MONITOR, kind="staff")
    with pytest.raises(ValueError, match=r"cajero is a staff role"):
        Principal(id="x", role=Role.CAJERO, kind="device")
    assert Principal(id="x", role="cajero", kind="staff").role is Role.CAJERO  # type: ignore[arg-type]


# -- the credential store on both databases ----------------------------------------------------


@pytest.fixture
def store(store_url: str) -> Iterator[CredentialStore]:
    engine = make_engine(store_url)
    try:
        yield CredentialStore(engine)
    finally:
        engine.dispose()


def raw_rows(store: CredentialStore, table: str) -> list[dict[str, object]]:
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(text(f"SELECT * FROM {table}"))]


def test_users_round_trip(store: CredentialStore) -> None:
    store.add_user("jefa.sala", Role.JEFE_DE_SALA, PASSWORD)
    store.add_user("loc_2", "vendedor_locutor", PASSWORD + "!")
    assert store.check_password("jefa.sala", PASSWORD) == Principal(
        "jefa.sala", Role.JEFE_DE_SALA, "staff"
    )
    locutor = store.check_password("loc_2", PASSWORD + "!")
    assert locutor is not None
    assert locutor.role is Role.VENDEDOR_LOCUTOR
    assert locutor.may("draw_ball")
    assert [(u.username, u.role, u.active) for u in store.users()] == [
        ("jefa.sala", Role.JEFE_DE_SALA, True),
        ("loc_2", Role.VENDEDOR_LOCUTOR, True),
    ]


def test_wrong_unknown_and_inactive_users_get_none(store: CredentialStore) -> None:
    store.add_user("cajero1", Role.CAJERO, PASSWORD)
    assert store.check_password("cajero1", PASSWORD + " ") is None
    assert store.check_password("cajero1", PASSWORD.upper()) is None
    assert store.check_password("cajero1", "") is None
    assert store.check_password("nobody", PASSWORD) is None
    assert store.check_password("NOT A NAME", PASSWORD) is None
    assert store.check_password("cajero1", "x" * 5000) is None
    store.deactivate_user("cajero1")
    assert store.check_password("cajero1", PASSWORD) is None
    assert store.users()[0].active is False


def test_set_password_replaces_the_old_one(store: CredentialStore) -> None:
    store.add_user("mesa", Role.JEFE_DE_MESA, PASSWORD)
    store.set_password("mesa", "another long password")
    assert store.check_password("mesa", PASSWORD) is None
    assert store.check_password("mesa", "another long password") is not None
    with pytest.raises(ValueError, match=r"no staff user 'ghost'"):
        store.set_password("ghost", "another long password")
    with pytest.raises(ValueError, match=r"no staff user 'ghost'"):
        store.deactivate_user("ghost")


def test_devices_round_trip_and_revoke(store: CredentialStore) -> None:
    monitor_token = store.add_device("mon-3", "monitor")
    terminal_token = store.add_device("term-1", Role.TERMINAL)
    assert monitor_token.startswith("mon-3.")
    assert len(monitor_token.removeprefix("mon-3.")) >= 43  # 32 random bytes, base64url
    monitor = store.check_token(monitor_token)
    assert monitor == Principal("mon-3", Role.MONITOR, "device")
    assert monitor is not None and monitor.read_only
    terminal = store.check_token(terminal_token)
    assert terminal == Principal("term-1", Role.TERMINAL, "device")
    assert [(d.device_id, d.kind, d.active) for d in store.devices()] == [
        ("mon-3", Role.MONITOR, True),
        ("term-1", Role.TERMINAL, True),
    ]
    # Wrong, swapped, truncated and malformed tokens.
    secret = terminal_token.split(".", 1)[1]
    assert store.check_token("mon-3." + secret) is None
    assert store.check_token(terminal_token[:-1]) is None
    assert store.check_token(terminal_token + "x") is None
    for bad in ("", ".", "term-1", "term-1.", "nobody." + secret, "x" * 10_000):
        assert store.check_token(bad) is None, bad
    store.revoke_device("term-1")
    assert store.check_token(terminal_token) is None
    assert store.check_token(monitor_token) is not None
    with pytest.raises(ValueError, match=r"no device 'ghost'"):
        store.revoke_device("ghost")
    with pytest.raises(ValueError, match=r"device 'term-1' already exists"):
        store.add_device("term-1", "terminal")


def test_no_plaintext_credential_is_stored(store: CredentialStore) -> None:
    store.add_user("jefe", Role.JEFE_DE_SALA, PASSWORD)
    token = store.add_device("term-9", "terminal")
    secret = token.split(".", 1)[1]
    (user,) = raw_rows(store, "staff_user")
    (dev,) = raw_rows(store, "device")
    assert HASH_FORMAT.fullmatch(str(user["password_hash"]))
    assert re.fullmatch(r"[0-9a-f]{64}", str(dev["token_hash"]))
    for row in (user, dev):
        for value in row.values():
            assert PASSWORD not in str(value)
            assert secret not in str(value)
            assert token not in str(value)
    assert verify_password(PASSWORD, str(user["password_hash"]))


def test_the_same_password_gets_different_hashes(store: CredentialStore) -> None:
    store.add_user("ana", Role.CAJERO, PASSWORD)
    store.add_user("bea", Role.CAJERO, PASSWORD)
    hashes = {str(r["password_hash"]) for r in raw_rows(store, "staff_user")}
    assert len(hashes) == 2
    salts = {h.split("$")[4] for h in hashes}
    assert len(salts) == 2


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("ab", r"invalid username 'ab': use 3 to 32 characters"),
        ("x" * 33, r"invalid username 'x{33}'"),
        ("Jefe", r"invalid username 'Jefe'"),
        ("jefe sala", r"invalid username 'jefe sala'"),
        ("jefe/sala", r"invalid username"),
        ("", r"invalid username ''"),
    ],
)
def test_bad_usernames_are_refused(store: CredentialStore, username: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        store.add_user(username, Role.CAJERO, PASSWORD)
    assert store.users() == []


def test_bad_passwords_roles_kinds_and_duplicates_are_refused(store: CredentialStore) -> None:
    with pytest.raises(ValueError, match=r"password too short: 9 characters, at least 10") as e:
        store.add_user("cajero1", Role.CAJERO, "123456789")
    assert "123456789" not in str(e.value)
    with pytest.raises(ValueError, match=r"password too long"):
        store.add_user("cajero1", Role.CAJERO, "x" * 1025)
    with pytest.raises(
        ValueError, match=r"'monitor' is not a staff role: use one of auxiliar_de_sala, cajero, "
    ):
        store.add_user("cajero1", "monitor", PASSWORD)
    with pytest.raises(ValueError, match=r"unknown staff role 'boss'"):
        store.add_user("cajero1", "boss", PASSWORD)
    with pytest.raises(ValueError, match=r"'jefe_de_sala' is not a device kind: use one of "):
        store.add_device("mon-1", "jefe_de_sala")
    with pytest.raises(ValueError, match=r"unknown device kind 'printer'"):
        store.add_device("mon-1", "printer")
    with pytest.raises(ValueError, match=r"invalid device id 'M'"):
        store.add_device("M", "monitor")
    assert store.users() == [] and store.devices() == []
    store.add_user("cajero1", Role.CAJERO, PASSWORD)
    with pytest.raises(ValueError, match=r"staff user 'cajero1' already exists"):
        store.add_user("cajero1", Role.JEFE_DE_SALA, "some other password")
    assert store.check_password("cajero1", PASSWORD) is not None
    with pytest.raises(ValueError, match=r"password too short"):
        store.set_password("cajero1", "short")


def test_a_store_opened_again_keeps_its_credentials(store_url: str) -> None:
    engine = make_engine(store_url)
    try:
        CredentialStore(engine).add_user("jefe", Role.JEFE_DE_SALA, PASSWORD)
        token = CredentialStore(engine).add_device("mon-1", "monitor")
        again = CredentialStore(engine)
        assert again.check_password("jefe", PASSWORD) is not None
        assert again.check_token(token) is not None
    finally:
        engine.dispose()


_names = itertools.count()


@settings(
    max_examples=10,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    password=st.text(st.characters(exclude_characters="\x00"), min_size=10, max_size=40),
    other=st.text(max_size=40),
)
def test_check_password_accepts_exactly_the_right_password(
    store: CredentialStore, password: str, other: str
) -> None:
    assume(other != password)
    username = f"user{next(_names)}"
    store.add_user(username, Role.JEFE_DE_MESA, password)
    principal = store.check_password(username, password)
    assert principal is not None and principal.id == username
    assert store.check_password(username, other) is None
    assert store.check_password(username, password[:-1]) is None
    assert store.check_password(username, password + "\x00") is None


def test_a_password_with_a_nul_character_is_refused_and_never_matches(
    store: CredentialStore,
) -> None:
    """scrypt keys HMAC with the password and HMAC pads short keys with zero bytes, so a
    trailing NUL would hash as the password without it."""
    username = f"user{next(_names)}"
    with pytest.raises(ValueError, match="NUL character"):
        store.add_user(username, Role.JEFE_DE_MESA, "correct horse\x00")
    assert store.check_password(username, "correct horse") is None  # nothing was added
    store.add_user(username, Role.JEFE_DE_MESA, "correct horse")
    assert store.check_password(username, "correct horse") is not None
    assert store.check_password(username, "correct horse\x00") is None
    with pytest.raises(ValueError, match="NUL character"):
        store.set_password(username, "battery staple\x00")
    assert store.check_password(username, "correct horse") is not None  # unchanged
