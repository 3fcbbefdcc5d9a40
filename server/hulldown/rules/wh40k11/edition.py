"""Warhammer 40,000 11th edition, Monsters and Vehicles (edition id ``40k11``), on a minimal core.

40k11 core [ext] and 17 Monsters and Vehicles. Phases: Command, Movement, Shooting, Charge, Fight.
- Command: Battle-shock tests as the player ends the phase (battleshock.py); no Command points.
- Movement: normal moves, Advance (two steps), Fall Back, 17.01 and 17.02 (movement.py).
- Shooting: normal and close-quarters shooting, 17.03 and 17.03.01 (shooting.py).
- Charge: declaration and 2D6 roll, then the charge move (charge.py, movement.py).
- Fight: the active side's fights, then offers to the other side (fight.py).
- Transports: Embark, Disembark (transports.py) and Destroyed Transport (destroyed.py).
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
from ...match.setup import declare as declare_setup
from ...match.setup_embark import embark_handlers
from ...match.state import MatchState, Side
from ..phases import PHASES_40K11, end_phase
from . import transports
from .battleshock import battle_shock_tests
from .charge import apply_charge, validate_charge
from .constants import EDITION, R_CORE
from .fight import FIGHT_DECISION, apply_fight, offer_or_end, resume_fight_decision, validate_fight
from .movement import MOVE_KINDS, apply_move, pivot_as_move, validate_move
from .shooting import apply_shoot, validate_shoot


def _apply_end_phase(state: MatchState, side: Side, action: EndPhase, ctx: ApplyContext) -> MatchState:
    """40k11 Fight phase: the phase ends once neither side has a unit left to fight. 40k11 core
    rules [ext], Battle-shock: ending the Command phase takes the active player's Battle-shock
    tests first [decided: docs/rules-notes.md, 40k11 Battle-shock, When]."""
    if state.phase == "fight":
        return offer_or_end(state, ctx)
    if state.phase == "command":
        state = battle_shock_tests(state, ctx)
    return end_phase(state, PHASES_40K11, ctx)


NOT_IN_CORE = "is not part of the 40k11 core here"

RULES = DispatchTable(EDITION, PHASES_40K11, R_CORE)
declare_setup(RULES)  # docs/missions.md: roll-off, deployment, reserves, first turn
RULES.on(EndPhase, lambda state, side, action: None, _apply_end_phase)
RULES.on(Move, sideless(validate_move), sideless_apply(apply_move))
RULES.move_kinds((*MOVE_KINDS, "charge"))
RULES.on(
    Pivot,
    lambda state, side, action: validate_move(state, pivot_as_move(action)),
    lambda state, side, action, ctx: apply_move(state, pivot_as_move(action), ctx),
)
RULES.on(Shoot, sideless(validate_shoot), sideless_apply(apply_shoot))
RULES.on(Charge, sideless(validate_charge), sideless_apply(apply_charge))
RULES.on(Fight, sideless(validate_fight), sideless_apply(apply_fight))
# 40k11 core rules, Transports [ext] (transports.py; Destroyed Transport: destroyed.py); in set-up,
# a unit starting embarked (match/setup_embark.py, who fits: transports.check_fits).
RULES.on(
    Embark,
    *embark_handlers(
        sideless(transports.validate_embark),
        sideless_apply(transports.apply_embark),
        transports.check_fits,
    ),
)
RULES.on(Disembark, sideless(transports.validate_disembark), sideless_apply(transports.apply_disembark))
RULES.unsupported(Abandon, R_CORE, f"Abandon {NOT_IN_CORE}")
RULES.unsupported(Challenge, R_CORE, f"Challenge (an hh3 Challenge Sub-Phase action) {NOT_IN_CORE}")
RULES.unsupported(Join, R_CORE, f"Join (an hh3 Paragon action) {NOT_IN_CORE}")
RULES.unsupported(Leave, R_CORE, f"Leave (an hh3 Paragon action) {NOT_IN_CORE}")
RULES.unsupported(Manifest, R_CORE, f"Manifest (a 40k7 Psychic phase action) {NOT_IN_CORE}")
RULES.decision(FIGHT_DECISION, resume_fight_decision)
