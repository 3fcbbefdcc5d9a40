"""The replay feed websocket and the turn/phase index (docs/architecture.md section 10): from any
seq, step by step, at real-time pace or N times faster; undone branches marked, not hidden; a live
match is followed as it goes; a delayed spectator never replays past the delayed seq."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
from msgspec.structs import replace

from hulldown.match.state import Options
from tests.live.test_end_to_end import END, MOVE, SHOOT, connect_all
from tests.live.wsclient import RawClient
from tests.scenarios import duel
from tests.server_process import ServerProcess
from tests.undo.live_helpers import create

from .replayclient import ReplayClient

UNDO = {"type": "undo"}


def replay_url(server: ServerProcess, match_id: str) -> str:
    return f"{server.ws}/matches/{match_id}/replay"


def state_at(server: ServerProcess, match_id: str, at: int) -> Any:
    return httpx.get(f"{server.http}/matches/{match_id}/state", params={"at": at}, timeout=10).json()


async def play_a_match_with_an_undone_branch(server: ServerProcess) -> tuple[str, list[RawClient]]:
    """2 move, 3 end (-> shooting), 4 undo (back to 2), 5 end, 6 shoot, 7 end, 8 end (b's turn),
    9 b ends its movement phase, 10 a concedes, 11 seed revealed (whatever the shot's dice)."""
    created = create(server)
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")
    await a.act(END, "e1")
    await a.act(UNDO, "u1")
    await a.act(END, "e2")
    await a.act(SHOOT, "s1")
    await a.act(END, "e3")
    await a.act(END, "e4")
    await b.act(END, "b1")
    await a.act({"type": "concede"}, "gg")
    await a.wait_seq(11)
    return created["match_id"], [a, b, spectator]


async def test_turn_and_phase_index_marks_the_undone_branch(server: ServerProcess) -> None:
    match_id, clients = await play_a_match_with_an_undone_branch(server)
    index = httpx.get(f"{server.http}/matches/{match_id}/index", timeout=10).json()
    phases = [(p["seq"], p["turn"], p["side"], p["phase"], p["undone_by"]) for p in index["phases"]]
    assert phases == [
        (1, 1, "a", "movement", None),
        (3, 1, "a", "shooting", 4),
        (5, 1, "a", "shooting", None),
        (7, 1, "a", "assault", None),
        (8, 1, "b", "movement", None),
        (9, 1, "b", "shooting", None),
    ]
    assert [(p["seq"], p["player_turn"]) for p in index["player_turns"]] == [(1, 1), (8, 2)]
    assert [p["seq"] for p in index["turns"]] == [1]
    actions = {x["seq"]: (x["action"], x["undone_by"], x["parent"]) for x in index["actions"]}
    assert actions[3] == ("end_phase", 4, 2)
    assert actions[5] == ("end_phase", None, 2)  # applied right after the undo: its parent is 2
    assert actions[6][0] == "shoot" and actions[9] == ("end_phase", None, 8)
    for client in clients:
        await client.close()


async def test_step_by_step_from_any_seq_with_marks(server: ServerProcess) -> None:
    match_id, clients = await play_a_match_with_an_undone_branch(server)
    viewer = await ReplayClient.open(replay_url(server, match_id), from_seq=1)
    first = viewer.messages[0]
    assert first["type"] == "replay_state" and first["seq"] == 1 and first["last"] == 11
    await viewer.send({"type": "replay_step", "count": 4})
    await viewer.wait_for(lambda m: m["type"] == "replay_frame" and m["seq"] == 5)
    frames = {f["seq"]: f for f in viewer.frames()}
    assert frames[3]["undone_by"] == 4 and frames[2]["undone_by"] is None
    assert frames[4]["event"] == "undo" and frames[4]["restores"] == 2 and frames[4]["undoes"] == [3]
    assert viewer.view == state_at(server, match_id, 5)["view"]

    seen = len(viewer.messages)
    await viewer.send({"type": "replay_seek", "seq": 8})
    sought = await viewer.wait_for(lambda m: m["type"] == "replay_state", start=seen)
    assert sought["seq"] == 8 and sought["view"] == state_at(server, match_id, 8)["view"]
    await viewer.send({"type": "replay_step", "count": 10})
    end = await viewer.wait_for(lambda m: m["type"] == "replay_end", start=seen)
    assert end == {"type": "replay_end", "seq": 11, "ended": True}
    assert [f["seq"] for f in viewer.frames() if f["seq"] > 8] == [9, 10, 11]
    assert viewer.view == httpx.get(f"{server.http}/matches/{match_id}/state", timeout=10).json()["view"]
    assert viewer.view["seed"] != ""
    # Every step asked for at the end is answered, and so is play from the end.
    for again in ({"type": "replay_step"}, {"type": "replay_play"}):
        seen = len(viewer.messages)
        await viewer.send(again)
        assert await viewer.wait_for(lambda m: m["type"] == "replay_end", start=seen) == end
    await viewer.close()
    for client in clients:
        await client.close()


async def test_play_at_real_pace_and_faster(server: ServerProcess) -> None:
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    for k in range(3):
        await a.act(END, f"e{k}")  # 2, 3, 4 ...
        await asyncio.sleep(0.6)  # ... about 0.6 s apart
    timed = httpx.get(f"{server.http}/matches/{match_id}/events", timeout=10).json()["events"]
    gaps = [timed[k + 1]["at"] - timed[k]["at"] for k in (1, 2)]
    assert all(g >= 0.6 for g in gaps)

    real = await ReplayClient.open(replay_url(server, match_id), from_seq=2, mode="play", speed=1.0)
    fast = await ReplayClient.open(replay_url(server, match_id), from_seq=2, mode="play", speed=4.0)
    for viewer in (real, fast):
        await viewer.wait_for(lambda m: m["type"] == "replay_end", timeout=10)
    real_frames = [k for k, m in enumerate(real.messages) if m["type"] == "replay_frame"]
    fast_frames = [k for k, m in enumerate(fast.messages) if m["type"] == "replay_frame"]
    real_span = real.arrivals[real_frames[-1]] - real.arrivals[real_frames[0]]
    fast_span = fast.arrivals[fast_frames[-1]] - fast.arrivals[fast_frames[0]]
    # Frames 3 and 4 follow 3's gap: the real-time replay spans the recorded gap, 4x is ~4x faster.
    assert real_span >= gaps[1] - 0.05
    assert fast_span <= gaps[1] / 4 + 0.15
    end = real.messages[-1]
    assert end == {"type": "replay_end", "seq": 4, "ended": False}

    # A live match is followed: a new event reaches the playing viewer.
    assert (await a.act(END, "not-a"))["type"] == "rejected"  # side b's turn: no event, no frame
    assert (await b.act(END, "b-late"))["seq"] == 5
    await real.wait_for(lambda m: m["type"] == "replay_frame" and m["seq"] == 5, timeout=10)
    for client in (real, fast, a, b, spectator):
        await client.close()


async def test_delayed_spectators_replay_only_up_to_the_delayed_seq(server: ServerProcess) -> None:
    body = msgspec.json.encode(replace(duel(), options=Options(spectator_delay_events=3)))
    created = httpx.post(f"{server.http}/matches", content=body, timeout=10).json()
    match_id = created["match_id"]
    a = await RawClient.connect(f"{server.ws}/matches/{match_id}/live", {"token": created["tokens"]["a"]})
    await a.act(MOVE, "m1")
    await a.act(END, "e1")
    await a.act(UNDO, "u1")  # seq 4 undoes 3: a delayed viewer must not learn it yet
    await a.act(END, "e2")  # 5
    public = await ReplayClient.open(replay_url(server, match_id), from_seq=1)
    assert public.messages[0]["last"] == 2
    await public.send({"type": "replay_step", "count": 10})
    end = await public.wait_for(lambda m: m["type"] == "replay_end")
    assert end["seq"] == 2 and [f["seq"] for f in public.frames()] == [2]
    beyond = await ReplayClient.open(replay_url(server, match_id), from_seq=5)
    assert beyond.messages[0]["seq"] == 2
    player = await ReplayClient.open(replay_url(server, match_id), from_seq=2, token=created["tokens"]["a"])
    await player.send({"type": "replay_step", "count": 3})
    await player.wait_for(lambda m: m["type"] == "replay_frame" and m["seq"] == 5)
    assert {f["seq"]: f["undone_by"] for f in player.frames()}[3] == 4
    for client in (public, beyond, player, a):
        await client.close()


async def test_replay_protocol_errors(server: ServerProcess) -> None:
    created = create(server)
    match_id = created["match_id"]
    viewer = await ReplayClient.open(replay_url(server, match_id))
    for bad, code in (("{nope", "bad_message"), ('{"type":"replay_open"}', "already_open")):
        seen = len(viewer.messages)
        await viewer.ws.send(bad)
        assert (await viewer.wait_for(lambda m: m["type"] == "error", start=seen))["code"] == code
    # Pacing out of bounds: a clear error naming the field, and nothing moves.
    for bad, path in (
        ({"type": "replay_play", "speed": 0}, "$.speed"),
        ({"type": "replay_play", "speed": -3, "max_gap": 1}, "$.speed"),
        ({"type": "replay_play", "max_gap": -1}, "$.max_gap"),
        ({"type": "replay_step", "count": 0}, "$.count"),
        ({"type": "replay_step", "count": -5}, "$.count"),
    ):
        seen = len(viewer.messages)
        await viewer.send(bad)
        error = await viewer.wait_for(lambda m: m["type"] == "error", start=seen)
        assert error["code"] == "bad_message" and path in error["message"], (bad, error)
        await asyncio.sleep(0.05)
        assert [m["type"] for m in viewer.messages[seen:]] == ["error"], bad
    slow = await ReplayClient.open(replay_url(server, match_id), mode="play", speed=0)
    assert slow.messages[0]["type"] == "error" and "$.speed" in slow.messages[0]["message"]
    await slow.close()
    unknown = await ReplayClient.open(replay_url(server, "nosuchmatch"))
    assert unknown.messages[0]["code"] == "unknown_match"
    await viewer.close()
    await unknown.close()
