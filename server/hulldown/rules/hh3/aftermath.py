"""The Aftermath step of the Resolution sub-phase: a Routed unit Falls Back, the others Hold, a
winner left with no enemy in base contact Consolidates (docs/rules-notes.md, hh3, Combat
resolution).

# hh3 core, Resolution Sub-Phase, Aftermath [ext]: a unit with Routed models must Fall Back (an
# immediate fall back move); hh3 core, Rout Sub-Phase, Falling Back [ext]: each model moves its
# current Initiative plus one die rolled for the unit, terrain reducing the move as normal, never
# ending within 1" of an enemy model (it stops at the furthest legal point), and a model that
# reaches the battlefield edge stops there; if one or more models touched that edge, the unit makes
# a Leadership Check: failed, all its models are removed as casualties (the unit is destroyed);
# passed, it loses Routed and gains Suppressed. hh3 Vehicles, Combat [seed]: a lone vehicle "can only
# Hold"; vehicles cannot gain Routed (hh3 Vehicles, Statuses), so they never Fall Back.
#
# [decided] The direction: the published move heads for the nearest battlefield edge of the
# unit's deployment zone; here every model of the unit moves on one straight line directly away
# from the nearest enemy model of the combat, so the unit keeps its
# formation. A model stops where that line would take its base off the table or its path into
# impassable terrain; from there it steps back (FALL_BACK_STEP) until its end is off every model
# and more than 1" from every enemy model; with no such end it stays where it is. A model
# "reached the edge" when the table edge is what stopped its line and it ends there, its base
# touching the edge (a model stepped back from there, or stopped by terrain, did not) [decided].
# A winner may Consolidate (up to its Initiative in any direction) when every enemy unit Falls
# Back: [decided: the server moves nothing; the unit stays where it is]; the other choices
# (Disengage, a voluntary Fall Back, Pursue, Gun Down) are not offered: every other unit Holds.
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.state import MatchState, Point, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from . import geom, movement, statuses
from .core import (
    CONTACT,
    ENEMY_GAP,
    R_COMBAT,
    R_RESOLUTION,
    alive_models,
    is_vehicle,
    model_profile,
    on_table,
)
from .statuses import ROUTED

R_AFTERMATH = f"{R_RESOLUTION}, Aftermath"
R_FALL_BACK = f"{R_RESOLUTION}, Aftermath (Fall Back)"
R_FALL_BACK_EDGE = "hh3 core, Rout Sub-Phase, Falling Back (battlefield edge)"
# [decided] Falling back units move straight away from the nearest enemy model of the combat
# (the published direction, the unit's own battlefield edge, is not modelled: docs/rules-notes.md,
# hh3 Combat resolution).
# [decided] How far a model steps back from where the line stops it, looking for a legal end.
FALL_BACK_STEP = 0.05
# Bisection steps for where the straight line leaves the table or meets impassable terrain.
_SEARCH_STEPS = 40


def aftermath(state: MatchState, units: list[Unit], winner: str | None, ctx: ApplyContext) -> MatchState:
    """hh3 core, Resolution Sub-Phase, Aftermath: the losing side's units first (they choose first),
    each Routed non-vehicle unit Falls Back; then every unit still standing Holds, a vehicle only
    ever Holds (hh3 Vehicles, Combat), and a winner with no enemy left in base contact Consolidates."""
    order = sorted(units, key=lambda u: (u.side == winner, u.id))
    fell_back: set[str] = set()
    for unit in order:
        unit = state.units[unit.id]
        if on_table(unit) and not is_vehicle(unit) and ROUTED in unit.statuses:
            enemies = [state.units[u.id] for u in units if u.side != unit.side]
            state = fall_back(state, unit, enemies, ctx)
            fell_back.add(unit.id)
    for unit in order:
        unit = state.units[unit.id]
        if not on_table(unit):
            continue
        if is_vehicle(unit):
            ctx.log(f"{unit.name} is a vehicle: it can only Hold.", R_COMBAT)
        elif unit.id in fell_back:
            continue
        elif unit.side == winner and _may_consolidate(state, unit, units, fell_back):
            ctx.log(f"{unit.name} Consolidates: it stays where it is.", R_AFTERMATH)
        else:
            ctx.log(f"{unit.name} Holds.", R_AFTERMATH)
    return state


def _may_consolidate(state: MatchState, unit: Unit, units: list[Unit], fell_back: set[str]) -> bool:
    """hh3 core, Resolution Sub-Phase, Aftermath: the winner may Consolidate when every enemy unit
    of the combat Falls Back (here: was Routed; Disengage is not modelled; a unit removed at the
    battlefield edge is no longer there) [decided: and no enemy model is left in base contact with
    it, as when a falling back model could not move]."""
    enemies = [state.units[o.id] for o in units if o.side != unit.side and on_table(state.units[o.id])]
    return all(e.id in fell_back for e in enemies) and not any(
        geom.unit_distance(unit, e) <= CONTACT for e in enemies
    )


def fall_back(state: MatchState, unit: Unit, enemies: list[Unit], ctx: ApplyContext) -> MatchState:
    """hh3 core, Resolution Sub-Phase, Aftermath (Fall Back) with the Rout Sub-Phase's Falling Back
    move: one die for the unit, each model moves its Initiative plus the die, straight away from
    the nearest enemy model [decided], stopping at the table edge or impassable
    terrain, never ending on a model or within 1" of an enemy model. A unit with a model that
    reached the battlefield edge then makes the edge's Leadership Check (``_edge_check``)."""
    standing = [e for e in enemies if on_table(e)]
    direction = _away(unit, standing)
    die = ctx.roll(f"Fall Back ({unit.name})", "Initiative + D6 inches")
    if direction is None:
        ctx.log(
            f"{unit.name} is Routed but has no enemy to Fall Back from: it stays where it is.", R_FALL_BACK
        )
        return state
    ux, uy = direction
    impassable: list[BaseGeometry] = [p.polygon() for p in geom.terrain_pieces(state) if p.has("impassable")]
    placed: dict[str, g.Footprint] = {}
    models = dict(unit.models)
    longest = 0.0
    short = False
    at_edge = False
    for model in alive_models(unit):
        reach = float(model_profile(unit, model).i + die)
        full = Point(model.pos.x + ux * reach, model.pos.y + uy * reach)
        swept = g.swept_area(geom.footprint(model), [(full.x, full.y)])
        reach = max(0.0, reach - movement.terrain_penalty(state, unit, swept))  # hh3 core, Line of Movement
        limit, edge = _clear_limit(state, unit, model.id, (ux, uy), reach, impassable)
        moved_to = _legal_end(state, unit, model.id, (ux, uy), limit, placed)
        gone = 0.0 if moved_to is None else math.hypot(moved_to.x - model.pos.x, moved_to.y - model.pos.y)
        short = short or gone < reach - 1e-6
        at_edge = at_edge or (edge and gone >= limit - 1e-6)
        if moved_to is not None:
            models[model.id] = replace(model, pos=moved_to)
        placed[model.id] = geom.footprint(models[model.id])
        longest = max(longest, gone)
    state = replace_unit(state, replace(unit, models=models))
    inits = sorted({model_profile(unit, m).i for m in alive_models(unit)})
    how = f"Initiative {inits[0]} + {die}" if len(inits) == 1 else f"each model's Initiative + {die}"
    stopped = ", stopped short by the table edge, terrain or other models" if short else ""
    ctx.log(f"{unit.name} is Routed and Falls Back {longest:.1f} in ({how}{stopped}).", R_FALL_BACK)
    if at_edge:
        state = _edge_check(state, state.units[unit.id], ctx)
    return state


def _edge_check(state: MatchState, unit: Unit, ctx: ApplyContext) -> MatchState:
    """hh3 core, Rout Sub-Phase, Falling Back: one or more models reached the battlefield edge, so
    the unit makes a Leadership Check (2D6 <= Leadership, a Paragon lending its own): failed, every
    model is removed as a casualty and the unit is destroyed; passed, it loses Routed and gains
    Suppressed."""
    passed, ld = statuses.leadership_check(unit, ctx, f"Fall Back Leadership Check ({unit.name})")
    if passed:
        unit = statuses.gain(statuses.remove(unit, ROUTED), statuses.SUPPRESSED)
        ctx.log(
            f"{unit.name} reached the battlefield edge and passes its Leadership Check "
            f"(Leadership {ld}): it loses Routed and gains Suppressed.",
            R_FALL_BACK_EDGE,
        )
        return replace_unit(state, unit)
    models = {mid: replace(m, alive=False) if m.alive else m for mid, m in unit.models.items()}
    ctx.log(
        f"{unit.name} reached the battlefield edge and fails its Leadership Check (Leadership {ld}): "
        f"all its models are removed as casualties; {unit.name} is destroyed.",
        R_FALL_BACK_EDGE,
    )
    return replace_unit(state, replace(unit, models=models, destroyed=True))


def _away(unit: Unit, enemies: list[Unit]) -> tuple[float, float] | None:
    """The unit vector from the nearest enemy model to the unit's model nearest it (ties: the
    first pair in model id order)."""
    best: tuple[float, float, float] | None = None
    for m in alive_models(unit):
        fp = geom.footprint(m)
        for e in enemies:
            for em in alive_models(e):
                d = g.distance(fp, geom.footprint(em))
                dx, dy = m.pos.x - em.pos.x, m.pos.y - em.pos.y
                if best is None or d < best[0]:
                    best = (d, dx, dy)
    if best is None:
        return None
    length = math.hypot(best[1], best[2])
    if length == 0.0:
        return None
    return best[1] / length, best[2] / length


def _clear_limit(
    state: MatchState,
    unit: Unit,
    mid: str,
    direction: tuple[float, float],
    reach: float,
    impassable: list[BaseGeometry],
) -> tuple[float, bool]:
    """How far along the line the model can go before its base leaves the table or its path meets
    impassable terrain (hh3 core, Falling Back: a model reaching the battlefield edge stops), and
    whether the table edge is what stops it there."""
    model = unit.models[mid]

    def clear(t: float) -> bool:
        end = Point(model.pos.x + direction[0] * t, model.pos.y + direction[1] * t)
        if not geom.inside_battlefield(state, geom.at(model, end)):
            return False
        swept = g.swept_area(geom.footprint(model), [(end.x, end.y)])
        return not any(g.overlaps(swept, poly) for poly in impassable)

    def off_table(t: float) -> bool:
        end = Point(model.pos.x + direction[0] * t, model.pos.y + direction[1] * t)
        return not geom.inside_battlefield(state, geom.at(model, end))

    if clear(reach):
        return reach, False
    low, high = 0.0, reach
    if not clear(low):
        return 0.0, False
    for _ in range(_SEARCH_STEPS):
        mid_t = (low + high) / 2.0
        if clear(mid_t):
            low = mid_t
        else:
            high = mid_t
    return low, off_table(high)


def _legal_end(
    state: MatchState,
    unit: Unit,
    mid: str,
    direction: tuple[float, float],
    limit: float,
    placed: dict[str, g.Footprint],
) -> Point | None:
    """The furthest point up to ``limit`` whose base is off every other model and more than 1"
    from every enemy model (hh3 core, Falling Back); None when there is none."""
    model = unit.models[mid]
    others = [
        (o.side != unit.side, fp)
        for o in state.units.values()
        if o.id != unit.id and on_table(o)
        for fp in geom.unit_footprints(o)
    ]
    steps = int(limit / FALL_BACK_STEP)
    candidates = [limit] + [FALL_BACK_STEP * k for k in range(steps, 0, -1) if FALL_BACK_STEP * k < limit]
    for t in candidates:
        end = Point(model.pos.x + direction[0] * t, model.pos.y + direction[1] * t)
        fp = geom.at(model, end)
        if any(g.overlaps(fp, other) for other in placed.values()):
            continue
        if any(
            g.overlaps(fp, ofp) or (enemy and g.distance(fp, ofp) <= ENEMY_GAP + g.EPS)
            for enemy, ofp in others
        ):
            continue
        return end
    return None
