"""An event this process appends is folded once: when the stream tailer reads it back before
the append's reply arrives, the runtime commits the state it already folded (docs/architecture.md
section 1)."""

from __future__ import annotations

import asyncio
import time

import pytest
from msgspec.structs import replace

from hulldown.live import runtime as runtime_module
from hulldown.live.deciding import Decided
from hulldown.live.runtime import FOLLOW_UP_DELAY, _same_event
from hulldown.match.actions import EndPhase
from hulldown.match.events import Event, encode_event
from hulldown.match.hashing import base_hash
from hulldown.match.state import MatchState
from hulldown.store.redis_store import RedisEventStore
from tests.live.runtimes import duel_runtime
from tests.live.test_answer_with_patch import connection


async def test_a_read_back_own_event_commits_the_state_folded_before_the_append(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)
    base = runtime.state
    event = Event(seq=base.seq + 1, at=time.time(), by="a", action_id="own-1", body=EndPhase())
    folded, _ = await runtime._fold(base, event)
    runtime._inflight = Decided(event, folded, payload=b"", fold_seconds=0.0)
    assert await runtime.advance(event)
    assert runtime.state is folded  # committed as folded, not folded a second time
    assert runtime.state.phase == "shooting"


def test_only_the_same_appended_event_matches() -> None:
    event = Event(seq=5, at=1.0, by="a", action_id="x", body=EndPhase(), state_hash="h1")
    assert _same_event(event, replace(event, at=2.0))
    assert not _same_event(event, replace(event, action_id="y"))
    assert not _same_event(event, replace(event, by="b"))
    assert not _same_event(event, replace(event, seq=6))
    assert not _same_event(event, replace(event, state_hash="h2"))


async def test_the_tailer_delivering_our_append_in_flight_commits_it_without_decoding(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """The bytes read back are compared with the bytes sent: equal, the event is not decoded
    (these bytes would not even decode) nor folded again."""
    runtime = await duel_runtime(store, redis_url, key_prefix)
    base = runtime.state
    event = Event(seq=base.seq + 1, at=time.time(), by="a", action_id="own-2", body=EndPhase())
    folded, _ = await runtime._fold(base, event)
    sent = b"\x00 bytes that are no event"
    runtime._inflight = Decided(event, folded, payload=sent, fold_seconds=0.0)
    await runtime.advance_payloads([(event.seq, sent)])
    assert runtime.state is folded
    assert runtime.recent[-1][0] == event.seq  # its patch went out


async def test_another_processs_event_at_the_seq_we_append_is_decoded_and_folded(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """Same seq, other bytes (another process won the race): folded from what the stream holds."""
    runtime = await duel_runtime(store, redis_url, key_prefix)
    base = runtime.state
    ours = Event(seq=base.seq + 1, at=time.time(), by="a", action_id="ours", body=EndPhase())
    folded, _ = await runtime._fold(base, ours)
    runtime._inflight = Decided(ours, folded, payload=encode_event(ours), fold_seconds=0.0)
    theirs = replace(ours, action_id="theirs", at=ours.at + 1.0)
    await runtime.advance_payloads([(theirs.seq, encode_event(theirs))])
    assert runtime.state is not folded
    assert runtime.state.seq == theirs.seq and runtime.state.phase == "shooting"


async def test_the_hash_of_a_state_is_worked_out_after_its_patch_where_a_player_may_act_next(
    store: RedisEventStore, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/architecture.md, "State hash": the next event carries the hash of the state the last
    one made (h3), worked out once that state's patch is sent - by a process holding a player's
    socket; a process that only follows the match (another process's event, no player here)
    does not spend the CPU."""
    hashed: list[int] = []

    def counted(state: MatchState) -> str:
        hashed.append(state.seq)
        return base_hash(state)

    monkeypatch.setattr(runtime_module, "base_hash", counted)
    runtime = await duel_runtime(store, redis_url, key_prefix)
    first = runtime.state
    event = Event(seq=first.seq + 1, at=time.time(), by="a", action_id="other-1", body=EndPhase())
    await runtime.advance(event)  # another process's event, no player here
    await asyncio.sleep(FOLLOW_UP_DELAY * 5)
    assert runtime.state.seq == first.seq + 1 and hashed == []
    runtime.hub.add(connection("b", "b", []))  # a player's socket
    event = Event(seq=first.seq + 2, at=time.time(), by="a", action_id="other-2", body=EndPhase())
    await runtime.advance(event)
    assert hashed == []  # not before the patch is out ...
    await asyncio.sleep(0)
    assert hashed == []  # ... nor before the clients it woke had their turn ...
    await asyncio.sleep(FOLLOW_UP_DELAY * 5)
    assert hashed == [first.seq + 2]  # ... then once, for the next act to carry
    assert runtime._base_hash(runtime.state) == base_hash(runtime.state) and hashed == [first.seq + 2]
    event = Event(seq=first.seq + 3, at=time.time(), by="a", action_id="other-3", body=EndPhase())
    await runtime.advance(event)
    runtime.close()  # evicted before its follow-up work: the hash is not worked out
    await asyncio.sleep(FOLLOW_UP_DELAY * 5)
    assert hashed == [first.seq + 2]
