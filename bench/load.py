"""Load: N concurrent matches with random legal play against one real server process.

Starts a real ``hulldown serve`` on loopback (embedded Redis in a temporary directory unless
``--redis-url``), creates ``--matches`` matches of the 40k7 battle scenario and plays each with two
real websocket clients (``hulldown.client``): the side to act picks a random legal action
(``tests/wh40k7/random_play.py``, validated on the view it holds) and waits for its answer. A
match that ends is replaced by a new one. Runs for ``--seconds``, then prints one JSON object:
acks/s, ack latency p50/p90/p99 (act sent -> ack received, at the client; actions are chosen in
``--workers`` worker processes so the bench's loop stays free to time them), the
server-side ack latency from its ``hulldown_ack_seconds`` histogram (bucket upper bounds),
rejections, the server's RSS at the start, every ``--sample-every`` seconds and at the end, and its
cache sizes from ``/metrics``. The server takes its settings from the environment as usual, e.g.
``HULLDOWN_MAX_MATCHES=12`` to watch memory level off once the cap is reached.
Not a test: nothing is asserted.

Bounded on purpose: loopback only, at most 200 matches and 600 seconds.

    python bench/load.py --matches 20 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server_process import ServerProcess  # noqa: E402
from tests.wh40k7.random_play import (  # noqa: E402
    MAX_ACTIONS_PER_PHASE,
    _assault_candidates,
    _movement_candidates,
    _shooting_candidates,
    battle_scenario,
    choose,
)

from hulldown.client import Client, create_match  # noqa: E402
from hulldown.match.actions import Action, Decide, EndPhase  # noqa: E402
from hulldown.match.scenario import CreateMatch  # noqa: E402
from hulldown.match.state import MatchState, Side  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.wire import protocol  # noqa: E402

MAX_MATCHES = 200
MAX_SECONDS = 600.0


def rss_kib(pid: int) -> int:
    """The resident set size of process ``pid`` in KiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def scrape(http: str) -> tuple[dict[str, float], dict[str, float]]:
    """From the server's /metrics: the cache sizes (``hulldown_cache_entries``,
    ``hulldown_matches_loaded``) and the server-side ack latency quantiles in ms, as the upper
    bound of the ``hulldown_ack_seconds`` bucket holding each quantile."""
    caches: dict[str, float] = {}
    buckets: list[tuple[float, float]] = []
    for line in httpx.get(f"{http}/metrics", timeout=10).text.splitlines():
        if line.startswith("hulldown_cache_entries{"):
            name = line.split('cache="', 1)[1].split('"', 1)[0]
            caches[name] = float(line.rsplit(" ", 1)[1])
        elif line.startswith("hulldown_matches_loaded "):
            caches["matches_loaded"] = float(line.rsplit(" ", 1)[1])
        elif line.startswith("hulldown_ack_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float("inf") if bound == "+Inf" else float(bound), float(line.rsplit(" ", 1)[1])))
    total = buckets[-1][1] if buckets else 0.0
    quantiles: dict[str, float] = {}
    for name, q in (("p50_le", 0.5), ("p99_le", 0.99)):
        for bound, count in buckets:
            if total and count >= q * total:
                quantiles[name] = bound * 1000.0
                break
    return caches, quantiles


class Tally:
    def __init__(self) -> None:
        self.ack_ns: list[int] = []
        self.choose_ns: list[int] = []
        self.rejected: dict[str, int] = {}
        self.matches_played = 0
        self.matches_ended = 0


def quick_choose(state: MatchState, rng: random.Random, in_phase: int) -> tuple[Side, Action]:
    """A random legal action, cheaply: the candidates of one random unit of the side to act, tried
    in random order until one validates (``choose`` validates every candidate of every unit)."""
    if state.pending is not None:
        return state.pending.side, Decide(state.pending.id, rng.choice(state.pending.options))
    side = state.active
    if in_phase < MAX_ACTIONS_PER_PHASE and rng.random() > 0.15:
        own = [u for u in state.units.values() if u.side == side and not u.destroyed]
        if own:
            unit = rng.choice(own)
            if state.phase == "movement":
                candidates = _movement_candidates(state, rng, unit)
            elif state.phase == "shooting":
                candidates = _shooting_candidates(state, rng, unit)
            else:
                candidates = _assault_candidates(state, unit)
            rng.shuffle(candidates)
            for action in candidates:
                if validate(state, side, action) is None:
                    return side, action
    if validate(state, side, EndPhase()) is None:
        return side, EndPhase()
    return choose(state, rng, in_phase)  # ending the phase is not legal yet (a flyer must move...)


def pick(view: dict[str, Any], seed: int, in_phase: int, policy: str) -> tuple[Side, Action]:
    """A random legal action for the side to act (run in a worker process: choosing validates
    candidates, which would otherwise stall the bench's loop and inflate its timings)."""
    chooser = choose if policy == "full" else quick_choose
    return chooser(msgspec.convert(view, MatchState), random.Random(seed), in_phase)


async def play_one(
    http: str, rng: random.Random, deadline: float, tally: Tally, pool: ProcessPoolExecutor, policy: str
) -> bool:
    """Play one match until it ends or the deadline; True if it ended."""
    created = await create_match(http, CreateMatch(edition="40k7", scenario=battle_scenario()))
    tally.matches_played += 1
    clients = {
        side: Client(created["live_url"], token=created["tokens"][side], act_timeout=30.0)
        for side in ("a", "b")
    }
    for client in clients.values():
        await client.connect()
    try:
        in_phase, key = 0, None
        for client in clients.values():
            await client.wait_seq(1, timeout=30.0)
        while time.monotonic() < deadline:
            state = msgspec.convert(clients["a"].view.data, MatchState)
            if state.ended:
                tally.matches_ended += 1
                return True
            now_key = (state.turn, state.active, state.phase)
            in_phase = in_phase + 1 if now_key == key else 0
            key = now_key
            picked = time.monotonic_ns()
            side, action = await asyncio.get_running_loop().run_in_executor(
                pool, pick, clients["a"].view.data, rng.randrange(2**32), in_phase, policy
            )
            tally.choose_ns.append(time.monotonic_ns() - picked)
            start = time.monotonic_ns()
            result = await clients[side].act(action, expect=state.seq)
            if isinstance(result, protocol.Ack):
                tally.ack_ns.append(time.monotonic_ns() - start)
                for client in clients.values():
                    await client.wait_seq(result.seq, timeout=30.0)
            else:
                tally.rejected[result.code] = tally.rejected.get(result.code, 0) + 1
        return False
    finally:
        for client in clients.values():
            await client.close()


async def slot(
    http: str, seed: int, deadline: float, tally: Tally, pool: ProcessPoolExecutor, policy: str
) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        await play_one(http, rng, deadline, tally, pool, policy)


def percentile(ordered: list[int], q: float) -> float:
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6, 3) if ordered else 0.0


async def run(args: argparse.Namespace, server: ServerProcess) -> dict[str, Any]:
    assert server.process is not None
    pid = server.process.pid
    rss_start = rss_kib(pid)
    started = time.monotonic()
    deadline = started + args.seconds
    tally = Tally()
    samples: list[tuple[float, int, int]] = []

    async def sample_rss() -> None:
        while True:
            await asyncio.sleep(args.sample_every)
            samples.append((round(time.monotonic() - started, 1), len(tally.ack_ns), rss_kib(pid)))

    sampler = asyncio.create_task(sample_rss())
    with ProcessPoolExecutor(args.workers) as pool:
        await asyncio.gather(
            *(
                slot(server.http, args.seed + i, deadline, tally, pool, args.policy)
                for i in range(args.matches)
            )
        )
    sampler.cancel()
    elapsed = time.monotonic() - started
    ordered = sorted(tally.ack_ns)
    caches, quantiles = scrape(server.http)
    return {
        "matches": args.matches,
        "policy": args.policy,
        "seconds": round(elapsed, 2),
        "acks": len(ordered),
        "acks_per_s": round(len(ordered) / elapsed, 1),
        "ack_ms": {
            "p50": percentile(ordered, 0.50),
            "p90": percentile(ordered, 0.90),
            "p99": percentile(ordered, 0.99),
            "max": round(ordered[-1] / 1e6, 3) if ordered else 0.0,
            "mean": round(statistics.fmean(ordered) / 1e6, 3) if ordered else 0.0,
        },
        "rejected": tally.rejected,
        "matches_played": tally.matches_played,
        "matches_ended": tally.matches_ended,
        "server_ack_ms": quantiles,
        "client_choose_ms_mean": round(statistics.fmean(tally.choose_ns) / 1e6, 3)
        if tally.choose_ns
        else 0.0,
        "rss_kib": {"start": rss_start, "end": rss_kib(pid)},
        "rss_kib_over_time": [{"s": t, "acks": n, "rss_kib": kib} for t, n, kib in samples],
        "server_caches": caches,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=10, help=f"concurrent matches (1..{MAX_MATCHES})")
    parser.add_argument(
        "--seconds", type=float, default=20.0, help=f"how long to play (<= {MAX_SECONDS:.0f})"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample-every", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument(
        "--policy",
        choices=("quick", "full"),
        default="quick",
        help="quick: one random unit's candidates until one is legal; full: tests' choose() (slow)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes choosing the random actions (1..8)")
    parser.add_argument("--redis-url", default="", help="a Redis on loopback (default: embedded)")
    args = parser.parse_args()
    if not 1 <= args.matches <= MAX_MATCHES:
        parser.error(f"--matches must be 1..{MAX_MATCHES}")
    if not 1 <= args.workers <= 8:
        parser.error("--workers must be 1..8")
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be in (0, {MAX_SECONDS:.0f}]")
    with tempfile.TemporaryDirectory(prefix="hulldown-load-") as tmp:
        server = ServerProcess(
            redis_url=args.redis_url,
            data_dir=Path(tmp) / "data",
            log=Path(tmp) / "server.log",
            env={"HULLDOWN_CREATE_RATE": "0"},  # one client creates every match
        )
        server.start()
        try:
            result = asyncio.run(run(args, server))
        finally:
            server.stop()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
