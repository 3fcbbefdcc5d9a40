"""What idling costs the next action: one event's fold and state hash, timed with the thread's
CPU time, back to back and after the process has idled (prints JSON).

    PYTHONPATH=server python bench/idle_penalty.py [--idle-ms 25] [--events 300]

The live benchmarks start every action from idle (a random think time), as players do. This
tool isolates what that costs the server's own code, with no socket and no Redis: the same
duel events (pivots and phase ends, bench/replay.py's match) are folded and hashed

- ``warm``: one after another;
- ``after_sleep``: each after ``--idle-ms`` of ``time.sleep`` (the CPU is given up: the kernel may
  halt the virtual CPU, and other work may run on the core meanwhile);
- ``after_spin``: each after ``--idle-ms`` of a busy loop in this thread (the CPU is kept, but
  the loop's code replaces the fold's in the caches only as far as a tiny loop can);
- ``after_short_sleeps``: each after the same idle time cut into 1 ms sleeps (a wake-up a
  millisecond).

The ratio of ``after_sleep`` to ``warm`` is the penalty an action pays for starting from idle:
caches and branch predictors cold, not more instructions. Not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import replay  # noqa: E402
from hulldown.match.dice_binding import event_dice  # noqa: E402
from hulldown.match.events import Event, decode_event  # noqa: E402
from hulldown.match.history import evolve_with_history  # noqa: E402
from hulldown.match.reducer import state_hash  # noqa: E402
from hulldown.match.state import MatchState  # noqa: E402


def fold_and_hash_us(before: MatchState, event: Event) -> float:
    dice = event_dice(replay.SEED, replay.MATCH, event)
    t0 = time.thread_time_ns()
    state_hash(evolve_with_history(before, event, dice, replay.no_state))
    return (time.thread_time_ns() - t0) / 1000


def spin(seconds: float) -> None:
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


def short_sleeps(seconds: float) -> None:
    for _ in range(max(1, round(seconds * 1000))):
        time.sleep(0.001)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--idle-ms", type=float, default=25.0)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    idle = args.idle_ms / 1000
    start = 1000
    payloads, _, _ = replay.build(start + args.events, 100)
    events = [decode_event(p) for p in payloads]
    states = [MatchState(match_id=replay.MATCH, edition="40k7", seq=0)]
    for event in events:
        dice = event_dice(replay.SEED, replay.MATCH, event)
        states.append(evolve_with_history(states[-1], event, dice, replay.no_state))
    modes: dict[str, Callable[[], None]] = {
        "warm": lambda: None,
        "after_sleep": lambda: time.sleep(idle),
        "after_spin": lambda: spin(idle),
        "after_short_sleeps": lambda: short_sleeps(idle),
    }
    result: dict[str, dict[str, float]] = {}
    for name, before in modes.items():
        times = []
        for i in range(start, start + args.events):
            before()
            times.append(fold_and_hash_us(states[i], events[i]))
        times.sort()
        result[name] = {
            "p50_us": round(statistics.median(times), 1),
            "p90_us": round(times[int(len(times) * 0.9)], 1),
        }
    warm = result["warm"]["p50_us"]
    print(
        json.dumps(
            {
                "bench": "idle_penalty",
                "idle_ms": args.idle_ms,
                "events": args.events,
                "fold_and_hash": result,
                "ratios_p50_over_warm": {
                    name: round(r["p50_us"] / warm, 2) for name, r in result.items() if name != "warm"
                },
                "python": sys.version.split()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
