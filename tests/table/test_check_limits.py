"""The /check and /options rate-limit buckets are bounded (web/check_limits.py): idle buckets
are evicted, a full table drops the longest idle, and eviction never lets a burst through."""

from __future__ import annotations

import time

from hulldown.web.check_limits import CheckBuckets
from hulldown.web.rate_limit import SWEEP_EVERY_S


def test_idle_buckets_are_evicted_on_the_next_sweep() -> None:
    buckets = CheckBuckets(rate=1, idle_s=30.0)
    for n in range(50):
        assert buckets.allow(f"m{n}", "a")
    assert len(buckets.buckets) == 50
    long_ago = time.monotonic() - 60.0
    for n in range(40):
        buckets.buckets[(f"m{n}", "a")].stamp = long_ago  # idle for a minute
    buckets.swept = time.monotonic() - SWEEP_EVERY_S - 1
    assert buckets.allow("fresh", "b")
    assert len(buckets.buckets) == 11
    assert ("m0", "a") not in buckets.buckets and ("m45", "a") in buckets.buckets


def test_the_table_is_capped_and_the_longest_idle_go_first() -> None:
    buckets = CheckBuckets(rate=1, max_buckets=10)
    for n in range(25):
        assert buckets.allow(f"m{n}", "a")
        assert len(buckets.buckets) <= 10
    assert ("m24", "a") in buckets.buckets and ("m0", "a") not in buckets.buckets


def test_a_busy_bucket_is_kept_and_still_limits() -> None:
    buckets = CheckBuckets(rate=1, idle_s=30.0)
    allowed = [buckets.allow("m", "a") for _ in range(5)]
    assert allowed == [True, True, False, False, False]  # burst of twice the rate
    buckets.sweep(time.monotonic())
    assert not buckets.allow("m", "a")  # not idle: not evicted, still empty
