"""Keeping a public match's entry in the match list current (``store/listing.py``).

The entry follows the state anyone without a token may see (the delayed state of a delayed
match), so the list tells nothing the match's spectators do not know yet. Writes are coalesced:
at most one per ``SUMMARY_EVERY`` seconds per match while it runs, and one at once when the
visible state ends (the match then moves from the live list to the ended one). Private matches
are never listed, so nothing is written for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from redis.exceptions import RedisError

from ..match.state import MatchState
from ..store.listing import MatchListing, created_ms

SUMMARY_EVERY = 1.0
FLUSH_TIMEOUT = 1.0  # a last write at shutdown or eviction waits no longer (Redis may be down)

log = logging.getLogger(__name__)


def summary_fields(state: MatchState) -> dict[str, str]:
    """The list entry of ``state`` (``created_at`` is written once, at creation)."""
    return {
        "edition": state.edition,
        "seq": str(state.seq),
        "turn": str(state.turn),
        "active": state.active,
        "phase": state.phase,
        "ended": "1" if state.ended else "0",
        "winner": state.winner or "",
    }


class SummaryWriter:
    """Writes the list entry of one public match, coalescing bursts of changes."""

    def __init__(self, listing: MatchListing, match_id: str, created_at: str, every: float = SUMMARY_EVERY):
        self.listing = listing
        self.match_id = match_id
        self.created = created_ms(created_at)
        self.every = every
        self._latest: MatchState | None = None
        self._written: tuple[int, bool] | None = None
        self._task: asyncio.Task[None] | None = None
        self._waiting = False  # the pending write is still waiting out ``every``

    def changed(self, state: MatchState) -> None:
        """The visible state is now ``state``: write it soon (at once if it ended)."""
        self._latest = state
        pending = self._task is not None and not self._task.done()
        if pending and not (state.ended and self._waiting):
            return  # the pending write will write the latest state
        if pending and self._task is not None:
            self._task.cancel()  # it ended: write now rather than after the wait
        delay = 0.0 if state.ended else self.every
        self._task = asyncio.get_running_loop().create_task(self._write_after(delay))

    async def _write_after(self, delay: float) -> None:
        if delay:
            self._waiting = True
            try:
                await asyncio.sleep(delay)
            finally:
                self._waiting = False
        await self.flush()

    async def flush(self) -> None:
        """Write the latest visible state now, if it was not written yet."""
        state = self._latest
        if state is None or self._written == (state.seq, state.ended):
            return
        try:
            if state.ended:
                await self.listing.mark_ended(self.match_id, self.created, summary_fields(state))
            else:
                await self.listing.update(self.match_id, summary_fields(state))
        except (RedisError, OSError) as exc:
            log.warning("match list entry of %s not written: %r", self.match_id, exc)
            return
        self._written = (state.seq, state.ended)
        latest = self._latest
        if latest is not None and latest.ended and not state.ended:
            await self.flush()  # it ended while this write was in flight

    async def close(self) -> None:
        """Write what is pending (within ``FLUSH_TIMEOUT``) and stop."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        try:
            await asyncio.wait_for(self.flush(), FLUSH_TIMEOUT)
        except TimeoutError:
            log.warning("match list entry of %s not written: Redis did not answer in time", self.match_id)
