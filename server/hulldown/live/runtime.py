"""One match as this process serves it: the folded state, recent patches and its hub.

Validate-then-append is serialised per match by a lock; the Lua version check in the store
stops writers in other processes (DESIGN.md section 8). Every new event - appended here or
read from the stream by the tailer - is folded exactly once, in seq order, and its patch is
encoded once and fanned out.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

import msgspec

from .. import protocol
from ..match.actions import Action
from ..match.dice_binding import event_dice
from ..match.events import Event, decode_event, encode_event
from ..match.reducer import evolve
from ..match.rejection import Rejection, reject
from ..match.state import MatchState, Side
from ..match.validate import validate
from ..match.views import view_json, view_patch
from ..store.redis_store import RedisEventStore
from .hub import Hub

RECENT_PATCHES = 1024
MAX_APPEND_RETRIES = 5

state_encoder = msgspec.json.Encoder()
state_decoder = msgspec.json.Decoder(MatchState)


class MatchRuntime:
    """The live state of one match in this process."""

    def __init__(
        self,
        store: RedisEventStore,
        match_id: str,
        seed: bytes,
        state: MatchState,
        *,
        snapshot_every: int,
        on_background: Callable[[asyncio.Task[None]], None] | None = None,
    ) -> None:
        self.store = store
        self.match_id = match_id
        self._seed = seed
        self.state = state
        self.snapshot_every = snapshot_every
        self.lock = asyncio.Lock()
        self.hub = Hub()
        self.recent: deque[tuple[int, str]] = deque(maxlen=RECENT_PATCHES)
        self._tasks: set[asyncio.Task[None]] = set()
        self._on_background = on_background
        self.view_text_cache: tuple[int, str] | None = None

    # ---- folding -------------------------------------------------------------------------

    def advance(self, event: Event) -> bool:
        """Fold ``event`` if it is the next one; returns whether it was applied."""
        if event.seq != self.state.seq + 1:
            return False
        before = self.state
        after = evolve(before, event, event_dice(self._seed, self.match_id, event))
        self.state = after
        ops = view_patch(before, after)
        text = protocol.encode(protocol.Patch(seq=after.seq, ops=ops)).decode()
        self.recent.append((after.seq, text))
        self.hub.broadcast(text)
        return True

    def advance_payloads(self, entries: list[tuple[int, bytes]]) -> None:
        """Fold events read from the stream (the tailer's delivery); skips ones already folded."""
        for seq, payload in entries:
            if seq <= self.state.seq:
                continue
            self.advance(decode_event(payload))

    async def catch_up(self) -> None:
        """Read and fold whatever the stream holds beyond our state (another process's appends)."""
        entries = await self.store.read(self.match_id, after=self.state.seq)
        self.advance_payloads(entries)

    # ---- acting --------------------------------------------------------------------------

    async def submit(
        self, side: Side, action: Action, action_id: str, expect: int | None = None
    ) -> protocol.Ack | protocol.Rejected:
        """Validate against the current state, append with ``expect``, fold. Never half-writes."""
        async with self.lock:
            for _ in range(MAX_APPEND_RETRIES):
                if expect is not None and expect != self.state.seq:
                    await self.catch_up()
                rejection = self._check(side, action, expect)
                if rejection is not None:
                    duplicate = await self._duplicate_of(action_id)
                    if duplicate is not None:
                        return protocol.Ack(action_id=action_id, seq=duplicate, duplicate=True)
                    return _rejected(action_id, rejection)
                event = Event(
                    seq=self.state.seq + 1, at=time.time(), by=side, action_id=action_id, body=action
                )
                result = await self.store.append(
                    self.match_id, encode_event(event), expect=self.state.seq, action_id=action_id
                )
                if result.status == "appended":
                    self.advance(event)
                    self._maybe_snapshot()
                    return protocol.Ack(action_id=action_id, seq=result.seq)
                if result.status == "duplicate":
                    await self.catch_up()
                    return protocol.Ack(action_id=action_id, seq=result.seq, duplicate=True)
                await self.catch_up()
            return _rejected(
                action_id,
                reject("busy", "DESIGN 1", "the match kept changing under this action; try again"),
            )

    def _check(self, side: Side, action: Action, expect: int | None) -> Rejection | None:
        if expect is not None and expect != self.state.seq:
            return reject(
                "stale",
                "DESIGN 1",
                f"action based on seq {expect}, the match is at seq {self.state.seq}",
                expect=expect,
                current=self.state.seq,
            )
        return validate(self.state, side, action)

    async def _duplicate_of(self, action_id: str) -> int | None:
        """The seq a retried action was appended at, if ``action_id`` is already in the stream."""
        raw = await self.store.client.hget(self.store.keys.dedupe(self.match_id), action_id)
        return None if raw is None else int(raw)

    async def append_system(self, event_body: object) -> int:
        """Append a system event (match end, seed reveal) under the lock."""
        async with self.lock:
            while True:
                event = Event(
                    seq=self.state.seq + 1,
                    at=time.time(),
                    by="system",
                    action_id=f"system-{self.state.seq + 1}",
                    body=event_body,  # type: ignore[arg-type]
                )
                result = await self.store.append(self.match_id, encode_event(event), expect=self.state.seq)
                if result.status == "appended":
                    self.advance(event)
                    self._maybe_snapshot()
                    return result.seq
                await self.catch_up()

    # ---- snapshots and views -------------------------------------------------------------

    def _maybe_snapshot(self) -> None:
        seq = self.state.seq
        if self.snapshot_every > 0 and seq % self.snapshot_every == 0:
            payload = state_encoder.encode(self.state)
            task = asyncio.ensure_future(self.store.save_snapshot(self.match_id, seq, payload))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def view_text(self) -> tuple[int, str]:
        """The full current view as JSON text (cached per seq)."""
        cached = self.view_text_cache
        if cached is not None and cached[0] == self.state.seq:
            return cached
        text = state_encoder.encode(view_json(self.state)).decode()
        self.view_text_cache = (self.state.seq, text)
        return self.view_text_cache

    def patches_after(self, seq: int) -> list[str] | None:
        """The patches after ``seq`` still held in memory, or None if some were dropped."""
        if seq == self.state.seq:
            return []
        if not self.recent or self.recent[0][0] > seq + 1 or seq > self.state.seq:
            return None
        return [text for s, text in self.recent if s > seq]


def _rejected(action_id: str, rejection: Rejection) -> protocol.Rejected:
    return protocol.Rejected(
        action_id=action_id,
        code=rejection.code,
        rule=rejection.rule,
        message=rejection.message,
        values=rejection.values,
    )
