"""40k11 Movement: normal moves, Advance, Fall Back, the charge move, 17.01 and 17.02.

Advance is two steps [decided], so validation always knows the allowance:
1. ``Move(kind="advance")`` with no path and no positions declares the Advance; the reducer rolls
   the Advance D6 and records it in the unit's turn flags (``advanced``, ``advance_roll=N``);
2. ``Move(kind="advance", path=...)`` then moves the unit up to M + N, validated like any move.
The charge move works the same way after a Charge action (charge.py): ``Move(kind="charge")``.

Models move along the path (the unit's first live model's centre follows the waypoints; the
others keep their offsets) or to explicit ``positions``; the distance moved is the length of the
centre's path. Hulls translate and then rotate to ``heading`` about their centre (17.02).
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace
from shapely.geometry.base import BaseGeometry

from ...match.actions import Move, Pivot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import replace_unit
from ..geometry import (
    Footprint,
    crossing_in_every_order,
    distance,
    inside_battlefield,
    normalize_heading,
    overlaps,
    path_collisions,
    path_terrain,
)
from ..geometry import path_length as geo_path_length
from .battleshock import desperate_escape
from .chargecontact import contact_refusal
from .constants import (
    ADVANCE_ROLL,
    ADVANCED,
    CHARGE_FAILED,
    CHARGE_ROLL,
    CHARGE_TARGET,
    CHARGED,
    CONSOLIDATE_DISTANCE,
    CONSOLIDATE_KIND,
    ENGAGEMENT_RANGE_HORIZONTAL,
    EPS,
    FELL_BACK,
    MOVE_THROUGH_KINDS,
    MOVED,
    OTHERS_MOVE_THROUGH_FRIENDLY,
    OWN_UNIT_MODELS_MOVE_ONE_AT_A_TIME,
    OWN_UNIT_OTHERS_MOVE_THROUGH_EACH_OTHER,
    PILE_IN_DISTANCE,
    PILE_IN_KIND,
    R_17_01,
    R_ADVANCE,
    R_CHARGE,
    R_CONSOLIDATE,
    R_ENGAGEMENT,
    R_FALL_BACK,
    R_MOVE,
    R_PILE_IN,
)
from .space import extent, footprint, geo_terrain, is_engaged, move_sweep, parts
from .units import flag_int, flag_value, is_monster_vehicle, live_models, on_table, with_flags

Pt = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Route:
    """One model's move: where it goes through, how far, and its final heading."""

    model: Model
    waypoints: tuple[Pt, ...]
    length: float
    heading: float

    @property
    def end(self) -> Pt:
        return self.waypoints[-1] if self.waypoints else (self.model.pos.x, self.model.pos.y)


# The kinds of move 40k11 has in its Movement phase; a "charge" move is the Charge phase's.
MOVE_KINDS = ("normal", "advance", "fall_back")


def _rule(kind: str) -> str:
    return {
        "advance": R_ADVANCE,
        "fall_back": R_FALL_BACK,
        "charge": R_CHARGE,
        PILE_IN_KIND: R_PILE_IN,
        CONSOLIDATE_KIND: R_CONSOLIDATE,
    }.get(kind, R_MOVE)


def is_advance_declaration(action: Move) -> bool:
    """Step 1 of an Advance: no path, no positions, no heading."""
    return action.kind == "advance" and not action.path and not action.positions and action.heading is None


def routes(unit: Unit, action: Move) -> list[Route] | Rejection:
    """Every live model's route for a move (pure)."""
    if action.path and action.positions:
        return reject("path_or_positions", _rule(action.kind), "give either a path or positions, not both")
    models = list(live_models(unit))
    for mid in action.positions:
        if mid not in unit.models or not unit.models[mid].alive:
            return reject("unknown_model", _rule(action.kind), f"{unit.name} has no live model {mid!r}")
    lead = models[0]
    out: list[Route] = []
    for m in models:
        start = (m.pos.x, m.pos.y)
        if action.positions:
            p = action.positions.get(m.id)
            waypoints: tuple[Pt, ...] = ((p.x, p.y),) if p is not None else ()
        else:
            dx, dy = m.pos.x - lead.pos.x, m.pos.y - lead.pos.y
            waypoints = tuple((p.x + dx, p.y + dy) for p in action.path)
        heading = normalize_heading(action.heading) if action.heading is not None else m.heading
        out.append(Route(m, waypoints, geo_path_length([start, *waypoints]), heading))
    return out


def allowance(unit: Unit, kind: str) -> float:
    """How far the unit may move with this kind of move."""
    if kind in ("normal", "fall_back"):
        return unit.profile.m
    if kind == "advance":
        roll = flag_int(unit, ADVANCE_ROLL)
        return unit.profile.m + (roll or 0)
    # 40k11 core rules [ext], Pile In and Consolidate: up to 3" (constants.py).
    if kind == PILE_IN_KIND:
        return PILE_IN_DISTANCE
    if kind == CONSOLIDATE_KIND:
        return CONSOLIDATE_DISTANCE
    roll = flag_int(unit, CHARGE_ROLL)
    return float(roll or 0)


def validate_move(state: MatchState, action: Move) -> Rejection | None:
    unit = state.units[action.unit]
    rule = _rule(action.kind)
    if not on_table(unit):
        return reject("not_on_table", rule, f"{unit.name} is not on the battlefield")
    if action.advance_roll is not None:
        return reject(
            "advance_roll_supplied",
            R_ADVANCE,
            "the Advance roll is made by the server, not sent with the move",
        )
    problem = _eligibility(state, unit, action)
    if problem is not None:
        return problem
    if is_advance_declaration(action):
        return None
    if not action.path and not action.positions and action.heading is None:
        return reject("empty_move", rule, "a move needs a path, positions or a new heading")
    if action.kind in ("fall_back", "charge") and not action.path and not action.positions:
        return reject("empty_move", rule, f"a {action.kind.replace('_', ' ')} move needs a path or positions")
    planned = routes(unit, action)
    if isinstance(planned, Rejection):
        return planned
    return check_routes(state, unit, action.kind, planned)


def _eligibility(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    """Phase, flags and engagement before any geometry (40k11 core, Movement phase)."""
    kind = action.kind
    rule = _rule(kind)
    if kind == "charge":
        if state.phase != "charge":
            return reject(
                "wrong_phase", R_CHARGE, f"charge moves happen in the Charge phase, not {state.phase}"
            )
        if flag_int(unit, CHARGE_ROLL) is None:
            return reject("no_charge", R_CHARGE, f"{unit.name} has not declared a charge")
        if unit.flag(CHARGE_FAILED):
            return reject("charge_failed", R_CHARGE, f"{unit.name}'s charge roll was too short")
        if unit.flag(CHARGED):
            return reject("already_charged", R_CHARGE, f"{unit.name} has already made its charge move")
        if action.target is not None and action.target != flag_value(unit, CHARGE_TARGET):
            return reject("wrong_target", R_CHARGE, f"{unit.name} declared a charge at another unit")
        return None
    if kind not in MOVE_KINDS:
        return reject("unsupported_move", rule, f"{kind} is not a 40k11 move")
    if state.phase != "movement":
        return reject("wrong_phase", rule, f"units move in the Movement phase, not {state.phase}")
    if unit.flag(MOVED):
        return reject("already_moved", rule, f"{unit.name} has already moved this phase")
    engaged = is_engaged(state, unit)
    if kind == "fall_back":
        if not engaged:
            return reject(
                "not_engaged", R_FALL_BACK, f"{unit.name} is not engaged: it has nothing to fall back from"
            )
        return None
    if engaged:
        return reject(
            "engaged_must_fall_back",
            R_ENGAGEMENT,
            f"{unit.name} is engaged: it may only Fall Back or stay where it is",
        )
    advanced = unit.flag(ADVANCED)
    if kind == "normal" and advanced:
        return reject(
            "already_advanced", R_ADVANCE, f"{unit.name} has declared an Advance: move it with kind=advance"
        )
    if kind == "advance" and is_advance_declaration(action) and advanced:
        return reject("already_advanced", R_ADVANCE, f"{unit.name} has already rolled its Advance")
    if kind == "advance" and not is_advance_declaration(action) and not advanced:
        return reject(
            "advance_not_declared",
            R_ADVANCE,
            f"declare the Advance first (a Move kind=advance without a path) to roll the Advance dice; "
            f"then move {unit.name}",
        )
    return None


def check_routes(
    state: MatchState,
    unit: Unit,
    kind: str,
    planned: list[Route],
    where_possible: bool = True,
    in_fight: frozenset[str] = frozenset(),
) -> Rejection | None:
    """Distance, battlefield edge, models and terrain in the way, and where the models end; a
    charge move also ends in base contact where possible (``where_possible``, chargecontact.py).
    ``in_fight``: the enemy units a Pile In or Consolidation may end within Engagement Range of
    (40k11 core rules [ext], Pile In, Consolidate; pilein.py)."""
    rule = _rule(kind)
    limit = allowance(unit, kind)
    longest = max((r.length for r in planned), default=0.0)
    if longest > limit + EPS:
        return reject(
            "too_far", rule, f"move of {longest:.2f} in > {limit:g} in allowed", distance=longest, limit=limit
        )
    bf = state.battlefield
    ends = {r.model.id: footprint(unit, r.model, r.end, r.heading) for r in planned}
    for mid, fp in ends.items():
        if not inside_battlefield(fp, bf.width, bf.height):
            return reject("off_table", rule, f"model {mid} would end off the battlefield")
    mover_mv = is_monster_vehicle(unit)
    others = [(u, m) for u in state.units.values() if u.id != unit.id and on_table(u) for m in live_models(u)]
    terrain = geo_terrain(state.terrain)
    obstacles = {m.id: footprint(u, m) for u, m in others}
    owners = {m.id: u for u, m in others}
    sweeps: dict[str, BaseGeometry] = {}
    for r in planned:
        sweep = sweeps[r.model.id] = move_sweep(footprint(unit, r.model), r.waypoints, r.heading)
        for hit in path_collisions(sweep, obstacles):
            problem = _through(unit, mover_mv, kind, r.model, owners[hit], hit)
            if problem is not None:
                return problem
        for piece in path_terrain(sweep, terrain):
            if piece.has("impassable"):
                return reject(
                    "impassable", rule, f"model {r.model.id} would cross impassable terrain {piece.id}"
                )
        if kind in MOVE_THROUGH_KINDS and not mover_mv:
            problem = _passes_engagement(unit, r.model, sweep, others)
            if problem is not None:
                return problem
    problem = _through_own_models(unit, mover_mv, kind, sweeps, ends)
    if problem is not None:
        return problem
    problem = _check_ends(state, unit, kind, planned, ends, others, in_fight)
    if problem is not None or kind != "charge" or not where_possible:
        return problem

    def verify(mid: str, spot: Point) -> bool:
        moved = [_straight(r, spot) if r.model.id == mid else r for r in planned]
        return check_routes(state, unit, kind, moved, where_possible=False) is None

    # 17.02 FRAME: a charging model's base contact is measured from the whole model (``parts``).
    whole = {r.model.id: parts(unit, r.model, r.end, r.heading) for r in planned}
    return contact_refusal(state, unit, limit, ends, verify, whole)


def _straight(route: Route, spot: Point) -> Route:
    """``route``'s model moved straight to ``spot`` instead."""
    start = (route.model.pos.x, route.model.pos.y)
    return Route(route.model, ((spot.x, spot.y),), geo_path_length([start, (spot.x, spot.y)]), route.heading)


def _through_own_models(
    unit: Unit, mover_mv: bool, kind: str, sweeps: dict[str, BaseGeometry], ends: dict[str, Footprint]
) -> Rejection | None:
    """40k11 17.01: MONSTER/VEHICLE models never move through other MONSTER/VEHICLE models, those
    of their own unit included; other models move through no models at all without 17.01's
    permission (OTHERS_MOVE_THROUGH_FRIENDLY [decided]), those of their own unit included too
    (OWN_UNIT_OTHERS_MOVE_THROUGH_EACH_OTHER [decided]). The models move one at a time
    (OWN_UNIT_MODELS_MOVE_ONE_AT_A_TIME): a path crossing where a fellow stood needs that one moved
    first, a path crossing where it ends needs that one moved later; refused when no order of
    moving them meets every such need (a fellow that does not move is in the way both ways)."""
    if not mover_mv:
        friendly_passage = OTHERS_MOVE_THROUGH_FRIENDLY and kind in MOVE_THROUGH_KINDS
        if OWN_UNIT_OTHERS_MOVE_THROUGH_EACH_OTHER or friendly_passage:
            return None
    starts = {m.id: footprint(unit, m) for m in live_models(unit)}
    found = crossing_in_every_order(sweeps, starts, ends, OWN_UNIT_MODELS_MOVE_ONE_AT_A_TIME)
    if found is None:
        return None
    return _own_refusal(unit, *found) if mover_mv else _own_others_refusal(unit, kind, *found)


def _own_others_refusal(unit: Unit, kind: str, model: str, obstacle: str) -> Rejection:
    return reject(
        "move_through_model",
        R_17_01,
        f"{model} cannot move through {obstacle} of its own unit {unit.name}: only MONSTER/VEHICLE "
        "models may move through models (on normal and Advance moves), and no order of moving the "
        "unit's models one at a time keeps their paths clear of each other",
        model=model,
        obstacle=obstacle,
        kind=kind,
    )


def _own_refusal(unit: Unit, model: str, obstacle: str) -> Rejection:
    return reject(
        "through_monster_vehicle",
        R_17_01,
        f"{model} cannot move through {obstacle} of its own unit {unit.name}: MONSTER/VEHICLE models "
        "never move through other MONSTER/VEHICLE models, and no order of moving the unit's models "
        "one at a time keeps their paths clear of each other",
        model=model,
        obstacle=obstacle,
    )


def _through(unit: Unit, mover_mv: bool, kind: str, model: Model, owner: Unit, hit: str) -> Rejection | None:
    """40k11 17.01: on a normal or Advance move, MONSTER/VEHICLE models may move through friendly
    and enemy models, but not through other MONSTER/VEHICLE models. No other permission [decided]."""
    if mover_mv and kind in MOVE_THROUGH_KINDS:
        if is_monster_vehicle(owner):
            return reject(
                "through_monster_vehicle",
                R_17_01,
                f"{model.id} cannot move through {hit} of {owner.name}: MONSTER/VEHICLE models never "
                "move through other MONSTER/VEHICLE models",
                model=model.id,
                obstacle=hit,
            )
        return None
    if (
        not mover_mv
        and OTHERS_MOVE_THROUGH_FRIENDLY
        and owner.side == unit.side
        and kind in MOVE_THROUGH_KINDS
    ):
        return None
    why = (
        f"a {kind.replace('_', ' ')} move gives no permission to move through models"
        if mover_mv
        else "only MONSTER/VEHICLE models may move through models (on normal and Advance moves)"
    )
    return reject(
        "move_through_model",
        R_17_01,
        f"{model.id} cannot move through {hit} of {owner.name}: {why}",
        model=model.id,
        obstacle=hit,
        kind=kind,
    )


def _passes_engagement(
    unit: Unit, model: Model, sweep: BaseGeometry, others: list[tuple[Unit, Model]]
) -> Rejection | None:
    """Normal and Advance moves may not pass within Engagement Range of enemy models [ext]; a
    MONSTER/VEHICLE model moving through enemy models (17.01) is exempt."""
    for u, m in others:
        if u.side == unit.side:
            continue
        gap = distance(sweep, extent(u, m))
        if gap <= ENGAGEMENT_RANGE_HORIZONTAL + EPS:
            return reject(
                "passes_engagement",
                R_ENGAGEMENT,
                f"{model.id} would pass {gap:.2f} in from enemy model {m.id} "
                f"(Engagement Range {ENGAGEMENT_RANGE_HORIZONTAL:g} in)",
                distance=gap,
            )
    return None


def _check_ends(
    state: MatchState,
    unit: Unit,
    kind: str,
    planned: list[Route],
    ends: dict[str, Footprint],
    others: list[tuple[Unit, Model]],
    in_fight: frozenset[str] = frozenset(),
) -> Rejection | None:
    """No model ends on another; none ends within Engagement Range of an enemy unit, but a charge
    move's target (which it must reach) and a Pile In's or Consolidation's units ``in_fight``
    (40k11 core, Charge [ext]; 40k11 core rules [ext], Pile In, Consolidate [decided])."""
    rule = _rule(kind)
    placed = list(ends.items())
    for i, (mid, fp) in enumerate(placed):
        for u, m in others:
            if overlaps(fp, footprint(u, m)):
                return reject("end_on_model", rule, f"model {mid} would end on top of {m.id}", model=mid)
        for other_id, other_fp in placed[i + 1 :]:
            if overlaps(fp, other_fp):
                return reject("end_on_model", rule, f"model {mid} would end on top of {other_id}", model=mid)
    target = flag_value(unit, CHARGE_TARGET) if kind == "charge" else None
    reached = False
    # 17.02 FRAME: Engagement Range is measured to and from the whole model.
    reach = {r.model.id: extent(unit, r.model, r.end, r.heading) for r in planned}
    for mid in ends:
        for u, m in others:
            if u.side == unit.side:
                continue
            gap = distance(reach[mid], extent(u, m))
            if gap > ENGAGEMENT_RANGE_HORIZONTAL + EPS:
                continue
            if kind == "charge" and u.id == target:
                reached = True
                continue
            if u.id in in_fight:
                continue
            code = "charge_other_enemy" if kind == "charge" else "ends_in_engagement"
            return reject(
                code,
                rule,
                f"model {mid} would end {gap:.2f} in from enemy model {m.id} of {u.name} "
                f"(Engagement Range {ENGAGEMENT_RANGE_HORIZONTAL:g} in)",
                distance=gap,
                model=mid,
            )
    if kind == "charge" and not reached:
        return reject(
            "charge_not_reached",
            R_CHARGE,
            f"no model of {unit.name} would end within Engagement Range of {target}",
            target=target,
        )
    return None


def apply_move(state: MatchState, action: Move, ctx: ApplyContext) -> MatchState:
    """Move the models (total: anything validation refused leaves the state as it is)."""
    unit = state.units[action.unit]
    if is_advance_declaration(action):
        roll = ctx.roll("advance", f"M{unit.profile.m:g} + D6")
        ctx.log(
            f"{unit.name} Advances: rolls {roll}, may move up to {unit.profile.m + roll:g} in.", R_ADVANCE
        )
        return replace_unit(state, with_flags(unit, ADVANCED, f"{ADVANCE_ROLL}={roll}"))
    planned = routes(unit, action)
    if isinstance(planned, Rejection):
        return state
    if action.kind == "fall_back":
        # 40k11 core rules [ext], Battle-shock, Desperate Escape: before the models move.
        unit = desperate_escape(unit, ctx)
        if unit.destroyed:
            return replace_unit(state, unit)
        # A model destroyed by its test does not move.
        planned = [r for r in planned if unit.models[r.model.id].alive]
    models = dict(unit.models)
    for r in planned:
        x, y = r.end
        models[r.model.id] = replace(r.model, pos=Point(x, y), heading=r.heading)
    longest = max((r.length for r in planned), default=0.0)
    moved = replace(unit, models=models, moved=unit.moved + longest)
    if action.kind == "charge":
        moved = with_flags(moved, CHARGED)
        target = state.units.get(flag_value(unit, CHARGE_TARGET) or "")
        name = target.name if target is not None else "its target"
        ctx.log(f"{unit.name} charges {longest:.1f} in into {name}.", R_CHARGE)
        return replace_unit(state, moved)
    moved = with_flags(moved, MOVED, *((FELL_BACK,) if action.kind == "fall_back" else ()))
    verb = {"normal": "moves", "advance": "Advances", "fall_back": "Falls Back"}.get(action.kind, "moves")
    ctx.log(f"{unit.name} {verb} {longest:.1f} in.", _rule(action.kind))
    return replace_unit(state, moved)


def pivot_as_move(action: Pivot) -> Move:
    """A Pivot is a normal move of 0" that only turns the models about their centre (17.02)."""
    return Move(unit=action.unit, heading=action.heading, kind="normal")


def charge_reaches(state: MatchState, unit: Unit, target: Unit, roll: int) -> bool:
    """Could any model end within Engagement Range of the target by moving ``roll`` inches
    straight? (40k11 core, Charge phase; a quick test for an obviously failed charge.)"""
    gaps = [
        distance(extent(unit, m), extent(target, t)) for m in live_models(unit) for t in live_models(target)
    ]
    return bool(gaps) and min(gaps) - ENGAGEMENT_RANGE_HORIZONTAL <= roll + EPS
