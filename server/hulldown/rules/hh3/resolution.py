"""The Assault phase's Resolution sub-phase: combat resolution points, the winner, the loser's
Panic Check and the aftermath, with the vehicle rules.

# hh3 Vehicles, Combat [seed]: "a lone vehicle will normally lose the combat. It can only Hold at the end
# of the combat." hh3 core, Resolution Sub-Phase [ext]: each side scores +1 per enemy model its
# attacks removed in the Fight sub-phase and +1 if it has the most models in the combat; the higher
# total wins; the loser makes one Leadership check (Panic Check) at minus the difference, and on a
# failure its units gain Routed. Paragon glossary (seed): a Paragon "counts as its base Wounds
# value for combat resolution": a slain Paragon model is worth its base Wounds, and a living one
# counts as that many models for the most-models point (PARAGON_COUNTS_BASE_WOUNDS_ALIVE).
#
# [decided] Which units form a combat: the units that fought this phase, their targets, and every
# enemy unit in base contact with a unit already in the combat (repeated). A destroyed vehicle is
# one model removed. The Panic Check uses the best Leadership among the losing side's units that
# can gain Routed; a side of vehicles only (which cannot be Routed) makes none. Aftermath
# (aftermath.py): a vehicle only Holds; a Routed unit Falls Back (Initiative + D6 per model,
# straight away from the nearest enemy model, stopping at the table edge or impassable terrain);
# a winning unit with no enemy left in base contact Consolidates without moving; every other unit
# Holds (Disengage, Pursue and Gun Down are not modelled, nor a voluntary Fall Back).
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Side, Unit
from ...match.turns import replace_unit
from . import aftermath, geom, statuses
from .core import (
    CHALLENGE_FLAG,
    CONTACT,
    DISGRACED_FLAG,
    F_CHALLENGED,
    F_STRUCK_BACK,
    R_RESOLUTION,
    alive_models,
    is_paragon_model,
    lent_characteristic,
    model_profile,
    on_table,
)

# A fight's record on the attacking unit (turn flag): "combat:<target id>:<resolution points>",
# and on the unit that struck back: "combat:<attacker id>:<resolution points>";
# a challenge's on the unit of the model that won it, or the challenger's (0 points) when nobody
# won: "glory:<enemy unit id>:<resolution points>" (hh3 core, Challenge Sub-Phase, Glory).
COMBAT_FLAG = "combat"
GLORY_FLAG = "glory"
RECORD_FLAGS = (COMBAT_FLAG, GLORY_FLAG)
# Flags that last the Assault phase only: challenges (who issued one, who fights one),
# Disgraced and who struck back (core.py), and the records of
# the fights and challenges, whose combats are resolved once (hh3 core, Resolution Sub-Phase: the
# combats that fought a combat round *this* Assault phase; the opponent's next Assault phase does
# not resolve them again).
ASSAULT_PHASE_FLAGS = (
    CHALLENGE_FLAG + ":",
    DISGRACED_FLAG + ":",
    COMBAT_FLAG + ":",
    GLORY_FLAG + ":",
    F_CHALLENGED,
    F_STRUCK_BACK,
)
# hh3 core, Resolution Sub-Phase: +1 for the side with the most models in the combat.
MOST_MODELS_POINTS = 1
# [decided] The seed's Paragon clause ("counts as its base Wounds value for combat resolution")
# read for every count combat resolution makes: a living Paragon model also counts as its base
# Wounds of models when the sides' models are compared (as the published Paragon rule reads it).
PARAGON_COUNTS_BASE_WOUNDS_ALIVE = True


def combat_flag(target: str, points: int) -> str:
    return f"{COMBAT_FLAG}:{target}:{points}"


def glory_flag(enemy: str, points: int) -> str:
    return f"{GLORY_FLAG}:{enemy}:{points}"


def fights(state: MatchState) -> list[tuple[str, str, int]]:
    """(attacker, target, points) of every fight of this phase, from the attackers' turn flags."""
    out: list[tuple[str, str, int]] = []
    for unit in state.units.values():
        for flag in unit.turn_flags:
            name, _, rest = flag.partition(":")
            target, _, points = rest.rpartition(":")
            if name in RECORD_FLAGS and target and points.isdigit():
                out.append((unit.id, target, int(points)))
    return sorted(out)


def removed_points(unit: Unit, before: Unit) -> int:
    """Resolution points for the models of ``unit`` removed since ``before``: 1 each, a Paragon
    its base Wounds (seed glossary, Paragon: "Counts as its base Wounds value for combat
    resolution") - a Paragon unit's model, or a Paragon model in the unit it joined."""
    removed = [m for mid, m in before.models.items() if m.alive and not unit.models[mid].alive]
    lost = sum(model_profile(before, m).w if is_paragon_model(before, m) else 1 for m in removed)
    if before.kind == "vehicle" and unit.destroyed and not before.destroyed:
        lost = max(lost, 1)
    return lost


def model_count(unit: Unit) -> int:
    """The unit's living models as combat resolution counts them: 1 each, a Paragon model its base
    Wounds (hh3 glossary, Paragon; PARAGON_COUNTS_BASE_WOUNDS_ALIVE)."""
    if not PARAGON_COUNTS_BASE_WOUNDS_ALIVE:
        return len(alive_models(unit))
    return sum(model_profile(unit, m).w if is_paragon_model(unit, m) else 1 for m in alive_models(unit))


def _in_contact(a: Unit, b: Unit) -> bool:
    return on_table(a) and on_table(b) and geom.unit_distance(a, b) <= CONTACT


def combats(state: MatchState) -> list[list[str]]:
    """The combats to resolve (see the module docstring), each a sorted list of unit ids."""
    links: dict[str, set[str]] = {}
    for attacker, target, _ in fights(state):
        links.setdefault(attacker, set()).add(target)
        links.setdefault(target, set()).add(attacker)
    seen: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(links):
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            uid = todo.pop()
            unit = state.units[uid]
            near = set(links.get(uid, ()))
            near |= {o.id for o in state.units.values() if o.side != unit.side and _in_contact(unit, o)}
            for other in near - group:
                group.add(other)
                todo.append(other)
        seen |= group
        out.append(sorted(group))
    return out


def resolve_combats(state: MatchState, ctx: ApplyContext) -> MatchState:
    """hh3 core, Resolution Sub-Phase, for every combat that fought this Assault phase."""
    for group in combats(state):
        state = _resolve(state, group, ctx)
    return _end_assault_flags(state)


def _end_assault_flags(state: MatchState) -> MatchState:
    """hh3 core, Challenge Sub-Phase: challenge participants return to their units and Disgraced
    ends with the Assault phase; the combats of this phase are resolved [decided: these flags and
    the fight and challenge records are cleared once the combats are resolved]."""
    for unit in list(state.units.values()):
        kept = tuple(f for f in unit.turn_flags if not f.startswith(ASSAULT_PHASE_FLAGS))
        if kept != unit.turn_flags:
            state = replace_unit(state, replace(unit, turn_flags=kept))
    return state


def _resolve(state: MatchState, group: list[str], ctx: ApplyContext) -> MatchState:
    units = [state.units[u] for u in group]
    points: dict[Side, int] = {"a": 0, "b": 0}
    members = set(group)
    for attacker, _, scored in fights(state):
        if attacker in members:
            points[state.units[attacker].side] += scored
    standing = {side: [u for u in units if u.side == side and on_table(u)] for side in ("a", "b")}
    names = ", ".join(u.name for u in units)
    if not standing["a"] or not standing["b"]:
        ctx.log(f"Combat of {names}: one side was wiped out, no resolution to make.", R_RESOLUTION)
        return state
    models = {side: sum(model_count(u) for u in standing[side]) for side in ("a", "b")}
    if models["a"] != models["b"]:
        points["a" if models["a"] > models["b"] else "b"] += MOST_MODELS_POINTS
    ctx.log(
        f"Combat resolution ({names}): side a {points['a']} points, side b {points['b']} points "
        f"(models {models['a']} against {models['b']}).",
        R_RESOLUTION,
    )
    winner: Side | None = None
    if points["a"] == points["b"]:
        ctx.log("The combat is a draw.", R_RESOLUTION)
    else:
        winner = "a" if points["a"] > points["b"] else "b"
        loser: Side = "b" if winner == "a" else "a"
        ctx.log(f"Side {winner} wins the combat.", R_RESOLUTION)
        state = _panic(state, standing[loser], abs(points["a"] - points["b"]), ctx)
    return aftermath.aftermath(state, standing["a"] + standing["b"], winner, ctx)


def _panic(state: MatchState, losers: list[Unit], difference: int, ctx: ApplyContext) -> MatchState:
    """hh3 core, Resolution Sub-Phase, Panic Checks: one Leadership check for the losing side at
    minus the difference; failed: every losing unit gains Routed (vehicles cannot: hh3 Vehicles,
    Statuses)."""
    able = [u for u in losers if statuses.can_gain(u, statuses.ROUTED) and statuses.ROUTED not in u.statuses]
    if not able:
        ctx.log("The losing side cannot be Routed: no Panic Check.", R_RESOLUTION)
        return state
    best = max(able, key=lambda u: (lent_characteristic(u, "ld"), u.id))
    # a Paragon lends its Leadership (seed glossary)
    passed, ld = statuses.leadership_check(best, ctx, f"Panic Check ({best.name})", -difference)
    if passed:
        ctx.log(f"{best.name} passes the Panic Check (Leadership {ld} - {difference}).", R_RESOLUTION)
        return state
    for unit in able:
        state = replace_unit(state, statuses.gain(state.units[unit.id], statuses.ROUTED))
    ctx.log(
        f"The Panic Check fails (Leadership {ld} - {difference}): "
        f"{', '.join(u.name for u in able)} gain Routed.",
        R_RESOLUTION,
    )
    return state
