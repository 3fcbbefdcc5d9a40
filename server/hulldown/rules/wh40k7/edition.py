"""Warhammer 40,000 7th edition: the edition's rules object (40k7 Vehicles and the minimal core).

Validation (pure, before append) and application (the reducer part, total) dispatch here to the
modules of this package: ``movement`` / ``moves`` / ``dangerous`` (moves, pivots, Run, Flat Out,
Zoom, dangerous terrain), ``tankshock`` / ``ram`` (Tank Shock, Death or Glory, Ram),
``shooting`` / ``firing`` / ``blasts`` / ``speed`` (shooting by speed, arcs, sight, Jink),
``resolve`` / ``penetration`` / ``cover`` / ``damage`` / ``destruction`` / ``wounds`` (hits,
Hull Points, the damage table, wrecks and explosions), ``charge`` / ``assault`` (charges,
Overwatch, close combat), ``transports``, ``squadrons``, ``morale``, ``core`` (tables).
"""

from __future__ import annotations

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
from ...match.dispatch import DispatchTable, sideless, sideless_apply
from ...match.rejection import Rejection, reject
from ...match.setup import declare as declare_setup
from ...match.setup_embark import embark_handlers
from ...match.state import Decision, MatchState, Side
from ..phases import PHASES_40K7, end_phase
from . import (
    assault,
    charge,
    hover,
    movement,
    psychic,
    refs,
    shooting,
    speed,
    squadrons,
    tankshock,
    transports,
)
from .geo import on_table
from .morale import end_of_phase_morale, regroup
from .types import is_zooming

# Kept for callers of the foundation subset.
COMBAT_SPEED = speed.COMBAT_SPEED
CRUISING_SPEED = speed.CRUISING_SPEED

MOVE_KINDS = ("normal", "run", "flat_out")
"""40k7 moves: ordinary moves, Run and Flat Out (movement.py)."""
SHOCK_KINDS = ("tank_shock", "ram")
"""40k7 Tank Shock and Ram (tankshock.py)."""


def _validate_move(state: MatchState, side: Side, action: Move) -> Rejection | None:
    if action.flight is not None:  # 40k7 Flyers, Hover: the mode, then the move
        bad = hover.validate_flight(state, action)
        if bad is not None or hover.declares_only(action):
            return bad
        state = hover.with_flight(state, action.unit, action.flight)
    if action.kind in MOVE_KINDS:
        return movement.validate_move(state, action)
    if action.kind in SHOCK_KINDS:
        return tankshock.validate_tank_shock(state, action)
    return reject(
        "unsupported_action", refs.TURN, f"{action.kind} moves do not exist in 40k7", kind=action.kind
    )


def _apply_move(state: MatchState, side: Side, action: Move, ctx: ApplyContext) -> MatchState:
    state = hover.apply_flight(state, action, ctx)
    if hover.declares_only(action):
        return state
    if action.kind in SHOCK_KINDS:
        return tankshock.begin(state, action, ctx)
    return movement.apply_move(state, action, ctx)


def _validate_end_phase(state: MatchState, side: Side, action: EndPhase) -> Rejection | None:
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


def _apply_end_phase(state: MatchState, side: Side, action: EndPhase, ctx: ApplyContext) -> MatchState:
    return _end_phase(state, ctx)


def _end_phase(state: MatchState, ctx: ApplyContext) -> MatchState:
    """End the phase: remaining combats, then passenger tests (40k7 Transports: at the end of the
    phase, so after the damage those combats do), then the next phase or player turn."""
    if state.phase == "assault":
        state = assault.continue_end_of_assault(state, ctx)
        if state.pending is not None:
            return state
    if state.phase_flags:  # both tests are owed by a flag the phase set (none: nothing to test)
        state = end_of_phase_morale(state, ctx)
        state = transports.passenger_tests(state, ctx)
    new = end_phase(state, psychic.phase_order(state), ctx)
    if new.active != state.active:
        new = _start_of_turn(new, ctx)
    if new.phase == psychic.PHASE:
        new = psychic.begin_phase(new, ctx)
    return new


def _start_of_turn(state: MatchState, ctx: ApplyContext) -> MatchState:
    """40k7 Morale: Falling Back units test to Regroup at the start of their turn."""
    for uid in [u.id for u in state.units.values() if u.side == state.active]:
        unit = state.units[uid]
        if "falling_back" in unit.statuses and on_table(unit):  # the cheaper test first
            state = regroup(state, ctx, uid)
    return state


def _apply_manifest(state: MatchState, side: Side, action: Manifest, ctx: ApplyContext) -> MatchState:
    return psychic.apply_manifest(state, side, action, ctx, _end_phase)


def _resume_deny(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    """40k7 Deny the Witch: after the answer the power resolves (or not); an empty pool ends the phase."""
    return psychic.resume_deny(state, decision, choice, ctx, _end_phase)


def _resume_attack_vehicle(
    state: MatchState, decision: Decision, choice: str, ctx: ApplyContext
) -> MatchState:
    """40k7 Vehicles and Close Combat: after the answer, the rest of the phase's combats."""
    state = assault.resume_attack_vehicle(state, decision, choice, ctx)
    return _end_phase(state, ctx)


RULES = DispatchTable("40k7", PHASES_40K7, refs.TURN)
declare_setup(RULES)  # docs/missions.md: roll-off, deployment, reserves, first turn
RULES.on(EndPhase, _validate_end_phase, _apply_end_phase)
RULES.on(Move, _validate_move, _apply_move)
RULES.move_kinds((*MOVE_KINDS, *SHOCK_KINDS))
RULES.on(Pivot, sideless(movement.validate_pivot), sideless_apply(movement.apply_pivot))
RULES.on(Shoot, sideless(shooting.validate_shoot), shooting.apply_shoot)
RULES.on(Charge, sideless(charge.validate_charge), sideless_apply(charge.apply_charge))
RULES.on(Fight, sideless(assault.validate_fight), sideless_apply(assault.apply_fight))
RULES.on(
    Embark,
    *embark_handlers(
        sideless(transports.validate_embark),
        sideless_apply(transports.apply_embark),
        transports.check_start_embarked,
    ),
)
RULES.on(Disembark, sideless(transports.validate_disembark), sideless_apply(transports.apply_disembark))
RULES.on(Abandon, sideless(squadrons.validate_abandon), sideless_apply(squadrons.apply_abandon))
RULES.on(Manifest, psychic.validate_manifest, _apply_manifest)
RULES.unsupported(Challenge, refs.TURN, "challenges are hh3 rules: 40k7 characters do not challenge here")
RULES.unsupported(
    Join, refs.TURN, "Join and Leave are hh3 Paragon actions: 40k7 characters are set in the match definition"
)
RULES.unsupported(
    Leave,
    refs.TURN,
    "Join and Leave are hh3 Paragon actions: 40k7 characters are set in the match definition",
)
RULES.decision("jink", shooting.resume_jink)
RULES.decision(psychic.DECISION_DENY, _resume_deny)
RULES.decision("death_or_glory", tankshock.resume_death_or_glory)
RULES.decision("overwatch", charge.resume_overwatch)
RULES.decision("attack_vehicle", _resume_attack_vehicle)
