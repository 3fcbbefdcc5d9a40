"""Matches on a Redis Cluster over real servers: one process end to end, then three processes
with players and spectators spread over them and one process SIGKILLed and restarted mid-match.
Each server's tailer runs one loop per primary; the matches created here land on several
primaries (their ids hash to different slots)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.protocol import State

from ..live.test_end_to_end import MOVE, SHOOT, create
from ..live.wsclient import RawClient
from ..redis_cluster import LocalCluster
from ..server_process import ServerProcess
from .helpers import END, act, assert_each_acked_action_once, converge, events, state, summary

pytestmark = pytest.mark.cluster


async def test_a_match_end_to_end_on_the_cluster(
    redis_cluster: LocalCluster, key_prefix: str, tmp_path: Path
) -> None:
    server = ServerProcess(
        redis_url=redis_cluster.url, prefix=key_prefix, snapshot_every=3, log=tmp_path / "s.log"
    )
    server.start()
    try:
        created = create(server)
        url = f"{server.ws}/matches/{created['match_id']}/live"
        a = await RawClient.connect(url, {"token": created["tokens"]["a"]})
        b = await RawClient.connect(url, {"token": created["tokens"]["b"]})
        spectator = await RawClient.connect(url, {"spectator": True})
        assert (await act(a, MOVE, "m1"))["seq"] == 2
        assert (await act(a, END, "e1"))["seq"] == 3
        assert (await act(a, SHOOT, "s1"))["seq"] == 4
        assert (await act(a, MOVE, "m1"))["duplicate"] is True  # a retry is answered, not re-applied
        assert (await act(a, END, "e2"))["seq"] == 5
        assert (await act(a, END, "e3"))["seq"] == 6
        reply = await act(
            b, {"type": "move", "unit": "rhino-2", "path": [[62.0, 44.0]], "heading": 180.0}, "b1"
        )
        assert reply["type"] == "ack" and reply["seq"] == 7
        final = state(server, created["match_id"])
        for client in (a, b, spectator):
            await client.wait_seq(7, timeout=30)
            assert client.patch_seqs == [2, 3, 4, 5, 6, 7]
            assert client.view == final["view"]
        assert_each_acked_action_once(
            events(server, created["match_id"]), {"m1": 2, "e1": 3, "s1": 4, "e2": 5, "e3": 6, "b1": 7}
        )
        for client in (a, b, spectator):
            await client.close()
    finally:
        server.stop()


def audience(process: ServerProcess, match_id: str) -> tuple[int, int]:
    found = summary(process, match_id)
    return found["spectators"], found["players_connected"]


async def eventually(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(condition):
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.1)


class Table:
    """One match: its two players and spectators, each connected to some process."""

    def __init__(self, created: dict[str, Any]) -> None:
        self.created = created
        self.match_id: str = created["match_id"]
        self.players: dict[str, RawClient] = {}
        self.where: dict[str, ServerProcess] = {}
        self.spectators: list[RawClient] = []
        self.acked: dict[str, int] = {}
        self.actions = 0

    async def connect(self, side: str, process: ServerProcess) -> None:
        url = f"{process.ws}/matches/{self.match_id}/live"
        self.players[side] = await RawClient.connect(url, {"token": self.created["tokens"][side]})
        self.where[side] = process

    async def watch(self, process: ServerProcess) -> RawClient:
        client = await RawClient.connect(f"{process.ws}/matches/{self.match_id}/live", {"spectator": True})
        self.spectators.append(client)
        return client

    async def step(self, any_process: ServerProcess) -> None:
        """The active side ends its phase, once its own process has folded the latest event
        (a process that is behind would judge the action against an older state)."""
        deadline = time.monotonic() + 30
        found = summary(any_process, self.match_id)
        while found["seq"] < self.seq:  # the process asked may itself be a moment behind
            assert time.monotonic() < deadline, f"{any_process.http} stuck at seq {found['seq']}"
            await asyncio.sleep(0.02)
            found = summary(any_process, self.match_id)
        active = found["active"]
        await self.players[active].wait_seq(self.seq, timeout=30)
        self.actions += 1
        action_id = f"{self.match_id}-{self.actions}"
        reply = await act(self.players[active], END, action_id)
        assert reply["type"] == "ack", reply
        self.acked[action_id] = reply["seq"]

    @property
    def seq(self) -> int:
        return max(self.acked.values(), default=1)

    async def close(self) -> None:
        for client in [*self.players.values(), *self.spectators]:
            await client.close()


async def test_three_processes_one_killed_and_restarted_mid_match(
    redis_cluster: LocalCluster, key_prefix: str, tmp_path: Path
) -> None:
    processes = [
        ServerProcess(
            redis_url=redis_cluster.url, prefix=key_prefix, snapshot_every=4, log=tmp_path / f"p{i}.log"
        )
        for i in range(3)
    ]
    for process in processes:
        process.start()
    p0, p1, p2 = processes
    tables: list[Table] = []
    try:
        primaries: set[str] = set()
        for attempt in range(10):  # three matches on at least two primaries
            if len(tables) == 3 and len(primaries) >= 2:
                break
            created = create(processes[attempt % 3])
            primary = redis_cluster.primary_of(f"{key_prefix}:{{{created['match_id']}}}:events").address
            if len(tables) == 2 and primary in primaries and len(primaries) == 1:
                continue
            tables.append(Table(created))
            primaries.add(primary)
        assert len(tables) == 3 and len(primaries) >= 2, "match ids hash over the slots"
        for i, table in enumerate(tables):
            await table.connect("a", processes[i % 3])
            await table.connect("b", processes[(i + 1) % 3])
            for process in processes:
                await table.watch(process)

        for table in tables:  # every process counts the sockets of all three (live/presence.py)
            for process in processes:
                await eventually(lambda p=process, t=table: audience(p, t.match_id) == (3, 2))

        for _ in range(4):
            for table in tables:
                await table.step(p2)

        p1.kill()  # the players and spectators on p1 lose their connection
        for table in tables:
            for side in ("a", "b"):
                if table.where[side] is p1:
                    await table.connect(side, p2)  # the same token, another process
        for _ in range(3):
            for table in tables:
                await table.step(p0)

        p1.start()  # same port, a fresh process: it loads each match from snapshot + events
        for table in tables:
            await table.connect("b", p1)
            late = await table.watch(p1)
            assert late.messages[0]["type"] == "welcome" and late.messages[0]["seq"] == table.seq
        for _ in range(3):
            for table in tables:
                await table.step(p1)

        for process in processes:  # the match list: one global index key, then one match at a time
            listed = httpx.get(f"{process.http}/matches", timeout=30).json()["matches"]
            assert {t.match_id for t in tables} <= {m["match_id"] for m in listed}
        for table in tables:
            final_hash = await converge(processes, table.match_id, table.seq)
            final = state(p0, table.match_id)
            assert final["hash"] == final_hash
            followed = 0
            for client in [*table.players.values(), *table.spectators]:
                if client.ws.state is State.OPEN:  # not the spectators of the killed p1
                    await client.wait_seq(table.seq, timeout=30)
                    assert client.view == final["view"]
                    followed += 1
            assert followed == 2 + 3  # both players, the spectators of p0 and p2 and the late one
            assert_each_acked_action_once(events(p2, table.match_id), table.acked | {"create": 1})
            assert len(table.acked) == 10
    finally:
        for table in tables:
            await table.close()
        for process in processes:
            process.stop()
