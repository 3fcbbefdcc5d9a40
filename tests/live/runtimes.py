"""A live runtime of a fresh duel in this test process (a ``LiveService`` on the test store, no
server process), for tests that drive ``MatchRuntime`` directly."""

from __future__ import annotations

from hulldown.live.runtime import MatchRuntime
from hulldown.live.service import CreatedMatch, LiveService
from hulldown.store.redis_store import RedisEventStore
from tests.scenarios import duel


async def duel_runtime(store: RedisEventStore, redis_url: str, key_prefix: str) -> MatchRuntime:
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    created = await live.create(duel())
    assert isinstance(created, CreatedMatch)
    runtime = await live.get(created.match_id)
    assert runtime is not None
    return runtime
