"""Horus Heresy 3rd edition: the edition's rules object (validate + apply for every action).

Phases (hh3 core, The Turn): Start, Movement, Shooting, Assault, End (whose Statuses sub-phase
runs when the active player ends the End phase, see endphase.py). RULES.md section 2.
"""

from __future__ import annotations

from typing import assert_never

from ...match import doc_refs
from ...match.actions import (
    Abandon,
    Action,
    Charge,
    Concede,
    Decide,
    Disembark,
    Embark,
    EndPhase,
    Fight,
    Move,
    Pivot,
    Shoot,
    TakebackAnswer,
    TakebackRequest,
    Undo,
)
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Side, Unit
from ..phases import PHASES_HH3
from . import assault, endphase, movement, shooting, transports
from .core import R_TURN


def _unit(state: MatchState, uid: str) -> Unit | Rejection:
    unit = state.units.get(uid)
    if unit is None or unit.destroyed:
        return reject("unknown_unit", doc_refs.ACTING, f"no unit {uid!r} in play", unit=uid)
    return unit


class Rules:
    edition = "hh3"
    phases = PHASES_HH3

    def validate(self, state: MatchState, side: Side, action: Action) -> Rejection | None:
        match action:
            case EndPhase() | Undo() | TakebackRequest() | TakebackAnswer() | Concede():
                return None
            case Decide():
                pending = state.pending
                if pending is None or pending.kind not in (
                    shooting.DECISION_FACING,
                    endphase.DECISION_REPAIR,
                ):
                    return reject("no_decision_pending", R_TURN, "there is no hh3 decision to answer")
                return None
            case Abandon():
                return reject("unsupported_action", R_TURN, "hh3 has no squadrons to abandon a vehicle from")
            case Move() | Pivot() | Shoot() | Charge() | Fight() | Embark() | Disembark():
                unit = _unit(state, action.unit)
                if isinstance(unit, Rejection):
                    return unit
                return self._validate_unit_action(state, unit, action)
            case _:
                assert_never(action)

    def _validate_unit_action(
        self,
        state: MatchState,
        unit: Unit,
        action: Move | Pivot | Shoot | Charge | Fight | Embark | Disembark,
    ) -> Rejection | None:
        match action:
            case Move():
                return movement.validate_move(state, unit, action)
            case Pivot():
                return movement.validate_pivot(state, unit, action)
            case Shoot():
                return shooting.validate_shoot(state, unit, action)
            case Charge():
                return assault.validate_charge(state, unit, action)
            case Fight():
                return assault.validate_fight(state, unit, action)
            case Embark():
                return transports.validate_embark(state, unit, action)
            case Disembark():
                return transports.validate_disembark(state, unit, action)
            case _:
                assert_never(action)

    def apply(self, state: MatchState, side: Side, action: Action, ctx: ApplyContext) -> MatchState:
        match action:
            case EndPhase():
                return endphase.end_current_phase(state, ctx)
            case Decide():
                return self._apply_decide(state, action, ctx)
            case Move():
                return movement.apply_move(state, state.units[action.unit], action, ctx)
            case Pivot():
                return movement.apply_pivot(state, state.units[action.unit], action, ctx)
            case Shoot():
                return shooting.apply_shoot(state, state.units[action.unit], action, ctx)
            case Charge():
                return assault.apply_charge(state, state.units[action.unit], action, ctx)
            case Fight():
                return assault.apply_fight(state, state.units[action.unit], action, ctx)
            case Embark():
                return transports.apply_embark(state, state.units[action.unit], action, ctx)
            case Disembark():
                return transports.apply_disembark(state, state.units[action.unit], action, ctx)
            case Abandon() | Undo() | TakebackRequest() | TakebackAnswer() | Concede():
                return state
            case _:
                assert_never(action)

    def _apply_decide(self, state: MatchState, action: Decide, ctx: ApplyContext) -> MatchState:
        pending = state.pending
        if pending is None:
            return state
        if pending.kind == shooting.DECISION_FACING:
            return shooting.resume_facing(state, pending, action.choice, ctx)
        if pending.kind == endphase.DECISION_REPAIR:
            return endphase.resume_repair(state, pending, action.choice, ctx)
        return state


RULES = Rules()
