"""Tailing match streams: one XREAD BLOCK loop per process over every followed match.

- The loop runs on a DEDICATED connection (a lean one, ``store/lean_connection.py``, for
  ``redis://`` and ``unix://`` URLs - every action wakes the loop once, so its XREAD is packed
  and parsed by hiredis without redis-py's layers - else a one-connection redis-py client; its
  reply timeout is the block time plus :data:`TAIL_REPLY_MARGIN`, no retries): a blocked XREAD
  never holds a pooled connection that other commands need, and the loop handles reconnects
  itself.
- Every XREAD names explicit last ids (``0-<seq>``), never ``$``: after a reconnect the loop
  resumes from the last seq it delivered, so nothing is skipped or delivered twice.
- Prompt pickup of newly followed matches: the loop also reads a private wake-up stream
  ``<prefix>:tail-wake:<uuid>``. ``follow()`` XADDs to it (through a separate control client),
  which ends the blocked XREAD at once; the next XREAD includes the new match. If the wake-up
  fails, the new match is still picked up when the block times out (``block_ms``).
  The wake-up stream is capped (MAXLEN), expires after an hour idle and is deleted by
  ``stop()``. Match streams themselves are never trimmed.
- ``on_events(match_id, [(seq, payload), ...])`` is awaited in order, one call at a time;
  keep it quick (hand events to queues). If it raises, the error is logged and the events
  count as delivered (a poison event must not stall every match).

A single XREAD over many streams needs them on one Redis node; on a Redis Cluster
``store/cluster_tail.py`` runs one loop per primary node instead (``store/tailers.py`` ``make_tailer`` picks).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError
from redis.typing import KeyT, StreamIdT

from .connect import make_client, without_password
from .decode import as_str, stream_entries, xread_streams
from .keys import DEFAULT_PREFIX, Keys
from .lean_connection import LeanAddress, LeanConnection, report_command

log = logging.getLogger(__name__)

EventsCallback = Callable[[str, list[tuple[int, bytes]]], Awaitable[None]]

WAKE_MAXLEN = 16
WAKE_TTL_MS = 3_600_000
# Seconds beyond the block time an XREAD may take before its connection counts as hung (dropped,
# reconnected with backoff).
TAIL_REPLY_MARGIN = 5.0


class StreamTailer:
    """Follows match streams and calls ``on_events`` with each batch of new events."""

    def __init__(
        self,
        url: str,
        on_events: EventsCallback,
        *,
        prefix: str = DEFAULT_PREFIX,
        block_ms: int = 1000,
        count: int = 500,
        control: Redis | None = None,
        backoff_initial: float = 0.05,
        backoff_max: float = 2.0,
    ) -> None:
        if block_ms <= 0:
            raise ValueError("block_ms must be > 0 (0 would block forever)")
        self._url = url
        self._on_events = on_events
        self._keys = Keys(prefix)
        self._block_ms = block_ms
        self._count = count
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._token = uuid.uuid4().hex
        self._wake_key = self._keys.tail_wake(self._token)
        self._wake_last = "0-0"
        self._wake_pending = False
        self._positions: dict[str, int] = {}
        self._match_of_key: dict[str, str] = {}
        self._key_of_match: dict[str, str] = {}
        self._control = control
        self._owns_control = control is None
        self._reader: Redis | None = None
        self._lean: LeanConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # -- public ---------------------------------------------------------------------------

    @property
    def client_name(self) -> str:
        """CLIENT SETNAME of the dedicated connection (handy to find it in CLIENT LIST)."""
        return f"hulldown-tail-{self._token}"

    @property
    def wake_key(self) -> str:
        """The private wake-up stream of this tailer."""
        return self._wake_key

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def following(self) -> dict[str, int]:
        """Followed match ids -> last seq delivered (or the ``after_seq`` given)."""
        return dict(self._positions)

    def position(self, match_id: str) -> int | None:
        return self._positions.get(match_id)

    async def start(self) -> None:
        if self.running:
            return
        self._stopping = False
        self._wake_last = "0-0"
        address = LeanAddress.from_url(self._url)
        if address is not None:
            self._lean = LeanConnection(
                address,
                reply_timeout=self._block_ms / 1000.0 + TAIL_REPLY_MARGIN,
                client_name=self.client_name,
            )
        else:
            self._reader = make_client(
                self._url,
                max_connections=1,
                socket_timeout=self._block_ms / 1000.0 + TAIL_REPLY_MARGIN,
                health_check_interval=0,
                retries=0,
                client_name=self.client_name,
            )
        if self._control is None:
            self._control = make_client(self._url, max_connections=2)
        self._task = asyncio.create_task(self._run(), name=f"hulldown-tail-{self._token[:8]}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._stopping = True
        if task is not None:
            await self._wake(force=True)
            try:
                await asyncio.wait_for(asyncio.shield(task), self._block_ms / 1000.0 + 1.0)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._reader is not None:
            await self._reader.aclose()
            self._reader = None
        if self._lean is not None:
            await self._lean.close()
            self._lean = None
        if self._control is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._control.delete(self._wake_key)
            if self._owns_control:
                await self._control.aclose()
                self._control = None

    async def follow(self, match_id: str, after_seq: int = 0) -> bool:
        """Deliver events of ``match_id`` with seq > ``after_seq``. False if already followed
        (its position is left unchanged)."""
        if after_seq < 0:
            raise ValueError("after_seq must be >= 0")
        if match_id in self._positions:
            return False
        key = self._keys.events(match_id)
        self._positions[match_id] = after_seq
        self._match_of_key[key] = match_id
        self._key_of_match[match_id] = key
        await self._wake()
        return True

    async def unfollow(self, match_id: str) -> bool:
        """Stop delivering events of ``match_id``; False if it was not followed."""
        if self._positions.pop(match_id, None) is None:
            return False
        key = self._key_of_match.pop(match_id, None)
        if key is not None:
            self._match_of_key.pop(key, None)
        return True

    # -- internals ------------------------------------------------------------------------

    async def _wake(self, *, force: bool = False) -> None:
        if self._task is None and not force:
            return
        if self._wake_pending and not force:
            return
        control = self._control
        if control is None:
            return
        self._wake_pending = True
        try:
            async with control.pipeline(transaction=False) as pipe:
                pipe.xadd(self._wake_key, {"w": "1"}, maxlen=WAKE_MAXLEN, approximate=False)
                pipe.pexpire(self._wake_key, WAKE_TTL_MS)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            # Not fatal: the loop picks the change up when its block times out.
            self._wake_pending = False
            log.debug("tailer wake-up failed: %r", exc)

    def _streams(self) -> dict[str, str]:
        streams: dict[str, str] = {self._wake_key: self._wake_last}
        keys = self._key_of_match
        for match_id, seq in self._positions.items():
            streams[keys[match_id]] = f"0-{seq}"
        return streams

    async def _read(self) -> object:
        """One blocking XREAD over the wake-up stream and every followed match."""
        streams = self._streams()
        lean = self._lean
        if lean is not None:
            started = time.perf_counter()
            command: tuple[bytes | str | int, ...] = (
                "XREAD",
                "COUNT",
                self._count,
                "BLOCK",
                self._block_ms,
                "STREAMS",
                *streams,
                *streams.values(),
            )
            try:
                reply = await lean.call(command)
            except RedisError as exc:
                report_command("XREAD", started, exc)
                raise
            report_command("XREAD", started, None)
            return reply
        reader = self._reader
        if reader is None:
            raise RuntimeError("the tailer is stopped")
        last_ids: dict[KeyT, StreamIdT] = {key: last for key, last in streams.items()}
        return await reader.xread(last_ids, count=self._count, block=self._block_ms)

    async def _run(self) -> None:
        delay = self._backoff_initial
        while not self._stopping:
            if self._reader is None and self._lean is None:
                return
            self._wake_pending = False
            try:
                reply = await self._read()
            except (RedisError, OSError) as exc:
                if self._stopping:
                    return
                log.warning(
                    "stream tail (%s): %r; retrying in %.2fs", without_password(self._url), exc, delay
                )
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
                delay = min(delay * 2, self._backoff_max)
                continue
            delay = self._backoff_initial
            if self._stopping:
                return
            await self._deliver(reply)

    async def _deliver(self, reply: object) -> None:
        for key, entries in xread_streams(reply):
            if key == self._wake_key:
                if entries:
                    self._wake_last = as_str(entries[-1][0])
                continue
            match_id = self._match_of_key.get(key)
            if match_id is None:
                continue  # unfollowed while the XREAD was in flight
            position = self._positions.get(match_id)
            if position is None:
                continue
            try:
                batch = [(seq, payload) for seq, payload in stream_entries(entries) if seq > position]
            except (KeyError, TypeError, ValueError):
                log.exception("stream tail: undecodable entry in %s; unfollowing %s", key, match_id)
                await self.unfollow(match_id)
                continue
            if not batch:
                continue
            self._positions[match_id] = batch[-1][0]
            try:
                await self._on_events(match_id, batch)
            except Exception:
                log.exception(
                    "stream tail: on_events failed for %s (seq %d..%d)", match_id, batch[0][0], batch[-1][0]
                )
