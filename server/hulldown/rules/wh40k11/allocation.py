"""40k11 core, Allocate attack: the defender chooses which model of the target unit takes a wound.

# 40k11 core, Allocate attack: the player controlling the target unit allocates each attack to a
# model of that unit; a model that has already lost wounds must be chosen.

The defender chooses (docs/decisions.md): when more than one model may take the wound, the attack
pauses on an ``allocate_wound`` decision whose options are the legal models and whose proposal is
the automatic choice (``automatic_model``). With a single legal model nothing is asked.
Choosing after the failed save rather than before it [decided, docs/rules-notes.md]: every model
of a unit shares one save characteristic, so the outcome is the same.
"""

from __future__ import annotations

from ...match.context import ApplyContext
from ...match.decisions import check_wound_taker
from ...match.state import Decision, Model, Unit
from .constants import R_ALLOCATE
from .units import live_models

DECISION_ALLOCATE = "allocate_wound"


def legal_models(unit: Unit) -> list[Model]:
    """40k11 core, Allocate attack: a live model that has already lost wounds must take the
    attack; with none, any live model may."""
    models = list(live_models(unit))
    wounded = [m for m in models if m.wounds < unit.profile.w]
    return wounded or models


def automatic_model(unit: Unit) -> Model | None:
    """The server's proposal [decided]: the first legal model (a wounded one, else the first live
    model in the unit's order)."""
    legal = legal_models(unit)
    return legal[0] if legal else None


def choose_model(unit: Unit, damage: int, ctx: ApplyContext) -> Model | None:
    """The model that takes the next failed save, as the target unit's owner answers."""
    legal = legal_models(unit)
    proposal = automatic_model(unit)
    if proposal is None or len(legal) == 1:
        return proposal
    options = tuple(m.id for m in legal)
    decision = Decision(
        id=f"allocate-{ctx.seq}-{unit.id}-{ctx.asked + 1}",
        side=unit.side,
        kind=DECISION_ALLOCATE,
        options=options,
        prompt=(
            f"{unit.name} failed a save ({damage} damage): choose the model that takes it "
            f"({', '.join(options)}; proposal: {proposal.id})"
        ),
        rule=R_ALLOCATE,
        context={"unit": unit.id, "damage": str(damage)},
        proposal=proposal.id,
    )
    answer = ctx.decide(decision, lambda given: check_wound_taker(options, given, R_ALLOCATE))
    return unit.models.get(answer.choice, proposal)
