"""A/B of two versions of hulldown on this harness, in alternating pairs (same machine, same run).

    python bench/peers/ab.py --base HEAD~1 [--spectators 0] [--moves 600] [--pairs 3]

"base" is the server code of git revision ``--base`` (checked out into a temporary worktree and
put first on the server's PYTHONPATH); "new" is the working tree as it is. Each pair runs
``node bench.js`` for base, then for new, so a drift of the machine's speed hits both. Prints
one JSON object per run (the harness's, with ``ab`` and ``pair`` added), then one summary object
with each side's mover / last-spectator p50 and p99 and server CPU per move, run by run. Run
``npm ci`` in this folder first (``run.sh`` does). Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def run_once(side: str, pair: int, args: argparse.Namespace, pythonpath: str | None) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    command = [
        "node",
        "bench.js",
        "--peer",
        "hulldown",
        "--variant",
        "default",
        "--spectators",
        str(args.spectators),
        "--moves",
        str(args.moves),
        "--warmup",
        str(args.warmup),
    ]
    done = subprocess.run(command, cwd=HERE, env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return {"ab": side, "pair": pair, **result}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def figures(run: dict[str, Any]) -> dict[str, Any]:
        latency = run["latency_us"]
        last = latency.get("last_spectator") or {}
        return {
            "mover_p50_us": latency["mover"]["p50"],
            "mover_p99_us": latency["mover"]["p99"],
            "last_spectator_p50_us": last.get("p50"),
            "last_spectator_p99_us": last.get("p99"),
            "server_cpu_us_per_move": run["server"]["cpu_us_per_move"],
            "redis_cpu_us_per_move": (run["server"].get("aux") or {}).get("redis", {}).get("cpu_us_per_move"),
            "other_cpu_cores": run["other_cpu_cores"],
        }

    return {"summary": {side: [figures(r) for r in runs if r["ab"] == side] for side in ("base", "new")}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--base", required=True, help="git revision of the base server code")
    parser.add_argument("--spectators", type=int, default=0)
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hulldown-ab-") as scratch:
        worktree = Path(scratch) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(worktree), args.base],
            cwd=ROOT,
            check=True,
            stdout=sys.stderr,  # stdout carries only the JSON
        )
        try:
            for pair in range(1, args.pairs + 1):
                for side, pythonpath in (("base", str(worktree / "server")), ("new", None)):
                    run = run_once(side, pair, args, pythonpath)
                    runs.append(run)
                    print(json.dumps(run), flush=True)
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(worktree)],
                cwd=ROOT,
                check=False,
                stdout=sys.stderr,
            )
    print(json.dumps(summary(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
