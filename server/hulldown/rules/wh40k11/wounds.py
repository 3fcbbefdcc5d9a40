"""Inflicting damage on a unit in 40k11 (40k11 core, Inflict damage), shared by attacks
(attacks.py) and the mortal wounds of a Destroyed Transport (destroyed.py)."""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import Unit
from .allocation import choose_model


def inflict(unit: Unit, damage: int, ctx: ApplyContext) -> tuple[Unit, str]:
    """40k11 core, Inflict damage: the allocated model (40k11 core, Allocate attack: the owner's
    choice, rules/wh40k11/allocation.py) loses wounds; excess damage is lost; at 0 wounds it is
    destroyed, and a unit with no models left is destroyed."""
    model = choose_model(unit, damage, ctx)
    if model is None:
        return unit, "no model left"
    wounds = max(0, model.wounds - damage)
    new_model = replace(model, wounds=wounds, alive=wounds > 0)
    models = dict(unit.models)
    models[model.id] = new_model
    hurt = replace(unit, models=models)
    if not any(m.alive for m in models.values()):
        hurt = replace(hurt, destroyed=True)
        return hurt, f"{model.id} is destroyed; {unit.name} is destroyed"
    if wounds == 0:
        return hurt, f"{model.id} is destroyed"
    return hurt, f"{model.id} has {wounds} wound{'s' if wounds != 1 else ''} left"
