"""Shared helpers of the odds tests: ask the engine, pick a unit's odds, brute-force sampling
over the real reducer with seeded dice (independent of the engine's own stream)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from hulldown.match.actions import Action, Decide
from hulldown.match.events import Event
from hulldown.match.reducer import evolve
from hulldown.match.rejection import Rejection
from hulldown.match.state import MatchState, Side, Unit
from hulldown.odds import OddsAnswer, OddsOptions, UnitOdds, compute_odds
from hulldown.rules.dice import SeededDice

EPS = 1e-6


def odds(
    state: MatchState, side: Side, action: Action, *, expect: str = "exact", **options: object
) -> OddsAnswer:
    """The engine's answer, which must use the ``expect`` method. An exact answer is asked for
    as ``method="exact"`` unless the test names a method: ``auto`` would also weigh the measured
    cost of a play (odds/method.py), and a test's answer must not depend on the machine's speed:
    nor do the CPU budgets of an answer cut it short unless the test sets them."""
    if expect == "exact":
        options.setdefault("method", "exact")
    for budget in ("weigh_budget_s", "sampling_budget_s", "max_cpu_s"):  # none cuts a test's answer
        options.setdefault(budget, math.inf)
    answer = compute_odds(state, side, action, OddsOptions(**options))  # type: ignore[arg-type]
    assert not isinstance(answer, Rejection), answer
    assert answer.method == expect, f"{answer.method} answer ({answer.plays} plays), expected {expect}"
    total = sum(p.p for p in answer.units[0].final.values()) if answer.units else 1.0
    assert abs(total - 1.0) < 1e-4, f"final counts sum to {total}"
    return answer


def unit_odds(answer: OddsAnswer, uid: str) -> UnitOdds:
    found = [u for u in answer.units if u.unit == uid]
    assert found, f"{uid} not among {[u.unit for u in answer.units]}"
    return found[0]


def d6_probability(condition: Callable[..., bool], n: int = 1) -> float:
    """P(condition(d1, ..., dn)) over n fair D6, by counting faces (the closed form)."""
    hits = sum(1 for faces in product(range(1, 7), repeat=n) if condition(*faces))
    return float(Fraction(hits, 6**n))


def hit_chance_40k7(bs: int) -> float:
    """40k7 BS to-hit table (BRB 7th, The Shooting Phase): 7 - BS, at best 2+."""
    need = min(6, max(2, 7 - bs))
    return (7 - need) / 6


@dataclass
class Sampled:
    """What brute-force plays of the real reducer did to one unit."""

    n: int
    destroyed: float
    lost_mean: float
    lost_se: float
    final: dict[int, float]
    statuses: dict[str, float]


def amount(unit: Unit) -> int:
    if unit.destroyed:
        return 0
    if unit.hp > 0 or unit.profile.hp > 0:
        return unit.hp
    return sum(m.wounds for m in unit.models.values() if m.alive)


def brute_force(
    state: MatchState,
    side: Side,
    action: Action,
    units: Sequence[str],
    n: int,
    choices: dict[str, str] | None = None,
) -> dict[str, Sampled]:
    """``n`` plays of ``action`` through ``evolve`` (the real reducer), each with its own seeded
    dice (seed ``brute-force-<i>``); decisions answered from ``choices`` (kind -> option)."""
    finals: dict[str, list[int]] = {u: [] for u in units}
    destroyed: dict[str, int] = dict.fromkeys(units, 0)
    gained: dict[str, dict[str, float]] = {u: {} for u in units}
    for i in range(n):
        seed = f"brute-force-{i}".encode()
        seq = state.seq + 1
        s = evolve(
            state, Event(seq=seq, at=0.0, by=side, action_id="bf", body=action), SeededDice(seed, "bf", seq)
        )
        while s.pending is not None:
            d = s.pending
            choice = (choices or {}).get(d.kind, d.options[0])
            seq = s.seq + 1
            s = evolve(
                s,
                Event(seq=seq, at=0.0, by=d.side, action_id="bf", body=Decide(d.id, choice)),
                SeededDice(seed, "bf", seq),
            )
        for u in units:
            finals[u].append(amount(s.units[u]))
            destroyed[u] += s.units[u].destroyed and not state.units[u].destroyed
            for status in s.units[u].statuses:
                if status not in state.units[u].statuses:
                    gained[u][status] = gained[u].get(status, 0.0) + 1.0 / n
    out: dict[str, Sampled] = {}
    for u in units:
        start = amount(state.units[u])
        lost = [start - f for f in finals[u]]
        mean = sum(lost) / n
        var = sum((x - mean) ** 2 for x in lost) / max(1, n - 1)
        counts: dict[int, float] = {}
        for f in finals[u]:
            counts[f] = counts.get(f, 0.0) + 1.0 / n
        out[u] = Sampled(n, destroyed[u] / n, mean, math.sqrt(var / n), counts, gained[u])
    return out


def assert_agrees(answer: OddsAnswer, sampled: dict[str, Sampled], sigmas: float = 4.0) -> int:
    """Every probability of the answer (destroyed, each final count) and the expected loss agree
    with the brute force within ``sigmas`` combined standard errors. Returns the checks made."""
    checks = 0
    for uid, bf in sampled.items():
        u = unit_odds(answer, uid)
        pairs = [(u.destroyed.p, u.destroyed.se, bf.destroyed)]
        for key in {*bf.final, *(int(k) for k in u.final)}:
            p = u.final.get(str(key))
            pairs.append((p.p if p else 0.0, p.se if p else 0.0, bf.final.get(key, 0.0)))
        for status in {*bf.statuses, *u.statuses}:
            q = u.statuses.get(status)
            pairs.append((q.p if q else 0.0, q.se if q else 0.0, bf.statuses.get(status, 0.0)))
        for mine, my_se, theirs in pairs:
            se = math.sqrt(my_se**2 + theirs * (1 - theirs) / bf.n) or 1.0 / bf.n
            assert abs(mine - theirs) <= sigmas * se + EPS, (
                f"{uid}: engine {mine} vs brute force {theirs} (se {se})"
            )
            checks += 1
        se = math.sqrt(u.expected_lost_se**2 + bf.lost_se**2) or 1.0 / bf.n
        assert abs(u.expected_lost - bf.lost_mean) <= sigmas * se + EPS, (
            f"{uid}: expected loss {u.expected_lost} vs brute force {bf.lost_mean} (se {se})"
        )
        checks += 1
    return checks
