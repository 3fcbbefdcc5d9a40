"""The Move sub-phase: moves, Rushes and pivots; driving through units; dangerous terrain.

# hh3 Vehicles, Movement to Driving through other units [seed + ext]. A vehicle moves up to M and
# ends facing any direction; it may pivot about its centre instead of moving (Stationary; must end
# more than 1" from any enemy); it Rushes only with the Fast/Rapid sub-type; it never climbs (no
# terrain above level 0); it may move through units that are not vehicles, never through vehicles or
# terrain that stops it, never ends on a model or within 1" of an enemy; each enemy unit driven
# through takes D6 S6 AP- hits.
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely.geometry.base import BaseGeometry

from ...match.actions import Move, Pivot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from . import damage, geom, statuses, transports
from .combat_lock import locked
from .core import (
    COHERENCY,
    DANGEROUS_FAILS_ON,
    DRIVE_THROUGH_STRENGTH,
    ENEMY_GAP,
    F_DISEMBARKED,
    F_MOVE_DONE,
    F_MOVED,
    F_RUSHED,
    F_UNLOADED,
    R_CLIMB,
    R_CORE_MOVE,
    R_DANGEROUS,
    R_DIFFICULT,
    R_DISEMBARK_MOVE,
    R_DRIVE,
    R_MOVE,
    R_PIVOT,
    R_RAPID,
    R_RUSH,
    alive_models,
    is_fast,
    is_super_heavy,
    is_vehicle,
    units_on_table,
    vehicle_model,
)
from .hits import Hit

# hh3 Vehicle Sub-Types, Rapid (the seed's Fast) [ext]: a Rapid vehicle has no Initiative to add; its Rush
# adds 6" to its Movement.
VEHICLE_RUSH_BONUS = 6.0

# The kinds of move hh3 has besides a Battlesmith activation (a Move of kind "battlesmith").
MOVE_KINDS = ("normal", "rush")


def move_limit(unit: Unit, rush: bool) -> float:
    """Normal move: M. Rush: M + I (hh3 core, Rush); Rapid vehicles: M + 6" (hh3 Vehicle Sub-Types, Rapid)."""
    m = unit.profile.m
    if not rush:
        return m
    if is_vehicle(unit):
        return m + VEHICLE_RUSH_BONUS
    return m + unit.profile.i


# hh3 core, Line of Movement [ext]: a move any part of which crosses difficult or dangerous
# terrain has the Movement reduced by 2" (charges are not moves here: no penalty).
DIFFICULT_TERRAIN_PENALTY = 2.0
SLOWING_TERRAIN_KINDS = ("difficult", "dangerous")


def terrain_unaffected(unit: Unit) -> bool:
    """hh3 Vehicle Sub-Types, Super-heavy [ext]: a Super-heavy vehicle is not affected by difficult or
    dangerous terrain (no penalty to its move, no dangerous terrain test)."""
    return is_vehicle(unit) and is_super_heavy(unit)


def terrain_penalty(state: MatchState, unit: Unit, swept: BaseGeometry) -> float:
    """hh3 core, Line of Movement: 2" off the move when its swept area crosses difficult or
    dangerous terrain; nothing for units that terrain does not affect."""
    if terrain_unaffected(unit):
        return 0.0
    for piece in geom.terrain_pieces(state):
        if any(piece.has(k) for k in SLOWING_TERRAIN_KINDS) and g.overlaps(swept, piece.polygon()):
            return DIFFICULT_TERRAIN_PENALTY
    return 0.0


def end_positions(unit: Unit, action: Move) -> dict[str, Point]:
    """Every alive model's end position: explicit ``positions``, else the lead model's
    displacement along ``path`` applied to every model."""
    if action.positions:
        return {m.id: action.positions.get(m.id, m.pos) for m in alive_models(unit)}
    lead = alive_models(unit)[0]
    end = action.path[-1] if action.path else lead.pos
    dx, dy = end.x - lead.pos.x, end.y - lead.pos.y
    return {m.id: Point(m.pos.x + dx, m.pos.y + dy) for m in alive_models(unit)}


def model_path(unit: Unit, model: Model, action: Move) -> list[g.Point]:
    """The waypoints a model's centre follows."""
    if action.positions:
        end = action.positions.get(model.id, model.pos)
        return [(end.x, end.y)]
    lead = alive_models(unit)[0]
    dx, dy = model.pos.x - lead.pos.x, model.pos.y - lead.pos.y
    return [(p.x + dx, p.y + dy) for p in action.path]


def path_length(model: Model, path: list[g.Point]) -> float:
    return g.path_length([(model.pos.x, model.pos.y), *path])


def sweep(unit: Unit, model: Model, action: Move) -> BaseGeometry:
    heading = action.heading if is_vehicle(unit) else None
    return g.swept_area(geom.footprint(model), model_path(unit, model, action), heading)


def validate_move_start(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    """hh3 Vehicles, Movement / hh3 core, Movement phase: every ``Move`` (a Battlesmith activation
    too) is made in the Movement phase by a unit that is not embarked."""
    rule = R_MOVE if is_vehicle(unit) else R_CORE_MOVE
    if state.phase != "movement":
        return reject("wrong_phase", rule, f"units move in the Movement phase, not {state.phase}")
    if unit.embarked_in is not None:
        return reject("embarked", rule, f"{unit.name} is embarked: disembark it instead")
    return None


def validate_move(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    """hh3 Vehicles, Movement to Driving through other units / hh3 core, Movement phase: a move or a
    Rush (a ``battlesmith`` Move goes to battlesmith.py, chosen by the edition's dispatch table)."""
    rule = R_MOVE if is_vehicle(unit) else R_CORE_MOVE
    if action.kind not in MOVE_KINDS:  # first: in any phase hh3 has no such move
        return reject("unsupported_move", rule, f"hh3 has no {action.kind} move")
    start = validate_move_start(state, unit, action)
    if start is not None:
        return start
    if unit.flag(F_MOVE_DONE):
        return reject("already_moved", rule, f"{unit.name} has already moved this phase")
    if statuses.is_pinned(unit):
        what = "Rush" if action.kind == "rush" else "move"
        return reject("pinned", "hh3 Statuses, Pinned", f"{unit.name} is Pinned: it cannot {what}")
    rush = action.kind == "rush"
    if rush and unit.flag(F_DISEMBARKED):
        return reject(
            "disembarked_no_rush",
            R_DISEMBARK_MOVE,
            f"{unit.name} disembarked this phase: it may make a normal move, not a Rush",
        )
    if rush and is_vehicle(unit) and not is_fast(unit):
        return reject("no_rush", R_RUSH, f"{unit.name} has no Fast (Rapid) sub-type: a vehicle cannot Rush")
    if rush and unit.flag(F_UNLOADED):
        # hh3 Vehicle Sub-Types, Rapid [ext]: a Rapid transport that Rushes may not let anyone disembark in
        # that turn, so one whose passengers already disembarked may not Rush.
        return reject(
            "transport_unloaded",
            R_RAPID,
            f"{unit.name} let its passengers disembark this turn: it cannot Rush",
        )
    if locked(state, unit):
        return reject("locked_in_combat", R_CORE_MOVE, f"{unit.name} is locked in combat")
    if not action.path and not action.positions:
        return reject("empty_path", rule, "a move needs a path or end positions")
    if action.positions and is_vehicle(unit):
        return reject("empty_path", rule, "a vehicle moves along a path")
    for model in alive_models(unit):
        penalty = terrain_penalty(state, unit, sweep(unit, model, action))
        limit = move_limit(unit, rush) - penalty
        length = path_length(model, model_path(unit, model, action))
        if length > limit + 1e-9:
            slowed = f" (difficult or dangerous terrain: -{penalty:g} in)" if penalty else ""
            return reject(
                "too_far",
                R_DIFFICULT if penalty else R_RUSH if rush else rule,
                f"{model.id} would move {length:.2f} in, {limit:g} in allowed{slowed}",
                distance=length,
                limit=limit,
            )
    if is_vehicle(unit):
        return _validate_vehicle_path(state, unit, action)
    return _validate_model_paths(state, unit, action)


def _vehicle_sweep_clear(state: MatchState, unit: Unit, swept: BaseGeometry) -> Rejection | None:
    """hh3 Vehicles, No climbing and Driving through other units: the area a vehicle covers moving
    or pivoting never crosses another vehicle (either side) or terrain that stops it (impassable, or
    above level 0)."""
    for other in units_on_table(state):
        if other.id == unit.id or not is_vehicle(other):
            continue
        if g.path_collisions(swept, {other.id: geom.footprint(vehicle_model(other))}):
            return reject("through_vehicle", R_DRIVE, f"{unit.name} cannot move through {other.name}")
    for piece in geom.terrain_pieces(state):
        if not g.overlaps(swept, piece.polygon()):
            continue
        if piece.level > 0:
            return reject(
                "no_climbing", R_CLIMB, f"{unit.name} cannot go up to level {piece.level} ({piece.id})"
            )
        if piece.has("impassable"):
            return reject("through_terrain", R_DRIVE, f"{unit.name} cannot move through {piece.id}")
    return None


def _validate_vehicle_path(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    model = vehicle_model(unit)
    blocked = _vehicle_sweep_clear(state, unit, sweep(unit, model, action))
    if blocked is not None:
        return blocked
    end = end_positions(unit, action)[model.id]
    heading = action.heading if action.heading is not None else model.heading
    return _check_end(state, unit, {model.id: geom.at(model, end, heading)}, R_DRIVE)


def _validate_model_paths(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    ends: dict[str, g.Footprint] = {}
    for model in alive_models(unit):
        swept = sweep(unit, model, action)
        for other in units_on_table(state):
            if other.side == unit.side and not is_vehicle(other):
                continue
            if g.path_collisions(swept, {f.id: geom.footprint(f) for f in alive_models(other)}):
                return reject("through_model", R_CORE_MOVE, f"{model.id} cannot move through {other.name}")
        for piece in geom.terrain_pieces(state):
            if piece.has("impassable") and g.overlaps(swept, piece.polygon()):
                return reject("through_terrain", R_CORE_MOVE, f"{model.id} cannot move through {piece.id}")
        ends[model.id] = geom.at(model, end_positions(unit, action)[model.id])
    if not g.coherent(list(ends.values()), COHERENCY):
        return reject("not_coherent", R_CORE_MOVE, f"{unit.name} must end in coherency ({COHERENCY:g} in)")
    return _check_end(state, unit, ends, R_CORE_MOVE)


def _check_end(state: MatchState, unit: Unit, ends: dict[str, g.Footprint], rule: str) -> Rejection | None:
    """Never end on a model or within 1" of an enemy; stay on the battlefield (hh3 Vehicles, Driving
    through other units)."""
    for mid, fp in ends.items():
        if not geom.inside_battlefield(state, fp):
            return reject("off_table", rule, f"{mid} would end off the battlefield")
        for other in units_on_table(state):
            if other.id == unit.id:
                continue
            for ofp in geom.unit_footprints(other):
                if g.overlaps(fp, ofp):
                    return reject("ends_on_model", rule, f"{mid} cannot end its move on {other.name}")
                if other.side != unit.side:
                    d = g.distance(fp, ofp)
                    if d <= ENEMY_GAP + g.EPS:
                        return reject(
                            "too_close_to_enemy",
                            rule,
                            f"{mid} would end {d:.2f} in from {other.name}, it must stay more than 1 in away",
                            distance=d,
                            limit=ENEMY_GAP,
                        )
    return None


def apply_move(state: MatchState, unit: Unit, action: Move, ctx: ApplyContext) -> MatchState:
    """hh3 Vehicles, Movement to Driving through other units: the unit moves (or Rushes); dangerous
    terrain and units driven through."""
    rush = action.kind == "rush"
    if is_vehicle(unit):
        # hh3 Transport sub-type, Embarking / Disembarking: who began the sub-phase by its doors.
        unit = transports.record_start_embarkers(state, unit)
    ends = end_positions(unit, action)
    sweeps = {m.id: sweep(unit, m, action) for m in alive_models(unit)}
    longest = max(path_length(m, model_path(unit, m, action)) for m in alive_models(unit))
    models = dict(unit.models)
    for mid, pos in ends.items():
        heading = (
            action.heading % 360 if action.heading is not None and is_vehicle(unit) else models[mid].heading
        )
        models[mid] = replace(models[mid], pos=pos, heading=heading)
    moved = replace(unit, models=models, moved=unit.moved + longest)
    for flag in (F_MOVE_DONE, F_MOVED, F_RUSHED) if rush else (F_MOVE_DONE, F_MOVED):
        moved = add_flag(moved, flag)
    what = "Rushes" if rush else "moves"
    ctx.log(
        f"{unit.name} {what} {longest:.1f} in.",
        R_RUSH if rush else R_MOVE if is_vehicle(unit) else R_CORE_MOVE,
    )
    state = replace_unit(state, moved)
    state = dangerous_terrain(state, unit.id, sweeps, ctx)
    if is_vehicle(unit):
        state = drive_through(state, unit.id, sweeps[vehicle_model(unit).id], ctx)
    return state


def dangerous_terrain(
    state: MatchState, uid: str, sweeps: dict[str, BaseGeometry], ctx: ApplyContext
) -> MatchState:
    """hh3 Vehicles, Dangerous terrain: one test (fails on a 1) per dangerous piece a model moved
    through or into [decided: per piece]; none for a Super-heavy vehicle (hh3 Vehicle Sub-Types,
    Super-heavy). Vehicle: 1 point of Damage, no penetration roll, save or mitigation. Other models
    [decided]: the model loses 1 wound, no save."""
    if terrain_unaffected(state.units[uid]):
        return state
    for mid, swept in sweeps.items():
        for piece in geom.terrain_pieces(state):
            unit = state.units[uid]
            if unit.destroyed or not unit.models[mid].alive:
                break
            if not piece.has("dangerous") or not g.overlaps(swept, piece.polygon()):
                continue
            die = ctx.roll(
                "dangerous terrain",
                f"fails on {DANGEROUS_FAILS_ON}",
                lambda v: "failed" if v <= DANGEROUS_FAILS_ON else "passed",
            )
            if die > DANGEROUS_FAILS_ON:
                ctx.log(f"{unit.name} passes its dangerous terrain test ({piece.id}).", R_DANGEROUS)
                continue
            if is_vehicle(unit):
                state = damage.lose_hp(state, uid, 1, ctx, f"dangerous terrain {piece.id}", R_DANGEROUS)
            else:
                state = damage.wound_model(state, uid, mid, 1, ctx, f"dangerous terrain {piece.id}")
    return state


def drive_through(state: MatchState, uid: str, swept: BaseGeometry, ctx: ApplyContext) -> MatchState:
    """hh3 Vehicles, Driving through other units [ext]: each enemy unit driven through takes D6 S6
    AP- hits after the move."""
    vehicle = state.units[uid]
    if vehicle.destroyed:
        return state
    source = (vehicle_model(vehicle).pos.x, vehicle_model(vehicle).pos.y)
    crossed = [
        u
        for u in units_on_table(state)
        if u.side != vehicle.side
        and not is_vehicle(u)
        and any(g.overlaps(swept, fp) for fp in geom.unit_footprints(u))
    ]
    for victim in crossed:
        count = ctx.roll("hits from being driven through", "D6")
        ctx.log(
            f"{vehicle.name} drives through {victim.name}: {count} S{DRIVE_THROUGH_STRENGTH} AP- hit{'' if count == 1 else 's'}.",
            R_DRIVE,
        )
        hits = [
            Hit(DRIVE_THROUGH_STRENGTH, None, 1, f"{vehicle.name} driving through", source, shooting=False)
            for _ in range(count)
        ]
        state = damage.resolve_hits(state, victim.id, hits, ctx)
    return state


def validate_pivot(state: MatchState, unit: Unit, action: Pivot) -> Rejection | None:
    if state.phase != "movement":
        return reject("wrong_phase", R_PIVOT, f"vehicles pivot in the Movement phase, not {state.phase}")
    if not is_vehicle(unit):
        return reject("not_a_vehicle", R_PIVOT, f"{unit.name} is not a vehicle")
    if unit.flag(F_MOVE_DONE):
        return reject(
            "already_moved", R_PIVOT, f"{unit.name} has already moved this phase: pivot instead of moving"
        )
    if statuses.is_pinned(unit):
        # [decided] the pivot replaces the vehicle's move, so Pinned forbids it too.
        return reject("pinned", "hh3 Statuses, Pinned", f"{unit.name} is Pinned: it cannot pivot")
    model = vehicle_model(unit)
    # The turn itself may not cross a vehicle or impassable terrain (hh3 Vehicles, Driving through
    # other units); non-vehicle models are no obstacle and take no hits, since a pivot is not a move
    # [decided].
    blocked = _vehicle_sweep_clear(state, unit, geom.pivot_sweep(model, action.heading))
    if blocked is not None:
        return blocked
    hull = geom.at(model, model.pos, action.heading % 360)
    return _check_end(state, unit, {model.id: hull}, R_PIVOT)


def apply_pivot(state: MatchState, unit: Unit, action: Pivot, ctx: ApplyContext) -> MatchState:
    # hh3 Transport sub-type, Embarking / Disembarking: the pivot turns the access facings away from
    # units that began the sub-phase by them; they may still embark.
    unit = transports.record_start_embarkers(state, unit)
    model = vehicle_model(unit)
    heading = action.heading % 360
    turned = replace(unit, models={model.id: replace(model, heading=heading)})
    ctx.log(f"{unit.name} pivots to {round(heading, 1):g} degrees (counts as Stationary).", R_PIVOT)
    return replace_unit(state, add_flag(turned, F_MOVE_DONE))


def heading_to(a: Point, b: Point) -> float:
    return math.degrees(math.atan2(b.y - a.y, b.x - a.x)) % 360
