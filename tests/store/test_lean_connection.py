"""The lean connections (store/lean_connection.py): which stores use one, the hand-shake, the
script cache, pipelining, and a reply timeout that drops the connection."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.exceptions import TimeoutError as RedisTimeoutError

from hulldown.store import EmbeddedRedis, RedisEventStore, make_client
from hulldown.store.lean_connection import LeanAddress, LeanConnection


def test_plain_and_unix_urls_get_an_address_tls_and_cluster_do_not() -> None:
    assert LeanAddress.from_url("unix:///tmp/r.sock?db=2") == LeanAddress(path="/tmp/r.sock", db=2)
    assert LeanAddress.from_url("redis://u:p@h:6380/3") == LeanAddress(
        host="h", port=6380, db=3, username="u", password="p"
    )
    assert LeanAddress.from_url("rediss://h:6380") is None
    assert LeanAddress.from_url("redis+cluster://h:7000") is None


async def test_appends_go_to_the_database_of_the_url(embedded_redis: EmbeddedRedis) -> None:
    prefix = f"lean-{uuid.uuid4().hex[:8]}"
    async with RedisEventStore.from_url(f"{embedded_redis.url}?db=3", prefix=prefix) as store:
        assert store.append_connection is not None
        assert (await store.append("m", b"one", expect=0)).seq == 1
        other = make_client(f"{embedded_redis.url}?db=3")
        default = make_client(embedded_redis.url)
        try:
            assert await other.xlen(store.keys.events("m")) == 1
            assert await default.exists(store.keys.events("m")) == 0
        finally:
            await other.delete(store.keys.events("m"))
            await other.aclose()
            await default.aclose()


async def test_a_flushed_script_cache_is_reloaded(store: RedisEventStore) -> None:
    if store.append_connection is None:
        pytest.skip("this backend has no lean append connection")
    assert (await store.append("m", b"one", expect=0)).seq == 1
    await store.client.script_flush()
    assert (await store.append("m", b"two", expect=1)).seq == 2  # NOSCRIPT, then EVAL
    assert [p for _, p in await store.read("m")] == [b"one", b"two"]


async def test_appends_of_many_matches_pipeline_on_the_one_connection(store: RedisEventStore) -> None:
    if store.append_connection is None:
        pytest.skip("this backend has no lean append connection")
    results = await asyncio.gather(*(store.append(f"m{i}", b"x", expect=0) for i in range(50)))
    assert {(r.status, r.seq) for r in results} == {("appended", 1)}
    assert store.append_connection.connects == 1
    conflict = await store.append("m0", b"y", expect=0)
    assert (conflict.status, conflict.seq) == ("conflict", 1)


async def test_no_reply_in_time_fails_the_command_and_drops_the_connection(
    embedded_redis: EmbeddedRedis,
) -> None:
    address = LeanAddress.from_url(embedded_redis.url)
    assert address is not None
    lean = LeanConnection(address, reply_timeout=0.2, client_name="hulldown-test-lean")
    try:
        assert await lean.call(("PING",)) == b"PONG"
        with pytest.raises(RedisTimeoutError):
            await lean.call(("BLPOP", f"lean-nothing-{uuid.uuid4().hex}", 5))  # blocks past 0.2 s
        assert not lean.connected
        assert await lean.call(("PING",)) == b"PONG"
        assert lean.connects == 2
    finally:
        await lean.close()
