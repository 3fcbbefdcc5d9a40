"""The light counters and histograms of the act path (live/light_metrics.py) write what
prometheus-client's own would write for the same observations."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from hulldown.live.light_metrics import LightCounter, LightHistogram
from hulldown.live.metrics import LATENCY_BUCKETS

# On a bound, between bounds, below the first, above the last; and a few more of each.
VALUES = (0.0005, 0.0007, 0.0001, 12.0, 0.001, 2.5, 0.003, 0.0005, 9.99, 0.02)


def exposition(registry: CollectorRegistry) -> list[str]:
    """The samples, without prometheus-client's ``_created`` timestamps (the light kinds have none)."""
    lines = generate_latest(registry).decode().splitlines()
    return [line for line in lines if "_created" not in line]


def test_a_histogram_writes_what_prometheus_client_writes() -> None:
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    reference = Histogram("h_seconds", "doc", ["command"], buckets=LATENCY_BUCKETS, registry=theirs)
    light = LightHistogram("h_seconds", "doc", ["command"], buckets=LATENCY_BUCKETS, registry=ours)
    for k, value in enumerate(VALUES):
        command = "EXEC" if k % 3 else "EVALSHA"
        reference.labels(command=command).observe(value)
        light.labels(command=command).observe(value)
    assert exposition(ours) == exposition(theirs)


def test_a_histogram_without_labels_and_a_counter_with_them() -> None:
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    Histogram("plain_seconds", "doc", buckets=(0.1, 1.0), registry=theirs).observe(0.1)
    LightHistogram("plain_seconds", "doc", buckets=(1.0, 0.1), registry=ours).observe(0.1)  # any order
    reference = Counter("acts_total", "doc", ["kind", "outcome"], registry=theirs)
    light = LightCounter("acts_total", "doc", ["kind", "outcome"], registry=ours)
    for kind, outcome in (("move", "ack"), ("move", "ack"), ("shoot", "rejected")):
        reference.labels(kind=kind, outcome=outcome).inc()
        light.labels(kind=kind, outcome=outcome).inc()
    assert exposition(ours) == exposition(theirs)


def test_labels_must_be_the_declared_ones() -> None:
    registry = CollectorRegistry()
    light = LightHistogram("x_seconds", "doc", ["command"], buckets=(1.0,), registry=registry)
    with pytest.raises(ValueError, match="command"):
        light.labels(cmd="EXEC")
    with pytest.raises(ValueError, match="labels"):
        light.observe(0.5)  # a labelled histogram is observed through labels()
    with pytest.raises(ValueError, match="labels"):
        LightCounter("y_total", "doc", ["kind"], registry=registry).inc()
