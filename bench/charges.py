"""What placing the chargers costs (docs/decisions.md, Charge moves): a 40k7 charge of ten
Marines at ten Guardsmen folded as one event with ``auto_decide`` (the floor, measured in the
same run) against the two events of a live match - the charge that pauses on ``place_chargers``
(its areas and proposal built), then the answer that folds the charge again - and the
validation of a placement the server refuses after its search for a spot in base contact.

Prints one JSON object. Not a test: timings are never asserted.

    python bench/charges.py --repeat 100
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.decision_timing import event, timed_ms  # noqa: E402
from tests.wh40k7.builders import infantry, make_state  # noqa: E402

from hulldown.match.actions import Charge, Decide  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.state import MatchState, Options, Point  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.dice import FixedDice  # noqa: E402

CHARGE = Charge("m", "e")
DICE = [4, 4]  # 8" >= the 5.02" gap


def _match(options: Options) -> MatchState:
    from msgspec.structs import replace

    marines = infantry("m", "a", [(20, 14 + 1.2 * k) for k in range(10)])
    guards = infantry("e", "b", [(26, 14 + 1.2 * k) for k in range(10)])
    return replace(make_state(marines, guards, phase="assault"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    auto, live = _match(Options(auto_decide=True)), _match(Options())
    seq = live.seq + 1
    paused = evolve(live, event(seq, "a", CHARGE), FixedDice(DICE))
    assert paused.pending is not None and paused.pending.placement is not None
    answer = Decide(paused.pending.id, "proposal")
    proposal = paused.pending.placement.proposal
    short = {**proposal, "m-9": Point(proposal["m-9"].x - 1.0, proposal["m-9"].y)}
    refused = Decide(paused.pending.id, "place", place=short)
    assert validate(paused, "a", refused) is not None

    def one_event() -> None:
        evolve(auto, event(seq, "a", CHARGE), FixedDice(DICE))

    def two_events() -> None:
        first = evolve(live, event(seq, "a", CHARGE), FixedDice(DICE))
        evolve(first, event(seq + 1, "a", answer), FixedDice([]))

    def validation() -> None:
        validate(paused, "a", refused)

    floor = timed_ms(one_event, args.repeat)
    paused_ms = timed_ms(two_events, args.repeat)
    checked = timed_ms(validation, args.repeat)
    print(
        json.dumps(
            {
                "bench": "charges",
                "repeat": args.repeat,
                "auto_decide_one_event": floor,
                "paused_plus_answer": paused_ms,
                "ratio_p50": round(paused_ms["p50_ms"] / floor["p50_ms"], 2),
                "validate_refused_place": checked,
                "validate_ratio_p50": round(checked["p50_ms"] / floor["p50_ms"], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
