"""Numpy's BLAS on one thread, in every process of the hall.

The renderer's and the reader's matrix products are small: a ball's pixels by three columns,
a label's features by a hidden layer. OpenBLAS splits each product across every core, and its
threads spin while they wait for the next. Alone, a demo then takes 35 s and spends 63 s of
CPU; on one thread it takes 31 s and spends 28 s. Beside another busy process the spinning
threads fight it for the cores: two demos at once took 165 s, on one thread each 37 s
(docs/benchmarks.md, "BLAS threads").
"""

from __future__ import annotations

import numpy  # noqa: F401  (loads the BLAS library that the limit applies to)
from threadpoolctl import threadpool_limits


def use_one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread for the rest of the process."""
    threadpool_limits(limits=1, user_api="blas")
