"""Reconnect backoff: exponential, capped, jittered within bounds, reset after success."""

from __future__ import annotations

import random

import pytest

from hulldown.client import Backoff, GiveUp


def test_delays_double_up_to_the_cap_without_jitter() -> None:
    backoff = Backoff(initial=0.1, factor=2.0, maximum=1.0, jitter=0.0)
    assert [round(backoff.next_delay(), 6) for _ in range(6)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    backoff.reset()
    assert backoff.next_delay() == pytest.approx(0.1)


def test_jitter_stays_within_its_band_and_spreads_clients() -> None:
    delays = []
    for seed in range(200):
        backoff = Backoff(initial=1.0, jitter=0.2, rng=random.Random(seed))
        delays.append(backoff.next_delay())
    assert all(0.8 <= d <= 1.2 for d in delays)
    assert max(delays) - min(delays) > 0.3


def test_gives_up_after_max_attempts() -> None:
    backoff = Backoff(max_attempts=2, jitter=0.0)
    backoff.next_delay()
    backoff.next_delay()
    with pytest.raises(GiveUp):
        backoff.next_delay()
