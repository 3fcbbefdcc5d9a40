"""The end of a vehicle: Wrecked, Explodes!, Crash and Burn, Catastrophic Damage (40k7 Vehicle
Damage Table, Wrecked Vehicles) and what happens to its passengers (40k7 Transports, Effects of
Damage on Passengers).

``decide_vehicle_end`` runs once per vehicle at the end of an attack (a squadron member: when it
is destroyed), so an explosion happens once however many Explodes! results were rolled, and
Explodes! beats Wrecked [decided]. The hits of an explosion are resolved like any others: the
caller passes the function that resolves them (``resolve.finish_vehicle`` passes one that calls
``resolve_hits``), so this module never imports the one that imports it.

[decided] simplifications: explosion hits allow armour and invulnerable saves but no cover, Jink's
included (``EXPLOSION_COVER``); the Apocalyptic Mega-blast of Catastrophic Damage is
three circles of 5", 7" and 10" diameter and its "D" Strength is resolved as Strength 10 (D
weapons are not modelled).
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Point
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .allocation import RANDOM_ALLOCATION
from .attacks import Hit
from .damage import Fate
from .geo import alive, footprint, lead_model, on_table
from .morale import note_strength, pinning_test
from .penetration import PenProfile
from .rolls import scatter
from .status import FORCED_OUT_STATUS
from .survivors import place_survivors
from .types import is_assault_vehicle, is_super_heavy, is_zooming
from .wording import plural

EXPLOSION_HIT = (4, None)  # S4 AP- (Explodes!)
CRASH_HIT = (6, None)  # S6 AP- (Crash and Burn)
CRASH_PASSENGER_HIT = (10, 2)  # S10 AP2 (passengers of a Crashing Flyer / Catastrophic Damage)
LARGE_BLAST_RADIUS = 2.5
# Cover against the hits of a vehicle's end (40k7 Vehicle Damage Table, Explodes!; Flyers, Crash
# and Burn!; Super-heavy Vehicles, Catastrophic Damage): the rules are silent. No cover save of any
# kind [decided]: cover is worked out from a firer's point of view (40k7 Vehicles, Obscured
# Targets: "hit by an enemy shooting attack"), and these hits have no firer and are no shooting
# attack - so Jink's 4+ (a save taken when targeted by a shooting attack) does not apply either,
# not even for the squadron-mate of the vehicle that explodes. Armour and invulnerable saves apply.
EXPLOSION_COVER = False
# Survivors "placed where the vehicle used to be": inside its old footprint, then within 2"
# of it (unit coherency distance) [decided].
PLACE_AROUND_WRECKAGE = 2.0
WRECK_DISEMBARK = 3.0
# Catastrophic Damage table: (name, [(diameter, strength, ap) from the centre out]).
MEGA_BLAST_DIAMETERS = (5.0, 7.0, 10.0)
DESTROYER_STRENGTH = 10
CATASTROPHIC: tuple[tuple[int, str, tuple[tuple[int, int], ...]], ...] = (
    (1, "Explosion", ((DESTROYER_STRENGTH, 2), (4, 4), (2, 6))),
    (3, "Devastating Explosion", ((DESTROYER_STRENGTH, 2), (8, 3), (4, 5))),
    (6, "Titanic Explosion!", ((DESTROYER_STRENGTH, 2), (10, 3), (5, 4))),
)


# Resolves the hits of a vehicle's end on one unit (no attacker; EXPLOSION_COVER): state, ctx, unit, hits.
ExplosionHits = Callable[[MatchState, ApplyContext, str, list[Hit]], MatchState]


def decide_vehicle_end(
    state: MatchState, ctx: ApplyContext, uid: str, fate: Fate, explosion_hits: ExplosionHits
) -> MatchState:
    """Decide the vehicle's end after an attack: Crash and Burn > Explodes! > Wrecked (40k7 Vehicle
    Damage table, Flyers, Super-heavy Vehicles); ``explosion_hits`` resolves the hits it deals."""
    unit = state.units[uid]
    if unit.destroyed:
        return state
    # 40k7 Super-heavy Flyers: no Crash and Burn! - Catastrophic Damage at the last Hull Point.
    if fate.crash or (unit.hp == 0 and is_zooming(unit) and not is_super_heavy(unit)):
        return crash_and_burn(state, ctx, uid, explosion_hits)
    if fate.explodes:
        return explodes(state, ctx, uid, explosion_hits)
    if unit.hp == 0:
        if is_super_heavy(unit):
            return catastrophic(state, ctx, uid, explosion_hits)
        return wrecked(state, ctx, uid, explosion_hits)
    return state


def _area_hits(
    state: MatchState,
    ctx: ApplyContext,
    centre: g.Point,
    rings: list[tuple[float, int, int | None]],
    source: str,
    exclude: set[str],
    explosion_hits: ExplosionHits,
) -> MatchState:
    """Every unit with models in an area takes one hit per model (40k7 Vehicle Damage Table, Explodes!;
    Crash and Burn). ``rings``: (radius, S, AP) innermost first; ``touch``: a model counts when
    any part of it is inside (blast markers) rather than within range (explosion)."""
    targets: list[tuple[str, list[Hit]]] = []
    for other in list(state.units.values()):
        if other.id in exclude or not on_table(other):
            continue
        hits: list[Hit] = []
        for m in alive(other):
            d = g.distance(centre, footprint(m))
            for radius, s, ap in rings:
                if d <= radius + g.EPS:
                    hits.append(
                        Hit(PenProfile(s), ap, centre, source, group=source, cover_allowed=EXPLOSION_COVER)
                    )
                    break
        if hits:
            targets.append((other.id, hits))
    for tid, hits in targets:
        if not on_table(state.units[tid]):
            continue
        ctx.log(f"{state.units[tid].name} takes {plural(len(hits), 'hit')} from {source}.", refs.DAMAGE_TABLE)
        state = explosion_hits(state, ctx, tid, hits)
    return state


def _remove(state: MatchState, uid: str, wreck: bool) -> MatchState:
    unit = state.units[uid]
    return replace_unit(state, replace(unit, destroyed=True, wreck=wreck, hp=0 if wreck else unit.hp))


def _clear_passengers(state: MatchState, uid: str) -> MatchState:
    unit = state.units[uid]
    return state if not unit.passengers else replace_unit(state, replace(unit, passengers=()))


def wrecked(state: MatchState, ctx: ApplyContext, uid: str, explosion_hits: ExplosionHits) -> MatchState:
    """40k7 Wrecked: destroyed, stays as difficult terrain; passengers disembark within 3" and take
    a Pinning test."""
    unit = state.units[uid]
    ctx.log(f"{unit.name} is Wrecked: it stays on the battlefield as difficult terrain.", refs.WRECKED)
    hull = footprint(lead_model(unit))
    state = _disembark_survivors(
        state, ctx, uid, hull, WRECK_DISEMBARK, inside_first=False, hit=None, explosion_hits=explosion_hits
    )
    return _clear_passengers(_remove(state, uid, wreck=True), uid)


def explodes(state: MatchState, ctx: ApplyContext, uid: str, explosion_hits: ExplosionHits) -> MatchState:
    """40k7 Explodes!: removed (no wreck); each unit within D6" takes one S4 AP- hit per model in
    range; passengers take one S4 hit per model and are placed where the vehicle was."""
    unit = state.units[uid]
    model = lead_model(unit)
    hull = footprint(model)
    radius = ctx.roll("Explodes! radius", 'D6"')
    ctx.log(f'{unit.name} explodes: every unit within {radius}" is hit.', refs.DAMAGE_TABLE)
    state = _remove(state, uid, wreck=False)
    state = _disembark_survivors(
        state, ctx, uid, hull, 0.0, inside_first=True, hit=EXPLOSION_HIT, explosion_hits=explosion_hits
    )
    placed = set(state.units[uid].passengers)
    state = _clear_passengers(state, uid)
    return _explosion_from_hull(
        state, ctx, hull, float(radius), f"{unit.name}'s explosion", {uid, *placed}, explosion_hits
    )


def _explosion_from_hull(
    state: MatchState,
    ctx: ApplyContext,
    hull: g.Footprint,
    radius: float,
    source: str,
    exclude: set[str],
    explosion_hits: ExplosionHits,
) -> MatchState:
    """40k7 Explodes!: each unit with models within the radius of the hull takes one S4 AP- hit
    per such model."""
    centre = hull.centre
    for other in list(state.units.values()):
        if other.id in exclude or not on_table(other):
            continue
        n = sum(1 for m in alive(other) if g.distance(hull, footprint(m)) <= radius + g.EPS)
        if n == 0:
            continue
        hits = [
            Hit(
                PenProfile(EXPLOSION_HIT[0]),
                EXPLOSION_HIT[1],
                centre,
                source,
                group=source,
                cover_allowed=EXPLOSION_COVER,
            )
        ] * n
        ctx.log(f"{other.name} takes {plural(n, 'hit')} from {source}.", refs.DAMAGE_TABLE)
        state = explosion_hits(state, ctx, other.id, hits)
    return state


def crash_and_burn(
    state: MatchState, ctx: ApplyContext, uid: str, explosion_hits: ExplosionHits
) -> MatchState:
    """40k7 Crash and Burn: a large blast over the Flyer scatters 2D6"; every unit under it takes
    one S6 AP- hit per model under it; passengers take S10 AP2 hits; the Flyer is removed."""
    unit = state.units[uid]
    model = lead_model(unit)
    hull = footprint(model)
    dx, dy = scatter(ctx, None, "Crash and Burn")
    centre = (model.pos.x + dx, model.pos.y + dy)
    ctx.log(
        f"{unit.name} Crashes and Burns: the blast lands at ({centre[0]:.1f}, {centre[1]:.1f}).", refs.FLYER
    )
    state = _remove(state, uid, wreck=False)
    state = _disembark_survivors(
        state, ctx, uid, hull, 0.0, inside_first=True, hit=CRASH_PASSENGER_HIT, explosion_hits=explosion_hits
    )
    exclude = {uid, *state.units[uid].passengers}
    state = _clear_passengers(state, uid)
    return _area_hits(
        state,
        ctx,
        centre,
        [(LARGE_BLAST_RADIUS, *CRASH_HIT)],
        f"{unit.name} crashing",
        exclude,
        explosion_hits,
    )


def catastrophic(state: MatchState, ctx: ApplyContext, uid: str, explosion_hits: ExplosionHits) -> MatchState:
    """40k7 Super-heavy Catastrophic Damage: an Apocalyptic Mega-blast that scatters 2D6"."""
    unit = state.units[uid]
    model = lead_model(unit)
    hull = footprint(model)
    face = ctx.roll("Catastrophic Damage", "1 Explosion, 2-3 Devastating, 4-6 Titanic")
    name, profile = next((n, p) for top, n, p in CATASTROPHIC if face <= top)
    ctx.set_outcome(name)
    dx, dy = scatter(ctx, None, "Catastrophic Damage")
    centre = (model.pos.x + dx, model.pos.y + dy)
    ctx.log(f"{unit.name} suffers Catastrophic Damage: {name}", refs.CATASTROPHIC)
    state = _remove(state, uid, wreck=False)
    state = _disembark_survivors(
        state, ctx, uid, hull, 0.0, inside_first=True, hit=CRASH_PASSENGER_HIT, explosion_hits=explosion_hits
    )
    rings: list[tuple[float, int, int | None]] = [
        (d / 2.0, s, ap) for d, (s, ap) in zip(MEGA_BLAST_DIAMETERS, profile, strict=True)
    ]
    exclude = {uid, *state.units[uid].passengers}
    state = _clear_passengers(state, uid)
    return _area_hits(
        state, ctx, centre, rings, f"{unit.name}'s catastrophic explosion", exclude, explosion_hits
    )


def _disembark_survivors(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    hull: g.Footprint,
    max_gap: float,
    inside_first: bool,
    hit: tuple[int, int | None] | None,
    explosion_hits: ExplosionHits,
) -> MatchState:
    """Passengers of a destroyed transport: placed (models that cannot be placed are casualties),
    then hits per embarked model (Explodes!, Crash and Burn), then a Pinning test."""
    transport = state.units[uid]
    for pid in transport.passengers:
        passenger = state.units.get(pid)
        if passenger is None or passenger.destroyed:
            continue
        state = note_strength(state, pid)
        passenger = state.units[pid]
        models = alive(passenger)
        n_embarked = len(models)
        # The owner places them (docs/decisions.md); the proposal is the automatic placement.
        spots = place_survivors(
            state,
            ctx,
            transport,
            passenger,
            hull,
            max_gap if max_gap else PLACE_AROUND_WRECKAGE,
            inside_first,
        )
        new_models = dict(passenger.models)
        lost = 0
        for m in models:
            spot = spots[m.id]
            if spot is None:
                new_models[m.id] = replace(m, alive=False, wounds=0)
                lost += 1
            else:
                new_models[m.id] = replace(m, pos=Point(spot.x, spot.y))
        still = any(m.alive for m in new_models.values())
        statuses = dict(passenger.statuses)
        forced_in_enemy_turn = state.active != passenger.side and not is_assault_vehicle(transport)
        if forced_in_enemy_turn:
            # 40k7 Vehicles, Transports (Assault Vehicles): forced out in the enemy's turn, the
            # unit cannot charge in its own next Assault phase - its next player turn.
            statuses[FORCED_OUT_STATUS] = state.player_turn + 1
        state = replace_unit(
            state,
            replace(
                passenger,
                models=new_models,
                embarked_in=None,
                destroyed=not still,
                turn_flags=(*passenger.turn_flags, "disembarked", "emergency"),
                statuses=statuses,
            ),
        )
        ctx.log(
            f"{passenger.name} disembarks from the destroyed {transport.name}"
            + (
                f"; {plural(lost, 'model')} cannot be placed and {'is' if lost == 1 else 'are'} lost"
                if lost
                else ""
            )
            + ".",
            refs.PASSENGERS,
        )
        if still and hit is not None:
            hits = [
                Hit(
                    PenProfile(hit[0]),
                    hit[1],
                    hull.centre,
                    f"{transport.name} destroyed",
                    group=uid,
                    cover_allowed=EXPLOSION_COVER,
                    # 40k7 Transports, Effects of Damage on Passengers: "Randomly Allocated".
                    rules=(RANDOM_ALLOCATION,),
                )
            ] * n_embarked
            state = explosion_hits(state, ctx, pid, hits)
        if not state.units[pid].destroyed:
            state = pinning_test(state, ctx, pid)
    return state
