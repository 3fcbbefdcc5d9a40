"""Reading a match's log outside the server, for ``hulldown verify`` and ``hulldown replay``.

The Redis is ``--redis-url`` / ``REDIS_URL`` when given; otherwise the embedded one of the data
directory: its unix socket when a server is running on it (one holds its lock), else a private
embedded Redis started on the data dir for the time of the command (it reads the AOF) and
stopped afterwards.

:func:`read_match_log` raises :class:`UnknownMatch` (no such match, or an id no match can have)
or :class:`StoreUnreadable` (the Redis cannot be reached or read, the data dir cannot be used),
each with a one-line message.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
from redis.exceptions import RedisClusterException, RedisError

from ..match.events import Event, decode_event
from ..store.connect import without_password
from ..store.embedded import LOCK_NAME, EmbeddedRedis, data_dir_in_use, socket_path_for
from ..store.keys import validate_match_id
from ..store.redis_store import RedisEventStore

BATCH = 5000

# What reaching and reading a Redis (or starting the embedded one) raises when it cannot: no
# server, a refused or timed-out connection, a URL of no known scheme, a data dir that is not a
# directory or not ours, an embedded redis-server that does not start.
STORE_ERRORS: tuple[type[Exception], ...] = (
    RedisError,
    RedisClusterException,
    OSError,
    ValueError,
    RuntimeError,
)


@dataclass(frozen=True)
class MatchLog:
    match_id: str
    events: list[Event]
    meta: dict[str, str]


class UnknownMatch(Exception):
    """No match of that id in the store (or an id no match can have)."""


class StoreUnreadable(Exception):
    """The store could not be reached or read; the message says which store and why."""


class UnreadableEvent(Exception):
    """An event of the match's stream does not decode (the message names its seq): the log is
    damaged, which no retry mends."""


def read_match_log(redis_url: str, data_dir: Path, prefix: str, match_id: str) -> MatchLog:
    """The match's log from the Redis of ``redis_url``, else the embedded one of ``data_dir``."""
    try:
        validate_match_id(match_id)
    except ValueError as exc:
        raise UnknownMatch(f"no such match: {exc}") from None
    try:
        with redis_url_for(redis_url, data_dir) as resolved:
            return asyncio.run(load(resolved, prefix, match_id))
    except STORE_ERRORS as exc:
        where = store_label(redis_url, data_dir)
        raise StoreUnreadable(f"cannot read the store ({where}): {one_line(exc)}") from exc


def store_label(redis_url: str, data_dir: Path) -> str:
    """Which store a message is about, without the URL's password."""
    if redis_url:
        return without_password(redis_url)
    return f"the embedded Redis of data dir {data_dir}"


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (its type when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


@contextlib.contextmanager
def redis_url_for(redis_url: str, data_dir: Path) -> Iterator[str]:
    """A Redis URL to read from (starting the data dir's embedded Redis if nothing runs on it)."""
    if redis_url:
        yield redis_url
        return
    # As the server names its socket: from the absolute path (a relative one made the URL
    # ``unix://hulldown-data/redis.sock``, whose first part reads as a host, and a long one
    # hashed to another private directory), so the default data dir finds a running server.
    socket = socket_path_for(data_dir.absolute())
    if socket.exists() and data_dir_in_use(data_dir):
        yield f"unix://{socket}"
        return
    # Nobody runs on it: a socket still there was left by a Redis killed with its server, and the
    # embedded Redis started below replaces it.
    if not data_dir.exists():
        raise FileNotFoundError(f"no data directory {data_dir} (and no --redis-url / REDIS_URL)")
    if not data_dir.is_dir():
        raise NotADirectoryError(f"{data_dir} is not a directory")
    if not (data_dir / LOCK_NAME).exists():
        # Starting Redis here would write its files into (and close up) any folder named by mistake.
        raise FileNotFoundError(
            f"{data_dir} is not a hulldown data dir (it has no {LOCK_NAME}: no server ran on it); "
            "give the server's --data-dir, or --redis-url"
        )
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
            for seq, payload in entries:
                try:
                    events.append(decode_event(payload))
                except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                    raise UnreadableEvent(
                        f"the event at seq {seq} does not decode: {one_line(exc)}"
                    ) from None
            after = entries[-1][0]
            if on_batch is not None:
                on_batch(len(events))
        return MatchLog(match_id, events, meta or {})
    finally:
        await store.aclose()
