"""The cold fold with the compiled core beside the same code interpreted (prints JSON).

Folds the same stored events (``bench/replay.py``'s match) in whole processes that alternate
between the interpreted checkout and the compiled copy (docs/compiled-core.md), each process
checking that its final state hash is the one the log was built to. The copy is the one
``hulldown compile --into build/compiled`` builds (built here first when missing or stale; that
takes minutes and needs mypy, a C compiler and the Python headers).

    python bench/compiled_fold.py --events 100000 --pairs 3

Not a test: nothing is asserted but the hashes.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "build" / "compiled"

# One process's fold: the events built by bench/replay.py, decoded, folded from nothing.
FOLD_CHILD = """
import json, pickle, sys, time
sys.path.insert(0, {bench!r})
import replay
from hulldown.compile.status import running_compiled
from hulldown.match.reducer import state_hash
payloads, expected = pickle.load(open({data!r}, "rb"))
seconds, state = replay.cold_replay(payloads)
print(json.dumps({{"events_per_s": len(payloads) / seconds, "same_hash": state_hash(state) == expected,
                   "compiled": running_compiled()}}))
"""


def fold_once(pythonpath: Path, data: Path) -> dict[str, float | bool]:
    code = FOLD_CHILD.format(bench=str(ROOT / "bench"), data=str(data))
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    result: dict[str, float | bool] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    import replay
    from hulldown.compile.build import build, is_current, read_manifest
    from hulldown.match.reducer import state_hash

    package = ROOT / "server" / "hulldown"
    built_here = not is_current(package, COPY)
    if built_here:
        build(package, COPY, ROOT / "pyproject.toml", jobs=os.cpu_count() or 1)
    manifest = read_manifest(COPY)
    assert manifest is not None
    payloads, _, live = replay.build(args.events, 10**9)
    with tempfile.TemporaryDirectory(prefix="hulldown-compiled-fold-") as tmp:
        data = Path(tmp) / "events.pickle"
        data.write_bytes(pickle.dumps((payloads, state_hash(live))))
        runs: dict[str, list[dict[str, float | bool]]] = {"interpreted": [], "compiled": []}
        for _ in range(args.pairs):
            runs["interpreted"].append(fold_once(ROOT / "server", data))
            runs["compiled"].append(fold_once(COPY, data))
    rates = {k: [round(float(r["events_per_s"])) for r in v] for k, v in runs.items()}
    print(
        json.dumps(
            {
                "bench": "compiled_fold",
                "events": len(payloads),
                "modules_compiled": len(manifest.compiled),
                "not_compiled": manifest.interpreted,
                "build_s": manifest.build_seconds,
                "built_by_this_run": built_here,
                "cold_fold_events_per_s": rates,
                "median_ratio_compiled_over_interpreted": round(
                    statistics.median(rates["compiled"]) / statistics.median(rates["interpreted"]), 2
                ),
                "same_final_hash": all(bool(r["same_hash"]) for v in runs.values() for r in v),
                "compiled_copy_used": all(bool(r["compiled"]) for r in runs["compiled"])
                and not any(bool(r["compiled"]) for r in runs["interpreted"]),
            }
        )
    )


if __name__ == "__main__":
    main()
