"""Fan-out: one bounded send queue per connection (DESIGN.md section 6).

A message is encoded once per audience and the same text is queued for every socket of that
audience. A consumer whose queue is full is never allowed to slow the others: its queue is
cleared and it gets a fresh full view (``resync``) when it catches up.

The players come first: a broadcast reaches side ``a`` and side ``b`` before any spectator, and
spectators in the order they joined.

Each connection has a writer task that drains its queue. On the common path - the writer is idle
and nothing is queued - ``push`` sends at once instead of waking the writer: it starts the send
coroutine by hand, and the send finishes synchronously unless the socket pushes back (uvicorn then
waits for the transport to drain). Only then is the rest of the send handed to the writer, and
later messages queue behind it as before. This saves a task wake-up (a future, a loop callback and
a task step) per socket per broadcast, which is most of the fan-out's Python overhead.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from types import CoroutineType
from typing import Any, Literal

from . import observe

Audience = Literal["a", "b", "spectator", "delayed"]

RESYNC = object()  # queue marker: send a fresh full view instead of the dropped messages
CLOSE = object()  # queue marker: stop the writer
_PLAYERS_FIRST: tuple[Audience, ...] = ("a", "b", "spectator", "delayed")  # broadcast order


async def _finish(coro: Coroutine[Any, Any, None], awaited: Any) -> None:
    """Run ``coro`` to the end as a task would: it was started with ``coro.send(None)`` and is
    suspended on ``awaited`` (a future, or None after a bare ``yield``)."""
    try:
        while True:
            if awaited is None:
                await asyncio.sleep(0)
            else:
                awaited._asyncio_future_blocking = False  # as Task.__step does before waiting
                # Wait without taking the outcome: resuming ``coro`` makes its own ``await``
                # return the result or raise the exception, exactly where it was suspended.
                await asyncio.wait((awaited,))
            awaited = coro.send(None)
    except StopIteration:
        return
    finally:
        coro.close()  # a no-op once it has finished; unwinds it if we were cancelled


class Connection:
    """One websocket's outgoing side: a bounded queue drained by a single writer task."""

    def __init__(
        self,
        send_text: Callable[[str], Awaitable[None]],
        audience: Audience,
        capacity: int,
    ) -> None:
        self._send_text = send_text
        self.audience = audience
        self.capacity = capacity
        self.pending: deque[object] = deque()
        self.resyncs = 0
        self.dropped = False
        self._wakeup: asyncio.Future[None] | None = None  # set while the writer waits for work
        self._inflight: Awaitable[None] | None = None  # the rest of a send push() could not finish
        self._error: Exception | None = None  # a send started by push() failed
        self._sending = False  # the writer is in the middle of a send

    def push(self, text: str) -> None:
        """Send or queue a message without waiting; a full queue turns into one resync."""
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done() and not self.pending and not self._sending:
            # The writer is idle: nothing is queued or being sent, so sending now keeps the order.
            self._send_now(text)
            return
        if 0 < self.capacity <= len(self.pending):
            self._overflow()
            return
        self.pending.append(text)
        self._wake()

    def _send_now(self, text: str) -> None:
        sending = self._send_text(text)
        if type(sending) is not CoroutineType:  # some other awaitable: the writer awaits it
            self._inflight = sending
            self._sending = True
            self._wake()
            return
        try:
            awaited = sending.send(None)
        except StopIteration:
            return  # sent
        except Exception as exc:  # the socket is gone: the writer ends with this, as it would have
            self._error = exc
            self._wake()
            return
        self._inflight = _finish(sending, awaited)  # the socket pushed back: the writer finishes
        self._sending = True
        self._wake()

    def _wake(self) -> None:
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    def _overflow(self) -> None:
        observe.queue_overflowed()
        self.resyncs += 1
        self.pending.clear()
        self.pending.append(RESYNC)
        self._wake()

    def close(self) -> None:
        if 0 < self.capacity <= len(self.pending):
            self._overflow()
            self.dropped = True
            return
        self.pending.append(CLOSE)
        self._wake()

    async def run(self, resync: Callable[[], Awaitable[str]]) -> None:
        """Send queued messages in order until closed (``resync`` builds the fresh view)."""
        loop = asyncio.get_running_loop()
        while True:
            if self._inflight is not None:
                inflight, self._inflight = self._inflight, None
                try:
                    await inflight
                finally:
                    self._sending = False
                continue
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            if not self.pending:
                self._wakeup = loop.create_future()
                try:
                    await self._wakeup
                finally:
                    self._wakeup = None
                continue
            item = self.pending.popleft()
            if item is CLOSE or self.dropped:
                return
            self._sending = True
            try:
                if item is RESYNC:
                    await self._send_text(await resync())
                else:
                    assert isinstance(item, str)
                    await self._send_text(item)
            finally:
                self._sending = False


class Hub:
    """The connections of one match, by audience (each in the order it joined)."""

    def __init__(self) -> None:
        self._audiences: dict[Audience, dict[Connection, None]] = {a: {} for a in _PLAYERS_FIRST}

    @property
    def connections(self) -> list[Connection]:
        return [c for members in self._audiences.values() for c in members]

    def add(self, connection: Connection) -> None:
        self._audiences[connection.audience][connection] = None

    def remove(self, connection: Connection) -> None:
        self._audiences[connection.audience].pop(connection, None)

    def broadcast(self, text: str, audiences: tuple[Audience, ...] = ("a", "b", "spectator")) -> None:
        """Send or queue ``text`` for every connection of ``audiences``, players first."""
        for audience in _PLAYERS_FIRST:
            if audience in audiences:
                for connection in list(self._audiences[audience]):
                    connection.push(text)

    def count(self, audience: Audience | None = None) -> int:
        if audience is None:
            return sum(len(members) for members in self._audiences.values())
        return len(self._audiences[audience])
