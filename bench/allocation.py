"""What asking the owner to allocate each wound costs (docs/decisions.md, ``allocate_wound``):
an hh3 five-shot volley that wounds a ten-model squad five times, folded as one event with
``auto_decide`` (the floor, measured in the same run) against the six events of a live match -
the shot that pauses on the first wound, then five answers, each folding the shot again up to
the next wound.

Prints one JSON object. Not a test: timings are never asserted.

    python bench/allocation.py --repeat 100
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.decision_timing import event, timed_ms  # noqa: E402
from tests.hh3.builders import make, squad, weapon  # noqa: E402

from hulldown.match.actions import Decide, Fire, Shoot  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.state import MatchState, Options  # noqa: E402
from hulldown.rules.dice import FixedDice  # noqa: E402

WOUNDS = 5
SHOT = Shoot("p", (Fire("p-1-gun", "t"),))
# Every hit (6), every wound test (6) passes; every save (1) fails.
HITS = [6] * WOUNDS


def _match(options: Options) -> MatchState:
    gun = weapon("bolter", strength=4, ap=None, shots=WOUNDS, rng=24, kind="assault")
    return make(
        [
            squad("p", "a", [(20, 24)], gun=gun),
            squad("t", "b", [(30 + 1.5 * i, 24) for i in range(10)], sv=3),
        ],
        phase="shooting",
        options=options,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    auto, live = _match(Options(auto_decide=True)), _match(Options())

    def one_event() -> None:
        done = evolve(auto, event(2, "a", SHOT), FixedDice([*HITS, *[6, 1] * WOUNDS]))
        assert done.pending is None

    def paused_events() -> None:
        state = evolve(live, event(2, "a", SHOT), FixedDice([*HITS, 6]))
        for k in range(WOUNDS):
            assert state.pending is not None
            dice = [1, 6] if k < WOUNDS - 1 else [1]
            answer = Decide(state.pending.id, state.pending.proposal)
            state = evolve(state, event(state.seq + 1, "b", answer), FixedDice(dice))
        assert state.pending is None

    floor = timed_ms(one_event, args.repeat)
    paused = timed_ms(paused_events, args.repeat)
    print(
        json.dumps(
            {
                "case": f"hh3 {WOUNDS} wounds on a ten-model squad, each allocated by its owner",
                "repeat": args.repeat,
                "auto_decide_one_event": floor,
                "paused_shot_then_answers": paused,
                "ratio_paused_to_auto_p50": round(paused["p50_ms"] / floor["p50_ms"], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
