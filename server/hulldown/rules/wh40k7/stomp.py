"""Stomp: the Super-heavy Walker's extra close combat attack (40k7 Vehicles, Super-heavy
Walkers: Stomp, and the FAQ under the Stomp heading).

A Super-heavy Walker engaged in combat makes D3 Stomps at the Initiative 1 step, after the other
attacks of the round (`assault.resolve_combat`). Each Stomp places a 3" blast marker; every unit
with a model (partly) under it is stomped (Flyers and Super-heavies never are) and rolls once on
the Stomp table:

- 1 No Effect.
- 2-5 Kerr-runch: each model under the marker suffers a S6 AP4 hit / Kerr-smash: one vehicle under
  it suffers a penetrating hit.
- 6 Overrun: each model under the marker is removed as a casualty (no save of any kind) /
  Flipped: one vehicle under it suffers an Explodes! result.

FAQ: no cover saves against Stomp attacks (the hits allow no cover); casualties it causes do not
force a 25% Morale check on units outside the combat (the hits are close combat hits, answered by
the assault result). Placement is decided for the player [decided: no choice is asked]: the first
marker touches the walker, on the line from its hull to the nearest enemy model it is engaged
with; each later marker moves up to STOMP_STEP inches toward the nearest stompable enemy model
not under the last marker (it stays put when none is left or when it would lie over the walker).
The vehicle a Kerr-smash or Flipped result strikes is the one nearest the marker's centre.
Flipped does not scatter the vehicle first [decided, as Thunderblitz's Flipped]. Stomp results
against the enemy unit of the combat count for the assault result: an Overrun model as one Wound
[decided].
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely import Point as ShapelyPoint
from shapely.ops import nearest_points

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .attacks import Hit, Tally
from .damage import RESULT_NAMES, Fate, apply_result, lose_hp, roll_damage
from .geo import alive, footprint, on_table
from .penetration import PenProfile
from .resolve import finish_vehicle, resolve_hits
from .rolls import d3
from .types import is_flyer, is_super_heavy, is_vehicle, is_walker
from .wording import place, plural, rounded

STOMP_RADIUS = 1.5  # a 3" blast marker
STOMP_STEP = 3.0  # each later marker within 3" of the last [decided: its centre moves 3" at most]
STOMP_STRENGTH = 6
STOMP_AP = 4
# The first marker stands this far off the walker: touching, not over it.
TOUCH_GAP = 0.001
NO_EFFECT_MAX = 1
OVERRUN_ON = 6


def is_super_heavy_walker(unit: Unit) -> bool:
    """40k7 Super-heavy Walkers: a Walker that is also a Super-heavy vehicle."""
    return is_walker(unit) and is_super_heavy(unit)


def stompable(unit: Unit) -> bool:
    """40k7 Stomp: Flyers and every kind of Super-heavy cannot be stomped."""
    return on_table(unit) and not is_flyer(unit) and not is_super_heavy(unit)


def _under(state: MatchState, centre: g.Point, skip: str) -> dict[str, list[Model]]:
    out: dict[str, list[Model]] = {}
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.id == skip or not stompable(unit):
            continue
        models = [m for m in alive(unit) if g.distance(centre, footprint(m)) <= STOMP_RADIUS + g.EPS]
        if models:
            out[unit.id] = models
    return out


def _first_centre(walker: Model, target: Model) -> g.Point:
    shape = footprint(walker).polygon()
    c = (target.pos.x, target.pos.y)
    p, _ = nearest_points(shape.exterior, ShapelyPoint(c))
    px, py = float(p.x), float(p.y)
    dx, dy = c[0] - px, c[1] - py
    n = math.hypot(dx, dy)
    if n < g.EPS:
        dx, dy = px - walker.pos.x, py - walker.pos.y
        n = math.hypot(dx, dy) or 1.0
    reach = STOMP_RADIUS + TOUCH_GAP
    return (px + dx / n * reach, py + dy / n * reach)


def _next_centre(state: MatchState, walker_unit: Unit, centre: g.Point) -> g.Point:
    walker = alive(walker_unit)[0]
    under = {m.id for ms in _under(state, centre, walker_unit.id).values() for m in ms}
    targets = [
        m
        for u in state.units.values()
        if u.side != walker_unit.side and stompable(u)
        for m in alive(u)
        if m.id not in under
    ]
    if not targets:
        return centre
    target = min(targets, key=lambda m: (math.dist(centre, (m.pos.x, m.pos.y)), m.id))
    tx, ty = target.pos.x, target.pos.y
    d = math.dist(centre, (tx, ty))
    step = min(STOMP_STEP, d)
    new = (centre[0] + (tx - centre[0]) / d * step, centre[1] + (ty - centre[1]) / d * step)
    if g.distance(new, footprint(walker)) < STOMP_RADIUS - g.EPS:
        return centre
    return new


def _stomp_vehicle(state: MatchState, ctx: ApplyContext, uid: str, flipped: bool, tally: Tally) -> MatchState:
    fate = Fate()
    unit = state.units[uid]
    if flipped:
        ctx.log(f"Flipped! {unit.name} suffers an Explodes! result.", refs.STOMP)
        state = apply_result(state, uid, "explodes", ctx, fate)
    else:
        state = lose_hp(state, uid, 1)
        tally.penetrating += 1
        ctx.log(
            f"Kerr-smash! {unit.name} suffers a penetrating hit: {state.units[uid].hp} Hull Points left.",
            refs.STOMP,
        )
        result = roll_damage(ctx, state, uid, None)
        ctx.log(f"{unit.name}: {RESULT_NAMES[result]}.", refs.DAMAGE_TABLE)
        state = apply_result(state, uid, result, ctx, fate)
    return finish_vehicle(state, ctx, uid, fate)


def _overrun(state: MatchState, ctx: ApplyContext, uid: str, models: list[Model], tally: Tally) -> MatchState:
    unit = state.units[uid]
    ids = {m.id for m in models}
    new_models = {k: (replace(m, alive=False, wounds=0) if k in ids else m) for k, m in unit.models.items()}
    still = any(m.alive for m in new_models.values())
    state = replace_unit(state, replace(unit, models=new_models, destroyed=not still))
    tally.casualties += len(models)
    tally.unsaved_wounds += len(models)
    ctx.log(
        f"Overrun! {plural(len(models), 'model')} of {unit.name} under the marker "
        f"{'is' if len(models) == 1 else 'are'} removed as casualties (no saves).",
        refs.STOMP,
        removed=sorted(ids),
    )
    return state


def stomp_result(face: int, vehicle: bool) -> str:
    """40k7 Stomp table: the result's name for a die face."""
    if face <= NO_EFFECT_MAX:
        return "No Effect"
    if face >= OVERRUN_ON:
        return "Flipped" if vehicle else "Overrun"
    return "Kerr-smash" if vehicle else "Kerr-runch"


def stomp(state: MatchState, ctx: ApplyContext, walker_id: str, foe_id: str) -> tuple[MatchState, Tally]:
    """A Super-heavy Walker's Stomp attack in its combat with ``foe_id``; returns the new state and
    what it did to the foe (for the assault result)."""
    tally = Tally()
    walker_unit = state.units[walker_id]
    walker = alive(walker_unit)[0]
    foe = state.units[foe_id]
    engaged = [m for m in alive(foe)]
    if not engaged:
        return state, tally
    nearest = min(engaged, key=lambda m: (g.distance(footprint(walker), footprint(m)), m.id))
    n = d3(ctx, "Stomp attack: number of Stomps")
    ctx.log(f"{walker_unit.name} Stomps: {plural(n, 'Stomp')}.", refs.STOMP, stomps=n)
    centre = _first_centre(walker, nearest)
    for k in range(n):
        if k:
            centre = _next_centre(state, state.units[walker_id], centre)
        under = _under(state, centre, walker_id)
        ctx.log(
            f"Stomp {k + 1}: the marker is at {place(*centre)}; "
            + (f"{', '.join(state.units[u].name for u in under)} stomped." if under else "nobody under it."),
            refs.STOMP,
            centre=[rounded(centre[0]), rounded(centre[1])],
            stomped=list(under),
        )
        for uid, models in under.items():
            unit = state.units[uid]
            if unit.destroyed:
                continue
            models = [m for m in models if unit.models[m.id].alive]
            if not models:
                continue
            face = ctx.roll("Stomp table", "1 none, 2-5 Kerr-runch/smash, 6 Overrun/Flipped")
            target_tally = tally if uid == foe_id else Tally()
            if face <= NO_EFFECT_MAX:
                ctx.set_outcome(stomp_result(face, is_vehicle(unit)))
                ctx.log(f"{unit.name} gets out of the way: no effect.", refs.STOMP)
                continue
            ctx.set_outcome(stomp_result(face, is_vehicle(unit)))
            if is_vehicle(unit):
                state = _stomp_vehicle(state, ctx, uid, face >= OVERRUN_ON, target_tally)
                continue
            if face >= OVERRUN_ON:
                state = _overrun(state, ctx, uid, models, target_tally)
                continue
            ctx.log(
                f"Kerr-runch! {plural(len(models), 'model')} of {unit.name} under the marker: "
                f"{plural(len(models), 'S6 AP4 hit')}.",
                refs.STOMP,
                hits=len(models),
            )
            hit = Hit(
                PenProfile(STOMP_STRENGTH),
                STOMP_AP,
                centre,
                f"{walker_unit.name}'s Stomp",
                walker_id,
                cover_allowed=False,
            )
            state, got = resolve_hits(
                state, ctx, uid, [hit] * len(models), attacker=None, kind="close_combat", exclude=()
            )
            target_tally.unsaved_wounds += got.unsaved_wounds
            target_tally.casualties += got.casualties
    return state, tally
