"""A vehicle reduced to 0 Hull Points: emergency disembarkation, Explodes (X), removal and wrecks.

Order: (1) a unit aboard makes its Emergency Disembarkation (hh3 Transport sub-type, Emergency
Disembarkation, "before the vehicle is removed"), Cool check included; (2) Explodes (X) is rolled
(hh3 Armoury, Explodes (X), "before it is removed") and its hits strike every unit within 6", the
unit that just disembarked included: what does not carry over to it is the attack that destroyed
the transport, not the explosion that follows (hh3 Transport sub-type, Emergency Disembarkation
[ext]); (3) the vehicle is removed, leaving a wreck only if the match agreed to wrecks and it did
not explode (hh3 Vehicles, Wrecks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Point, Terrain
from ...match.turns import replace_unit
from . import geom
from .core import (
    EXPLOSION_RANGE,
    EXPLOSION_STRENGTH,
    R_EXPLODES,
    R_VEHICLE,
    R_WRECK,
    at_least,
    rule_value,
    vehicle_model,
)
from .emergency import emergency_disembark
from .hits import Hit

# Resolves hits on one unit in order (``damage.resolve_hits``): state, unit id, hits, ctx. Passed
# in by the caller, since resolving a hit is what destroys a vehicle in the first place.
ResolveHits = Callable[[MatchState, str, Sequence[Hit], ApplyContext], MatchState]

# hh3 Vehicles, Wrecks: a wreck is difficult and dangerous terrain granting a 6+ cover save.
WRECK_KINDS = ("difficult", "dangerous", "cover")
WRECK_COVER = 6


def destroy_vehicle(state: MatchState, uid: str, ctx: ApplyContext, resolve_hits: ResolveHits) -> MatchState:
    """hh3 Vehicles, Hull Points and Wrecks; Armoury, Explodes (X); Transport sub-type, Emergency
    Disembarkation: a vehicle at 0 Hull Points is destroyed, in the order of the module
    docstring; ``resolve_hits`` resolves the hits of its explosion."""
    unit = state.units[uid]
    if unit.passengers:
        state = emergency_disembark(state, uid, ctx)
    state, exploded = explodes(state, uid, ctx, resolve_hits)
    unit = state.units[uid]
    model = vehicle_model(unit)
    wreck = state.options.wrecks_remain and not exploded
    unit = replace(
        unit,
        hp=0,
        destroyed=True,
        wreck=wreck,
        passengers=(),
        models={model.id: replace(model, alive=False)},
    )
    state = replace_unit(state, unit)
    if wreck:
        corners = geom.hull(model).corners()
        piece = Terrain(
            id=f"wreck-{uid}",
            points=tuple(Point(x, y) for x, y in corners),
            kinds=WRECK_KINDS,
            cover_save=WRECK_COVER,
            name=f"Wreck of {unit.name}",
        )
        state = replace(state, terrain={**state.terrain, piece.id: piece})
        ctx.log(f"{unit.name} is destroyed; its wreck stays (difficult, dangerous, 6+ cover).", R_WRECK)
    else:
        ctx.log(f"{unit.name} is destroyed and removed as a casualty.", R_VEHICLE)
    return state


def explodes(
    state: MatchState, uid: str, ctx: ApplyContext, resolve_hits: ResolveHits
) -> tuple[MatchState, bool]:
    """hh3 Armoury, Explodes (X) [ext]: roll a D6; on X or more every unit within 6" takes hits equal to the
    vehicle's starting Hull Points, each S8 AP- D1."""
    unit = state.units[uid]
    x = rule_value(unit.keywords, "explodes")
    if x is None:
        return state, False
    die = ctx.roll("Explodes", f"{x}+", at_least(x, "explodes", "no explosion"))
    if die < x:
        ctx.log(f"{unit.name} does not explode.", R_EXPLODES)
        return state, False
    hull = geom.hull(vehicle_model(unit))
    count = unit.profile.hp
    ctx.log(
        f'{unit.name} explodes: {count} S{EXPLOSION_STRENGTH} AP- hits on every unit within 6".', R_EXPLODES
    )
    victims = geom.models_near(state, hull, EXPLOSION_RANGE, exclude=(uid,))
    for victim in victims:
        hits = [
            Hit(EXPLOSION_STRENGTH, None, 1, f"explosion of {unit.name}", hull.centre, shooting=False)
            for _ in range(count)
        ]
        state = resolve_hits(state, victim.id, hits, ctx)
    return state, True
