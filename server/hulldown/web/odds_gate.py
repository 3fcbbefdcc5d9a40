"""How many odds answers a process computes at once (``POST /matches/{id}/odds``,
docs/odds.md, "What an answer may cost").

An answer is pure CPU work in a worker thread, up to the engine's limit of seconds. Unbounded,
one side sending many at once held as many threads and starved the event loop of the GIL: every
match's pings and acks waited (tens of milliseconds at the median, a second at worst, with forty
requests of one side). So each side of a match has one answer in the making at a time (another
request meanwhile: 429 ``odds_busy``), and the process computes at most :data:`ODDS_AT_ONCE` at
once; the others wait their turn in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.requests import Request

# Odds answers computed at once in one process: with the loop, no more threads than the machine's
# two cores want the GIL (the rules pool's switch interval lets the loop in between).
ODDS_AT_ONCE = 2


class OddsGate:
    """One answer in the making per match and side; at most ``at_once`` computed at once."""

    def __init__(self, at_once: int = ODDS_AT_ONCE) -> None:
        self._slots = asyncio.Semaphore(max(1, at_once))
        self._asking: set[tuple[str, str]] = set()

    @contextlib.asynccontextmanager
    async def turn(self, match_id: str, side: str) -> AsyncIterator[bool]:
        """Yields False at once when this side of the match is already waiting for an answer;
        else waits for a free slot and yields True while holding it."""
        key = (match_id, side)
        if key in self._asking:
            yield False
            return
        self._asking.add(key)
        try:
            async with self._slots:
                yield True
        finally:
            self._asking.discard(key)


def odds_gate(request: Request) -> OddsGate:
    gate: OddsGate | None = getattr(request.app.state, "odds_gate", None)
    if gate is None:
        gate = request.app.state.odds_gate = OddsGate()
    return gate
