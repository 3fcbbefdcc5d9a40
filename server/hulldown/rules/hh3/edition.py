"""Horus Heresy 3rd edition: the edition's rules object (validate + apply for every action).

Phases (hh3 core, The Turn): Start, Movement, Shooting, Assault, End (whose Statuses sub-phase
runs when the active player ends the End phase, see endphase.py). hh3 Vehicles and Transport sub-type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ...match import doc_refs
from ...match.actions import (
    Abandon,
    Challenge,
    Charge,
    Disembark,
    Embark,
    EndPhase,
    Fight,
    Join,
    Leave,
    Manifest,
    Move,
    Pivot,
    Shoot,
)
from ...match.context import ApplyContext
from ...match.dispatch import Applier, DispatchTable, Validator
from ...match.rejection import Rejection, reject
from ...match.setup import declare as declare_setup
from ...match.setup_embark import embark_handlers
from ...match.state import MatchState, Side, Unit
from ..phases import PHASES_HH3
from . import assault, battlesmith, challenge, endphase, joining, movement, shooting, transports
from .core import R_TURN

UnitAction = TypeVar(
    "UnitAction", Move, Pivot, Shoot, Charge, Fight, Challenge, Embark, Disembark, Join, Leave
)


def _unit(state: MatchState, uid: str) -> Unit | Rejection:
    unit = state.units.get(uid)
    if unit is None or unit.destroyed:
        return reject("unknown_unit", doc_refs.ACTING, f"no unit {uid!r} in play", unit=uid)
    return unit


def _of_unit(check: Callable[[MatchState, Unit, UnitAction], Rejection | None]) -> Validator[UnitAction]:
    """hh3 checks take the acting unit, which must be in play."""

    def validate(state: MatchState, side: Side, action: UnitAction) -> Rejection | None:
        unit = _unit(state, action.unit)
        if isinstance(unit, Rejection):
            return unit
        return check(state, unit, action)

    return validate


def _to_unit(
    apply: Callable[[MatchState, Unit, UnitAction, ApplyContext], MatchState],
) -> Applier[UnitAction]:
    """hh3 rules apply to the acting unit (validated to be in play)."""
    return lambda state, side, action, ctx: apply(state, state.units[action.unit], action, ctx)


def _validate_move(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    """hh3 Battlesmith (X) [decided]: a Move of kind ``battlesmith`` is the activation
    (battlesmith.py), after the checks every move makes; any other kind moves (movement.py)."""
    if action.kind != "battlesmith":
        return movement.validate_move(state, unit, action)
    start = movement.validate_move_start(state, unit, action)
    if start is not None:
        return start
    return battlesmith.validate_battlesmith(state, unit, action)


def _apply_move(state: MatchState, unit: Unit, action: Move, ctx: ApplyContext) -> MatchState:
    """hh3 Battlesmith (X): a ``battlesmith`` Move repairs (battlesmith.py); others move."""
    if action.kind == "battlesmith":
        return battlesmith.apply_battlesmith(state, unit, action, ctx)
    return movement.apply_move(state, unit, action, ctx)


RULES = DispatchTable("hh3", PHASES_HH3, R_TURN)
declare_setup(RULES)  # docs/missions.md: roll-off, deployment, reserves, first turn
RULES.on(
    EndPhase,
    lambda state, side, action: None,
    lambda state, side, action, ctx: endphase.end_current_phase(state, ctx),
)
RULES.on(Move, _of_unit(_validate_move), _to_unit(_apply_move))
RULES.move_kinds((*movement.MOVE_KINDS, "battlesmith"))
RULES.on(Pivot, _of_unit(movement.validate_pivot), _to_unit(movement.apply_pivot))
RULES.on(Shoot, _of_unit(shooting.validate_shoot), _to_unit(shooting.apply_shoot))
RULES.on(Charge, _of_unit(assault.validate_charge), _to_unit(assault.apply_charge))
RULES.on(Fight, _of_unit(assault.validate_fight), _to_unit(assault.apply_fight))
RULES.on(Challenge, _of_unit(challenge.validate_challenge), _to_unit(challenge.apply_challenge))
RULES.on(
    Embark,
    *embark_handlers(
        _of_unit(transports.validate_embark),
        _to_unit(transports.apply_embark),
        transports.check_start_embarked,
    ),
)
RULES.on(Disembark, _of_unit(transports.validate_disembark), _to_unit(transports.apply_disembark))
RULES.on(Join, _of_unit(joining.validate_join), _to_unit(joining.apply_join))
RULES.on(Leave, _of_unit(joining.validate_leave), _to_unit(joining.apply_leave))
RULES.unsupported(Abandon, R_TURN, "hh3 has no squadrons to abandon a vehicle from")
RULES.unsupported(
    Manifest, R_TURN, "hh3 psychic powers are not modelled: there is no Psychic phase to manifest in"
)
RULES.decision(shooting.DECISION_FACING, shooting.resume_facing)
RULES.decision(endphase.DECISION_REPAIR, endphase.resume_repair)
RULES.decision(assault.DECISION_VOLLEY, assault.resume_volley)
RULES.decision(battlesmith.DECISION_BATTLESMITH, battlesmith.resume_battlesmith)
