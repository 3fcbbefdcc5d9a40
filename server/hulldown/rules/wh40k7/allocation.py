"""40k7 The Shooting Phase, Allocate Wounds: which model of the target unit takes the next wound.

# 40k7 The Shooting Phase, Allocate Wounds: each wound goes to the enemy model closest to the
# firing unit. Closest Models: when two or more models are equally close, the owning player
# chooses; the chosen model stays "the closest" until the attack ends or it is slain. Random
# Allocation: when the direction of an attack cannot be told, or a rule says the hits are
# Randomly Allocated, a model of the unit is picked at random and stays "the closest" likewise.
# Out of Sight: a wound cannot be allocated to a model that no firing model can see; it goes to
# the closest visible model instead, and with none visible the remaining wounds are lost.
# 40k7 Special Rules, Blast: a Blast weapon's wounds go to the closest model "even if it is out
# of sight of any models from the attacking unit".

The owner chooses (docs/decisions.md): when the closest models tie (within
``EQUIDISTANT_WITHIN``), the attack pauses on an ``allocate_wound`` decision before the saving
throw, whose options are the tied models and whose proposal is the automatic choice (the lowest
model id among them, the allocation made before players were asked).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, Model, Unit
from .. import geometry as g
from . import refs
from .geo import CONTACT_EPS, alive, footprint
from .rolls import random_pick

DECISION_ALLOCATE = "allocate_wound"
# 40k7 Closest Models: "no discernible difference" in distance. Models whose distances from the
# firing unit are within this many inches of the closest are equally close [decided: the base
# contact tolerance, so two models both in base contact with an attacker always tie].
EQUIDISTANT_WITHIN = CONTACT_EPS
# A hit carrying this rule is Randomly Allocated (40k7 Transports, Effects of Damage on
# Passengers: the hits on the passengers of a transport that Explodes! or Crashes and Burns).
RANDOM_ALLOCATION = "random_allocation"

# Whether a model can be seen by at least one firing model (None: sight does not limit the
# allocation - close combat, explosions, hits with no firer).
Sight = Callable[[Model], bool]


@dataclass
class Allocator:
    """The allocation of one attack's wounds to one unit: what stays "the closest" between
    wounds (a model chosen among tied ones, or picked at random) and which models were seen."""

    origins: Sequence[g.Shape]
    sight: Sight | None = None
    chosen: str | None = None
    picked: str | None = None
    seen: dict[str, bool] = field(default_factory=dict)

    def visible(self, model: Model, sighted: bool = True) -> bool:
        if self.sight is None or not sighted:
            return True
        known = self.seen.get(model.id)
        if known is None:
            known = self.sight(model)
            self.seen[model.id] = known
        return known

    def distance(self, model: Model, origins: Sequence[g.Shape]) -> float:
        fp = footprint(model)
        return min((g.distance(o, fp) for o in origins), default=math.inf)


def random_model(unit: Unit, ctx: ApplyContext, alloc: Allocator) -> Model | None:
    """40k7 The Shooting Phase, Random Allocation: a model of the unit picked with a die from the
    match's dice, the closest until it is slain (then picked again)."""
    living = sorted(alive(unit), key=lambda m: m.id)
    if not living:
        return None
    current = unit.models.get(alloc.picked or "")
    if current is not None and current.alive:
        return current
    model = living[random_pick(ctx, len(living), "Random Allocation: the model hit")]
    alloc.picked = model.id
    ctx.log(
        f"Random Allocation: {model.id} of {unit.name} takes the wounds until it is slain "
        f"(one of {len(living)} models, picked by the dice).",
        refs.RANDOM_ALLOCATION,
        model=model.id,
        models=len(living),
    )
    return model


def closest_model(
    unit: Unit,
    ctx: ApplyContext,
    alloc: Allocator,
    origins: Sequence[g.Shape],
    label: str,
    sighted: bool = True,
) -> tuple[Model, float] | None:
    """40k7 The Shooting Phase, Allocate Wounds: the visible model closest to the firers, the
    owner choosing among equally close ones; None when no model is in sight (Out of Sight).
    ``sighted`` False: sight does not limit this wound (a Blast weapon's)."""
    current = unit.models.get(alloc.chosen or "")
    if current is not None and current.alive and alloc.visible(current, sighted):
        return current, alloc.distance(current, origins)
    ranked = sorted(((alloc.distance(m, origins), m.id, m) for m in alive(unit)), key=lambda x: (x[0], x[1]))
    visible: list[tuple[float, str, Model]] = []
    for d, mid, m in ranked:
        if visible and d > visible[0][0] + EQUIDISTANT_WITHIN:
            break
        if alloc.visible(m, sighted):
            visible.append((d, mid, m))
    if not visible:
        return None
    tied = [m for d, _, m in visible]
    proposal = tied[0]
    if len(tied) == 1:
        return proposal, visible[0][0]
    options = tuple(m.id for m in tied)
    decision = Decision(
        id=f"allocate-{ctx.seq}-{unit.id}-{ctx.asked + 1}",
        side=unit.side,
        kind=DECISION_ALLOCATE,
        options=options,
        prompt=(
            f"{label} wounds {unit.name}: {', '.join(options)} are equally close to the attackers; "
            f"choose the model that takes the wound (proposal: {proposal.id})"
        ),
        rule=refs.CLOSEST_MODELS,
        context={"unit": unit.id, "damage": "1"},
        proposal=proposal.id,
    )
    answer = ctx.decide(decision, lambda given: check_model(options, given))
    model = unit.models.get(answer.choice, proposal)
    alloc.chosen = model.id
    return model, alloc.distance(model, origins)


def closest_member(
    target: Unit, members: list[Unit], ctx: ApplyContext, distance: Callable[[Unit], float], chosen: list[str]
) -> Unit:
    """40k7 Vehicle Squadrons: a hit goes to the member closest to the firing unit, "exactly like
    you would resolve Wounds": equally close members are the owner's choice (Closest Models), the
    chosen one staying the closest until destroyed (``chosen`` keeps it across hits)."""
    kept = next((u for u in members if chosen and u.id == chosen[0]), None)
    if kept is not None:
        return kept
    ranked = sorted(members, key=lambda u: (distance(u), u.id))
    tied = [u for u in ranked if distance(u) <= distance(ranked[0]) + EQUIDISTANT_WITHIN]
    if len(tied) == 1:
        return tied[0]
    options = tuple(u.id for u in tied)
    proposal = tied[0]
    decision = Decision(
        id=f"allocate-{ctx.seq}-{target.id}-{ctx.asked + 1}",
        side=target.side,
        kind=DECISION_ALLOCATE,
        options=options,
        prompt=(
            f"A hit on the squadron {target.name}: {', '.join(options)} are equally close to the "
            f"firers; choose the vehicle that takes it (proposal: {proposal.id})"
        ),
        rule=refs.CLOSEST_MODELS,
        context={"unit": target.id, "damage": "1 hit"},
        proposal=proposal.id,
    )
    answer = ctx.decide(decision, lambda given: check_model(options, given))
    member = next((u for u in tied if u.id == answer.choice), proposal)
    chosen[:] = [member.id]
    return member


def check_model(options: tuple[str, ...], given: Answer) -> Rejection | None:
    """40k7 Closest Models: only one of the equally close models may be chosen."""
    if given.choice in options:
        return None
    return reject(
        "invalid_choice",
        refs.CLOSEST_MODELS,
        f"{given.choice!r} cannot take this wound: the equally close models are {', '.join(options)}",
        choice=given.choice,
    )
