"""Undo and takebacks over a real server and real websocket clients
(docs/architecture.md section 9)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.live.test_end_to_end import END, MOVE, SHOOT, connect_all
from tests.live.wsclient import RawClient
from tests.server_process import ServerProcess
from tests.undo.live_helpers import create

UNDO = {"type": "undo"}


def state(server: ServerProcess, match_id: str, at: int | None = None, token: str | None = None) -> Any:
    params: dict[str, Any] = {} if at is None else {"at": at}
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    response = httpx.get(
        f"{server.http}/matches/{match_id}/state", params=params, headers=headers, timeout=10
    )
    assert response.status_code == 200, response.text
    return response.json()


async def close(*clients: RawClient) -> None:
    for client in clients:
        await client.close()


async def test_undo_over_the_wire_restores_the_state_and_every_client_follows(server: ServerProcess) -> None:
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    assert (await a.act(MOVE, "m1"))["seq"] == 2
    assert (await a.act(END, "e1"))["seq"] == 3
    assert (await a.act(UNDO, "u1"))["seq"] == 4
    assert (await a.act(UNDO, "u2"))["seq"] == 5
    latest = state(server, match_id)
    assert latest["seq"] == 5
    assert latest["game_hash"] == state(server, match_id, at=1)["game_hash"]
    assert latest["game_hash"] != state(server, match_id, at=3)["game_hash"]
    assert latest["hash"] != state(server, match_id, at=1)["hash"]
    view = latest["view"]
    assert view["units"]["predator-1"]["models"]["predator-1-m"]["pos"] == [10.0, 24.0]
    assert view["last_undo"] == {"seq": 5, "to": 1, "by": "a", "kind": "undo"}
    for client in (a, b, spectator):
        await client.wait_seq(5)
        assert client.view == view
    # The undone actions are still in the stream.
    events = httpx.get(f"{server.http}/matches/{match_id}/events", timeout=10).json()["events"]
    assert [e["body"]["type"] for e in events] == ["match_created", "move", "end_phase", "undo", "undo"]
    await close(a, b, spectator)


async def test_undo_is_refused_with_the_reason(server: ServerProcess) -> None:
    created = create(server)
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")
    stolen = await b.act(UNDO, "b-undo")
    assert stolen["type"] == "rejected" and stolen["code"] == "not_your_action"
    assert (
        stolen["rule"] == "docs/architecture.md, 9. Undo and takebacks: undo"
        and "side a's" in stolen["message"]
    )
    await a.act(END, "e1")
    await a.act(SHOOT, "s1")
    fished = await a.act(UNDO, "a-undo")
    assert fished["type"] == "rejected" and fished["code"] == "dice_revealed"
    assert fished["values"]["to_seq"] == 3
    for _ in range(2):
        await a.act(END, f"end-{_}")
    # The reserve Rhino moves (the shot may have stunned rhino-1), then side b undoes that.
    moved = await b.act(
        {"type": "move", "unit": "rhino-2", "path": [[62.0, 44.0]], "heading": 180.0}, "b-move"
    )
    assert moved["type"] == "ack", moved
    assert (await b.act(UNDO, "b-undo-own"))["type"] == "ack"
    late = await a.act(UNDO, "a-late")
    assert late["type"] == "rejected" and late["code"] == "opponent_acted"
    await close(a, b, spectator)


async def test_takeback_granted_and_declined_each_is_an_event(server: ServerProcess) -> None:
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    await a.act(END, "e1")
    before = 2
    shot = await a.act(SHOOT, "s1")
    assert shot["seq"] == 3
    ask = await a.act({"type": "takeback_request", "to_seq": before}, "ask-1")
    assert ask["type"] == "ack"
    blocked = await a.act(END, "blocked")
    assert blocked["type"] == "rejected" and blocked["code"] == "takeback_pending"
    assert (await b.act({"type": "takeback_answer", "grant": False}, "no"))["type"] == "ack"
    assert state(server, match_id)["game_hash"] == state(server, match_id, at=3)["game_hash"]

    await a.act({"type": "takeback_request", "to_seq": before}, "ask-2")
    granted = await b.act({"type": "takeback_answer", "grant": True}, "yes")
    assert granted["seq"] == 7
    assert state(server, match_id)["game_hash"] == state(server, match_id, at=before)["game_hash"]
    redo = await a.act(SHOOT, "s2")
    assert redo["seq"] == 8
    events = httpx.get(f"{server.http}/matches/{match_id}/events", timeout=10).json()["events"]
    kinds = [(e["seq"], e["by"], e["body"]["type"]) for e in events]
    assert kinds[2:] == [
        (3, "a", "shoot"),
        (4, "a", "takeback_request"),
        (5, "b", "takeback_answer"),
        (6, "a", "takeback_request"),
        (7, "b", "takeback_answer"),
        (8, "a", "shoot"),
    ]
    # Each shot logged its own dice; the redo's are bound to seq 8, not 3.
    assert events[2]["rolls"] and events[7]["rolls"]
    for client in (a, b, spectator):
        await client.wait_seq(8)
        assert client.view == state(server, match_id)["view"]
    await close(a, b, spectator)


async def test_takeback_into_an_earlier_turn_after_a_restart_uses_snapshot_and_fold(
    server: ServerProcess, redis_url: str, key_prefix: str, tmp_path: Any
) -> None:
    """The fixture snapshots every 5 events; a fresh process has none of the states in memory,
    so the restored state comes from a snapshot plus a fold, and must equal the original."""
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")  # 2
    target = state(server, match_id, at=2)
    for i in range(3):
        await a.act(END, f"a{i}")  # 3, 4, 5
    await b.act({"type": "pivot", "unit": "rhino-1", "heading": 90.0}, "b-pivot")  # 6
    for i in range(3):
        await b.act(END, f"b{i}")  # 7, 8, 9 -> turn 2
    await a.act(MOVE | {"path": [[16.0, 24.0]]}, "m2")  # 10
    await close(a, b, spectator)
    server.stop()

    again = ServerProcess(
        redis_url=redis_url, prefix=key_prefix, snapshot_every=5, log=tmp_path / "again.log"
    )
    again.start()
    try:
        a, b, spectator = await connect_all(again, created)
        assert (await a.act({"type": "takeback_request", "to_seq": 2}, "deep"))["type"] == "ack"
        assert (await b.act({"type": "takeback_answer", "grant": True}, "ok"))["seq"] == 12
        latest = state(again, match_id)
        assert latest["game_hash"] == target["game_hash"]
        assert (latest["view"]["turn"], latest["view"]["active"]) == (1, "a")
        assert latest["view"]["units"]["rhino-1"]["models"]["rhino-1-m"]["heading"] == 180.0
        await a.act(END, "again-1")  # 13
        await a.act(END, "again-2")  # 14: the line now runs 14 <- 13 <- 2 <- 1
        not_on_line = await a.act({"type": "takeback_request", "to_seq": 6}, "bad")
        assert not_on_line["type"] == "rejected" and not_on_line["code"] == "not_on_line"
        await close(a, b, spectator)
    finally:
        again.stop()
