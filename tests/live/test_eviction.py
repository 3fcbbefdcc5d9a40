"""Matches nobody uses are evicted from the process and come back intact on their next use."""

from __future__ import annotations

import time

from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.match.reducer import state_hash
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire.protocol import Ack
from tests.scenarios import duel


async def test_an_idle_match_is_evicted_and_reloads_identically(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=2)
    await live.start()
    try:
        created = await live.create(duel())
        assert isinstance(created, CreatedMatch)
        runtime = await live.get(created.match_id)
        assert runtime is not None
        for i in range(3):
            assert isinstance(await runtime.submit("a", EndPhase(), f"end-{i}"), Ack)
        before = state_hash(runtime.state)

        with runtime.in_use():  # a connected socket keeps it
            assert await live.evict_idle(0.0) == []
        assert await live.evict_idle(3600.0) == []  # not idle long enough
        runtime.last_used = time.monotonic() - 10.0
        assert await live.evict_idle(5.0) == [created.match_id]
        assert created.match_id not in live.runtimes
        assert created.match_id not in live.tailer.following()

        reloaded = await live.get(created.match_id)
        assert reloaded is not None and reloaded is not runtime
        assert state_hash(reloaded.state) == before
        assert created.match_id in live.tailer.following()
        assert isinstance(await reloaded.submit("b", EndPhase(), "b-end"), Ack)
    finally:
        await live.stop()
