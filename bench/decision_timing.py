"""What the decision benches share (bench/aim.py, allocation.py, challenge.py, charges.py,
decisions.py): an event around an action, and the p50 / p95 of a call in milliseconds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from hulldown.match.events import Event


def event(seq: int, by: str, body: object) -> Event:
    """The stored event of ``body`` by side ``by`` at ``seq`` (time 0, action id ``e<seq>``)."""
    return Event(seq=seq, at=0.0, by=by, action_id=f"e{seq}", body=body)  # type: ignore[arg-type]


def timed_ms(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    """Wall-clock p50 and p95 of ``repeat`` calls of ``fn``, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
    }
