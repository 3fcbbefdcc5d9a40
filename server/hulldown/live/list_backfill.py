"""Listing the public matches created before the match list index existed (once per key prefix).

``GET /matches`` reads only the list index (``store/listing.py``). A store written by an earlier
version has its matches in ``<prefix>:matches`` but not in the index; the first server to start on
it adds every public one (no spectator token in its meta) that has no list entry yet: ended when
its last event is the seed reveal, else live, with the seq of its last event. Turn and phase are
filled in when the match is next loaded. Only Redis reads and writes - no match is loaded.
"""

from __future__ import annotations

import logging

from ..match.events import SeedRevealed, decode_event
from ..store.decode import as_str, stream_entries
from ..store.listing import MatchListing, created_ms
from ..store.redis_store import RedisEventStore

BATCH = 500

log = logging.getLogger(__name__)


async def backfill_listing(store: RedisEventStore, listing: MatchListing, batch: int = BATCH) -> int:
    """Add the unlisted public matches to the list (only the first call per prefix works);
    returns how many were added."""
    keys = store.keys
    if not await store.client.set(keys.listing_backfilled(), "1", nx=True):
        return 0
    added = 0
    offset = 0
    while True:
        raw_ids = await store.client.zrange(keys.matches(), offset, offset + batch - 1)
        if not raw_ids:
            break
        offset += len(raw_ids)
        ids = [as_str(match_id) for match_id in raw_ids]
        async with store.client.pipeline(transaction=False) as pipe:
            for match_id in ids:
                pipe.hmget(keys.meta(match_id), ["created_at", "edition", "spectator_token"])
                pipe.exists(keys.summary(match_id))
                pipe.xrevrange(keys.events(match_id), "+", "-", count=1)
            replies = await pipe.execute()
        for i, match_id in enumerate(ids):
            (created_at, edition, private), listed, last = replies[3 * i : 3 * i + 3]
            if created_at is None or private is not None or listed:
                continue
            entries = stream_entries(last)
            seq, ended = 0, False
            if entries:
                seq = entries[0][0]
                ended = isinstance(decode_event(entries[0][1]).body, SeedRevealed)
            summary = {
                "edition": as_str(edition or b""),
                "created_at": as_str(created_at),
                "seq": str(seq),
                "ended": "1" if ended else "0",
            }
            created = created_ms(as_str(created_at))
            await listing.add(match_id, created, summary)
            if ended:
                await listing.mark_ended(match_id, created, summary)
            added += 1
    if added:
        log.info("match list: %d matches created before the list index were added to it", added)
    return added
