"""40k11 core rules, Deadly Demise [ext] (the rule text the 40k11 rosters carry, as the published
10th edition core rules'; docs/rules-notes.md, 40k11 Deadly Demise).

Each time a model with Deadly Demise X is destroyed, after the units embarked within it have made
their emergency disembark moves (destroyed.py), roll one D6: on a 6 each unit within 6" of that
model suffers X mortal wounds (a random X rolled separately for each unit). The decided points are
in constants.py (Deadly Demise).
"""

from __future__ import annotations

from ...match.context import ApplyContext
from ...match.dice_text import parse_dice
from ...match.state import MatchState, Unit
from ...match.turns import replace_unit
from ..geometry import distance
from .constants import DEADLY_DEMISE_ON, DEADLY_DEMISE_RANGE, EPS, R_DEADLY_DEMISE
from .destroyed import destroyed_transport
from .dice import roll_dice
from .space import extent
from .units import deadly_demise, live_models, on_table
from .wounds import inflict


def model_destroyed(state: MatchState, unit_id: str, model_id: str, ctx: ApplyContext) -> MatchState:
    """A model of ``unit_id`` was just destroyed: 40k11 core rules, Transports, Destroyed Transport
    (when that destroyed the unit and it carries units, they disembark first), then 40k11 core
    rules, Deadly Demise (its roll, when the unit has the ability)."""
    unit = state.units[unit_id]
    if unit.destroyed and unit.passengers:
        state = destroyed_transport(state, unit_id, ctx)
    if deadly_demise(state.units[unit_id]) is not None:
        state = deadly_demise_roll(state, unit_id, model_id, ctx)
    return state


def in_range(state: MatchState, unit: Unit, model_id: str) -> list[Unit]:
    """40k11 core rules, Deadly Demise: the units within 6" of the destroyed model, measured to it
    as every 40k11 distance is (space.extent); only units on the table, not its own [decided]."""
    shape = extent(unit, unit.models[model_id])
    return [
        other
        for _, other in sorted(state.units.items())
        if other.id != unit.id
        and on_table(other)
        and any(distance(shape, extent(other, m)) <= DEADLY_DEMISE_RANGE + EPS for m in live_models(other))
    ]


def deadly_demise_roll(state: MatchState, unit_id: str, model_id: str, ctx: ApplyContext) -> MatchState:
    """40k11 core rules, Deadly Demise X: one D6 for the destroyed model; on a 6 each unit within
    6" suffers X mortal wounds (X rolled for each unit when random), each one 1 damage on a model
    its owner allocates, no save (as the Destroyed Transport's, destroyed.py). A model destroyed by
    them that has Deadly Demise rolls in turn [decided]."""
    unit = state.units[unit_id]
    value = deadly_demise(unit) or ""
    who = unit.name if len(unit.models) == 1 else f"{unit.name} ({model_id})"
    die = ctx.roll(
        "Deadly Demise",
        f"{DEADLY_DEMISE_ON}: mortal wounds",
        lambda v: "deadly demise" if v >= DEADLY_DEMISE_ON else "no effect",
    )
    if die < DEADLY_DEMISE_ON:
        ctx.log(f"{who}'s Deadly Demise: {die} - no effect.", R_DEADLY_DEMISE, roll=die)
        return state
    targets = in_range(state, unit, model_id)
    expr = None if value.isdigit() else parse_dice(value)
    amounts = [
        int(value) if expr is None else roll_dice(expr, ctx, "Deadly Demise mortal wounds") for _ in targets
    ]
    if not targets:
        ctx.log(f"{who}'s Deadly Demise: {die} - no unit within 6 in.", R_DEADLY_DEMISE, roll=die)
        return state
    if expr is None:
        hits = f"{value} mortal wound{'' if value == '1' else 's'} to each unit within 6 in: " + ", ".join(
            t.name for t in targets
        )
    else:
        hits = f"{expr.text()} mortal wounds to each unit within 6 in: " + ", ".join(
            f"{t.name} ({n})" for t, n in zip(targets, amounts, strict=True)
        )
    ctx.log(f"{who}'s Deadly Demise: {die} - {hits}.", R_DEADLY_DEMISE, roll=die)
    chained: list[tuple[str, str]] = []
    for target, n in zip(targets, amounts, strict=True):
        hurt = state.units[target.id]
        for _ in range(n):
            if hurt.destroyed:
                break
            alive = {m.id for m in live_models(hurt)}
            hurt, what = inflict(hurt, 1, ctx)
            ctx.log(f"{hurt.name} suffers 1 mortal wound: {what}.", R_DEADLY_DEMISE)
            chained.extend((hurt.id, mid) for mid in sorted(alive - {m.id for m in live_models(hurt)}))
        state = replace_unit(state, hurt)
    for uid, mid in chained:
        state = model_destroyed(state, uid, mid, ctx)
    return state
