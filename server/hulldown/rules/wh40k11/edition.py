"""Warhammer 40,000 11th edition: the edition's rules object.

So far only the turn sequence is implemented; every other action is refused with
``unsupported_action`` naming the edition, until its rules land.
"""

from __future__ import annotations

from ...match.actions import Action, EndPhase
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Side
from ..phases import PHASES_40K11, end_phase


class Rules:
    edition = "40k11"
    phases = PHASES_40K11

    def validate(self, state: MatchState, side: Side, action: Action) -> Rejection | None:
        if isinstance(action, EndPhase):
            return None
        return reject(
            "unsupported_action", "40k11", f"{type(action).__name__} is not implemented for 40k11 yet"
        )

    def apply(self, state: MatchState, side: Side, action: Action, ctx: ApplyContext) -> MatchState:
        if isinstance(action, EndPhase):
            return end_phase(state, self.phases, ctx)
        return state


RULES = Rules()
