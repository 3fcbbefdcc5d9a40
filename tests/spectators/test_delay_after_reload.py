"""A process that loads a match delayed by seconds (a restart, an eviction, another process)
starts its delayed view at the newest event that is old enough, however many newer events
there are: it reads back until it finds one (docs/architecture.md, "Delayed spectators")."""

from __future__ import annotations

import time

import pytest
from msgspec.structs import replace
from redis.exceptions import RedisError

from hulldown.live.runtime import DELAY_READ_PAGE
from hulldown.live.service import LiveService
from hulldown.match.actions import EndPhase
from hulldown.match.scenario import CreateMatch
from hulldown.match.state import Options
from hulldown.store.redis_store import RedisEventStore
from tests.dice.forge import Forge, write
from tests.scenarios import duel

OLD = 100  # the events at least an hour old: seqs 2 .. OLD
RECENT = DELAY_READ_PAGE + 300  # then more recent ones than one page of reading back holds


async def test_a_reloaded_match_delayed_by_an_hour_shows_only_hour_old_states(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    options = Options(spectator_delay_seconds=3600.0, turn_limit=0)
    forge = Forge(
        "hour-late", b"\x09" * 32, CreateMatch(edition="40k7", scenario=duel().scenario, options=options)
    )
    for _ in range(OLD + RECENT - 1):
        forge.act(forge.timeline.state.active, EndPhase())
    now = time.time()
    forge.events = [replace(event, at=now - (7200.0 if event.seq <= OLD else 60.0)) for event in forge.events]
    await write(store, forge)
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await live.start()
    try:
        runtime = await live.get(forge.match_id)
        assert runtime is not None and runtime.state.seq == OLD + RECENT
        assert runtime.public_state.seq == OLD
    finally:
        await live.stop()


async def test_a_delayed_view_the_store_cannot_make_is_refused_not_shown_live(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """docs/architecture.md, "Delayed spectators": a process loading a match delayed by 3 events
    starts its delayed view at the state 3 events back. When the stream lacks the event of that
    state (trimmed or edited by hand), the view cannot be made: loading the match fails as a store
    error (``store_unavailable``); it used to start the delayed view from the live state, showing
    delayed spectators what the delay hides."""
    options = Options(spectator_delay_events=3, turn_limit=0)
    forge = Forge(
        "gap-late", b"\x0a" * 32, CreateMatch(edition="40k7", scenario=duel().scenario, options=options)
    )
    for _ in range(10):
        forge.act(forge.timeline.state.active, EndPhase())
    await write(store, forge)
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await live.start()
    try:
        runtime = await live.get(forge.match_id)
        assert runtime is not None and runtime.public_state.seq == 11 - 3
    finally:
        await live.stop()
    await store.client.xdel(store.keys.events(forge.match_id), "0-8")  # the delayed view's state
    reloaded = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    await reloaded.start()
    try:
        with pytest.raises(RedisError, match="lacks events up to seq 8"):
            await reloaded.get(forge.match_id)
        assert forge.match_id not in reloaded.runtimes
    finally:
        await reloaded.stop()
