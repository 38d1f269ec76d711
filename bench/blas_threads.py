"""What numpy's BLAS threads cost the hub's check of a ball: one thread against one a core,
alone and beside a second process doing the same work on the same setting (two hubs, or a hub
and a demo, on one machine).

Each burst renders three frames of a ball of the hall's simulated set and reads them, as
`BallCheck.check` does for every call. The settings take turns in blocks (ABBA) in the same
process (threadpoolctl); the medians of the wall time and of the process's CPU time (all its
threads) per burst are printed, each setting's against one BLAS thread's. OpenCV keeps its
default threads throughout.

Usage: python bench/blas_threads.py [--bursts N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from threadpoolctl import threadpool_limits  # noqa: E402

from bingo_hall.hub.commissioning import ALL_BALLS  # noqa: E402
from bingo_hall.vision.camera import SimulatedCamera, simulated_exit  # noqa: E402
from bingo_hall.vision.recognise import BallReader  # noqa: E402

SETTINGS = {"one BLAS thread": 1, "one a core": os.cpu_count() or 1}
Times = tuple[list[float], list[float]]


def bursts(camera: SimulatedCamera, reader: BallReader, count: int, times: Times) -> None:
    """`count` bursts, their wall and CPU milliseconds appended to `times`."""
    for index in range(count):
        camera.present(ALL_BALLS[index % len(ALL_BALLS)])
        wall, cpu = time.perf_counter(), time.process_time()
        reader.read_frames(camera.frames(3), candidates=ALL_BALLS)
        times[0].append(1000 * (time.perf_counter() - wall))
        times[1].append(1000 * (time.process_time() - cpu))


def neighbour(threads: int) -> subprocess.Popen:
    """This script in a second process, checking balls on `threads` BLAS threads until killed."""
    return subprocess.Popen([sys.executable, __file__, "--neighbour", str(threads)])


def measure(count: int, beside: bool) -> dict[str, Times]:
    camera, reader = simulated_exit(20261129), BallReader()
    bursts(camera, reader, 10, ([], []))  # warm: the model loaded, the caches filled
    times: dict[str, Times] = {name: ([], []) for name in SETTINGS}
    names = list(SETTINGS)
    for name in [*names, *reversed(names)]:
        threads = SETTINGS[name]
        other = neighbour(threads) if beside else None
        try:
            if other is not None:
                time.sleep(3)  # its model loaded, its bursts under way
            with threadpool_limits(limits=threads, user_api="blas"):
                bursts(camera, reader, count // 2, times[name])
        finally:
            if other is not None:
                other.kill()
                other.wait()
    return times


def report(title: str, times: dict[str, Times]) -> None:
    print(title)
    medians = {name: tuple(statistics.median(m) for m in pair) for name, pair in times.items()}
    base_wall, base_cpu = medians["one BLAS thread"]
    for name, (wall, cpu) in medians.items():
        print(
            f"  {name:16s} wall {wall:6.1f} ms ({wall / base_wall:4.2f}x)"
            f"  CPU {cpu:6.1f} ms ({cpu / base_cpu:4.2f}x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bursts", type=int, default=200, help="bursts a setting and a case")
    parser.add_argument("--neighbour", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.neighbour is not None:
        with threadpool_limits(limits=args.neighbour, user_api="blas"):
            camera, reader = simulated_exit(), BallReader()
            while True:
                bursts(camera, reader, 90, ([], []))
    print(f"{os.cpu_count()} cores; median per burst of three frames, rendered and read")
    report("alone", measure(args.bursts, beside=False))
    report("beside a second process checking balls on the same setting", measure(args.bursts, True))


if __name__ == "__main__":
    main()
