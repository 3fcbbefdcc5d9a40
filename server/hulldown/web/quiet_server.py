"""uvicorn's server, woken once a second instead of ten times (docs/architecture.md section 7,
"An idle process").

uvicorn's ``Server.main_loop`` sleeps 0.1 s at a time: each tick checks for a shutdown request
and every tenth renews the ``Date`` header. On an idle or lightly used process those ticks were
most of the wake-ups, and every wake-up costs CPU (the loop, a timer, a coroutine step) and
leaves the caches colder for the next action. :class:`QuietServer` ticks once a second - the
``Date`` header keeps its one-second resolution - and a shutdown request (a signal, or
:meth:`QuietServer.request_exit` from any thread) wakes it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import FrameType

import uvicorn

TICK_SECONDS = 1.0
# uvicorn's on_tick renews the Date header when its counter is a multiple of this (its ticks
# per second); counting in steps of it renews the header on every one of our ticks.
UVICORN_TICKS_PER_SECOND = 10
UVICORN_COUNTER_WRAP = 864_000  # uvicorn's own wrap-around of the counter (a multiple of 10)


class QuietServer(uvicorn.Server):
    """``uvicorn.Server`` with a one-second main loop that a shutdown request wakes at once."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + UVICORN_TICKS_PER_SECOND) % UVICORN_COUNTER_WRAP
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK_SECONDS)
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        self._wake_now()

    def request_exit(self) -> None:
        """Stop serving (callable from any thread): what a SIGTERM does."""
        self.should_exit = True
        self._wake_now()

    def _wake_now(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)
