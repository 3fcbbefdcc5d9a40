"""Vehicle squadrons (40k7 Vehicles, Vehicle Squadrons): several vehicle units sharing ``Unit.squadron``.

The squadron is one unit for targeting (a shot at any member is a shot at the squadron; hits go to
the closest member, module ``resolve``), for shooting (all its weapons at a single target in a
phase, module ``firing``) and for coherency (4", module ``movement``). An Immobilised member may
be abandoned - it becomes a unit of its own - but not one that is only Crew Stunned.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.actions import Abandon
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Unit
from ...match.turns import replace_unit
from . import refs
from .geo import on_table


def _squadron_key(state: MatchState, unit_id: str) -> tuple[str, str] | None:
    unit = state.units.get(unit_id)
    if unit is None or unit.squadron is None:
        return None
    return unit.side, unit.squadron


def same_target(state: MatchState, first: str, second: str) -> bool:
    """40k7 Vehicle Squadrons: two unit ids name one target unit when they are the same unit or
    vehicles of one squadron (a squadron is a single unit)."""
    if first == second:
        return True
    key = _squadron_key(state, first)
    return key is not None and key == _squadron_key(state, second)


def squadron_members(state: MatchState, unit: Unit) -> list[Unit]:
    """40k7 Vehicle Squadrons: the living members of the unit's squadron (itself alone when not in a squadron)."""
    if unit.squadron is None:
        return [unit] if on_table(unit) else []
    return [
        u for u in state.units.values() if u.squadron == unit.squadron and on_table(u) and u.side == unit.side
    ]


def _member_of(state: MatchState, unit: Unit, model_id: str) -> Unit | None:
    for other in state.units.values():
        if other.squadron == unit.squadron and other.side == unit.side and model_id in other.models:
            return other
    return None


def validate_abandon(state: MatchState, action: Abandon) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "movement":
        return reject(
            "wrong_phase",
            refs.SQUADRONS,
            f"a squadron abandons a member in the Movement phase, not the {state.phase} phase",
        )
    if unit.squadron is None:
        return reject("not_in_squadron", refs.SQUADRONS, f"{unit.name} is not part of a squadron")
    member = _member_of(state, unit, action.model)
    if member is None or not on_table(member):
        return reject(
            "not_in_squadron",
            refs.SQUADRONS,
            f"model {action.model!r} is not a vehicle of this squadron on the battlefield",
        )
    if "immobilised" not in member.statuses:
        why = " (only Crew Stunned: its squadron-mates rally to it)" if "stunned" in member.statuses else ""
        return reject(
            "not_immobilised",
            refs.SQUADRONS,
            f"{member.name} is not Immobilised{why}: it cannot be abandoned",
        )
    return None


def apply_abandon(state: MatchState, action: Abandon, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    member = _member_of(state, unit, action.model)
    assert member is not None
    ctx.log(
        f"The squadron abandons the Immobilised {member.name}: it is now a unit of its own.", refs.SQUADRONS
    )
    return replace_unit(state, replace(member, squadron=None))
