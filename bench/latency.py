"""Action -> patch round trip at every client, beside floors measured in the same run.

Starts a real ``hulldown serve`` (embedded Redis unless --redis-url), creates a match, connects two
players and N spectators (in ``--spectator-procs`` worker processes, counting frames without
decoding them: "thin" spectators, like the peers harness), then the active player sends
``end_phase`` actions one at a time. For each action it records the time until the mover's
patch, the opponent's patch, and the first and last spectator's patch. Timestamps come from
``time.monotonic_ns()`` (CLOCK_MONOTONIC, comparable across processes).

Floors in the same run: a bare Redis XADD round trip (redis-py, and the server's lean hiredis
connection: the cheaper counts) and a bare websocket echo round trip, twice: with the echo server
in this process (``websocket_echo``: no second process to wake, lower than any server can
answer) and in a process of its own (``websocket_echo_process``, the websockets library's
server, and ``websocket_echo_process_starlette``, Starlette under uvicorn: two processes woken in
turn, as for the mover; ``bench/echo_server.py``). ``mover_p50_minus_floor_ms`` is the mover
over the Redis floor plus the in-process echo, ``mover_p50_minus_process_floor_ms`` over the Redis
floor plus the cheaper echo from its own process. With ``--think-ms`` each floor's sample waits
the same random think time first, so they are measured from idle like the actions (the peers
harness's conditions: ``--think-ms 50``). ``server_cpu_us_per_action``
is the server process's CPU time (all threads, from /proc) per measured action.
Prints one JSON object. Not a test: timings are never asserted.

    python bench/latency.py --spectators 100 --moves 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import re
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

from msgspec.structs import replace  # noqa: E402
from tests.scenarios import duel, rhino  # noqa: E402
from tests.server_process import ServerProcess  # noqa: E402

from hulldown.match.scenario import CreateMatch  # noqa: E402
from hulldown.match.state import Options, Unit  # noqa: E402
from hulldown.store.connect import make_client  # noqa: E402
from hulldown.store.lean_connection import APPEND_REPLY_TIMEOUT, LeanAddress, LeanConnection  # noqa: E402

SEQ_RE = re.compile(rb'"seq":(\d+)')


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    if not samples_ns:
        return {}
    ordered = sorted(samples_ns)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6

    return {
        "p50": round(pick(0.50), 3),
        "p90": round(pick(0.90), 3),
        "p99": round(pick(0.99), 3),
        "max": round(ordered[-1] / 1e6, 3),
        "mean": round(statistics.fmean(ordered) / 1e6, 3),
    }


# ---- spectator workers (separate processes) ---------------------------------------------


def spectator_worker(url: str, count: int, ready: Any, out: Any, stop: Any) -> None:
    asyncio.run(_spectators(url, count, ready, out, stop))


async def _spectators(url: str, count: int, ready: Any, out: Any, stop: Any) -> None:
    # first[seq] and last[seq]: earliest and latest arrival of each seq over this worker's sockets
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    sockets = []
    for _ in range(count):
        ws = await websockets.connect(url, max_size=2**24, ping_interval=None)
        await ws.send('{"type":"hello","spectator":true}')
        await ws.recv()  # welcome
        sockets.append(ws)
    sizes: list[int] = []

    async def reader(ws: Any) -> None:
        try:
            async for frame in ws:
                now = time.monotonic_ns()
                data = frame.encode() if isinstance(frame, str) else frame
                match = SEQ_RE.search(data[:64])
                if match is None:
                    continue
                seq = int(match.group(1))
                if seq not in first or now < first[seq]:
                    first[seq] = now
                if now > last.get(seq, 0):
                    last[seq] = now
                if len(sizes) < 2000:
                    sizes.append(len(data))
        except websockets.ConnectionClosed:
            pass

    tasks = [asyncio.create_task(reader(ws)) for ws in sockets]
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    for ws in sockets:
        await ws.close()
    for task in tasks:
        task.cancel()
    out.put({"first": first, "last": last, "sizes": sizes})


# ---- players -----------------------------------------------------------------------------


class Player:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.arrivals: dict[int, int] = {}
        self.acks: dict[str, int] = {}
        self.sizes: list[int] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                now = time.monotonic_ns()
                message = json.loads(frame)
                if message["type"] == "patch":
                    self.arrivals[message["seq"]] = now
                    self.sizes.append(len(frame))
                elif message["type"] == "ack":
                    self.acks[message["action_id"]] = message["seq"]
        except websockets.ConnectionClosed:
            pass


async def wait_until(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark wait timed out")
        await asyncio.sleep(0.0002)


# ---- floors -------------------------------------------------------------------------------


async def think(rng: random.Random | None, think_ms: float) -> None:
    """The random think time in [0, ``think_ms``) before an action or a floor's sample (none when
    ``think_ms`` is 0), so that floors are measured from idle like the actions."""
    if think_ms and rng is not None:
        await asyncio.sleep(rng.random() * think_ms / 1000)


async def redis_floor(redis_url: str, n: int, think_ms: float = 0.0) -> dict[str, float]:
    client = make_client(redis_url)
    key = f"hulldown-bench:{os.getpid()}:floor"
    samples = []
    rng = random.Random(1)
    try:
        for i in range(n):
            await think(rng, think_ms)
            t0 = time.monotonic_ns()
            await client.xadd(key, {"e": b"x" * 120}, id=f"0-{i + 1}")
            samples.append(time.monotonic_ns() - t0)
    finally:
        await client.delete(key)
        await client.aclose()
    return percentiles(samples)


async def redis_lean_floor(redis_url: str, n: int, think_ms: float = 0.0) -> dict[str, float]:
    """The same XADD on the cheapest client here: the server's own lean connection (hiredis,
    no pool), for ``redis://`` and ``unix://`` URLs."""
    address = LeanAddress.from_url(redis_url)
    if address is None:
        return {}
    lean = LeanConnection(address, reply_timeout=APPEND_REPLY_TIMEOUT, client_name="hulldown-bench-floor")
    key = f"hulldown-bench:{os.getpid()}:lean-floor"
    samples = []
    rng = random.Random(2)
    try:
        for i in range(n):
            await think(rng, think_ms)
            t0 = time.monotonic_ns()
            await lean.call(("XADD", key, f"0-{i + 1}", "e", b"x" * 120))
            samples.append(time.monotonic_ns() - t0)
        await lean.call(("DEL", key))
    finally:
        await lean.close()
    return percentiles(samples)


async def websocket_floor(n: int, think_ms: float = 0.0) -> dict[str, float]:
    """A websocket echo whose server runs in this process, on this loop: no second process is
    woken, so no server elsewhere can answer this fast (the lowest of the echo floors)."""

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    async with websockets.serve(echo, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        return await echo_samples(f"ws://127.0.0.1:{port}", n, think_ms)


async def websocket_process_floor(kind: str, n: int, think_ms: float = 0.0) -> dict[str, float]:
    """A websocket echo from a server in a process of its own (``bench/echo_server.py``:
    ``websockets`` or ``starlette`` under uvicorn): the round trip between two processes that any
    server pays at the least, as the mover's does."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "bench" / "echo_server.py"),
        kind,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        line = await asyncio.wait_for(child.stdout.readline(), 30)
        if not line.startswith(b"PORT "):
            raise RuntimeError(f"echo_server.py {kind} did not start: {line!r}")
        return await echo_samples(f"ws://127.0.0.1:{int(line.split()[1])}", n, think_ms)
    finally:
        child.stdin.close()
        try:
            await asyncio.wait_for(child.wait(), 10)
        except TimeoutError:
            child.kill()
            await child.wait()


async def echo_samples(url: str, n: int, think_ms: float) -> dict[str, float]:
    """``n`` echo round trips of an act-sized message, each after the think time."""
    async with websockets.connect(url) as ws:
        samples = []
        rng = random.Random(3)
        for _ in range(n):
            await think(rng, think_ms)
            t0 = time.monotonic_ns()
            await ws.send('{"type":"end_phase"}')
            await ws.recv()
            samples.append(time.monotonic_ns() - t0)
    return percentiles(samples)


# ---- the run ------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="hulldown-bench-"))
    os.environ["HULLDOWN_RATE"] = "1000000"  # the benchmark's players act back to back
    os.environ["HULLDOWN_CREATE_RATE"] = "0"  # it creates its matches from one client
    server = ServerProcess(
        redis_url=args.redis_url or "",
        data_dir=None if args.redis_url else data_dir,
        prefix=f"bench{os.getpid()}",
        snapshot_every=args.snapshot_every,
    )
    server.start()
    redis_url = args.redis_url or f"unix://{_embedded_socket(data_dir)}"
    try:
        scenario = duel()
        units = (*scenario.scenario.units, *army_units(args.extra_units))
        body = CreateMatch(
            edition=scenario.edition,
            scenario=replace(scenario.scenario, units=units),
            options=Options(turn_limit=1_000_000),
        )
        created = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(body), timeout=10).json()
        url = f"{server.ws}/matches/{created['match_id']}/live"
        players = []
        for side in ("a", "b"):
            ws = await websockets.connect(url, max_size=2**24, ping_interval=None)
            await ws.send(json.dumps({"type": "hello", "token": created["tokens"][side]}))
            welcome = json.loads(await ws.recv())
            players.append(Player(ws))
        full_view_bytes = len(json.dumps(welcome["view"]))
        seq = welcome["seq"]
        active = welcome["view"]["active"]
        phases = 3

        ctx = mp.get_context("spawn")
        out = ctx.Queue()
        stop = ctx.Event()
        workers = []
        per = (
            [
                args.spectators // args.spectator_procs
                + (1 if i < args.spectators % args.spectator_procs else 0)
                for i in range(args.spectator_procs)
            ]
            if args.spectators
            else []
        )
        readies = []
        for count in per:
            if count == 0:
                continue
            ready = ctx.Event()
            proc = ctx.Process(target=spectator_worker, args=(url, count, ready, out, stop), daemon=True)
            proc.start()
            workers.append(proc)
            readies.append(ready)
        for ready in readies:
            await asyncio.get_running_loop().run_in_executor(None, ready.wait, 120)

        rng = random.Random(7)
        sent: dict[int, int] = {}
        mover_of: dict[int, int] = {}
        phase_in_turn = 0
        cpu_start = (0.0, 0.0)
        server_pid = server.process.pid if server.process else 0
        for i in range(args.warmup + args.moves):
            if i == args.warmup:
                cpu_start = process_cpu_seconds(server_pid), thread_cpu_seconds(server_pid, server_pid)
            await think(rng, args.think_ms)
            mover = 0 if active == "a" else 1
            action_id = f"bench-{i}"
            t0 = time.monotonic_ns()
            await players[mover].ws.send(
                json.dumps({"type": "act", "action_id": action_id, "action": {"type": "end_phase"}})
            )
            seq += 1
            sent[seq] = t0
            mover_of[seq] = mover
            await wait_until(lambda s=seq: s in players[0].arrivals and s in players[1].arrivals)
            phase_in_turn += 1
            if phase_in_turn == phases:
                phase_in_turn = 0
                active = "b" if active == "a" else "a"
        cpu_used = process_cpu_seconds(server_pid) - cpu_start[0]
        loop_cpu_used = thread_cpu_seconds(server_pid, server_pid) - cpu_start[1]
        await asyncio.sleep(0.5)
        stop.set()
        spectator_first: dict[int, int] = {}
        spectator_last: dict[int, int] = {}
        spectator_sizes: list[int] = []
        for _ in workers:
            result = await asyncio.get_running_loop().run_in_executor(None, out.get, True, 120)
            for s, t in result["first"].items():
                spectator_first[s] = min(t, spectator_first.get(s, t))
            for s, t in result["last"].items():
                spectator_last[s] = max(t, spectator_last.get(s, 0))
            spectator_sizes += result["sizes"]
        for proc in workers:
            proc.join(10)

        measured = sorted(sent)[args.warmup :]
        mover_ns = [players[mover_of[s]].arrivals[s] - sent[s] for s in measured]
        opponent_ns = [players[1 - mover_of[s]].arrivals[s] - sent[s] for s in measured]
        first_ns = [spectator_first[s] - sent[s] for s in measured if s in spectator_first]
        last_ns = [spectator_last[s] - sent[s] for s in measured if s in spectator_last]
        patch_sizes = players[0].sizes
        # From idle like the actions when they have a think time (fewer samples then: each waits).
        floor_samples = 300 if args.think_ms else 1000
        floors = {
            "redis_xadd": await redis_floor(redis_url, floor_samples, args.think_ms),
            "redis_xadd_lean": await redis_lean_floor(redis_url, floor_samples, args.think_ms),
            "websocket_echo": await websocket_floor(floor_samples, args.think_ms),
            "websocket_echo_process": await websocket_process_floor(
                "websockets", floor_samples, args.think_ms
            ),
            "websocket_echo_process_starlette": await websocket_process_floor(
                "starlette", floor_samples, args.think_ms
            ),
        }
        latency = {
            "mover": percentiles(mover_ns),
            "opponent": percentiles(opponent_ns),
            "first_spectator": percentiles(first_ns),
            "last_spectator": percentiles(last_ns),
        }
        # The floor: the cheaper of the two Redis clients' XADD plus the websocket echo - the
        # echo in this process (the lowest), and the cheaper of the two from a server process of
        # its own (two processes woken in turn, as for the mover).
        redis_p50 = min(f["p50"] for f in (floors["redis_xadd"], floors["redis_xadd_lean"]) if f)
        floor_total = redis_p50 + floors["websocket_echo"]["p50"]
        process_echo_p50 = min(
            floors["websocket_echo_process"]["p50"], floors["websocket_echo_process_starlette"]["p50"]
        )
        process_floor_total = redis_p50 + process_echo_p50
        return {
            "bench": "latency",
            "spectators": args.spectators,
            "extra_units": args.extra_units,
            "moves": args.moves,
            "latency_ms": latency,
            "floor_ms": floors,
            "mover_p50_over_floor": round(latency["mover"]["p50"] / floor_total, 2) if floor_total else None,
            "mover_p50_minus_floor_ms": round(latency["mover"]["p50"] - floor_total, 3),
            "mover_p50_minus_process_floor_ms": round(latency["mover"]["p50"] - process_floor_total, 3),
            # CPU time of the server process (every thread; its Redis is another process) per
            # measured action, from /proc: the figure the goal of "under 800 us at N=0" is about.
            "server_cpu_us_per_action": round(cpu_used * 1e6 / args.moves, 1) if args.moves else None,
            # ... of which the event loop's thread (the rest: the rules pool's threads).
            "server_loop_cpu_us_per_action": round(loop_cpu_used * 1e6 / args.moves, 1)
            if args.moves
            else None,
            "patch_bytes": {
                "median": statistics.median(patch_sizes) if patch_sizes else None,
                "full_view": full_view_bytes,
                "median_ratio_to_full_view": round(statistics.median(patch_sizes) / full_view_bytes, 4)
                if patch_sizes
                else None,
                "spectator_median": statistics.median(spectator_sizes) if spectator_sizes else None,
            },
            "spectators_missing_updates": len(measured) - len(last_ns) if args.spectators else 0,
        }
    finally:
        server.stop()


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far, all its threads (Linux /proc)."""
    return _stat_cpu_seconds(Path(f"/proc/{pid}/stat"))


def thread_cpu_seconds(pid: int, tid: int) -> float:
    """User + system CPU seconds of thread ``tid`` of process ``pid`` (the main thread: ``pid``)."""
    return _stat_cpu_seconds(Path(f"/proc/{pid}/task/{tid}/stat"))


def _stat_cpu_seconds(stat: Path) -> float:
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def army_units(per_side: int) -> list[Unit]:
    """``per_side`` Rhinos for each side in rows along the table edges, out of the duel's way."""
    units = []
    for i in range(per_side):
        x = 4.0 + (i % 12) * 5.5
        units.append(rhino(f"rhino-a{i}", "a", x, 4.0 + (i // 12) * 5.0, 90.0))
        units.append(rhino(f"rhino-b{i}", "b", x, 44.0 - (i // 12) * 5.0, 270.0))
    return units


def _embedded_socket(data_dir: Path) -> Path:
    from hulldown.store.embedded import socket_path_for

    return socket_path_for(data_dir)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument("--spectator-procs", type=int, default=1)
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument(
        "--think-ms", type=float, default=0.0, help="random think time in [0, think) per action"
    )
    parser.add_argument("--redis-url", default="", help="use this Redis instead of an embedded one")
    parser.add_argument("--snapshot-every", type=int, default=100)
    parser.add_argument(
        "--extra-units",
        type=int,
        default=0,
        help="add this many Rhinos per side (a match of army size: the full view grows, patches do not)",
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
