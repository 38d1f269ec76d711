"""Staff password checks, kept from starving the hub and from being guessed.

A password check is a scrypt (about 60 ms of CPU and 16 MiB): anyone on the hall's network can
ask for one, without an account. So checks run on a thread of their own, never on the worker
threads that run the game's commands, with a bounded queue (full: refused at once, "busy"); and
a source address that fails too often is refused for a while without any check, the lock
doubling each time it is earned again. Each failure is logged with the user and the address
(never the password), so that the staff see an attack. The lock is per address, not per user:
a lock per user would let anyone lock the Jefe de Sala out in the middle of a game.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

logger = logging.getLogger(__name__)

FAILURES_ALLOWED = 5  # failed logins from one address within WINDOW before it is locked
WINDOW = 300.0  # seconds
FIRST_LOCK = 60.0  # seconds; doubled at each new lock of the same address, up to MAX_LOCK
MAX_LOCK = 900.0
MAX_PENDING = 8  # password checks queued at once; beyond that: busy
MAX_SOURCES = 10_000  # addresses remembered; the oldest are forgotten first

T = TypeVar("T")


class LoginRefused(Exception):
    """A login not checked: its address is locked, or too many checks wait."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class _Source:
    failures: deque[tuple[float, str]] = field(default_factory=deque)  # (when, which user)
    locked_until: float = 0.0
    locks: int = 0  # locks earned so far (each doubles the next)


class LoginGuard:
    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        failures_allowed: int = FAILURES_ALLOWED,
        window: float = WINDOW,
        first_lock: float = FIRST_LOCK,
        max_lock: float = MAX_LOCK,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._clock = clock
        self.failures_allowed = failures_allowed
        self.window = window
        self.first_lock = first_lock
        self.max_lock = max_lock
        self.max_pending = max_pending
        self._sources: dict[str, _Source] = {}
        self._pending = 0
        self._lock = threading.Lock()  # the page routes check from their own threads
        self._executor: ThreadPoolExecutor | None = None

    def refusal(self, source: str) -> LoginRefused | None:
        """Why a login from `source` is not to be checked now, or None."""
        with self._lock:
            entry = self._sources.get(source)
            left = entry.locked_until - self._clock() if entry else 0.0
        if left > 0:
            return LoginRefused(
                "locked",
                f"too many failed logins from this address: try again in {left:.0f} s",
            )
        return None

    def record(self, source: str, user: str, ok: bool) -> None:
        """The outcome of a checked login. A success clears the address's failures for that
        user only: logging in to one's own account between guesses at another's clears
        nothing of them."""
        now = self._clock()
        with self._lock:
            entry = self._sources.pop(source, None) or _Source()
            if ok:
                entry.failures = deque(f for f in entry.failures if f[1] != user)
                self._sources[source] = entry  # its locks so far still double the next one
                return
            while entry.failures and entry.failures[0][0] <= now - self.window:
                entry.failures.popleft()
            entry.failures.append((now, user))
            if len(entry.failures) >= self.failures_allowed:
                lock = min(self.first_lock * 2**entry.locks, self.max_lock)
                entry.locked_until, entry.locks = now + lock, entry.locks + 1
                entry.failures.clear()
                logger.warning(
                    "failed login for %r from %s; address locked for %.0f s", user, source, lock
                )
            else:
                logger.warning("failed login for %r from %s", user, source)
            self._sources[source] = entry  # most recent last
            while len(self._sources) > MAX_SOURCES:
                del self._sources[next(iter(self._sources))]

    def check_now(self, source: str, user: str, check: Callable[[], T | None]) -> T | None:
        """Run a password check in the calling thread (one the caller set aside for it), and
        record its outcome. Raises LoginRefused if the address is locked."""
        refused = self.refusal(source)
        if refused is not None:
            raise refused
        principal = check()
        self.record(source, user, principal is not None)
        return principal

    async def check(self, source: str, user: str, check: Callable[[], T | None]) -> T | None:
        """Run a password check on the guard's own thread. Raises LoginRefused if the address
        is locked or too many checks already wait."""
        refused = self.refusal(source)
        if refused is not None:
            raise refused
        with self._lock:
            if self._pending >= self.max_pending:
                raise LoginRefused("busy", "the hub is busy checking logins: try again")
            self._pending += 1
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="login-check")
            executor = self._executor
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(executor, self.check_now, source, user, check)
        finally:
            with self._lock:
                self._pending -= 1
