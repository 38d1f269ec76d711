"""Benchmark of encoding one event for the fan-out's audiences.

Every committed event is encoded once per audience: whole with its hash for the acta's keepers,
without hashes (and some payloads in part) for the other staff and for devices and MQTT
(transport/fanout.py). Prints the median time to encode a `ball_drawn` event for the three
audiences, against encoding it once (the baseline, in the same process).

Usage: python bench/bench_frames.py [--runs N] [--number N]
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from datetime import UTC, datetime

from bingo_hall.store.eventlog import EventEnvelope
from bingo_hall.transport.fanout import event_frame


def ball_event() -> EventEnvelope:
    camera = {
        "number": 42,
        "confidence": 0.99999,
        "frame": "a" * 64,
        "reason": None,
        "guess": 42,
        "evidence": "one_label",
    }
    payload = {"ordinal": 17, "number": 42, "source": "certified_random", "camera": camera}
    now = datetime.now(UTC)
    return EventEnvelope(
        "sala-1", 120, 1, 3, "ball_drawn", payload, now, "locutor", "0" * 64, "1" * 64
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    envelope = ball_event()

    def once() -> None:
        event_frame(envelope)

    def every_audience() -> None:
        for audience in ("staff", "clerk", "device"):
            event_frame(envelope, audience)  # type: ignore[arg-type]

    def median_us(work) -> float:
        runs = [timeit.timeit(work, number=args.number) / args.number for _ in range(args.runs)]
        return statistics.median(runs) * 1e6

    baseline, measured = median_us(once), median_us(every_audience)
    print(f"ball_drawn encoded once (baseline): {baseline:.1f} µs (median of {args.runs})")
    print(f"ball_drawn encoded for the three audiences: {measured:.1f} µs")
    print(f"ratio: {measured / baseline:.2f}")


if __name__ == "__main__":
    main()
