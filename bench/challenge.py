"""What asking the challenged side costs (docs/decisions.md, ``accept_challenge``): an hh3
challenge between two joined Paragons (rules/hh3/challenge.py), folded as one event with
``auto_decide`` (the floor, measured in the same run) against the two events of a live match -
the challenge that pauses on the decision, then the answer that folds it again to the end.

Prints one JSON object. Not a test: timings are never asserted.

    python bench/challenge.py --repeat 200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from msgspec.structs import replace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.decision_timing import event, timed_ms  # noqa: E402
from tests.hh3.builders import make, squad  # noqa: E402

from hulldown.match.actions import Challenge, Decide  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.state import MatchState, Options, Profile, Unit  # noqa: E402
from hulldown.rules.dice import FixedDice  # noqa: E402

CENTURION = Profile(m=7, ws=5, bs=5, s=4, t=4, w=2, i=5, a=3, ld=10, cool=10, intelligence=9, sv=2)
SERGEANT = Profile(m=7, ws=5, bs=4, s=4, t=4, w=2, i=4, a=2, ld=10, cool=8, intelligence=7, sv=4)
ACTION = Challenge("s", "s-2", "t")
# Focus 3, 3 (s-2 first); 4 attacks 4, 4, 1, 1; each hit wounds (4) and the save fails (1).
DICE = [3, 3, 4, 4, 1, 1, 4, 1, 4, 1]


def _joined(unit: Unit, mid: str, profile: Profile) -> Unit:
    model = replace(unit.models[mid], kind="paragon", profile=profile, wounds=profile.w)
    return replace(unit, models={**unit.models, mid: model})


def _match(options: Options) -> MatchState:
    rows = [24.0 + 1.3 * k for k in range(10)]
    s = _joined(squad("s", "a", [(10, y) for y in rows]), "s-2", CENTURION)
    t = _joined(squad("t", "b", [(11.27, y) for y in rows], sv=None), "t-2", SERGEANT)
    return make([s, t], phase="assault", options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    auto, live = _match(Options(auto_decide=True)), _match(Options())

    def one_event() -> None:
        done = evolve(auto, event(2, "a", ACTION), FixedDice(DICE))
        assert done.pending is None and not done.units["t"].models["t-2"].alive

    def paused_then_answer() -> None:
        state = evolve(live, event(2, "a", ACTION), FixedDice([]))
        assert state.pending is not None
        answer = Decide(state.pending.id, state.pending.proposal)
        state = evolve(state, event(3, "b", answer), FixedDice(DICE))
        assert state.pending is None and not state.units["t"].models["t-2"].alive

    floor = timed_ms(one_event, args.repeat)
    paused = timed_ms(paused_then_answer, args.repeat)
    print(
        json.dumps(
            {
                "case": "hh3 challenge between two joined Paragons in ten-model units, accepted",
                "repeat": args.repeat,
                "auto_decide_one_event": floor,
                "paused_challenge_then_answer": paused,
                "ratio_paused_to_auto_p50": round(paused["p50_ms"] / floor["p50_ms"], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
