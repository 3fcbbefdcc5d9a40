"""The cluster tailer follows a match whose slot is resharded to another primary: events
appended before, during (ASK) and after the migration (MOVED) arrive once each, in order, and
the match ends up in the loop of its new primary.

During a migration a script whose keys are split between the nodes (or partly missing on the
importing node) is answered TRYAGAIN until the slot is finalised; the appender retries through
that (redis-cli --cluster reshard moves a slot in milliseconds). Here every append names an
action id, so both keys of the script exist and move together."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from redis.cluster import key_slot

from hulldown.store import RedisEventStore
from hulldown.store.cluster_tail import ClusterStreamTailer

from ..redis_cluster import LocalCluster

pytestmark = pytest.mark.cluster


async def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_tailer_follows_a_resharded_match(redis_cluster: LocalCluster, key_prefix: str) -> None:
    store = RedisEventStore.from_url(redis_cluster.url, prefix=key_prefix)
    seen: list[int] = []

    async def collect(match_id: str, batch: list[tuple[int, bytes]]) -> None:
        seen.extend(seq for seq, _ in batch)

    tail = ClusterStreamTailer(redis_cluster.url, collect, prefix=key_prefix, sweep_ms=500)
    key = store.keys.events("moving")
    slot = key_slot(key.encode())
    source = redis_cluster.primary_of(key)
    target = next(
        node
        for node in redis_cluster.live_nodes()
        if node is not source and redis_cluster.primary_of_slot_owner(node)
    )

    async def append(n: int) -> None:
        for _ in range(n):
            version = await store.version("moving")
            result = await store.append("moving", b"x", expect=version, action_id=f"act-{version + 1}")
            assert result.status == "appended"

    try:
        await tail.follow("moving")
        await tail.start()
        await append(3)
        await wait_until(lambda: seen == [1, 2, 3])
        assert tail.node_loops() == {source.address: {"moving"}}

        await asyncio.to_thread(redis_cluster.begin_migration, slot, source, target)
        await append(1)  # still on the source
        moved = await asyncio.to_thread(redis_cluster.move_keys, slot, source, target)
        assert moved >= 1
        # The source answers ASK (the keys are on the target now): ASKING + the script there.
        await append(2)
        await wait_until(lambda: seen == [1, 2, 3, 4, 5, 6])
        await asyncio.to_thread(redis_cluster.finish_migration, slot, target)
        await append(2)  # MOVED from the source from now on
        await wait_until(lambda: seen == list(range(1, 9)))
        await wait_until(lambda: tail.node_loops().get(target.address) == {"moving"})
        assert redis_cluster.primary_of(key) is target
        await asyncio.sleep(0.6)  # one more sweep: still nothing twice
        assert seen == list(range(1, 9))
    finally:
        await tail.stop()
        stale = [k async for k in store.client.scan_iter(match=f"{key_prefix}:*")]
        if stale:
            await store.client.delete(*stale)
        await store.aclose()
