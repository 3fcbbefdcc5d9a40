"""From weighted plays to the answer: per-unit probabilities with standard errors, the decisions
raised, and a one-line summary per unit (docs/odds.md)."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import msgspec

from ..match.actions import Action, Charge, Fight, Move, Shoot
from ..match.state import LogRoll, MatchState, Side
from .answer import DecisionOdds, DecisionPolicy, OddsAnswer, Prob, UnitOdds
from .observe import affected_units, amount, charge_reached, measure_of, observe, play_rolls
from .plays import Play, untokenised

# How many statuses a summary line names (the likeliest first).
SUMMARY_ITEMS = 3
# How a summary names a move's effect on others and on the mover itself.
_MOVE_WORDS: dict[str, tuple[str, str]] = {
    "ram": ("rams", "ramming"),
    "tank_shock": ("Tank Shocks", "Tank Shocking"),
}
_ARMOUR = re.compile(r"vs (?:(front|side|left|right|rear) )?(?:armour |AV)(\d+)")


@dataclass
class _UnitTally:
    no_effect: float = 0.0
    destroyed: float = 0.0
    glancing: float = 0.0
    penetrating: float = 0.0
    reaches: float = 0.0
    lost: float = 0.0
    lost_sq: float = 0.0
    final: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))
    results: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    statuses: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    armour: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    cover: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))


@dataclass
class _DecisionTally:
    prompt: str
    # Every option offered, in the order met (an allocation's options are the models that may take
    # that wound, which differ between wounds and plays).
    options: dict[str, None] = field(default_factory=dict)
    raised: float = 0.0
    chosen: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    policies: defaultdict[DecisionPolicy, float] = field(default_factory=lambda: defaultdict(float))

    def policy(self) -> DecisionPolicy:
        """The policy that answered the decision in the likeliest share of the plays (the first
        met on a tie): they differ only where a fixed choice is not an option every time."""
        best = max(self.policies.values())
        return next(k for k, v in self.policies.items() if v == best)


_DecisionKey = tuple[str, Side, str]


class _Probs:
    """Probabilities with their standard errors: exact (se 0) or from ``n`` equal samples."""

    def __init__(self, exact: bool, n: int) -> None:
        self.exact = exact
        self.n = n

    def prob(self, p: float) -> Prob:
        p = min(1.0, max(0.0, p))
        if self.exact:
            return Prob(_round(p))
        return Prob(_round(p), _round(math.sqrt(p * (1.0 - p) / self.n)))

    def mean_se(self, mean: float, mean_sq: float) -> float:
        if self.exact:
            return 0.0
        return _round(math.sqrt(max(0.0, mean_sq - mean * mean) / self.n))


# Probabilities equal to this many decimals are a tie, broken by name: sums of the same chances
# taken in another order differ in their last bits, which put equal statuses in either order.
TIE_DECIMALS = 9


def _likeliest(weights: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(weights.items(), key=lambda kv: (-round(kv[1], TIE_DECIMALS), kv[0]))


def _round(x: float) -> float:
    return round(x, 6)


def _context(rolls: list[LogRoll], tally: _UnitTally, weight: float) -> None:
    """The facing, Armour Value and cover of the rolls against a unit (for its summary)."""
    for roll in rolls:
        purpose, target = roll.purpose, roll.target
        if "penetration" in purpose:
            found = _ARMOUR.search(target)
            if found:
                facing, value = found.groups()
                tally.armour[f"{facing} AV{value}" if facing else f"AV{value}"] += weight
        elif purpose == "cover save":
            tally.cover[f"{target} cover"] += weight


def aggregate(
    state: MatchState,
    side: Side,
    action: Action,
    plays: list[tuple[float, Play]],
    *,
    samples: int,
    choices: dict[str, str],
    policy: str,
) -> OddsAnswer:
    """``plays`` are the distinct plays with their weights; ``samples`` the samples behind them
    (0: the plays are every leaf of the dice tree, the answer is exact)."""
    exact = samples == 0
    probs = _Probs(exact, samples)
    units = affected_units([p for _, p in plays], action)
    charger = action.unit if isinstance(action, Charge) else None
    if charger is not None and charger not in units:
        units.insert(0, charger)
    tallies = {uid: _UnitTally() for uid in units}
    decisions: dict[_DecisionKey, _DecisionTally] = {}
    names = {uid: u.name for uid, u in state.units.items()}
    pending = 0.0
    for weight, p in plays:
        rolls_of = play_rolls(p)
        outcomes = observe(p, units)
        for uid, o in outcomes.items():
            t = tallies[uid]
            t.no_effect += weight if not o.changed else 0.0
            t.destroyed += weight if o.destroyed else 0.0
            t.glancing += weight if o.glancing else 0.0
            t.penetrating += weight if o.penetrating else 0.0
            t.lost += weight * o.lost
            t.lost_sq += weight * o.lost * o.lost
            t.final[o.final] += weight
            for result in set(o.results):
                t.results[result] += weight
            for status in o.statuses:
                t.statuses[status] += weight
            _context(rolls_of.get(uid, []), t, weight)
        if charger is not None and isinstance(action, Charge) and charge_reached(p.end, action):
            tallies[charger].reaches += weight
        _tally_decisions(p, weight, decisions, names)
        if p.pending is not None:
            pending += weight
    unit_odds = [_unit_odds(state, action, uid, tallies[uid], probs, uid == charger) for uid in units]
    return OddsAnswer(
        edition=state.edition,
        seq=state.seq,
        by=side,
        action=msgspec.to_builtins(action),
        method="exact" if exact else "sampled",
        plays=len(plays) if exact else samples,
        samples=samples,
        policy=policy,
        choices=dict(choices),
        units=unit_odds,
        decisions=[
            DecisionOdds(
                kind=kind,
                side=s,
                rule=rule,
                raised=probs.prob(d.raised),
                options=tuple(d.options),
                chosen={o: probs.prob(d.chosen[o]) for o in d.options if d.chosen.get(o, 0.0) > 0},
                policy=d.policy(),
                prompt=d.prompt,
            )
            for (kind, s, rule), d in decisions.items()
        ],
        summary=[u.summary for u in unit_odds],
        still_pending=probs.prob(pending),
    )


def _tally_decisions(
    p: Play, weight: float, decisions: dict[_DecisionKey, _DecisionTally], names: dict[str, str]
) -> None:
    """Count a play's decisions - those before the action's dice and those in their middle - by
    kind, side and rule: raised at least once, each option chosen at least once (an allocation
    may be asked for every wound of a volley), and the policy that answered."""
    seen: set[_DecisionKey] = set()
    chosen: set[tuple[_DecisionKey, str]] = set()
    for r in p.raised:
        key = (r.kind, r.side, r.rule)
        d = decisions.get(key)
        if d is None:
            d = decisions[key] = _DecisionTally(untokenised(r.prompt, names))
        d.options.update(dict.fromkeys(r.options))
        if key not in seen:
            d.raised += weight
            d.policies[r.policy] += weight
            seen.add(key)
        if (key, r.chosen) not in chosen:
            d.chosen[r.chosen] += weight
            chosen.add((key, r.chosen))


def _unit_odds(
    state: MatchState, action: Action, uid: str, t: _UnitTally, probs: _Probs, is_charger: bool
) -> UnitOdds:
    unit = state.units[uid]
    measure = measure_of(unit)
    has_armour = unit.profile.armour is not None
    odds = UnitOdds(
        unit=uid,
        name=unit.name,
        side=unit.side,
        measure=measure,
        start=amount(unit, measure),
        no_effect=probs.prob(t.no_effect),
        destroyed=probs.prob(t.destroyed),
        expected_lost=_round(t.lost),
        expected_lost_se=probs.mean_se(t.lost, t.lost_sq),
        final={str(k): probs.prob(v) for k, v in sorted(t.final.items(), reverse=True)},
        summary="",
        glancing=probs.prob(t.glancing) if has_armour else None,
        penetrating=probs.prob(t.penetrating) if has_armour else None,
        damage_results={k: probs.prob(v) for k, v in _likeliest(t.results)},
        statuses={k: probs.prob(v) for k, v in _likeliest(t.statuses)},
        reaches=probs.prob(t.reaches) if is_charger else None,
    )
    return msgspec.structs.replace(odds, summary=_summary(state, action, uid, odds, t))


def _percent(p: float) -> str:
    if 0.0 < p < 0.005:
        return "<1%"
    if 0.995 <= p < 1.0:
        return ">99%"
    return f"{round(p * 100)}%"


def _label(state: MatchState, action: Action, uid: str) -> str:
    """Who does what to the unit: "Lascannon -> Rhino", "Charge -> Boyz"; the unit alone when
    the action does not name it (a passenger, a unit caught in an explosion)."""
    name = state.units[uid].name
    match action:
        case Shoot():
            shooter = state.units[action.unit]
            counts = Counter(
                shooter.weapons[f.weapon].name
                for f in action.fire
                if f.target == uid and f.weapon in shooter.weapons
            )
            if counts:
                weapons = " + ".join(n if c == 1 else f"{n} x{c}" for n, c in counts.items())
                return f"{weapons} -> {name}"
        case Charge():
            if action.target == uid:
                return f"{state.units[action.unit].name} charges -> {name}"
            if action.unit == uid:
                return f"{name} charges {state.units[action.target].name}"
        case Move():
            verb, doing = _MOVE_WORDS.get(action.kind, ("moves", "moving"))
            if action.unit == uid:
                return f"{name} ({doing})"
            return f"{state.units[action.unit].name} {verb} -> {name}"
        case Fight():
            if action.target == uid:
                attacker = state.units[action.unit]
                weapon = attacker.weapons.get(action.weapon or "")
                return f"{weapon.name if weapon else attacker.name} -> {name}"
        case _:
            target = getattr(action, "target", None)
            if target == uid:
                return f"{state.units[getattr(action, 'unit', uid)].name} -> {name}"
    return name


def _summary(state: MatchState, action: Action, uid: str, odds: UnitOdds, t: _UnitTally) -> str:
    label = _label(state, action, uid)
    context = [_likeliest(c)[0][0] for c in (t.armour, t.cover) if c]
    head = ", ".join([label, *context])
    parts: list[str] = []
    if odds.reaches is not None:
        parts.append(f"reaches {_percent(odds.reaches.p)}")
    if odds.destroyed.p > 0 or odds.reaches is None:
        parts.append(f"destroyed {_percent(odds.destroyed.p)}")
    # The lasting effects: the statuses gained (Immobilised, Stunned, Pinned...), likeliest first.
    for status, p in list(odds.statuses.items())[:SUMMARY_ITEMS]:
        parts.append(f"{status.replace('_', ' ').capitalize()} {_percent(p.p)}")
    if odds.expected_lost > 0 or odds.reaches is None:
        unit_word = "HP" if odds.measure == "hp" else "wounds"
        parts.append(f"{odds.expected_lost:.1f} {unit_word} expected")
    return f"{head}: {', '.join(parts)}"
