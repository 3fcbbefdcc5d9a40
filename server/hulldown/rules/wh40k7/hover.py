"""Hover mode for Flyers (40k7 Vehicles, Flyers: Hover; the published Flyers rules).

A Flyer with the ``hover`` type declares at the start of its Movement phase whether it Zooms or
Hovers (``Move.flight`` on its first move of the phase; a move with no path only declares it).
In Hover mode it has the status ``hovering`` until the start of its next turn and is a Fast
Skimmer in every respect (it moves and fires as one, it may be charged, Tank Shocked and hit by
Blast weapons, it need not move); in Zoom mode it follows the Flyer rules. Without a declaration
a Flyer Zooms [decided: Zoom is the default, as it enters play Zooming].
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.actions import Move
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState
from ...match.turns import replace_unit
from . import refs
from .status import set_status, start_of_next_turn
from .types import HOVERING, has_hover_mode


def declares_only(action: Move) -> bool:
    """A move that only declares the flight mode (no path, no positions)."""
    return action.flight is not None and not action.path and not action.positions


def validate_flight(state: MatchState, action: Move) -> Rejection | None:
    """40k7 Flyers, Hover: only a Flyer with Hover, at the start of its Movement phase."""
    if action.flight is None:
        return None
    unit = state.units[action.unit]
    if not has_hover_mode(unit):
        return reject(
            "no_hover_mode",
            refs.FLYER_HOVER,
            f"{unit.name} is not a Flyer with the Hover type: it has no flight mode to choose",
        )
    if state.phase != "movement" or action.kind != "normal":
        return reject(
            "wrong_phase",
            refs.FLYER_HOVER,
            "a Flyer chooses Zoom or Hover at the start of its Movement phase, with its first move",
        )
    if unit.flag("moved") or unit.flag("pivoted") or unit.flag("flight_declared"):
        return reject(
            "already_moved",
            refs.FLYER_HOVER,
            f"{unit.name} has already moved or chosen its flight mode this phase",
        )
    return None


def with_flight(state: MatchState, uid: str, flight: str) -> MatchState:
    """The state with the unit in the declared mode (Hover: ``hovering`` until its next turn)."""
    unit = state.units[uid]
    if flight == "hover":
        state = set_status(state, uid, HOVERING, start_of_next_turn(state, unit.side))
    elif HOVERING in unit.statuses:
        state = replace_unit(
            state, replace(unit, statuses={k: v for k, v in unit.statuses.items() if k != HOVERING})
        )
    unit = state.units[uid]
    return replace_unit(state, replace(unit, turn_flags=(*unit.turn_flags, "flight_declared")))


def apply_flight(state: MatchState, action: Move, ctx: ApplyContext) -> MatchState:
    if action.flight is None:
        return state
    state = with_flight(state, action.unit, action.flight)
    unit = state.units[action.unit]
    what = "Hovers: a Fast Skimmer until its next turn" if action.flight == "hover" else "Zooms"
    ctx.log(f"{unit.name} {what}.", refs.FLYER_HOVER, flight=action.flight)
    return state
