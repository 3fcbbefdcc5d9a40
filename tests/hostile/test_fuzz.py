"""Fuzz (docs/limits-and-outages.md): 5,000 seeded hostile frames - mutated acts, junk, binary,
deep, oversize - on live and replay sockets, and 1,000 mutated match definitions (mutations of
the JSON of examples/duel-40k7.json). Asserted: no connection dropped, every act with a readable
action_id answered exactly once, no HTTP 5xx, no traceback in the server log, and nothing
appended that was not acknowledged."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from ..server_process import ServerProcess
from .frames import connect, create, events, hello
from .mutate import junk_frame, mutate

SEED = 20261201
FRAMES = 5000
DEFINITIONS = 1000
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "duel-40k7.json"

ACTIONS: list[dict[str, Any]] = [
    {"type": "move", "unit": "predator-1", "path": [[12.0, 24.0]], "heading": 0.0},
    {"type": "pivot", "unit": "predator-1", "heading": 90.0},
    {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]},
    {"type": "end_phase"},
    {"type": "charge", "unit": "predator-1", "target": "rhino-1"},
    {"type": "decide", "decision": "d1", "choice": "yes"},
    {"type": "takeback_request", "to_seq": 1},
    {"type": "undo"},
    {"type": "embark", "unit": "predator-1", "transport": "rhino-1"},
    {"type": "disembark", "unit": "predator-1", "positions": {"m": [1.0, 2.0]}},
]


def fuzz_frame(rng: random.Random, i: int) -> tuple[str | bytes, str | None]:
    """A frame, and the action_id it must be answered for (None: no act to answer)."""
    roll = rng.random()
    if roll < 0.6:
        action_id = f"f{i}"
        act: dict[str, Any] = {"type": "act", "action_id": action_id, "action": rng.choice(ACTIONS)}
        act["action"] = mutate(act["action"], rng, rng.randint(1, 3))
        if rng.random() < 0.1:
            act = mutate(act, rng)
            action_id = act.get("action_id") if isinstance(act, dict) and act.get("type") == "act" else None
            if not isinstance(action_id, str):
                action_id = None
        return json.dumps(act), action_id
    if roll < 0.75:
        message = rng.choice(
            [
                {"type": "ping", "nonce": "n"},
                {"type": "resume", "from_seq": 1},
                {"type": "hello", "token": "t"},
            ]
        )
        return json.dumps(mutate(message, rng)), None
    return junk_frame(rng), None


async def _exchange(ws: Any, frame: str | bytes, nonce: str) -> list[dict[str, Any]]:
    """Send ``frame``, then a ping; everything the server said before the pong."""
    await ws.send(frame)
    await ws.send(json.dumps({"type": "ping", "nonce": nonce}))
    said: list[dict[str, Any]] = []
    while True:
        message = json.loads(await ws.recv())
        if message == {"type": "pong", "nonce": nonce}:
            return said
        said.append(message)


async def test_fuzzed_frames_and_definitions_get_answers_and_append_nothing_unacknowledged(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(
        redis_url=redis_url,
        prefix=key_prefix,
        log=log,
        env={"HULLDOWN_RATE": "1000000", "HULLDOWN_CREATE_RATE": "0"},
    )
    server.start()
    rng = random.Random(SEED)
    try:
        created = create(server)
        match_id, token = created["match_id"], created["tokens"]["a"]
        live = await connect(f"{server.ws}/matches/{match_id}/live")
        assert (await hello(live, token))["type"] == "welcome"
        replay = await connect(f"{server.ws}/matches/{match_id}/replay")
        await replay.send(json.dumps({"type": "replay_open", "from_seq": 1}))
        assert json.loads(await replay.recv())["type"] == "replay_state"
        acked: set[int] = set()
        codes: Counter[str] = Counter()
        for i in range(FRAMES):
            if i % 10 == 9:  # one frame in ten on the replay socket
                frame = (
                    json.dumps(mutate({"type": "replay_step", "count": 1}, rng))
                    if i % 20 == 9
                    else junk_frame(rng)
                )
                said = await _exchange(replay, frame, f"r{i}")
                assert all(m["type"] != "error" or not m.get("fatal") for m in said), said
                continue
            frame, action_id = fuzz_frame(rng, i)
            said = await _exchange(live, frame, f"p{i}")
            for message in said:
                assert not (message["type"] == "error" and message.get("fatal")), (frame, message)
                if message["type"] in ("ack", "rejected"):
                    codes[message.get("code", "ack")] += 1
                    if message["type"] == "ack" and not message["duplicate"]:
                        acked.add(message["seq"])
                elif message["type"] == "error":
                    codes[message["code"]] += 1
            if action_id is not None:  # exactly one ack or rejected for this act
                replies = [
                    m for m in said if m["type"] in ("ack", "rejected") and m["action_id"] == action_id
                ]
                assert len(replies) == 1, (frame, said)
        await live.close()
        await replay.close()

        stored = events(server, match_id, token)
        assert {e["seq"] for e in stored} == {1} | acked  # nothing appended without its ack
        assert codes["bad_action"] > 0 and codes["binary_frame"] > 0 and codes["too_large"] > 0

        definition = json.loads(EXAMPLE.read_text())
        statuses: Counter[int] = Counter()
        with httpx.Client(timeout=30) as client:
            for _ in range(DEFINITIONS):
                body = json.dumps(mutate(definition, rng, rng.randint(1, 4)))
                statuses[client.post(f"{server.http}/matches", content=body).status_code] += 1
        print("fuzz codes", dict(codes), "definition statuses", dict(statuses), "acked", len(acked))
        assert not [s for s in statuses if s >= 500], statuses
        assert statuses[201] + statuses[400] + statuses[422] + statuses[413] == DEFINITIONS, statuses
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]
