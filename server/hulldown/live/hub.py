"""Fan-out: one bounded send queue per connection (DESIGN.md section 6).

A message is encoded once per audience and the same text is queued for every socket of that
audience. A consumer whose queue is full is never allowed to slow the others: its queue is
cleared and it gets a fresh full view (``resync``) when it catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Literal

Audience = Literal["a", "b", "spectator", "delayed"]

RESYNC = object()  # queue marker: send a fresh full view instead of the dropped messages
CLOSE = object()  # queue marker: stop the writer


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
        self.queue: asyncio.Queue[object] = asyncio.Queue(maxsize=capacity)
        self.resyncs = 0
        self.dropped = False

    def push(self, text: str) -> None:
        """Queue a message without waiting; a full queue turns into one resync."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self._overflow()

    def _overflow(self) -> None:
        self.resyncs += 1
        while not self.queue.empty():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
        self.queue.put_nowait(RESYNC)

    def close(self) -> None:
        try:
            self.queue.put_nowait(CLOSE)
        except asyncio.QueueFull:
            self._overflow()
            self.dropped = True

    async def run(self, resync: Callable[[], Awaitable[str]]) -> None:
        """Send queued messages in order until closed (``resync`` builds the fresh view)."""
        while True:
            item = await self.queue.get()
            if item is CLOSE or self.dropped:
                return
            if item is RESYNC:
                await self._send_text(await resync())
                continue
            assert isinstance(item, str)
            await self._send_text(item)


class Hub:
    """The connections of one match, by audience."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()

    def add(self, connection: Connection) -> None:
        self.connections.add(connection)

    def remove(self, connection: Connection) -> None:
        self.connections.discard(connection)

    def broadcast(self, text: str, audiences: tuple[Audience, ...] = ("a", "b", "spectator")) -> None:
        for connection in self.connections:
            if connection.audience in audiences:
                connection.push(text)

    def count(self, audience: Audience | None = None) -> int:
        if audience is None:
            return len(self.connections)
        return sum(1 for c in self.connections if c.audience == audience)
