"""The cold fold of this checkout against another's, interleaved in one process (prints JSON).

    git worktree add /tmp/base <commit>
    python bench/fold_ab.py --base /tmp/base --events 30000 --rounds 30

The match of ``bench/replay.py`` (40k7, pivots and phase changes) is built once; then each round
folds its stored payloads from nothing (decode + ``fold_history``) with both checkouts' code, in
turn, the order swapped every round. The other checkout's package is loaded beside this one
under another name (hulldown's modules import each other relatively), so both run in the same
process on the same payloads, and both folds must end on the same state hash.

On a shared machine a single fold's time moves by 10-30% from one moment to the next; what
holds is the ratio within a round. Printed: each side's events/s (median and best round) and the
speedup of this checkout over the other (the median of the per-round ratios, and the ratio of
the best rounds). Times are the process's CPU time. Not a test: nothing is asserted beyond the
equal hashes.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

SEED = bytes(range(32))
MATCH = "bench-replay"
BASE_PACKAGE = "hulldown_base"


def load_package(name: str, path: Path) -> ModuleType:
    """Import the package at ``path`` under ``name``."""
    spec = importlib.util.spec_from_file_location(
        name, path / "__init__.py", submodule_search_locations=[str(path)]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no package at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def folder(package: str) -> tuple[Callable[[list[bytes]], Any], Callable[[Any], str]]:
    """The cold fold of ``package`` (decode + fold_history) and its state hash."""
    events = importlib.import_module(f"{package}.match.events")
    timeline = importlib.import_module(f"{package}.match.timeline")
    dice = importlib.import_module(f"{package}.match.dice_binding")
    reducer = importlib.import_module(f"{package}.match.reducer")

    def fold(payloads: list[bytes]) -> Any:
        decoded = (events.decode_event(p) for p in payloads)
        return timeline.fold_history(MATCH, decoded, lambda e: dice.event_dice(SEED, MATCH, e))

    return fold, reducer.state_hash


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True, help="the other checkout (its root)")
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    from replay import build

    payloads, _, _ = build(args.events, snapshot_every=10**9)
    load_package(BASE_PACKAGE, args.base.resolve() / "server" / "hulldown")
    sides = {"this": folder("hulldown"), "base": folder(BASE_PACKAGE)}
    seconds: dict[str, list[float]] = {"this": [], "base": []}
    hashes: dict[str, str] = {}
    for round_no in range(args.rounds):
        for side in ("this", "base") if round_no % 2 == 0 else ("base", "this"):
            fold, state_hash = sides[side]
            start = time.process_time()
            state = fold(payloads)
            seconds[side].append(time.process_time() - start)
            hashes[side] = state_hash(state)
            del state
            gc.collect()
    if hashes["this"] != hashes["base"]:
        raise SystemExit(f"the two folds end on different states: {hashes}")
    n = len(payloads)
    ratios = [b / t for b, t in zip(seconds["base"], seconds["this"], strict=True)]
    print(
        json.dumps(
            {
                "bench": "fold_ab",
                "events": n,
                "rounds": args.rounds,
                "base": str(args.base),
                "events_per_s": {
                    side: {"median": round(n / statistics.median(s)), "best": round(n / min(s))}
                    for side, s in seconds.items()
                },
                "speedup": {
                    "median_of_rounds": round(statistics.median(ratios), 3),
                    "best_over_best": round(min(seconds["base"]) / min(seconds["this"]), 3),
                    "rounds_sorted": sorted(round(r, 3) for r in ratios),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
