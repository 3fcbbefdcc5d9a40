"""The 40k7 Psychic phase for vehicles with Psychic Pilot (docs/psychic.md).

Seed 001: "Vehicles with the Psychic Pilot special rule manifest their psychic powers during the
Psychic phase, as normal"; the published 40k7 rules (The Psychic Phase) give the sequence:

1. Generating Warp Charge: at the start of the phase the player whose turn it is rolls a D6; each
   player's pool is that many dice plus the Mastery Levels of its Psykers on the table.
2. Manifesting (the ``manifest`` action): a Psyker of the player whose turn it is names a power
   it has not attempted this phase and a target, and expends Warp Charge dice: each 4+ harnesses
   a point; as many as the power's Warp Charge cost pass the Psychic test. Two or more 6s: Perils
   of the Warp (module ``perils``), whether the test passed or not.
3. Deny the Witch: if the test passed and the target's player has Warp Charge left, that player
   decides how many dice to expend (a pending decision); each 6+ (+1 if the target is a Psyker,
   +1 if its Mastery Level is higher, +1 for Adamantium Will) nullifies a point; nullifying every
   harnessed point denies the power.
4. The power resolves: a witchfire power is a shooting attack with its weapon profile.

The phase ends when the player whose turn it is has no Warp Charge left after a psychic action,
or when that player ends it; the pools are then lost (they are phase flags).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from msgspec.structs import replace

from ...match.actions import Fire, Manifest, Shoot
from ...match.context import ApplyContext
from ...match.identity_cache import LastOne
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Side, Unit, other_side
from ..phases import PHASES_40K7
from . import refs
from .firing import locked_in_combat, plan_shooting
from .perils import perils_of_the_warp
from .rolls import judge
from .shooting import execute_plan
from .squadrons import squadron_members
from .warp import (
    attempted,
    has_adamantium_will,
    is_psyker,
    mark_attempted,
    mastery_level,
    mastery_total,
    pool,
    powers,
    psykers_on_table,
    warp_charge_cost,
    with_pool,
)
from .wording import plural

PHASE = "psychic"
HARNESS_ON = 4  # Take Psychic Test: "for each individual result of 4+ ... harnessed one point"
PERILS_SIXES = 2  # "two or more dice rolls (before applying modifiers) were rolls of a 6"
NULLIFY_ON = 6  # Deny the Witch: "for each individual result of 6+ ... nullified"
DENY_BONUS = 1  # each modifier of the Deny the Witch table is +1
DECISION_DENY = "deny_the_witch"
# A Psychic phase in which the player whose turn it is has no Psyker (knowing a power) on the table passes at
# once, with no Warp Charge roll: no psychic action can be taken in it and no Deny the Witch can
# follow, so nothing in it could change the game [decided].
SKIP_PHASE_WITHOUT_PSYKER = True
# Jink against a witchfire power: not offered (a unit that Jinked earlier keeps its cover save)
# [decided: the Psychic phase asks one decision per power, Deny the Witch].
JINK_AGAINST_WITCHFIRE = False


EndPhase = Callable[[MatchState, ApplyContext], MatchState]
"""The edition's end of the current phase (end-of-phase morale, passenger tests, next phase)."""


# The turn without its Psychic phase: the order a side with no Psyker plays.
PHASES_WITHOUT_PSYCHIC: tuple[str, ...] = tuple(p for p in PHASES_40K7 if p != PHASE)
# The phase the Psychic phase follows (the Movement phase): from any other phase both orders
# lead to the same next phase.
PHASE_BEFORE_PSYCHIC = PHASES_40K7[PHASES_40K7.index(PHASE) - 1]


def phase_order(state: MatchState) -> tuple[str, ...]:
    """The phases the side to play goes through, to take the next one from: without the Psychic
    phase when, at the end of its Movement phase, it has no Psyker knowing a power
    (SKIP_PHASE_WITHOUT_PSYKER). A match with no Psyker therefore plays, and logs, exactly the
    turn it played before the phase existed. Only the end of the Movement phase asks about
    Psykers: from any other phase the next phase is the same in both orders."""
    if (
        SKIP_PHASE_WITHOUT_PSYKER
        and state.phase == PHASE_BEFORE_PSYCHIC
        and not has_caster(state, state.active)
    ):
        return PHASES_WITHOUT_PSYCHIC
    return PHASES_40K7


# Asked at the end of every Movement phase: answered once per units map object and side, for the
# last map asked about (the states between two changes to a unit share it; match/identity_cache.py).
_casters: LastOne[dict[str, Unit], dict[Side, bool]] = LastOne()


def has_caster(state: MatchState, side: Side) -> bool:
    """40k7 The Psychic Phase: ``side`` has a Psyker on the table that knows a power."""
    per_side = _casters.get(state.units)
    if per_side is None:
        per_side = _casters.put(state.units, {})
    found = per_side.get(side)
    if found is None:
        found = per_side[side] = any(powers(u) for u in psykers_on_table(state, side))
    return found


def begin_phase(state: MatchState, ctx: ApplyContext) -> MatchState:
    """40k7 Generating Warp Charge: "at the beginning of each Psychic phase, the player whose turn
    it is rolls a D6 ... each player then adds up the Mastery Levels of all the Psyker units they
    currently have on the tabletop"."""
    active = state.active
    roll = ctx.roll("Warp Charge", "D6")
    opponent = other_side(active)
    mine, theirs = roll + mastery_total(state, active), roll + mastery_total(state, opponent)
    state = with_pool(with_pool(state, active, mine), opponent, theirs)
    ctx.log(
        f"Warp Charge: {roll} on the D6; side {active} has {plural(mine, 'Warp Charge point')}, "
        f"side {opponent} {theirs}.",
        refs.WARP_CHARGE,
        roll=roll,
        **{f"pool_{active}": mine, f"pool_{opponent}": theirs},
    )
    return state


def _as_shoot(action: Manifest) -> Shoot:
    return Shoot(action.unit, (Fire(action.power, action.target, snap=action.snap),))


def validate_manifest(state: MatchState, side: Side, action: Manifest) -> Rejection | None:
    """Can the unit attempt to manifest this power now, with these dice, at this target?"""
    if state.phase != PHASE:
        return reject(
            "wrong_phase",
            refs.MANIFEST,
            f"psychic powers are manifested in the Psychic phase, not the {state.phase} phase",
        )
    unit = state.units[action.unit]
    if not is_psyker(unit):
        return reject(
            "not_a_psyker",
            refs.PSYCHIC_PILOT,
            f"{unit.name} is no Psyker (only vehicles with Psychic Pilot manifest powers here)",
            unit=unit.id,
        )
    power = unit.weapons.get(action.power)
    known = [w.id for w in powers(unit)]
    if power is None or power.id not in known:
        return reject(
            "unknown_power",
            refs.MANIFEST,
            f"{unit.name} knows no psychic power {action.power!r} (it knows: {', '.join(known) or 'none'})",
            power=action.power,
        )
    if attempted(state, unit, power):
        return reject(
            "power_already_attempted",
            refs.MANIFEST,
            f"{unit.name} already attempted {power.name} this Psychic phase",
            power=power.id,
        )
    points = pool(state, side)
    if not 1 <= action.dice <= points:
        return reject(
            "not_enough_warp_charge",
            refs.PSYCHIC_TEST,
            f"expend 1 to {points} Warp Charge points (the pool of side {side}), not {action.dice}",
            dice=action.dice,
            pool=points,
        )
    if locked_in_combat(state, unit):
        return reject(
            "locked_in_combat",
            refs.WITCHFIRE,
            f"{unit.name} is locked in close combat: it cannot manifest a witchfire power",
        )
    plan = plan_shooting(state, _as_shoot(action), psychic=True)
    return plan if isinstance(plan, Rejection) else None


def apply_manifest(
    state: MatchState, side: Side, action: Manifest, ctx: ApplyContext, end_phase: EndPhase
) -> MatchState:
    """Expend the dice, take the Psychic test (and Perils), then Deny the Witch or resolve."""
    unit = state.units[action.unit]
    power = unit.weapons[action.power]
    cost = warp_charge_cost(power)
    left = pool(state, side) - action.dice
    state = mark_attempted(with_pool(state, side, left), unit, power)
    faces = [
        ctx.roll("Psychic test", f"{HARNESS_ON}+", judge(HARNESS_ON, "harnessed", "not harnessed"))
        for _ in range(action.dice)
    ]
    harnessed = sum(1 for f in faces if f >= HARNESS_ON)
    sixes = sum(1 for f in faces if f == 6)
    passed = harnessed >= cost
    ctx.log(
        f"{unit.name} expends {plural(action.dice, 'Warp Charge point')} on {power.name} (Warp Charge "
        f"{cost}): {harnessed} harnessed on {HARNESS_ON}+, the Psychic test is "
        f"{'passed' if passed else 'failed'} ({left} left in the pool).",
        refs.PSYCHIC_TEST,
        power=power.id,
        dice=action.dice,
        harnessed=harnessed,
        cost=cost,
        sixes=sixes,
        passed=passed,
        pool=left,
    )
    if sixes >= PERILS_SIXES:
        state = perils_of_the_warp(state, ctx, unit.id)
    if not passed:
        return _after_psychic_action(state, ctx, end_phase)
    opponent = other_side(side)
    their_pool = pool(state, opponent)
    if their_pool == 0:
        ctx.log(f"Side {opponent} has no Warp Charge left to Deny the Witch.", refs.DENY_THE_WITCH)
        state = _resolve_power(state, action, ctx)
        return _after_psychic_action(state, ctx, end_phase)
    target = state.units[action.target]
    need = deny_target(state, action)
    decision = Decision(
        id=f"deny-{ctx.seq}",
        side=opponent,
        kind=DECISION_DENY,
        options=tuple(str(n) for n in range(their_pool + 1)),
        prompt=(
            f"{unit.name} manifests {power.name} at {target.name} with {plural(harnessed, 'harnessed point')}: "
            f"expend how many Warp Charge points to Deny the Witch? (each {need}+ nullifies one; "
            f"{their_pool} in your pool; 0: do not try)"
        ),
        rule=refs.DENY_THE_WITCH,
        context={"action": msgspec.json.encode(action).decode(), "by": side, "harnessed": str(harnessed)},
    )
    ctx.log(f"Side {opponent} may Deny the Witch: waiting for its answer.", refs.DENY_THE_WITCH)
    return replace(state, pending=decision)


def deny_target(state: MatchState, action: Manifest) -> int:
    """The roll each Deny the Witch die needs: 6+, less the modifiers of the target unit (40k7
    Deny the Witch: "the target unit contains one or more models with" Psychic Pilot, a Mastery
    Level higher than the manifesting Psyker's, Adamantium Will). A vehicle squadron is a single
    unit (40k7 Vehicles, Vehicle Squadrons): every vehicle of it counts."""
    target = state.units[action.target]
    caster = state.units[action.unit]
    models = squadron_members(state, target) or [target]
    bonus = 0
    if any(is_psyker(u) for u in models):
        bonus += DENY_BONUS
    if max(mastery_level(u) for u in models) > mastery_level(caster):
        bonus += DENY_BONUS
    if any(has_adamantium_will(u) for u in models):
        bonus += DENY_BONUS
    return NULLIFY_ON - bonus


def resume_deny(
    state: MatchState, decision: Decision, choice: str, ctx: ApplyContext, end_phase: EndPhase
) -> MatchState:
    """The target's player answered: roll the Deny the Witch dice, then the power resolves or not."""
    action = msgspec.json.decode(decision.context["action"], type=Manifest)
    harnessed = int(decision.context["harnessed"])
    state = replace(state, pending=None)
    spent = int(choice)
    denier = decision.side
    if spent == 0:
        ctx.log(f"Side {denier} does not try to Deny the Witch.", refs.DENY_THE_WITCH, dice=0)
        state = _resolve_power(state, action, ctx)
        return _after_psychic_action(state, ctx, end_phase)
    need = deny_target(state, action)
    left = pool(state, denier) - spent
    state = with_pool(state, denier, left)
    faces = [ctx.roll("Deny the Witch", f"{need}+", judge(need, "nullified", "-")) for _ in range(spent)]
    nullified = sum(1 for f in faces if f >= need)
    denied = nullified >= harnessed
    ctx.log(
        f"Side {denier} expends {plural(spent, 'Warp Charge point')} to Deny the Witch: "
        f"{nullified} of {harnessed} harnessed nullified on {need}+ - "
        f"{'the power is denied' if denied else 'the power manifests'} ({left} left in the pool).",
        refs.DENY_THE_WITCH,
        dice=spent,
        need=need,
        nullified=nullified,
        harnessed=harnessed,
        denied=denied,
        pool=left,
    )
    if not denied:
        state = _resolve_power(state, action, ctx)
    return _after_psychic_action(state, ctx, end_phase)


def _resolve_power(state: MatchState, action: Manifest, ctx: ApplyContext) -> MatchState:
    """40k7 Witchfire: "psychic shooting attacks" - the power's profile rolls to hit and its hits
    are resolved like any shooting attack (the Psyker's BS, its speed's Snap Shots)."""
    unit = state.units[action.unit]
    plan = plan_shooting(state, _as_shoot(action), psychic=True)
    if isinstance(plan, Rejection):
        ctx.log(f"{unit.weapons[action.power].name} goes off with no effect: {plan.message}.", plan.rule)
        return state
    ctx.log(f"{unit.name} manifests {unit.weapons[action.power].name}.", refs.WITCHFIRE, power=action.power)
    return execute_plan(state, ctx, plan)


def _after_psychic_action(state: MatchState, ctx: ApplyContext, end_phase: EndPhase) -> MatchState:
    """40k7 Generating Warp Charge: "if, after resolving a psychic action ... the player whose turn
    it is has 0 Warp Charge points remaining, the Psychic phase ends"."""
    if state.phase != PHASE or state.pending is not None or state.ended or pool(state, state.active) > 0:
        return state
    ctx.log(f"Side {state.active} has no Warp Charge left: the Psychic phase ends.", refs.WARP_CHARGE)
    return end_phase(state, ctx)
