"""40k11 core, Fight phase (minimal core [ext]).

- ``Fight(unit, target, weapon?)``: a unit of the active side engaged with the target fights once
  per phase. It first Piles In and after its attacks Consolidates (40k11 core rules [ext], Pile
  In, Consolidate: automatic 3" moves toward the target, pilein.py). Its models then within
  Engagement Range of the target fight [decided: no fighting through a friendly model]; each
  uses the chosen melee weapon if it carries it, else its first melee weapon, else its profile
  (A attacks, S, AP 0, Damage 1). Hit rolls use WS as the target number.
- Fight order [decided, simplified]: the active player fights with its units first, in any order;
  when it ends the Fight phase, each engaged unit of the other side that has not fought is offered
  a fight through a pending decision (options: the enemy units it is engaged with, or "decline").
  The player turn ends after the last offer.
"""

from __future__ import annotations

from dataclasses import replace as replace_dc

from msgspec.structs import replace

from ...match.actions import Fight
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Model, Unit, Weapon, other_side
from ..phases import PHASES_40K11, end_phase
from .attacks import AttackProfile, ap_value, hazardous_tests, resolve, roll_attacks, with_abilities
from .constants import (
    ATTACKS_DICE,
    CHARGED,
    EXTRA_ATTACKS,
    FOUGHT,
    LANCE,
    LANCE_WOUND_MODIFIER,
    OFFERED,
    R_EXTRA_ATTACKS,
    R_FIGHT,
    R_LANCE,
    UNARMED_AP,
    UNARMED_DAMAGE,
)
from .pilein import consolidate, pile_in
from .space import engaged_with, units_engaged, within_engagement
from .units import add_phase_flag, dice_rule, live_models, on_table, phase_flag

DECLINE = "decline"
FIGHT_DECISION = "fight"


def validate_fight(state: MatchState, action: Fight) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "fight":
        return reject("wrong_phase", R_FIGHT, f"units fight in the Fight phase, not {state.phase}")
    if not on_table(unit):
        return reject("not_on_table", R_FIGHT, f"{unit.name} is not on the battlefield")
    if phase_flag(state, FOUGHT, unit.id):
        return reject("already_fought", R_FIGHT, f"{unit.name} has already fought this phase")
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("unknown_target", R_FIGHT, f"no enemy unit {action.target!r} on the battlefield")
    if not units_engaged(unit, target):
        return reject("not_engaged", R_FIGHT, f"{unit.name} is not engaged with {target.name}")
    if action.weapon is not None:
        weapon = unit.weapons.get(action.weapon)
        if weapon is None or weapon.destroyed or weapon.type != "melee":
            return reject("unknown_weapon", R_FIGHT, f"{unit.name} has no melee weapon {action.weapon!r}")
    return None


def _melee_weapons(unit: Unit, model: Model, chosen: str | None) -> list[Weapon]:
    """The melee weapons a fighting model attacks with: the chosen one if it carries it, else its
    first (by id); 40k11 core rules [ext], Extra Attacks: and each of its [EXTRA ATTACKS] weapons
    besides, which are never the chosen one (constants.py [decided]). Empty: it fights unarmed."""
    carried = sorted(
        (w for w in unit.weapons.values() if w.model == model.id and w.type == "melee" and not w.destroyed),
        key=lambda w: w.id,
    )
    extra = [w for w in carried if EXTRA_ATTACKS in w.rules]
    main = [w for w in carried if EXTRA_ATTACKS not in w.rules]
    picked = next((w for w in main if w.id == chosen), main[0] if main else None)
    return ([picked] if picked is not None else []) + extra


def lance_applies(state: MatchState, unit: Unit, weapon: Weapon) -> bool:
    """40k11 core rules [ext], Lance: the bearer's unit made a Charge move this turn (its CHARGED
    flag, set in its own player turn: flags are kept until its next one starts)."""
    return LANCE in weapon.rules and unit.side == state.active and unit.flag(CHARGED)


def fight(
    state: MatchState, unit_id: str, target_id: str, chosen: str | None, ctx: ApplyContext
) -> MatchState:
    """Resolve one unit's close combat attacks against one target (total): 40k11 core, Fight phase;
    40k11 core rules [ext], Pile In before the attacks and Consolidate after them."""
    state = pile_in(state, unit_id, target_id, ctx)
    unit = state.units[unit_id]
    target = state.units[target_id]
    fighters = [
        m
        for m in live_models(unit)
        if any(within_engagement(unit, m, target, t) for t in live_models(target))
    ]
    ctx.log(
        f"{unit.name} fights {target.name} with {len(fighters)} model{'' if len(fighters) == 1 else 's'}.",
        R_FIGHT,
    )
    used: list[Weapon] = []
    for m in fighters:
        weapons = _melee_weapons(unit, m, chosen)
        for w in weapons:
            # 40k11 core rules [ext], Random characteristics: a random Attacks is rolled for each
            # fighting model's weapon before its hit rolls; the weapon's abilities apply (attacks.py).
            attacks = roll_attacks(dice_rule(w, ATTACKS_DICE), w.shots, unit, w.name, ctx)
            reasons: tuple[str, ...] = ()
            if EXTRA_ATTACKS in w.rules and len(weapons) > 1:
                reasons = (f"[EXTRA ATTACKS]: in addition to {weapons[0].name} ({R_EXTRA_ATTACKS})",)
            profile = AttackProfile(
                w.name, attacks, unit.profile.ws, w.strength, ap_value(w.ap), w.damage, reasons=reasons
            )
            profile = with_abilities(profile, w, state.units[target_id])
            if lance_applies(state, unit, w):
                # 40k11 core rules [ext], Lance: +1 to the wound roll after a Charge move this turn.
                profile = replace_dc(
                    profile,
                    wound_modifier=LANCE_WOUND_MODIFIER,
                    wound_reasons=(f"+{LANCE_WOUND_MODIFIER} [LANCE]: charged this turn ({R_LANCE})",),
                )
            used.append(w)
            state = resolve(state, unit, target_id, profile, ctx)
        if not weapons:
            profile = AttackProfile(
                f"{m.id} close combat",
                unit.profile.a,
                unit.profile.ws,
                unit.profile.s,
                UNARMED_AP,
                UNARMED_DAMAGE,
            )
            state = resolve(state, unit, target_id, profile, ctx)
    # 40k11 core rules [ext], Hazardous: the tests once the unit has fought.
    state = hazardous_tests(state, unit_id, used, ctx)
    # 40k11 core rules [ext], Consolidate: once the unit has fought.
    state = consolidate(state, unit_id, target_id, ctx)
    return add_phase_flag(state, FOUGHT, unit_id)


def apply_fight(state: MatchState, action: Fight, ctx: ApplyContext) -> MatchState:
    return fight(state, action.unit, action.target, action.weapon, ctx)


def _next_offer(state: MatchState) -> Unit | None:
    """The next unit of the side not playing that is engaged and has neither fought nor been asked."""
    side = other_side(state.active)
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != side or not on_table(u):
            continue
        if phase_flag(state, FOUGHT, uid) or phase_flag(state, OFFERED, uid):
            continue
        if engaged_with(state, u):
            return u
    return None


def offer_or_end(state: MatchState, ctx: ApplyContext) -> MatchState:
    """End of the active player's fights: offer the next defender a fight, or end the phase."""
    unit = _next_offer(state)
    if unit is None:
        return end_phase(state, PHASES_40K11, ctx)
    options = (*engaged_with(state, unit), DECLINE)
    decision = Decision(
        id=f"fight-{ctx.seq}-{unit.id}",
        side=unit.side,
        kind=FIGHT_DECISION,
        options=options,
        prompt=f"{unit.name} may fight: choose an enemy unit it is engaged with, or decline",
        rule=R_FIGHT,
        context={"unit": unit.id},
    )
    ctx.log(f"Side {unit.side}: {unit.name} may now fight.", R_FIGHT)
    state = add_phase_flag(state, OFFERED, unit.id)
    return replace(state, pending=decision)


def resume_fight_decision(state: MatchState, pending: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """40k11 Fight phase: the offered unit fights the chosen enemy, or declines to fight."""
    unit_id = pending.context.get("unit", "")
    state = replace(state, pending=None)
    unit = state.units.get(unit_id)
    target = state.units.get(choice)
    if choice == DECLINE or unit is None or target is None or not units_engaged(unit, target):
        ctx.log(f"{unit.name if unit else unit_id} does not fight.", R_FIGHT)
        state = add_phase_flag(state, FOUGHT, unit_id)
    else:
        state = fight(state, unit_id, choice, None, ctx)
    return offer_or_end(state, ctx)
