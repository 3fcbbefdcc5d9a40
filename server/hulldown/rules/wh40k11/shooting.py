"""40k11 Shooting phase: normal and close-quarters shooting, 17.03 and 17.03.01.

Who may shoot (40k11 core, Shooting phase; 17.03.01):
- normal shooting: the unit is not engaged and did not Advance (or Fall Back [ext]); a unit that
  Advanced may shoot its [ASSAULT] weapons only (40k11 core rules [ext], Assault);
- close-quarters shooting (40k11 core [ext + decided]): an engaged unit that did not Advance,
  if it is a MONSTER/VEHICLE unit or has a [CLOSE-QUARTERS] weapon. Other units: only
  [CLOSE-QUARTERS] weapons, only at units they are engaged with. MONSTER/VEHICLE units: any
  weapon at any eligible target, -1 to hit except [CLOSE-QUARTERS] weapons.
Eligible targets: enemy units that are not engaged; engaged enemy MONSTER/VEHICLE units (17.03),
never with [BLAST]; in close-quarters shooting also the units the shooter is engaged with [decided].
Every target, its eligibility and its modifiers are fixed when the unit is selected to shoot,
from the state at that moment [decided]: so is the Benefit of Cover (40k11 core rules [ext],
Benefit of Cover: space.has_cover; none against [IGNORES COVER]). A target must be visible to the
firing model, except for an [INDIRECT FIRE] weapon (then -1 to hit and cover); a [ONE SHOT] weapon
fires once per battle; [HAZARDOUS] tests follow the unit's shooting (attacks.hazardous_tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as replace_dc
from typing import Literal

from msgspec.structs import replace

from ...match.actions import Fire, Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Unit, Weapon
from ...match.turns import replace_unit
from ..geometry import distance
from .attacks import AttackProfile, ap_value, hazardous_tests, resolve, roll_attacks, with_abilities
from .constants import (
    ADVANCED,
    ASSAULT,
    ATTACKS_DICE,
    BLAST_MODELS_PER_EXTRA_ATTACK,
    FELL_BACK,
    HALF_RANGE,
    HEAVY,
    IGNORES_COVER,
    INDIRECT_FIRE,
    INDIRECT_FIRE_HIT_MODIFIER,
    MELTA,
    MOVED,
    ONE_SHOT,
    ONE_SHOT_STATUS,
    R_17_03,
    R_17_03_01,
    R_ASSAULT,
    R_CQ,
    R_HEAVY,
    R_IGNORES_COVER,
    R_INDIRECT_FIRE,
    R_MELTA,
    R_ONE_SHOT,
    R_RAPID_FIRE,
    R_SHOOT,
    RAPID_FIRE,
    SHOT,
)
from .space import engaged_with, extent, has_cover, sees
from .units import (
    dice_rule,
    is_blast,
    is_close_quarters,
    is_monster_vehicle,
    live_count,
    live_models,
    on_table,
    rule_number,
    with_flags,
)

Mode = Literal["normal", "close_quarters"]


@dataclass(frozen=True, slots=True)
class FirePlan:
    """One weapon's attacks as validated: target, hit modifier and why."""

    weapon: Weapon
    target: Unit
    modifier: int
    reasons: tuple[str, ...]
    # 40k11 core rules [ext], Rapid Fire / Melta: the target is within half range (HALF_RANGE),
    # measured as it is selected.
    half_range: bool = False
    # 40k11 core rules [ext], Benefit of Cover against this weapon (space.has_cover, or [INDIRECT
    # FIRE] at an unseen target), and whether [IGNORES COVER] took it away.
    cover: bool = False
    cover_ignored: bool = False


def ranged_weapons(unit: Unit) -> list[Weapon]:
    """The unit's working ranged weapons carried by its live models: those it can shoot with."""
    carriers = {m.id for m in live_models(unit)}
    return [w for w in unit.weapons.values() if not w.destroyed and w.type != "melee" and w.model in carriers]


def shooting_mode(state: MatchState, unit: Unit) -> Mode | Rejection:
    """Is the unit eligible to shoot, and how (40k11 core, Shooting phase; 17.03.01)?"""
    if state.phase != "shooting":
        return reject("wrong_phase", R_SHOOT, f"units shoot in the Shooting phase, not {state.phase}")
    if unit.flag(SHOT):
        return reject("already_shot", R_SHOOT, f"{unit.name} has already shot this phase")
    if unit.flag(ADVANCED) and not any(ASSAULT in w.rules for w in ranged_weapons(unit)):
        # 40k11 core rules [ext], Assault: only [ASSAULT] weapons may shoot after Advancing.
        return reject("advanced", R_SHOOT, f"{unit.name} Advanced this turn and cannot shoot")
    if unit.flag(FELL_BACK):
        return reject("fell_back", R_SHOOT, f"{unit.name} Fell Back this turn and cannot shoot")
    engaged = engaged_with(state, unit)
    if not engaged:
        return "normal"
    if is_monster_vehicle(unit) or any(is_close_quarters(w) for w in ranged_weapons(unit)):
        return "close_quarters"
    # 17.03.01 when engaged with a MONSTER/VEHICLE unit; the core rule otherwise.
    mv_foe = any(is_monster_vehicle(state.units[e]) for e in engaged)
    return reject(
        "engaged_cannot_shoot",
        R_17_03_01 if mv_foe else R_SHOOT,
        f"{unit.name} is engaged with {', '.join(engaged)} and has no [CLOSE-QUARTERS] weapon: "
        "it is not eligible to shoot",
        engaged_with=", ".join(engaged),
    )


def plan_fire(state: MatchState, unit: Unit, mode: Mode, fire: Fire) -> FirePlan | Rejection:
    """Check one weapon's target and work out its hit modifier (17.03, core Close-quarters shooting)."""
    weapon = unit.weapons.get(fire.weapon)
    if weapon is None or weapon.destroyed:
        return reject("unknown_weapon", R_SHOOT, f"{unit.name} has no working weapon {fire.weapon!r}")
    if weapon.type == "melee":
        return reject("melee_weapon", R_SHOOT, f"{weapon.name} is a melee weapon")
    if unit.flag(ADVANCED) and ASSAULT not in weapon.rules:
        # 40k11 core rules [ext], Assault: a unit that Advanced shoots [ASSAULT] weapons only.
        return reject(
            "advanced_not_assault",
            R_ASSAULT,
            f"{unit.name} Advanced this turn: it may shoot only [ASSAULT] weapons, not {weapon.name}",
            weapon=weapon.id,
        )
    if ONE_SHOT in weapon.rules and one_shot_spent(unit, weapon):
        # 40k11 core rules [ext], One Shot: the weapon can be fired only once per battle.
        return reject(
            "one_shot_spent",
            R_ONE_SHOT,
            f"{weapon.name} is a [ONE SHOT] weapon and has already been fired this battle",
            weapon=weapon.id,
        )
    shooter = unit.models.get(weapon.model)
    if shooter is None or not shooter.alive:
        return reject("no_firer", R_SHOOT, f"the model carrying {weapon.name} is not on the battlefield")
    target = state.units.get(fire.target)
    if target is None or not on_table(target):
        return reject("unknown_target", R_SHOOT, f"no target unit {fire.target!r} on the battlefield")
    if target.side == unit.side:
        return reject("friendly_target", R_SHOOT, "you cannot shoot at your own units")
    own_engaged = engaged_with(state, unit)
    target_engaged = engaged_with(state, target)
    with_shooter = target.id in own_engaged
    cq = is_close_quarters(weapon)
    mv_target = is_monster_vehicle(target)
    if mode == "close_quarters" and not is_monster_vehicle(unit):
        # 17.03.01, core Close-quarters shooting: only [CLOSE-QUARTERS] weapons, only at units engaged
        # with; 17.03.01 is cited for a unit engaged with a MONSTER/VEHICLE unit, else the core rule.
        mv_foe = any(is_monster_vehicle(state.units[e]) for e in own_engaged)
        if not cq:
            return reject(
                "close_quarters_only",
                R_17_03_01 if mv_foe else R_CQ,
                f"{unit.name} is engaged: it may only shoot [CLOSE-QUARTERS] weapons, not {weapon.name}",
                weapon=weapon.id,
            )
        if not with_shooter:
            return reject(
                "close_quarters_target",
                R_17_03_01 if mv_foe else R_CQ,
                f"{unit.name} is engaged: it may only shoot at units it is engaged with "
                f"({', '.join(own_engaged)}), not {target.name}",
                target=target.id,
            )
    if target_engaged:
        if is_blast(weapon):
            return reject(
                "blast_at_engaged",
                R_17_03,
                f"{target.name} is engaged (with {', '.join(target_engaged)}): [BLAST] weapon "
                f"{weapon.name} cannot target it",
                weapon=weapon.id,
                target=target.id,
            )
        if not mv_target and not (mode == "close_quarters" and with_shooter):
            return reject(
                "target_engaged",
                R_SHOOT,
                f"{target.name} is engaged (with {', '.join(target_engaged)}) and is not a "
                "MONSTER/VEHICLE unit: it cannot be targeted",
                target=target.id,
            )
    gap = min(
        (distance(extent(unit, shooter), extent(target, m)) for m in live_models(target)),
        default=float("inf"),
    )
    if gap > weapon.range + 1e-9:
        return reject(
            "out_of_range",
            R_SHOOT,
            f"{target.name} is {gap:.1f} in away, {weapon.name} range {weapon.range:g} in",
            distance=gap,
            range=weapon.range,
        )
    # 17.02 FRAME: visibility from and to any part of the model (space.sees).
    visible = sees(state, unit, shooter, target)
    if not visible and INDIRECT_FIRE not in weapon.rules:
        return reject("no_line_of_sight", R_SHOOT, f"{shooter.id} cannot see any model of {target.name}")
    modifier = 0
    reasons: list[str] = []
    if not visible:
        # 40k11 core rules [ext], Indirect Fire: no model of the target is visible: -1 to hit, and
        # the target has the Benefit of Cover.
        modifier += INDIRECT_FIRE_HIT_MODIFIER
        reasons.append(f"{INDIRECT_FIRE_HIT_MODIFIER} [INDIRECT FIRE]: no model visible ({R_INDIRECT_FIRE})")
    # 40k11 core rules [ext], Benefit of Cover (space.has_cover; [INDIRECT FIRE] above); none
    # against an [IGNORES COVER] weapon.
    cover = not visible or has_cover(state, unit, shooter, target)
    ignored = cover and IGNORES_COVER in weapon.rules
    if mv_target and target_engaged and not (cq and with_shooter):
        # 17.03: -1 to hit an engaged MONSTER/VEHICLE, except [CLOSE-QUARTERS] weapons of models in
        # a unit engaged with the target.
        modifier -= 1
        reasons.append("-1 engaged MONSTER/VEHICLE target (17.03)")
    if mode == "close_quarters" and is_monster_vehicle(unit) and not cq:
        # 40k11 core, Close-quarters shooting [decided]: MONSTER/VEHICLE, -1 except [CLOSE-QUARTERS].
        modifier -= 1
        reasons.append("-1 close-quarters shooting (40k11 core, Close-quarters shooting)")
    if HEAVY in weapon.rules and remained_stationary(unit):
        # 40k11 core rules [ext], Heavy: +1 to hit if the unit Remained Stationary this turn.
        modifier += 1
        reasons.append(f"+1 [HEAVY]: Remained Stationary ({R_HEAVY})")
    half = gap <= weapon.range * HALF_RANGE + 1e-9
    return FirePlan(
        weapon=weapon,
        target=target,
        modifier=modifier,
        reasons=tuple(reasons),
        half_range=half,
        cover=cover and not ignored,
        cover_ignored=ignored,
    )


def one_shot_spent(unit: Unit, weapon: Weapon) -> bool:
    """40k11 core rules [ext], One Shot: the weapon has been fired this battle (the unit status
    ``one_shot:<weapon id>``, constants.ONE_SHOT_STATUS)."""
    return f"{ONE_SHOT_STATUS}:{weapon.id}" in unit.statuses


def spend_one_shot(state: MatchState, unit_id: str, weapon: Weapon) -> MatchState:
    """40k11 core rules [ext], One Shot: record the use, for the rest of the battle (expiry 0)."""
    unit = state.units[unit_id]
    statuses = {**unit.statuses, f"{ONE_SHOT_STATUS}:{weapon.id}": 0}
    return replace_unit(state, replace(unit, statuses=statuses))


def remained_stationary(unit: Unit) -> bool:
    """40k11 core rules [ext], Remained Stationary: the unit made no move this turn (normal move,
    Advance or Fall Back: constants.py, [HEAVY])."""
    return not (unit.flag(MOVED) or unit.flag(ADVANCED) or unit.flag(FELL_BACK))


def rapid_fire_extra_attacks(plan: FirePlan) -> int:
    """40k11 core rules [ext], Rapid Fire X: +X attacks when the target is within half range."""
    return rule_number(plan.weapon, RAPID_FIRE) if plan.half_range else 0


def melta_extra_damage(plan: FirePlan) -> int:
    """40k11 core rules [ext], Melta X: +X Damage when the target is within half range."""
    return rule_number(plan.weapon, MELTA) if plan.half_range else 0


def blast_extra_attacks(plan: FirePlan) -> int:
    """40k11 core rules [ext], Blast: +1 attack per five models of the target unit, counted as the
    target was selected - in ``plan.target``, the unit as it was when the shooting unit was
    selected to shoot (targets are fixed then [decided]), so casualties of the unit's
    earlier weapons in the same shooting do not lower it."""
    if not is_blast(plan.weapon):
        return 0
    return live_count(plan.target) // BLAST_MODELS_PER_EXTRA_ATTACK


def plan_shoot(state: MatchState, action: Shoot) -> list[FirePlan] | Rejection:
    unit = state.units[action.unit]
    if not on_table(unit):
        return reject("not_on_table", R_SHOOT, f"{unit.name} is not on the battlefield")
    mode = shooting_mode(state, unit)
    if isinstance(mode, Rejection):
        return mode
    if not action.fire:
        return reject("no_weapons", R_SHOOT, "choose at least one weapon to fire")
    seen: set[str] = set()
    plans: list[FirePlan] = []
    for fire in action.fire:
        if fire.weapon in seen:
            return reject("weapon_twice", R_SHOOT, f"weapon {fire.weapon!r} fires only once per phase")
        seen.add(fire.weapon)
        plan = plan_fire(state, unit, mode, fire)
        if isinstance(plan, Rejection):
            return plan
        plans.append(plan)
    return plans


def validate_shoot(state: MatchState, action: Shoot) -> Rejection | None:
    plans = plan_shoot(state, action)
    return plans if isinstance(plans, Rejection) else None


def apply_shoot(state: MatchState, action: Shoot, ctx: ApplyContext) -> MatchState:
    """Resolve every weapon in order against the targets fixed at the start (total)."""
    plans = plan_shoot(state, action)
    unit = state.units[action.unit]
    if isinstance(plans, Rejection):  # cannot happen for a validated action; stay total
        ctx.log(f"{unit.name} cannot shoot: {plans.message}.", plans.rule)
        return state
    mode = shooting_mode(state, unit)
    if mode == "close_quarters":
        ctx.log(f"{unit.name} uses close-quarters shooting.", R_CQ)
    for plan in plans:
        w = plan.weapon
        # 40k11 core rules [ext], Random characteristics: a random Attacks is rolled now, before
        # the hit rolls; then Rapid Fire and Blast add to it.
        attacks = roll_attacks(dice_rule(w, ATTACKS_DICE), w.shots, unit, w.name, ctx)
        extra = blast_extra_attacks(plan)
        rapid = rapid_fire_extra_attacks(plan)
        melta = melta_extra_damage(plan)
        reasons = plan.reasons
        if rapid:
            reasons += (f"Rapid Fire {rapid}: +{rapid} attack{'' if rapid == 1 else 's'} ({R_RAPID_FIRE})",)
        if extra:
            reasons += (f"+{extra} [BLAST]",)
        profile = AttackProfile(
            label=w.name,
            attacks=attacks + rapid + extra,
            skill=unit.profile.bs,
            strength=w.strength,
            ap=ap_value(w.ap),
            damage=w.damage,
            modifier=plan.modifier,
            reasons=reasons,
            damage_bonus=melta,
            damage_notes=(f"Melta {melta}: +{melta} ({R_MELTA})",) if melta else (),
        )
        profile = replace_dc(with_abilities(profile, w, state.units[plan.target.id]), cover=plan.cover)
        if plan.cover_ignored:
            ctx.log(
                f"{w.name} has [IGNORES COVER]: {plan.target.name} has no Benefit of Cover.", R_IGNORES_COVER
            )
        if ONE_SHOT in w.rules:
            # 40k11 core rules [ext], One Shot: spent as it is fired.
            state = spend_one_shot(state, unit.id, w)
            ctx.log(
                f"{w.name} is fired: a [ONE SHOT] weapon, it cannot be fired again this battle.", R_ONE_SHOT
            )
        state = resolve(state, unit, plan.target.id, profile, ctx)
    # 40k11 core rules [ext], Hazardous: the tests once the unit has shot.
    state = hazardous_tests(state, unit.id, [p.weapon for p in plans], ctx)
    return replace_unit(state, with_flags(state.units[unit.id], SHOT))
