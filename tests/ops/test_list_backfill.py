"""The match list index (docs/operations.md, "The match list"): matches created before it existed
are added once, from Redis alone - public ones only, ended ones as ended."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from msgspec.structs import replace

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
