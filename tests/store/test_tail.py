"""Contract: tailing match streams - one XREAD BLOCK loop on one Redis, one loop per primary
(sharded pub/sub wake-ups, explicit-id reads) on a Redis Cluster."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable

import pytest

from hulldown.store import RedisEventStore, StreamTailer
from hulldown.store.cluster_tail import ClusterStreamTailer
from hulldown.store.connect import is_cluster_url
from hulldown.store.tail import EventsCallback

AnyTailer = StreamTailer | ClusterStreamTailer


def make_tailer(
    url: str, on_events: EventsCallback, prefix: str, *, block_ms: int = 1000, count: int = 500
) -> AnyTailer:
    """The tailer for the backend; ``block_ms`` is the cluster tailer's sweep interval."""
    if is_cluster_url(url):
        return ClusterStreamTailer(url, on_events, prefix=prefix, sweep_ms=block_ms, count=count)
    return StreamTailer(url, on_events, prefix=prefix, block_ms=block_ms, count=count)


async def tailer_connection_ids(store: RedisEventStore, tail: AnyTailer) -> list[tuple[object, int]]:
    """(node, client id) of every connection carrying the tailer's client name."""
    found: list[tuple[object, int]] = []
    client = store.client
    if isinstance(tail, ClusterStreamTailer):
        await client.initialize()  # type: ignore[union-attr]  # loads the slot map once
        for node in client.get_primaries():  # type: ignore[union-attr]
            for row in await client.client_list(target_nodes=node):  # type: ignore[call-arg]
                if row.get("name") == tail.client_name:
                    found.append((node, int(row["id"])))
    else:
        for row in await client.client_list():
            if row.get("name") == tail.client_name:
                found.append((None, int(row["id"])))
    return found


async def kill_connection(store: RedisEventStore, node: object, client_id: int) -> None:
    if node is None:
        await store.client.client_kill_filter(_id=client_id)  # type: ignore[arg-type]
    else:
        await store.client.client_kill_filter(_id=client_id, target_nodes=node)  # type: ignore[arg-type,call-arg]


class Collector:
    def __init__(self) -> None:
        self.events: dict[str, list[tuple[int, bytes]]] = defaultdict(list)
        self.calls = 0

    async def __call__(self, match_id: str, batch: list[tuple[int, bytes]]) -> None:
        self.calls += 1
        self.events[match_id].extend(batch)

    def seqs(self, match_id: str) -> list[int]:
        return [seq for seq, _ in self.events[match_id]]


async def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> float:
    """Wait for ``condition``; return the seconds it took."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.005)
    return time.monotonic() - start


@pytest.fixture
async def collector() -> Collector:
    return Collector()


@pytest.fixture
async def tailer(store: RedisEventStore, store_url: str, collector: Collector) -> AsyncIterator[AnyTailer]:
    # A long block time: prompt pickup of new matches must come from the wake-up stream
    # (one Redis) or the shard channel and the node loop's follow check (cluster).
    tail = make_tailer(store_url, collector, store.keys.prefix, block_ms=5000)
    yield tail
    await tail.stop()


async def append(store: RedisEventStore, match_id: str, *payloads: bytes) -> None:
    for payload in payloads:
        version = await store.version(match_id)
        assert (await store.append(match_id, payload, expect=version)).status == "appended"


async def test_tailing_two_matches(store: RedisEventStore, tailer: AnyTailer, collector: Collector) -> None:
    await append(store, "a", b"a1", b"a2")
    assert await tailer.follow("a", after_seq=0)
    await tailer.start()
    await wait_until(lambda: collector.events["a"] == [(1, b"a1"), (2, b"a2")])

    # "b" is followed while the loop is blocked; it already has events, we want those after 1
    await append(store, "b", b"b1", b"b2", b"b3")
    await asyncio.sleep(0.1)
    assert await tailer.follow("b", after_seq=1)
    assert not await tailer.follow("b", after_seq=0)  # already followed: unchanged
    took = await wait_until(lambda: collector.seqs("b") == [2, 3])
    assert took < 2.0, "a newly followed match must not wait for the block timeout"

    # events appended while the loop is blocked, interleaved across both matches
    await asyncio.sleep(0.1)
    await append(store, "a", b"a3")
    await append(store, "b", b"b4")
    await append(store, "a", b"a4", b"a5")
    took = await wait_until(
        lambda: collector.seqs("a") == [1, 2, 3, 4, 5] and collector.seqs("b") == [2, 3, 4]
    )
    assert took < 2.0
    assert collector.events["a"] == [(i, f"a{i}".encode()) for i in range(1, 6)]
    assert collector.events["b"] == [(i, f"b{i}".encode()) for i in range(2, 5)]
    assert tailer.following() == {"a": 5, "b": 4}

    # unfollow: no more deliveries for "a"
    assert await tailer.unfollow("a")
    assert not await tailer.unfollow("a")
    await append(store, "a", b"a6")
    await append(store, "b", b"b5")
    await wait_until(lambda: collector.seqs("b") == [2, 3, 4, 5])
    await asyncio.sleep(0.1)
    assert collector.seqs("a") == [1, 2, 3, 4, 5]
    assert tailer.position("a") is None


async def test_large_backlog_arrives_in_order(store: RedisEventStore, store_url: str) -> None:
    collector = Collector()
    tail = make_tailer(store_url, collector, store.keys.prefix, block_ms=500, count=50)
    await append(store, "big", *(f"e{i}".encode() for i in range(1, 301)))
    await tail.follow("big")
    await tail.start()
    try:
        await wait_until(lambda: len(collector.events["big"]) == 300)
        assert collector.seqs("big") == list(range(1, 301))
        assert collector.calls >= 6  # delivered in batches of at most `count`
    finally:
        await tail.stop()


async def test_resumes_after_connection_loss(
    store: RedisEventStore, tailer: AnyTailer, collector: Collector
) -> None:
    await tailer.follow("r")
    await tailer.start()
    await append(store, "r", b"r1", b"r2")
    await wait_until(lambda: collector.seqs("r") == [1, 2])

    for round_ in range(2):
        ids = await tailer_connection_ids(store, tailer)
        assert ids, "the tailer's dedicated connection carries its client name"
        for node, client_id in ids:
            await kill_connection(store, node, client_id)
        base = 3 + 2 * round_
        await append(store, "r", f"r{base}".encode(), f"r{base + 1}".encode())
        await wait_until(lambda base=base: collector.seqs("r") == list(range(1, base + 2)))  # type: ignore[misc]

    await asyncio.sleep(0.1)
    assert collector.seqs("r") == [1, 2, 3, 4, 5, 6]  # nothing lost, nothing twice


async def test_callback_errors_do_not_stop_the_loop(store: RedisEventStore, store_url: str) -> None:
    seen: list[int] = []

    async def flaky(match_id: str, batch: list[tuple[int, bytes]]) -> None:
        seen.extend(seq for seq, _ in batch)
        if batch[0][0] == 1:
            raise RuntimeError("boom")

    tail = make_tailer(store_url, flaky, store.keys.prefix, block_ms=500)
    await tail.follow("f")
    await tail.start()
    try:
        await append(store, "f", b"1")
        await wait_until(lambda: seen == [1])
        await append(store, "f", b"2")
        await wait_until(lambda: seen == [1, 2])
    finally:
        await tail.stop()
    assert not tail.running


async def test_stop_is_prompt_and_restartable(store: RedisEventStore, store_url: str) -> None:
    collector = Collector()
    tail = make_tailer(store_url, collector, store.keys.prefix, block_ms=5000)
    await tail.follow("s")
    await tail.start()
    deadline = time.monotonic() + 5.0
    while not await tailer_connection_ids(store, tail):
        assert time.monotonic() < deadline, "the tailer never opened its named connection"
        await asyncio.sleep(0.02)
    start = time.monotonic()
    await tail.stop()
    assert time.monotonic() - start < 2.0
    if isinstance(tail, StreamTailer):
        assert await store.client.exists(tail.wake_key) == 0
    assert await tailer_connection_ids(store, tail) == [], "stop() closes the tailer's connections"
    await append(store, "s", b"s1")
    await tail.start()
    try:
        await wait_until(lambda: collector.seqs("s") == [1])
    finally:
        await tail.stop()
