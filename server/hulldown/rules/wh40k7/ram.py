"""Ramming (40k7 Vehicles, Tanks: Ramming [ext]).

Each vehicle takes a hit against the facing where the other struck it (the rammer always on its
front): Strength half the Armour Value of its own impacting facing, rounded up, +1 for a Tank,
+2 for a Heavy or Super-heavy vehicle (the two bonuses do not add up). Both roll armour
penetration; a Super-heavy rammer rolls on the Thunderblitz table first (2-5 Kerr-smash: +D6 to
its penetration roll; 6 Flipped: the rammed vehicle suffers Explodes! - the D6" scatter is not
made [decided]).
"""

from __future__ import annotations

from ...match.context import ApplyContext
from ...match.state import MatchState, Unit
from .. import geometry as g
from . import refs
from .attacks import ArmourFacing, Hit
from .cover import armour_value
from .damage import Fate, apply_result
from .geo import alive, facing_hull
from .penetration import PenProfile
from .resolve import finish_vehicle, resolve_hits
from .types import is_heavy, is_super_heavy, is_tank

THUNDERBLITZ_FLIPPED = 6
THUNDERBLITZ_KERR_SMASH = 2


def ram_strength(unit: Unit, facing: ArmourFacing) -> int:
    """40k7 Ramming: half the impacting facing's Armour Value rounded up, +1 Tank, +2 Heavy or
    Super-heavy (the two bonuses do not add up)."""
    av = armour_value(unit, facing)
    bonus = 2 if (is_heavy(unit) or is_super_heavy(unit)) else 1 if is_tank(unit) else 0
    return -(-av // 2) + bonus


def ram(
    state: MatchState, ctx: ApplyContext, rammer_id: str, contact_hull: g.Hull, vid: str
) -> tuple[MatchState, bool]:
    """The collision of a Ram, the rammer's hull at the point of contact; returns (state, the
    rammer carries on because the rammed vehicle was removed by Explodes!)."""
    rammer = state.units[rammer_id]
    rammed = state.units[vid]
    front_centre = contact_hull.to_world((contact_hull.length / 2, 0.0))
    rammed_model = alive(rammed)[0]
    facings = g.facings_of_point(facing_hull(rammed_model), front_centre)
    rammed_facing = g.armour_facing(facings[0])
    s_on_rammed = ram_strength(rammer, "front")
    s_on_rammer = ram_strength(rammed, rammed_facing)
    extra = 0
    if is_super_heavy(rammer) and not is_super_heavy(rammed):
        face = ctx.roll("Thunderblitz (Ram)", "1 none, 2-5 Kerr-smash, 6 Flipped")
        if face == THUNDERBLITZ_FLIPPED:
            ctx.log(f"Thunderblitz: Flipped! {rammed.name} suffers an Explodes! result.", refs.THUNDERBLITZ)
            fate = Fate()
            state = apply_result(state, vid, "explodes", ctx, fate)
            state = finish_vehicle(state, ctx, vid, fate)
            return state, state.units[vid].destroyed and not state.units[vid].wreck
        if face >= THUNDERBLITZ_KERR_SMASH:
            extra = 1
            ctx.log("Thunderblitz: Kerr-smash! +D6 to the Ram's armour penetration roll.", refs.THUNDERBLITZ)
    ctx.log(
        f"{rammer.name} rams {rammed.name} ({rammed_facing} facing): S{s_on_rammed} hit on {rammed.name}, "
        f"S{s_on_rammer} hit on {rammer.name}'s front.",
        refs.RAM,
    )
    origin = (contact_hull.cx, contact_hull.cy)
    hit_rammed = Hit(
        PenProfile(s_on_rammed, extra_d6=extra),
        None,
        origin,
        f"{rammer.name}'s Ram",
        group=rammer.id,
        facing=rammed_facing,
        cover_allowed=False,
    )
    hit_rammer = Hit(
        PenProfile(s_on_rammer),
        None,
        (rammed_model.pos.x, rammed_model.pos.y),
        f"{rammed.name} (rammed)",
        group=vid,
        facing="front",
        cover_allowed=False,
    )
    state, _ = resolve_hits(state, ctx, vid, [hit_rammed], attacker=None, kind="ram", exclude=())
    if not state.units[rammer_id].destroyed:
        state, _ = resolve_hits(state, ctx, rammer_id, [hit_rammer], attacker=None, kind="ram", exclude=())
    removed = state.units[vid].destroyed and not state.units[vid].wreck
    return state, removed and not state.units[rammer_id].destroyed
