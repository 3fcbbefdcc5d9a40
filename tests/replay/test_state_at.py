"""GET /matches/{id}/state?at=SEQ is fast at any depth (docs/architecture.md section 10): a state
comes from the nearest snapshot plus a fold of at most K events - also when an undo in that range
restores a state from before the snapshot."""

from __future__ import annotations

import time
from typing import Any

import httpx
import msgspec

from hulldown.live.states import StateSource
from hulldown.match.actions import EndPhase, Move, TakebackAnswer, TakebackRequest, Undo
from hulldown.match.history import line_targets
from hulldown.match.reducer import state_hash
from hulldown.match.scenario import CreateMatch
from hulldown.match.state import Options, Point
from hulldown.store.redis_store import RedisEventStore
from tests.dice.forge import TOKENS, Forge, write
from tests.scenarios import duel
from tests.server_process import ServerProcess

SNAPSHOT_EVERY = 50
SEED = b"\x05" * 32


def long_match(match_id: str) -> Forge:
    """~700 events with undos and takebacks scattered through them."""
    forge = Forge(
        match_id, SEED, CreateMatch(edition="40k7", scenario=duel().scenario, options=Options(turn_limit=0))
    )
    for turn in range(80):
        forge.act("a", Move(unit="predator-1", path=(Point(10.0 + turn % 3, 24.0),), heading=0.0))
        forge.act("a", Undo())
        for _ in range(3):
            forge.act("a", EndPhase())
        if turn % 10 == 9:  # reach back a dozen events, across a snapshot boundary now and then
            state = forge.timeline.state
            target = line_targets(state, forge.timeline.state_at, state.seq - 12)[-1]
            forge.act("b", TakebackRequest(to_seq=target))
            forge.act("a", TakebackAnswer(grant=True))
            while (forge.timeline.state.active, forge.timeline.state.phase) != ("b", "movement"):
                forge.act(forge.timeline.state.active, EndPhase())
        for _ in range(3):
            forge.act("b", EndPhase())
    return forge


async def write_with_snapshots(store: RedisEventStore, forge: Forge) -> None:
    await write(store, forge)
    for seq in range(SNAPSHOT_EVERY, forge.timeline.seq + 1, SNAPSHOT_EVERY):
        await store.save_snapshot(forge.match_id, seq, msgspec.json.encode(forge.timeline.state_at(seq)))


class CountingStore:
    """The store, counting the events each read returns."""

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self.read_events = 0

    async def read(self, *args: Any, **kwargs: Any) -> list[tuple[int, bytes]]:
        entries = await self.store.read(*args, **kwargs)
        self.read_events += len(entries)
        return entries

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_any_depth_is_a_snapshot_plus_a_short_fold(store: RedisEventStore) -> None:
    forge = long_match("deep")
    assert forge.timeline.seq > 650
    assert forge.timeline.restores  # undos and takebacks are in the log
    await write_with_snapshots(store, forge)
    for seq in (1, 2, 49, 50, 51, 333, 499, 500, 649, forge.timeline.seq):
        counting = CountingStore(store)
        source = StateSource(counting, "deep", SEED)  # type: ignore[arg-type]
        state = await source.get(seq)
        assert state is not None and state_hash(state) == state_hash(forge.timeline.state_at(seq))
        # The fold after the snapshot, plus at most one more for each state an undo restored.
        assert counting.read_events <= 3 * SNAPSHOT_EVERY, (seq, counting.read_events)


async def test_http_state_at_every_depth_matches_the_fold(
    server: ServerProcess, store: RedisEventStore
) -> None:
    forge = long_match("deep-http")
    await write_with_snapshots(store, forge)
    last = forge.timeline.seq
    token = {"Authorization": f"Bearer {TOKENS['a']}"}
    slowest = 0.0
    with httpx.Client(base_url=server.http, timeout=10, headers=token) as http:
        assert http.get("/matches/deep-http/state").json()["seq"] == last
        for seq in range(1, last + 1, 37):
            started = time.perf_counter()
            body = http.get("/matches/deep-http/state", params={"at": seq}).json()
            slowest = max(slowest, time.perf_counter() - started)
            assert body["seq"] == seq and body["hash"] == state_hash(forge.timeline.state_at(seq))
    assert slowest < 0.5, slowest
