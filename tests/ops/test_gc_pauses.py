"""The cyclic collector on a serving process (docs/operations.md, docs/architecture.md section 7,
"Full collections"): ``hulldown serve`` freezes its start-up heap once it listens, and
``/metrics`` times every collection by generation (``hulldown_gc_pause_seconds``)."""

from __future__ import annotations

import gc
import re
import weakref
from pathlib import Path

from hulldown.live import gc_pauses
from hulldown.live.metrics import GC_PAUSE_SECONDS
from hulldown.web.startup_heap import freeze_startup_heap

from ..server_process import ServerProcess
from .helpers import create, metric_samples, sample

FROZEN_LINE = re.compile(r"start-up heap frozen: (\d+) objects")
# What the server imports and builds before its first match: far more than this is tracked
# (about 60,000 objects); a freeze that missed the start-up heap would report a few hundred.
STARTUP_OBJECTS_AT_LEAST = 20_000


class _Node:
    """An object the collector tracks, to build a reference cycle of."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def test_serve_freezes_its_start_up_heap_and_times_every_collection(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(redis_url=redis_url, prefix=key_prefix, log=log, log_level="debug")
    server.start()
    try:
        create(server.http)
        samples = metric_samples(server.http)
    finally:
        server.stop()
    frozen = FROZEN_LINE.search(log.read_text())
    assert frozen is not None, "no start-up freeze logged"
    assert int(frozen.group(1)) >= STARTUP_OBJECTS_AT_LEAST
    # The freeze's own full collection ran with the timing installed (the app's start-up comes
    # first), so generation 2 has at least that one; the younger series are exported from the start.
    assert sample(samples, "hulldown_gc_pause_seconds_count", generation="2") >= 1
    assert sample(samples, "hulldown_gc_pause_seconds_sum", generation="2") > 0
    for generation in ("0", "1"):
        assert ("hulldown_gc_pause_seconds_count", (("generation", generation),)) in samples
        assert sample(
            samples, "hulldown_gc_pause_seconds_bucket", generation=generation, le="+Inf"
        ) == sample(samples, "hulldown_gc_pause_seconds_count", generation=generation)


def test_the_freeze_collects_garbage_first_and_keeps_the_rest_out_of_collections() -> None:
    kept = _Node()
    cycle = _Node()
    cycle.other = _Node()
    cycle.other.other = cycle
    dropped = weakref.ref(cycle)
    del cycle
    try:
        frozen = freeze_startup_heap()
        assert dropped() is None, "a garbage cycle was frozen instead of collected"
        assert frozen == gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # frozen: no collection visits it
    finally:
        gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())


def test_collections_are_timed_while_an_app_asks_and_not_after_the_last() -> None:
    series = GC_PAUSE_SECONDS.labels(generation="2")
    assert gc_pauses._timed not in gc.callbacks
    gc_pauses.install()
    gc_pauses.install()  # a second app in the same process
    try:
        count, total = sum(series.counts), series.sum
        gc.collect()
        assert sum(series.counts) == count + 1
        assert series.sum > total
        gc_pauses.uninstall()
        assert gc_pauses._timed in gc.callbacks  # one app still runs
    finally:
        gc_pauses.uninstall()
    assert gc_pauses._timed not in gc.callbacks
    count = sum(series.counts)
    gc.collect()
    assert sum(series.counts) == count
