"""Shooting attacks: fire arcs, split fire, Snap Shots, which facing is hit, hit tests.

# hh3 Vehicles, Shooting to Which facing is hit [seed + ext]. Each vehicle weapon is limited to its
# fire arc and may pick its own target; when a vehicle splits its fire, Battle weapons fire Snap
# Shots and Defensive weapons do not (Stable and Super-heavy vehicles are exempt); each weapon fires
# once. Infantry units fire one weapon per model at one target (hh3 core, Shooting Attacks).
#
# hh3 Vehicles, Which facing is hit: one facing per attack on a vehicle. Every firing model counts
# in the zone(s) it stands in; the zone with the most firing models is hit; a tie between facings
# of different armour is the target owner's choice through a pending decision asked before any
# die is rolled. Indirect fire (``barrage`` or ``indirect`` weapon rules) or no line of sight:
# Side armour; Blast and Template hits: their own firer's facing, the Side if it sees two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec
from msgspec.structs import replace

from ...match.actions import Fire, Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Unit, Weapon
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from ..memo import geometry_memo
from . import damage, geom, statuses
from .combat_lock import locked
from .core import (
    F_MOVED,
    F_RUSHED,
    F_SHOT,
    R_ARCS,
    R_CORE_HIT,
    R_CORE_SHOOT,
    R_CORE_TARGET,
    R_FACING,
    R_RAPID,
    R_SHOOT,
    R_WEAPON_CLASS,
    STABLE_KEYWORD,
    at_least,
    check_target_model,
    is_defensive,
    is_fast,
    is_melee,
    is_super_heavy,
    is_vehicle,
    model_profile,
    on_table,
    rule_text,
    vehicle_model,
)
from .hits import Hit
from .tables import ranged_hit_target

ArmourFacing = Literal["front", "side", "rear"]
ARMOUR_ORDER: tuple[ArmourFacing, ...] = ("front", "side", "rear")
INDIRECT_RULES = ("barrage", "indirect")
NO_SNAP_RULES = ("blast", "template")  # hh3 Armoury: weapons that cannot make Snap Shots [ext]
DECISION_FACING = "facing"
# hh3 Vehicles, Template and Blast Weapons [ext]: their hits take the facing their own firer draws
# line of sight to; when it could be two facings, the Side (not the owner's choice).
AREA_RULES = ("blast", "template")
BLAST_ON_TWO_FACINGS: ArmourFacing = "side"
# hh3 Vehicles, Which facing is hit [seed]: indirect fire or no line of sight always hits the Side armour.
NO_SIGHT_FACING: ArmourFacing = "side"


def is_indirect(weapon: Weapon) -> bool:
    return any(rule.split(":")[0] in INDIRECT_RULES for rule in weapon.rules)


def counts_as_stationary(unit: Unit) -> bool:
    """hh3 Vehicle Sub-Types, Stable and Super-heavy [ext]: such a vehicle always counts as Stationary for
    its weapons, whether it moved or not, unless it Rushed."""
    sub_type = unit.has(STABLE_KEYWORD) or is_super_heavy(unit)
    return is_vehicle(unit) and sub_type and not unit.flag(F_RUSHED)


def split_fire(action: Shoot) -> bool:
    return len({f.target for f in action.fire}) > 1


def snap_reason(unit: Unit, weapon: Weapon, fire: Fire, split: bool) -> str | None:
    """Why this weapon fires Snap Shots (None: full BS)."""
    if statuses.must_snap(unit):
        return "Suppressed"
    if unit.flag(F_RUSHED) and is_vehicle(unit):
        # hh3 Vehicle Sub-Types, Rapid [ext]: a Rapid vehicle that Rushed may shoot, only Snap Shots.
        return "Rushed"
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
    if unit.flag(F_RUSHED) and not (is_vehicle(unit) and is_fast(unit)):
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
    if split and unit.flag(F_RUSHED):
        return reject(
            "rushed_split_fire",
            R_RAPID,
            f"{unit.name} Rushed this turn: it makes one Shooting Attack, at one target",
        )
    for fire in action.fire:
        why = _validate_fire(state, unit, action, fire, split)
        if why is not None:
            return why
    return None


def _validate_fire(state: MatchState, unit: Unit, action: Shoot, fire: Fire, split: bool) -> Rejection | None:
    weapon = unit.weapons.get(fire.weapon)
    if weapon is None or weapon.destroyed or is_melee(weapon):
        return reject(
            "unknown_weapon", R_CORE_SHOOT, f"{unit.name} has no working ranged weapon {fire.weapon!r}"
        )
    if not unit.models[weapon.model].alive:
        return reject(
            "model_dead",
            R_CORE_SHOOT,
            f"the model carrying {weapon.name} ({weapon.model}) is a casualty",
            weapon=weapon.id,
        )
    target = state.units.get(fire.target)
    if target is None or not on_table(target):
        return reject("unknown_target", R_CORE_SHOOT, f"no target unit {fire.target!r} on the table")
    if target.side == unit.side:
        return reject("friendly_target", R_CORE_SHOOT, "you cannot shoot at your own units")
    if locked(state, target):
        # hh3 core, Shooting Attack Procedure, Select Target Unit [ext]: a unit locked in combat cannot
        # be targeted; a vehicle is never locked (hh3 Vehicles, Combat), so it always can.
        return reject(
            "target_locked",
            R_CORE_TARGET,
            f"{target.name} is locked in combat and cannot be shot",
            target=target.id,
        )
    aimed = check_target_model(unit, target, fire.target_model)
    if aimed is not None:
        return aimed
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
    if not is_indirect(weapon) and not geom.sees(state, geom.firing_point(unit, weapon), target, unit.id):
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


@dataclass(frozen=True, slots=True)
class AttackFacing:
    """hh3 Vehicles, Which facing is hit [ext + decided]: the facing one Shooting Attack hits on one vehicle.

    ``counts``: firing models per hull zone (a model on a corner line counts in both zones it can
    see); ``options``: the armour facing hit, or the tied facings the owner chooses between;
    ``why``: the reading in words, for the log.
    """

    target: str
    counts: dict[g.Facing, int]
    options: tuple[ArmourFacing, ...]
    why: str


@geometry_memo
def direct_zones(state: MatchState, unit: Unit, weapon: Weapon, target: Unit) -> tuple[g.Facing, ...]:
    """hh3 Vehicles, Which facing is hit: the hull zone(s) a weapon's firing point stands in, as
    seen by that weapon; () for indirect fire or no line of sight (those hits always take the Side).
    A base across a corner line stands in both zones; the zones it cannot see any part of are
    dropped."""
    origin = geom.firing_point(unit, weapon)
    if is_indirect(weapon) or not geom.sees(state, origin, target, unit.id):
        return ()
    hull = geom.hull(vehicle_model(target))
    model = unit.models[weapon.model]
    zones = g.facings_of_point(hull, origin, geom.radius(model) or g.DIAGONAL_EPS)
    if len(zones) > 1:
        visible = set(g.visible_facings(hull, origin, geom.blockers(state, (unit.id, target.id))))
        if visible & set(zones):
            zones = tuple(z for z in zones if z in visible)
    return zones


def attack_facing(state: MatchState, unit: Unit, fires: list[Fire], target: Unit) -> AttackFacing:
    """hh3 Vehicles, Which facing is hit [ext + decided]: one attack hits one facing. Each firing
    model counts once in every zone it stands in (a vehicle firer: the zones of its weapons' mount
    points); the zone with the most firing models is hit; a tie between facings of different armour
    values is the owner's choice (a lone firer on a corner line is such a tie). No firing model
    tracing line of sight: the Side."""
    zones_of: dict[str, set[g.Facing]] = {}
    for fire in fires:
        weapon = unit.weapons[fire.weapon]
        zones_of.setdefault(weapon.model, set()).update(direct_zones(state, unit, weapon, target))
    counts: dict[g.Facing, int] = {}
    for zones in zones_of.values():
        for zone in zones:
            counts[zone] = counts.get(zone, 0) + 1
    if not counts:
        why = "no firing model has line of sight: Side armour"
        return AttackFacing(target.id, counts, (NO_SIGHT_FACING,), why)
    most = max(counts.values())
    tied = [z for z in g.FACINGS if counts.get(z) == most]
    armour = {g.armour_facing(z) for z in tied}
    ordered = tuple(f for f in ARMOUR_ORDER if f in armour)
    tally = ", ".join(f"{counts[z]} in {z}" for z in g.FACINGS if z in counts)
    if len({damage.armour_value(target, f) for f in ordered}) == 1:
        return AttackFacing(target.id, counts, ordered[:1], f"firing models: {tally}")
    return AttackFacing(target.id, counts, ordered, f"firing models: {tally}; a tie, the owner chooses")


def forced_facing(
    state: MatchState, unit: Unit, weapon: Weapon, target: Unit, attack: AttackFacing
) -> ArmourFacing | None:
    """The facing a weapon's hits take whatever the attack's facing (None: the attack's): the Side
    for indirect fire or no line of sight (hh3 Vehicles, Which facing is hit [seed]); a Blast or
    Template weapon's hits take the facing its own firer sees, and ``BLAST_ON_TWO_FACINGS`` when
    that firer sees two (hh3 Vehicles, Template and Blast Weapons [ext])."""
    zones = direct_zones(state, unit, weapon, target)
    if not zones:
        return NO_SIGHT_FACING
    if not any(r.split(":")[0] in AREA_RULES for r in weapon.rules):
        return None
    armour = {g.armour_facing(z) for z in zones}
    if len(armour) > 1:
        return BLAST_ON_TWO_FACINGS
    (only,) = armour
    return only


def facing_plan(state: MatchState, unit: Unit, action: Shoot) -> dict[str, AttackFacing]:
    """The facing of every vehicle target of a Shooting Attack, in the order of the Shoot."""
    plan: dict[str, AttackFacing] = {}
    for fire in action.fire:
        target = state.units[fire.target]
        if fire.target in plan or not is_vehicle(target):
            continue
        fires = [f for f in action.fire if f.target == fire.target]
        plan[fire.target] = attack_facing(state, unit, fires, target)
    return plan


def _needs_choice(state: MatchState, unit: Unit, action: Shoot, attack: AttackFacing) -> bool:
    target = state.units[attack.target]
    return len(attack.options) > 1 and any(
        forced_facing(state, unit, unit.weapons[f.weapon], target, attack) is None
        for f in action.fire
        if f.target == attack.target
    )


def apply_shoot(
    state: MatchState, unit: Unit, action: Shoot, ctx: ApplyContext, chosen: dict[str, str] | None = None
) -> MatchState:
    """Ask the owner of every vehicle target whose facing is a tie first (no dice yet), then
    resolve."""
    picks = dict(chosen or {})
    plan = facing_plan(state, unit, action)
    for tid, attack in plan.items():
        if tid not in picks and _needs_choice(state, unit, action, attack):
            return _ask_facing(state, unit, action, picks, attack, ctx)
    return resolve_shoot(state, unit.id, action, plan, picks, ctx)


def _ask_facing(
    state: MatchState,
    unit: Unit,
    action: Shoot,
    picks: dict[str, str],
    attack: AttackFacing,
    ctx: ApplyContext,
) -> MatchState:
    target = state.units[attack.target]
    prompt = f"{unit.name} shoots {target.name} from two facings equally: choose the facing hit"
    decision = Decision(
        id=f"facing-{ctx.seq}-{target.id}",
        side=target.side,
        kind=DECISION_FACING,
        options=attack.options,
        prompt=prompt,
        rule=R_FACING,
        context={
            "unit": unit.id,
            "shoot": msgspec.json.encode(action).decode(),
            "chosen": msgspec.json.encode(picks).decode(),
            "target": target.id,
        },
    )
    ctx.log(f"{prompt} ({attack.why}: {' or '.join(attack.options)}); side {target.side} decides.", R_FACING)
    return replace(state, pending=decision)


def resume_facing(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """The owner answered a facing decision: record it, then ask the next or resolve."""
    action = msgspec.json.decode(decision.context["shoot"], type=Shoot)
    picks = msgspec.json.decode(decision.context["chosen"], type=dict[str, str])
    picks[decision.context["target"]] = choice
    ctx.log(f"Side {decision.side} chooses the {choice} facing.", R_FACING)
    state = replace(state, pending=None)
    return apply_shoot(state, state.units[decision.context["unit"]], action, ctx, picks)


def heavy_profile(unit: Unit, weapon: Weapon) -> tuple[int, int | None, int, int]:
    """hh3 Armoury, Heavy (X): +1 to X (s, ap: one step better, fp: shots, d: damage) when the unit remained
    Stationary and has no status (hh3 Vehicles, Statuses: any status, no Stationary benefit). Stable and
    Super-heavy vehicles always count as Stationary for their weapons (hh3 Vehicle Sub-Types, Stable and
    Super-heavy [ext]); a status still takes the benefit away [decided]."""
    strength, ap, shots, wounds = weapon.strength, weapon.ap, weapon.shots, weapon.damage
    which = rule_text(weapon.rules, "heavy")
    moved = unit.flag(F_MOVED) and not counts_as_stationary(unit)
    if which is None or not statuses.stationary_benefit(unit, moved):
        return strength, ap, shots, wounds
    if which == "s":
        strength += 1
    elif which == "ap" and ap is not None:
        ap = max(2, ap - 1)
    elif which == "fp":
        shots += 1
    elif which == "d":
        wounds += 1
    return strength, ap, shots, wounds


def resolve_shoot(
    state: MatchState,
    uid: str,
    action: Shoot,
    plan: dict[str, AttackFacing],
    picks: dict[str, str],
    ctx: ApplyContext,
) -> MatchState:
    split = split_fire(action)
    shooter = state.units[uid]
    # Every facing is fixed before the first die (hh3 Vehicles, Which facing is hit): a vehicle
    # destroyed during the attack no longer blocks, but the facings were decided when the attack was
    # declared.
    facings: list[ArmourFacing | None] = []
    for fire in action.fire:
        attack = plan.get(fire.target)
        if attack is None:
            facings.append(None)
            continue
        target = state.units[fire.target]
        forced = forced_facing(state, shooter, shooter.weapons[fire.weapon], target, attack)
        facings.append(forced or _armour(picks.get(fire.target)) or attack.options[0])
    for attack in plan.values():
        if attack.target not in picks:
            chosen = attack.options[0] if len(attack.options) == 1 else "by the weapons' own rules"
            ctx.log(f"Facing hit on {state.units[attack.target].name}: {chosen} ({attack.why}).", R_FACING)
    for i, fire in enumerate(action.fire):
        unit = state.units[uid]
        target = state.units[fire.target]
        weapon = unit.weapons[fire.weapon]
        if not on_table(target) or unit.destroyed:
            ctx.log(f"{weapon.name}: {target.name} is no longer a target.", R_CORE_SHOOT)
            continue
        reason = snap_reason(unit, weapon, fire, split)
        # Each weapon fires with the BS of the model carrying it (a Paragon's own profile).
        bs = (
            model_profile(unit, unit.models[weapon.model]).bs
            if weapon.model in unit.models
            else unit.profile.bs
        )
        need = ranged_hit_target(bs, reason is not None)
        strength, ap, shots, wounds = heavy_profile(unit, weapon)
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
        source = geom.firing_point(unit, weapon)
        batch = [
            Hit(
                strength,
                ap,
                wounds,
                weapon.name,
                source,
                weapon.rules,
                facings[i],
                aim=fire.target_model,
            )
            for _ in range(hits)
        ]
        state = damage.resolve_hits(state, target.id, batch, ctx)
    return replace_unit(state, add_flag(state.units[uid], F_SHOT))


def _armour(facing: str | None) -> ArmourFacing | None:
    for known in ARMOUR_ORDER:
        if facing == known:
            return known
    return None
