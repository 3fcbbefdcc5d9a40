"""Build a match log the way the server writes it (every event carries the dice it revealed and
the h3 hash of the state before it; the creation, the h2 hash of the state it makes) without a
server, and write it to a store."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from msgspec.structs import replace

from hulldown.live.service import token_hash
from hulldown.match.actions import Action
from hulldown.match.dice_binding import event_nonce
from hulldown.match.events import Event, EventBody, SeedRevealed, decode_event, encode_event
from hulldown.match.hashing import base_hash
from hulldown.match.reducer import state_hash
from hulldown.match.scenario import CreateMatch, match_created
from hulldown.match.state import Side
from hulldown.match.timeline import Timeline
from hulldown.match.validate import validate
from hulldown.rules.dice import Dice, SeededDice, commitment
from hulldown.store.redis_store import RedisEventStore
from tests.scenarios import duel

TOKENS = {"a": "token-side-a", "b": "token-side-b"}


class Forge:
    """A match in memory whose events look exactly like the server's."""

    def __init__(self, match_id: str, seed: bytes, create: CreateMatch | None = None) -> None:
        self.match_id = match_id
        self.seed = seed
        self.timeline = Timeline(match_id, self.dice_for)
        self.events: list[Event] = []
        request = create or duel()
        body = match_created(request.edition, request.scenario, request.options, commitment(seed))
        self._append("system", body, at=1000.0)

    def dice_for(self, event: Event) -> Dice:
        return SeededDice(self.seed, self.match_id, event.seq, event_nonce(event))

    def _append(self, by: str, body: EventBody, at: float | None = None) -> Event:
        seq = self.timeline.seq + 1
        event = Event(
            seq=seq, at=at if at is not None else 1000.0 + seq, by=by, action_id=f"f{seq}", body=body
        )  # type: ignore[arg-type]
        event = decode_event(encode_event(event))  # as the server has it: decoded from JSON (floats)
        before = self.timeline.state
        after = self.timeline.push(event)
        logged = state_hash(after) if seq == 1 else base_hash(before)
        event = replace(event, rolls=self.timeline.drawn.get(seq, ()), state_hash=logged)
        self.timeline.events[-1] = event
        self.events.append(event)
        return event

    def act(self, side: Side, action: Action) -> Event:
        """Append an action the server would accept (validated like the server does)."""
        rejection = validate(self.timeline.state, side, action, state_at=self.timeline.state_at)
        assert rejection is None, rejection
        return self._append(side, action)

    def play(self, moves: Sequence[tuple[Side, Action]]) -> None:
        for side, action in moves:
            self.act(side, action)

    def reveal(self) -> Event:
        return self._append("system", SeedRevealed(seed=self.seed.hex()))


async def write(store: RedisEventStore, forge: Forge) -> None:
    """Create the match (meta with the seed and hashed tokens) and append its events."""
    meta = {
        "edition": forge.timeline.state.edition,
        "created_at": "1000.000",
        "token_a": token_hash(TOKENS["a"]),
        "token_b": token_hash(TOKENS["b"]),
        "seed": forge.seed.hex(),
        "commitment": hashlib.sha256(forge.seed).hexdigest(),
    }
    assert await store.create_match(forge.match_id, meta)
    for event in forge.events:
        result = await store.append(forge.match_id, encode_event(event), expect=event.seq - 1)
        assert result.status == "appended"


async def rewrite(store: RedisEventStore, match_id: str, events: Sequence[Event]) -> None:
    """Tamper: replace the whole stream with ``events`` (streams are append-only)."""
    key = store.keys.events(match_id)
    await store.client.delete(key)
    for event in events:
        await store.client.xadd(key, {"e": encode_event(event)}, id=f"0-{event.seq}")
