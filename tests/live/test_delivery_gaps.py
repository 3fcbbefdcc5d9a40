"""A delivery of the stream tailer that fails (an event whose fold raised: a store error loading
the state an undo restores, say) is logged and counted as delivered; the runtime then sees the
next delivery skip a seq. It reads what is missing from the stream, so it follows the match again
instead of ignoring every later event."""

from __future__ import annotations

from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.scenarios import duel


async def test_the_event_after_a_failed_delivery_brings_the_runtime_up_to_date(
    store: RedisEventStore, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    there = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    try:
        await _check(here, there, store, monkeypatch)
    finally:
        await here.stop()
        await there.stop()


async def _check(
    here: LiveService, there: LiveService, store: RedisEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await here.create(duel())
    assert isinstance(created, CreatedMatch)
    watching = await here.get(created.match_id)
    assert watching is not None
    await here.tailer.unfollow(created.match_id)  # this test hands the deliveries over itself
    # Another process acts on the same match.
    acting = await there.get(created.match_id)
    assert acting is not None
    for n in (2, 3, 4):
        assert await acting.submit("a", EndPhase(), f"end-{n}") == protocol.Ack(action_id=f"end-{n}", seq=n)
    stored = dict(await store.read(created.match_id))

    async def fails(*args: Any) -> Any:
        raise RedisConnectionError("the store went away while loading a state")

    monkeypatch.setattr(watching.states, "evolve", fails)
    with pytest.raises(RedisConnectionError):
        await watching.advance_payloads([(2, stored[2])])
    monkeypatch.undo()
    assert watching.state.seq == 1

    await watching.advance_payloads([(3, stored[3])])
    assert watching.state.seq == 4  # caught up with the whole stream
    assert [seq for seq, _ in watching.recent] == [2, 3, 4]  # each patch went out, in order
    assert watching.state == acting.state
