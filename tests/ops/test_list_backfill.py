"""The match list index (docs/operations.md, "The match list"): matches created before it existed
are added once, from Redis alone - public ones only, ended ones as ended."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from msgspec.structs import replace

from hulldown.live import list_backfill
from hulldown.live.list_backfill import backfill_listing
from hulldown.live.service import LiveService
from hulldown.match.actions import Concede
from hulldown.match.state import Options
from hulldown.store import RedisEventStore
from hulldown.wire import protocol
from tests.scenarios import duel


@pytest.fixture
async def live(store: RedisEventStore, redis_url: str, key_prefix: str) -> AsyncIterator[LiveService]:
    service = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await service.start()
    yield service
    await service.stop()


async def _forget_the_index(store: RedisEventStore, ids: list[str]) -> None:
    """What a store written before the list index looks like: no list, no summaries, no flag."""
    keys = store.keys
    await store.client.delete(
        keys.listing("live"),
        keys.listing("ended"),
        keys.listing_backfilled(),
        *(keys.summary(i) for i in ids),
    )


async def _next_millisecond() -> None:
    """The list orders by creation time in milliseconds, ties by id (docs/operations.md): two
    matches made in one millisecond have no creation order to check, so let the clock move on."""
    await asyncio.sleep(0.002)


async def test_older_public_matches_are_listed_once(live: LiveService, store: RedisEventStore) -> None:
    assert live._backfill is not None
    await live._backfill  # the start's own backfill (nothing to do here) is over before we begin
    ids = []
    for request in (duel(), replace(duel(), options=Options(private_spectators=True)), duel(), duel()):
        await _next_millisecond()
        created = await live.create(request)
        assert hasattr(created, "match_id")
        ids.append(created.match_id)
    first, private, ended, newest = ids
    runtime = await live.get(ended)
    assert runtime is not None
    assert isinstance(await runtime.submit("a", Concede(), "concede"), protocol.Ack)
    assert runtime.state.ended and runtime.state.seed  # the seed reveal is the last event
    await live.stop()  # the summary writers are done before the index is taken away
    await _forget_the_index(store, ids)
    assert (await live.listing.page("all", 10, None)).matches == []

    assert await backfill_listing(store, live.listing) == 3
    everything = await live.listing.page("all", 10, None)
    assert [m.match_id for m in everything.matches] == [newest, ended, first]  # newest first, no private
    assert [m.match_id for m in (await live.listing.page("ended", 10, None)).matches] == [ended]
    assert [m.match_id for m in (await live.listing.page("live", 10, None)).matches] == [newest, first]
    by_id = {m.match_id: m.summary for m in everything.matches}
    assert by_id[ended]["ended"] == "1" and by_id[ended]["seq"] == str(runtime.state.seq)
    assert by_id[first]["seq"] == "1" and by_id[first]["edition"] == "40k7"
    assert await backfill_listing(store, live.listing) == 0  # once per prefix
    assert private not in by_id


def warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "adding older matches failed" in r.getMessage()]


async def test_a_failed_backfill_is_tried_again_until_redis_answers(
    store: RedisEventStore,
    redis_url: str,
    key_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """docs/operations.md, "The match list": a server that could not list the older matches at
    start (Redis failing) tries again until it can. It gave up until the next start, and the
    done flag it had set first stayed set when deleting it failed too: those matches were never
    listed."""
    monkeypatch.setattr(list_backfill, "RETRY_FIRST_S", 0.05)
    first = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await first.start()
    ids = []
    for _ in range(2):
        await _next_millisecond()
        created = await first.create(duel())
        assert hasattr(created, "match_id")
        ids.append(created.match_id)
    await first.stop()
    await _forget_the_index(store, ids)
    keys = store.keys
    index = await store.client.zrange(keys.matches(), 0, -1, withscores=True)
    # The match index answers every read with an error (a string where a sorted set belongs).
    await store.client.delete(keys.matches())
    await store.client.set(keys.matches(), "not a sorted set")
    second = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await second.start()
    try:
        await asyncio.sleep(0.3)  # a few failed tries
        assert second._backfill is not None and not second._backfill.done()
        assert not await store.client.exists(keys.listing_backfilled())
        assert len(warned(caplog)) >= 2  # it tried more than once
        await store.client.delete(keys.matches())
        await store.client.zadd(keys.matches(), dict(index))
        await asyncio.wait_for(second._backfill, 5)
        listed = await second.listing.page("all", 10, None)
        assert sorted(m.match_id for m in listed.matches) == sorted(ids)
        assert await store.client.exists(keys.listing_backfilled())
    finally:
        await second.stop()


async def test_only_the_claim_holder_backfills_and_the_flag_is_set_when_it_is_done(
    store: RedisEventStore, live: LiveService
) -> None:
    """docs/operations.md, "The match list": one process at a time adds the older matches (an
    expiring claim); the done flag is set only once they are all in, so a process stopped
    half-way leaves the work to the next."""
    assert live._backfill is not None
    await live._backfill
    keys = store.keys
    await store.client.delete(keys.listing_backfilled())
    await store.client.set(keys.listing_backfill_claim(), "another process", px=list_backfill.CLAIM_MS)
    assert await backfill_listing(store, live.listing) is None  # someone else is at it
    assert not await store.client.exists(keys.listing_backfilled())
    await store.client.delete(keys.listing_backfill_claim())  # that process died: its claim expired
    assert await backfill_listing(store, live.listing) == 0
    assert await store.client.exists(keys.listing_backfilled())
    assert not await store.client.exists(keys.listing_backfill_claim())
