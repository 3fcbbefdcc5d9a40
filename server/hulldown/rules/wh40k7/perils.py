"""40k7 Perils of the Warp, as it befalls a vehicle with Psychic Pilot.

40k7 The Psychic Phase, Perils of the Warp: roll a D6 on the table. Every "1 Wound/glancing hit
with no saves of any kind allowed" is, for a vehicle, a glancing hit: it loses one Hull Point, with
no cover save and no roll on the damage table (40k7 Vehicles, Glancing Hits). Leadership tests are
taken on the Psychic Pilot's Leadership 10 (40k7 Special Rules, Psychic Pilot). docs/psychic.md.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, other_side
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .attacks import Hit
from .damage import Fate, lose_hp
from .geo import alive, lead_model
from .morale import leadership_test
from .penetration import PenProfile
from .resolve import finish_vehicle, resolve_hits
from .rolls import d3, random_index
from .squadrons import squadron_members
from .warp import PILOT_LEADERSHIP, pool, powers, with_pool
from .wording import plural

PERILS_RESULTS = {
    1: "Dragged into the Warp",
    2: "Mental Purge",
    3: "Power Drain",
    4: "Psychic Backlash",
    5: "Empyric Feedback",
    6: "Warp Surge",
}
# Dragged into the Warp, failed: "the Psyker is removed as a casualty and his unit suffers D6
# Strength 6 AP1 hits". A vehicle removed as a casualty loses every Hull Point left, so it is
# destroyed as the damage rules say (a wreck, or its passengers disembark) [decided]; "his unit"
# is the rest of its squadron, the hits coming from the vehicle.
DRAGGED_HITS_STRENGTH = 6
DRAGGED_HITS_AP = 1
# Warp Surge, passed: a 3+ invulnerable save, Fleshbane, Armourbane and Smash until the start of
# the next friendly Psychic phase. Not modelled for vehicles [decided]: the log says so.
WARP_SURGE_GIFTS_MODELLED = False


def perils_of_the_warp(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """Roll on the Perils of the Warp table for the vehicle ``uid`` and apply the result."""
    face = ctx.roll("Perils of the Warp", "D6 table", lambda v: PERILS_RESULTS[v])
    name = PERILS_RESULTS[face]
    unit = state.units[uid]
    ctx.log(f"{unit.name} suffers Perils of the Warp: {face}, {name}.", refs.PERILS, result=face, name=name)
    if face == 1:
        if leadership_test(ctx, PILOT_LEADERSHIP, "Leadership test (Dragged into the Warp)"):
            return _glancing(state, ctx, uid, "passes its Leadership test")
        return _dragged(state, ctx, uid)
    if face == 2:
        state = _glancing(state, ctx, uid, "Mental Purge")
        return _lose_power(state, ctx, uid)
    if face == 3:
        state = _glancing(state, ctx, uid, "Power Drain")
        return _power_drain(state, ctx)
    if face == 4:
        return _glancing(state, ctx, uid, "Psychic Backlash")
    if leadership_test(ctx, PILOT_LEADERSHIP, f"Leadership test ({name})"):
        gifts = (
            "it gains nothing modelled here (the 3+ invulnerable save, Fleshbane, Armourbane and Smash "
            "are not modelled for vehicles: docs/psychic.md)"
            if face == 6 and not WARP_SURGE_GIFTS_MODELLED
            else "no ill effects"
        )
        ctx.log(f"{unit.name} passes its Leadership test: {gifts}.", refs.PERILS, leadership=PILOT_LEADERSHIP)
        return state
    return _glancing(state, ctx, uid, "fails its Leadership test")


def _glancing(state: MatchState, ctx: ApplyContext, uid: str, why: str) -> MatchState:
    """A glancing hit with no saves of any kind: one Hull Point (40k7 Vehicles, Glancing Hits)."""
    state = lose_hp(state, uid, 1)
    unit = state.units[uid]
    ctx.log(
        f"{unit.name} ({why}) suffers a glancing hit, no saves of any kind: loses 1 Hull Point "
        f"({unit.hp} left).",
        refs.PERILS,
        hull_points=unit.hp,
    )
    return finish_vehicle(state, ctx, uid, Fate())


def _dragged(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    unit = state.units[uid]
    lead = lead_model(unit)
    origin: g.Point = (lead.pos.x, lead.pos.y)  # the hull's centre: the hits come from the vehicle
    rest = [m for m in squadron_members(state, unit) if m.id != uid and alive(m)]
    ctx.log(
        f"{unit.name} fails its Leadership test: it is removed as a casualty (every Hull Point lost).",
        refs.PERILS,
        leadership=PILOT_LEADERSHIP,
    )
    state = lose_hp(state, uid, unit.hp)
    state = finish_vehicle(state, ctx, uid, Fate())
    if not rest:
        return state
    n = ctx.roll("Dragged into the Warp: hits on its unit", "D6")
    hit = Hit(PenProfile(DRAGGED_HITS_STRENGTH), DRAGGED_HITS_AP, origin, f"{unit.name}'s Perils", group=uid)
    ctx.log(
        f"The rest of {unit.name}'s squadron suffers {plural(n, 'Strength 6 AP1 hit')}.",
        refs.PERILS,
        hits=n,
        strength=DRAGGED_HITS_STRENGTH,
        ap=DRAGGED_HITS_AP,
    )
    state, _ = resolve_hits(state, ctx, rest[0].id, [hit] * n, attacker=None, kind="shooting", exclude=(uid,))
    return state


def _lose_power(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """Mental Purge: "randomly select one psychic power known to the Psyker. That power is
    immediately lost" - its profile is marked destroyed for the rest of the battle."""
    unit = state.units[uid]
    known = sorted(powers(unit), key=lambda w: w.id)
    if not known:
        return state
    lost = known[random_index(ctx, len(known), "Mental Purge: the power lost")]
    weapons = dict(unit.weapons)
    weapons[lost.id] = replace(lost, destroyed=True)
    ctx.log(
        f"{unit.name} loses the power {lost.name} for the rest of the battle.", refs.PERILS, power=lost.id
    )
    return replace_unit(state, replace(unit, weapons=weapons))


def _power_drain(state: MatchState, ctx: ApplyContext) -> MatchState:
    """Power Drain: "if it is currently the Psychic phase, roll a D3; both players lose a number
    of Warp Charge points equal to the result"."""
    if state.phase != "psychic":
        return state
    n = d3(ctx, "Power Drain: Warp Charge lost")
    for side in (state.active, other_side(state.active)):
        state = with_pool(state, side, pool(state, side) - n)
    ctx.log(
        f"Power Drain: both players lose {plural(n, 'Warp Charge point')} "
        f"(side {state.active} {pool(state, state.active)}, side {other_side(state.active)} "
        f"{pool(state, other_side(state.active))} left).",
        refs.PERILS,
        lost=n,
    )
    return state
