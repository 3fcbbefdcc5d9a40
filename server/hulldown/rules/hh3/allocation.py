"""hh3 core, Wound Allocation: the target unit's owner chooses the model that takes a wound.

# hh3 core, Wound Allocation: a wound is allocated by the player controlling the target unit to
# one of its models; a model that has already lost wounds must take it. A Paragon allocates the
# hits it inflicts itself (seed glossary, Paragon): then the attacker's model, while alive.

The owner chooses (docs/decisions.md): when more than one model may take the wound, the attack
pauses on an ``allocate_wound`` decision, before the saving throw (the chosen model's own save
and cover are used), whose options are the legal models and whose proposal is the automatic
choice (``automatic_model``: already wounded first, else the closest to where the hit came from).
With a single legal model, or a Paragon's aimed hit, nothing is asked.
"""

from __future__ import annotations

import math

from ...match.context import ApplyContext
from ...match.decisions import check_wound_taker
from ...match.state import Decision, Model, Unit
from .. import geometry as g
from .core import R_CORE_ALLOCATE, alive_models, in_challenge, model_profile
from .hits import Hit

DECISION_ALLOCATE = "allocate_wound"


def legal_models(unit: Unit) -> list[Model]:
    """hh3 core, Wound Allocation: a live model that has already lost wounds must take the wound;
    with none, any live model may. A model fighting a challenge takes none (hh3 core, Challenge
    Sub-Phase: it cannot be allocated wounds in the Fight sub-phase)."""
    alive = [m for m in alive_models(unit) if not in_challenge(unit, m.id)]
    wounded = [m for m in alive if m.wounds < model_profile(unit, m).w]
    return wounded or alive


def automatic_model(unit: Unit, source: g.Point) -> Model | None:
    """The proposal [decided]: among the legal models, the closest to where the hit came from
    (ties: model id)."""
    legal = legal_models(unit)
    if not legal:
        return None
    return min(legal, key=lambda m: (math.hypot(m.pos.x - source[0], m.pos.y - source[1]), m.id))


def allocate(unit: Unit, hit: Hit, ctx: ApplyContext) -> Model | None:
    """The model that takes the wound ``hit`` caused: the Paragon's aim, else the owner's choice."""
    aimed = unit.models.get(hit.aim or "")
    if aimed is not None and aimed.alive:
        return aimed
    proposal = automatic_model(unit, hit.source)
    legal = legal_models(unit)
    if proposal is None or len(legal) == 1:
        return proposal
    options = tuple(m.id for m in legal)
    decision = Decision(
        id=f"allocate-{ctx.seq}-{unit.id}-{ctx.asked + 1}",
        side=unit.side,
        kind=DECISION_ALLOCATE,
        options=options,
        prompt=(
            f"{hit.label} wounds {unit.name}: choose the model that takes the wound "
            f"({', '.join(options)}; proposal: {proposal.id}, the closest)"
        ),
        rule=R_CORE_ALLOCATE,
        context={"unit": unit.id, "damage": str(hit.damage)},
        proposal=proposal.id,
    )
    answer = ctx.decide(decision, lambda given: check_wound_taker(options, given, R_CORE_ALLOCATE))
    return unit.models.get(answer.choice, proposal)
