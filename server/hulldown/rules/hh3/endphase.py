"""The End phase's Statuses sub-phase: Repair Tests for vehicles, Cool checks for the others.

# hh3 Vehicles, Repair Test [seed + ext]: roll a D6 for each vehicle you control that has a status;
# on a 6 (or X for Auto-repair (X)) remove one status of your choice.
#
# [decided] The sub-phase runs when the active player ends the End phase. Every die is rolled in
# that event. A successful Repair Test on a vehicle with one status removes it directly; with two
# or more, a pending decision asks the owner which status goes (one decision per such vehicle, in
# unit id order); the player turn ends once the last decision is answered.
# [decided] A unit that is not a vehicle makes one Cool check per Statuses sub-phase; a pass
# removes all of its statuses (the published rules test each status; one check keeps it short).
# hh3 Transports, Embarking and Disembarking [ext]: an embarked unit makes no check at all.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import Decision, MatchState, Unit
from ...match.turns import replace_unit
from ..phases import PHASES_HH3, end_phase
from . import resolution, statuses
from .core import R_CORE_COOL, R_EMBARKED_STATUS, R_REPAIR, at_least, is_vehicle

DECISION_REPAIR = "repair"


def end_current_phase(state: MatchState, ctx: ApplyContext) -> MatchState:
    if state.phase == "assault":
        # hh3 core, Resolution Sub-Phase: the last step of the Assault phase.
        state = resolution.resolve_combats(state, ctx)
    if state.phase != "end":
        return end_phase(state, PHASES_HH3, ctx)
    queue: list[str] = []
    for uid in sorted(state.units):
        unit = state.units[uid]
        if unit.side != state.active or unit.destroyed or not unit.statuses:
            continue
        if "reserves" in unit.statuses:  # off the table (docs/missions.md): no status to recover
            continue
        if not checks_statuses(unit):
            ctx.log(f"{unit.name} is embarked: it keeps its statuses until it disembarks.", R_EMBARKED_STATUS)
            continue
        if is_vehicle(unit):
            target = statuses.repair_target(unit)
            dice = [
                ctx.roll(f"Repair Test ({unit.name})", f"{target}+", at_least(target, "repaired", "failed"))
                for _ in range(statuses.repair_dice(unit))
            ]
            if max(dice) < target:
                ctx.log(
                    f"{unit.name} fails its Repair Test: it keeps {', '.join(sorted(unit.statuses))}.",
                    R_REPAIR,
                )
            elif len(unit.statuses) == 1:
                (only,) = unit.statuses
                state = replace_unit(state, statuses.remove(unit, only))
                ctx.log(f"{unit.name} passes its Repair Test and is no longer {only.capitalize()}.", R_REPAIR)
            else:
                ctx.log(
                    f"{unit.name} passes its Repair Test: its owner chooses the status to remove.", R_REPAIR
                )
                queue.append(uid)
        elif statuses.cool_check(unit, ctx, "remove statuses"):
            state = replace_unit(state, replace(unit, statuses={}))
            ctx.log(f"{unit.name} passes its Cool check and loses its statuses.", R_CORE_COOL)
        else:
            ctx.log(f"{unit.name} fails its Cool check and keeps its statuses.", R_CORE_COOL)
    return _next(state, queue, ctx)


def checks_statuses(unit: Unit) -> bool:
    """hh3 Transports, Embarking and Disembarking [ext]: a unit embarked with a status keeps it and
    may have no check made to remove it until it disembarks, so it sits out the Statuses sub-phase."""
    return unit.embarked_in is None


def _next(state: MatchState, queue: list[str], ctx: ApplyContext) -> MatchState:
    if not queue:
        return end_phase(replace(state, pending=None), PHASES_HH3, ctx)
    uid, rest = queue[0], queue[1:]
    unit = state.units[uid]
    options = tuple(sorted(unit.statuses))
    decision = Decision(
        id=f"repair-{ctx.seq}-{uid}",
        side=unit.side,
        kind=DECISION_REPAIR,
        options=options,
        prompt=f"{unit.name} passed its Repair Test: choose the status to remove",
        rule=R_REPAIR,
        context={"unit": uid, "queue": ",".join(rest)},
    )
    ctx.log(f"Side {unit.side} chooses which status {unit.name} loses ({', '.join(options)}).", R_REPAIR)
    return replace(state, pending=decision)


def resume_repair(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    unit = state.units[decision.context["unit"]]
    state = replace_unit(state, statuses.remove(unit, choice))
    ctx.log(f"Side {decision.side} removes {choice.capitalize()} from {unit.name}.", R_REPAIR)
    rest = [u for u in decision.context.get("queue", "").split(",") if u]
    return _next(replace(state, pending=None), rest, ctx)
