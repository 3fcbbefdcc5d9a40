"""Redis CPU of one append (the store's Lua script), by the size of the match's first event.

On a private embedded Redis (or the Redis of ``--redis-url``: only the two ``bench:{m}:*`` keys
are written, and deleted at the end), for a first entry (the ``match_created`` event: the whole match
definition) of each ``--first-kb`` size, appends ``--appends`` events of ``--payload`` bytes
with ``append.lua`` and reads Redis' own accounting (``INFO commandstats``: microseconds spent
in EVALSHA per call). Beside it, in the same run and on the same streams: a bare ``XADD`` (the
floor of any append) and, with ``--base REV``, the append script of that git revision (the
before of an A/B), the two scripts alternating ``--rounds`` times.

Prints one JSON object. Not a test: nothing is asserted.

    python bench/append_script.py --base HEAD~1 [--redis-url redis://127.0.0.1:6379]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from hulldown.store.embedded import EmbeddedRedis  # noqa: E402
from hulldown.store.scripts import script_source  # noqa: E402

EVENTS, DEDUPE = "bench:{m}:events", "bench:{m}:dedupe"


def command_totals(client: redis.Redis, command: str) -> tuple[int, int]:
    """Redis' own count of ``command`` calls and the microseconds spent in them so far."""
    stats = client.info("commandstats").get(f"cmdstat_{command}", {})
    return int(stats.get("calls", 0)), int(stats.get("usec", 0))


def fresh_stream(client: redis.Redis, first_kb: int) -> None:
    client.delete(EVENTS, DEDUPE)
    client.xadd(EVENTS, {"e": b"d" * (first_kb * 1024)}, id="0-1")


def in_redis_us(
    client: redis.Redis, command: str, first_kb: int, send: Callable[[int], object], n: int
) -> float:
    """In-Redis microseconds per ``command`` over ``send(0) ... send(n - 1)``, on a fresh stream
    whose first entry is ``first_kb`` KB."""
    fresh_stream(client, first_kb)
    calls0, usec0 = command_totals(client, command)
    for i in range(n):
        send(i)
    calls1, usec1 = command_totals(client, command)
    return (usec1 - usec0) / (calls1 - calls0)


def script_cost(client: redis.Redis, source: str, first_kb: int, appends: int, payload: bytes) -> float:
    """In-Redis microseconds per append of ``source`` after a first entry of ``first_kb``."""
    sha = client.script_load(source)
    return in_redis_us(
        client,
        "evalsha",
        first_kb,
        lambda i: client.evalsha(sha, 2, EVENTS, DEDUPE, i + 1, payload, "1", f"a{i}"),
        appends,
    )


def xadd_cost(client: redis.Redis, first_kb: int, appends: int, payload: bytes) -> float:
    """The floor: in-Redis microseconds per bare XADD of the same payload."""
    return in_redis_us(
        client, "xadd", first_kb, lambda i: client.xadd(EVENTS, {"e": payload}, id=f"0-{i + 2}"), appends
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--first-kb", type=int, nargs="+", default=[2, 25])
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--payload", type=int, default=300, help="bytes of each appended event")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base", help="a git revision whose append.lua is measured beside the current one")
    parser.add_argument("--redis-url", default="", help="measure on this Redis instead of an embedded one")
    args = parser.parse_args()
    scripts = {"current": script_source("append.lua")}
    if args.base:
        scripts["base"] = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{args.base}:server/hulldown/store/append.lua"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    payload = b"e" * args.payload
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="hulldown-append-") as tmp, contextlib.ExitStack() as stack:
        url = args.redis_url or stack.enter_context(EmbeddedRedis(Path(tmp))).url
        client = redis.Redis.from_url(url)
        version = str(client.info("server").get("redis_version", "?"))
        for first_kb in args.first_kb:
            samples: dict[str, list[float]] = {name: [] for name in (*scripts, "bare_xadd")}
            for _ in range(args.rounds):
                for name, source in scripts.items():
                    samples[name].append(script_cost(client, source, first_kb, args.appends, payload))
                samples["bare_xadd"].append(xadd_cost(client, first_kb, args.appends, payload))
            row = {f"{name}_us": round(statistics.median(values), 2) for name, values in samples.items()}
            row["current_over_bare_xadd"] = round(row["current_us"] / row["bare_xadd_us"], 2)
            if "base_us" in row:
                row["current_over_base"] = round(row["current_us"] / row["base_us"], 2)
            results[f"first_entry_{first_kb}kb"] = row
        client.delete(EVENTS, DEDUPE)
        client.close()
    print(
        json.dumps(
            {
                "bench": "append_script",
                "appends": args.appends,
                "payload_bytes": args.payload,
                "rounds": args.rounds,
                "base": args.base,
                "redis_version": version,
                "redis_usec_per_append": results,
            }
        )
    )


if __name__ == "__main__":
    main()
