"""Running a test's asyncio scenario from a plain (synchronous) test function."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
    """Run `coroutine` on a fresh event loop and return its result; past `timeout` seconds it
    is cancelled and the test fails with TimeoutError instead of hanging."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))
