"""The count behind the limit on match creation (docs/limits-and-outages.md, "Match creation";
``RedisEventStore.count_creation``, ``store/create_rate.lua``): one expiring key per client
address, on every backend (one Redis, and a Redis Cluster: one key per command, any slot)."""

from __future__ import annotations

import asyncio

from hulldown.store import RedisEventStore

CREATE_WINDOW_MS = 60_000  # a minute (web/create_limit.py)


async def test_the_count_is_one_expiring_key_per_client(store: RedisEventStore) -> None:
    """The count lives in ``<prefix>:create-rate:<address>`` with the window's expiry, set by the
    request that opened the window and not moved by later ones; once it expires the next request
    opens a new window (Redis holds nothing for a client idle a minute)."""
    key = store.keys.create_rate("198.51.100.4")
    assert key == f"{store.keys.prefix}:create-rate:198.51.100.4"
    assert await store.count_creation("198.51.100.4", CREATE_WINDOW_MS) == (1, CREATE_WINDOW_MS)
    ttl = await store.client.pttl(key)
    assert 0 < ttl <= CREATE_WINDOW_MS
    await asyncio.sleep(0.05)
    count, left = await store.count_creation("198.51.100.4", CREATE_WINDOW_MS)
    assert count == 2 and 0 < left < CREATE_WINDOW_MS  # the window's end did not move

    # A short window, to watch it close.
    assert (await store.count_creation("203.0.113.9", 200))[0] == 1
    assert (await store.count_creation("203.0.113.9", 200))[0] == 2
    await asyncio.sleep(0.4)
    assert await store.client.exists(store.keys.create_rate("203.0.113.9")) == 0
    assert (await store.count_creation("203.0.113.9", 200))[0] == 1

    # Whatever a trusted proxy forwards, the key stays short, with no braces or spaces.
    odd = store.keys.create_rate("{evil} client\n" * 50)
    assert len(odd) < 100 and not any(ch in odd for ch in "{} \n")
    assert store.keys.create_rate("") != store.keys.create_rate("-")
