"""The event store: one Redis stream per match, the entry id ``0-<seq>`` is the version."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError
from redis.typing import EncodableT, FieldT

from .cluster_append import ClusterScriptRunner
from .connect import is_cluster_url, make_store_client, parse_cluster_url
from .decode import as_bytes, as_int, as_str, stream_entries
from .keys import DEFAULT_PREFIX, Keys
from .lean_connection import APPEND_REPLY_TIMEOUT, LeanAddress, LeanConnection, Then, report_command
from .pending_append import LeanAppend, PrivateAppend, append_result, private_append_commands
from .results import AppendResult
from .scripts import Scripts, script_source

PING_TIMEOUT = 1.0  # seconds: /healthz answers within about this long even when Redis hangs


class RedisEventStore:
    """Event store on Redis Streams, on one Redis or a Redis Cluster.

    The client must talk bytes (``decode_responses=False``); replies are decoded defensively
    anyway. A store built with :meth:`from_url` owns its client and closes it in
    :meth:`aclose`; a store given a client leaves it open.

    On a cluster (a ``RedisCluster`` client) every command and script touches the keys of one
    match only (one hash tag, one slot); the match index is one more key, always written and
    read on its own. Appends also publish the new seq on the match's shard channel (the
    cluster tailer's wake-up, ``store/cluster_tail.py``) and are acknowledged only once
    ``wait_replicas`` replicas confirmed them (``store/cluster_append.py``).

    A store built by :meth:`from_url` for a plain ``redis://`` or ``unix://`` URL sends its
    appends on a dedicated lean connection (``store/lean_connection.py``); every other
    command, and every append of a store given a client, goes through the client.
    """

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        prefix: str = DEFAULT_PREFIX,
        owns_client: bool = False,
        wait_replicas: int = 0,
        wait_ms: int = 500,
    ) -> None:
        self.client = client
        self.keys = Keys(prefix)
        self._owns_client = owns_client
        self._scripts = Scripts.register(client)
        self.cluster: ClusterScriptRunner | None = None
        self.append_connection: LeanConnection | None = None
        if isinstance(client, RedisCluster):
            self.cluster = ClusterScriptRunner(client, wait_replicas=wait_replicas, wait_ms=wait_ms)

    @classmethod
    def from_url(cls, url: str, *, prefix: str = DEFAULT_PREFIX, **client_options: Any) -> RedisEventStore:
        """A store with its own client built by :func:`make_store_client` (options passed
        through); a ``redis+cluster://`` URL gives a cluster store."""
        if is_cluster_url(url):
            parsed = parse_cluster_url(url)
            return cls(
                make_store_client(url, **client_options),
                prefix=prefix,
                owns_client=True,
                wait_replicas=parsed.wait_replicas,
                wait_ms=parsed.wait_ms,
            )
        store = cls(make_store_client(url, **client_options), prefix=prefix, owns_client=True)
        address = LeanAddress.from_url(url)
        if address is not None:
            store.append_connection = LeanConnection(
                address, reply_timeout=APPEND_REPLY_TIMEOUT, client_name=f"hulldown-append-{os.getpid()}"
            )
        return store

    @property
    def is_cluster(self) -> bool:
        return self.cluster is not None

    async def aclose(self) -> None:
        if self.append_connection is not None:
            await self.append_connection.close()
        if self._owns_client:
            await self.client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- health ---------------------------------------------------------------------------

    async def ping(self, timeout: float = PING_TIMEOUT) -> bool:
        """Whether Redis answers a PING within ``timeout`` seconds (a hanging Redis is down)."""
        try:
            return bool(await asyncio.wait_for(self.client.ping(), timeout))
        except (RedisError, OSError, TimeoutError):
            return False

    # -- events ---------------------------------------------------------------------------

    async def append(
        self, match_id: str, payload: bytes, expect: int, action_id: str | None = None
    ) -> AppendResult:
        """Append ``payload`` as event ``expect + 1`` if the stream is at version ``expect``.

        One Lua call: dedupe check (a known ``action_id`` returns its original seq as
        ``duplicate``, whatever ``expect`` says), then version check (``conflict`` with the
        current version), then XADD ``0-<expect+1>``. Nothing is written unless appended.
        """
        return await (await self.begin_append(match_id, payload, expect, action_id))()

    async def begin_append(
        self, match_id: str, payload: bytes, expect: int, action_id: str | None = None
    ) -> Callable[[], Awaitable[AppendResult]]:
        """Start :meth:`append` and return what awaits its result.

        On the lean connection the command is written before this returns, so the caller can
        work while Redis does (the live runtime prepares the patch meanwhile); elsewhere the
        whole call happens when the result is awaited. Either way nothing is known to be
        appended until the result says so.
        """
        keys, args = self._append_arguments(match_id, payload, expect, action_id)
        lean = self.append_connection
        if lean is not None:
            started = time.perf_counter()
            try:
                reply = await lean.send(("EVALSHA", self._scripts.append.sha, 2, *keys, *args))
            except RedisError as exc:
                report_command("EVALSHA", started, exc)
                raise
            return LeanAppend(lean, reply, keys, args, started).finish
        return lambda: self._client_append(match_id, keys, args)

    def append_now(
        self,
        match_id: str,
        payload: bytes,
        expect: int,
        action_id: str | None = None,
        then: Then | None = None,
    ) -> LeanAppend | None:
        """:meth:`begin_append` for a caller on a callback of the loop: the command is written
        before this returns, nothing is awaited. None, with nothing written, unless the store
        appends on a lean connection that is open right now (then use :meth:`begin_append`).
        ``then`` is called once the reply is in (or the command failed), from the connection's
        own callback."""
        lean = self.append_connection
        if lean is None:
            return None
        keys, args = self._append_arguments(match_id, payload, expect, action_id)
        started = time.perf_counter()
        reply = lean.send_now(("EVALSHA", self._scripts.append.sha, 2, *keys, *args), then)
        if reply is None:
            return None
        return LeanAppend(lean, reply, keys, args, started)

    def append_private_now(
        self, match_id: str, payload: bytes, seq: int, action_id: str, then: Then | None = None
    ) -> PrivateAppend | None:
        """Append event ``seq`` without the append script, for the runtime of a private store
        that checked the version and the action id itself (``pending_append.PrivateAppend``):
        written before this returns, nothing awaited. None, with nothing written, unless the
        lean connection is open right now. ``then`` as for :meth:`append_now`."""
        lean = self.append_connection
        if lean is None:
            return None
        events, dedupe = self.keys.events(match_id), self.keys.dedupe(match_id)
        started = time.perf_counter()
        reply = lean.send_batch_now(private_append_commands(events, dedupe, seq, payload, action_id), then)
        if reply is None:
            return None
        return PrivateAppend(lean, reply, dedupe, action_id, seq, started)

    async def action_ids(self, match_id: str) -> dict[str, int]:
        """Every action id appended to the match, with the seq it was appended at."""
        found = await self.client.hgetall(self.keys.dedupe(match_id))
        return {as_str(action_id): as_int(seq) for action_id, seq in found.items()}

    def _append_arguments(
        self, match_id: str, payload: bytes, expect: int, action_id: str | None
    ) -> tuple[list[str], list[bytes | str | int]]:
        if expect < 0:
            raise ValueError("expect must be >= 0")
        keys = [self.keys.events(match_id), self.keys.dedupe(match_id)]
        args: list[bytes | str | int] = [
            expect,
            payload,
            "0" if action_id is None else "1",
            "" if action_id is None else action_id,
        ]
        return keys, args

    async def _client_append(
        self, match_id: str, keys: list[str], args: list[bytes | str | int]
    ) -> AppendResult:
        if self.cluster is not None:
            acked = await self.cluster.run(
                self._scripts.append.sha,
                script_source("append.lua"),
                keys,
                [*args, self.keys.tail_channel(match_id)],
            )
            return append_result(acked.reply)
        return append_result(await self._scripts.append(keys=keys, args=args))

    async def version(self, match_id: str) -> int:
        """The seq of the last event appended (0 for an empty or unknown match)."""
        return as_int(await self._scripts.version(keys=[self.keys.events(match_id)]))

    async def read(
        self, match_id: str, after: int = 0, until: int | None = None, count: int | None = None
    ) -> list[tuple[int, bytes]]:
        """Events with ``after < seq <= until`` (``until=None``: to the end), oldest first.

        On a cluster the read is confirmed like an append (``ClusterScriptRunner.read``): it
        returns once a replica has what it read, so nothing is shown that a failover could lose."""
        if after < 0:
            raise ValueError("after must be >= 0")
        if count is not None and count <= 0:
            return []
        if until is not None and until <= after:
            return []
        key, end = self.keys.events(match_id), "+" if until is None else f"0-{until}"
        if self.cluster is not None:  # only what a replica has too (docs/store.md, "Redis Cluster")
            limit = () if count is None else ("COUNT", count)
            command = ("XRANGE", key, f"(0-{after}", end, *limit)
            return stream_entries(
                (await self.cluster.read(key, self.keys.tail_sync(match_id), command)).reply
            )
        entries = await self.client.xrange(key, f"(0-{after}", end, count=count)
        return stream_entries(entries)

    # -- matches --------------------------------------------------------------------------

    async def create_match(self, match_id: str, meta: Mapping[str, str]) -> bool:
        """Create the match with its meta; False (and nothing written) if it already exists.

        The meta hash is created atomically (Lua). The match is then added to the global
        match index; that key lives in another cluster slot, so it is a second command
        (repeated, idempotently, when the match already exists).
        """
        if not meta:
            raise ValueError("meta must have at least one field")
        args: list[str] = []
        for name, value in meta.items():
            args += [name, value]
        meta_key = self.keys.meta(match_id)
        if self.cluster is not None:
            reply = (
                await self.cluster.run(
                    self._scripts.create.sha, script_source("create.lua"), [meta_key], args
                )
            ).reply
        else:
            reply = await self._scripts.create(keys=[meta_key], args=args)
        created = as_int(reply)
        await self.client.zadd(self.keys.matches(), {match_id: time.time() * 1000.0}, nx=True)
        return created == 1

    async def exists(self, match_id: str) -> bool:
        """True if the match was created or has events."""
        found = await self.client.exists(self.keys.meta(match_id), self.keys.events(match_id))
        return as_int(found) > 0

    async def get_meta(self, match_id: str) -> dict[str, str] | None:
        raw = await self.client.hgetall(self.keys.meta(match_id))
        if not raw:
            return None
        return {as_str(k): as_str(v) for k, v in raw.items()}

    async def set_meta(self, match_id: str, fields: Mapping[str, str]) -> None:
        if fields:
            mapping: dict[FieldT, EncodableT] = {name: value for name, value in fields.items()}
            await self.client.hset(self.keys.meta(match_id), mapping=mapping)

    async def list_matches(
        self, limit: int = 100, offset: int = 0, *, newest_first: bool = False
    ) -> list[str]:
        """Match ids in creation order (oldest first unless ``newest_first``)."""
        if limit <= 0:
            return []
        if offset < 0:
            raise ValueError("offset must be >= 0")
        ids = await self.client.zrange(self.keys.matches(), offset, offset + limit - 1, desc=newest_first)
        return [as_str(i) for i in ids]

    async def count_creation(self, client: str, window_ms: int) -> tuple[int, int]:
        """Count one ``POST /matches`` of the address ``client`` in its window, shared by every
        process on this Redis and prefix (web/create_limit.py): ``(count, ms left)``, the requests
        counted in the open window (this one included) and the milliseconds until it closes.

        One script call on one key (``create_rate.lua``; on a cluster it goes to that key's
        primary, with no ``WAIT``: a count lost in a failover only lets a client a few more). A
        failure raises ``RedisError``."""
        if window_ms <= 0:
            raise ValueError("window_ms must be >= 1")
        reply = await self._scripts.create_rate(keys=[self.keys.create_rate(client)], args=[window_ms])
        count, left = reply
        return as_int(count), as_int(left)

    # -- snapshots ------------------------------------------------------------------------

    async def save_snapshot(self, match_id: str, seq: int, payload: bytes) -> None:
        """Store the encoded state as of ``seq`` (overwrites a snapshot at the same seq)."""
        if seq <= 0:
            raise ValueError("snapshot seq must be >= 1")
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.snaps(match_id), str(seq), payload)
            pipe.zadd(self.keys.snapidx(match_id), {str(seq): seq})
            await pipe.execute()

    async def load_snapshot(self, match_id: str, at_or_before: int | None = None) -> tuple[int, bytes] | None:
        """The latest snapshot with ``seq <= at_or_before`` (any seq if None), or None."""
        top: str | int = "+inf" if at_or_before is None else at_or_before
        found = await self.client.zrevrangebyscore(self.keys.snapidx(match_id), top, "-inf", start=0, num=1)
        if not found:
            return None
        seq = as_int(found[0])
        payload = await self.client.hget(self.keys.snaps(match_id), str(seq))
        if payload is None:
            return None
        return seq, as_bytes(payload)
