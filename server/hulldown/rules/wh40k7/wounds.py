"""Hits against units of models with Toughness and Wounds (the minimal 40k7 core [ext]).

To wound: S vs T chart; wounds are allocated one at a time (module ``allocation``, 40k7 The
Shooting Phase, Allocate Wounds): to the closest model in sight of a firing model (Out Of Sight:
with none in sight the remaining wounds are lost), the owner choosing among equally close models
(Closest Models), or to a model picked at random for Randomly Allocated hits (Random
Allocation). The model takes its best save (armour unless the AP is equal or lower, cover if
allowed, invulnerable); a failed save costs a Wound (all of them on Instant Death, S >= 2T).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import LogScalar, MatchState
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .allocation import RANDOM_ALLOCATION, Allocator, Sight, closest_model, random_model
from .attacks import Hit, Tally
from .core import NO_WOUND, best_save, instant_death, to_wound
from .cover import infantry_cover
from .firing import BLAST_RADIUS
from .geo import alive
from .rolls import judge
from .wording import plural, rounded


def resolve_wounds(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    hits: list[Hit],
    attacker_origins: Sequence[g.Shape],
    exclude: Iterable[str],
    sight: Sight | None = None,
) -> tuple[MatchState, Tally]:
    """Roll to wound for every hit, then allocate and save one wound at a time. ``sight`` says
    whether a firing model sees a model (None: sight does not limit the allocation)."""
    tally = Tally()
    unit = state.units[uid]
    toughness = unit.profile.t
    wounds: list[Hit] = []
    for hit in hits:
        need = to_wound(hit.strength, toughness)
        if need >= NO_WOUND:
            ctx.log(f"{hit.source}: S{hit.strength} cannot wound T{toughness}.", refs.TO_WOUND)
            continue
        face = ctx.roll(
            "to wound", f"S{hit.strength} vs T{toughness}: {need}+", judge(need, "wound", "no wound")
        )
        if face >= need:
            wounds.append(hit)
    rolled = sum(1 for hit in hits if to_wound(hit.strength, toughness) < NO_WOUND)
    if wounds or rolled:
        # A to-wound roll with no success still gets its line and rule (not a bare dice line).
        told = plural(len(wounds), "wound") if wounds else "no wounds"
        ctx.log(
            f"{unit.name} suffers {told} from {plural(len(hits), 'hit')}.",
            refs.TO_WOUND,
            wounds=len(wounds),
            hits=len(hits),
            toughness=toughness,
        )
    excluded = tuple(exclude)
    allocated: list[LogScalar] = []  # the model each wound went to, in order (40k7 Wound Allocation)
    distances: list[LogScalar] = []  # its distance from the attackers: why it was the closest
    alloc = Allocator(attacker_origins, sight)
    for i, hit in enumerate(wounds):
        unit = state.units[uid]
        if not alive(unit):
            break
        if RANDOM_ALLOCATION in hit.rules:
            picked = random_model(unit, ctx, alloc)
            if picked is None:
                break
            model, distance = picked, 0.0
        else:
            origins: Sequence[g.Shape] = attacker_origins or [hit.origin]
            sighted = not any(r in BLAST_RADIUS for r in hit.rules)  # 40k7 Special Rules, Blast
            found = closest_model(unit, ctx, alloc, origins, hit.source, sighted)
            if found is None:
                lost = len(wounds) - i
                ctx.log(
                    f"No model of {unit.name} is in sight of the firers: "
                    f"{plural(lost, 'remaining wound is', 'remaining wounds are')} lost.",
                    refs.OUT_OF_SIGHT,
                    lost=lost,
                )
                break
            model, distance = found
        allocated.append(model.id)
        distances.append(rounded(distance))
        cover = hit.cover_override
        if cover is None and hit.cover_allowed:
            cover = infantry_cover(state, unit, model, hit.origin, excluded)
        save = best_save(unit.profile.sv, hit.ap, cover, unit.profile.inv)
        if save is not None:
            need, kind = save
            face = ctx.roll(f"{kind} save", f"{need}+", judge(need, "saved", "failed"))
            if face >= need:
                continue
        lost = model.wounds if instant_death(hit.strength, toughness) else 1
        remaining = max(0, model.wounds - lost)
        new_model = replace(model, wounds=remaining, alive=remaining > 0)
        models = dict(unit.models)
        models[model.id] = new_model
        tally.unsaved_wounds += 1
        if "pinning" in hit.rules:
            tally.pinning = True
        if remaining == 0:
            tally.casualties += 1
        still = any(m.alive for m in models.values())
        state = replace_unit(state, replace(unit, models=models, destroyed=not still))
        if not still:
            tally.destroyed.append(uid)
    if wounds:
        unit = state.units[uid]
        ctx.log(
            f"{unit.name}: {plural(tally.unsaved_wounds, 'unsaved wound')}, "
            f"{plural(tally.casualties, 'casualty', 'casualties')}; {plural(len(alive(unit)), 'model')} left.",
            refs.CASUALTIES,
            allocated=allocated,
            distances=distances,
            unsaved=tally.unsaved_wounds,
            casualties=tally.casualties,
        )
    return state, tally
