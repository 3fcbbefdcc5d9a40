"""Who watches a match across every process: a per-match presence hash in Redis.

Each process has a random id. Every ``every`` seconds it compares, for each match it serves,
its local counts (spectators, players) with what it last wrote, and writes
``HSET <prefix>:{match}:presence <process id> "<spectators> <players> <expires ms>"`` when they
changed or half the lifetime has passed (a heartbeat), then ``PEXPIRE``s the hash. The key
shares the match's hash tag: one slot, no cross-slot command, fine on a Redis Cluster.

Readers add up the fields that have not expired (a SIGKILLed process's counts vanish after
``lifetime`` seconds) and use their own live counts instead of their own field (never stale).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable

from redis.exceptions import RedisError

from ..store.decode import as_str
from ..store.redis_store import RedisEventStore

log = logging.getLogger(__name__)

Counts = tuple[int, int]  # (spectators, players)


class Presence:
    """Writes this process's audience counts per match and sums everyone's."""

    def __init__(
        self,
        store: RedisEventStore,
        local: Callable[[], dict[str, Counts]],
        *,
        every: float = 0.5,
        lifetime: float = 15.0,
    ) -> None:
        self.store = store
        self.local = local
        self.every = every
        self.lifetime = lifetime
        self.process_id = uuid.uuid4().hex[:16]
        self._written: dict[str, tuple[Counts, float]] = {}
        self._task: asyncio.Task[None] | None = None

    def key(self, match_id: str) -> str:
        return self.store.keys.presence(match_id)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="hulldown-presence")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for match_id in list(self._written):
            await self.forget(match_id)

    async def forget(self, match_id: str) -> None:
        """Remove this process's field (the match was evicted or the process stops)."""
        if self._written.pop(match_id, None) is not None:
            with contextlib.suppress(RedisError, OSError):
                await self.store.client.hdel(self.key(match_id), self.process_id)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.publish()
            except (RedisError, OSError) as exc:
                log.info("presence: %r (retrying)", exc)

    async def publish(self) -> None:
        now = time.time()
        counts = self.local()
        for match_id in [m for m in self._written if m not in counts]:
            await self.forget(match_id)
        for match_id, current in counts.items():
            last = self._written.get(match_id)
            if last is not None and last[0] == current and now - last[1] < self.lifetime / 2:
                continue
            if last is None and current == (0, 0):
                continue
            expires = int((now + self.lifetime) * 1000)
            key = self.key(match_id)
            async with self.store.client.pipeline(transaction=False) as pipe:
                pipe.hset(key, self.process_id, f"{current[0]} {current[1]} {expires}")
                pipe.pexpire(key, int(self.lifetime * 1000) * 2)
                await pipe.execute()
            self._written[match_id] = (current, now)

    async def totals(self, match_id: str) -> Counts:
        """Spectators and players connected to ``match_id`` over every live process."""
        own = self.local().get(match_id, (0, 0))
        spectators, players = own
        now_ms = time.time() * 1000
        raw = await self.store.client.hgetall(self.key(match_id))
        for field, value in raw.items():
            if as_str(field) == self.process_id:
                continue
            try:
                watching, playing, expires = (int(part) for part in as_str(value).split())
            except ValueError:
                continue
            if expires > now_ms:
                spectators += watching
                players += playing
        return spectators, players
