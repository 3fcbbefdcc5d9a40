"""40k11 Pile In and Consolidate: the automatic moves of a fighting unit (40k11 core rules [ext]).

The published 10th edition core rules, which the 40k11 texts here (17 Monsters and Vehicles) do
not replace: a unit selected to fight first Piles In - each model may move up to 3" and must end
closer to the closest enemy model, in base contact with it if it can - and after its attacks
Consolidates the same way. Here the server makes both moves inside ``Fight`` [decided]: each model
not in base contact moves straight toward the closest live model of the target unit, stopping in
base contact, as far as the move stays legal (movement.check_routes: no model moved through, no
impassable terrain, no Engagement Range of an enemy unit not in the fight). docs/rules-notes.md,
40k11 Charge and Fight; the decisions are in constants.py.
"""

from __future__ import annotations

import math

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import replace_unit
from ..geometry import distance
from .constants import (
    BASE_CONTACT,
    CONSOLIDATE_KIND,
    PILE_IN_CONTACT_GAP,
    PILE_IN_KIND,
    PILE_IN_PRECISION,
    R_CONSOLIDATE,
    R_PILE_IN,
)
from .movement import Route, allowance, check_routes
from .space import engaged_with, extent, model_distance
from .units import enemies, live_models, on_table

# Halvings to find where a model moving toward another comes into base contact.
CONTACT_SEARCH_STEPS = 40


def pile_in(state: MatchState, unit_id: str, target_id: str, ctx: ApplyContext) -> MatchState:
    """40k11 core rules [ext], Pile In: before its attacks, up to 3" toward the target."""
    return close_in(state, unit_id, target_id, PILE_IN_KIND, ctx)


def consolidate(state: MatchState, unit_id: str, target_id: str, ctx: ApplyContext) -> MatchState:
    """40k11 core rules [ext], Consolidate: after its attacks, up to 3" toward the target's closest
    model still alive; none alive, no move [decided: the objective marker move is left out]."""
    return close_in(state, unit_id, target_id, CONSOLIDATE_KIND, ctx)


def in_base_contact(state: MatchState, unit: Unit, model: Model) -> bool:
    """40k11 core rules [ext], Pile In / Consolidate: a model in base contact (within BASE_CONTACT,
    the whole model, 17.02) with an enemy model does not move."""
    return any(
        model_distance(unit, model, e, m) <= BASE_CONTACT
        for e in enemies(state, unit)
        for m in live_models(e)
    )


def close_in(state: MatchState, unit_id: str, target_id: str, kind: str, ctx: ApplyContext) -> MatchState:
    """40k11 core rules [ext], Pile In and Consolidate (``kind``): each live model of the unit not
    in base contact with an enemy model moves, one at a time in model order, straight toward the
    closest live model of the target, up to 3", stopping in base contact (PILE_IN_CONTACT_GAP) or
    short of it where the move would be refused (PILE_IN_PRECISION) [decided]. Total."""
    unit = state.units[unit_id]
    target = state.units[target_id]
    if not on_table(unit) or not on_table(target) or not live_models(target):
        return state
    # [decided] The enemy units in the fight: the target and those the unit is engaged with now.
    in_fight = frozenset({target_id, *engaged_with(state, unit)})
    moved = 0
    for mid in [m.id for m in live_models(unit)]:
        unit = state.units[unit_id]
        model = unit.models[mid]
        if in_base_contact(state, unit, model):
            continue
        goal = min(live_models(target), key=lambda t: (model_distance(unit, model, target, t), t.id))
        end = _farthest(state, unit, model, target, goal, kind, in_fight)
        if end is None:
            continue
        models = dict(unit.models)
        models[mid] = replace(model, pos=Point(end[0], end[1]))
        state = replace_unit(state, replace(unit, models=models))
        moved += 1
    if moved:
        verb, rule = ("pile in", R_PILE_IN) if kind == PILE_IN_KIND else ("consolidate", R_CONSOLIDATE)
        ctx.log(
            f"{unit.name} {verb}: {moved} model{'' if moved == 1 else 's'} move up to {allowance(unit, kind):g} in "
            f"toward {target.name}.",
            rule,
        )
    return state


def _farthest(
    state: MatchState,
    unit: Unit,
    model: Model,
    target: Unit,
    goal: Model,
    kind: str,
    in_fight: frozenset[str],
) -> tuple[float, float] | None:
    """Where the model ends moving straight toward ``goal`` (40k11 core rules [ext], Pile In: closer
    to the closest enemy model, in base contact if possible): None when it cannot move farther than
    PILE_IN_PRECISION."""
    start = (model.pos.x, model.pos.y)
    dx, dy = goal.pos.x - start[0], goal.pos.y - start[1]
    span = math.hypot(dx, dy)
    if span <= PILE_IN_PRECISION:
        return None
    ux, uy = dx / span, dy / span
    target_shape = extent(target, goal)

    def at(t: float) -> tuple[float, float]:
        return (start[0] + ux * t, start[1] + uy * t)

    def gap(t: float) -> float:
        return float(distance(extent(unit, model, at(t)), target_shape))

    # Base contact along the line: the gap shrinks as the model closes in (convex shapes), so
    # halve for the point PILE_IN_CONTACT_GAP short of touching.
    lo, hi = 0.0, span
    if gap(0.0) <= PILE_IN_CONTACT_GAP:
        return None
    for _ in range(CONTACT_SEARCH_STEPS):
        mid = (lo + hi) / 2.0
        if gap(mid) >= PILE_IN_CONTACT_GAP:
            lo = mid
        else:
            hi = mid
    reach = min(allowance(unit, kind), lo)

    def legal(t: float) -> bool:
        route = Route(model, (at(t),), t, model.heading)
        return check_routes(state, unit, kind, [route], in_fight=in_fight) is None

    if reach <= PILE_IN_PRECISION:
        return None
    if legal(reach):
        return at(reach)
    # 40k11 core rules [ext], Pile In: a model that cannot move all the way stops short [decided].
    lo, hi = 0.0, reach
    while hi - lo > PILE_IN_PRECISION:
        mid = (lo + hi) / 2.0
        if legal(mid):
            lo = mid
        else:
            hi = mid
    return at(lo) if lo > PILE_IN_PRECISION else None
