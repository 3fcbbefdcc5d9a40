"""What the firer's aiming decisions cost (docs/decisions.md; 40k7 Weapons, Blast / Template): a
blast and a template shot, each folded as one event with ``auto_decide`` (the floor, measured in
the same run: the proposal is taken and no legal area is computed) against the two events of a
live match - the shot that pauses (its legal area computed for the player) and the firer's own
aim that folds the shot again (the aim checked) - and the validation of that aim (a trial fold
up to the decision).

Prints one JSON object. Not a test: timings are never asserted.

    python bench/aim.py --repeat 100
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
from tests.wh40k7.builders import infantry, make_state, weapon  # noqa: E402

from hulldown.match.actions import Decide, Fire, Shoot  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.state import MatchState, Options, Point  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.dice import FixedDice  # noqa: E402

FRAG = weapon("frag", "Frag launcher", 30, 4, 6, rules=("blast",))
FLAMER = weapon("fl", "Heavy flamer", 8, 5, 4, rules=("template",))
# A ten-model target squad in two ranks, a friendly squad beside it.
TARGET = [(16.0 + 1.1 * (k % 5), 23.0 + 1.1 * (k // 5)) for k in range(10)]
FRIENDS = [(16.0 + 1.1 * k, 20.0) for k in range(5)]


def _match(gun: object, options: Options) -> MatchState:
    state = make_state(
        infantry("g", "a", [(10.0, 24.0)], weapons=[(0, gun)]),  # type: ignore[list-item]
        infantry("e", "b", TARGET),
        infantry("f", "a", FRIENDS),
        phase="shooting",
    )
    return replace(state, options=options)


def _case(name: str, gun: object, shot: Shoot, aim: Point, dice: list[int], repeat: int) -> dict[str, object]:
    auto, live = _match(gun, Options(auto_decide=True)), _match(gun, Options())
    paused = evolve(live, event(2, "a", shot), FixedDice([]))
    assert paused.pending is not None and paused.pending.aim is not None
    answer = Decide(paused.pending.id, "aim", aim=aim)
    assert validate(paused, "a", answer) is None

    def one_event() -> None:
        evolve(auto, event(2, "a", shot), FixedDice(dice))

    def two_events() -> None:
        first = evolve(live, event(2, "a", shot), FixedDice([]))
        evolve(first, event(3, "a", answer), FixedDice(dice))

    def validate_answer() -> None:
        assert validate(paused, "a", answer) is None

    floor = timed_ms(one_event, repeat)
    run = timed_ms(two_events, repeat)
    return {
        "case": name,
        "auto_decide_one_event": floor,
        "paused_shot_then_aim": run,
        "validate_aim": timed_ms(validate_answer, repeat),
        "ratio_paused_to_auto_p50": round(run["p50_ms"] / floor["p50_ms"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    # Blast: a Hit on the scatter die (it stays), the 2D6; hits on the models under it all fail
    # to wound (1s). Template: every model under it fails to wound.
    blast = _case(
        "40k7 frag blast at a ten-model squad",
        FRAG,
        Shoot("g", (Fire("frag", "e"),)),
        Point(16.0, 23.0),
        [1, 3, 3, *[1] * 10],
        args.repeat,
    )
    template = _case(
        "40k7 heavy flamer at a ten-model squad",
        FLAMER,
        Shoot("g", (Fire("fl", "e"),)),
        Point(18.0, 23.6),
        [1] * 10,
        args.repeat,
    )
    print(json.dumps({"repeat": args.repeat, "cases": [blast, template]}, indent=2))


if __name__ == "__main__":
    main()
