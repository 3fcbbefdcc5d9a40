"""Shooting attacks: fire arcs, split fire, Snap Shots, which facing is hit, hit tests.

# RULES 2.10-2.13 [seed + ext]. Each vehicle weapon is limited to its fire arc and may pick its
# own target; when a vehicle splits its fire, Battle weapons fire Snap Shots and Defensive weapons
# do not (Stable and Super-heavy vehicles are exempt); each weapon fires once. Infantry units fire
# one weapon per model at one target (hh3 core, Shooting Attacks).
#
# Which facing is hit: the zone the firing model is in. A model whose base (or a vehicle weapon's
# mount point) lies across a diagonal sees two facings; then the target's owner chooses through a
# pending decision, asked before any die is rolled [decided: only when the armour values differ].
# Indirect fire (``barrage`` or ``indirect`` weapon rules) or no line of sight: Side armour.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec.structs import replace

from ...match.actions import Fire, Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Unit, Weapon
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from . import damage, geom, statuses
from .core import (
    F_MOVED,
    F_RUSHED,
    F_SHOT,
    R_ARCS,
    R_CORE_HIT,
    R_CORE_SHOOT,
    R_FACING,
    R_SHOOT,
    R_WEAPON_CLASS,
    STABLE_KEYWORD,
    at_least,
    is_defensive,
    is_melee,
    is_super_heavy,
    is_vehicle,
    on_table,
    rule_text,
    vehicle_model,
)
from .movement import locked
from .tables import ranged_hit_target

ArmourFacing = Literal["front", "side", "rear"]
ARMOUR_ORDER: tuple[ArmourFacing, ...] = ("front", "side", "rear")
INDIRECT_RULES = ("barrage", "indirect")
NO_SNAP_RULES = ("blast", "template")  # hh3 Armoury: weapons that cannot make Snap Shots [ext]
DECISION_FACING = "facing"


def is_indirect(weapon: Weapon) -> bool:
    return any(rule.split(":")[0] in INDIRECT_RULES for rule in weapon.rules)


def split_fire(action: Shoot) -> bool:
    return len({f.target for f in action.fire}) > 1


def snap_reason(unit: Unit, weapon: Weapon, fire: Fire, split: bool) -> str | None:
    """Why this weapon fires Snap Shots (None: full BS)."""
    if statuses.must_snap(unit):
        return "Suppressed"
    exempt = unit.has(STABLE_KEYWORD) or is_super_heavy(unit)
    if split and is_vehicle(unit) and not is_defensive(weapon) and not exempt:
        return "split fire with a Battle weapon"
    if fire.snap:
        return "Snap Shots chosen"
    return None


def range_to(unit: Unit, weapon: Weapon, target: Unit) -> float:
    return geom.model_to_unit(unit.models[weapon.model], target)


def validate_shoot(state: MatchState, unit: Unit, action: Shoot) -> Rejection | None:
    if state.phase != "shooting":
        return reject("wrong_phase", R_CORE_SHOOT, f"units shoot in the Shooting phase, not {state.phase}")
    if unit.embarked_in is not None:
        return reject("embarked", R_CORE_SHOOT, f"{unit.name} is embarked")
    if unit.flag(F_SHOT):
        return reject("already_shot", R_CORE_SHOOT, f"{unit.name} has already shot this phase")
    if unit.flag(F_RUSHED):
        return reject("rushed", R_CORE_SHOOT, f"{unit.name} Rushed this turn: it cannot shoot")
    if locked(state, unit):
        return reject("locked_in_combat", R_CORE_SHOOT, f"{unit.name} is locked in combat")
    if not action.fire:
        return reject("no_weapons", R_CORE_SHOOT, "choose at least one weapon to fire")
    ids = [f.weapon for f in action.fire]
    if len(set(ids)) != len(ids):
        return reject("weapon_twice", R_SHOOT, "each weapon fires once per Shooting Attack")
    if not is_vehicle(unit):
        carriers = [unit.weapons[w].model for w in ids if w in unit.weapons]
        if len(set(carriers)) != len(carriers):
            return reject("one_weapon_per_model", R_CORE_SHOOT, "each model fires one weapon")
        if split_fire(action):
            return reject("one_target", R_CORE_SHOOT, "only vehicles may split their fire between targets")
    split = split_fire(action)
    for fire in action.fire:
        why = _validate_fire(state, unit, action, fire, split)
        if why is not None:
            return why
    return None


def _validate_fire(state: MatchState, unit: Unit, action: Shoot, fire: Fire, split: bool) -> Rejection | None:
    weapon = unit.weapons.get(fire.weapon)
    if weapon is None or weapon.destroyed or not unit.models[weapon.model].alive or is_melee(weapon):
        return reject(
            "unknown_weapon", R_CORE_SHOOT, f"{unit.name} has no working ranged weapon {fire.weapon!r}"
        )
    target = state.units.get(fire.target)
    if target is None or not on_table(target):
        return reject("unknown_target", R_CORE_SHOOT, f"no target unit {fire.target!r} on the table")
    if target.side == unit.side:
        return reject("friendly_target", R_CORE_SHOOT, "you cannot shoot at your own units")
    if weapon.mount.kind == "coaxial":
        linked = next((f for f in action.fire if f.weapon == weapon.mount.linked), None)
        if linked is None:
            return reject(
                "coaxial_alone",
                R_ARCS,
                f"{weapon.name} is co-axial: it fires only with {weapon.mount.linked}",
            )
        if linked.target != fire.target:
            return reject("coaxial_target", R_ARCS, f"{weapon.name} must fire at its linked weapon's target")
    distance = range_to(unit, weapon, target)
    if distance > weapon.range + 1e-9:
        return reject(
            "out_of_range",
            R_CORE_SHOOT,
            f"{target.name} is {distance:.1f} in away, {weapon.name} has range {weapon.range:g} in",
            distance=distance,
            range=weapon.range,
        )
    if not is_indirect(weapon) and not geom.sees(state, geom.firing_point(unit, weapon), target):
        return reject("no_line_of_sight", R_CORE_SHOOT, f"{weapon.name} cannot see {target.name}")
    if not geom.in_arc(unit, weapon, target):
        return reject(
            "out_of_arc",
            R_ARCS,
            f"{target.name} is outside the fire arc of {weapon.name} ({weapon.mount.kind} mount)",
            mount=weapon.mount.kind,
        )
    reason = snap_reason(unit, weapon, fire, split)
    if reason is not None:
        cannot = [r for r in NO_SNAP_RULES if r in weapon.rules]
        if cannot or ranged_hit_target(unit.profile.bs, True) is None:
            return reject(
                "cannot_snap",
                R_WEAPON_CLASS if reason.startswith("split") else R_SHOOT,
                f"{weapon.name} must fire Snap Shots ({reason}) but cannot",
                reason=reason,
            )
    return None


def facing_options(state: MatchState, unit: Unit, weapon: Weapon, target: Unit) -> tuple[ArmourFacing, ...]:
    """RULES 2.13: the armour facings this weapon's hits may strike (one, or two for the owner)."""
    if not is_vehicle(target):
        return ()
    origin = geom.firing_point(unit, weapon)
    hull = geom.hull(vehicle_model(target))
    if is_indirect(weapon) or not geom.sees(state, origin, target):
        return ("side",)
    model = unit.models[weapon.model]
    eps = geom.radius(model) or g.DIAGONAL_EPS
    zones = g.facings_of_point(hull, origin, eps)
    visible = set(g.visible_facings(hull, origin, geom.blockers(state)))
    if len(zones) > 1 and visible & set(zones):
        zones = tuple(z for z in zones if z in visible)
    armour = {g.armour_facing(z) for z in zones}
    values = {damage.armour_value(target, f) for f in armour}
    ordered = tuple(f for f in ARMOUR_ORDER if f in armour)
    if len(values) == 1:
        return ordered[:1]
    return ordered


def apply_shoot(
    state: MatchState, unit: Unit, action: Shoot, ctx: ApplyContext, chosen: dict[int, str] | None = None
) -> MatchState:
    """Ask the owner for every two-facing choice first (no dice yet), then resolve."""
    picks = dict(chosen or {})
    for i, fire in enumerate(action.fire):
        if i in picks:
            continue
        options = facing_options(state, unit, unit.weapons[fire.weapon], state.units[fire.target])
        if len(options) > 1:
            return _ask_facing(state, unit, action, picks, i, options, ctx)
    return resolve_shoot(state, unit.id, action, picks, ctx)


def _ask_facing(
    state: MatchState,
    unit: Unit,
    action: Shoot,
    picks: dict[int, str],
    index: int,
    options: tuple[ArmourFacing, ...],
    ctx: ApplyContext,
) -> MatchState:
    fire = action.fire[index]
    target = state.units[fire.target]
    weapon = unit.weapons[fire.weapon]
    prompt = f"{weapon.name} of {unit.name} sees two facings of {target.name}: choose the facing hit"
    decision = Decision(
        id=f"facing-{ctx.seq}-{index}",
        side=target.side,
        kind=DECISION_FACING,
        options=options,
        prompt=prompt,
        rule=R_FACING,
        context={
            "unit": unit.id,
            "shoot": msgspec.json.encode(action).decode(),
            "chosen": msgspec.json.encode({str(k): v for k, v in picks.items()}).decode(),
            "index": str(index),
        },
    )
    ctx.log(f"{prompt} ({' or '.join(options)}); side {target.side} decides.", R_FACING)
    return replace(state, pending=decision)


def resume_facing(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """The owner answered a facing decision: record it, then ask the next or resolve."""
    action = msgspec.json.decode(decision.context["shoot"], type=Shoot)
    picks = {
        int(k): v for k, v in msgspec.json.decode(decision.context["chosen"], type=dict[str, str]).items()
    }
    picks[int(decision.context["index"])] = choice
    ctx.log(f"Side {decision.side} chooses the {choice} facing.", R_FACING)
    state = replace(state, pending=None)
    return apply_shoot(state, state.units[decision.context["unit"]], action, ctx, picks)


def heavy_profile(unit: Unit, weapon: Weapon) -> tuple[int, int | None, int]:
    """hh3 Armoury, Heavy (X): +1 to X (s, ap: one step better, fp: shots) when the unit remained
    Stationary and has no status (RULES 2.4: any status, no Stationary benefit)."""
    strength, ap, shots = weapon.strength, weapon.ap, weapon.shots
    which = rule_text(weapon.rules, "heavy")
    if which is None or not statuses.stationary_benefit(unit, unit.flag(F_MOVED)):
        return strength, ap, shots
    if which == "s":
        strength += 1
    elif which == "ap" and ap is not None:
        ap = max(2, ap - 1)
    elif which == "fp":
        shots += 1
    return strength, ap, shots


def resolve_shoot(
    state: MatchState, uid: str, action: Shoot, picks: dict[int, str], ctx: ApplyContext
) -> MatchState:
    split = split_fire(action)
    for i, fire in enumerate(action.fire):
        unit = state.units[uid]
        target = state.units[fire.target]
        weapon = unit.weapons[fire.weapon]
        if not on_table(target) or unit.destroyed:
            ctx.log(f"{weapon.name}: {target.name} is no longer a target.", R_CORE_SHOOT)
            continue
        reason = snap_reason(unit, weapon, fire, split)
        need = ranged_hit_target(unit.profile.bs, reason is not None)
        strength, ap, shots = heavy_profile(unit, weapon)
        kind = ("Defensive, " if is_defensive(weapon) else "Battle, ") if is_vehicle(unit) else ""
        how = f"Snap Shots ({reason})" if reason else "full BS"
        ctx.log(
            f"{unit.name} fires {weapon.name} ({kind}{shots} shot{'' if shots == 1 else 's'}, {how}) at {target.name}.",
            R_SHOOT,
        )
        hits = 0
        for _ in range(shots):
            if need is None:
                break
            if need == 0:
                hits += 1
                continue
            die = ctx.roll("hit test", f"{need}+", at_least(need, "hit", "miss"))
            hits += die >= need
        ctx.log(f"{weapon.name}: {hits} of {shots} hit.", R_CORE_HIT)
        options = facing_options(state, unit, weapon, target)
        facing = picks.get(i) or (options[0] if options else None)
        source = geom.firing_point(unit, weapon)
        batch = [
            damage.Hit(strength, ap, weapon.damage, weapon.name, source, weapon.rules, _armour(facing))
            for _ in range(hits)
        ]
        state = damage.resolve_hits(state, target.id, batch, ctx)
    return replace_unit(state, add_flag(state.units[uid], F_SHOT))


def _armour(facing: str | None) -> ArmourFacing | None:
    for known in ARMOUR_ORDER:
        if facing == known:
            return known
    return None
