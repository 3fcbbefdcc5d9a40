"""40k11 core, Charge phase (minimal core [ext]): declare a charge, roll 2D6, then move.

Two steps [decided], like Advance: ``Charge(unit, target)`` is validated (eligible unit, target
within 12") and the reducer rolls the 2D6 charge roll, recording it in the unit's turn flags
(``charge_roll=N``, ``charge_target=T``). If no model could get within Engagement Range of the
target even moving straight, the charge fails at once. Otherwise ``Move(kind="charge")`` moves
the unit up to N inches; it must end with a model within Engagement Range of the target and none
within Engagement Range of another enemy unit, and it may not move through models (17.01 gives
no permission for charge moves); a model that can end in base contact with the target must
(chargecontact.py).
"""

from __future__ import annotations

from ...match.actions import Charge
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState
from ...match.turns import replace_unit
from .constants import (
    ADVANCED,
    CHARGE_DECLARE_RANGE,
    CHARGE_DECLARED,
    CHARGE_DICE,
    CHARGE_FAILED,
    CHARGE_ROLL,
    CHARGE_TARGET,
    EPS,
    FELL_BACK,
    NO_CHARGE,
    R_CHARGE,
    R_DISEMBARK,
)
from .movement import charge_reaches
from .space import engaged_with, unit_distance
from .units import on_table, with_flags


def validate_charge(state: MatchState, action: Charge) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "charge":
        return reject("wrong_phase", R_CHARGE, f"charges are declared in the Charge phase, not {state.phase}")
    if not on_table(unit):
        return reject("not_on_table", R_CHARGE, f"{unit.name} is not on the battlefield")
    if unit.flag(CHARGE_DECLARED):
        return reject("already_charged", R_CHARGE, f"{unit.name} has already declared a charge this turn")
    if unit.flag(ADVANCED):
        return reject("advanced", R_CHARGE, f"{unit.name} Advanced this turn and cannot charge")
    if unit.flag(FELL_BACK):
        return reject("fell_back", R_CHARGE, f"{unit.name} Fell Back this turn and cannot charge")
    if unit.flag(NO_CHARGE):
        # 40k11 core rules, Transports, Disembark: after its transport's Normal move.
        return reject(
            "disembarked_after_transport_moved",
            R_DISEMBARK,
            f"{unit.name} disembarked after its transport moved this turn and cannot charge",
        )
    engaged = engaged_with(state, unit)
    if engaged:
        return reject("engaged", R_CHARGE, f"{unit.name} is already engaged with {', '.join(engaged)}")
    target = state.units.get(action.target)
    if target is None or not on_table(target):
        return reject("unknown_target", R_CHARGE, f"no target unit {action.target!r} on the battlefield")
    if target.side == unit.side:
        return reject("friendly_target", R_CHARGE, "you cannot charge your own units")
    gap = unit_distance(unit, target)
    if gap > CHARGE_DECLARE_RANGE + EPS:
        return reject(
            "charge_out_of_range",
            R_CHARGE,
            f"{target.name} is {gap:.1f} in away; charges may target units within {CHARGE_DECLARE_RANGE:g} in",
            distance=gap,
            range=CHARGE_DECLARE_RANGE,
        )
    return None


def apply_charge(state: MatchState, action: Charge, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    target = state.units[action.target]
    total = sum(ctx.roll("charge", f"{CHARGE_DICE}D6") for _ in range(CHARGE_DICE))
    flags = [CHARGE_DECLARED, f"{CHARGE_ROLL}={total}", f"{CHARGE_TARGET}={target.id}"]
    if charge_reaches(state, unit, target, total):
        ctx.log(
            f"{unit.name} charges {target.name}: charge roll {total}, may move up to {total} in.", R_CHARGE
        )
    else:
        flags.append(CHARGE_FAILED)
        ctx.log(
            f"{unit.name} charges {target.name}: charge roll {total} is too short, the charge fails.",
            R_CHARGE,
        )
    return replace_unit(state, with_flags(unit, *flags))
