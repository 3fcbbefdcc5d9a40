"""States of one match at any seq, for the live server (docs/architecture.md sections 5 and 10).

The fold itself runs on the rules pool (``rules_pool.py``), off the event loop.

Recent states stay in memory (the runtime remembers the states it folds, at most
``DEFAULT_CAPACITY`` of them: structural sharing keeps that cheap); older ones come from the
nearest snapshot plus a fold of the events after it.
The fold is the history-aware one, so an undo inside the folded range loads the state it restores
through this same source (always an earlier seq, so the recursion ends).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import msgspec

from ..match.dice_binding import event_dice
from ..match.events import Event, decode_event
from ..match.history import StateAt, evolve_with_history, needed_seq
from ..match.state import MatchState
from ..rules.dice import Dice
from ..store.redis_store import RedisEventStore
from .rules_pool import run_rules_for

# States of one match kept in memory (most recently used first out). Every fold remembers its
# state, so without a bound a match holds one state per event it ever had (~3-5 KB each). 128
# covers the undo and takeback window of the line of play; anything older is the nearest snapshot
# (every ``snapshot_every`` events, 100 by default) plus a short fold. docs/operations.md.
DEFAULT_CAPACITY = 128

state_decoder = msgspec.json.Decoder(MatchState)


class StateSource:
    """``await get(seq)``: the state of ``match_id`` as of ``seq``."""

    def __init__(
        self, store: RedisEventStore, match_id: str, seed: bytes, capacity: int = DEFAULT_CAPACITY
    ) -> None:
        self.store = store
        self.match_id = match_id
        self._seed = seed
        self._capacity = capacity
        self._cache: OrderedDict[int, MatchState] = OrderedDict()

    def remember(self, state: MatchState) -> None:
        self._cache[state.seq] = state
        self._cache.move_to_end(state.seq)
        while len(self._cache) > self._capacity:
            self._cache.popitem(last=False)

    def __len__(self) -> int:
        return len(self._cache)

    def cached(self, seq: int) -> MatchState | None:
        return self._cache.get(seq)

    def dice(self, event: Event) -> Dice:
        return event_dice(self._seed, self.match_id, event)

    async def get(self, seq: int | None = None) -> MatchState | None:
        """The state as of ``seq`` (None: the latest the store holds), or None if there is none."""
        if seq is not None:
            cached = self._cache.get(seq)
            if cached is not None:
                self._cache.move_to_end(seq)
                return cached
        snapshot = await self.store.load_snapshot(self.match_id, at_or_before=seq)
        state = MatchState(match_id=self.match_id, edition="40k7", seq=0)
        if snapshot is not None:
            state = state_decoder.decode(snapshot[1])
        entries = await self.store.read(self.match_id, after=state.seq, until=seq)
        states = await self.fold(state, [decode_event(payload) for _, payload in entries])
        final = states[-1] if states else state
        if final.seq == 0 or (seq is not None and final.seq != seq):
            return None
        self.remember(final)
        return final

    async def fold(self, state: MatchState, events: Sequence[Event]) -> list[MatchState]:
        """Fold ``events`` onto ``state``; every intermediate state, remembered."""
        states: list[MatchState] = []
        for event in events:
            state = await self.evolve(state, event, self.dice(event))
            self.remember(state)
            states.append(state)
        return states

    async def evolve(self, state: MatchState, event: Event, dice: Dice) -> MatchState:
        """One history-aware step, loading the state an undo or takeback restores first."""
        restore = await self.restorer(state, event)
        if restore is None:
            raise LookupError(f"match {self.match_id}: no state at seq {needed_seq(state, event)} to restore")
        # Always on the pool: catching up and loading fold many events in a row, and an inline
        # call never gives the loop a turn (live/rules_pool.py).
        return await run_rules_for(self.match_id, evolve_with_history, state, event, dice, restore)

    async def restorer(self, state: MatchState, event: Event) -> StateAt | None:
        """The ``state_at`` folding ``event`` onto ``state`` needs: the one earlier state an undo
        or takeback restores, loaded now; None when that state cannot be found."""
        need = needed_seq(state, event)
        if need is None:
            return _nothing
        target = await self.get(need)
        return None if target is None else _only(need, target)

    def restorer_now(self, state: MatchState, event: Event) -> StateAt | None:
        """:meth:`restorer` without awaiting: None when the state it would restore is not in
        memory (then :meth:`restorer` loads it)."""
        need = needed_seq(state, event)
        if need is None:
            return _nothing
        target = self._cache.get(need)
        if target is None:
            return None
        self._cache.move_to_end(need)
        return _only(need, target)


def _nothing(seq: int) -> MatchState:
    raise LookupError(f"no earlier state was loaded (asked for seq {seq})")


class _only:
    """A ``state_at`` that knows exactly one, preloaded state."""

    def __init__(self, seq: int, state: MatchState) -> None:
        self.seq = seq
        self.state = state

    def __call__(self, seq: int) -> MatchState:
        if seq != self.seq:
            raise LookupError(f"only seq {self.seq} was loaded, asked for {seq}")
        return self.state
