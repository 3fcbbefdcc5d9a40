"""Leaks (docs/operations.md): every per-match cache of a process is bounded - the loading locks
(one per id ever asked for, unknown ones included, before), the states and patches each match
keeps (one per event, before), and the number of matches loaded - and memory plateaus under a
long run of acks."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import AsyncIterator

import pytest
from msgspec.structs import replace

from hulldown.live.runtime import RECENT_PATCHES
from hulldown.live.service import LiveService
from hulldown.live.states import DEFAULT_CAPACITY
from hulldown.match.actions import EndPhase
from hulldown.match.hashing import DIGEST_BYTES, MAP_CACHE_SIZE, clear_caches
from hulldown.match.state import LOG_WINDOW, Options
from hulldown.store import RedisEventStore
from hulldown.wire import protocol
from tests.scenarios import duel

LONG_MATCH = replace(duel(), options=Options(turn_limit=1000))
# Acks before the memory is measured: enough to fill every bounded cache from empty (the largest,
# the units' digests, holds UNIT_CACHE_SIZE = 1024 units; an ack makes about two new ones).
WARM_UP_ACKS = 900
MEASURED_ACKS = 600
# A two-generation identity cache (match/identity_cache.py) holds between one and two generations,
# so two measurements may differ by one generation of its entries even at a plateau: the largest,
# a generation of log-window digests (MAP_CACHE_SIZE windows of LOG_WINDOW digests), plus the
# 100 KB this test allowed for everything else before.
PLATEAU_BYTES = MAP_CACHE_SIZE * LOG_WINDOW * DIGEST_BYTES + 100_000


@pytest.fixture
async def live(store: RedisEventStore, redis_url: str, key_prefix: str) -> AsyncIterator[LiveService]:
    service = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100, max_matches=3)
    await service.start()
    yield service
    await service.stop()


async def test_asking_for_unknown_matches_keeps_nothing(live: LiveService) -> None:
    for i in range(2000):
        assert await live.get(f"no-such-match-{i}") is None
    sizes = live.cache_sizes()
    assert sizes["loading_locks"] == 0 and sizes["matches"] == 0 and sizes["followed"] == 0


async def _end_phases(live: LiveService, match_id: str, count: int, start: int) -> None:
    runtime = await live.get(match_id)
    assert runtime is not None
    for i in range(start, start + count):
        result = await runtime.submit(runtime.state.active, EndPhase(), f"end-{i}")
        assert isinstance(result, protocol.Ack)


async def test_states_patches_and_memory_plateau_under_repeated_acks(live: LiveService) -> None:
    created = await live.create(LONG_MATCH)
    assert not isinstance(created, type(None)) and hasattr(created, "match_id")
    match_id = created.match_id
    # The process-wide digest caches (match/hashing.py: up to UNIT_CACHE_SIZE units) start empty
    # whatever ran before, and WARM_UP_ACKS fill every one of them (each ack makes new units, log
    # lines and maps) before the memory is measured.
    clear_caches()
    tracemalloc.start()  # from the start: what the caches drop is subtracted as well
    try:
        await _end_phases(live, match_id, WARM_UP_ACKS, 0)  # past every cap: the caches are full
        runtime = await live.get(match_id)
        assert runtime is not None
        assert len(runtime.states) == DEFAULT_CAPACITY and len(runtime.recent) == RECENT_PATCHES
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        await _end_phases(live, match_id, MEASURED_ACKS, WARM_UP_ACKS)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(runtime.states) == DEFAULT_CAPACITY and len(runtime.recent) == RECENT_PATCHES
    assert runtime.state.seq == 1 + WARM_UP_ACKS + MEASURED_ACKS
    # Unbounded, each ack kept its state and patch (~1.5 KB a duel ack): 600 acks ~ 900 KB.
    assert grown < PLATEAU_BYTES, f"memory grew {grown} bytes over {MEASURED_ACKS} acks at full caches"
    # Old states are still there for whoever asks: the nearest snapshot plus a fold.
    old = await live.state_at(match_id, 42)
    assert old is not None and old.seq == 42


async def test_loaded_matches_are_capped_and_reload_on_use(live: LiveService) -> None:
    ids = []
    for _ in range(6):
        created = await live.create(duel())
        assert hasattr(created, "match_id")
        ids.append(created.match_id)
    for match_id in ids:
        assert await live.get(match_id) is not None
        assert len(live.runtimes) <= live.max_matches
    assert set(live.runtimes) == set(ids[-3:])  # the least recently used went first
    assert live.cache_sizes()["followed"] == 3
    again = await live.get(ids[0])  # an evicted match loads again, from the store
    assert again is not None and again.state.seq == 1 and ids[0] in live.runtimes
    assert len(live.runtimes) <= live.max_matches
