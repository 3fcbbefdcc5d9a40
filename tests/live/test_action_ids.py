"""Action ids are the sender's own (docs/store.md, "Retries"; client-protocol/SPEC.md section
2.5): a retry of a side's act is answered by its first ack, but an id only ever names an act of
the side that sent it - both sides may number their acts alike, and no act takes the id of the
server's own events (the creation, the seed's reveal). Over a real Redis."""

from __future__ import annotations

import httpx

from hulldown.client import Client, create_match, get_state
from hulldown.match.actions import Concede, EndPhase
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.live.runtimes import duel_runtime
from tests.scenarios import duel

from ..server_process import ServerProcess


async def test_both_sides_may_use_the_same_action_id(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """Side b conceding with the id side a used is appended and ends the match (it was answered
    as a duplicate of side a's act: nothing appended, the match went on)."""
    runtime = await duel_runtime(store, redis_url, key_prefix)
    assert await runtime.submit("a", EndPhase(), "1") == protocol.Ack(action_id="1", seq=2)
    assert await runtime.submit("b", Concede(), "1") == protocol.Ack(action_id="1", seq=3)
    assert runtime.state.ended and runtime.state.winner == "a"
    # A side's own retry is still its first ack.
    assert await runtime.submit("a", EndPhase(), "1") == protocol.Ack(action_id="1", seq=2, duplicate=True)


async def test_no_act_takes_the_id_of_the_servers_events(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """An act sent as ``create`` is an act (it was acked as a duplicate of the match's creation,
    seq 1), and one sent as ``system-reveal-seed`` does not stop the seed from being revealed when
    the match ends (the reveal was taken for a duplicate and never appended: GET /dice answered
    409 for good)."""
    runtime = await duel_runtime(store, redis_url, key_prefix)
    assert await runtime.submit("a", EndPhase(), "create") == protocol.Ack(action_id="create", seq=2)
    assert await runtime.submit("a", EndPhase(), "system-reveal-seed") == protocol.Ack(
        action_id="system-reveal-seed", seq=3
    )
    assert await runtime.submit("a", Concede(), "give-up") == protocol.Ack(action_id="give-up", seq=4)
    assert runtime.state.ended and runtime.state.seed  # revealed at seq 5
    assert runtime.state.seq == 5


async def test_a_check_naming_no_action_id_is_never_a_retry(server: ServerProcess) -> None:
    """docs/table.md: ``POST /check`` answers what acting would answer now. Without an
    ``action_id`` it is no retry of anything, even after an act sent as ``check`` (every such
    check was then answered ok and duplicate, an illegal move included)."""
    created = await create_match(server.http, duel())
    match_id, tokens = created["match_id"], created["tokens"]
    async with Client(created["live_url"], token=tokens["a"]) as a, httpx.AsyncClient(timeout=10) as http:
        assert isinstance(await a.act({"type": "end_phase"}, action_id="check"), protocol.Ack)
        await a.wait_seq((await get_state(server.http, match_id))["seq"])
        response = await http.post(
            f"{server.http}/matches/{match_id}/check",
            json={"action": {"type": "end_phase"}},
            headers={"authorization": f"Bearer {tokens['b']}"},
        )
    assert response.status_code == 200, response.text
    body = response.json()
    assert not body["ok"] and not body.get("duplicate")
    assert body["rejected"]["code"] == "not_your_turn"
