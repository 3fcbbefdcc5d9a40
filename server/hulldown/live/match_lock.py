"""The lock that serialises one match's acts: ``asyncio.Lock``'s ``async with`` plus a
synchronous :meth:`MatchLock.try_acquire`.

The act path takes the lock without awaiting when it is free (``MatchRuntime.submit_now``,
docs/architecture.md section 1): an act decided and appended from the socket's own callback
holds it until Redis answers. Waiters are served first come, first served, and a released lock
passes straight to the first waiter, so a synchronous taker never overtakes one that waits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from types import TracebackType


class MatchLock:
    """A non-reentrant lock for one event loop."""

    __slots__ = ("_locked", "_waiters")

    def __init__(self) -> None:
        self._locked = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    def locked(self) -> bool:
        return self._locked

    def try_acquire(self) -> bool:
        """Take the lock if it is free and nobody waits for it; never waits."""
        if self._locked:
            return False
        self._locked = True
        return True

    async def acquire(self) -> None:
        if not self._locked:
            self._locked = True
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed the lock just as we were cancelled: pass it on
            else:
                with contextlib.suppress(ValueError):  # release() may have dropped it already
                    self._waiters.remove(turn)
            raise

    def release(self) -> None:
        """Release the lock; the first waiter, if any, holds it from now on."""
        if not self._locked:
            raise RuntimeError("MatchLock released while not held")
        waiters = self._waiters
        while waiters:
            turn = waiters.popleft()
            if not turn.done():
                turn.set_result(None)  # the lock stays held: it passes to that waiter
                return
        self._locked = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
