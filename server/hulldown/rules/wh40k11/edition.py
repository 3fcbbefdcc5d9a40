"""Warhammer 40,000 11th edition, Monsters and Vehicles (edition id ``40k11``), on a minimal core.

RULES.md section 3; seed 000 (section 17). Phases: Command, Movement, Shooting, Charge, Fight.
- Command: nothing to do yet (Command points and Battle-shock are not modelled).
- Movement: normal moves, Advance (two steps), Fall Back, 17.01 and 17.02 (movement.py).
- Shooting: normal and close-quarters shooting, 17.03 and 17.03.01 (shooting.py).
- Charge: declaration and 2D6 roll, then the charge move (charge.py, movement.py).
- Fight: the active side's fights, then offers to the other side (fight.py).
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
from ..phases import PHASES_40K11, end_phase
from .charge import apply_charge, validate_charge
from .constants import EDITION, R_CORE
from .fight import apply_decide, apply_fight, offer_or_end, validate_decide, validate_fight
from .movement import apply_move, pivot_as_move, validate_move
from .shooting import apply_shoot, validate_shoot


class Rules:
    edition = EDITION
    phases = PHASES_40K11

    def validate(self, state: MatchState, side: Side, action: Action) -> Rejection | None:
        match action:
            case EndPhase():
                return None
            case Move():
                return validate_move(state, action)
            case Pivot():
                return validate_move(state, pivot_as_move(action))
            case Shoot():
                return validate_shoot(state, action)
            case Charge():
                return validate_charge(state, action)
            case Fight():
                return validate_fight(state, action)
            case Decide():
                return validate_decide(state, action)
            case Embark() | Disembark() | Abandon():
                return reject(
                    "unsupported_action",
                    R_CORE,
                    f"{type(action).__name__} is not part of the 40k11 core here",
                )
            case Undo() | TakebackRequest() | TakebackAnswer() | Concede():
                return None  # handled by the generic layers (match/validate.py, match/history.py)
            case _:
                assert_never(action)

    def apply(self, state: MatchState, side: Side, action: Action, ctx: ApplyContext) -> MatchState:
        match action:
            case EndPhase():
                if state.phase == "fight":
                    return offer_or_end(state, ctx)
                return end_phase(state, self.phases, ctx)
            case Move():
                return apply_move(state, action, ctx)
            case Pivot():
                return apply_move(state, pivot_as_move(action), ctx)
            case Shoot():
                return apply_shoot(state, action, ctx)
            case Charge():
                return apply_charge(state, action, ctx)
            case Fight():
                return apply_fight(state, action, ctx)
            case Decide():
                return apply_decide(state, action, ctx)
            case (
                Embark() | Disembark() | Abandon() | Undo() | TakebackRequest() | TakebackAnswer() | Concede()
            ):
                return state
            case _:
                assert_never(action)


RULES = Rules()
