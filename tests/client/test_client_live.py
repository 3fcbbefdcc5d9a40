"""hulldown.client against a real ``hulldown serve`` (client-protocol/SPEC.md section 2): connect as
a side or a spectator, act with automatic action ids, retry safely after a forced disconnect, detect
a gap and resume, reconnect with backoff after the server restarts."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgspec
import pytest

from hulldown.client import Backoff, Client, ClientError, FatalError, create_match, get_events, get_state
from hulldown.wire import protocol
from tests.scenarios import duel

from ..server_process import ServerProcess

MOVE = {"type": "move", "unit": "predator-1", "path": [[14.0, 24.0]], "heading": 0.0}
END = {"type": "end_phase"}


def fast_backoff() -> Backoff:
    return Backoff(initial=0.05, maximum=0.5, rng=random.Random(7))


async def start(server: ServerProcess) -> tuple[dict[str, Any], Client, Client, Client]:
    created = await create_match(server.http, duel())
    url = created["live_url"]
    a = await Client.open(url, token=created["tokens"]["a"], backoff=fast_backoff())
    b = await Client.open(url, token=created["tokens"]["b"], backoff=fast_backoff())
    spectator = await Client.open(url, spectator=True, backoff=fast_backoff())
    return created, a, b, spectator


async def close_all(*clients: Client) -> None:
    for client in clients:
        await client.close()


async def test_sides_and_spectator_act_and_follow_the_same_view(server: ServerProcess) -> None:
    created, a, b, spectator = await start(server)
    assert (a.role, b.role, spectator.role) == ("a", "b", "spectator")
    assert a.view.seq == b.view.seq == spectator.view.seq == 1
    first = await a.act(MOVE)
    second = await a.act(END)
    assert isinstance(first, protocol.Ack) and isinstance(second, protocol.Ack)
    assert (first.seq, second.seq) == (2, 3)
    assert first.action_id != second.action_id and len(first.action_id) == 32  # uuid4 hex
    refused = await b.act(END)
    assert isinstance(refused, protocol.Rejected) and refused.code == "not_your_turn"
    for client in (a, b, spectator):
        await client.wait_seq(3)
    server_state = await get_state(server.http, created["match_id"])
    for client in (a, b, spectator):
        assert client.view.data == server_state["view"]
        assert client.stats.gaps == 0 and client.stats.welcomes == 1
    assert spectator.view.unit("predator-1")["models"]["predator-1-m"]["pos"] == [14.0, 24.0]
    assert spectator.view.state().phase == "shooting"
    with pytest.raises(ClientError):
        await spectator.act(END)
    await close_all(a, b, spectator)


async def test_bad_token_is_fatal(server: ServerProcess) -> None:
    created = await create_match(server.http, duel())
    client = Client(created["live_url"], token="not-a-token", backoff=fast_backoff())
    with pytest.raises(FatalError) as caught:
        await client.connect()
    assert caught.value.code == "unauthorised"
    await client.close()


async def test_lost_ack_is_retried_after_a_forced_disconnect_without_double_applying(
    server: ServerProcess,
) -> None:
    """The connection dies after the server appended the action but before the ack arrived:
    the client re-sends the same action_id and gets ``ack(duplicate)`` with the original seq."""
    created, a, b, spectator = await start(server)
    dropped: list[str] = []

    def lose_first_ack(message: protocol.ServerMessage) -> bool:
        if isinstance(message, protocol.Ack) and not dropped:
            dropped.append(message.action_id)
            asyncio.get_running_loop().create_task(a.drop_connection())
            return False
        return True

    a.inbound_filter = lose_first_ack
    ack = await a.act(MOVE, action_id="move-once")
    assert dropped == ["move-once"]
    assert isinstance(ack, protocol.Ack) and ack.duplicate and ack.seq == 2
    assert a.stats.resent == 1 and a.stats.connections == 2
    events = await get_events(server.http, created["match_id"])
    assert [e["action_id"] for e in events] == ["create", "move-once"]
    # The reconnect resumed from seq 2 (nothing missed): no second welcome, view current.
    assert a.stats.welcomes == 1 and a.view.seq == 2
    follow = await a.act(END)
    assert isinstance(follow, protocol.Ack) and follow.seq == 3 and not follow.duplicate
    await close_all(a, b, spectator)


async def test_action_sent_while_disconnected_goes_out_once_after_reconnect(server: ServerProcess) -> None:
    created, a, b, spectator = await start(server)
    await a.drop_connection()
    ack = await a.act(MOVE)  # queued until the connection is back
    assert isinstance(ack, protocol.Ack) and ack.seq == 2 and not ack.duplicate
    events = await get_events(server.http, created["match_id"])
    assert [e["seq"] for e in events] == [1, 2]
    await close_all(a, b, spectator)


async def test_missed_patches_while_away_are_resumed_not_refetched(server: ServerProcess) -> None:
    """A spectator's connection drops; the players act meanwhile; it reconnects with
    ``hello {resume_from}`` and receives exactly the missed patches (no new welcome)."""
    created, a, b, spectator = await start(server)
    spectator.backoff = Backoff(initial=0.5, maximum=0.5, jitter=0.0)
    await spectator.drop_connection()
    for action in (MOVE, END, END):
        assert isinstance(await a.act(action), protocol.Ack)
    await spectator.wait_seq(4)
    await spectator.wait_until(lambda: spectator.connected)  # the pong after the resumed patches
    assert spectator.stats.connections == 2 and spectator.stats.welcomes == 1
    assert spectator.stats.patches == 3 and spectator.stats.gaps == 0
    state = await get_state(server.http, created["match_id"])
    assert spectator.view.data == state["view"]
    await close_all(a, b, spectator)


async def test_gap_is_detected_and_resumed(server: ServerProcess) -> None:
    """A patch lost in transit (dropped by the test hook) is noticed at the next patch; the client
    sends ``resume`` and ends with the server's exact view."""
    created, a, b, spectator = await start(server)
    sent: list[protocol.ClientMessage] = []
    lost: list[int] = []

    def lose_seq_3(message: protocol.ServerMessage) -> bool:
        if isinstance(message, protocol.Patch) and message.seq == 3 and not lost:
            lost.append(3)
            return False
        return True

    spectator.inbound_filter = lose_seq_3
    original_send = spectator._ws.send  # type: ignore[union-attr]

    async def spy(text: Any) -> None:
        sent.append(protocol.client_decoder.decode(text))
        await original_send(text)

    spectator._ws.send = spy  # type: ignore[method-assign, union-attr]
    for action in (MOVE, END, END):
        assert isinstance(await a.act(action), protocol.Ack)
    await spectator.wait_seq(4)
    assert lost == [3]
    assert spectator.stats.gaps == 1 and spectator.stats.resumes == 1
    assert [m for m in sent if isinstance(m, protocol.Resume)] == [protocol.Resume(from_seq=2)]
    state = await get_state(server.http, created["match_id"])
    assert spectator.view.seq == 4 and spectator.view.data == state["view"]
    await close_all(a, b, spectator)


async def test_reconnects_with_backoff_after_the_server_restarts(server: ServerProcess) -> None:
    created, a, b, spectator = await start(server)
    assert isinstance(await a.act(MOVE), protocol.Ack)
    await spectator.wait_seq(2)
    server.stop()
    await asyncio.sleep(0.3)
    assert not a.connected and not spectator.connected
    await asyncio.to_thread(server.start)
    # An action made while the server was down goes out when the client is back.
    ack = await a.act(END, timeout=20)
    assert isinstance(ack, protocol.Ack) and ack.seq == 3
    await spectator.wait_seq(3, timeout=20)
    state = await get_state(server.http, created["match_id"])
    for client in (a, spectator):
        assert client.stats.connections >= 2
        assert client.view.data == state["view"]
    events = await get_events(server.http, created["match_id"])
    assert [e["seq"] for e in events] == [1, 2, 3]
    await close_all(a, b, spectator)


async def test_client_encodes_typed_actions_and_rejects_malformed_ones_locally(server: ServerProcess) -> None:
    from hulldown.match.actions import Move, Pivot
    from hulldown.match.state import Point

    _created, a, b, spectator = await start(server)
    ack = await a.act(Move(unit="predator-1", path=(Point(12.0, 24.0),), heading=0.0))
    assert isinstance(ack, protocol.Ack)
    with pytest.raises(msgspec.ValidationError):
        await a.act({"type": "teleport", "unit": "predator-1"})
    rejected = await a.act(Pivot(unit="rhino-1", heading=0.0))
    assert isinstance(rejected, protocol.Rejected) and rejected.rule
    await close_all(a, b, spectator)
