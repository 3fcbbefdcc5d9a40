"""On a cluster an append is acknowledged after WAIT confirmed a replica has it, and a primary
that lost its script cache (a promoted replica, a restarted node) still runs the append."""

from __future__ import annotations

import signal
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio.cluster import RedisCluster

from hulldown.store import RedisEventStore
from hulldown.store.scripts import script_source

from ..redis_cluster import LocalCluster

pytestmark = pytest.mark.cluster


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    store = RedisEventStore.from_url(redis_cluster.url, prefix=key_prefix)
    try:
        yield store
    finally:
        stale = [k async for k in store.client.scan_iter(match=f"{key_prefix}:*")]
        if stale:
            await store.client.delete(*stale)
        await store.aclose()


async def test_an_append_waits_for_one_replica(
    cluster_store: RedisEventStore, redis_cluster: LocalCluster
) -> None:
    runner = cluster_store.cluster
    assert runner is not None and runner.wait_replicas == 1
    keys = [cluster_store.keys.events("w"), cluster_store.keys.dedupe("w")]
    args = [0, b"payload", "1", "act-1", cluster_store.keys.tail_channel("w")]
    acked = await runner.run(cluster_store._scripts.append.sha, script_source("append.lua"), keys, args)
    assert acked.replicas_acked == 1 and runner.unconfirmed == 0
    # the replica of the slot's primary has the event
    primary = redis_cluster.primary_of(keys[0])
    with primary.client() as client:
        role = client.execute_command("ROLE")  # master, offset, [[host, port, offset], ...]
    replica_port = int(role[2][0][1])
    replica = next(node for node in redis_cluster.live_nodes() if node.port == replica_port)
    with replica.client() as client:
        client.execute_command("READONLY")
        assert client.xlen(keys[0]) == 1


async def test_append_after_the_script_cache_was_flushed(cluster_store: RedisEventStore) -> None:
    assert (await cluster_store.append("f", b"1", expect=0, action_id="a")).status == "appended"
    client = cluster_store.client
    assert isinstance(client, RedisCluster)
    for node in client.get_primaries():
        await client.execute_command("SCRIPT", "FLUSH", target_nodes=node)
    assert (await cluster_store.append("f", b"2", expect=1, action_id="b")).status == "appended"
    assert (await cluster_store.append("f", b"2", expect=1, action_id="b")).seq == 2  # duplicate
    assert await cluster_store.read("f") == [(1, b"1"), (2, b"2")]


async def test_a_duplicate_retry_is_confirmed_only_once_a_replica_has_the_append(
    cluster_store: RedisEventStore, redis_cluster: LocalCluster
) -> None:
    """A retry of an append that landed (its connection broke before WAIT answered) runs on a
    new connection and is answered ``duplicate``; WAIT counts only its own connection's writes,
    so it must have written something for WAIT to cover the first append (the documented rule).
    Here the replica is stopped (SIGSTOP) while the append and its retry run: neither may count
    as confirmed. (Redis 7.0 also lets any command, a read-only script included, move the
    connection's WAIT offset to the primary's; the script's rewrite does not rely on that.)"""
    runner = cluster_store.cluster
    assert runner is not None and runner.wait_replicas == 1
    runner.wait_ms = 300
    keys = [cluster_store.keys.events("dup"), cluster_store.keys.dedupe("dup")]
    args = [0, b"payload", "1", "act-1", cluster_store.keys.tail_channel("dup")]
    primary = redis_cluster.primary_of(keys[0])
    with primary.client() as client:
        role = client.execute_command("ROLE")  # master, offset, [[host, port, offset], ...]
    replica = next(node for node in redis_cluster.live_nodes() if node.port == int(role[2][0][1]))
    assert replica.process is not None
    sha, source = cluster_store._scripts.append.sha, script_source("append.lua")
    replica.process.send_signal(signal.SIGSTOP)
    try:
        first = await runner.run(sha, source, keys, args)
        assert first.reply[0] in (b"appended", "appended") and first.replicas_acked == 0
        assert runner.unconfirmed == 1
        # The retry on a new connection, as after the first one broke.
        node = runner.cluster.get_node_from_key(keys[0])
        assert node is not None
        await node.disconnect()
        retry = await runner.run(sha, source, keys, args)
        assert retry.reply[0] in (b"duplicate", "duplicate") and int(retry.reply[1]) == 1
        assert retry.replicas_acked == 0 and runner.unconfirmed == 2
    finally:
        replica.process.send_signal(signal.SIGCONT)
    # Once the replica runs again, a retry is confirmed, and the stream holds one event.
    deadline = time.monotonic() + 10
    while (await runner.run(sha, source, keys, args)).replicas_acked != 1:
        assert time.monotonic() < deadline, "the replica never caught up"
    assert await cluster_store.read("dup") == [(1, b"payload")]
