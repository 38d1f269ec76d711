"""The login guard: an address that keeps failing is locked out for a while, doubling; a
success clears its failures; other addresses go on; the checks queue only so far."""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.transport.login_guard import LoginGuard, LoginRefused
from support.aio import run_async
from support.cli import STAFF_PASSWORD, add_device, add_staff
from support.hub import Client, auth_answer
from support.serve import api_hall, serving


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_logging_in_to_ones_own_account_between_guesses_clears_none_of_them():
    guard = LoginGuard(Clock(), failures_allowed=5)
    for _ in range(2):
        for _guess in range(2):
            guard.record("10.0.0.9", "sala", ok=False)
        guard.record("10.0.0.9", "caja", ok=True)  # the guesser's own account
    guard.record("10.0.0.9", "sala", ok=False)
    assert guard.refusal("10.0.0.9") is not None


def test_failures_lock_the_address_for_a_time_that_doubles_and_a_success_clears_them():
    clock = Clock()
    guard = LoginGuard(clock, failures_allowed=3, window=300, first_lock=60, max_lock=200)
    for _ in range(2):
        guard.record("10.0.0.9", "sala", ok=False)
    guard.record("10.0.0.9", "sala", ok=True)  # clears them
    guard.record("10.0.0.9", "sala", ok=False)
    assert guard.refusal("10.0.0.9") is None
    for _ in range(2):
        guard.record("10.0.0.9", "sala", ok=False)
    refused = guard.refusal("10.0.0.9")
    assert refused is not None and refused.code == "locked" and "60 s" in refused.message
    assert guard.refusal("10.0.0.7") is None  # another address goes on
    with pytest.raises(LoginRefused):
        guard.check_now("10.0.0.9", "sala", lambda: pytest.fail("a locked address is checked"))
    clock.now += 60
    assert guard.refusal("10.0.0.9") is None
    for lock in (120, 200, 200):  # doubled, up to the maximum
        for _ in range(3):
            guard.record("10.0.0.9", "sala", ok=False)
        assert f"{lock} s" in guard.refusal("10.0.0.9").message
        clock.now += lock


@given(st.lists(st.tuples(st.floats(0, 400), st.booleans()), max_size=40))
def test_an_address_is_locked_only_after_enough_failures_within_the_window(steps):
    """Whatever the sequence of outcomes and pauses: the address is refused exactly when the
    failures since its last success or lock, within the window, reached the allowance."""
    clock = Clock()
    guard = LoginGuard(clock, failures_allowed=3, window=300, first_lock=60, max_lock=60)
    failures: list[float] = []
    locked_until = 0.0
    for pause, ok in steps:
        clock.now += pause
        if clock.now < locked_until:
            assert guard.refusal("a") is not None
            continue
        assert guard.refusal("a") is None
        guard.record("a", "u", ok)
        failures = [] if ok else [t for t in failures if t > clock.now - 300] + [clock.now]
        if len(failures) >= 3:
            locked_until, failures = clock.now + 60, []


def test_checks_wait_in_a_bounded_queue_on_the_guards_own_thread():
    guard = LoginGuard(max_pending=2)
    release = threading.Event()
    threads: list[str] = []

    def slow() -> str:
        threads.append(threading.current_thread().name)
        release.wait(10)
        return "principal"

    async def scenario():
        first = asyncio.create_task(guard.check("a", "u", slow))
        second = asyncio.create_task(guard.check("b", "u", slow))
        await asyncio.sleep(0.2)
        with pytest.raises(LoginRefused, match="busy"):
            await guard.check("c", "u", slow)
        # the default worker threads, on which commands run, are free meanwhile
        assert await asyncio.to_thread(lambda: "command") == "command"
        release.set()
        assert await first == await second == "principal"

    asyncio.run(scenario())
    assert threads and all(name.startswith("login-check") for name in threads)


def test_the_hub_locks_an_address_that_guesses_on_the_websocket_and_the_pages(tmp_path):
    db = f"sqlite:///{tmp_path / 'hall.sqlite'}"
    add_staff(db, "sala1")
    token = add_device(db, "mon-1")
    with serving("--db", db) as hub:
        assert api_hall(hub.port, "sala1", STAFF_PASSWORD)[0] == 200  # remembered from now on

        async def scenario():
            for guess in range(5):
                wrong = await auth_answer(hub.url, user="sala1", password=f"adivinanza-{guess}")
                assert wrong == {
                    "type": "auth_invalid",
                    "code": "unauthorized",
                    "message": "unknown user, password or token",
                }
            locked = await auth_answer(hub.url, user="sala1", password=STAFF_PASSWORD)
            assert (locked["type"], locked["code"]) == ("auth_invalid", "locked")
            assert locked["message"].startswith("too many failed logins from this address")
            async with Client.login(hub.url, token=token) as monitor:  # devices: not locked
                assert (await monitor.request({"type": "ping"}))["type"] == "pong"

        run_async(scenario(), timeout=60)
        status, body = api_hall(hub.port, "sala1", "otra adivinanza")
        assert status == 429 and body["error"]["code"] == "locked"
        # the right password, though remembered, is refused alike: a locked address that got
        # 200 for it and 429 for every other guess would be told which guess is right
        for _ in range(50):
            assert api_hall(hub.port, "sala1", STAFF_PASSWORD)[0] == 429
    assert hub.err.count("failed login for 'sala1' from 127.0.0.1") == 5
    assert "address locked for 60 s" in hub.err and STAFF_PASSWORD not in hub.err


def test_a_page_login_whose_address_is_locked_while_it_waits_is_refused_not_remembered(tmp_path):
    """The pages check a password on their own workers: if the address is locked while the
    check waits its turn, the answer is the lock (429), and once the lock is over the right
    password is checked again and let in, not a remembered failure."""
    import base64
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from sqlalchemy import create_engine

    from bingo_hall.store.credentials import CredentialStore
    from bingo_hall.transport.page_data import WAIT, _Jobs, _StaffGate

    engine = create_engine(f"sqlite:///{tmp_path / 'hall.sqlite'}")
    CredentialStore(engine).add_user("sala1", "jefe_de_sala", "una clave muy larga")
    runtime = SimpleNamespace(service=SimpleNamespace(log=SimpleNamespace(engine=engine)))
    clock = Clock()
    guard = LoginGuard(clock, failures_allowed=1, first_lock=60)
    jobs = _Jobs()
    jobs._pool = ThreadPoolExecutor(1)  # one worker, held busy below
    release = threading.Event()
    jobs._pool.submit(release.wait, 10)
    gate = _StaffGate(jobs, guard=guard)
    header = "Basic " + base64.b64encode(b"sala1:una clave muy larga").decode()

    def ask():
        return gate.principal(runtime, header, "10.0.0.9")

    assert ask() is WAIT  # queued behind the busy worker
    guard.record("10.0.0.9", "sala1", ok=False)  # meanwhile the address is locked
    release.set()
    for _ in range(200):
        try:
            answer = ask()
        except LoginRefused as refused:
            assert refused.code == "locked"
            break
        assert answer is WAIT
        threading.Event().wait(0.02)
    else:
        raise AssertionError("the queued check never answered")
    clock.now += 61  # the lock is over: checked again, and let in
    for _ in range(200):
        answer = ask()
        if answer is not WAIT:
            break
        threading.Event().wait(0.02)
    assert answer is not None and answer.id == "sala1"


def test_a_page_login_nobody_comes_back_for_is_dropped(monkeypatch):
    """Each login a page asks for is checked on a worker, and answered on a later request; a
    result nobody asks for again (the asker gone after its 202) is not kept for ever."""
    from bingo_hall.transport import page_data

    monkeypatch.setattr(page_data, "UNCLAIMED_TTL", 0.2)
    jobs = page_data._Jobs()
    for guess in range(20):  # asked once each, never again
        assert jobs.result(("staff", guess), lambda: None, 600) == (False, None)
        threading.Event().wait(0.01)  # done at once: never more than MAX_PENDING waiting
    assert jobs.result("kept", lambda: "principal", 600) == (False, None)
    for _ in range(200):
        done, answer = jobs.result("kept", lambda: "principal", 600)
        if done:
            break
        threading.Event().wait(0.02)
    assert answer == "principal"
    threading.Event().wait(0.4)
    assert jobs.result("kept", lambda: "other", 600) == (True, "principal")  # picked up: kept
    assert set(jobs._jobs) == {"kept"}  # the 20 unclaimed results are gone
