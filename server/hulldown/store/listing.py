"""The public match list: an index of public matches, newest first, paged by a cursor.

Two sorted sets hold the ids of public matches (a private match is never added): one for the
matches still running, one for those that ended. Every member scores 0 and is
``<creation time in ms, 15 digits>:<match id>``, so the lexicographic order is the creation order
(ties broken by id) and a page is one ``ZRANGE ... BYLEX REV`` starting strictly below the last
member of the previous page - the cursor. No match is loaded to list it: each entry is the match's
small ``summary`` hash, written when the match is created, while it runs (at most once a second,
see ``live/summaries.py``) and when it ends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.typing import EncodableT, FieldT

from .decode import as_str
from .keys import Keys

ListStatus = Literal["all", "live", "ended"]

CURSOR = re.compile(r"\A[0-9]{15}:[^\s{}]{1,200}\Z")
SUMMARY_FIELDS = ("edition", "created_at", "seq", "turn", "active", "phase", "ended", "winner")


def member(created_ms: int, match_id: str) -> str:
    """The listing member of a match: sorts by creation time, then id."""
    return f"{created_ms:015d}:{match_id}"


def created_ms(created_at: str) -> int:
    """The creation time of a match's meta (``created_at``, seconds) in milliseconds."""
    return round(float(created_at) * 1000)


@dataclass(frozen=True)
class ListedMatch:
    match_id: str
    summary: dict[str, str]


@dataclass(frozen=True)
class ListingPage:
    matches: list[ListedMatch]
    next_cursor: str | None


class MatchListing:
    """Reads and writes the public match list of one key prefix."""

    def __init__(self, client: Redis | RedisCluster, keys: Keys) -> None:
        self.client = client
        self.keys = keys

    async def add(self, match_id: str, created: int, summary: Mapping[str, str]) -> None:
        """List a new public match as live, with its first summary."""
        mapping: dict[FieldT, EncodableT] = dict(summary.items())
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(self.keys.summary(match_id), mapping=mapping)
            pipe.zadd(self.keys.listing("live"), {member(created, match_id): 0})
            await pipe.execute()

    async def update(self, match_id: str, summary: Mapping[str, str]) -> None:
        """Refresh the summary of a listed match."""
        if summary:
            mapping: dict[FieldT, EncodableT] = dict(summary.items())
            await self.client.hset(self.keys.summary(match_id), mapping=mapping)

    async def mark_ended(self, match_id: str, created: int, summary: Mapping[str, str]) -> None:
        """Move a listed match from live to ended (idempotent: every process following it may)."""
        await self.update(match_id, summary)
        name = member(created, match_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.zrem(self.keys.listing("live"), name)
            pipe.zadd(self.keys.listing("ended"), {name: 0})
            await pipe.execute()

    async def page(self, status: ListStatus, limit: int, cursor: str | None) -> ListingPage:
        """Up to ``limit`` listed matches created before ``cursor`` (None: the newest), newest first."""
        if cursor is not None and not CURSOR.match(cursor):
            raise ValueError(f"not a cursor of this list: {cursor!r}")
        top = "+" if cursor is None else f"({cursor}"
        statuses: Sequence[Literal["live", "ended"]] = ("live", "ended") if status == "all" else (status,)
        names: list[str] = []
        for one in statuses:
            found = await self.client.zrange(
                self.keys.listing(one), top, "-", desc=True, bylex=True, offset=0, num=limit + 1
            )
            names += [as_str(name) for name in found]
        names.sort(reverse=True)
        more = len(names) > limit
        names = names[:limit]
        ids = [name.split(":", 1)[1] for name in names]
        async with self.client.pipeline(transaction=False) as pipe:
            for match_id in ids:
                pipe.hmget(self.keys.summary(match_id), list(SUMMARY_FIELDS))
            replies = await pipe.execute() if ids else []
        matches = []
        for match_id, values in zip(ids, replies, strict=True):
            summary = {
                name: as_str(value)
                for name, value in zip(SUMMARY_FIELDS, values, strict=True)
                if value is not None
            }
            matches.append(ListedMatch(match_id, summary))
        return ListingPage(matches, names[-1] if more and names else None)
