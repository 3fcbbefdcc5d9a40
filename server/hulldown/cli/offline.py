"""Reading a match's log outside the server, for ``hulldown verify`` and ``hulldown replay``.

The Redis is ``--redis-url`` / ``REDIS_URL`` when given; otherwise the embedded one of the data
directory: its unix socket when a server is running on it, else a private embedded Redis started
on the data dir for the time of the command (it reads the AOF) and stopped afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..match.events import Event, decode_event
from ..store.embedded import EmbeddedRedis, socket_path_for
from ..store.redis_store import RedisEventStore

BATCH = 5000


@dataclass(frozen=True)
class MatchLog:
    match_id: str
    events: list[Event]
    meta: dict[str, str]


class UnknownMatch(Exception):
    pass


@contextlib.contextmanager
def redis_url_for(redis_url: str, data_dir: Path) -> Iterator[str]:
    """A Redis URL to read from (starting the data dir's embedded Redis if nothing runs on it)."""
    if redis_url:
        yield redis_url
        return
    socket = socket_path_for(data_dir)
    if socket.exists():
        yield f"unix://{socket}"
        return
    if not data_dir.exists():
        raise UnknownMatch(f"no data directory {data_dir} (and no --redis-url / REDIS_URL)")
    embedded = EmbeddedRedis(data_dir)
    embedded.start()
    try:
        yield embedded.url
    finally:
        embedded.stop()


async def load(
    url: str, prefix: str, match_id: str, on_batch: Callable[[int], None] | None = None
) -> MatchLog:
    """Every event of ``match_id`` (read in batches) and its meta."""
    store = RedisEventStore.from_url(url, prefix=prefix)
    try:
        meta = await store.get_meta(match_id)
        if meta is None and not await store.exists(match_id):
            raise UnknownMatch(f"no match {match_id!r} under key prefix {prefix!r}")
        events: list[Event] = []
        after = 0
        while True:
            entries = await store.read(match_id, after=after, count=BATCH)
            if not entries:
                break
            events.extend(decode_event(payload) for _, payload in entries)
            after = entries[-1][0]
            if on_batch is not None:
                on_batch(len(events))
        return MatchLog(match_id, events, meta or {})
    finally:
        await store.aclose()
