"""On a cluster an append is acknowledged after WAIT confirmed a replica has it, and a primary
that lost its script cache (a promoted replica, a restarted node) still runs the append."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster

from hulldown.store import RedisEventStore
from hulldown.store.cluster_tail import ClusterStreamTailer
from hulldown.store.results import AppendResult
from hulldown.store.scripts import script_source

from ..redis_cluster import LocalCluster, Node

pytestmark = pytest.mark.cluster

WAITING_S = 30.0  # a socket timeout beyond the tests' WAIT (wait_ms 10 s): no retry meanwhile


def _waiting_store(redis_cluster: LocalCluster, key_prefix: str) -> RedisEventStore:
    """A store whose appends and reads wait up to 10 s for a replica (a stopped one, here)."""
    return RedisEventStore.from_url(
        f"{redis_cluster.url}?wait_ms=10000", prefix=key_prefix, socket_timeout=WAITING_S
    )


async def _cleaned_up(store: RedisEventStore, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    """``store`` for a test; then its keys are deleted and it is closed."""
    try:
        yield store
    finally:
        stale = [k async for k in store.client.scan_iter(match=f"{key_prefix}:*")]
        if stale:
            await store.client.delete(*stale)
        await store.aclose()


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    store = RedisEventStore.from_url(redis_cluster.url, prefix=key_prefix)
    async for kept in _cleaned_up(store, key_prefix):
        yield kept


@pytest.fixture
async def waiting_store(redis_cluster: LocalCluster, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    async for kept in _cleaned_up(_waiting_store(redis_cluster, key_prefix), key_prefix):
        yield kept


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


def _replica_of(redis_cluster: LocalCluster, key: str) -> Node:
    primary = redis_cluster.primary_of(key)
    with primary.client() as client:
        role = client.execute_command("ROLE")  # master, offset, [[host, port, offset], ...]
    return next(node for node in redis_cluster.live_nodes() if node.port == int(role[2][0][1]))


def _waiting_clients(node: Node, name: str | None = None) -> int:
    """How many connections (named ``name``, if given) are blocked in WAIT on ``node``."""
    with node.client() as client:
        found = client.client_list()
    return sum(1 for c in found if c.get("cmd") == "wait" and name in (None, c.get("name")))


async def test_the_tailer_delivers_an_append_only_once_a_replica_has_it(
    waiting_store: RedisEventStore, redis_cluster: LocalCluster, key_prefix: str
) -> None:
    """A process shows its sockets what its tailer delivers; an event no replica has yet would be
    lost if its primary failed now (its replica, promoted, never had it), and no player has been
    told it was appended (the append waits in WAIT). The tailer, woken by the append's wake-up,
    must not deliver such an event: it waits for a replica as the append does
    (docs/store.md, "Redis Cluster")."""
    delivered: list[int] = []

    async def on_events(match_id: str, batch: list[tuple[int, bytes]]) -> None:
        delivered.extend(seq for seq, _ in batch)

    tailer = ClusterStreamTailer(
        f"{redis_cluster.url}?wait_ms=10000", on_events, prefix=key_prefix, sweep_ms=100
    )
    await tailer.start()
    key = waiting_store.keys.events("held")
    primary, replica = redis_cluster.primary_of(key), _replica_of(redis_cluster, key)
    assert replica.process is not None
    appending: asyncio.Task[AppendResult] | None = None
    try:
        await tailer.follow("held")
        assert (await waiting_store.append("held", b"1", expect=0, action_id="1")).seq == 1
        await _until(lambda: delivered == [1])
        replica.process.send_signal(signal.SIGSTOP)
        try:
            appending = asyncio.create_task(waiting_store.append("held", b"2", expect=1, action_id="2"))
            with primary.client() as client:
                await _until(lambda: client.xlen(key) == 2)  # on the primary, not acknowledged
            # The tailer has read it (wake-up and sweeps) and waits for the replica.
            await _until(
                lambda: _waiting_clients(primary, tailer.client_name) > 0, unless=lambda: delivered != [1]
            )
            assert not appending.done()
            assert delivered == [1], "an event no replica had was delivered"
        finally:
            replica.process.send_signal(signal.SIGCONT)
        assert (await appending).status == "appended"
        await _until(lambda: delivered == [1, 2])
    finally:
        if appending is not None and not appending.done():
            appending.cancel()
        await tailer.stop()


async def test_a_read_returns_an_append_only_once_a_replica_has_it(
    waiting_store: RedisEventStore, redis_cluster: LocalCluster, key_prefix: str
) -> None:
    """Another process reads the stream when it loads the match (a spectator arrives) or catches
    up (its player's act lost the race): an event read there before a replica has it would be
    shown, and lost if its primary failed now. The read returns once a replica has it."""
    other = _waiting_store(redis_cluster, key_prefix)
    key = waiting_store.keys.events("read")
    primary, replica = redis_cluster.primary_of(key), _replica_of(redis_cluster, key)
    assert replica.process is not None
    tasks: list[asyncio.Task[Any]] = []
    try:
        assert (await waiting_store.append("read", b"1", expect=0, action_id="1")).seq == 1
        assert await other.read("read") == [(1, b"1")]  # its slot map is loaded (no node stopped)
        replica.process.send_signal(signal.SIGSTOP)
        try:
            appending = asyncio.create_task(waiting_store.append("read", b"2", expect=1, action_id="2"))
            tasks.append(appending)
            with primary.client() as client:
                await _until(lambda: client.xlen(key) == 2)  # on the primary, not acknowledged
            reading = asyncio.create_task(other.read("read"))
            tasks.append(reading)
            await _until(lambda: _waiting_clients(primary) >= 2, unless=reading.done)  # both wait
            assert not appending.done()
        finally:
            replica.process.send_signal(signal.SIGCONT)
        assert (await appending).status == "appended"
        assert await reading == [(1, b"1"), (2, b"2")]
    finally:
        for task in tasks:
            task.cancel()
        await other.aclose()


async def _until(
    condition: Callable[[], bool], *, unless: Callable[[], bool] | None = None, timeout: float = 20.0
) -> None:
    """Wait for ``condition``; fail at once should ``unless`` become true first."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert unless is None or not unless(), "seen before a replica had it"
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)
