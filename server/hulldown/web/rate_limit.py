"""Token buckets: the per-connection message rate of the live socket (``HULLDOWN_RATE``), the
per-side rate of the table's HTTP checks and the per-client rate of match creation
(docs/limits-and-outages.md).

:class:`KeyedBuckets` holds one bucket per key, bounded: a bucket idle for ``idle_s`` (at least
the time it takes to refill) has refilled long ago, so dropping it changes no answer; idle
buckets are swept at most every :data:`SWEEP_EVERY_S`, and past ``max_buckets`` the longest idle
go first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

SWEEP_EVERY_S = 5.0
MAX_BUCKETS = 10_000

Key = TypeVar("Key", bound=Hashable)


class RateLimit:
    """A token bucket: ``rate`` messages per second with a burst of ``capacity`` (by default
    twice the rate)."""

    def __init__(self, rate: float, capacity: float | None = None) -> None:
        self.rate = float(rate)
        self.capacity = float(rate * 2) if capacity is None else float(capacity)
        self.tokens = self.capacity
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait_s(self) -> float:
        """Seconds until the next token (0 when one is there)."""
        missing = 1.0 - self.tokens
        return max(0.0, missing / self.rate) if self.rate > 0 else float("inf")


class KeyedBuckets(Generic[Key]):
    """One bucket per key, made by ``make`` on first use; bounded (module docstring)."""

    def __init__(self, make: Callable[[], RateLimit], idle_s: float, max_buckets: int = MAX_BUCKETS) -> None:
        self.make = make
        self.idle_s = idle_s
        self.max_buckets = max_buckets
        self.buckets: dict[Key, RateLimit] = {}
        self.swept = time.monotonic()

    def bucket(self, key: Key) -> RateLimit:
        now = time.monotonic()
        if now - self.swept > SWEEP_EVERY_S or len(self.buckets) >= self.max_buckets:
            self.sweep(now)
        found = self.buckets.get(key)
        if found is None:
            found = self.make()
            self.buckets[key] = found
        return found

    def sweep(self, now: float) -> None:
        """Drop the buckets idle for ``idle_s``; then, if still full, the longest idle."""
        self.swept = now
        idle = [key for key, bucket in self.buckets.items() if now - bucket.stamp > self.idle_s]
        for key in idle:
            del self.buckets[key]
        if len(self.buckets) >= self.max_buckets:
            by_age = sorted(self.buckets, key=lambda k: self.buckets[k].stamp)
            for key in by_age[: len(self.buckets) - self.max_buckets + 1]:
                del self.buckets[key]
