"""End to end over a real uvicorn server with real websocket clients
(docs/architecture.md section 1).

Two players and a spectator connect; players move and shoot; every client receives
consecutive patches; applying them to the welcome view with the third-party ``jsonpatch``
library equals ``GET /matches/{id}/state``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec

from hulldown.match.state import Options
from tests.undo.live_helpers import create as create_with_options
from tests.undo.live_helpers import with_reserve

from ..server_process import ServerProcess
from .wsclient import RawClient


def create(server: ServerProcess) -> dict[str, Any]:
    # A reserve Rhino for side b far away: a lascannon shot may wreck rhino-1, and with no unit
    # left side b would lose at once (docs/architecture.md section 12) and end the match mid-test.
    body = msgspec.json.encode(with_reserve())
    response = httpx.post(f"{server.http}/matches", content=body, timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def connect_all(
    server: ServerProcess, created: dict[str, Any]
) -> tuple[RawClient, RawClient, RawClient]:
    url = f"{server.ws}/matches/{created['match_id']}/live"
    a = await RawClient.connect(url, {"token": created["tokens"]["a"]})
    b = await RawClient.connect(url, {"token": created["tokens"]["b"]})
    spectator = await RawClient.connect(url, {"spectator": True})
    return a, b, spectator


MOVE = {"type": "move", "unit": "predator-1", "path": [[14.0, 24.0]], "heading": 0.0}
END = {"type": "end_phase"}
SHOOT = {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}


async def test_two_players_and_a_spectator_follow_moves_and_a_shot(server: ServerProcess) -> None:
    created = create(server)
    a, b, spectator = await connect_all(server, created)
    for client, role in ((a, "a"), (b, "b"), (spectator, "spectator")):
        welcome = client.messages[0]
        assert welcome["type"] == "welcome" and welcome["role"] == role and welcome["seq"] == 1

    assert (await a.act(MOVE, "m1"))["type"] == "ack"
    assert (await a.act(END, "e1"))["type"] == "ack"
    ack = await a.act(SHOOT, "s1")
    assert ack == {"type": "ack", "action_id": "s1", "seq": 4, "duplicate": False}
    assert (await a.act(END, "e2"))["type"] == "ack"
    assert (await a.act(END, "e3"))["type"] == "ack"  # assault over: side b's turn
    reply = await b.act({"type": "move", "unit": "rhino-2", "path": [[62.0, 44.0]], "heading": 180.0}, "b1")
    assert reply["type"] == "ack" and reply["seq"] == 7

    state = httpx.get(f"{server.http}/matches/{created['match_id']}/state", timeout=10).json()
    assert state["seq"] == 7
    for client in (a, b, spectator):
        await client.wait_seq(7)
        assert client.patch_seqs == [2, 3, 4, 5, 6, 7]
        assert client.view == state["view"]
    view = state["view"]
    assert view["units"]["predator-1"]["models"]["predator-1-m"]["pos"] == [14.0, 24.0]
    assert view["units"]["rhino-2"]["models"]["rhino-2-m"]["pos"] == [62.0, 44.0]
    shot_lines = [e for e in view["log"] if e["seq"] == 4]
    assert shot_lines and shot_lines[0]["rolls"][0]["purpose"] == "to hit"
    # The shot either missed or took Hull Points according to its logged dice.
    rolls = [r for e in shot_lines for r in e["rolls"]]
    if rolls[0]["outcome"] == "hit":
        pen = rolls[1]["value"] + 9  # S9 lascannon against the Rhino's front armour 11
        rhino_1 = view["units"]["rhino-1"]
        if pen < 11:
            assert rhino_1["hp"] == 3 and not rhino_1["destroyed"]
        else:  # one Hull Point lost; a penetrating hit may also have made it explode
            assert rhino_1["hp"] == 2 or rhino_1["destroyed"]
    else:
        assert view["units"]["rhino-1"]["hp"] == 3
    for client in (a, b, spectator):
        await client.close()


async def test_retry_stale_and_bad_input_change_nothing(server: ServerProcess) -> None:
    created = create(server)
    a, b, spectator = await connect_all(server, created)
    too_far = await a.act({"type": "move", "unit": "predator-1", "path": [[40.0, 40.0]]}, "far")
    assert too_far["type"] == "rejected" and too_far["code"] == "too_far", too_far
    assert too_far["values"]["limit"] == 12 and too_far["values"]["distance"] > 12
    first = await a.act(MOVE, "same-id")
    again = await a.act(MOVE, "same-id")
    assert first == {"type": "ack", "action_id": "same-id", "seq": 2, "duplicate": False}
    assert again == {"type": "ack", "action_id": "same-id", "seq": 2, "duplicate": True}

    stale = await a.act(END, "stale-1", expect=1)
    assert stale["type"] == "rejected" and stale["code"] == "stale"
    assert stale["values"] == {"expect": 1, "current": 2}

    wrong_side = await b.act(END, "b-early")
    assert wrong_side["type"] == "rejected" and wrong_side["code"] == "not_your_turn"
    not_yours = await a.act({"type": "pivot", "unit": "rhino-1", "heading": 90.0}, "steal")
    assert not_yours["type"] == "rejected" and not_yours["code"] == "not_your_unit"
    assert not_yours["rule"] and "rhino-1" in not_yours["message"]

    seen = len(a.messages)
    await a.send({"type": "act"})  # missing fields
    bad = await a.wait_for(lambda m: m["type"] == "error", start=seen)
    assert bad["code"] == "bad_message" and "action_id" in bad["message"]
    seen = len(a.messages)
    await a.ws.send("{not json")
    assert (await a.wait_for(lambda m: m["type"] == "error", start=seen))["code"] == "bad_message"
    seen = len(a.messages)
    await a.send({"type": "teleport", "unit": "predator-1"})
    assert (await a.wait_for(lambda m: m["type"] == "error", start=seen))["code"] == "bad_message"
    seen = len(spectator.messages)
    await spectator.send({"type": "act", "action_id": "x", "action": END})
    assert (await spectator.wait_for(lambda m: m["type"] == "error", start=seen))[
        "code"
    ] == "spectators_cannot_act"

    # Nothing above was appended, and the connection still works.
    events = httpx.get(f"{server.http}/matches/{created['match_id']}/events", timeout=10).json()["events"]
    assert [e["seq"] for e in events] == [1, 2]
    assert (await a.act(END, "after-errors"))["type"] == "ack"
    await a.wait_seq(3)
    assert a.view["phase"] == "shooting"
    for client in (a, b, spectator):
        await client.close()


async def test_state_at_any_seq_and_events(server: ServerProcess) -> None:
    created = create(server)
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")
    for i in range(8):
        player = a if i < 3 or i >= 6 else b  # 40k7: three phases per player turn
        reply = await player.act(END, f"end-{i}")
        assert reply["type"] == "ack", reply
    match_id = created["match_id"]
    latest = httpx.get(f"{server.http}/matches/{match_id}/state", timeout=10).json()
    assert latest["seq"] == 10
    at2 = httpx.get(f"{server.http}/matches/{match_id}/state", params={"at": 2}, timeout=10).json()
    assert (
        at2["seq"] == 2
        and at2["view"]["phase"] == "movement"
        and at2["view"]["units"]["predator-1"]["moved"] == 4.0
    )
    at7 = httpx.get(f"{server.http}/matches/{match_id}/state", params={"at": 7}, timeout=10).json()
    assert at7["seq"] == 7 and at7["view"]["active"] == "b" and at7["view"]["phase"] == "assault"
    assert (
        httpx.get(f"{server.http}/matches/{match_id}/state", params={"at": 99}, timeout=10).status_code == 404
    )
    assert (
        httpx.get(f"{server.http}/matches/{match_id}/state", params={"at": "x"}, timeout=10).status_code
        == 400
    )
    events = httpx.get(f"{server.http}/matches/{match_id}/events", params={"from": 9}, timeout=10).json()[
        "events"
    ]
    assert [e["seq"] for e in events] == [9, 10]
    summary = httpx.get(f"{server.http}/matches/{match_id}", timeout=10).json()
    assert summary["seq"] == 10 and summary["spectators"] == 1 and summary["players_connected"] == 2
    assert json.loads(json.dumps(summary))["edition"] == "40k7"
    for client in (a, b, spectator):
        await client.close()


async def test_the_whole_log_is_paged_over_http(server: ServerProcess) -> None:
    """The view keeps a window of the log; every older line is still served by /log."""
    created = create_with_options(server, Options(turn_limit=0))
    a, b, spectator = await connect_all(server, created)
    match_id = created["match_id"]
    for i in range(60):  # 60 phases: more log lines than the view's window holds
        player = a if (i // 3) % 2 == 0 else b
        assert (await player.act(END, f"end-{i}"))["type"] == "ack"
    view = httpx.get(f"{server.http}/matches/{match_id}/state", timeout=10).json()["view"]
    total = view["log_count"]
    window = view["log"]
    assert len(window) < total  # the window really dropped old lines
    first = httpx.get(
        f"{server.http}/matches/{match_id}/log", params={"from": 0, "limit": 10}, timeout=10
    ).json()
    assert first["total"] == total and [e["n"] for e in first["entries"]] == list(range(10))
    rest = httpx.get(
        f"{server.http}/matches/{match_id}/log", params={"from": window[0]["n"], "limit": 500}, timeout=10
    ).json()
    assert rest["entries"] == window
    bad = httpx.get(f"{server.http}/matches/{match_id}/log", params={"from": "-1"}, timeout=10)
    assert bad.status_code == 400
    empty = httpx.get(f"{server.http}/matches/{match_id}/log", params={"limit": "0"}, timeout=10)
    assert empty.status_code == 400 and "limit must be 1 or more" in empty.json()["error"]["message"]
    default = httpx.get(f"{server.http}/matches/{match_id}/log", params={"from": 0}, timeout=10).json()
    assert len(default["entries"]) == min(100, total)
    for client in (a, b, spectator):
        await client.close()


async def test_a_client_of_another_protocol_version_is_refused(server: ServerProcess) -> None:
    created = create(server)
    url = f"{server.ws}/matches/{created['match_id']}/live"
    client = await RawClient.connect(url, {"spectator": True, "protocol": 2})
    refused = client.messages[0]
    assert refused == {
        "type": "error",
        "code": "unsupported_protocol",
        "message": "this server speaks protocol 1, the client asked for 2",
        "fatal": True,
    }
    await client.close()
