"""SIGKILL the primary serving a match's slot while an action is in flight: its replica takes
over, the action is acknowledged once the new primary has it, and afterwards no acknowledged
action is lost or duplicated and both server processes (and their clients) converge on one
state hash. Appends are acknowledged only after WAIT confirms a replica has them
(store/cluster_append.py), which is what makes an acknowledged action survive this."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from ..live.test_end_to_end import create
from ..live.wsclient import RawClient
from ..redis_cluster import LocalCluster
from ..server_process import ServerProcess
from .helpers import END, act, assert_each_acked_action_once, converge, events, state

pytestmark = pytest.mark.cluster


async def test_primary_killed_mid_match(fresh_cluster: LocalCluster, key_prefix: str, tmp_path: Path) -> None:
    processes = [
        ServerProcess(
            redis_url=fresh_cluster.url, prefix=key_prefix, snapshot_every=4, log=tmp_path / f"p{i}.log"
        )
        for i in range(2)
    ]
    for process in processes:
        process.start()
    p0, p1 = processes
    clients: list[RawClient] = []
    try:
        created = create(p0)
        match_id = created["match_id"]
        players = {
            "a": await RawClient.connect(
                f"{p0.ws}/matches/{match_id}/live", {"token": created["tokens"]["a"]}
            ),
            "b": await RawClient.connect(
                f"{p1.ws}/matches/{match_id}/live", {"token": created["tokens"]["b"]}
            ),
        }
        spectators = [
            await RawClient.connect(f"{p.ws}/matches/{match_id}/live", {"spectator": True}) for p in (p0, p1)
        ]
        clients = [*players.values(), *spectators]
        acked: dict[str, int] = {"create": 1}
        seq = 1

        async def step(n: int) -> None:
            nonlocal seq
            mover = players["a"]
            await mover.wait_seq(seq, timeout=45)
            side = mover.view["active"]
            # the actor acts once its own process has folded the latest event (it sent the patch)
            await players[side].wait_seq(seq, timeout=45)
            action_id = f"end-{n}"
            reply = await act(players[side], END, action_id, timeout=60)
            assert reply["type"] == "ack", reply
            acked[action_id] = reply["seq"]
            seq = reply["seq"]

        for n in range(4):
            await step(n)

        primary = fresh_cluster.primary_of(f"{key_prefix}:{{{match_id}}}:events")
        side = players["a"].view["active"]
        await players[side].wait_seq(seq, timeout=45)
        await players[side].send({"type": "act", "action_id": "in-flight", "action": END})
        fresh_cluster.kill(primary)  # SIGKILL, with the action possibly half done
        killed_at = time.monotonic()
        reply = await players[side].wait_for(
            lambda m: m.get("action_id") == "in-flight" and m["type"] in ("ack", "rejected"), timeout=60
        )
        assert reply["type"] == "ack", reply
        acked["in-flight"] = reply["seq"]
        seq = reply["seq"]
        await asyncio.to_thread(fresh_cluster.wait_healthy, 60.0, not_primary=primary)
        assert fresh_cluster.primary_of(f"{key_prefix}:{{{match_id}}}:events") is not primary
        took_over = time.monotonic() - killed_at

        for n in range(4, 8):
            await step(n)

        final_hash = await converge(processes, match_id, seq)
        final = state(p1, match_id)
        assert final["hash"] == final_hash
        for client in clients:
            await client.wait_seq(seq, timeout=45)
            assert client.view == final["view"]
        for spectator in spectators:
            assert spectator.patch_seqs == list(range(2, seq + 1))  # nothing skipped or twice
        assert_each_acked_action_once(events(p0, match_id), acked)
        assert len(acked) == 1 + 4 + 1 + 4 and seq == 10
        assert took_over < 60
    finally:
        for client in clients:
            await client.close()
        for process in processes:
            process.stop()
