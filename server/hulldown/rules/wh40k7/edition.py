"""Warhammer 40,000 7th edition: the edition's rules object (RULES.md section 1, seed 001).

Validation (pure, before append) and application (the reducer part, total) dispatch here to the
modules of this package: ``movement`` / ``moves`` / ``dangerous`` (moves, pivots, Run, Flat Out,
Zoom, dangerous terrain), ``tankshock`` / ``ram`` (Tank Shock, Death or Glory, Ram),
``shooting`` / ``firing`` / ``blasts`` / ``speed`` (shooting by speed, arcs, sight, Jink),
``resolve`` / ``penetration`` / ``cover`` / ``damage`` / ``destruction`` / ``wounds`` (hits,
Hull Points, the damage table, wrecks and explosions), ``charge`` / ``assault`` (charges,
Overwatch, close combat), ``transports``, ``squadrons``, ``morale``, ``core`` (tables).
"""

from __future__ import annotations

from typing import assert_never

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
from ...match.state import MatchState, Side
from ..phases import PHASES_40K7, end_phase
from . import assault, charge, hover, movement, refs, shooting, speed, squadrons, tankshock, transports
from .geo import on_table
from .morale import end_of_phase_morale, regroup
from .types import is_zooming

# Kept for callers of the foundation subset.
COMBAT_SPEED = speed.COMBAT_SPEED
CRUISING_SPEED = speed.CRUISING_SPEED


class Rules:
    edition = "40k7"
    phases = PHASES_40K7

    def validate(self, state: MatchState, side: Side, action: Action) -> Rejection | None:
        match action:
            case EndPhase():
                return _validate_end_phase(state)
            case Move():
                if action.flight is not None:  # 40k7 Flyers, Hover: the mode, then the move
                    bad = hover.validate_flight(state, action)
                    if bad is not None or hover.declares_only(action):
                        return bad
                    state = hover.with_flight(state, action.unit, action.flight)
                if action.kind in ("normal", "run", "flat_out"):
                    return movement.validate_move(state, action)
                if action.kind in ("tank_shock", "ram"):
                    return tankshock.validate_tank_shock(state, action)
                return reject(
                    "unsupported_action",
                    refs.TURN,
                    f"{action.kind} moves do not exist in 40k7",
                    kind=action.kind,
                )
            case Pivot():
                return movement.validate_pivot(state, action)
            case Shoot():
                return shooting.validate_shoot(state, action)
            case Charge():
                return charge.validate_charge(state, action)
            case Fight():
                return assault.validate_fight(state, action)
            case Embark():
                return transports.validate_embark(state, action)
            case Disembark():
                return transports.validate_disembark(state, action)
            case Abandon():
                return squadrons.validate_abandon(state, action)
            case Decide():
                return None
            case Undo() | TakebackRequest() | TakebackAnswer() | Concede():
                return None
            case _:
                assert_never(action)

    def apply(self, state: MatchState, side: Side, action: Action, ctx: ApplyContext) -> MatchState:
        match action:
            case EndPhase():
                return _end_phase(state, ctx)
            case Move():
                state = hover.apply_flight(state, action, ctx)
                if hover.declares_only(action):
                    return state
                if action.kind in ("tank_shock", "ram"):
                    return tankshock.begin(state, action, ctx)
                return movement.apply_move(state, action, ctx)
            case Pivot():
                return movement.apply_pivot(state, action, ctx)
            case Shoot():
                return shooting.apply_shoot(state, side, action, ctx)
            case Charge():
                return charge.apply_charge(state, action, ctx)
            case Fight():
                return assault.apply_fight(state, action, ctx)
            case Embark():
                return transports.apply_embark(state, action, ctx)
            case Disembark():
                return transports.apply_disembark(state, action, ctx)
            case Abandon():
                return squadrons.apply_abandon(state, action, ctx)
            case Decide():
                return _resume(state, action, ctx)
            case Undo() | TakebackRequest() | TakebackAnswer() | Concede():
                return state
            case _:
                assert_never(action)


def _validate_end_phase(state: MatchState) -> Rejection | None:
    """40k7 Flyers: a Zooming Flyer must move (at least 18") in its own Movement phase."""
    if state.phase != "movement":
        return None
    for unit in state.units.values():
        if unit.side == state.active and on_table(unit) and is_zooming(unit) and not unit.flag("moved"):
            return reject(
                "flyer_must_move",
                refs.FLYER,
                f"{unit.name} is Zooming: it must move at least 18 in this Movement phase",
                unit=unit.id,
            )
    return None


def _end_phase(state: MatchState, ctx: ApplyContext) -> MatchState:
    """End the phase: remaining combats, then passenger tests (40k7 Transports: at the end of the
    phase, so after the damage those combats do), then the next phase or player turn."""
    if state.phase == "assault":
        state = assault.continue_end_of_assault(state, ctx)
        if state.pending is not None:
            return state
    state = end_of_phase_morale(state, ctx)
    state = transports.passenger_tests(state, ctx)
    new = end_phase(state, PHASES_40K7, ctx)
    if new.active != state.active:
        new = _start_of_turn(new, ctx)
    return new


def _start_of_turn(state: MatchState, ctx: ApplyContext) -> MatchState:
    """40k7 Morale: Falling Back units test to Regroup at the start of their turn."""
    for uid in [u.id for u in state.units.values() if u.side == state.active]:
        unit = state.units[uid]
        if on_table(unit) and "falling_back" in unit.statuses:
            state = regroup(state, ctx, uid)
    return state


def _resume(state: MatchState, action: Decide, ctx: ApplyContext) -> MatchState:
    decision = state.pending
    if decision is None:
        return state
    match decision.kind:
        case "jink":
            return shooting.resume_jink(state, decision, action.choice, ctx)
        case "death_or_glory":
            return tankshock.resume_death_or_glory(state, decision, action.choice, ctx)
        case "overwatch":
            return charge.resume_overwatch(state, decision, action.choice, ctx)
        case "attack_vehicle":
            state = assault.resume_attack_vehicle(state, decision, action.choice, ctx)
            return _end_phase(state, ctx)
        case _:
            ctx.log(f"Unknown decision {decision.kind!r} cleared.", refs.TURN)
            from msgspec.structs import replace

            return replace(state, pending=None)


RULES = Rules()
