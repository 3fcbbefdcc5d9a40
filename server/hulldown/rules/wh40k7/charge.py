"""Charges and Overwatch (40k7 Vehicles and Close Combat; 40k7 The Assault Phase, Charge [ext]).

Vehicles cannot charge (Walkers and Chariots can) and never fire Overwatch (Walkers may); Zooming
Flyers cannot be charged. A charge is 2D6" (3D6 drop the highest through difficult terrain), at
most 12"; a unit may only charge a unit it shot at this turn, not after Running, moving Flat Out,
firing Heavy / Rapid Fire / Salvo / Ordnance weapons (non-Relentless units) or disembarking from
a transport that is not an Assault Vehicle. The charged unit's owner decides on Overwatch (Snap
Shots; templates: Wall of Death, D3 automatic hits). After a successful charge the
charging player places the chargers (``chargemove``: a ``place_chargers`` decision whose proposal
moves each model straight towards the target, into base contact if it can reach); a failed
charge does not move [decided].
"""

from __future__ import annotations

from msgspec.structs import replace
from shapely import LineString
from shapely.ops import nearest_points

from ...match.actions import Charge, Fire, Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Unit
from .. import geometry as g
from . import refs
from .attacks import Hit
from .chargemove import place_chargers
from .firing import ignores_cover, locked_in_combat, plan_shooting
from .geo import alive, all_terrain, footprint, on_table, unit_distance
from .penetration import PenProfile
from .resolve import resolve_hits
from .rolls import d3
from .shooting import execute_plan
from .speed import DEEP_STRUCK
from .squadrons import same_target
from .status import FORCED_OUT_STATUS, flag_unit, flags_with_prefix, has_phase_flag
from .types import has_type, is_chariot, is_super_heavy, is_vehicle, is_walker, is_zooming
from .wording import plural

MAX_CHARGE = 12.0


def validate_charge(state: MatchState, action: Charge) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "assault":
        return reject(
            "wrong_phase",
            refs.CHARGE,
            f"charges are declared in the Assault phase, not the {state.phase} phase",
        )
    if has_phase_flag(state, "fight_started"):
        return reject(
            "fight_started", refs.CHARGE, "the Fight sub-phase has begun: no more charges this phase"
        )
    if is_vehicle(unit) and not (is_walker(unit) or is_chariot(unit)):
        return reject(
            "vehicle_cannot_charge",
            refs.CLOSE_COMBAT,
            f"{unit.name} is a vehicle: vehicles cannot charge (Walkers and Chariots can)",
        )
    if not on_table(unit):
        return reject("not_on_table", refs.CHARGE, f"{unit.name} is not on the battlefield")
    for flag, why in (
        ("charged", "has already charged"),
        ("ran", "Ran"),
        ("flat_out", "moved Flat Out"),
        ("regrouped", "Regrouped"),
        ("no_charge", "disembarked from a transport that is not an Assault Vehicle"),
        ("emergency", "made an emergency disembarkation"),
        (DEEP_STRUCK, "arrived by Deep Strike"),  # 40k7 Deep Strike: "these units cannot charge"
    ):
        if unit.flag(flag):
            return reject(
                "cannot_charge", refs.CHARGE, f"{unit.name} {why} this turn: it cannot charge", reason=flag
            )
    if unit.flag("fired_heavy") and not (is_vehicle(unit) or has_type(unit, "relentless")):
        return reject(
            "cannot_charge",
            refs.CHARGE,
            f"{unit.name} fired Heavy, Rapid Fire, Salvo or Ordnance weapons: it cannot charge",
            reason="fired_heavy",
        )
    if FORCED_OUT_STATUS in unit.statuses:
        return reject(
            "cannot_charge",
            refs.TRANSPORT,
            f"{unit.name} was forced out of a destroyed transport in the enemy's turn: it cannot "
            "charge in this Assault phase (the transport was not an Assault Vehicle)",
            reason=FORCED_OUT_STATUS,
        )
    for status in ("falling_back", "pinned", "stunned", "immobilised"):
        if status in unit.statuses and (status not in ("stunned", "immobilised") or is_vehicle(unit)):
            return reject(
                "cannot_charge",
                refs.CHARGE,
                f"{unit.name} is {status.replace('_', ' ')}: it cannot charge",
                reason=status,
            )
    if locked_in_combat(state, unit):
        return reject("locked_in_combat", refs.CHARGE, f"{unit.name} is already locked in combat")
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("bad_target", refs.CHARGE, f"{action.target!r} is not an enemy unit on the battlefield")
    if is_zooming(target):
        return reject(
            "cannot_charge_flyer", refs.FLYER, f"{target.name} is a Zooming Flyer: it cannot be charged"
        )
    shot_at = flags_with_prefix(unit, "shot_at:")
    if shot_at and not any(same_target(state, t, target.id) for t in shot_at):
        return reject(
            "charge_other_target",
            refs.CHARGE,
            f"{unit.name} shot at {shot_at[0]}: it may only charge that unit",
            shot_at=shot_at[0],
        )
    d = unit_distance(unit, target)
    if d > MAX_CHARGE + 1e-9:
        return reject(
            "too_far_to_charge",
            refs.CHARGE,
            f"{target.name} is {d:.1f} in away: charges reach at most 12 in",
            distance=d,
            limit=MAX_CHARGE,
        )
    return None


def _overwatch_weapons(state: MatchState, target: Unit, charger: Unit) -> list[Fire]:
    """The weapons of the charged unit that could fire Overwatch (Snap Shots) at the charger."""
    fires: list[Fire] = []
    used_models: set[str] = set()
    for w in target.weapons.values():
        if w.destroyed or w.type == "melee" or w.range <= 0 or "blast" in w.rules or "large_blast" in w.rules:
            continue
        if not is_vehicle(target) and w.model in used_models:
            continue
        fire = Fire(w.id, charger.id, snap=True)
        if "template" in w.rules:
            # Wall of Death is resolved separately; it only needs the template in range.
            model = target.models.get(w.model)
            if model is not None and model.alive and unit_distance(target, charger) <= w.range:
                fires.append(fire)
                used_models.add(w.model)
            continue
        plan = plan_shooting(state, Shoot(target.id, (fire,)), overwatch=True)
        if not isinstance(plan, Rejection):
            fires.append(fire)
            used_models.add(w.model)
    return fires


def _can_overwatch(state: MatchState, target: Unit, charger: Unit) -> bool:
    if is_walker(target) and is_super_heavy(target):
        return False  # 40k7 Super-heavy Walkers cannot fire Overwatch
    if is_vehicle(target) and not (is_walker(target) or is_chariot(target)):
        # Seed 001: "vehicles cannot make Overwatch fire" unless specified otherwise; Walkers
        # may, and a Chariot's rider may (40k7 Walkers, Chariots).
        return False
    if target.flag("overwatched") or "falling_back" in target.statuses or locked_in_combat(state, target):
        return False
    return bool(_overwatch_weapons(state, target, charger))


def apply_charge(state: MatchState, action: Charge, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    target = state.units[action.target]
    ctx.log(
        f"{unit.name} declares a charge against {target.name} ({unit_distance(unit, target):.1f} in away).",
        refs.CHARGE,
    )
    if _can_overwatch(state, target, unit):
        return replace(
            state,
            pending=Decision(
                id=f"overwatch-{ctx.seq}",
                side=target.side,
                kind="overwatch",
                options=("overwatch", "hold"),
                prompt=f"{unit.name} charges {target.name}: fire Overwatch (Snap Shots)?",
                rule=refs.OVERWATCH,
                context={"unit": unit.id, "target": target.id},
            ),
        )
    return _charge_roll(state, ctx, unit.id, target.id)


def resume_overwatch(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    state = replace(state, pending=None)
    uid, tid = decision.context["unit"], decision.context["target"]
    if choice == "overwatch":
        state = _overwatch(state, ctx, tid, uid)
    else:
        ctx.log(f"{state.units[tid].name} holds its fire.", refs.OVERWATCH)
    unit = state.units[uid]
    if unit.destroyed or "falling_back" in unit.statuses:
        ctx.log(f"{unit.name}'s charge is stopped by the Overwatch fire.", refs.OVERWATCH)
        return flag_unit(state, uid, "charged") if not unit.destroyed else state
    return _charge_roll(state, ctx, uid, tid)


def _overwatch(state: MatchState, ctx: ApplyContext, tid: str, uid: str) -> MatchState:
    target = state.units[tid]
    charger = state.units[uid]
    fires = _overwatch_weapons(state, target, charger)
    templates = [f for f in fires if "template" in target.weapons[f.weapon].rules]
    normal = [f for f in fires if f not in templates]
    ctx.log(f"{target.name} fires Overwatch at {charger.name}.", refs.OVERWATCH)
    state = flag_unit(state, tid, "overwatched")
    for f in templates:
        w = target.weapons[f.weapon]
        n = d3(ctx, f"Wall of Death ({w.name}) hits")
        model = target.models[w.model]
        hit = Hit(
            PenProfile(w.strength),
            w.ap,
            (model.pos.x, model.pos.y),
            f"{target.name}'s {w.name} (Wall of Death)",
            group=tid,
            cover_allowed=not ignores_cover(w),  # 40k7 Special Rules, Template Weapon: Ignores Cover
            rules=w.rules,
        )
        ctx.log(f"Wall of Death: {w.name} inflicts {plural(n, 'automatic hit')}.", refs.OVERWATCH)
        state, _ = resolve_hits(state, ctx, uid, [hit] * n, attacker=tid, kind="shooting", exclude=())
    if normal and not state.units[uid].destroyed:
        plan = plan_shooting(state, Shoot(tid, tuple(normal)), overwatch=True)
        if not isinstance(plan, Rejection):
            state = execute_plan(state, ctx, plan, overwatch=True)
    return state


def _difficult_between(state: MatchState, unit: Unit, target: Unit) -> bool:
    """Does any charging model's straight line to the target cross difficult terrain?"""
    pieces = [p.polygon() for p in all_terrain(state) if p.has("difficult")]
    if not pieces:
        return False
    targets = [footprint(t) for t in alive(target)]
    for m in alive(unit):
        fp = footprint(m)
        best = min(targets, key=lambda t: g.distance(fp, t))
        _, b = nearest_points(g.as_geometry((m.pos.x, m.pos.y)), best.polygon())
        line = LineString([(m.pos.x, m.pos.y), (float(b.x), float(b.y))])
        if any(line.intersects(p) for p in pieces):
            return True
    return False


def _charge_roll(state: MatchState, ctx: ApplyContext, uid: str, tid: str) -> MatchState:
    unit = state.units[uid]
    target = state.units[tid]
    need = unit_distance(unit, target)
    if _difficult_between(state, unit, target):
        faces = sorted(
            ctx.roll("charge range (difficult: 3D6 drop highest)", f">= {need:.1f}") for _ in range(3)
        )
        roll = faces[0] + faces[1]
        how = "3D6 drop the highest"
    else:
        roll = ctx.roll("charge range", f">= {need:.1f}") + ctx.roll("charge range", f">= {need:.1f}")
        how = "2D6"
    state = flag_unit(state, uid, "charged")
    if roll + 1e-9 < need:
        ctx.log(f'{unit.name}\'s charge fails: {roll}" ({how}) < {need:.1f}" to {target.name}.', refs.CHARGE)
        return state
    state = place_chargers(state, ctx, unit, target, float(roll))
    state = flag_unit(state, uid, f"charged_into:{tid}")
    ctx.log(
        f'{unit.name}\'s charge succeeds: {roll}" ({how}) >= {need:.1f}"; it moves into base contact with {target.name}.',
        refs.CHARGE,
    )
    return state
