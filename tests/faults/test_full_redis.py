"""A Redis that is full (``maxmemory`` reached, ``noeviction``: it refuses every write with
``OOM``) refuses the append's whole transaction (docs/limits-and-outages.md): the act is answered
``rejected store_unavailable`` (retryable), nothing is appended and no patch goes out; once Redis
takes writes again, the same act (same ``action_id``) is acknowledged at the next seq, and play
goes on. On ``hulldown serve``'s own embedded Redis, where appends are the private store's
``MULTI``/``EXEC`` transaction on the lean connection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from hulldown.store.embedded import socket_path_for

from ..hostile.frames import connect, create, events, hello, reply
from ..server_process import ServerProcess

pytestmark = pytest.mark.faults

END = {"type": "end_phase"}


def act(action_id: str) -> str:
    return json.dumps({"type": "act", "action_id": action_id, "action": END})


async def test_a_full_redis_refuses_the_act_as_store_unavailable_and_it_lands_when_redis_has_room(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    server = ServerProcess(data_dir=data_dir, log=tmp_path / "server.log")
    server.start()
    store = redis.Redis(unix_socket_path=str(socket_path_for(data_dir)), socket_timeout=5)
    try:
        created = create(server)
        match_id, token = created["match_id"], created["tokens"]["a"]
        ws = await connect(f"{server.ws}/matches/{match_id}/live")
        assert (await hello(ws, token))["type"] == "welcome"
        await ws.send(act("before"))
        assert (await reply(ws))["type"] == "ack"
        before = events(server, match_id, token)

        store.config_set("maxmemory-policy", "noeviction")
        store.config_set("maxmemory", 1)  # full: every write is refused
        try:
            await ws.send(act("while-full"))
            answer = await reply(ws)
            assert (answer["type"], answer["code"]) == ("rejected", "store_unavailable"), answer
            assert answer["action_id"] == "while-full" and answer["values"] == {"retryable": True}
        finally:
            store.config_set("maxmemory", 0)
        assert events(server, match_id, token) == before  # nothing appended

        await ws.send(act("while-full"))  # the same act again
        retried = await reply(ws)
        assert (retried["type"], retried["seq"]) == ("ack", before[-1]["seq"] + 1), retried
        assert not retried.get("duplicate")
        await ws.send(act("after"))
        assert (await reply(ws))["seq"] == before[-1]["seq"] + 2
        assert [e["action_id"] for e in events(server, match_id, token)[len(before) :]] == [
            "while-full",
            "after",
        ]
        await ws.close()
    finally:
        store.close()
        server.stop()
