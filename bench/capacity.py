"""Capacity: many concurrent matches with spectators against one or three server processes, on
one Redis or a local Redis Cluster. Loopback only; bounded in matches, spectators and time.

For each setup it starts the Redis side (the private embedded redis-server, or a local 3+3
cluster from tests/redis_cluster.py), ``--processes`` real ``hulldown serve`` processes, then
``--matches`` matches. Match i has player a on process i, player b on process i+1 and its
spectators spread round-robin over all processes. Each match is driven closed-loop: the active
player ends its phase, waits for its ack and for its own patch, thinks ``1/--rate`` s, repeats,
for ``--duration`` s; each match starts at a random point of its first think time, so the
matches do not all act at the same instant. Spectators are "thin" (they only note when each seq
arrives). The bench's own cyclic collector is held off while it measures (its pauses would be
counted as the server's latency).

Reported per setup (one JSON object per setup, in a list):

- ``actions_per_s``: acknowledged actions per second over the run (all matches);
- ``ack_ms``: send -> ack at the actor; ``fanout_ms``: send -> the LAST spectator of the match
  has the patch (p50/p90/p99/max);
- ``within_bound``: share of actions whose fan-out completed within ``--bound-ms``;
- per process: CPU (% of one core, from /proc utime+stime), players and spectators served, and
  its garbage collector's pauses during the run (``gc_pauses``, by generation: count, total and
  mean ms, how many took over 10/25/50/100 ms; from its ``hulldown_gc_pause_seconds``);
- Redis: CPU ms per action from INFO's used_cpu_sys + used_cpu_user (primaries and replicas
  separately on the cluster), and the bench client's own CPU (it shares the machine).

Timings are measured, never asserted. Example (the figures in docs/scaling.md):

    python bench/capacity.py --matches 24 --spectators 4 --rate 2 --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.live.wsclient import RawClient  # noqa: E402
from tests.ops.helpers import metric_samples, sample  # noqa: E402
from tests.redis_cluster import LocalCluster  # noqa: E402
from tests.server_process import ServerProcess  # noqa: E402
from tests.undo.live_helpers import with_reserve  # noqa: E402

from hulldown.match.state import Options  # noqa: E402
from hulldown.store.embedded import EmbeddedRedis  # noqa: E402
from hulldown.web.startup_heap import freeze_startup_heap  # noqa: E402

MAX_MATCHES = 200
MAX_SPECTATORS = 50
MAX_DURATION = 120.0
SEQ_RE = re.compile(rb'"seq":(\d+)')
END = {"type": "end_phase"}
TURN_LIMIT = 99  # long matches: a match that ends stops its driver (reported as ended early)


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99), "max": round(ordered[-1], 2)}


@contextlib.contextmanager
def bench_collector_off() -> Iterator[None]:
    """This process's own cyclic collector held off while it measures. The bench keeps every
    message its clients get; its full collections took 140-200 ms on a 2-core machine, and
    every latency measured across one carried it. Its heap is frozen first and released after."""
    freeze_startup_heap()  # collect, then freeze what is left, as `hulldown serve` does
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


GC_PAUSE = "hulldown_gc_pause_seconds"
GENERATIONS = ("0", "1", "2")
PAUSE_MARKS_MS = (10, 25, 50, 100)  # bucket bounds of the server's histogram (live/metrics.py)

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]  # tests/ops/helpers.py metric_samples


def pauses_between(before: Samples, after: Samples) -> dict[str, Any]:
    """Per generation, the server's collections between two reads of its ``/metrics``
    (``metric_samples``): how many, their total and mean (ms), and how many took longer than
    each of ``PAUSE_MARKS_MS``."""

    def grew(name: str, **labels: str) -> float:
        return sample(after, f"{GC_PAUSE}_{name}", **labels) - sample(before, f"{GC_PAUSE}_{name}", **labels)

    report: dict[str, Any] = {}
    for generation in GENERATIONS:
        count = grew("count", generation=generation)
        total_ms = 1000 * grew("sum", generation=generation)
        longer = {
            f"over_{mark}ms": int(count - grew("bucket", generation=generation, le=f"{mark / 1000:g}"))
            for mark in PAUSE_MARKS_MS
        }
        report[generation] = {
            "count": int(count),
            "total_ms": round(total_ms, 1),
            "mean_ms": round(total_ms / count, 2) if count else 0.0,
            **longer,
        }
    return report


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def redis_cpu(urls: list[tuple[str, Any]]) -> dict[str, float]:
    """used_cpu_sys + used_cpu_user per role over the given (role, client) pairs."""
    totals: dict[str, float] = {}
    for role, client in urls:
        info = client.info("cpu")
        totals[role] = totals.get(role, 0.0) + float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    return totals


@dataclass
class Match:
    match_id: str
    tokens: dict[str, str]
    players: dict[str, RawClient] = field(default_factory=dict)
    arrivals: dict[int, list[int]] = field(default_factory=dict)  # seq -> spectator arrival ns
    spectators: int = 0
    sent: dict[int, int] = field(default_factory=dict)  # seq -> send time ns
    ack_ms: list[float] = field(default_factory=list)
    actions: int = 0
    ended: bool = False


async def thin_spectator(url: str, match: Match, stop: asyncio.Event) -> None:
    ws = await websockets.connect(url, max_size=2**24, ping_interval=None)
    await ws.send('{"type":"hello","spectator":true}')
    await ws.recv()  # welcome
    match.spectators += 1
    try:
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            now = time.monotonic_ns()
            data = frame.encode() if isinstance(frame, str) else frame
            found = SEQ_RE.search(data[:64])
            if found is not None:
                match.arrivals.setdefault(int(found.group(1)), []).append(now)
    except websockets.ConnectionClosed:
        pass
    finally:
        await ws.close()


async def drive(match: Match, rate: float, until: float) -> None:
    seq = 1
    think = 1.0 / rate
    # Matches start at random points of one think time, not all at once: a burst of every
    # match's first act at the same instant would measure a queue the bench made.
    await asyncio.sleep(think * random.random())
    while time.monotonic() < until and not match.ended:
        viewer = match.players["a"]
        await viewer.wait_seq(seq, timeout=30)
        if viewer.view.get("ended"):
            match.ended = True
            return
        side = viewer.view["active"]
        actor = match.players[side]
        await actor.wait_seq(seq, timeout=30)
        action_id = f"{match.match_id}-{match.actions}"
        sent = time.monotonic_ns()
        seen = len(actor.messages)
        await actor.send({"type": "act", "action_id": action_id, "action": END})
        reply = await actor.wait_for(
            lambda m, a=action_id: m.get("action_id") == a and m["type"] in ("ack", "rejected"),
            timeout=30,
            start=seen,
        )
        if reply["type"] != "ack":
            match.ended = True
            return
        match.ack_ms.append((time.monotonic_ns() - sent) / 1e6)
        seq = reply["seq"]
        match.sent[seq] = sent
        match.actions += 1
        await asyncio.sleep(think * (0.5 + random.random()))


async def run_setup(
    name: str, backend: str, processes: int, args: argparse.Namespace, work: Path
) -> dict[str, Any]:
    import redis

    cluster: LocalCluster | None = None
    embedded: EmbeddedRedis | None = None
    servers: list[ServerProcess] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    try:
        if backend == "cluster":
            cluster = LocalCluster(work / f"{name}-cluster")
            await asyncio.to_thread(cluster.start_or_stop)
            url = cluster.url
            nodes = []
            for node in cluster.nodes:
                client = node.client()
                role = client.execute_command("ROLE")[0]
                nodes.append(("primaries" if role in (b"master", "master") else "replicas", client))
        else:
            embedded = EmbeddedRedis(work / f"{name}-redis")
            embedded.start()
            url = embedded.url
            nodes = [("primaries", redis.Redis(unix_socket_path=str(embedded.socket_path)))]
        for i in range(processes):
            server = ServerProcess(
                redis_url=url,
                prefix="bench",
                snapshot_every=100,
                log=work / f"{name}-p{i}.log",
                env={"HULLDOWN_CREATE_RATE": "0"},  # one client creates every match
            )
            await asyncio.to_thread(server.start, 60.0)
            servers.append(server)

        matches: list[Match] = []
        body = msgspec.json.encode(with_reserve(Options(turn_limit=TURN_LIMIT)))
        async with httpx.AsyncClient(timeout=30) as http:
            for i in range(args.matches):
                created = (await http.post(f"{servers[i % processes].http}/matches", content=body)).json()
                matches.append(Match(created["match_id"], created["tokens"]))
        served = [{"players": 0, "spectators": 0} for _ in servers]
        spectator_no = 0
        for i, match in enumerate(matches):
            for j, side in enumerate(("a", "b")):
                index = (i + j) % processes
                server = servers[index]
                match.players[side] = await RawClient.connect(
                    f"{server.ws}/matches/{match.match_id}/live", {"token": match.tokens[side]}
                )
                served[index]["players"] += 1
            for _ in range(args.spectators):
                index = spectator_no % processes
                spectator_no += 1
                url_live = f"{servers[index].ws}/matches/{match.match_id}/live"
                tasks.append(asyncio.create_task(thin_spectator(url_live, match, stop)))
                served[index]["spectators"] += 1
        deadline = time.monotonic() + 60
        while sum(m.spectators for m in matches) < args.matches * args.spectators:
            if time.monotonic() > deadline:
                raise TimeoutError("spectators did not all connect")
            await asyncio.sleep(0.05)

        cpu_before = [process_cpu_seconds(s.process.pid) for s in servers if s.process]
        pauses_before = [metric_samples(s.http) for s in servers]
        redis_before = redis_cpu(nodes)
        bench_before = resource.getrusage(resource.RUSAGE_SELF)
        started = time.monotonic()
        until = started + args.duration
        with bench_collector_off():
            await asyncio.gather(*(drive(m, args.rate, until) for m in matches))
            elapsed = time.monotonic() - started
            await asyncio.sleep(1.0)  # the last patches reach the spectators
        cpu_after = [process_cpu_seconds(s.process.pid) for s in servers if s.process]
        pauses_after = [metric_samples(s.http) for s in servers]
        redis_after = redis_cpu(nodes)
        bench_after = resource.getrusage(resource.RUSAGE_SELF)

        actions = sum(m.actions for m in matches)
        ack = [ms for m in matches for ms in m.ack_ms]
        fanout: list[float] = []
        for m in matches:
            for seq, sent in m.sent.items():
                arrivals = m.arrivals.get(seq, [])
                if len(arrivals) >= m.spectators:
                    fanout.append((max(arrivals) - sent) / 1e6)
                else:
                    fanout.append(float("inf"))  # a spectator never got it
        finite = [f for f in fanout if f != float("inf")]
        within = sum(1 for f in fanout if f <= args.bound_ms) / len(fanout) if fanout else 0.0
        return {
            "setup": name,
            "redis": backend,
            "processes": processes,
            "matches": args.matches,
            "spectators_per_match": args.spectators,
            "duration_s": round(elapsed, 2),
            "actions": actions,
            "actions_per_s": round(actions / elapsed, 2),
            "matches_ended_early": sum(1 for m in matches if m.ended),
            "ack_ms": percentiles(ack),
            "fanout_ms": percentiles(finite),
            "patches_missing": len(fanout) - len(finite),
            "bound_ms": args.bound_ms,
            "within_bound": round(within, 4),
            "per_process": [
                {
                    "cpu_percent_of_one_core": round(100 * (after - before) / elapsed, 1),
                    "cpu_ms_per_action": round(1000 * (after - before) / max(actions, 1), 3),
                    **served[i],
                    "gc_pauses": pauses_between(pauses_before[i], pauses_after[i]),
                }
                for i, (before, after) in enumerate(zip(cpu_before, cpu_after, strict=True))
            ],
            "redis_cpu_ms_per_action": {
                role: round(1000 * (redis_after[role] - redis_before[role]) / max(actions, 1), 3)
                for role in redis_after
            },
            "redis_cpu_percent_of_one_core": {
                role: round(100 * (redis_after[role] - redis_before[role]) / elapsed, 1)
                for role in redis_after
            },
            "bench_client_cpu_percent_of_one_core": round(
                100
                * (
                    bench_after.ru_utime
                    + bench_after.ru_stime
                    - bench_before.ru_utime
                    - bench_before.ru_stime
                )
                / elapsed,
                1,
            ),
        }
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for server in servers:
            await asyncio.to_thread(server.stop)
        if embedded is not None:
            embedded.stop()
        if cluster is not None:
            cluster.stop()


SETUPS = {
    "one-process-one-redis": ("single", 1),
    "three-processes-one-redis": ("single", 3),
    "three-processes-cluster": ("cluster", 3),
}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--spectators", type=int, default=4, help="per match")
    parser.add_argument("--rate", type=float, default=2.0, help="actions per second per match (closed loop)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of play per setup")
    parser.add_argument("--bound-ms", type=float, default=250.0, help="latency bound for within_bound")
    parser.add_argument("--setups", default=",".join(SETUPS), help=f"comma-separated, of {sorted(SETUPS)}")
    args = parser.parse_args()
    if not 1 <= args.matches <= MAX_MATCHES:
        parser.error(f"--matches must be 1..{MAX_MATCHES}")
    if not 0 <= args.spectators <= MAX_SPECTATORS:
        parser.error(f"--spectators must be 0..{MAX_SPECTATORS}")
    if not 1.0 <= args.duration <= MAX_DURATION:
        parser.error(f"--duration must be 1..{MAX_DURATION:.0f} s")
    if not 0.1 <= args.rate <= 20:
        parser.error("--rate must be 0.1..20 actions/s per match")
    chosen = [s.strip() for s in args.setups.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SETUPS]
    if unknown:
        parser.error(f"unknown setup {unknown[0]!r}: allowed are {sorted(SETUPS)}")
    load_before = os.getloadavg()
    results = []
    with tempfile.TemporaryDirectory(prefix="hulldown-capacity-") as work:
        for name in chosen:
            backend, processes = SETUPS[name]
            results.append(await run_setup(name, backend, processes, args, Path(work)))
    print(
        json.dumps(
            {
                "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "cpus": os.cpu_count(),
                "loadavg_1_5_15_before": [round(x, 2) for x in load_before],
                "loadavg_1_5_15_after": [round(x, 2) for x in os.getloadavg()],
                "args": vars(args),
                "results": results,
                "mean_fanout_p50_ms": round(
                    statistics.mean(r["fanout_ms"].get("p50", 0.0) for r in results), 2
                ),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
