"""Running a test's asyncio scenario from a plain (synchronous) test function."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def until(condition: Callable[[], object], timeout: float = 15.0) -> float:
    """Wait until `condition()` holds, polling every 10 ms; returns the seconds it took, and
    fails the test past `timeout`."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not condition():
        assert loop.time() - start < timeout
        await asyncio.sleep(0.01)
    return loop.time() - start


def run_async(coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
    """Run `coroutine` on a fresh event loop and return its result; past `timeout` seconds it
    is cancelled and the test fails with TimeoutError instead of hanging."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))
