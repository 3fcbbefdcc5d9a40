"""Dangerous terrain tests (40k7 Vehicles, Dangerous Terrain; Skimmers, Walkers; Terrain [ext]).

Vehicles treat difficult terrain (and wrecks) as dangerous: one test per move whose swept hull
crosses it [decided: one test per move]; a 1 fails: the vehicle loses 1 Hull Point and suffers an
Immobilised result. Skimmers test only when they start or end in difficult or dangerous terrain
(or end over impassable terrain); Zooming Flyers never. A Walker that fails is Immobilised only
[decided]; an Infantry unit that fails loses one Wound on one model [simplified].
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .damage import Fate, apply_result, lose_hp
from .geo import alive, all_terrain, footprint
from .moves import ModelMove
from .resolve import finish_vehicle
from .types import is_chariot, is_skimmer, is_vehicle, is_walker, is_zooming

DANGEROUS_FAIL_ON = 1  # 40k7 Vehicles, Dangerous Terrain: a dangerous terrain test fails on a 1


def dangerous_for_vehicle(state: MatchState, unit: Unit, mv: ModelMove) -> bool:
    """Does this vehicle move need a dangerous terrain test (40k7 Vehicles, Dangerous Terrain; Skimmers)?"""
    pieces = [
        p
        for p in all_terrain(state)
        if (p.has("difficult") or p.has("dangerous")) and p.id != f"wreck:{unit.id}"
    ]
    if is_zooming(unit):
        return False
    if is_skimmer(unit):
        start = g.terrain_under(footprint(mv.model), pieces)
        end = g.terrain_under(
            mv.end_footprint(), [*pieces, *(p for p in all_terrain(state) if p.has("impassable"))]
        )
        return bool(start or end)
    return bool(g.path_terrain(mv.swept(), pieces))


def dangerous_test(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """40k7 Vehicles, Dangerous Terrain: a failed test (a 1) costs 1 HP and an Immobilised result;
    a Walker is only Immobilised [decided]; infantry lose a Wound."""
    unit = state.units[uid]
    face = ctx.roll(
        "dangerous terrain test", "fails on 1", lambda v: "fail" if v <= DANGEROUS_FAIL_ON else "pass"
    )
    if face > DANGEROUS_FAIL_ON:
        ctx.log(f"{unit.name} passes its dangerous terrain test.", refs.DANGEROUS)
        return state
    if not is_vehicle(unit):
        living = alive(unit)
        victim = living[0]
        models = dict(unit.models)
        models[victim.id] = replace(victim, wounds=victim.wounds - 1, alive=victim.wounds > 1)
        still = any(m.alive for m in models.values())
        ctx.log(f"{unit.name} fails a dangerous terrain test: {victim.id} loses a Wound.", refs.DIFFICULT)
        return replace_unit(state, replace(unit, models=models, destroyed=not still))
    fate = Fate()
    if is_chariot(unit):
        # 40k7 Chariots (published rules): a failed dangerous terrain test is a glancing hit -
        # one Hull Point, no Immobilised result.
        state = lose_hp(state, uid, 1)
        ctx.log(
            f"{unit.name} fails its dangerous terrain test: a glancing hit, loses 1 Hull Point "
            f"({state.units[uid].hp} left).",
            refs.CHARIOT,
        )
    elif is_walker(unit):
        ctx.log(
            f"{unit.name} fails its dangerous terrain test and is Immobilised (Walker: no Hull Point lost).",
            refs.WALKER,
        )
        state = apply_result(state, uid, "immobilised", ctx, fate)
    else:
        state = lose_hp(state, uid, 1)
        ctx.log(
            f"{unit.name} fails its dangerous terrain test: loses 1 Hull Point ({state.units[uid].hp} left) and is Immobilised.",
            refs.DANGEROUS,
        )
        state = apply_result(state, uid, "immobilised", ctx, fate)
    return finish_vehicle(state, ctx, uid, fate)
