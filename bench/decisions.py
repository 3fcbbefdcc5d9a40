"""What pausing on a decision in the middle of an action costs (docs/decisions.md): an hh3 shot
that destroys a transport, folded as one event with ``auto_decide`` (the floor, measured in the
same run) against the two events of a live match - the shot that pauses, then the answer that
folds the shot again - and the validation of the answer (a trial fold up to the decision).

Prints one JSON object. Not a test: timings are never asserted.

    python bench/decisions.py --repeat 200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.decision_timing import event, timed_ms  # noqa: E402
from tests.hh3.builders import make, squad, tank, transport, weapon  # noqa: E402

from hulldown.match.actions import Decide, Fire, Shoot  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.state import MatchState, Options  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.dice import FixedDice  # noqa: E402

SHOT = Shoot("shooter", (Fire("lascannon", "rhino"),))


def _match(options: Options) -> MatchState:
    return make(
        [
            tank("shooter", "a", 10, 24, 0, weapons=[weapon("lascannon", strength=9, ap=2)]),
            transport("rhino", "b", 40, 24, 180, hp=1, passengers=("s",)),
            squad("s", "b", [(40, 24)] * 10, cool=8, embarked_in="rhino"),
        ],
        phase="shooting",
        options=options,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    auto, live = _match(Options(auto_decide=True)), _match(Options())
    paused = evolve(live, event(2, "a", SHOT), FixedDice([5, 3]))
    assert paused.pending is not None
    answer = Decide(paused.pending.id, "proposal")

    def one_event() -> None:
        evolve(auto, event(2, "a", SHOT), FixedDice([5, 3, 4, 5]))

    def two_events() -> None:
        first = evolve(live, event(2, "a", SHOT), FixedDice([5, 3]))
        evolve(first, event(3, "b", answer), FixedDice([4, 5]))

    def validate_answer() -> None:
        assert validate(paused, "b", answer) is None

    floor = timed_ms(one_event, args.repeat)
    paused_run = timed_ms(two_events, args.repeat)
    check = timed_ms(validate_answer, args.repeat)
    print(
        json.dumps(
            {
                "case": "hh3 lascannon destroys a Rhino carrying 10 models",
                "repeat": args.repeat,
                "auto_decide_one_event": floor,
                "paused_shot_then_answer": paused_run,
                "validate_answer": check,
                "ratio_paused_to_auto_p50": round(paused_run["p50_ms"] / floor["p50_ms"], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
