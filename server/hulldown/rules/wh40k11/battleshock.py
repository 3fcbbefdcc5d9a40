"""40k11 core rules [ext], Battle-shock: Below Half-strength units test in the Command phase.

A unit of the player whose Command phase it is, on the battlefield and Below Half-strength, takes a
Battle-shock test as that player ends the phase (edition._apply_end_phase [decided]): 2D6, passed
on at least its Leadership. A failed test makes it Battle-shocked (status
``battle_shocked``) until the start of its player's next Command phase. While Battle-shocked its
Objective Control is 0 (missions/control.py) and a Fall Back move takes Desperate Escape tests
(``desperate_escape``, called by movement.apply_move). docs/rules-notes.md, 40k11, Battle-shock.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Unit
from ...match.turns import replace_unit
from .constants import (
    BATTLE_SHOCK_DICE,
    BATTLE_SHOCK_LASTS_PLAYER_TURNS,
    BATTLE_SHOCKED,
    DESPERATE_ESCAPE_FAILS_ON,
    R_BATTLE_SHOCK,
    R_DESPERATE_ESCAPE,
)
from .units import live_count, live_models, on_table

BATTLE_SHOCK_PURPOSE = "battle-shock test"
DESPERATE_ESCAPE_PURPOSE = "desperate escape test"


def _starting_wounds(unit: Unit, model: Model) -> int:
    return (model.profile or unit.profile).w


def below_half_strength(unit: Unit) -> bool:
    """40k11 core rules [ext], Below Half-strength: fewer than half its starting models (dead
    models stay in ``unit.models``); a unit of one model: fewer than half its starting Wounds."""
    if len(unit.models) == 1:
        model = next(iter(unit.models.values()))
        return model.alive and model.wounds * 2 < _starting_wounds(unit, model)
    return live_count(unit) * 2 < len(unit.models)


def is_battle_shocked(unit: Unit) -> bool:
    """40k11 core rules [ext], Battle-shock: the unit carries the status."""
    return BATTLE_SHOCKED in unit.statuses


def battle_shock_tests(state: MatchState, ctx: ApplyContext) -> MatchState:
    """40k11 core rules [ext], Battle-shock: each of the active player's units on the battlefield
    that is Below Half-strength takes a Battle-shock test (2D6 >= Ld); failed, it is Battle-shocked
    until the start of that player's next Command phase (the status expires at the end of the
    following player turn, constants.BATTLE_SHOCK_LASTS_PLAYER_TURNS)."""
    until = state.player_turn + BATTLE_SHOCK_LASTS_PLAYER_TURNS
    for uid in sorted(state.units):
        unit = state.units[uid]
        if unit.side != state.active or not on_table(unit) or not below_half_strength(unit):
            continue
        ld = unit.profile.ld
        total = sum(
            ctx.roll(BATTLE_SHOCK_PURPOSE, f"{BATTLE_SHOCK_DICE}D6 >= {ld}") for _ in range(BATTLE_SHOCK_DICE)
        )
        passed = total >= ld
        outcome = "passed" if passed else "failed, Battle-shocked"
        ctx.set_outcomes(BATTLE_SHOCK_DICE, "passed" if passed else "failed")
        ctx.log(
            f"{unit.name}: Battle-shock test {BATTLE_SHOCK_DICE}D6 = {total} against Ld {ld}+: {outcome}.",
            R_BATTLE_SHOCK,
            total=total,
            target=ld,
            passed=passed,
        )
        if not passed:
            statuses = {**unit.statuses, BATTLE_SHOCKED: until}
            state = replace_unit(state, replace(unit, statuses=statuses))
    return state


def desperate_escape(unit: Unit, ctx: ApplyContext) -> Unit:
    """40k11 core rules [ext], Battle-shock / Fall Back, Desperate Escape: before a Battle-shocked
    unit Falls Back, one D6 per model; each roll of 1-2 destroys a model (the model tested
    [decided], constants.DESPERATE_ESCAPE_FAILS_ON). A unit with no model left is destroyed."""
    if not is_battle_shocked(unit):
        return unit
    models = dict(unit.models)
    lost: list[str] = []
    for model in list(live_models(unit)):
        die = ctx.roll(
            DESPERATE_ESCAPE_PURPOSE,
            f"{DESPERATE_ESCAPE_FAILS_ON + 1}+",
            lambda v: "destroyed" if v <= DESPERATE_ESCAPE_FAILS_ON else "escapes",
        )
        if die <= DESPERATE_ESCAPE_FAILS_ON:
            models[model.id] = replace(model, alive=False, wounds=0)
            lost.append(model.id)
    unit = replace(unit, models=models)
    gone = not any(m.alive for m in models.values())
    if gone:
        unit = replace(unit, destroyed=True)
    what = f"{len(lost)} destroyed ({', '.join(lost)})" if lost else "none destroyed"
    ctx.log(
        f"{unit.name} is Battle-shocked and Falls Back: Desperate Escape tests, {what}"
        + (f"; {unit.name} is destroyed." if gone else "."),
        R_DESPERATE_ESCAPE,
        lost=len(lost),
    )
    return unit
