"""SIGKILL the server - and, in some rounds, its Redis first - in the middle of a match with acts
in flight, restart on the same data dir, and check that every acknowledged action is in the
stream at the seq it was acknowledged with (embedded Redis, AOF everysec: a crash of hulldown
or of Redis alone loses nothing that was acknowledged)."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from ..hostile.frames import connect, create, events, hello
from ..server_process import ServerProcess
from .harness import signal_redis

pytestmark = pytest.mark.faults

ROUNDS = 6
END = {"type": "end_phase"}


async def _play(
    server: ServerProcess, created: dict[str, Any], rng: random.Random, tag: str, acked: dict[str, int]
) -> list[asyncio.Task[None]]:
    """Both sides send end_phase acts, many in flight at once; every ack received goes into
    ``acked`` (action_id -> seq) until the server is killed under the returned readers."""
    url = f"{server.ws}/matches/{created['match_id']}/live"
    sockets = {side: await connect(url) for side in ("a", "b")}
    for side, ws in sockets.items():
        assert (await hello(ws, created["tokens"][side]))["type"] == "welcome"

    async def read(ws: Any) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "ack":
                    acked[message["action_id"]] = message["seq"]
        except Exception:  # the server is killed under us
            return

    readers = [asyncio.create_task(read(ws)) for ws in sockets.values()]
    for i in range(rng.randint(20, 60)):
        for side, ws in sockets.items():
            try:
                await ws.send(json.dumps({"type": "act", "action_id": f"{tag}-{side}-{i}", "action": END}))
            except Exception:
                break
        await asyncio.sleep(rng.random() * 0.01)
    return readers


async def test_sigkill_of_server_and_redis_mid_match_loses_no_acknowledged_action(tmp_path: Path) -> None:
    rng = random.Random(13)
    data_dir = tmp_path / "data"
    all_acked: dict[str, dict[str, int]] = {}  # match id -> action_id -> seq
    matches: list[dict[str, Any]] = []
    for round_no in range(ROUNDS):
        server = ServerProcess(data_dir=data_dir, log=tmp_path / f"round-{round_no}.log")
        server.start()
        try:
            # A new match each round (a match ends after its last turn); the previous one too.
            matches.append(create(server))
            readers = []
            for created in matches[-2:]:
                acked = all_acked.setdefault(created["match_id"], {})
                readers += await _play(server, created, rng, f"r{round_no}", acked)
            await asyncio.sleep(rng.random() * 0.05)  # acts still in flight when the kill comes
            if round_no % 2 == 1:
                signal_redis(data_dir, signal.SIGKILL)  # Redis first, then the server
        finally:
            server.kill()
        await asyncio.wait_for(asyncio.gather(*readers), 10)  # acks that got out before the kill

    server = ServerProcess(data_dir=data_dir, log=tmp_path / "final.log")
    server.start()
    try:
        stored = {c["match_id"]: events(server, c["match_id"], c["tokens"]["a"]) for c in matches}
    finally:
        server.stop()
    assert sum(len(acked) for acked in all_acked.values()) > 10 * ROUNDS  # acknowledged play happened
    for match_id, acked in all_acked.items():
        at_seq = {e["seq"]: e["action_id"] for e in stored[match_id]}
        lost = {aid: seq for aid, seq in acked.items() if at_seq.get(seq) != aid}
        assert lost == {}, f"{match_id}: acknowledged but not stored at their seq: {lost}"
        assert sorted(at_seq) == list(range(1, len(at_seq) + 1))  # no gap, no duplicate seq
