"""Odds engine timings (docs/odds.md): the exact answer of a single-weapon shot (in the open and
through a ruin's cover), a three-weapon shot and a volley at a squadron, and a sampled answer
whose every standard error is at most 1%, beside the number of dice sequences each walks.

Prints one JSON object. Not a test: timings are never asserted.

    python bench/odds.py --repeat 30
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

from tests.wh40k7.builders import (  # noqa: E402
    krak,
    lascannon,
    make_state,
    predator,
    rhino,
    ruin,
    speeder,
    weapon,
)

from hulldown.match.actions import Action, Fire, Shoot  # noqa: E402
from hulldown.match.rejection import Rejection  # noqa: E402
from hulldown.match.state import MatchState  # noqa: E402
from hulldown.odds import OddsAnswer, OddsOptions, compute_odds  # noqa: E402

Scenario = tuple[MatchState, Action]


def single_open() -> Scenario:
    """A Predator's Lascannon at a Rhino's front, nothing in between."""
    state = make_state(predator("predator", "a", 10, 24), rhino("rhino", "b", 30, 24, 180), phase="shooting")
    return state, Shoot("predator", (Fire("lascannon", "rhino"),))


def single_cover() -> Scenario:
    """The same shot through a ruin that gives the Rhino a 4+ cover save."""
    state = make_state(
        predator("predator", "a", 10, 24),
        rhino("rhino", "b", 30, 24, 180),
        terrain=[ruin("ruin", 20, 20, 22, 24)],
        phase="shooting",
    )
    return state, Shoot("predator", (Fire("lascannon", "rhino"),))


def three_weapons() -> Scenario:
    """A Predator's turret Lascannon and two sponson Heavy bolters (3 shots each) at a Rhino."""
    hb_l = weapon("hb-l", "Heavy bolter", 36, 5, 4, shots=3)
    hb_r = weapon("hb-r", "Heavy bolter", 36, 5, 4, shots=3)
    shooter = predator("predator", "a", 10, 24, weapons=(lascannon(), hb_l, hb_r))
    state = make_state(shooter, rhino("rhino", "b", 30, 24, 180), phase="shooting")
    fire = tuple(Fire(w, "rhino") for w in ("lascannon", "hb-l", "hb-r"))
    return state, Shoot("predator", fire)


def squadron_volley() -> Scenario:
    """A Lascannon and a Krak missile at a squadron of three Land Speeders (they may Jink)."""
    shooter = predator("predator", "a", 10, 24, weapons=(lascannon(), krak()))
    members = [speeder(f"ls{i}", "b", 30 + 3 * i, 20 + 4 * i, 180, squadron="speeders") for i in range(3)]
    state = make_state(shooter, *members, phase="shooting")
    return state, Shoot("predator", (Fire("lascannon", "ls0"), Fire("krak", "ls0")))


def _time(
    state: MatchState, action: Action, options: OddsOptions, repeat: int
) -> tuple[list[float], OddsAnswer]:
    times: list[float] = []
    answer: OddsAnswer | Rejection | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        answer = compute_odds(state, "a", action, options)
        times.append((time.perf_counter() - start) * 1000)
    assert isinstance(answer, OddsAnswer), answer
    return times, answer


def _stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(p95, 1),
        "max_ms": round(ordered[-1], 1),
    }


def _max_se(answer: OddsAnswer) -> float:
    ses = [
        p.se
        for u in answer.units
        for p in (
            u.no_effect,
            u.destroyed,
            *u.final.values(),
            *u.damage_results.values(),
            *u.statuses.values(),
        )
    ]
    return max(ses, default=0.0)


def run(repeat: int, exact_limit: int) -> dict[str, Any]:
    out: dict[str, Any] = {"repeat": repeat, "exact_limit_plays": exact_limit, "cases": {}}
    for name, build in (
        ("single_weapon_open", single_open),
        ("single_weapon_cover", single_cover),
        ("three_weapons", three_weapons),
        ("squadron_volley", squadron_volley),
    ):
        state, action = build()
        case: dict[str, Any] = {"about": (build.__doc__ or "").strip()}
        reps = repeat if name.startswith("single") else max(1, repeat // 6)
        times, answer = _time(state, action, OddsOptions(method="exact", max_plays=exact_limit), reps)
        if answer.method == "exact":
            case["exact"] = {**_stats(times), "plays": answer.plays}
        else:
            case["exact"] = {"walked": False, "why": f"more than {exact_limit} dice sequences"}
        times, answer = _time(state, action, OddsOptions(), reps)
        case["auto"] = {
            **_stats(times),
            "method": answer.method,
            "plays": answer.plays,
            "max_se": _max_se(answer),
        }
        times, answer = _time(state, action, OddsOptions(method="sampled"), reps)
        case["sampled"] = {**_stats(times), "samples": answer.samples, "max_se": round(_max_se(answer), 4)}
        case["summary"] = answer.summary
        out["cases"][name] = case
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=30, help="runs of each single-weapon answer")
    parser.add_argument(
        "--exact-limit", type=int, default=20_000, help="dice sequences the exact walk may visit"
    )
    args = parser.parse_args()
    print(json.dumps(run(args.repeat, args.exact_limit), indent=2))


if __name__ == "__main__":
    main()
