"""Spectator feeds (docs/architecture.md section 11): the live spectator view; a delayed
view N events or T seconds behind, chosen per match at creation and enforced by the server (a
delayed spectator never receives a newer state, over the websocket or HTTP); spectators counted
in the match summary; spectators never act; private matches need the spectator token."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import msgspec
import websockets
from msgspec.structs import replace

from hulldown.match.state import Options
from tests.live.test_end_to_end import END, MOVE
from tests.live.wsclient import RawClient
from tests.scenarios import duel
from tests.server_process import ServerProcess


def create(server: ServerProcess, options: Options) -> dict[str, Any]:
    body = msgspec.json.encode(replace(duel(), options=options))
    response = httpx.post(f"{server.http}/matches", content=body, timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def live_url(server: ServerProcess, match_id: str) -> str:
    return f"{server.ws}/matches/{match_id}/live"


def get(server: ServerProcess, path: str, token: str | None = None, **params: Any) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.get(f"{server.http}{path}", params=params, headers=headers, timeout=10)


async def test_delayed_spectators_stay_n_events_behind_and_never_see_newer_states(
    server: ServerProcess,
) -> None:
    created = create(server, Options(spectator_delay_events=2))
    match_id = created["match_id"]
    token_a = created["tokens"]["a"]
    a = await RawClient.connect(live_url(server, match_id), {"token": token_a})
    watcher = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    welcome = watcher.messages[0]
    assert welcome["type"] == "welcome" and welcome["role"] == "spectator"
    assert welcome["delayed"] is True and welcome["delay_events"] == 2 and welcome["seq"] == 1

    actions = [MOVE, END, END, END]  # seqs 2..5
    for k, action in enumerate(actions):
        ack = await a.act(action, f"act-{k}")
        await asyncio.sleep(0.1)
        assert watcher.seq <= max(1, ack["seq"] - 2)  # never closer than two events (seq 1: the setup)
    await watcher.wait_seq(3)
    await asyncio.sleep(0.2)
    assert watcher.seq == 3 and watcher.patch_seqs == [2, 3]
    assert all(m.get("seq", 0) <= 3 for m in watcher.messages)

    # HTTP is as delayed for spectators; a side's token sees the match as it is.
    public = get(server, f"/matches/{match_id}/state").json()
    assert public["seq"] == 3 and public["view"] == watcher.view
    assert get(server, f"/matches/{match_id}/state", token=token_a).json()["seq"] == 5
    assert get(server, f"/matches/{match_id}/state", at=4).status_code == 404
    assert get(server, f"/matches/{match_id}/state", token=token_a, at=4).status_code == 200
    assert [e["seq"] for e in get(server, f"/matches/{match_id}/events").json()["events"]] == [1, 2, 3]
    paged = get(server, f"/matches/{match_id}/events", limit=2, **{"from": 2}).json()["events"]
    assert [e["seq"] for e in paged] == [2, 3]
    assert [e["seq"] for e in get(server, f"/matches/{match_id}/events", limit=1).json()["events"]] == [1]
    empty_page = get(server, f"/matches/{match_id}/events", limit=0)
    assert (
        empty_page.status_code == 400 and "limit must be 1 or more" in empty_page.json()["error"]["message"]
    )
    assert get(server, f"/matches/{match_id}/index").json()["seq"] == 3
    assert get(server, f"/matches/{match_id}").json()["seq"] == 3

    # A late joiner gets the delayed view, and a resume cannot reach ahead of it.
    late = await RawClient.connect(live_url(server, match_id), {"spectator": True, "resume_from": 5})
    assert late.messages[0]["type"] == "welcome" and late.messages[0]["seq"] == 3
    seen = len(late.messages)
    await late.send({"type": "resume", "from_seq": 4})
    resync = await late.wait_for(lambda m: m["type"] == "resync", start=seen)
    assert resync["seq"] == 3
    assert resync["reason"] == "resume ahead"  # it said "resume too old"
    for client in (a, watcher, late):
        await client.close()


async def test_delayed_by_seconds(server: ServerProcess) -> None:
    created = create(server, Options(spectator_delay_seconds=1.0))
    match_id = created["match_id"]
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    watcher = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    live_watcher_seq = watcher.seq
    ack = await a.act(MOVE, "m1")
    sent = time.time()
    await asyncio.sleep(0.5)
    assert watcher.seq == live_watcher_seq  # not yet: the event is half a second old
    await watcher.wait_seq(ack["seq"], timeout=5)
    received = time.time()
    event = get(server, f"/matches/{match_id}/events", token=created["tokens"]["a"]).json()["events"][-1]
    assert received - event["at"] >= 1.0 and received - sent < 3.0
    for client in (a, watcher):
        await client.close()


async def test_summary_counts_spectators_and_spectators_never_act(server: ServerProcess) -> None:
    created = create(server, Options())
    match_id = created["match_id"]
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    watchers = [await RawClient.connect(live_url(server, match_id), {"spectator": True}) for _ in range(3)]
    summary = get(server, f"/matches/{match_id}").json()
    assert summary["spectators"] == 3 and summary["players_connected"] == 1
    # An act that does not even decode is refused as a spectator's act too (it got bad_message,
    # as if mending the act would help).
    for act in ({"type": "undo"}, {"type": "concede"}, END, {"type": "shoot", "unit": 3}):
        seen = len(watchers[0].messages)
        await watchers[0].send({"type": "act", "action_id": "sneaky", "action": act})
        error = await watchers[0].wait_for(lambda m: m["type"] == "error", start=seen)
        assert error["code"] == "spectators_cannot_act", act
    await watchers[2].close()
    await asyncio.sleep(0.2)
    assert get(server, f"/matches/{match_id}").json()["spectators"] == 2
    assert [e["seq"] for e in get(server, f"/matches/{match_id}/events").json()["events"]] == [1]
    # Live spectators (no delay) follow at once.
    await a.act(MOVE, "m1")
    await watchers[0].wait_seq(2, timeout=5)
    for client in (a, *watchers[:2]):
        await client.close()


async def test_private_match_needs_the_spectator_token(server: ServerProcess) -> None:
    created = create(server, Options(private_spectators=True))
    match_id = created["match_id"]
    spectator_token = created["spectator_token"]
    assert spectator_token
    url = live_url(server, match_id)
    for hello in ({"spectator": True}, {"spectator": True, "spectator_token": "wrong"}):
        async with websockets.connect(url) as ws:
            await ws.send(msgspec.json.encode({"type": "hello", **hello}).decode())
            message = msgspec.json.decode(await ws.recv())
            assert message == {
                "type": "error",
                "code": "unauthorised",
                "message": "bad token for this match",
                "fatal": True,
            }
            await asyncio.wait_for(ws.wait_closed(), 5)
            assert ws.close_code == 4401
    watcher = await RawClient.connect(url, {"spectator": True, "spectator_token": spectator_token})
    assert watcher.messages[0]["type"] == "welcome" and watcher.messages[0]["role"] == "spectator"
    seen = len(watcher.messages)
    await watcher.send({"type": "act", "action_id": "x", "action": END})
    assert (await watcher.wait_for(lambda m: m["type"] == "error", start=seen))[
        "code"
    ] == "spectators_cannot_act"

    denied = get(server, f"/matches/{match_id}/state")
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "spectator_token_required"
    assert get(server, f"/matches/{match_id}/events").status_code == 403
    assert get(server, f"/matches/{match_id}/index").status_code == 403
    assert get(server, f"/matches/{match_id}/state", token=spectator_token).status_code == 200
    assert get(server, f"/matches/{match_id}/state", token=created["tokens"]["b"]).status_code == 200
    # A token is never taken from a query string (it would be logged): refused, not ignored.
    in_query = httpx.get(
        f"{server.http}/matches/{match_id}/state", params={"token": spectator_token}, timeout=10
    )
    assert in_query.status_code == 400 and in_query.json()["error"]["code"] == "token_in_query"
    await watcher.close()


async def test_delayed_spectators_see_the_end_of_the_match(server: ServerProcess) -> None:
    """docs/architecture.md, "Delayed spectators": once the match is over no newer events come
    to make up an event delay; the last states are released (by the time delay alone), so the
    delayed view reaches the end and the revealed seed."""
    created = create(server, Options(spectator_delay_events=2))
    match_id = created["match_id"]
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    watcher = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    await a.act(MOVE, "move")
    assert get(server, f"/matches/{match_id}").json()["seq"] == 1  # held: one event behind
    conceded = await a.act({"type": "concede"}, "give-up")
    deadline = time.monotonic() + 10
    while not (public := get(server, f"/matches/{match_id}").json())["ended"]:
        assert time.monotonic() < deadline, public
        await asyncio.sleep(0.05)
    side = get(server, f"/matches/{match_id}", token=created["tokens"]["a"]).json()
    assert public["seq"] == side["seq"] >= conceded["seq"] and public["winner"] == "b"
    await watcher.wait_seq(side["seq"])
    assert get(server, f"/matches/{match_id}/dice").status_code == 200  # the seed is revealed
    for client in (a, watcher):
        await client.close()
