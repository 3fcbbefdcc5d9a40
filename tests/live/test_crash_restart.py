"""SIGKILL the server mid-match, start it again on the same data dir (embedded Redis, AOF):
the state hash is identical and no acknowledged action is lost
(docs/architecture.md sections 1 and 5)."""

from __future__ import annotations

from pathlib import Path

import httpx

from ..server_process import ServerProcess
from .test_end_to_end import END, MOVE, connect_all, create


async def test_sigkill_and_restart_loses_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first = ServerProcess(data_dir=data_dir, log=tmp_path / "first.log")
    first.start()
    try:
        created = create(first)
        a, b, _spectator = await connect_all(first, created)
        acked: list[int] = []
        acked.append((await a.act(MOVE, "m1"))["seq"])
        for i in range(3):
            acked.append((await a.act(END, f"a-end-{i}"))["seq"])
        acked.append((await b.act({"type": "pivot", "unit": "rhino-1", "heading": 90.0}, "b-pivot"))["seq"])
        match_id = created["match_id"]
        before = httpx.get(f"{first.http}/matches/{match_id}/state", timeout=10).json()
        assert before["seq"] == acked[-1] == 6
    finally:
        first.kill()

    second = ServerProcess(data_dir=data_dir, log=tmp_path / "second.log")
    second.start()
    try:
        after = httpx.get(f"{second.http}/matches/{match_id}/state", timeout=10).json()
        assert after["seq"] == before["seq"]
        assert after["hash"] == before["hash"]
        assert after["view"] == before["view"]
        events = httpx.get(f"{second.http}/matches/{match_id}/events", timeout=10).json()["events"]
        assert [e["seq"] for e in events] == [1, *acked]
        # The old tokens still work and play goes on.
        a2, b2, _ = await connect_all(second, created)
        assert (await b2.act(END, "b-end-after-restart"))["seq"] == 7
        await a2.close()
        await b2.close()
    finally:
        second.stop()
