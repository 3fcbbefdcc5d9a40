"""The delayed spectator feed (docs/architecture.md section 11): N events and/or T seconds behind
the match.

The delay is chosen per match at creation (``Options.spectator_delay_events`` /
``spectator_delay_seconds``) and enforced here, on the server: a state is *released* to the
delayed audience only once at least N newer events exist and its event is at least T seconds old
(by the event's server timestamp ``at``). Released states go out one seq at a time, as patches
between consecutive released states, so a delayed client sees the same consecutive patch stream
as a live one - only later. Nothing newer than the released state is ever queued for it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

import msgspec

from ..match.state import MatchState
from ..match.views import view_json, view_patch
from ..wire import protocol

RECENT_PATCHES = 1024
# An ended match has no newer events to count: its last states are released by the time delay
# alone [decided] (docs/architecture.md, "Delayed spectators").
MATCH_OVER_WAIVES_EVENT_DELAY = True

_encoder = msgspec.json.Encoder()


class DelayedFeed:
    """The states held back from delayed spectators and the ones already released."""

    def __init__(
        self,
        events: int,
        seconds: float,
        released: MatchState,
        broadcast: Callable[[str], None],
        on_release: Callable[[], None] = lambda: None,
    ) -> None:
        self.events = max(0, events)
        self.seconds = max(0.0, seconds)
        self.state = released
        self._broadcast = broadcast
        self._on_release = on_release
        self._held: deque[tuple[float, MatchState]] = deque()
        self.recent: deque[tuple[int, str]] = deque(maxlen=RECENT_PATCHES)
        self._timer: asyncio.TimerHandle | None = None
        self._view_cache: tuple[int, str] | None = None

    @property
    def seq(self) -> int:
        return self.state.seq

    def hold(self, at: float, state: MatchState) -> None:
        """A new state of the match (its event appended at server time ``at``)."""
        self._held.append((at, state))

    def release(self, current_seq: int, now: float | None = None) -> None:
        """Release every held state that is now old enough; arm a timer for the next one.

        Once the match is over (the newest held state has ended) no newer events will come to
        make up the event delay: the held states then wait for the time delay only
        (``MATCH_OVER_WAIVES_EVENT_DELAY``), so delayed spectators see the end and the dice."""
        now = time.time() if now is None else now
        released = False
        over = MATCH_OVER_WAIVES_EVENT_DELAY and bool(self._held) and self._held[-1][1].ended
        while self._held:
            at, state = self._held[0]
            if not over and current_seq - state.seq < self.events:
                break
            due = at + self.seconds
            if now < due:
                self._arm(due - now)
                break
            self._held.popleft()
            ops = view_patch(self.state, state)
            text = protocol.encode(protocol.Patch(seq=state.seq, ops=ops)).decode()
            self.recent.append((state.seq, text))
            self.state = state
            self._broadcast(text)
            released = True
        if released:
            self._on_release()

    def _arm(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay + 0.001, self._fire)

    def _fire(self) -> None:
        self._timer = None
        latest = self._held[-1][1].seq if self._held else self.state.seq
        self.release(latest)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def view_text(self) -> tuple[int, str]:
        """The released view as JSON text (cached per seq)."""
        cached = self._view_cache
        if cached is not None and cached[0] == self.state.seq:
            return cached
        self._view_cache = (self.state.seq, _encoder.encode(view_json(self.state)).decode())
        return self._view_cache

    def patches_after(self, seq: int) -> list[str] | None:
        """Released patches after ``seq``, or None if some are no longer held (or ``seq`` is
        beyond what was released: a delayed client never gets ahead)."""
        if seq == self.state.seq:
            return []
        if seq > self.state.seq or not self.recent or self.recent[0][0] > seq + 1:
            return None
        return [text for s, text in self.recent if s > seq]
