"""The credentials that still stand, read again from the store every few seconds.

A connection authenticates once, and a page login is remembered for minutes; a terminal
reported stolen, a member of staff who leaves or a password that leaked must lose the hub at
once, not at their next login. `bingo-hall device-revoke`, `user-disable` and `user-password`
change the store (from another process); the hub reads what stands every
:data:`CHECK_SECONDS` and cuts whatever authenticated with a credential that no longer does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping

from bingo_hall.hub.auth import Principal

logger = logging.getLogger(__name__)

CHECK_SECONDS = 2.0

Standing = Mapping[tuple[str, str], str]  # (kind, id) -> stamp of the stored credential


class CredentialWatch:
    def __init__(self, read: Callable[[], Standing], every: float = CHECK_SECONDS) -> None:
        self._read = read
        self.every = every
        self._standing: Standing | None = None  # None until first read: everything stands
        self._read_at = float("-inf")  # time.monotonic() when the last read began

    def stands(self, principal: Principal, checked_at: float) -> bool:
        """Whether the credential `principal` authenticated with still authenticates: its user
        active with the same password, or its device not revoked. `checked_at` is a
        ``time.monotonic()`` by which its credential had been checked against the store (taken
        when the check returned): one checked after the last read began may be newer than what
        that read saw, and stands until the next read. A principal that does not come from the
        store (no stamp) always stands."""
        if self._standing is None or principal.credential is None or checked_at >= self._read_at:
            return True
        return self._standing.get((principal.kind, principal.id)) == principal.credential

    async def refresh(self) -> None:
        read_at = time.monotonic()
        self._standing = await asyncio.to_thread(self._read)
        self._read_at = read_at

    async def run(self, cut: Callable[[CredentialWatch], Awaitable[None]]) -> None:
        """Read what stands, then `cut` what no longer does, every `every` seconds until
        cancelled. A failed read is logged and tried again; what stood before still stands."""
        while True:
            try:
                await self.refresh()
            except Exception:
                logger.exception("could not read the staff and device credentials")
            else:
                await cut(self)
            await asyncio.sleep(self.every)
