"""Leadership, Morale checks, Pinning tests, Fall Back and Regroup (minimal 40k7 core [ext]).

Vehicles never take Morale or Leadership tests (40k7 Vehicles and Close Combat [seed]). A Morale check is
a Leadership test on 2D6 (a double 1 always passes: "Insane Heroism"); Fearless units pass
automatically. A failed Morale check makes the unit Fall Back 2D6" straight towards its own
table edge (HOME_EDGE [decided]: side a the left edge x = 0, side b the right edge x = width, as in
the scenarios the project ships); a model that would leave the battlefield takes the whole unit
with it (destroyed). Falling Back units test to Regroup at the start of their turn (only with at
least 25% of their models left); a unit that regroups may move at most 3" that turn and may not
Run or charge.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Point, Side
from ...match.turns import replace_unit
from . import refs
from .geo import alive
from .status import (
    PERMANENT,
    add_phase_flag,
    end_of_next_turn,
    flag_unit,
    has_phase_flag,
    phase_flags_with_prefix,
    set_status,
    without_status,
)
from .types import is_fearless, is_vehicle

HOME_EDGE: dict[Side, str] = {"a": "left", "b": "right"}
REGROUP_MIN_FRACTION = 0.25
REGROUP_MOVE = 3.0
MORALE_FRACTION = 0.25  # 40k7 Morale: 25% casualties in a phase
# 40k7 Morale: casualties suffered in close combat are answered by the assault result's Morale
# check, not by the 25% check at the end of the phase [decided].
CLOSE_COMBAT_LOSSES_USE_ASSAULT_RESULT = True


def leadership_test(ctx: ApplyContext, ld: int, purpose: str, modifier: int = 0) -> bool:
    """2D6 <= Ld (+ modifier); a double 1 always passes."""
    need = ld + modifier
    a = ctx.roll(purpose, f"2D6 <= {need}")
    b = ctx.roll(purpose, f"2D6 <= {need}")
    passed = (a == 1 and b == 1) or a + b <= need
    ctx.set_outcome(f"{a + b}: {'pass' if passed else 'fail'}")
    return passed


def morale_check(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    modifier: int = 0,
    reason: str = "",
    fall_back_on_fail: bool = True,
) -> tuple[MatchState, bool]:
    """A Morale check; failure = Fall Back (unless the caller moves it, e.g. after a Sweeping
    Advance). Returns (state, passed)."""
    unit = state.units[uid]
    if unit.destroyed:
        return state, True
    if is_vehicle(unit):
        ctx.log(f"{unit.name} is a vehicle: vehicles never take Morale checks.", refs.CLOSE_COMBAT)
        return state, True
    if is_fearless(unit):
        ctx.log(f"{unit.name} is Fearless and passes its Morale check{reason}.", refs.MORALE)
        return state, True
    if "falling_back" in unit.statuses:
        ctx.log(f"{unit.name} is already Falling Back and fails its Morale check{reason}.", refs.MORALE)
        return (fall_back(state, ctx, uid) if fall_back_on_fail else state), False
    passed = leadership_test(ctx, unit.profile.ld, "Morale check", modifier)
    mod = f" ({modifier:+d})" if modifier else ""
    ctx.log(f"{unit.name} {'passes' if passed else 'fails'} its Morale check{mod}{reason}.", refs.MORALE)
    if passed:
        return state, True
    return (fall_back(state, ctx, uid) if fall_back_on_fail else state), False


def pinning_test(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """40k7 Pinning: a Leadership test; failure = Gone to Ground (Pinned) until the end of its next
    turn. Vehicles and Fearless units are never pinned; a pinned unit does not test again."""
    unit = state.units[uid]
    if unit.destroyed or is_vehicle(unit) or "pinned" in unit.statuses:
        return state
    if is_fearless(unit):
        ctx.log(f"{unit.name} is Fearless: no Pinning test.", refs.PINNING)
        return state
    passed = leadership_test(ctx, unit.profile.ld, "Pinning test")
    if passed:
        ctx.log(f"{unit.name} passes its Pinning test.", refs.PINNING)
        return state
    ctx.log(f"{unit.name} fails its Pinning test and Goes to Ground (Pinned).", refs.PINNING)
    return set_status(state, uid, "pinned", end_of_next_turn(state, unit.side))


def _edge_vector(side: Side) -> tuple[float, float]:
    return (-1.0, 0.0) if HOME_EDGE[side] == "left" else (1.0, 0.0)


def fall_back(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """40k7 Fall Back: 2D6" straight towards the unit's own table edge."""
    unit = state.units[uid]
    a = ctx.roll("Fall Back distance", "2D6")
    b = ctx.roll("Fall Back distance", "2D6")
    dist = float(a + b)
    dx, dy = _edge_vector(unit.side)
    models = dict(unit.models)
    off_table = False
    width = state.battlefield.width
    for m in alive(unit):
        x = m.pos.x + dx * dist
        if x < 0 or x > width:
            off_table = True
        models[m.id] = replace(m, pos=Point(min(max(x, 0.0), width), m.pos.y + dy * dist))
    moved = replace(unit, models=models)
    if off_table:
        ctx.log(f'{unit.name} Falls Back {dist:g}" and flees off the battlefield: destroyed.', refs.FALL_BACK)
        return replace_unit(
            state,
            replace(moved, destroyed=True, models={k: replace(v, alive=False) for k, v in models.items()}),
        )
    ctx.log(f'{unit.name} Falls Back {dist:g}" towards its table edge.', refs.FALL_BACK)
    state = replace_unit(state, moved)
    return set_status(state, uid, "falling_back", PERMANENT)


def regroup(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """Start of the owner's turn: a Falling Back unit tests to Regroup or Falls Back again."""
    unit = state.units[uid]
    living = len(alive(unit))
    if living < REGROUP_MIN_FRACTION * len(unit.models):
        ctx.log(f"{unit.name} is below 25% strength and cannot Regroup.", refs.REGROUP)
        return fall_back(state, ctx, uid)
    if leadership_test(ctx, unit.profile.ld, "Regroup test"):
        ctx.log(f'{unit.name} Regroups (may move up to 3" this turn, no Run or charge).', refs.REGROUP)
        state = replace_unit(state, without_status(state.units[uid], "falling_back"))
        return flag_unit(state, uid, "regrouped")
    ctx.log(f"{unit.name} fails to Regroup.", refs.REGROUP)
    return fall_back(state, ctx, uid)


def _strength_at_start(state: MatchState, uid: str) -> int | None:
    """The models the unit had when it first took fire this phase: the flag
    ``strength:<uid>:<n>`` (n all digits, so ids holding ":" are told apart)."""
    for rest in phase_flags_with_prefix(state, f"strength:{uid}:"):
        if rest.isdigit():
            return int(rest)
    return None


def note_strength(state: MatchState, uid: str) -> MatchState:
    """Remember how many models a unit had when it first took fire this phase (Morale, 25%)."""
    if _strength_at_start(state, uid) is not None:
        return state
    return add_phase_flag(state, f"strength:{uid}:{len(alive(state.units[uid]))}")


def casualty_morale(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """40k7 Morale: 25% or more of the unit's models lost in this phase -> Morale check (once),
    whatever killed them."""
    unit = state.units[uid]
    if unit.destroyed or is_vehicle(unit) or has_phase_flag(state, f"morale:{uid}"):
        return state
    start = _strength_at_start(state, uid)
    if not start:
        return state
    lost = start - len(alive(unit))
    if lost < MORALE_FRACTION * start:
        return state
    state = add_phase_flag(state, f"morale:{uid}")
    state, _ = morale_check(state, ctx, uid, reason=f" after losing {lost} of {start} models this phase")
    return state


def end_of_phase_morale(state: MatchState, ctx: ApplyContext) -> MatchState:
    """40k7 Morale, Morale Checks: every unit that lost 25% or more of its models in this phase
    tests at the end of the phase, whatever killed them (an explosion, a Tank Shock, a Crash and
    Burn, models that could not be placed), if it has not tested for them already."""
    for flag in [f for f in state.phase_flags if f.startswith("strength:")]:
        uid, _, n = flag.removeprefix("strength:").rpartition(":")
        if uid in state.units and n.isdigit():
            state = casualty_morale(state, ctx, uid)
    return state
