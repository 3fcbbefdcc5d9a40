"""Odds engine timings (docs/odds.md): the exact answer of a single-weapon shot (in the open and
through a ruin's cover), a three-weapon shot and a volley at a squadron, the default (auto)
answer and a sampled answer whose every standard error is at most 1%, beside the number of plays
each makes. Each case also times its floor, measured in the same run: one plain fold of the same
action through the reducer (``evolve`` with seeded dice, as a live match applies it), and gives
the ratios answer / floor. Wall time and CPU time (``time.process_time``) are both reported, with
the load average before and after: the machine may be shared.

Prints one JSON object. Not a test: timings are never asserted.

    python bench/odds.py --repeat 30

``--against ROOT`` instead times another version of the engine against this one in the same
process, answer by answer in turn (A B A B ..., so a change of the machine's load hits both):
ROOT holds that version's ``server/`` and ``tests/`` (e.g. ``git archive REV server tests | tar
-x -C ROOT``). For each case it gives the CPU time of the default and the sampled answer of
both, their ratio (this version / the other), and the plays each made.

    python bench/odds.py --against /tmp/base --repeat 10
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
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

from hulldown.match.actions import Action, Decide, Fire, Shoot  # noqa: E402
from hulldown.match.events import Event  # noqa: E402
from hulldown.match.reducer import evolve  # noqa: E402
from hulldown.match.rejection import Rejection  # noqa: E402
from hulldown.match.state import MatchState  # noqa: E402
from hulldown.odds import OddsAnswer, OddsOptions, compute_odds  # noqa: E402
from hulldown.rules.dice import SeededDice  # noqa: E402

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
) -> tuple[list[float], list[float], OddsAnswer]:
    """Wall and CPU milliseconds of each of ``repeat`` answers, and the last answer."""
    wall: list[float] = []
    cpu: list[float] = []
    answer: OddsAnswer | Rejection | None = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        answer = compute_odds(state, "a", action, options)
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    assert isinstance(answer, OddsAnswer), answer
    return wall, cpu, answer


def _fold(state: MatchState, action: Action, i: int) -> MatchState:
    """One plain fold of the action through the reducer, decisions answered with their first
    option (what a live match does with one event and its answers)."""
    seed = f"bench-{i}".encode()
    seq = state.seq + 1
    s = evolve(state, Event(seq=seq, at=0.0, by="a", action_id="b", body=action), SeededDice(seed, "b", seq))
    while s.pending is not None:
        d = s.pending
        seq = s.seq + 1
        body = Decide(d.id, d.options[0])
        s = evolve(s, Event(seq=seq, at=0.0, by=d.side, action_id="b", body=body), SeededDice(seed, "b", seq))
    return s


def _floor(state: MatchState, action: Action, n: int) -> dict[str, float]:
    """Median wall and CPU milliseconds of one plain reducer fold of the action."""
    wall: list[float] = []
    cpu: list[float] = []
    for i in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        _fold(state, action, i)
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    return {"n": n, "wall_ms": round(statistics.median(wall), 3), "cpu_ms": round(statistics.median(cpu), 3)}


def _stats(times: list[float], cpu: list[float], floor: dict[str, float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    cpu_sorted = sorted(cpu)
    cpu_p95 = cpu_sorted[min(len(cpu_sorted) - 1, round(0.95 * (len(cpu_sorted) - 1)))]
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(p95, 1),
        "max_ms": round(ordered[-1], 1),
        "cpu_p50_ms": round(statistics.median(cpu_sorted), 1),
        "cpu_p95_ms": round(cpu_p95, 1),
        "p50_over_floor": round(statistics.median(ordered) / floor["wall_ms"], 1),
        "cpu_p50_over_floor": round(statistics.median(cpu_sorted) / max(floor["cpu_ms"], 1e-6), 1),
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
    out: dict[str, Any] = {
        "repeat": repeat,
        "exact_limit_plays": exact_limit,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "cases": {},
    }
    for name, build in (
        ("single_weapon_open", single_open),
        ("single_weapon_cover", single_cover),
        ("three_weapons", three_weapons),
        ("squadron_volley", squadron_volley),
    ):
        state, action = build()
        case: dict[str, Any] = {"about": (build.__doc__ or "").strip()}
        floor = _floor(state, action, 200)
        case["floor_one_reducer_fold"] = floor
        reps = repeat if name != "three_weapons" else max(2, repeat // 10)
        wall, cpu, answer = _time(state, action, OddsOptions(method="exact", max_plays=exact_limit), reps)
        if answer.method == "exact":
            case["exact"] = {**_stats(wall, cpu, floor), "plays": answer.plays}
        else:
            case["exact"] = {"walked": False, "why": f"more than {exact_limit} plays"}
        wall, cpu, answer = _time(state, action, OddsOptions(), repeat)
        case["auto"] = {
            **_stats(wall, cpu, floor),
            "method": answer.method,
            "plays": answer.plays,
            "max_se": round(_max_se(answer), 4),
        }
        wall, cpu, answer = _time(state, action, OddsOptions(method="sampled"), repeat)
        case["sampled"] = {
            **_stats(wall, cpu, floor),
            "samples": answer.samples,
            "max_se": round(_max_se(answer), 4),
        }
        case["summary"] = answer.summary
        out["cases"][name] = case
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def _ours(name: str) -> bool:
    return name.split(".")[0] in ("hulldown", "tests")


class _Version:
    """One version of the package (and its test builders), its modules kept apart from the
    other version's: installed in ``sys.modules`` only while it runs (a function importing
    lazily finds its own version)."""

    def __init__(self, root: Path, modules: dict[str, ModuleType] | None = None) -> None:
        self.root = root
        self.modules = modules if modules is not None else {}

    @classmethod
    def loaded(cls) -> _Version:
        """This version, already imported."""
        return cls(ROOT, {k: m for k, m in sys.modules.items() if _ours(k)})

    @contextmanager
    def active(self) -> Iterator[None]:
        saved = {k: sys.modules.pop(k) for k in list(sys.modules) if _ours(k)}
        sys.modules.update(self.modules)
        paths = [str(self.root / "server"), str(self.root)]
        sys.path[:0] = paths
        try:
            yield
        finally:
            del sys.path[: len(paths)]
            self.modules = {k: sys.modules.pop(k) for k in list(sys.modules) if _ours(k)}
            sys.modules.update(saved)


def _scenario(name: str) -> Scenario:
    """A case built with the active version's builders and actions (same positions as above)."""
    wb = importlib.import_module("tests.wh40k7.builders")
    acts = importlib.import_module("hulldown.match.actions")
    shooting = {"phase": "shooting"}
    if name == "single_weapon_open":
        state = wb.make_state(
            wb.predator("predator", "a", 10, 24), wb.rhino("rhino", "b", 30, 24, 180), **shooting
        )
        return state, acts.Shoot("predator", (acts.Fire("lascannon", "rhino"),))
    if name == "single_weapon_cover":
        state = wb.make_state(
            wb.predator("predator", "a", 10, 24),
            wb.rhino("rhino", "b", 30, 24, 180),
            terrain=[wb.ruin("ruin", 20, 20, 22, 24)],
            **shooting,
        )
        return state, acts.Shoot("predator", (acts.Fire("lascannon", "rhino"),))
    if name == "three_weapons":
        hb_l = wb.weapon("hb-l", "Heavy bolter", 36, 5, 4, shots=3)
        hb_r = wb.weapon("hb-r", "Heavy bolter", 36, 5, 4, shots=3)
        shooter = wb.predator("predator", "a", 10, 24, weapons=(wb.lascannon(), hb_l, hb_r))
        state = wb.make_state(shooter, wb.rhino("rhino", "b", 30, 24, 180), **shooting)
        return state, acts.Shoot(
            "predator", tuple(acts.Fire(w, "rhino") for w in ("lascannon", "hb-l", "hb-r"))
        )
    shooter = wb.predator("predator", "a", 10, 24, weapons=(wb.lascannon(), wb.krak()))
    members = [wb.speeder(f"ls{i}", "b", 30 + 3 * i, 20 + 4 * i, 180, squadron="speeders") for i in range(3)]
    state = wb.make_state(shooter, *members, **shooting)
    return state, acts.Shoot("predator", (acts.Fire("lascannon", "ls0"), acts.Fire("krak", "ls0")))


def _timed_answer(name: str, method: str) -> tuple[float, Any]:
    """CPU milliseconds of one answer of the active version, and the answer."""
    odds = importlib.import_module("hulldown.odds")
    state, action = _scenario(name)
    options: Callable[..., Any] = odds.OddsOptions
    start = time.process_time()
    answer = odds.compute_odds(state, "a", action, options(method=method))
    return (time.process_time() - start) * 1000, answer


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def against(other_root: Path, repeat: int) -> dict[str, Any]:
    """This version (``new``) and the one at ``other_root`` (``old``), answer by answer in turn."""
    new = _Version.loaded()
    old = _Version(other_root)
    out: dict[str, Any] = {
        "repeat": repeat,
        "old": str(other_root),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in os.getloadavg()],
        "cases": {},
    }
    for name in ("single_weapon_open", "single_weapon_cover", "three_weapons", "squadron_volley"):
        case: dict[str, Any] = {}
        for method in ("auto", "sampled"):
            times: dict[str, list[float]] = {"old": [], "new": []}
            last: dict[str, Any] = {}
            for i in range(repeat + 1):  # the first round warms both up and is not counted
                for label, version in (("old", old), ("new", new)):
                    with version.active():
                        ms, answer = _timed_answer(name, method)
                    if i:
                        times[label].append(ms)
                    last[label] = {
                        "method": answer.method,
                        "plays": answer.plays,
                        "samples": answer.samples,
                        "max_se": round(_max_se(answer), 4),
                    }
            pairs = [n / o for n, o in zip(times["new"], times["old"], strict=True)]
            case[method] = {
                label: {
                    **last[label],
                    "cpu_p50_ms": round(statistics.median(times[label]), 1),
                    "cpu_p95_ms": _p(times[label], 0.95),
                }
                for label in ("old", "new")
            } | {"new_over_old_p50": round(statistics.median(pairs), 3)}
        out["cases"][name] = case
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=30, help="runs of each single-weapon answer")
    parser.add_argument(
        "--exact-limit", type=int, default=20_000, help="dice sequences the exact walk may visit"
    )
    parser.add_argument(
        "--against", type=Path, default=None, help="another version's root (server/, tests/): A/B in turn"
    )
    args = parser.parse_args()
    if args.against is not None:
        print(json.dumps(against(args.against.resolve(), args.repeat), indent=2))
        return
    print(json.dumps(run(args.repeat, args.exact_limit), indent=2))


if __name__ == "__main__":
    main()
