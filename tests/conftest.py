"""Fixtures shared by every test suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from bingo_hall.threads import use_one_blas_thread
from support.databases import KINDS, DatabaseUnavailable, fresh_database_url

use_one_blas_thread()  # as every `bingo-hall` process does

# No time limit on a property's examples: speed is measured in bench/, and a shared machine's
# load would otherwise fail a correct property now and then (hypothesis's default is 200 ms).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(params=KINDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of a fresh empty database, once on SQLite and once on PostgreSQL.

    Dispose every engine made on it before the test ends (the PostgreSQL database is dropped).
    PostgreSQL being unreachable fails the test: the store is never tested on SQLite alone.
    """
    problem: str | None = None
    try:
        with fresh_database_url(request.param, tmp_path) as url:
            yield url
    except DatabaseUnavailable as exc:
        problem = str(exc)
    if problem is not None:  # outside the except block: the message alone, no chained trace
        pytest.fail(problem, pytrace=False)
