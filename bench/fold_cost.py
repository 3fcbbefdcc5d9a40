"""Fold and state hash per action, in a duel (2 units) and in an army-size match (26 units).

The pure core of one action as the live server runs it (``evolve_with_history`` then the state
hash of the result), measured per action with the thread's CPU time, for the actions
``bench/latency.py`` sends (``end_phase``, round the turn) and for vehicle pivots, in the duel
and with ``--extra-units`` more Rhinos per side (``bench/latency.py --extra-units``). Beside the
h2 hash (docs/architecture.md, "State hash") it times, on the same states, the h1 hash it
replaced (the whole state encoded), so the ratios compare both in one run.

Prints one JSON object. Not a test: nothing is asserted.

    python bench/fold_cost.py --actions 3000 --extra-units 12
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from msgspec.structs import replace  # noqa: E402
from tests.scenarios import duel  # noqa: E402

from hulldown.match.actions import Action, EndPhase, Pivot  # noqa: E402
from hulldown.match.dice_binding import event_dice  # noqa: E402
from hulldown.match.events import Event, decode_event, encode_event  # noqa: E402
from hulldown.match.hashing import legacy_state_hash, state_hash  # noqa: E402
from hulldown.match.history import evolve_with_history  # noqa: E402
from hulldown.match.scenario import match_created  # noqa: E402
from hulldown.match.state import MatchState, Options  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.dice import commitment  # noqa: E402
from latency import army_units  # noqa: E402

SEED = bytes(range(32))
MATCH = "bench-fold-cost"


def no_state(seq: int) -> MatchState:
    raise LookupError(seq)


def start(extra_units: int) -> MatchState:
    request = duel()
    scenario = replace(request.scenario, units=(*request.scenario.units, *army_units(extra_units)))
    created = match_created(request.edition, scenario, Options(turn_limit=0), commitment(SEED))
    first = decode_event(encode_event(Event(seq=1, at=0.0, by="system", action_id="c", body=created)))
    return evolve_with_history(
        MatchState(match_id=MATCH, edition="40k7"), first, event_dice(SEED, MATCH, first), no_state
    )


def next_action(state: MatchState, pivots: bool, k: int) -> Action:
    """``end_phase``, or with ``pivots`` in a Movement phase first a pivot of a duel vehicle."""
    if pivots and state.phase == "movement" and k % 3 != 2:
        unit = "predator-1" if state.active == "a" else "rhino-1"
        candidate = Pivot(unit=unit, heading=float((k * 37) % 360))
        if validate(state, state.active, candidate) is None:
            return candidate
    return EndPhase()


def run(extra_units: int, actions: int, pivots: bool) -> dict[str, Any]:
    state = start(extra_units)
    state_hash(state)
    fold_us: list[float] = []
    h2_us: list[float] = []
    h1_us: list[float] = []
    for k in range(actions):
        action = next_action(state, pivots, k)
        event = decode_event(
            encode_event(Event(seq=state.seq + 1, at=0.0, by=state.active, action_id=f"a{k}", body=action))
        )
        dice = event_dice(SEED, MATCH, event)
        t0 = time.thread_time_ns()
        after = evolve_with_history(state, event, dice, no_state)
        t1 = time.thread_time_ns()
        state_hash(after)
        t2 = time.thread_time_ns()
        legacy_state_hash(after)
        t3 = time.thread_time_ns()
        fold_us.append((t1 - t0) / 1000)
        h2_us.append((t2 - t1) / 1000)
        h1_us.append((t3 - t2) / 1000)
        state = after
    return {
        "units": len(state.units),
        "fold_us_p50": round(statistics.median(fold_us), 1),
        "hash_h2_us_p50": round(statistics.median(h2_us), 1),
        "hash_h1_us_p50": round(statistics.median(h1_us), 1),
        "fold_plus_h2_us_mean": round(
            statistics.fmean(f + h for f, h in zip(fold_us, h2_us, strict=True)), 1
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--extra-units", type=int, default=12, help="more Rhinos per side (12: 26 units)")
    args = parser.parse_args()
    result: dict[str, Any] = {"bench": "fold_cost", "actions": args.actions}
    for name, pivots in (("end_phase", False), ("pivot_and_end_phase", True)):
        small = run(0, args.actions, pivots)
        large = run(args.extra_units, args.actions, pivots)
        result[name] = {
            "duel": small,
            "army": large,
            "army_over_duel": {
                "fold": round(large["fold_us_p50"] / small["fold_us_p50"], 2),
                "hash_h2": round(large["hash_h2_us_p50"] / small["hash_h2_us_p50"], 2),
                "hash_h1": round(large["hash_h1_us_p50"] / small["hash_h1_us_p50"], 2),
            },
            "h1_over_h2": {
                "duel": round(small["hash_h1_us_p50"] / small["hash_h2_us_p50"], 2),
                "army": round(large["hash_h1_us_p50"] / large["hash_h2_us_p50"], 2),
            },
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
