"""Contract: append, version, read."""

from __future__ import annotations

import asyncio

import pytest

from hulldown.store import AppendResult, RedisEventStore


async def fill(store: RedisEventStore, match_id: str, n: int) -> list[bytes]:
    payloads = [f"event-{i}".encode() for i in range(1, n + 1)]
    for i, payload in enumerate(payloads):
        assert await store.append(match_id, payload, expect=i, action_id=None) == AppendResult(
            "appended", i + 1
        )
    return payloads


async def test_empty_match(store: RedisEventStore) -> None:
    assert await store.version("nothing") == 0
    assert await store.read("nothing") == []


async def test_append_and_read(store: RedisEventStore) -> None:
    payloads = await fill(store, "m", 10)
    assert await store.version("m") == 10
    everything = await store.read("m")
    assert everything == list(enumerate(payloads, start=1))
    assert await store.read("m", after=3) == everything[3:]
    assert await store.read("m", after=3, until=6) == everything[3:6]
    assert await store.read("m", after=0, until=1) == everything[:1]
    assert await store.read("m", after=2, count=3) == everything[2:5]
    assert await store.read("m", after=10) == []
    assert await store.read("m", after=6, until=6) == []
    assert await store.read("m", after=6, until=2) == []
    assert await store.read("m", count=0) == []


async def test_binary_payloads(store: RedisEventStore) -> None:
    blobs = [bytes(range(256)), b"", b"\x00\r\n\xff" * 1000]
    for i, blob in enumerate(blobs):
        assert (await store.append("bin", blob, expect=i)).status == "appended"
    assert [p for _, p in await store.read("bin")] == blobs


async def test_seq_is_the_stream_entry_id(store: RedisEventStore) -> None:
    await fill(store, "ids", 3)
    raw = await store.client.xrange(store.keys.events("ids"), "-", "+")
    assert raw is not None
    assert [entry_id for entry_id, _ in raw] == [b"0-1", b"0-2", b"0-3"]
    assert [fields for _, fields in raw] == [{b"e": b"event-1"}, {b"e": b"event-2"}, {b"e": b"event-3"}]


async def test_stale_expect_is_refused_and_writes_nothing(store: RedisEventStore) -> None:
    await fill(store, "c", 3)
    for stale in (0, 2, 4, 99):
        result = await store.append("c", b"late", expect=stale, action_id=f"act-{stale}")
        assert result == AppendResult("conflict", 3)
        assert not result.ok
    assert await store.version("c") == 3
    assert [p for _, p in await store.read("c")] == [b"event-1", b"event-2", b"event-3"]
    # a refused action id was not recorded: it can still be appended
    assert await store.client.hlen(store.keys.dedupe("c")) == 0
    assert await store.append("c", b"now", expect=3, action_id="act-2") == AppendResult("appended", 4)


async def test_retry_with_same_action_id_returns_original_seq(store: RedisEventStore) -> None:
    first = await store.append("d", b"move", expect=0, action_id="a-1")
    assert first == AppendResult("appended", 1)
    await store.append("d", b"other", expect=1, action_id="a-2")
    # the retry carries the now-stale expect: still a duplicate, not a conflict
    retry = await store.append("d", b"move", expect=0, action_id="a-1")
    assert retry == AppendResult("duplicate", 1)
    assert retry.ok
    # same action id with a current expect: nothing appended either
    assert await store.append("d", b"move", expect=2, action_id="a-1") == AppendResult("duplicate", 1)
    assert await store.version("d") == 2
    assert await store.read("d") == [(1, b"move"), (2, b"other")]


async def test_action_ids_are_per_match(store: RedisEventStore) -> None:
    assert await store.append("x", b"1", expect=0, action_id="same") == AppendResult("appended", 1)
    assert await store.append("y", b"1", expect=0, action_id="same") == AppendResult("appended", 1)


async def test_empty_action_id_is_an_action_id(store: RedisEventStore) -> None:
    assert await store.append("e", b"1", expect=0, action_id="") == AppendResult("appended", 1)
    assert await store.append("e", b"1", expect=1, action_id="") == AppendResult("duplicate", 1)
    assert await store.append("e", b"2", expect=1, action_id=None) == AppendResult("appended", 2)


async def test_concurrent_appends_same_expect_exactly_one_wins(store: RedisEventStore) -> None:
    await fill(store, "race", 5)
    results = await asyncio.gather(
        *(store.append("race", f"writer-{i}".encode(), expect=5, action_id=f"w{i}") for i in range(20))
    )
    winners = [i for i, r in enumerate(results) if r.status == "appended"]
    assert len(winners) == 1
    assert results[winners[0]].seq == 6
    assert all(r == AppendResult("conflict", 6) for i, r in enumerate(results) if i != winners[0])
    assert await store.version("race") == 6
    assert (await store.read("race", after=5)) == [(6, f"writer-{winners[0]}".encode())]


async def test_invalid_arguments(store: RedisEventStore) -> None:
    with pytest.raises(ValueError):
        await store.append("v", b"x", expect=-1)
    with pytest.raises(ValueError):
        await store.append("bad{id}", b"x", expect=0)
    with pytest.raises(ValueError):
        await store.read("v", after=-1)


async def test_foreign_stream_is_not_mistaken_for_an_event_stream(store: RedisEventStore) -> None:
    await store.client.xadd(store.keys.events("foreign"), {"e": b"x"}, id="5-1")
    with pytest.raises(Exception, match="not a hulldown event stream"):
        await store.append("foreign", b"y", expect=0)
    with pytest.raises(Exception, match="not a hulldown event stream"):
        await store.version("foreign")


async def test_a_last_entry_deleted_by_hand_is_never_written_over(store: RedisEventStore) -> None:
    """The version is the last entry's seq (docs/store.md); should that entry be deleted by hand,
    an append at the lower seq is refused by the stream itself and writes nothing - no seq is
    reused, none skipped."""
    await fill(store, "cut", 3)
    await store.client.xdel(store.keys.events("cut"), "0-3")
    assert await store.version("cut") == 2
    with pytest.raises(Exception, match="equal or smaller"):
        await store.append("cut", b"again", expect=2, action_id="late")
    assert await store.read("cut") == [(1, b"event-1"), (2, b"event-2")]
    assert await store.client.hget(store.keys.dedupe("cut"), "late") is None


async def test_the_version_is_read_alike_after_a_large_first_entry(store: RedisEventStore) -> None:
    """A match definition of tens of KB in the first entry changes nothing in the version read."""
    assert await store.append("big", b"x" * 40_000, expect=0, action_id=None) == AppendResult("appended", 1)
    assert await store.append("big", b"y", expect=1, action_id="a") == AppendResult("appended", 2)
    assert await store.append("big", b"z", expect=1, action_id="b") == AppendResult("conflict", 2)
    assert await store.version("big") == 2


async def test_ping(store: RedisEventStore) -> None:
    assert await store.ping() is True
