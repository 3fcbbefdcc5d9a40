"""The Assault phase: charges, Volley Attacks and fights, with the vehicle combat rules.

# hh3 Vehicles, Combat [seed]: a vehicle cannot charge, attack, lock or be locked in combat. It can be
# charged and makes its Volley Attacks at step 4 of the charge; it counts as WS1; every hit goes
# against its rear armour with penetration rolls; it only Holds at the end of the combat; a unit
# still in base contact in its own Assault phase may attack it again without counting as charging.
#
# Simplified [decided]: the charge is one action: Disordered check, the Set-up Move unless
# Disordered (setupmove.py, hh3 core, Charge Procedure, Make Set-up Move; base contact there
# completes the charge with no volley and no roll), the target's Volley Attacks, the charge roll
# (2D6, the highest counts) against the distance left after the set-up move, and on success the
# charging player places the chargers (chargemove.py: a ``place_chargers`` decision whose proposal
# moves every model straight towards the nearest target model, up to the roll, stopping in base
# contact; no charger volley); on a failure the chargers stay where the Set-up Move left them and
# the charging unit makes a Cool check, Stunned if it fails (``failed_charge``). A fight is one
# combat round: both units' engaged models strike in Initiative Steps (``resolve_round``; a vehicle
# never strikes back), then the Resolution sub-phase (resolution.py) counts both sides' losses.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec
from msgspec.structs import replace

from ...match.actions import Charge, Fight
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Model, Unit, Weapon
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from . import damage, geom, statuses
from .chargemove import place_chargers
from .combat_lock import locked
from .core import (
    ACTIVE_STRIKES_FIRST_IN_STEP,
    CHARGE_RANGE,
    CONTACT,
    ENGAGE_SUPPORT,
    F_CHARGE_OK,
    F_CHARGED,
    F_DISEMBARKED,
    F_DISEMBARKED_ASSAULT,
    F_DISORDERED,
    F_FOUGHT,
    F_RUSHED,
    F_STRUCK_BACK,
    R_ARCS,
    R_CHARGE_MOVE,
    R_COMBAT,
    R_CORE_CHARGE,
    R_CORE_FIGHT,
    R_CORE_HIT,
    R_INITIATIVE_STEP,
    R_SETUP_MOVE,
    R_VOLLEY,
    VEHICLE_WS,
    alive_models,
    at_least,
    check_target_model,
    combat_initiative,
    current_value,
    in_challenge,
    is_melee,
    is_vehicle,
    majority_characteristic,
    model_profile,
    on_table,
    working_weapons,
)
from .hits import Hit
from .resolution import combat_flag, removed_points
from .setupmove import setup_distance, setup_move, unit_total
from .shooting import NO_SNAP_RULES
from .tables import melee_hit_target, ranged_hit_target

DECISION_VOLLEY = "volley"
VOLLEY_ALL = "all"
VOLLEY_NONE = "none"
VOLLEY_DONE = "done"
# hh3 core, Charge Procedure step 4 [ext]: only weapons with the Assault trait make Volley
# Attacks; Pintle mounted weapons count as having it (hh3 Vehicles, Weapon Mounts).
VOLLEY_WEAPON_TYPES = ("assault",)
VOLLEY_MOUNTS = ("pintle",)

# Roll purposes of the Fight sub-phase's hit tests: the fighting unit's, and the fought unit's
# models striking back (odds/face_classes.py lists both).
PURPOSE_MELEE = "melee hit test"
PURPOSE_STRIKE_BACK = "strike back hit test"

# hh3 core: a successful charge without Disorder gives +1 Attack [ext]; a Disordered charge loses it.
CHARGE_BONUS_ATTACKS = 1
# hh3 core, Charge Procedure step 5, Make Charge Move [ext]: a unit whose charge fails makes a Cool
# check and gains this status if it fails.
FAILED_CHARGE_STATUS = statuses.STUNNED


def disordered(unit: Unit) -> bool:
    """hh3 Vehicles, Statuses; Transport sub-type, Embarking / Disembarking: a unit with any status,
    or one that disembarked this turn from a transport without the Assault Vehicle rule, makes a
    Disordered charge."""
    if unit.statuses:
        return True
    return unit.flag(F_DISEMBARKED) and not unit.flag(F_DISEMBARKED_ASSAULT)


def validate_charge(state: MatchState, unit: Unit, action: Charge) -> Rejection | None:
    if state.phase != "assault":
        return reject("wrong_phase", R_CORE_CHARGE, f"charges happen in the Assault phase, not {state.phase}")
    if is_vehicle(unit):
        return reject("vehicle_cannot_charge", R_COMBAT, f"{unit.name} is a vehicle: vehicles cannot charge")
    if unit.embarked_in is not None:
        return reject("embarked", R_CORE_CHARGE, f"{unit.name} is embarked")
    if statuses.is_pinned(unit):
        return reject("pinned", "hh3 Statuses, Pinned", f"{unit.name} is Pinned: it cannot charge")
    if unit.flag(F_RUSHED):
        return reject("rushed", R_CORE_CHARGE, f"{unit.name} Rushed this turn: it cannot charge")
    if unit.flag(F_CHARGED):
        return reject("already_charged", R_CORE_CHARGE, f"{unit.name} has already charged this turn")
    if locked(state, unit):
        return reject("locked_in_combat", R_CORE_CHARGE, f"{unit.name} is already locked in combat")
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("unknown_target", R_CORE_CHARGE, f"no enemy unit {action.target!r} on the table")
    distance = geom.unit_distance(unit, target)
    if distance <= CONTACT:
        # hh3 Vehicles, Combat: a unit still in base contact with the vehicle attacks it again without
        # counting as having charged; it has nothing to charge (and no second charge bonus).
        return reject(
            "already_in_contact",
            R_COMBAT,
            f"{unit.name} is already in base contact with {target.name}: fight it without charging",
            distance=distance,
        )
    if distance > CHARGE_RANGE + g.EPS:
        return reject(
            "out_of_charge_range",
            R_CORE_CHARGE,
            f"{target.name} is {distance:.1f} in away, charges reach {CHARGE_RANGE:g} in",
            distance=distance,
            limit=CHARGE_RANGE,
        )
    if not any(geom.sees(state, (m.pos.x, m.pos.y), target, unit.id) for m in alive_models(unit)):
        return reject("no_line_of_sight", R_CORE_CHARGE, f"no model of {unit.name} can see {target.name}")
    return None


def apply_charge(state: MatchState, unit: Unit, action: Charge, ctx: ApplyContext) -> MatchState:
    is_disordered = disordered(unit)
    unit = add_flag(unit, F_CHARGED)
    if is_disordered:
        unit = add_flag(unit, F_DISORDERED)
    state = replace_unit(state, unit)
    target = state.units[action.target]
    kind = "a Disordered charge" if is_disordered else "a charge"
    ctx.log(f"{unit.name} declares {kind} against {target.name}.", R_CORE_CHARGE)
    if is_disordered:
        ctx.log(f"{unit.name} charges Disordered: no Set-up Move.", R_SETUP_MOVE)
    else:
        state = _setup_move(state, unit.id, target.id, ctx)
        if geom.unit_distance(state.units[unit.id], target) <= CONTACT:
            return _charge_complete(state, unit.id, target.id, ctx)
    offered = volley_options(state, target.id, unit.id, ctx)
    if offered:
        return _ask_volley(state, action, (), offered, ctx)
    return _charge_move(state, unit.id, target.id, ctx)


def _setup_move(state: MatchState, uid: str, tid: str, ctx: ApplyContext) -> MatchState:
    """hh3 core, Charge Procedure, Make Set-up Move: before any Volley Attacks the charging models
    move towards the charged unit by the distance their Initiative + Movement gives (setupmove.py)."""
    unit = state.units[uid]
    target = state.units[tid]
    reach = setup_distance(unit)
    before = geom.unit_distance(unit, target)
    moved = setup_move(state, unit, target, reach)
    after = geom.unit_distance(moved, target)
    ctx.log(
        f"{unit.name} makes its Set-up Move ({reach:g} in for Initiative + Movement {unit_total(unit)}): "
        f"{target.name} was {before:.1f} in away, now {after:.1f} in"
        f"{' - base contact' if after <= CONTACT else ''}.",
        R_SETUP_MOVE,
    )
    return replace_unit(state, moved)


def _charge_complete(state: MatchState, uid: str, tid: str, ctx: ApplyContext) -> MatchState:
    """hh3 core, Charge Procedure, Make Set-up Move: a charging model in base contact with the
    charged unit after the set-up move completes the charge - no Volley Attacks, no charge roll."""
    unit = add_flag(state.units[uid], F_CHARGE_OK)
    ctx.log(
        f"{unit.name} reached {state.units[tid].name} in its Set-up Move: the charge succeeds without "
        "Volley Attacks or a charge roll.",
        R_SETUP_MOVE,
    )
    return replace_unit(state, unit)


def _charge_move(state: MatchState, uid: str, tid: str, ctx: ApplyContext) -> MatchState:
    """hh3 core, Charge Procedure step 5: the charge roll (2D6, the highest counts) against the gap
    left after the set-up move, and the move."""
    unit = state.units[uid]
    target = state.units[tid]
    if unit.destroyed or target.destroyed:
        return state
    first = ctx.roll("charge roll", "2D6, highest counts")
    second = ctx.roll("charge roll", "2D6, highest counts")
    roll = max(first, second)
    needed = geom.unit_distance(unit, state.units[target.id])
    if roll + g.EPS < needed:
        ctx.set_outcome("failed")
        ctx.log(
            f"Charge roll {roll} in: {target.name} is still {needed:.1f} in away, the charge fails.",
            R_CORE_CHARGE,
        )
        return replace_unit(state, failed_charge(unit, ctx))
    ctx.set_outcome("success")
    unit = add_flag(place_chargers(state, ctx, unit, state.units[target.id], float(roll)), F_CHARGE_OK)
    ctx.log(
        f"Charge roll {roll} in against the {needed:.1f} in left: {unit.name} charges into {target.name}.",
        R_CORE_CHARGE,
    )
    return replace_unit(state, unit)


def failed_charge(unit: Unit, ctx: ApplyContext) -> Unit:
    """hh3 core, Charge Procedure step 5, Make Charge Move [ext]: the chargers do not move; the unit
    makes a Cool check and gains Stunned if it fails."""
    if statuses.cool_check(unit, ctx, "failed charge"):
        ctx.log(f"{unit.name} passes its Cool check after the failed charge.", R_CHARGE_MOVE)
        return unit
    ctx.log(f"{unit.name} fails its Cool check and is Stunned.", R_CHARGE_MOVE)
    return statuses.gain(unit, FAILED_CHARGE_STATUS)


def _ask_volley(
    state: MatchState, action: Charge, chosen: tuple[str, ...], offered: list[Weapon], ctx: ApplyContext
) -> MatchState:
    """hh3 Vehicles, Combat / hh3 core, Charge Procedure step 4: the charged unit's owner chooses whether and
    with which weapons to make Volley Attacks, one weapon at a time or all at once."""
    target = state.units[action.target]
    left = [w.id for w in offered if w.id not in chosen]
    stop = VOLLEY_DONE if chosen else VOLLEY_NONE
    decision = Decision(
        id=f"volley-{ctx.seq}-{len(chosen)}",
        side=target.side,
        kind=DECISION_VOLLEY,
        options=(VOLLEY_ALL, stop, *left),
        prompt=f"{target.name} is charged by {state.units[action.unit].name}: choose the weapons that "
        f"make Volley Attacks ({VOLLEY_ALL!r}, {stop!r} or one weapon at a time)",
        rule=R_VOLLEY,
        context={
            "charge": msgspec.json.encode(action).decode(),
            "chosen": ",".join(chosen),
        },
    )
    names = ", ".join(w.name for w in offered if w.id in left)
    ctx.log(f"{target.name} may make Volley Attacks with {names}; side {target.side} decides.", R_VOLLEY)
    return replace(state, pending=decision)


def resume_volley(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """The charged unit's owner answered: add a weapon and ask again, or fire and go on."""
    action = msgspec.json.decode(decision.context["charge"], type=Charge)
    chosen = tuple(w for w in decision.context.get("chosen", "").split(",") if w)
    state = replace(state, pending=None)
    offered = volley_options(state, action.target, action.unit, ctx)
    if choice == VOLLEY_ALL:
        chosen = tuple(w.id for w in offered)
    elif choice not in (VOLLEY_NONE, VOLLEY_DONE):
        chosen = (*chosen, choice)
        if any(w.id not in chosen for w in offered):
            return _ask_volley(state, action, chosen, offered, ctx)
    if chosen:
        ctx.log(f"Side {decision.side} volleys with {', '.join(chosen)}.", R_VOLLEY)
    else:
        ctx.log(f"Side {decision.side} makes no Volley Attacks.", R_VOLLEY)
    state = volley(state, action.target, action.unit, [w for w in offered if w.id in chosen], ctx)
    return _charge_move(state, action.unit, action.target, ctx)


def volley_options(state: MatchState, uid: str, charger: str, ctx: ApplyContext) -> list[Weapon]:
    """The weapons the charged unit may make Volley Attacks with (hh3 Vehicles, Combat; hh3 core,
    Charge Procedure step 4 [ext]): none if it is Stunned (no reactions, hh3 Vehicles, Statuses) or
    already locked in combat; else its working ranged weapons with the Assault trait (Pintle mounts
    count as having it) that can make Snap Shots and whose range, arc and line of sight reach the
    charger."""
    unit = state.units[uid]
    if not statuses.can_react(unit):
        ctx.log(f"{unit.name} is Stunned: no Volley Attacks.", "hh3 Statuses, Stunned")
        return []
    if locked(state, unit):
        ctx.log(f"{unit.name} is already locked in combat: no Volley Attacks.", R_VOLLEY)
        return []
    if ranged_hit_target(unit.profile.bs, True) is None:
        return []
    return _volley_weapons(state, unit, state.units[charger])


def volley(state: MatchState, uid: str, charger: str, weapons: list[Weapon], ctx: ApplyContext) -> MatchState:
    """The charged unit's Volley Attacks with the chosen weapons, all Snap Shots (hh3 Vehicles, Combat). A
    co-axial weapon fires only if its linked weapon does (hh3 Vehicles, Fire arcs and weapon mounts)."""
    unit = state.units[uid]
    need = ranged_hit_target(unit.profile.bs, True)
    ids = {w.id for w in weapons}
    for weapon in weapons:
        target = state.units[charger]
        if target.destroyed or need is None:
            break
        if weapon.mount.kind == "coaxial" and weapon.mount.linked not in ids:
            ctx.log(f"{weapon.name} is co-axial: it fires only with {weapon.mount.linked}.", R_ARCS)
            continue
        hits = 0
        for _ in range(weapon.shots):
            die = ctx.roll("volley hit test (Snap Shot)", f"{need}+", at_least(need, "hit", "miss"))
            hits += die >= need
        ctx.log(
            f"{unit.name} makes Volley Attacks with {weapon.name}: {hits} of {weapon.shots} hit.", R_COMBAT
        )
        source = geom.firing_point(unit, weapon)
        batch = [Hit(weapon.strength, weapon.ap, weapon.damage, weapon.name, source, weapon.rules)] * hits
        state = damage.resolve_hits(state, charger, batch, ctx)
    return state


def volley_trait(weapon: Weapon) -> bool:
    """hh3 core, Charge Procedure step 4 [ext]: Volley Attacks use Assault weapons only; a Pintle
    mounted weapon always counts as having the Assault trait (hh3 Vehicles, Weapon Mounts)."""
    return weapon.type in VOLLEY_WEAPON_TYPES or weapon.mount.kind in VOLLEY_MOUNTS


def _volley_weapons(state: MatchState, unit: Unit, charger: Unit) -> list[Weapon]:
    chosen: list[Weapon] = []
    used: set[str] = set()
    for weapon in sorted(working_weapons(unit), key=lambda w: w.id):
        if is_melee(weapon) or not volley_trait(weapon) or any(r in weapon.rules for r in NO_SNAP_RULES):
            continue
        if not is_vehicle(unit) and weapon.model in used:
            continue
        if geom.model_to_unit(unit.models[weapon.model], charger) > weapon.range + g.EPS:
            continue
        if not geom.in_arc(unit, weapon, charger):
            continue
        if not geom.sees(state, geom.firing_point(unit, weapon), charger, unit.id):
            continue
        chosen.append(weapon)
        used.add(weapon.model)
    # hh3 Vehicles, Fire arcs and weapon mounts (Co-axial): only together with its linked weapon.
    ids = {w.id for w in chosen}
    return [w for w in chosen if w.mount.kind != "coaxial" or w.mount.linked in ids]


def engaged_models(unit: Unit, target: Unit) -> list[Model]:
    """Models that fight: in base contact with the target, or within 2" of a friend who is; a
    model fighting a challenge does not (hh3 core, Challenge Sub-Phase)."""
    alive = [m for m in alive_models(unit) if not in_challenge(unit, m.id)]
    contact = [m for m in alive if geom.model_to_unit(m, target) <= CONTACT]
    fps = [geom.footprint(m) for m in contact]
    return [
        m for m in alive if m in contact or any(g.within(geom.footprint(m), fp, ENGAGE_SUPPORT) for fp in fps)
    ]


def validate_fight(state: MatchState, unit: Unit, action: Fight) -> Rejection | None:
    if state.phase != "assault":
        return reject("wrong_phase", R_CORE_FIGHT, f"fights happen in the Assault phase, not {state.phase}")
    if is_vehicle(unit):
        return reject("vehicle_cannot_attack", R_COMBAT, f"{unit.name} is a vehicle: vehicles do not attack")
    if unit.embarked_in is not None:
        return reject("embarked", R_CORE_FIGHT, f"{unit.name} is embarked")
    if unit.flag(F_FOUGHT):
        return reject("already_fought", R_CORE_FIGHT, f"{unit.name} has already fought this phase")
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("unknown_target", R_CORE_FIGHT, f"no enemy unit {action.target!r} on the table")
    gap = geom.unit_distance(unit, target)
    if gap > CONTACT:
        return reject(
            "not_in_contact",
            R_CORE_FIGHT,
            f"{unit.name} is {gap:.2f} in from {target.name}: no base contact",
            distance=gap,
        )
    aimed = check_target_model(unit, target, action.target_model)
    if aimed is not None:
        return aimed
    if action.weapon is not None:
        weapon = unit.weapons.get(action.weapon)
        if weapon is None or not is_melee(weapon) or weapon.destroyed:
            return reject(
                "unknown_weapon", R_CORE_FIGHT, f"{unit.name} has no melee weapon {action.weapon!r}"
            )
    return None


def fighting_ws(unit: Unit, model: Model) -> int:
    """The Weapon Skill a model attacks with: its own (hh3 core, Melee Hit Tests; a Paragon in the
    unit uses its own profile), halved while Disgraced (hh3 core, Challenge Sub-Phase)."""
    return current_value(unit, model, "ws")


def melee_weapon(unit: Unit, model: Model, preferred: str | None) -> Weapon | None:
    carried = sorted(
        (w for w in working_weapons(unit) if w.model == model.id and is_melee(w)), key=lambda w: w.id
    )
    for weapon in carried:
        if weapon.id == preferred:
            return weapon
    return carried[0] if carried else None


@dataclass(frozen=True)
class Striker:
    """One model's place in a combat round (hh3 core, Fight Sub-Phase, Declare Weapons and Set
    Initiative Steps): its unit, the enemy unit it strikes, its weapon (declared before the first
    step), its Combat Initiative, its bonus Attacks and the roll purpose of its hit tests."""

    unit: str
    enemy: str
    model: str
    weapon: Weapon | None
    step: int
    bonus: int
    purpose: str
    aim: str | None


def _strikers(
    unit: Unit, enemy: Unit, weapon: str | None, bonus: int, purpose: str, aim: str | None
) -> list[Striker]:
    """hh3 core, Fight Sub-Phase, Declare Weapons and Set Initiative Steps: every engaged model of
    ``unit`` (``engaged_models``) with its melee weapon and Combat Initiative (core.combat_initiative)."""
    return [
        Striker(
            unit.id,
            enemy.id,
            m.id,
            melee_weapon(unit, m, weapon),
            combat_initiative(unit, m),
            bonus,
            purpose,
            aim,
        )
        for m in engaged_models(unit, enemy)
    ]


def strikes_back(state: MatchState, target: Unit, ctx: ApplyContext) -> bool:
    """hh3 core, Fight Sub-Phase: the fought unit's engaged models strike back unless
    it is a vehicle (hh3 Vehicles, Combat: a vehicle does not attack) or already struck in a combat
    this Assault phase (a unit attacks in one combat per Assault phase)."""
    if is_vehicle(target):
        return False
    if target.flag(F_STRUCK_BACK):
        ctx.log(
            f"{target.name} already attacked in a combat this Assault phase: it does not strike back again.",
            R_CORE_FIGHT,
        )
        return False
    return True


def apply_fight(state: MatchState, unit: Unit, action: Fight, ctx: ApplyContext) -> MatchState:
    """hh3 core, Fight Sub-Phase: one combat round. Every engaged model of the fighting unit and,
    unless it is a vehicle (hh3 Vehicles, Combat), of the fought unit strikes, in Initiative Steps
    from the highest Combat Initiative to the lowest (``resolve_round``). Each model attacks with
    its own Weapon Skill, Strength and Attacks (``core.model_profile``: a Paragon in the unit uses
    its own) against the enemy unit's majority Weapon Skill (ties: the highest); a vehicle counts as
    WS1 (hh3 Vehicles, Combat)."""
    target = state.units[action.target]
    before = target
    attacker_before = unit
    bonus = CHARGE_BONUS_ATTACKS if unit.flag(F_CHARGE_OK) and not unit.flag(F_DISORDERED) else 0
    ctx.log(
        f"{unit.name} attacks {target.name} ({_needs(unit, target)}"
        f"{', +1 Attack for the charge' if bonus else ''}).",
        R_COMBAT if is_vehicle(target) else R_CORE_FIGHT,
    )
    strikers = _strikers(unit, target, action.weapon, bonus, PURPOSE_MELEE, action.target_model)
    back = strikes_back(state, target, ctx)
    if back:
        ctx.log(f"{target.name} strikes back at {unit.name} ({_needs(target, unit)}).", R_CORE_FIGHT)
        strikers += _strikers(target, unit, None, 0, PURPOSE_STRIKE_BACK, None)
    state = resolve_round(state, strikers, ctx)
    target = state.units[target.id]
    if is_vehicle(target) and not target.destroyed:
        ctx.log(f"{target.name} does not attack back.", R_COMBAT)
    # The Resolution sub-phase counts what this fight removed on both sides (resolution.py).
    scored = combat_flag(target.id, removed_points(target, before))
    state = replace_unit(state, add_flag(add_flag(state.units[unit.id], F_FOUGHT), scored))
    if back:
        lost = removed_points(state.units[unit.id], attacker_before)
        struck = add_flag(state.units[target.id], F_STRUCK_BACK)
        state = replace_unit(state, add_flag(struck, combat_flag(unit.id, lost)))
    return state


def _needs(unit: Unit, enemy: Unit) -> str:
    """The hit tests of ``unit``'s Weapon Skills against ``enemy`` at the start of the round (hh3
    core, Hit Tests, Melee Hit Table), for the log."""
    defender_ws = VEHICLE_WS if is_vehicle(enemy) else majority_characteristic(enemy, "ws")
    skills = sorted({fighting_ws(unit, m) for m in alive_models(unit) if not in_challenge(unit, m.id)})
    needs = ", ".join(
        f"WS{ws} hits on {n}+" if n else f"WS{ws} cannot hit"
        for ws, n in ((ws, melee_hit_target(ws, defender_ws)) for ws in skills)
    )
    return f"against WS{defender_ws}: {needs}"


def resolve_round(state: MatchState, strikers: list[Striker], ctx: ApplyContext) -> MatchState:
    """hh3 core, Fight Sub-Phase, Resolve First Initiative Step / Continue Initiative Steps: the
    steps from the highest Combat Initiative to the lowest. A model slain before its step does not
    strike; the models of one step strike simultaneously, so one slain in its own step still
    strikes (the step's strikers are fixed at its start). Engagement is fixed at the start of the
    round (pile-in moves are not modelled, [decided])."""
    for step in sorted({s.step for s in strikers}, reverse=True):
        now = [s for s in strikers if s.step == step]
        ready = [s for s in now if state.units[s.unit].models[s.model].alive]
        for s in now:
            if s not in ready:
                ctx.log(
                    f"{s.model} of {state.units[s.unit].name} was slain before Initiative step {step}: "
                    "it does not strike.",
                    R_INITIATIVE_STEP,
                )
        if not ready:
            continue
        # [decided] ACTIVE_STRIKES_FIRST_IN_STEP: the order of the step's dice (strikes are simultaneous).
        order = sorted(ready, key=lambda s: (s.purpose == PURPOSE_MELEE) != ACTIVE_STRIKES_FIRST_IN_STEP)
        parts = []
        for uid in dict.fromkeys(s.unit for s in order):
            ids = ", ".join(s.model for s in order if s.unit == uid)
            parts.append(f"{state.units[uid].name} strikes with {ids}")
        ctx.log(f"Initiative step {step}: {'; '.join(parts)}.", R_INITIATIVE_STEP)
        for s in order:
            state = _strike(state, s, ctx)
    return state


def _strike(state: MatchState, striker: Striker, ctx: ApplyContext) -> MatchState:
    """hh3 core, Resolving an Initiative Step, Make Hit Tests to Saving Throws: one model's
    attacks - its Attacks (+ the charge bonus) hit tests on the Melee Hit Table against the enemy
    unit's majority WS, then wound tests (armour penetration against a vehicle's rear armour),
    allocation and saves (damage.resolve_hits)."""
    unit = state.units[striker.unit]
    enemy = state.units[striker.enemy]
    if enemy.destroyed:
        return state
    model = unit.models[striker.model]
    profile = model_profile(unit, model)
    defender_ws = VEHICLE_WS if is_vehicle(enemy) else majority_characteristic(enemy, "ws")
    need = melee_hit_target(fighting_ws(unit, model), defender_ws)
    if need is None:
        return state
    weapon = striker.weapon
    strength = weapon.strength if weapon is not None and weapon.strength > 0 else profile.s
    ap = weapon.ap if weapon is not None else None
    dmg = weapon.damage if weapon is not None else 1
    label = f"{model.id} ({weapon.name if weapon else 'close combat'})"
    hits = 0
    for _ in range(profile.a + striker.bonus):
        die = ctx.roll(striker.purpose, f"{need}+", at_least(need, "hit", "miss"))
        hits += die >= need
    ctx.log(f"{label}: {hits} hit{'' if hits == 1 else 's'}.", R_CORE_HIT)
    source = (model.pos.x, model.pos.y)
    # hh3 Vehicles, Combat: every hit on a vehicle is resolved against its rear armour; the weapon's
    # special rules (hh3 Armoury, e.g. Armourbane) go with its hits, as for shooting.
    facing: damage.ArmourFacing | None = "rear" if is_vehicle(enemy) else None
    rules = weapon.rules if weapon is not None else ()
    batch = [Hit(strength, ap, dmg, label, source, rules, facing, False, True, striker.aim)] * hits
    return damage.resolve_hits(state, enemy.id, batch, ctx)
