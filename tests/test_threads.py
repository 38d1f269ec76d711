"""Every `bingo-hall` command runs numpy's BLAS on one thread (bingo_hall/threads.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from support.cli import REPO

BLAS_THREADS_AFTER = """
import json, sys
from threadpoolctl import threadpool_info
from bingo_hall.cli import main
code = main(sys.argv[1:])
print(json.dumps([(pool["internal_api"], pool["num_threads"])
                  for pool in threadpool_info() if pool["user_api"] == "blas"]))
"""


def blas_threads_after(*args: str) -> list[tuple[str, int]]:
    result = subprocess.run(
        [sys.executable, "-c", BLAS_THREADS_AFTER, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return [tuple(pool) for pool in json.loads(result.stdout.splitlines()[-1])]


def test_a_command_leaves_blas_on_one_thread(tmp_path):
    pools = blas_threads_after("acta", "--session", "1", "--db", f"sqlite:///{tmp_path}/x.sqlite")
    assert pools, "numpy's BLAS library was not found"
    assert all(threads == 1 for _, threads in pools), pools
