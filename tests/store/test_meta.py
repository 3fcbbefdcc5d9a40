"""Contract: match creation and meta."""

from __future__ import annotations

import pytest

from hulldown.store import RedisEventStore


async def test_create_once(store: RedisEventStore) -> None:
    assert not await store.exists("m1")
    assert await store.get_meta("m1") is None
    assert await store.create_match("m1", {"edition": "hh3", "name": "Tallarn"}) is True
    assert await store.exists("m1")
    assert await store.create_match("m1", {"edition": "40k7", "intruder": "yes"}) is False
    assert await store.get_meta("m1") == {"edition": "hh3", "name": "Tallarn"}


async def test_create_requires_meta(store: RedisEventStore) -> None:
    with pytest.raises(ValueError):
        await store.create_match("m1", {})


async def test_set_meta(store: RedisEventStore) -> None:
    await store.create_match("m1", {"status": "open"})
    await store.set_meta("m1", {"status": "finished", "winner": "attacker"})
    await store.set_meta("m1", {})
    assert await store.get_meta("m1") == {"status": "finished", "winner": "attacker"}


async def test_unicode_meta(store: RedisEventStore) -> None:
    await store.create_match("m1", {"name": "Schlacht um Tallarn \N{CROSSED SWORDS}"})
    assert await store.get_meta("m1") == {"name": "Schlacht um Tallarn \N{CROSSED SWORDS}"}


async def test_list_matches_in_creation_order(store: RedisEventStore) -> None:
    ids = [f"match-{i}" for i in range(7)]
    for match_id in ids:
        assert await store.create_match(match_id, {"n": match_id})
    assert await store.list_matches() == ids
    assert await store.list_matches(limit=3) == ids[:3]
    assert await store.list_matches(limit=3, offset=5) == ids[5:]
    assert await store.list_matches(limit=0) == []
    assert await store.list_matches(limit=2, newest_first=True) == ids[::-1][:2]


async def test_exists_for_a_match_with_events_only(store: RedisEventStore) -> None:
    await store.append("raw", b"x", expect=0)
    assert await store.exists("raw")
