"""``POST /matches/{id}/check`` latency (docs/table.md), beside ``GET /healthz`` in the same run.

Starts a real ``hulldown serve`` (embedded Redis), creates the 40k7 duel and times, one request
at a time over one keep-alive HTTP connection: a legal move check (the table's live drag check),
a rejected move check, a shot check (facts: range, arc, line of sight, facing, hidden share) and
a bare ``/healthz`` as the floor. Checks are rate-limited like actions (HULLDOWN_RATE, raised
here so the bench measures the server, not the bucket). Prints one JSON object; timings are never
asserted.

    python bench/check.py --requests 500
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scenarios import duel  # noqa: E402
from tests.server_process import ServerProcess  # noqa: E402

CASES: dict[str, dict[str, Any]] = {
    "move_ok": {"type": "move", "unit": "predator-1", "path": [[12.0, 26.0], [14.0, 26.0]], "heading": 10.0},
    "move_rejected": {"type": "move", "unit": "predator-1", "path": [[40.0, 30.0]]},
    "shoot": {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]},
}


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)  # noqa: E731
    return {"p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99), "n": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    os.environ["HULLDOWN_RATE"] = "100000"
    with tempfile.TemporaryDirectory() as data:
        server = ServerProcess(data_dir=Path(data))
        server.start()
        try:
            with httpx.Client(timeout=10) as http:
                created = http.post(f"{server.http}/matches", content=msgspec.json.encode(duel())).json()
                url = f"{server.http}/matches/{created['match_id']}/check"
                headers = {"authorization": f"Bearer {created['tokens']['a']}"}
                results: dict[str, Any] = {}
                for name, action in CASES.items():
                    samples = []
                    for _ in range(args.requests):
                        start = time.perf_counter()
                        response = http.post(url, json={"action": action}, headers=headers)
                        samples.append(time.perf_counter() - start)
                        assert response.status_code == 200
                    results[name] = percentiles(samples)
                floor = []
                for _ in range(args.requests):
                    start = time.perf_counter()
                    http.get(f"{server.http}/healthz")
                    floor.append(time.perf_counter() - start)
                results["healthz_floor"] = percentiles(floor)
        finally:
            server.stop()
    print(
        json.dumps({"bench": "check", "unit": "ms", "requests": args.requests, "results": results}, indent=2)
    )


if __name__ == "__main__":
    main()
