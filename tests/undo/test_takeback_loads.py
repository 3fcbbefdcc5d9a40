"""A takeback request is checked against the states of the line of play, which the live runtime
loads (memory, else snapshot + fold) down to the state it names (docs/architecture.md section 9).
A request the cheap checks refuse - a target outside the line, another request pending - is
answered without loading any of them."""

from __future__ import annotations

import pytest

from hulldown.live.runtime import MatchRuntime
from hulldown.match.actions import EndPhase, TakebackAnswer, TakebackRequest
from hulldown.match.state import MatchState
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.live.runtimes import duel_runtime


def count_loads(runtime: MatchRuntime, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seqs of the earlier states the runtime loads from now on."""
    loaded: list[int] = []
    get = runtime.states.get

    async def counted(seq: int | None = None) -> MatchState | None:
        if seq is not None:
            loaded.append(seq)
        return await get(seq)

    monkeypatch.setattr(runtime.states, "get", counted)
    return loaded


async def test_a_refused_takeback_request_loads_no_earlier_state(
    store: RedisEventStore, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)
    for k in range(6):  # side a's three phases, then side b's
        assert isinstance(await runtime.submit(runtime.state.active, EndPhase(), f"e{k}"), protocol.Ack)
    loaded = count_loads(runtime, monkeypatch)

    for to_seq in (0, -1_000_000, 7):
        refused = await runtime.submit("a", TakebackRequest(to_seq=to_seq), f"t{to_seq}")
        assert isinstance(refused, protocol.Rejected) and refused.code == "bad_takeback_target"
        _, checked = await runtime.check("a", TakebackRequest(to_seq=to_seq), f"c{to_seq}")
        assert isinstance(checked, protocol.Rejected) and checked.code == "bad_takeback_target"
    assert loaded == []

    # A request on the line loads the states down to the one it names; while it is pending,
    # another request is refused without loading any.
    assert isinstance(await runtime.submit("a", TakebackRequest(to_seq=3), "t3"), protocol.Ack)
    assert sorted(loaded) == [4, 5, 6]
    loaded.clear()
    pending = await runtime.submit("a", TakebackRequest(to_seq=2), "t2")
    assert isinstance(pending, protocol.Rejected) and pending.code == "takeback_pending"
    assert loaded == []
    assert isinstance(await runtime.submit("b", TakebackAnswer(grant=True), "yes"), protocol.Ack)
    assert runtime.state.phase == "assault" and runtime.state.active == "a"
