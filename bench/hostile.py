"""What a hostile client costs everyone else (docs/limits-and-outages.md).

1. ``worst_action``: the bounded worst-case action - a vehicle move through MAX_WAYPOINTS
   waypoints turning 90 degrees at each, with a final pivot - validated and folded in-process,
   its sweep computed from scratch each time (cache cleared); beside it, the sweep alone for
   longer paths than the cap allows, to show the cost is linear in the waypoints.
2. ``victim``: a real ``hulldown serve``; a victim match's player alternates pings and
   ``end_phase`` acts and records each round trip, first alone, then while ``--hostile`` other
   matches each flood worst-case moves (a fresh jittered path each time, so no cache helps;
   ``undo`` after each, so every move is legal).

Prints one JSON object. Not a test: timings are never asserted.

    python bench/hostile.py --hostile 4 --samples 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scenarios import duel  # noqa: E402
from tests.server_process import ServerProcess  # noqa: E402

from hulldown.match.actions import Move  # noqa: E402
from hulldown.match.bounds import MAX_WAYPOINTS  # noqa: E402
from hulldown.match.dice_binding import event_dice  # noqa: E402
from hulldown.match.events import Event  # noqa: E402
from hulldown.match.history import evolve_with_history  # noqa: E402
from hulldown.match.reducer import initial_state  # noqa: E402
from hulldown.match.scenario import match_created  # noqa: E402
from hulldown.match.state import Point  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.geometry import movement  # noqa: E402
from hulldown.rules.geometry.shapes import Hull  # noqa: E402


def square(n: int, jitter: float = 0.0, rng: random.Random | None = None) -> list[list[float]]:
    corners = [[10.25, 24.0], [10.25, 24.25], [10.0, 24.25], [10.0, 24.0]]
    out = []
    for i in range(n):
        x, y = corners[i % 4]
        if rng is not None and jitter:
            x, y = x + rng.uniform(-jitter, jitter), y + rng.uniform(-jitter, jitter)
        out.append([x, y])
    return out


def ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def _never(seq: int) -> Any:
    raise LookupError(seq)


def worst_action(reps: int) -> dict[str, Any]:
    request = duel()
    body = match_created(request.edition, request.scenario, request.options, "c" * 64)
    state = initial_state("bench", body)
    action = Move(unit="predator-1", path=tuple(Point(x, y) for x, y in square(MAX_WAYPOINTS)), heading=45.0)
    event = Event(seq=2, at=0.0, by="a", action_id="w", body=action)
    samples, cpu = [], []
    for _ in range(reps):
        movement._swept.cache_clear()
        start, start_cpu = time.perf_counter(), time.thread_time()
        assert validate(state, "a", action) is None
        evolve_with_history(state, event, event_dice(b"s" * 32, "bench", event), _never)
        samples.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    sweeps = {}
    for n in (MAX_WAYPOINTS, 64, 256):
        movement._swept.cache_clear()
        start = time.perf_counter()
        movement.swept_area(Hull(10, 24, 6, 4, 0), square(n), 45.0)
        sweeps[str(n)] = round((time.perf_counter() - start) * 1000, 2)
    return {
        "waypoints": MAX_WAYPOINTS,
        "validate_and_fold_wall": ms(samples),
        "validate_and_fold_cpu": ms(cpu),  # CPU of this thread alone: what the action costs
        "sweep_ms_by_waypoints": sweeps,
        "loadavg_1m": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }


def create(server: ServerProcess) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(duel()), timeout=10)
    response.raise_for_status()
    created: dict[str, Any] = response.json()
    return created


async def open_player(server: ServerProcess, created: dict[str, Any]) -> Any:
    ws = await websockets.connect(f"{server.ws}/matches/{created['match_id']}/live", max_size=2**24)
    await ws.send(json.dumps({"type": "hello", "token": created["tokens"]["a"]}))
    while json.loads(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def answer(ws: Any, want: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message.get("action_id") == want or message.get("nonce") == want:
            return message


async def victim(server: ServerProcess, samples: int) -> dict[str, Any]:
    created = create(server)
    ws = await open_player(server, created)
    pings, acks = [], []
    for i in range(samples):
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "ping", "nonce": f"v{i}"}))
        await answer(ws, f"v{i}")
        pings.append(time.perf_counter() - start)
        # end_phase then undo: always legal, the match never ends.
        for kind in ("end_phase", "undo"):
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action_id": f"v{kind}{i}", "action": {"type": kind}}))
            reply = await answer(ws, f"v{kind}{i}")
            assert reply["type"] == "ack", reply
            acks.append(time.perf_counter() - start)
    await ws.close()
    return {"ping": ms(pings), "ack": ms(acks)}


async def hostile(server: ServerProcess, stop: asyncio.Event, counter: list[float], seed: int) -> None:
    created = create(server)
    ws = await open_player(server, created)
    rng = random.Random(seed)
    i = 0
    while not stop.is_set():
        move = {
            "type": "move",
            "unit": "predator-1",
            "path": square(MAX_WAYPOINTS, 0.01, rng),
            "heading": 45.0,
        }
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "act", "action_id": f"h{i}", "action": move}))
        reply = await answer(ws, f"h{i}")
        counter.append(time.perf_counter() - start)
        if reply["type"] == "ack":
            await ws.send(json.dumps({"type": "act", "action_id": f"u{i}", "action": {"type": "undo"}}))
            await answer(ws, f"u{i}")
        i += 1
    await ws.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(data_dir=Path(tmp) / "data", env={"HULLDOWN_RATE": "100000"})
        server.start()
        try:
            alone = await victim(server, args.samples)
            stop = asyncio.Event()
            moves: list[float] = []
            floods = [asyncio.create_task(hostile(server, stop, moves, s)) for s in range(args.hostile)]
            await asyncio.sleep(1.0)
            attacked = await victim(server, args.samples)
            stop.set()
            await asyncio.gather(*floods)
        finally:
            server.stop()
    return {
        "victim_alone": alone,
        "victim_under_attack": attacked,
        "hostile_matches": args.hostile,
        "hostile_worst_moves": len(moves),
        "hostile_move_round_trip": ms(moves) if moves else {},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hostile", type=int, default=4, help="matches flooding worst-case moves")
    parser.add_argument("--samples", type=int, default=300, help="victim pings and acts")
    parser.add_argument("--reps", type=int, default=30, help="repetitions of the in-process worst action")
    args = parser.parse_args()
    result = {"worst_action": worst_action(args.reps), **asyncio.run(run(args))}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
