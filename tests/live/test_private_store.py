"""A server on its own embedded Redis reads nothing back from the match streams: no other process
can write to that store (one owner per data directory), so every event reaches the runtime from
the append that made it (store/tailers.py, docs/architecture.md section 5), and an act of a kind
known to be quick is appended without the append script (the runtime, the one writer, checked
the version and the action id itself). Players and spectators still get every patch, and the
ready check still says ready."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import redis

from hulldown.store.embedded import socket_path_for
from hulldown.store.tail import StreamTailer
from hulldown.store.tailers import PrivateStoreTailer, make_tailer

from ..server_process import ServerProcess
from .test_end_to_end import END, MOVE, connect_all, create


async def test_a_server_on_its_embedded_redis_plays_without_reading_its_streams_back(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = ServerProcess(data_dir=data_dir, log=tmp_path / "server.log")
    server.start()
    try:
        created = create(server)
        a, b, spectator = await connect_all(server, created)
        assert (await a.act(MOVE, "m1"))["seq"] == 2
        for i in range(3):
            assert (await a.act(END, f"a-end-{i}"))["type"] == "ack"
        assert (await b.act(END, "b-end"))["seq"] == 6
        state = httpx.get(f"{server.http}/matches/{created['match_id']}/state", timeout=10).json()
        for client in (a, b, spectator):
            await client.wait_seq(6)
            assert client.patch_seqs == [2, 3, 4, 5, 6]
            assert client.view == state["view"]
        ready = httpx.get(f"{server.http}/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["tailer"] is True

        direct = redis.Redis(unix_socket_path=str(socket_path_for(data_dir)))
        try:
            stats = direct.info("commandstats")
        finally:
            direct.close()
        assert "cmdstat_evalsha" in stats  # the appends happened here: the first of each kind...
        assert "cmdstat_exec" in stats  # ...by the script, those of a quick kind without it
        assert "cmdstat_xread" not in stats, stats.get("cmdstat_xread")
        for client in (a, b, spectator):
            await client.close()
    finally:
        server.stop()


async def test_the_private_store_tailer_keeps_positions_and_reads_nothing() -> None:
    async def never(match_id: str, entries: list[tuple[int, bytes]]) -> None:
        raise AssertionError("a private store's tailer delivers nothing")

    tailer = make_tailer("unix:///nowhere/redis.sock", never, private=True)
    assert isinstance(tailer, PrivateStoreTailer) and not tailer.running
    await tailer.start()
    assert tailer.running
    assert await tailer.follow("m1", after_seq=3) is True
    assert await tailer.follow("m1", after_seq=9) is False  # already followed: position kept
    assert tailer.following() == {"m1": 3} and tailer.position("m1") == 3
    with pytest.raises(ValueError, match="after_seq"):
        await tailer.follow("m2", after_seq=-1)
    assert await tailer.unfollow("m1") is True and await tailer.unfollow("m1") is False
    await tailer.stop()
    assert not tailer.running
    assert isinstance(make_tailer("unix:///nowhere/redis.sock", never), StreamTailer)
