"""Listing the public matches created before the match list index existed (once per key prefix).

``GET /matches`` reads only the list index (``store/listing.py``). A store written by an earlier
version has its matches in ``<prefix>:matches`` but not in the index; the first server to start on
it adds every public one (no spectator token in its meta) that has no list entry yet: ended when
its last event is the seed reveal, else live, with the seq of its last event. Turn and phase are
filled in when the match is next loaded. Only Redis reads and writes - no match is loaded.

One process at a time does it: it holds an expiring claim while it works and sets the done flag
only at the end, so a process that dies or loses Redis half-way leaves the work to be done again
(adding a match is idempotent). :func:`keep_backfilling` retries until the flag is set: a server
that starts while Redis is unreachable lists the older matches once Redis is back.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from redis.exceptions import RedisError

from ..match.events import SeedRevealed, decode_event
from ..store.decode import as_str, stream_entries
from ..store.listing import MatchListing, created_ms
from ..store.redis_store import RedisEventStore

BATCH = 500
# How long the claim lasts unless renewed (it is renewed at every batch), in milliseconds.
CLAIM_MS = 30_000
# Waits between tries while Redis fails or another process holds the claim: doubling, capped.
RETRY_FIRST_S = 1.0
RETRY_MAX_S = 60.0

log = logging.getLogger(__name__)


async def backfill_listing(
    store: RedisEventStore, listing: MatchListing, batch: int = BATCH, owner: str = ""
) -> int | None:
    """Add the unlisted public matches to the list, once per prefix: how many were added (0
    once done before), or None when another process holds the claim and is at it now.
    ``owner``: who claims (a try that failed half-way left its claim: the same owner takes it
    up again); by default a new one."""
    keys = store.keys
    if await store.client.exists(keys.listing_backfilled()):
        return 0
    claim = keys.listing_backfill_claim()
    owner = owner or secrets.token_hex(8)
    if not await store.client.set(claim, owner, nx=True, px=CLAIM_MS):
        holder = await store.client.get(claim)
        if holder is None or as_str(holder) != owner:
            return None
        await store.client.pexpire(claim, CLAIM_MS)
    added = await _add_unlisted(store, listing, batch)
    await store.client.set(keys.listing_backfilled(), "1")
    await store.client.delete(claim)
    if added:
        log.info("match list: %d matches created before the list index were added to it", added)
    return added


async def keep_backfilling(store: RedisEventStore, listing: MatchListing) -> None:
    """:func:`backfill_listing` until it is done, by this process or another: after a Redis
    error, or while another process holds the claim, it tries again after RETRY_FIRST_S,
    doubling up to RETRY_MAX_S (a server's background task; cancelled when the server stops)."""
    owner = secrets.token_hex(8)
    wait = RETRY_FIRST_S
    while True:
        try:
            if await backfill_listing(store, listing, owner=owner) is not None:
                return
        except (RedisError, OSError) as exc:
            log.warning("match list: adding older matches failed (trying again in %g s): %r", wait, exc)
        await asyncio.sleep(wait)
        wait = min(wait * 2, RETRY_MAX_S)


async def _add_unlisted(store: RedisEventStore, listing: MatchListing, batch: int) -> int:
    """Every public match of ``<prefix>:matches`` with no list entry, added; the claim is
    renewed at every batch."""
    keys = store.keys
    added = 0
    offset = 0
    while True:
        raw_ids = await store.client.zrange(keys.matches(), offset, offset + batch - 1)
        if not raw_ids:
            break
        offset += len(raw_ids)
        await store.client.pexpire(keys.listing_backfill_claim(), CLAIM_MS)
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
    return added
