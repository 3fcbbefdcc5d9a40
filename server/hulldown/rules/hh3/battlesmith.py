"""Battlesmith (X): a model that mends a friendly vehicle in the Movement phase.

# Seed (Vehicles, Statuses): a vehicle gets rid of its statuses only "with a Repair Test or the
# Battlesmith special rule". hh3 Armoury, Battlesmith (X) [ext]: in its controller's Movement
# phase, when the model is selected (before or after it moves), it may pick one friendly Vehicle,
# Automata or Walker model within 6" and make an Intelligence Check; if passed, its controller
# chooses Repair (the target regains X Hull Points or Wounds, never above its base value) or
# Restore (X statuses are removed from the target). It does not stop either model moving or
# attacking that turn.
#
# [decided] The activation is a ``Move`` with kind ``battlesmith`` and the vehicle as ``target``
# (it moves nothing and does not use up the unit's move); once per unit per turn. The unit keyword
# ``battlesmith:X`` gives the rule; the check is 2D6 <= Intelligence (``Profile.intelligence``).
# After a pass, when both options would do something, a ``battlesmith`` decision asks the owner;
# Restore with more statuses than X asks which, one status at a time. A model does not mend
# itself (``BATTLESMITH_ON_ITSELF``). Distance: closest points of the two units.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.actions import Move
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Unit
from ...match.turns import add_flag, replace_unit
from . import geom, statuses
from .combat_lock import locked
from .core import R_BATTLESMITH, lent_characteristic, on_table, rule_value

BATTLESMITH_KEYWORD = "battlesmith"
BATTLESMITH_RANGE = 6.0  # hh3 Armoury, Battlesmith (X): a friendly model within 6"
# The Vehicle, Automata or Walker type; there is no Automata unit kind here.
BATTLESMITH_TARGET_KINDS = ("vehicle", "walker")
BATTLESMITH_ON_ITSELF = False  # [decided]
F_BATTLESMITH = "battlesmith_used"
DECISION_BATTLESMITH = "battlesmith"
REPAIR = "repair"
RESTORE = "restore"


def battlesmith_value(unit: Unit) -> int | None:
    return rule_value(unit.keywords, BATTLESMITH_KEYWORD)


def validate_battlesmith(state: MatchState, unit: Unit, action: Move) -> Rejection | None:
    x = battlesmith_value(unit)
    if x is None:
        return reject("no_battlesmith", R_BATTLESMITH, f"{unit.name} has no Battlesmith (X) special rule")
    if unit.flag(F_BATTLESMITH):
        return reject(
            "battlesmith_used", R_BATTLESMITH, f"{unit.name} has already used Battlesmith this turn"
        )
    if action.path or action.positions or action.heading is not None:
        return reject("battlesmith_moves_nothing", R_BATTLESMITH, "a Battlesmith activation moves nothing")
    if statuses.is_pinned(unit):
        return reject(
            "pinned", R_BATTLESMITH, f"{unit.name} is Pinned: it cannot be selected in the Move sub-phase"
        )
    if locked(state, unit):
        return reject("locked_in_combat", R_BATTLESMITH, f"{unit.name} is locked in combat")
    target = state.units.get(action.target or "")
    if target is None or not on_table(target) or target.side != unit.side:
        return reject("unknown_target", R_BATTLESMITH, f"no friendly unit {action.target!r} on the table")
    if target.kind not in BATTLESMITH_TARGET_KINDS or (target.id == unit.id and not BATTLESMITH_ON_ITSELF):
        return reject(
            "not_a_battlesmith_target",
            R_BATTLESMITH,
            f"{target.name} is not another friendly Vehicle, Automata or Walker",
        )
    gap = geom.unit_distance(unit, target)
    if gap > BATTLESMITH_RANGE + 1e-9:
        return reject(
            "too_far",
            R_BATTLESMITH,
            f"{target.name} is {gap:.2f} in away, Battlesmith reaches {BATTLESMITH_RANGE:g} in",
            distance=gap,
            limit=BATTLESMITH_RANGE,
        )
    if not _options(target):
        return reject(
            "nothing_to_repair", R_BATTLESMITH, f"{target.name} has lost no Hull Points and has no status"
        )
    return None


def _damaged(target: Unit) -> bool:
    return target.hp < target.profile.hp


def _options(target: Unit) -> tuple[str, ...]:
    return ((REPAIR,) if _damaged(target) else ()) + ((RESTORE,) if target.statuses else ())


def apply_battlesmith(state: MatchState, unit: Unit, action: Move, ctx: ApplyContext) -> MatchState:
    target = state.units[action.target or ""]
    state = replace_unit(state, add_flag(unit, F_BATTLESMITH))
    iq = lent_characteristic(unit, "intelligence")  # a Paragon lends it (seed glossary)
    ctx.log(f"{unit.name} uses Battlesmith on {target.name}: Intelligence Check.", R_BATTLESMITH)
    first = ctx.roll(f"Intelligence Check ({unit.name})", f"2D6 <= {iq}")
    second = ctx.roll(f"Intelligence Check ({unit.name})", f"2D6 <= {iq}")
    total = first + second
    passed = total <= iq
    ctx.set_outcome(f"{total}: {'passed' if passed else 'failed'}")
    if not passed:
        ctx.log(f"{unit.name} fails the Intelligence Check: no effect.", R_BATTLESMITH)
        return state
    options = _options(target)
    if len(options) > 1:
        return _ask(state, unit, target, options, 0, ctx)
    return _carry_out(state, unit, target, options[0], 0, ctx)


def _ask(
    state: MatchState, unit: Unit, target: Unit, options: tuple[str, ...], removed: int, ctx: ApplyContext
) -> MatchState:
    what = "Repair or Restore" if options == (REPAIR, RESTORE) else "the status to remove"
    decision = Decision(
        id=f"battlesmith-{ctx.seq}-{removed}",
        side=unit.side,
        kind=DECISION_BATTLESMITH,
        options=options,
        prompt=f"{unit.name} passed its Battlesmith check on {target.name}: choose {what}",
        rule=R_BATTLESMITH,
        context={"unit": unit.id, "target": target.id, "removed": str(removed)},
    )
    ctx.log(f"Side {unit.side} chooses {what} ({', '.join(options)}).", R_BATTLESMITH)
    return replace(state, pending=decision)


def resume_battlesmith(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    state = replace(state, pending=None)
    unit = state.units[decision.context["unit"]]
    target = state.units[decision.context["target"]]
    removed = int(decision.context["removed"])
    if choice in (REPAIR, RESTORE):
        return _carry_out(state, unit, target, choice, removed, ctx)
    return _restore_one(state, unit, target, choice, removed, ctx)


def _carry_out(
    state: MatchState, unit: Unit, target: Unit, option: str, removed: int, ctx: ApplyContext
) -> MatchState:
    x = battlesmith_value(unit) or 0
    if option == REPAIR:
        hp = min(target.profile.hp, target.hp + x)
        ctx.log(f"{unit.name} repairs {target.name}: {hp - target.hp} HP regained, {hp} HP.", R_BATTLESMITH)
        return replace_unit(state, replace(target, hp=hp))
    if len(target.statuses) <= x - removed:
        gone = sorted(target.statuses)
        ctx.log(f"{unit.name} restores {target.name}: no longer {', '.join(gone)}.", R_BATTLESMITH)
        return replace_unit(state, replace(target, statuses={}))
    return _ask(state, unit, target, tuple(sorted(target.statuses)), removed, ctx)


def _restore_one(
    state: MatchState, unit: Unit, target: Unit, status: str, removed: int, ctx: ApplyContext
) -> MatchState:
    target = statuses.remove(target, status)
    state = replace_unit(state, target)
    ctx.log(f"{unit.name} restores {target.name}: no longer {status}.", R_BATTLESMITH)
    removed += 1
    x = battlesmith_value(unit) or 0
    if removed < x and target.statuses:
        return _carry_out(state, unit, target, RESTORE, removed, ctx)
    return state
