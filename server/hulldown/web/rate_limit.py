"""A token bucket: the per-connection message rate of the live socket (``HULLDOWN_RATE``) and
the per-side rate of the table's HTTP checks (docs/limits-and-outages.md)."""

from __future__ import annotations

import time


class RateLimit:
    """A token bucket: ``rate`` messages per second with a burst of twice that."""

    def __init__(self, rate: int) -> None:
        self.rate = float(rate)
        self.capacity = float(rate * 2)
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
