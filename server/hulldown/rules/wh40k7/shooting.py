"""The Shooting phase for 40k7 units (40k7 Vehicles and Shooting to Obscured Targets, and the minimal core).

Validation: phase, the unit may shoot (not Ran, Flat Out, already shot, locked in combat),
then the pure plan (module ``firing``). Application: if the target may Jink, the target's owner
decides first (a pending decision; not asked when no hit of the shot on it could take a cover
save, JINK_AGAINST_IGNORED_COVER); then every weapon rolls to hit (Snap Shots on a 6), the
firer aims each blast marker (which then scatters) and each template (module ``aim``), and all
hits are resolved per target (module ``resolve``). A unit of models that loses 25% of its models
in the phase takes a Morale check; Pinning weapons force a Pinning test.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from ...match.actions import Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Side
from . import refs
from .aim import Firer, aim_blast, aim_template, angle_of, check_given_aim
from .attacks import Hit, Tally
from .blasts import blast_centre, models_under_circle, models_under_shape, template_polygon
from .core import shooting_to_hit
from .firing import NO_CHARGE_TYPES, Plan, WeaponShot, ignores_cover, locked_in_combat, plan_shooting
from .morale import casualty_morale, note_strength, pinning_test
from .penetration import PenProfile
from .resolve import resolve_hits
from .rolls import judge
from .squadrons import squadron_members
from .status import (
    add_phase_flag,
    end_of_next_turn,
    flag_unit,
    set_status,
    start_of_next_turn,
)
from .types import can_jink, is_vehicle
from .wording import inches, plural, rounded


def validate_shoot(state: MatchState, action: Shoot, overwatch: bool = False) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "shooting" and not overwatch:
        return reject(
            "wrong_phase", refs.SHOOTING, f"units shoot in the Shooting phase, not the {state.phase} phase"
        )
    for flag, why in (("ran", "Ran"), ("flat_out", "moved Flat Out"), ("shot", "has already shot")):
        if unit.flag(flag):
            return reject(
                f"already_{flag}" if flag == "shot" else flag,
                refs.SHOOTING,
                f"{unit.name} {why} this phase: it cannot shoot",
            )
    if unit.embarked_in is None and locked_in_combat(state, unit):
        return reject(
            "locked_in_combat", refs.SHOOTING, f"{unit.name} is locked in close combat and cannot shoot"
        )
    plan = plan_shooting(state, action, overwatch)
    if isinstance(plan, Rejection):
        return plan
    for shot in plan.shots:
        if shot.aim is not None:
            problem = check_given_aim(state, Firer(unit, shot.model, shot))
            if problem is not None:
                return problem
    return None


# A Jink decision for a shot none of whose hits on the target could take a cover save (every
# weapon fired at it ignores cover: Template weapons, Ignores Cover weapons; no Blast without it
# that could scatter onto it): not asked [decided]. 40k7 Special Rules, Jink: the owner "may
# declare" a Jink when the unit is selected as a target, before any To Hit roll - the weapons are
# known then. Jink gives only a cover save (none against these hits) at the cost of Snap Shots; a
# Jink declared later in the turn, at the next shot that allows cover (asked then), gives the same
# save with the same cost and expiry, so declining here loses nothing.
JINK_AGAINST_IGNORED_COVER = False


def cover_possible(plan: Plan, tid: str) -> bool:
    """40k7 Special Rules, Ignores Cover: whether a hit of the shot on target ``tid`` could take a
    cover save - a weapon without Ignores Cover fired at it, or a Blast without it fired at any
    target of the shot (its marker may scatter onto ``tid``)."""
    return any(not ignores_cover(s.weapon) and (s.target == tid or s.blast is not None) for s in plan.shots)


def _may_jink(state: MatchState, tid: str) -> bool:
    """40k7 Special Rules, Jink: a member of the target squadron can Jink and has not yet."""
    members = squadron_members(state, state.units[tid])
    return any(can_jink(m) and "jink" not in m.statuses for m in members)


def _jink_target(state: MatchState, plan: Plan, asked: tuple[str, ...]) -> str | None:
    """40k7 Special Rules, Jink: the next target of the shot whose owner is asked whether it Jinks."""
    for tid in plan.targets:
        if tid in asked or not _may_jink(state, tid):
            continue
        if JINK_AGAINST_IGNORED_COVER or cover_possible(plan, tid):
            return tid
    return None


def _log_jink_not_asked(state: MatchState, ctx: ApplyContext, plan: Plan) -> None:
    """Say which targets that could Jink were not asked (JINK_AGAINST_IGNORED_COVER)."""
    if JINK_AGAINST_IGNORED_COVER:
        return
    for tid in plan.targets:
        if _may_jink(state, tid) and not cover_possible(plan, tid):
            ctx.log(
                f"{state.units[tid].name} is not asked to Jink: every weapon fired at it ignores cover, "
                "so a Jink would give it no save against this shot.",
                refs.JINK,
                target=tid,
            )


def apply_shoot(
    state: MatchState, side: Side, action: Shoot, ctx: ApplyContext, asked: tuple[str, ...] = ()
) -> MatchState:
    """Apply a validated Shoot; may stop on a Jink decision for the target's owner."""
    plan = plan_shooting(state, action)
    if isinstance(plan, Rejection):
        ctx.log(f"Shooting abandoned: {plan.message}", plan.rule)
        return state
    jinker = _jink_target(state, plan, asked)
    if jinker is not None:
        target = state.units[jinker]
        shooter = state.units[action.unit]
        decision = Decision(
            id=f"jink-{ctx.seq}",
            side=target.side,
            kind="jink",
            options=("jink", "no"),
            prompt=(
                f"{target.name} is targeted by {shooter.name}: Jink? (4+ cover save until the start of its "
                f"next Movement phase; Snap Shots only until the end of its next turn)"
            ),
            rule=refs.JINK,
            context={
                "action": msgspec.json.encode(action).decode(),
                "by": side,
                "target": jinker,
                "asked": msgspec.json.encode(list(asked)).decode(),
            },
        )
        ctx.log(f"{target.name} may Jink: waiting for side {target.side}.", refs.JINK)
        return replace(state, pending=decision)
    _log_jink_not_asked(state, ctx, plan)
    state = execute_plan(state, ctx, plan)
    unit = state.units[action.unit]
    flags = ["shot", *(f"shot_at:{t}" for t in plan.targets)]
    if any(s.weapon.type in NO_CHARGE_TYPES for s in plan.shots):
        flags.append("fired_heavy")
    state = flag_unit(state, unit.id, *flags)
    if unit.squadron is not None:
        state = add_phase_flag(state, f"squadron_target:{unit.squadron}:{plan.targets[0]}")
    if unit.embarked_in is not None:
        state = flag_unit(state, unit.embarked_in, "passengers_fired")
    return state


def _asked(text: str) -> tuple[str, ...]:
    """The targets already asked about Jink: a JSON list of unit ids (ids may hold a comma);
    older decisions held a comma-separated text."""
    if text.startswith("["):
        return tuple(msgspec.json.decode(text, type=list[str]))
    return tuple(x for x in text.split(",") if x)


def resume_jink(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """The target's owner answered the Jink decision; carry on with the shooting."""
    action = msgspec.json.decode(decision.context["action"], type=Shoot)
    by: Side = "a" if decision.context["by"] == "a" else "b"
    tid = decision.context["target"]
    asked = (*_asked(decision.context.get("asked", "")), tid)
    state = replace(state, pending=None)
    target = state.units[tid]
    if choice == "jink":
        for member in squadron_members(state, target):
            if not can_jink(member):
                continue
            state = set_status(state, member.id, "jink", start_of_next_turn(state, member.side))
            state = set_status(state, member.id, "snap_only", end_of_next_turn(state, member.side))
        ctx.log(
            f"{target.name} Jinks: 4+ cover save, Snap Shots only until the end of its next turn.", refs.JINK
        )
    else:
        ctx.log(f"{target.name} does not Jink.", refs.JINK)
    return apply_shoot(state, by, action, ctx, asked)


def _pen(shot: WeaponShot) -> PenProfile:
    w = shot.weapon
    return PenProfile(
        w.strength,
        ordnance=w.type == "ordnance",
        melta_half=shot.melta_half,
        armourbane="armourbane" in w.rules,
        lance="lance" in w.rules,
        haywire="haywire" in w.rules,
    )


def execute_plan(state: MatchState, ctx: ApplyContext, plan: Plan, overwatch: bool = False) -> MatchState:
    """Roll to hit, place blasts and templates, resolve every hit (40k7 Vehicle Facing to Obscured
    Targets)."""
    unit = state.units[plan.unit]
    bs = unit.profile.bs
    exclude = tuple(u.id for u in squadron_members(state, unit)) + (
        (unit.embarked_in,) if unit.embarked_in else ()
    )
    hits_by_target: dict[str, list[Hit]] = {}
    # Every weapon that fires at a unit, hit or miss: the obscured majority counts them all
    # (seed 001, Obscured Targets: "the majority of the firing models").
    firers_by_target: dict[str, list[Hit]] = {}
    for shot in plan.shots:
        w = shot.weapon
        label = f"{unit.name}'s {w.name}"
        group = w.id if is_vehicle(unit) else unit.id
        hit = Hit(
            _pen(shot), w.ap, shot.origin, label, group, cover_allowed=not ignores_cover(w), rules=w.rules
        )
        firers_by_target.setdefault(shot.target, []).append(hit)
        if shot.template:
            toward = aim_template(state, ctx, Firer(unit, shot.model, shot), label)
            poly = template_polygon(shot.origin, toward, w.range)
            under = models_under_shape(state, poly, {unit.id})
            ctx.log(
                f"{label}: the template covers {plural(sum(under.values()), 'model')}.",
                refs.BLAST,
                toward=[round(toward[0], 3), round(toward[1], 3)],
                angle=round(angle_of(shot.origin, toward), 1),
                covered=sum(under.values()),
            )
            for uid, n in under.items():
                hits_by_target.setdefault(uid, []).extend([hit] * n)
            continue
        if shot.blast is not None:
            for _ in range(shot.shots):
                hole = aim_blast(state, ctx, Firer(unit, shot.model, shot), shot.blast, label)
                centre = blast_centre(ctx, hole, bs, label)
                for uid, n in models_under_circle(state, centre, shot.blast).items():
                    hits_by_target.setdefault(uid, []).extend([hit] * n)
            continue
        need = shooting_to_hit(bs, shot.snap)
        kind = "snap shot" if shot.snap else "to hit"
        faces = [ctx.roll(kind, f"{need}+", judge(need, "hit", "miss")) for _ in range(shot.shots)]
        n_hits = sum(1 for f in faces if f >= need)
        ctx.log(
            f"{label} fires {plural(shot.shots, 'Snap Shot' if shot.snap else 'shot')} at "
            f"{state.units[shot.target].name} ({inches(shot.distance)}): {plural(n_hits, 'hit')} on {need}+.",
            refs.SNAP if shot.snap else refs.TO_HIT,
            weapon=w.id,
            target=shot.target,
            shots=shot.shots,
            snap=shot.snap,
            to_hit=need,
            bs=bs,
            distance=rounded(shot.distance),
            hits=n_hits,
        )
        if n_hits:
            hits_by_target.setdefault(shot.target, []).extend([hit] * n_hits)
    pinned: list[str] = []
    for uid, hits in hits_by_target.items():
        if state.units[uid].destroyed:
            continue
        state = note_strength(state, uid)
        tally: Tally
        state, tally = resolve_hits(
            state,
            ctx,
            uid,
            hits,
            attacker=unit.id,
            kind="shooting",
            exclude=exclude,
            firers=firers_by_target.get(uid, ()),
        )
        if tally.pinning:
            pinned.append(uid)
    for uid in hits_by_target:
        state = casualty_morale(state, ctx, uid)
    for uid in pinned:
        state = pinning_test(state, ctx, uid)
    return state
