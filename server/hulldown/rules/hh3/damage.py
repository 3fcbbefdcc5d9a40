"""Resolving hits: armour penetration against vehicles, wound tests against everything else,
saves, Damage Mitigation, Hull Points and wounds.

Damage Mitigation [decided]: a unit keyword ``mitigation:X`` gives a Damage Mitigation test that
discards an unsaved wound or unsaved penetrating hit on X+. It is rolled after (and in addition
to) a failed save (hh3 Armoury, Feel No Pain: "may be made after and in addition to a Saving
Throw"); it is not a save, so vehicles keep it (hh3 Vehicles, No Armour Save).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from ..memo import geometry_memo
from . import geom, statuses
from .allocation import allocate
from .core import (
    R_CORE_SAVE,
    R_CORE_WOUND,
    R_GLANCING,
    R_PEN,
    R_PENETRATING,
    alive_models,
    at_least,
    is_flyer,
    is_super_heavy,
    is_vehicle,
    majority_toughness,
    model_profile,
    rule_value,
    vehicle_model,
)
from .destruction import destroy_vehicle
from .hits import Hit
from .tables import armour_save_allowed, best_save, wound_target

ArmourFacing = g.ArmourFacing


def armour_value(unit: Unit, facing: ArmourFacing) -> int:
    armour = unit.profile.armour
    if armour is None:
        return 0
    return {"front": armour.front, "side": armour.side, "rear": armour.rear}[facing]


def zone_facing(unit: Unit, point: g.Point) -> ArmourFacing:
    """hh3 Vehicles, Which facing is hit: the zone the point is in shows the facing hit. On a
    diagonal (two zones) for a hit no player chooses (explosions), the better armour is taken
    [decided]."""
    zones = g.facings_of_point(geom.hull(vehicle_model(unit)), point)
    facings = {g.armour_facing(z) for z in zones}
    return max(facings, key=lambda f: armour_value(unit, f))


@geometry_memo
def vehicle_cover(state: MatchState, unit: Unit, facing: ArmourFacing, origin: g.Point) -> int | None:
    """A vehicle's cover save against a shot from ``origin``: the targeted facing at least 25%
    hidden by terrain that gives cover (hh3 core, Cover; hh3 Vehicles, No Armour Save: vehicles may
    take cover saves). The best cover save among the pieces that hide part of it [decided]."""
    hull = geom.hull(vehicle_model(unit))
    pieces = [p for p in geom.terrain_pieces(state) if p.cover_save is not None]
    if not pieces:
        return None
    # Side: the side nearer the firer (indirect fire from the front still hits a side).
    side: g.Facing = "left" if hull.to_local(origin)[1] >= 0 else "right"
    zone: g.Facing = side if facing == "side" else facing
    polys = [p.polygon() for p in pieces]
    if not g.is_obscured(origin, hull, zone, polys):
        return None
    hiding = [p.cover_save for p in pieces if g.hidden_fraction(origin, hull, zone, [p.polygon()]) > 0]
    return min((c for c in hiding if c is not None), default=None)


@geometry_memo
def model_cover(state: MatchState, model: Model) -> int | None:
    """A model standing in terrain that gives cover takes its cover save [decided]."""
    fp = geom.footprint(model)
    saves = [p.cover_save for p in g.terrain_under(fp, geom.terrain_pieces(state)) if p.cover_save]
    return min(saves, default=None)


def mitigation(unit: Unit, ctx: ApplyContext) -> bool:
    """Damage Mitigation ``mitigation:X`` (see module docstring): True when the damage is discarded."""
    target = rule_value(unit.keywords, "mitigation")
    if target is None:
        return False
    die = ctx.roll("Damage Mitigation", f"{target}+", at_least(target, "discarded", "failed"))
    return die >= target


def lose_hp(state: MatchState, uid: str, amount: int, ctx: ApplyContext, why: str, rule: str) -> MatchState:
    """Take Hull Points off a vehicle; at 0 it is destroyed (hh3 Vehicles, Hull Points)."""
    unit = state.units[uid]
    if unit.destroyed or unit.hp <= 0 or amount <= 0:
        return state
    hp = max(0, unit.hp - amount)
    ctx.log(f"{unit.name} loses {unit.hp - hp} HP ({why}): {hp} HP left.", rule)
    state = replace_unit(state, replace(unit, hp=hp))
    if hp == 0:
        state = destroy_vehicle(state, uid, ctx, resolve_hits)
    return state


def hit_vehicle(state: MatchState, uid: str, hit: Hit, ctx: ApplyContext) -> MatchState:
    """Armour penetration, penetrating and glancing hits (hh3 Vehicles, Armour penetration to
    Vehicle damage table)."""
    unit = state.units[uid]
    if unit.destroyed or unit.hp <= 0:
        return state
    facing = hit.facing or zone_facing(unit, hit.source)
    value = armour_value(unit, facing)
    armourbane = "armourbane" in hit.rules
    die = ctx.roll(
        "armour penetration", f"S{hit.strength} vs AV{value}", _penetration(hit.strength, value, armourbane)
    )
    total = die + hit.strength
    if total < value:
        ctx.set_outcome("no effect")
        ctx.log(f"{hit.label}: {total} vs {facing} armour {value}, no effect on {unit.name}.", R_PEN)
        return state
    if total == value and not armourbane:
        ctx.set_outcome("glancing")
        ctx.log(f"{hit.label}: {total} vs {facing} armour {value}, glancing hit on {unit.name}.", R_PEN)
        return glancing(state, uid, ctx)
    ctx.set_outcome("penetrating")
    ctx.log(f"{hit.label}: {total} vs {facing} armour {value}, penetrating hit on {unit.name}.", R_PEN)
    cover = vehicle_cover(state, unit, facing, hit.source) if hit.shooting and not hit.melee else None
    save = best_save(unit.profile.inv, cover)
    if save is not None:
        roll = ctx.roll("save (invulnerable or cover)", f"{save}+", at_least(save, "saved", "failed"))
        if roll >= save:
            ctx.log(f"{unit.name} saves the penetrating hit.", R_PENETRATING)
            return state
    if mitigation(unit, ctx):
        ctx.log(f"{unit.name} mitigates the penetrating hit.", R_PENETRATING)
        return state
    return lose_hp(state, uid, hit.damage, ctx, f"penetrating hit, Damage {hit.damage}", R_PENETRATING)


def _penetration(strength: int, value: int, armourbane: bool) -> Callable[[int], str]:
    """hh3 Vehicles, Armour penetration: D6 + Strength against the facing's Armour Value - lower
    no effect, equal glancing (penetrating with Armourbane), higher penetrating. The rolls'
    judge: the odds engine walks one branch per outcome (odds/face_classes.py)."""

    def judge(die: int) -> str:
        total = die + strength
        if total < value:
            return "no effect"
        return "glancing" if total == value and not armourbane else "penetrating"

    return judge


def _damage_result(die: int) -> str:
    """hh3 Vehicles, Vehicle damage table: the status a face gives (the roll's judge)."""
    return statuses.DAMAGE_TABLE[die]


def glancing(state: MatchState, uid: str, ctx: ApplyContext) -> MatchState:
    """hh3 Vehicles, Vehicle damage table: roll on the damage table; a status it already has
    (including one gained earlier in the same attack) costs 1 HP instead, no save or mitigation.
    Flyers and Super-heavy vehicles lose 1 HP per glancing hit instead of rolling."""
    unit = state.units[uid]
    if is_flyer(unit) or is_super_heavy(unit):
        return lose_hp(state, uid, 1, ctx, "glancing hit on a Flyer or Super-heavy vehicle", R_GLANCING)
    die = ctx.roll("vehicle damage table", "1-2 Stunned, 3-4 Pinned, 5-6 Suppressed", _damage_result)
    status = statuses.DAMAGE_TABLE[die]
    ctx.set_outcome(status)
    if status in unit.statuses:
        ctx.log(f"{unit.name} is already {status.capitalize()}: it loses 1 HP instead.", R_GLANCING)
        return lose_hp(state, uid, 1, ctx, f"{status} again", R_GLANCING)
    ctx.log(f"{unit.name} is {status.capitalize()}.", R_GLANCING)
    return replace_unit(state, statuses.gain(unit, status))


def hit_model_unit(state: MatchState, uid: str, hit: Hit, ctx: ApplyContext) -> MatchState:
    """hh3 core: wound test, allocation (the owner's choice), saving throw, Damage Mitigation, lost wounds."""
    unit = state.units[uid]
    if unit.destroyed:
        return state
    toughness = majority_toughness(unit)
    need = wound_target(hit.strength, toughness)
    if need is None:
        ctx.log(f"{hit.label}: S{hit.strength} cannot wound T{toughness}.", R_CORE_WOUND)
        return state
    if need > 0:
        die = ctx.roll("wound test", f"{need}+", at_least(need, "wound", "no wound"))
        if die < need:
            ctx.log(f"{hit.label}: fails to wound {unit.name}.", R_CORE_WOUND)
            return state
    model = allocate(unit, hit, ctx)  # hh3 core, Wound Allocation (rules/hh3/allocation.py)
    if model is None:
        return state
    own = model_profile(unit, model)  # the model's own save (a Paragon in the unit it joined)
    armour = own.sv if armour_save_allowed(own.sv, hit.ap) else None
    cover = model_cover(state, model) if hit.shooting and not hit.melee else None
    save = best_save(armour, own.inv, cover)
    if save is not None:
        roll = ctx.roll("saving throw", f"{save}+", at_least(save, "saved", "failed"))
        if roll >= save:
            ctx.log(f"{hit.label}: {unit.name} ({model.id}) saves.", R_CORE_SAVE)
            return state
    if mitigation(unit, ctx):
        ctx.log(f"{hit.label}: {unit.name} ({model.id}) mitigates the wound.", R_CORE_SAVE)
        return state
    return wound_model(state, uid, model.id, hit.damage, ctx, hit.label)


def wound_model(
    state: MatchState, uid: str, mid: str, damage: int, ctx: ApplyContext, label: str
) -> MatchState:
    unit = state.units[uid]
    model = unit.models[mid]
    left = max(0, model.wounds - damage)
    models = dict(unit.models)
    models[mid] = replace(model, wounds=left, alive=left > 0)
    unit = replace(unit, models=models)
    if left == 0:
        ctx.log(f"{label}: {unit.name} loses {mid} as a casualty.", R_CORE_WOUND)
    else:
        ctx.log(f"{label}: {mid} of {unit.name} has {left} wounds left.", R_CORE_WOUND)
    if not alive_models(unit):
        unit = replace(unit, destroyed=True)
        ctx.log(f"{unit.name} is destroyed.", R_CORE_WOUND)
    return replace_unit(state, unit)


def resolve_hit(state: MatchState, uid: str, hit: Hit, ctx: ApplyContext) -> MatchState:
    unit = state.units[uid]
    if is_vehicle(unit):
        return hit_vehicle(state, uid, hit, ctx)
    return hit_model_unit(state, uid, hit, ctx)


def resolve_hits(state: MatchState, uid: str, hits: Sequence[Hit], ctx: ApplyContext) -> MatchState:
    """Resolve hits one at a time, in order, until the target is destroyed."""
    for hit in hits:
        if state.units[uid].destroyed:
            break
        state = resolve_hit(state, uid, hit, ctx)
    return state
