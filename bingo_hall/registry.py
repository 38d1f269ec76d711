"""A decorator that files functions in a dispatch table by key (command, event type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
F = TypeVar("F", bound=Callable[..., object])


def registrar(table: dict[K, F]) -> Callable[[K], Callable[[F], F]]:
    """`@register(key)` puts the decorated function in `table` under `key`."""

    def register(key: K) -> Callable[[F], F]:
        def file(function: F) -> F:
            table[key] = function
            return function

        return file

    return register
