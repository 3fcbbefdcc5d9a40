"""The Movement phase (and Run / Flat Out in the Shooting phase) for 40k7 units.

40k7 Vehicles, Movement to Flat Out; types: vehicles move up to 12" (Combat Speed up to 6", Cruising up
to 12"; Heavy never faster than Combat Speed); pivots are free and do not count as moving;
Immobilised and Crew Stunned vehicles neither move nor pivot; vehicles never move over other
models (Skimmers and Zooming Flyers fly over models and terrain but may not end on models);
difficult terrain (and wrecks) is dangerous terrain for vehicles - one test per move, failed on a
1: lose 1 HP and suffer Immobilised (a Walker is Immobilised only [decided]); Skimmers test only
when they start or end in difficult terrain; Zooming Flyers move 18"-36" straight ahead after at
most one 90 degree pivot. Infantry and Walkers move 6"; through difficult terrain the distance is
2D6 pick the highest (the move is cut short at the roll [decided]); a Run is D6" (cut short at the
roll). Models never end within 1" of an enemy model; unit coherency is 2" (4" for squadrons).
"""

from __future__ import annotations

import itertools
import math

from msgspec.structs import replace

from ...match.actions import Move, Pivot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Unit
from ...match.turns import replace_unit, with_flag
from .. import geometry as g
from . import refs
from .dangerous import dangerous_for_vehicle, dangerous_test
from .firing import locked_in_combat
from .geo import alive, all_terrain, coherency_gap, footprint, on_table, turned_in_place
from .moves import ModelMove, model_moves, truncate
from .pivot import contact_enemies, place_back, validate_pivot_end
from .speed import COMBAT_SPEED, CRUISING_SPEED, DEEP_STRUCK, FLYER_CRUISING_SPEED, FLYER_MIN_MOVE, speed_of
from .status import flag_unit, set_status
from .types import is_fast, is_heavy, is_skimmer, is_super_heavy, is_tank, is_vehicle, is_walker, is_zooming
from .wording import degrees

INFANTRY_MOVE = 6.0
# 40k7 Super-heavy Walkers: 12" a Movement phase; through difficult terrain the highest die is
# doubled, rolled with Move Through Cover's extra die: 3D6 [decided: Move Through Cover applies].
SUPER_HEAVY_WALKER_MOVE = 12.0
SHW_TERRAIN_DICE = 3
SHW_TERRAIN_FACTOR = 2
RUN_MAX = 6.0  # a Run is D6"
FLAT_OUT = 6.0
FAST_FLAT_OUT = 12.0
FAST_SKIMMER_FLAT_OUT = 18.0
FLYER_FLAT_OUT = (12.0, 24.0)
FLYER_PIVOT_MAX = 90.0
ENEMY_GAP = 1.0
INFANTRY_COHERENCY = 2.0
SQUADRON_COHERENCY = 4.0
STRAIGHT_TOLERANCE_DEG = 1.0


def _r(code: str, rule: str, msg: str, **v: float | int | str | bool | None) -> Rejection:
    return reject(code, rule, msg, **v)


def common_checks(state: MatchState, unit: Unit) -> Rejection | None:
    """Checks every voluntary move shares (also used by Tank Shock and Ram)."""
    return _common_checks(state, unit, "normal")


def move_limit(unit: Unit, kind: str) -> float:
    """Maximum distance of a move of this kind for this unit."""
    if kind == "flat_out":
        if is_zooming(unit):
            return FLYER_FLAT_OUT[1]
        if is_fast(unit) and is_skimmer(unit):
            return FAST_SKIMMER_FLAT_OUT
        return FAST_FLAT_OUT if is_fast(unit) else FLAT_OUT
    if kind == "run":
        return RUN_MAX
    if unit.flag("regrouped"):
        return 3.0
    if is_walker(unit) and is_super_heavy(unit):
        return SUPER_HEAVY_WALKER_MOVE  # 40k7 Super-heavy Walkers: 12" in the Movement phase
    if is_walker(unit) or not is_vehicle(unit):
        return unit.profile.m if (unit.profile.m and not is_vehicle(unit)) else INFANTRY_MOVE
    if is_zooming(unit):
        return FLYER_CRUISING_SPEED
    if is_heavy(unit):
        return COMBAT_SPEED
    return CRUISING_SPEED


def _heading_of(a: g.Point, b: g.Point) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360


def _turn(a: float, b: float) -> float:
    return abs((b - a + 180) % 360 - 180)


def _moving_units(state: MatchState, moves: list[ModelMove]) -> list[Unit]:
    return [state.units[uid] for uid in dict.fromkeys(m.unit for m in moves)]


def validate_pivot(state: MatchState, action: Pivot) -> Rejection | None:
    """40k7 Vehicles: pivots about the centre, never when Immobilised (or Crew Stunned)."""
    unit = state.units[action.unit]
    if state.phase != "movement":
        return _r(
            "wrong_phase", refs.MOVEMENT, f"pivots happen in the Movement phase, not the {state.phase} phase"
        )
    if not is_vehicle(unit) or (all(m.hull is None for m in alive(unit)) and not is_walker(unit)):
        return _r("not_a_vehicle", refs.MOVEMENT, f"{unit.name} is not a vehicle: only vehicles pivot")
    if unit.embarked_in is not None or not on_table(unit):
        return _r("not_on_table", refs.MOVEMENT, f"{unit.name} is not on the battlefield")
    if "immobilised" in unit.statuses:
        return _r("immobilised", refs.MOVEMENT, f"{unit.name} is Immobilised: it cannot even pivot")
    if "stunned" in unit.statuses and not is_super_heavy(unit):
        return _r(
            "stunned",
            refs.DAMAGE_TABLE,
            f"{unit.name} is Crew Stunned: no move or pivot until the end of its next turn",
        )
    if unit.flag("moved"):
        return _r(
            "already_moved",
            refs.MOVEMENT,
            f"{unit.name} has already moved this phase (set its final heading with the move)",
        )
    if is_zooming(unit):
        if unit.flag("pivoted"):
            return _r(
                "flyer_one_pivot", refs.FLYER, f"{unit.name} is Zooming: a single pivot before it moves"
            )
        turn = _turn(alive(unit)[0].heading, action.heading)
        if turn > FLYER_PIVOT_MAX + 1e-9:
            return _r(
                "flyer_pivot_too_far",
                refs.FLYER,
                f"a Zooming Flyer pivots at most 90 degrees, not {turn:.0f}",
                turn=turn,
                limit=FLYER_PIVOT_MAX,
            )
    return validate_pivot_end(state, unit, action.heading)


def apply_pivot(state: MatchState, action: Pivot, ctx: ApplyContext) -> MatchState:
    """40k7 Vehicles, Movement: the vehicle pivots on the spot about its centre (it counts as
    Stationary); enemy models in base contact before are placed back (pivot.place_back)."""
    unit = state.units[action.unit]
    in_contact_before = contact_enemies(state, unit)
    heading = action.heading % 360
    models = {mid: replace(m, heading=heading) if m.alive else m for mid, m in unit.models.items()}
    turned_in_place(unit, models)
    ctx.log(
        f"{unit.name} pivots to {degrees(heading)} (counts as Stationary).", refs.MOVEMENT, heading=heading
    )
    # Flagged in the same copy of the unit: placing enemy models back reads only its hull.
    state = replace_unit(
        state, replace(unit, models=models, turn_flags=with_flag(unit.turn_flags, "pivoted"))
    )
    return place_back(state, ctx, unit.id, in_contact_before)


def _common_checks(state: MatchState, unit: Unit, kind: str) -> Rejection | None:
    if unit.embarked_in is not None or not on_table(unit):
        return _r("not_on_table", refs.MOVEMENT, f"{unit.name} is not on the battlefield")
    if "immobilised" in unit.statuses and is_vehicle(unit):
        return _r("immobilised", refs.MOVEMENT, f"{unit.name} is Immobilised and cannot move")
    if "stunned" in unit.statuses and is_vehicle(unit) and not is_zooming(unit) and not is_super_heavy(unit):
        return _r(
            "stunned",
            refs.DAMAGE_TABLE,
            f"{unit.name} is Crew Stunned: it cannot move until the end of its next turn",
        )
    if "falling_back" in unit.statuses:
        return _r(
            "falling_back", refs.FALL_BACK, f"{unit.name} is Falling Back: it moves only by falling back"
        )
    if "pinned" in unit.statuses:
        return _r("pinned", refs.PINNING, f"{unit.name} has Gone to Ground (Pinned): no move, Run or charge")
    if locked_in_combat(state, unit):
        return _r("locked_in_combat", refs.FIGHT, f"{unit.name} is locked in close combat and cannot move")
    if unit.flag("emergency"):
        return _r(
            "emergency_disembark",
            refs.TRANSPORT,
            f"{unit.name} made an emergency disembarkation: no voluntary action this turn",
        )
    if kind == "normal" and unit.flag(DEEP_STRUCK):
        # 40k7 Deep Strike: "In the Movement phase during which they arrive, Deep Striking units may
        # not move any further"; Run and Flat Out in the Shooting phase stay allowed, and so does a
        # pivot, which is not moving (40k7 Vehicles, Movement).
        return _r(
            "deep_struck",
            refs.DEEP_STRIKE,
            f"{unit.name} arrived by Deep Strike this turn: it may not move any further in this Movement phase",
        )
    return None


def validate_move(state: MatchState, action: Move) -> Rejection | None:
    """Normal moves (Movement phase), Run and Flat Out (Shooting phase)."""
    unit = state.units[action.unit]
    kind = action.kind
    if kind in ("normal",) and state.phase != "movement":
        return _r(
            "wrong_phase", refs.MOVEMENT, f"units move in the Movement phase, not the {state.phase} phase"
        )
    if kind in ("run", "flat_out") and state.phase != "shooting":
        rule = refs.RUN if kind == "run" else refs.FLAT_OUT
        return _r(
            "wrong_phase",
            rule,
            f"a {kind.replace('_', ' ')} move is made in the Shooting phase, not the {state.phase} phase",
        )
    bad = _unit_checks(state, unit, kind)
    if bad is not None:
        return bad
    moves = model_moves(state, unit, action)
    if isinstance(moves, str):
        return _r("bad_move", refs.MOVEMENT, moves)
    for other in _moving_units(state, moves):
        # 40k7 Vehicle Squadrons: every vehicle moved by the action makes that kind of move.
        bad = _unit_checks(state, other, kind) if other.id != unit.id else None
        if bad is not None:
            return bad
    return _validate_geometry(state, unit, moves, kind)


def _unit_checks(state: MatchState, unit: Unit, kind: str) -> Rejection | None:
    """May this unit make a move of this kind now (40k7 Vehicles, Movement; Run; Flat Out)?"""
    bad = _common_checks(state, unit, kind)
    if bad is not None:
        return bad
    if kind == "normal":
        if unit.flag("moved") or unit.flag("disembarked"):
            return _r("already_moved", refs.MOVEMENT, f"{unit.name} has already moved this phase")
    elif kind == "run":
        if is_vehicle(unit) and not is_walker(unit):
            return _r(
                "cannot_run", refs.RUN, f"{unit.name} is a vehicle: vehicles move Flat Out instead of Running"
            )
        if is_walker(unit) and "stunned" in unit.statuses:
            return _r("stunned", refs.WALKER, f"{unit.name} is Crew Stunned: Walkers cannot Run")
        if unit.flag("shot") or unit.flag("ran"):
            return _r("already_shot", refs.RUN, f"{unit.name} has already shot or Run this phase")
        if unit.flag("regrouped"):
            return _r("regrouped", refs.REGROUP, f"{unit.name} Regrouped this turn: it cannot Run")
    else:  # flat out
        if not is_vehicle(unit) or is_walker(unit):
            return _r(
                "cannot_flat_out",
                refs.FLAT_OUT,
                f"{unit.name} is not a vehicle that can move Flat Out (Walkers Run)",
            )
        if is_heavy(unit):
            return _r(
                "heavy_no_flat_out", refs.HEAVY, f"{unit.name} is a Heavy vehicle: it never moves Flat Out"
            )
        if unit.flag("shot") or unit.flag("flat_out"):
            return _r(
                "already_shot", refs.FLAT_OUT, f"{unit.name} has already shot or moved Flat Out this phase"
            )
        if unit.flag("tank_shock") or unit.flag("rammed"):
            return _r(
                "tank_shocked",
                refs.TANK_SHOCK,
                f"{unit.name} made a Tank Shock or Ram this turn: no Flat Out",
            )
        if unit.flag("passengers_fired"):
            return _r(
                "passengers_fired",
                refs.TRANSPORT,
                f"passengers fired out of {unit.name}: it cannot move Flat Out",
            )
    return None


def _validate_geometry(state: MatchState, unit: Unit, moves: list[ModelMove], kind: str) -> Rejection | None:
    limit = move_limit(unit, kind)
    rule = refs.FLAT_OUT if kind == "flat_out" else refs.RUN if kind == "run" else refs.MOVEMENT
    zoom = is_zooming(unit)
    for mv in moves:
        if mv.length > limit + 1e-9:
            return _r(
                "too_far",
                rule,
                f"{mv.model.id} would move {mv.length:.2f} in > {limit:g} in allowed",
                distance=mv.length,
                limit=limit,
            )
        if zoom:
            bad = _validate_zoom(unit, mv, kind)
            if bad is not None:
                return bad
    bf = state.battlefield
    moving_ids = {mv.unit for mv in moves}
    flies = is_skimmer(unit) or zoom
    # Everyone not moved by this action is in the way: the squadron's other vehicles too
    # (they were passed over: a vehicle drove through, and ended on, a squadron-mate).
    others = [
        (u, m) for u in state.units.values() if u.id not in moving_ids and on_table(u) for m in alive(u)
    ]
    if len(moving_ids) > 1 and not zoom:
        mates = _squadron_in_its_own_way(moves, flies, rule)
        if mates is not None:
            return mates
    impassable = [p for p in all_terrain(state) if p.has("impassable")]
    for mv in moves:
        end_fp = mv.end_footprint()
        if not g.inside_battlefield(end_fp, bf.width, bf.height):
            if zoom:
                continue  # leaves combat airspace (Ongoing Reserves)
            return _r(
                "off_table",
                rule,
                f"{mv.model.id} would end at ({mv.end[0]:.1f}, {mv.end[1]:.1f}), off the "
                f"{bf.width:g} x {bf.height:g} in battlefield",
                x=mv.end[0],
                y=mv.end[1],
                width=bf.width,
                height=bf.height,
            )
        swept = mv.swept()
        if not flies:
            hit = [m.id for _, m in others if g.overlaps(swept, footprint(m))]
            if hit:
                return _r(
                    "path_blocked",
                    rule,
                    f"{mv.model.id} cannot move through model {hit[0]} (vehicles and infantry never move over other models)",
                    model=hit[0],
                )
            blocked = [p.id for p in impassable if g.overlaps(swept, p.polygon())]
            if blocked:
                return _r(
                    "impassable",
                    refs.DIFFICULT,
                    f"{mv.model.id} cannot move through impassable terrain {blocked[0]}",
                    terrain=blocked[0],
                )
        elif not zoom:
            on = [m.id for _, m in others if g.overlaps(end_fp, footprint(m))]
            if on:
                return _r(
                    "ends_on_model",
                    refs.SKIMMER,
                    f"a Skimmer may fly over models but not end on them ({on[0]})",
                    model=on[0],
                )
        if not zoom:
            close = [
                (m.id, g.distance(end_fp, footprint(m)))
                for u, m in others
                if u.side != unit.side and g.distance(end_fp, footprint(m)) < ENEMY_GAP - 1e-9
            ]
            if close:
                mid, d = close[0]
                return _r(
                    "too_close_to_enemy",
                    refs.INF_MOVE,
                    f"{mv.model.id} would end {d:.2f} in from enemy model {mid} (at least 1 in)",
                    distance=d,
                    model=mid,
                )
    return _check_coherency(state, unit, moves)


def _validate_zoom(unit: Unit, mv: ModelMove, kind: str) -> Rejection | None:
    """40k7 Flyers, Zoom: at least 18" (Flat Out 12"-24"), straight ahead after the pivot."""
    low = FLYER_FLAT_OUT[0] if kind == "flat_out" else FLYER_MIN_MOVE
    if "stunned" in unit.statuses and kind == "normal":
        low = FLYER_MIN_MOVE
    if mv.length < low - 1e-9:
        return _r(
            "flyer_too_slow",
            refs.FLYER,
            f"a Zooming Flyer must move at least {low:g} in, not {mv.length:.1f}",
            distance=mv.length,
            minimum=low,
        )
    if "stunned" in unit.statuses and mv.length > FLYER_MIN_MOVE + 1e-9 and kind == "normal":
        return _r(
            "flyer_stunned",
            refs.FLYER,
            f"{unit.name} is Crew Stunned: it must move exactly {FLYER_MIN_MOVE:g} in straight ahead, "
            f"not {mv.length:.1f} in",
            distance=mv.length,
            limit=FLYER_MIN_MOVE,
        )
    start = mv.model.heading
    if abs(mv.heading - start) > 1e-9 and _turn(start, mv.heading) > 1e-9:
        if unit.flag("pivoted") or kind != "normal" or "stunned" in unit.statuses:
            return _r("flyer_one_pivot", refs.FLYER, "a Zooming Flyer makes a single pivot, before it moves")
        turn = _turn(start, mv.heading)
        if turn > FLYER_PIVOT_MAX + 1e-9:
            return _r(
                "flyer_pivot_too_far",
                refs.FLYER,
                f"a Zooming Flyer pivots at most {FLYER_PIVOT_MAX:g} degrees, not {turn:.0f}",
                turn=turn,
                limit=FLYER_PIVOT_MAX,
            )
    for a, b in zip(mv.path, mv.path[1:], strict=False):
        if math.hypot(b[0] - a[0], b[1] - a[1]) < 1e-9:
            continue
        towards = _heading_of(a, b)
        if _turn(towards, mv.heading) > STRAIGHT_TOLERANCE_DEG:
            return _r(
                "flyer_not_straight",
                refs.FLYER,
                f"a Zooming Flyer moves straight ahead (heading {mv.heading:.0f}), not towards {towards:.0f}",
                heading=mv.heading,
                towards=towards,
            )
    return None


def _squadron_in_its_own_way(moves: list[ModelMove], flies: bool, rule: str) -> Rejection | None:
    """40k7 Vehicles, Movement ("vehicles cannot move over friendly models"), for the vehicles of
    a squadron one action moves: they move one at a time, so a path may cross where another stood
    if that one moved first, or where it ends if it moves later - refused when no order keeps
    every path clear (geometry ``crossing_in_every_order``); a Skimmer flies over them but may
    not end on one."""
    starts = {mv.model.id: footprint(mv.model) for mv in moves}
    ends = {mv.model.id: mv.end_footprint() for mv in moves}
    if flies:
        for a, b in itertools.combinations(moves, 2):
            if g.overlaps(ends[a.model.id], ends[b.model.id]):
                return _r(
                    "ends_on_model",
                    refs.SKIMMER,
                    f"a Skimmer may fly over models but not end on them ({b.model.id})",
                    model=b.model.id,
                )
        return None
    found = g.crossing_in_every_order({mv.model.id: mv.swept() for mv in moves}, starts, ends)
    if found is None:
        return None
    mover, mate = found
    return _r(
        "path_blocked",
        rule,
        f"{mover} cannot move through model {mate}: no order of moving the squadron's vehicles one "
        "at a time keeps their paths clear of each other",
        model=mate,
    )


def _check_coherency(state: MatchState, unit: Unit, moves: list[ModelMove]) -> Rejection | None:
    new_pos = {mv.model.id: mv.end_model() for mv in moves}
    if unit.squadron is not None:
        members = [
            u
            for u in state.units.values()
            if u.squadron == unit.squadron and u.side == unit.side and on_table(u)
        ]
        fps = [footprint(new_pos.get(m.id, m)) for u in members for m in alive(u)]
        if not g.coherent(fps, SQUADRON_COHERENCY):
            gap = coherency_gap(fps)
            return _r(
                "squadron_coherency",
                refs.SQUADRONS,
                f"the squadron of {unit.name} would be out of coherency: a gap of {gap:.2f} in > "
                f"{SQUADRON_COHERENCY:g} in",
                gap=gap,
                limit=SQUADRON_COHERENCY,
            )
        return None
    fps = [footprint(new_pos.get(m.id, m)) for m in alive(unit)]
    if not g.coherent(fps, INFANTRY_COHERENCY):
        gap = coherency_gap(fps)
        return _r(
            "coherency",
            refs.COHERENCY,
            f"{unit.name} would be out of unit coherency: a gap of {gap:.2f} in > {INFANTRY_COHERENCY:g} in",
            gap=gap,
            limit=INFANTRY_COHERENCY,
        )
    return None


def _difficult_crossed(state: MatchState, mv: ModelMove) -> bool:
    pieces = [p for p in all_terrain(state) if p.has("difficult")]
    return bool(g.path_terrain(mv.swept(), pieces))


def apply_move(state: MatchState, action: Move, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    moves = model_moves(state, unit, action)
    assert not isinstance(moves, str)
    kind = action.kind
    infantry_like = is_walker(unit) or not is_vehicle(unit)
    if kind == "run":
        face = ctx.roll("Run distance", 'D6"')
        moves = [truncate(mv, float(face)) for mv in moves]
        ctx.log(f'{unit.name} Runs up to {face}".', refs.RUN)
    elif infantry_like and any(_difficult_crossed(state, mv) for mv in moves):
        if is_walker(unit) and is_super_heavy(unit):
            # 40k7 Super-heavy Walkers: Move Through Cover (one more die) and the highest die is
            # doubled: that is the most the walker moves through difficult terrain.
            faces = [
                ctx.roll("difficult terrain", "3D6 pick highest, doubled") for _ in range(SHW_TERRAIN_DICE)
            ]
            limit = float(SHW_TERRAIN_FACTOR * max(faces))
        else:
            a = ctx.roll("difficult terrain", "2D6 pick highest")
            b = ctx.roll("difficult terrain", "2D6 pick highest")
            limit = float(max(a, b))
        if any(mv.length > limit + 1e-9 for mv in moves):
            ctx.log(
                f'{unit.name} moves through difficult terrain: at most {limit:g}" this move.', refs.DIFFICULT
            )
        moves = [truncate(mv, limit) for mv in moves]
    for uid in dict.fromkeys(mv.unit for mv in moves):
        state = _apply_unit_moves(state, ctx, uid, [mv for mv in moves if mv.unit == uid], kind)
    return state


def _apply_unit_moves(
    state: MatchState, ctx: ApplyContext, uid: str, moves: list[ModelMove], kind: str
) -> MatchState:
    unit = state.units[uid]
    models = dict(unit.models)
    for mv in moves:
        models[mv.model.id] = mv.end_model()
    distance = max((mv.length for mv in moves), default=0.0)
    flags = {"normal": "moved", "run": "ran", "flat_out": "flat_out"}.get(kind, "moved")
    moved_total = unit.moved + distance if kind != "run" else unit.moved
    state = replace_unit(state, replace(unit, models=models, moved=moved_total))
    state = flag_unit(state, uid, flags, *(("shot",) if kind in ("run", "flat_out") else ()))
    moved = state.units[uid]
    if is_vehicle(moved) and not is_walker(moved):
        label = {"stationary": "Stationary", "combat": "Combat Speed", "cruising": "Cruising Speed"}[
            speed_of(moved)
        ]
        extra = " Flat Out" if kind == "flat_out" else ""
        ctx.log(
            f"{moved.name} moves{extra} {distance:.1f} in ({label}, {moved.moved:.1f} in this turn).",
            refs.FLAT_OUT if kind == "flat_out" else refs.MOVEMENT,
        )
    else:
        ctx.log(
            f"{moved.name} {'Runs' if kind == 'run' else 'moves'} {distance:.1f} in.",
            refs.RUN if kind == "run" else refs.INF_MOVE,
        )
    if is_zooming(moved):
        bf = state.battlefield
        if not all(g.inside_battlefield(footprint(m), bf.width, bf.height) for m in alive(moved)):
            ctx.log(
                f"{moved.name} leaves combat airspace: it enters Ongoing Reserves (docs/missions.md).",
                refs.FLYER,
            )
            return set_status(state, uid, "reserves", 0)
    if is_vehicle(moved) and not is_walker(moved):
        if any(dangerous_for_vehicle(state, moved, mv) for mv in moves):
            state = dangerous_test(state, ctx, uid)
    else:
        dangerous = [p for p in all_terrain(state) if p.has("dangerous")]
        if any(g.path_terrain(mv.swept(), dangerous) for mv in moves):
            state = dangerous_test(state, ctx, uid)
    return state


def tank_shock_allowed(unit: Unit) -> bool:
    return is_tank(unit) and not is_zooming(unit)
