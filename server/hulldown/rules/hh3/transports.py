"""Transports: who can get in, embarking, disembarking and emergency disembarkation.

# hh3 Transport sub-type [seed]. Capacity counts Bulky (X) models as X (Model.bulky); only Infantry or
# Paragon units (Unit.kind) of the transport's Faction (Unit.faction); one whole unit at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace
from shapely import LineString
from shapely.geometry.base import BaseGeometry

from ...match.actions import Disembark, Embark
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from . import geom, statuses
from .combat_lock import locked
from .core import (
    ASSAULT_VEHICLE_KEYWORD,
    COHERENCY,
    CONTACT,
    EMBARK_KINDS,
    EMBARK_RANGE,
    ENEMY_GAP,
    F_DISEMBARKED,
    F_DISEMBARKED_ASSAULT,
    F_EMBARKED,
    F_MOVED,
    F_RUSHED,
    F_UNLOADED,
    LIGHT_TRANSPORT_KEYWORD,
    R_CORE_MOVE,
    R_EMBARK,
    R_LIGHT_TRANSPORT,
    R_RAPID,
    R_TRANSPORT,
    TRANSPORT_KEYWORD,
    alive_models,
    on_table,
    rule_value,
    units_on_table,
    vehicle_model,
)

# Emergency disembarkation places bases this far off the hull (in contact within CONTACT) and
# tries positions every PLACE_STEP inches around the hull [decided].
PLACE_GAP = 0.01
PLACE_STEP = 0.25


# hh3 Armoury, Bulky (X): the unit keyword ``bulky:X`` (or bare ``bulky``, X = 1) gives every model
# of the unit the rule; ``Model.bulky`` above 1 is a Bulky (X) model as well. Without either a
# model has no Bulky rule at all, which is not the same as Bulky (1) for a Light Transport.
BULKY_KEYWORD = "bulky"
# hh3 Light Transport [ext + decided]: it cannot carry a model with the Bulky (X) special rule,
# whatever X, Bulky (1) included.
LIGHT_TRANSPORT_REFUSES_BULKY_1 = True


def bulky_value(unit: Unit, model: Model) -> int | None:
    """hh3 Armoury, Bulky (X): the model's X, or None when it does not have the rule."""
    rule = rule_value(unit.keywords, BULKY_KEYWORD)
    if rule is None and unit.has(BULKY_KEYWORD):
        rule = 1
    if model.bulky > 1:
        return max(model.bulky, rule or 0)
    return rule


def capacity_used(unit: Unit) -> int:
    """hh3 Transport sub-type, Who can get in: one point per model, X for a Bulky (X) model."""
    return sum(max(1, bulky_value(unit, m) or 1) for m in alive_models(unit))


def light_transport_refuses(unit: Unit) -> bool:
    """hh3 Light Transport [ext + decided]: a model with Bulky (X) cannot embark on it (see
    ``LIGHT_TRANSPORT_REFUSES_BULKY_1``); a model without the rule can."""
    least = 1 if LIGHT_TRANSPORT_REFUSES_BULKY_1 else 2
    return any((bulky_value(unit, m) or 0) >= least for m in alive_models(unit))


def access_edges(transport: Unit) -> list[LineString]:
    hull = geom.hull(vehicle_model(transport))
    return [LineString(g.facing_edge(hull, f)) for f in transport.profile.access]


def access_distance(transport: Unit, fp: g.Footprint) -> float:
    """Distance from a footprint to the nearest facing with an access point."""
    return min((g.distance(fp, edge) for edge in access_edges(transport)), default=float("inf"))


# hh3 Transport sub-type, Embarking / Disembarking [seed]: a unit embarks when all its models "start
# or end the sub-phase within 2\" of a facing of the transport with an access point". Where they end
# is where they stand; where they started is lost once the transport has moved or pivoted, so the
# transport records, as it turns or moves, each friendly unit that has not moved yet and stands
# within 2" of an access facing: the turn flag ``embark_from:<unit>`` [decided form]. A unit that
# has moved embarks from where its move ended [decided: its move was its activation, and it could
# have embarked from the start instead of moving].
EMBARK_FROM_FLAG = "embark_from"


def embark_from_flag(uid: str) -> str:
    return f"{EMBARK_FROM_FLAG}:{uid}"


def out_of_embark_range(transport: Unit, unit: Unit) -> tuple[Model, float] | None:
    """hh3 Transport sub-type, Embarking / Disembarking: the first model (and its distance) more
    than 2" from every facing with an access point; None when all are within 2"."""
    for model in alive_models(unit):
        d = access_distance(transport, geom.footprint(model))
        if d > EMBARK_RANGE + g.EPS:
            return model, d
    return None


def record_start_embarkers(state: MatchState, transport: Unit) -> Unit:
    """hh3 Transport sub-type, Embarking / Disembarking ("start ... the sub-phase within 2\""): the
    transport, about to move or pivot, with an ``embark_from`` flag for every friendly unit that has
    not moved this phase (so stands where it began the Move sub-phase) within 2" of its access
    facings."""
    if not transport.has(TRANSPORT_KEYWORD) or not transport.profile.access:
        return transport
    for other in units_on_table(state):
        if other.side != transport.side or other.kind not in EMBARK_KINDS or other.flag(F_MOVED):
            continue
        if out_of_embark_range(transport, other) is None:
            transport = add_flag(transport, embark_from_flag(other.id))
    return transport


def began_within_range(transport: Unit, unit: Unit) -> bool:
    """The unit began the Move sub-phase within 2" of an access facing and has not moved since."""
    return not unit.flag(F_MOVED) and transport.flag(embark_from_flag(unit.id))


def check_room(unit: Unit, transport: Unit) -> Rejection | None:
    """hh3 Transport sub-type, Who can get in: a Transport of the unit's Faction, carrying no other
    unit, with room for it (Bulky (X) counted; none at all in a Light Transport)."""
    if not transport.has(TRANSPORT_KEYWORD):
        return reject("not_a_transport", R_TRANSPORT, f"{transport.name} has no Transport sub-type")
    if unit.faction != transport.faction:
        return reject(
            "wrong_faction",
            R_TRANSPORT,
            f"{unit.name} ({unit.faction or 'no faction'}) is not of {transport.name}'s Faction "
            f"({transport.faction or 'no faction'})",
            unit_faction=unit.faction,
            transport_faction=transport.faction,
        )
    if transport.passengers:
        return reject(
            "transport_occupied",
            R_TRANSPORT,
            f"{transport.name} already carries {transport.passengers[0]}: one unit at a time",
        )
    if transport.has(LIGHT_TRANSPORT_KEYWORD) and light_transport_refuses(unit):
        return reject("light_transport", R_LIGHT_TRANSPORT, f"{transport.name} cannot carry Bulky (X) models")
    used, capacity = capacity_used(unit), transport.profile.capacity
    if used > capacity:
        return reject(
            "over_capacity",
            R_TRANSPORT,
            f"{unit.name} needs {used} points of Transport Capacity, {transport.name} has {capacity}",
            needed=used,
            capacity=capacity,
        )
    return None


def check_start_embarked(state: MatchState, unit: Unit, transport: Unit) -> Rejection | None:
    """Set-up (hh3 Transport sub-type, Who can get in): who may start the battle embarked in
    ``transport`` - an Infantry or Paragon unit it has room for; where the models stand does not
    matter yet."""
    if unit.kind not in EMBARK_KINDS:
        return reject(
            "cannot_embark", R_TRANSPORT, f"only Infantry or Paragon units embark, {unit.name} is {unit.kind}"
        )
    return _room_and_access(unit, transport)


def _room_and_access(unit: Unit, transport: Unit) -> Rejection | None:
    """hh3 Transport sub-type, Who can get in and Embarking: room for the unit, and an access
    point to get in (and out) by."""
    room = check_room(unit, transport)
    if room is not None:
        return room
    if not transport.profile.access:
        return reject("no_access_point", R_EMBARK, f"{transport.name} has no access point")
    return None


def validate_embark(state: MatchState, unit: Unit, action: Embark) -> Rejection | None:
    if state.phase != "movement":
        return reject("wrong_phase", R_EMBARK, f"units embark in the Movement phase, not {state.phase}")
    if unit.embarked_in is not None:
        return reject("already_embarked", R_EMBARK, f"{unit.name} is already embarked")
    if unit.kind not in EMBARK_KINDS:
        return reject(
            "cannot_embark", R_TRANSPORT, f"only Infantry or Paragon units embark, {unit.name} is {unit.kind}"
        )
    if unit.flag(F_DISEMBARKED):
        return reject(
            "embark_and_disembark", R_EMBARK, f"{unit.name} disembarked this turn: it cannot embark again"
        )
    if statuses.is_pinned(unit):
        return reject("pinned", R_EMBARK, f"{unit.name} is Pinned: it cannot move, so it cannot embark")
    if locked(state, unit):
        # hh3 core, Locked in Combat: no move, and embarking is the unit's move [decided].
        return reject("locked_in_combat", R_CORE_MOVE, f"{unit.name} is locked in combat: it cannot embark")
    transport = state.units.get(action.transport)
    if transport is None or not on_table(transport) or transport.side != unit.side:
        return reject(
            "unknown_transport", R_EMBARK, f"no friendly transport {action.transport!r} on the table"
        )
    refused = _room_and_access(unit, transport)
    if refused is not None:
        return refused
    far = out_of_embark_range(transport, unit)
    if far is not None and not began_within_range(transport, unit):
        model, d = far
        return reject(
            "too_far_from_access",
            R_EMBARK,
            f"{model.id} is {d:.2f} in from the nearest access point, it must be within 2 in "
            "(now, or at the start of the Move sub-phase)",
            model=model.id,
            distance=d,
            limit=EMBARK_RANGE,
        )
    return None


def apply_embark(state: MatchState, unit: Unit, action: Embark, ctx: ApplyContext) -> MatchState:
    transport = state.units[action.transport]
    ctx.log(
        f"{unit.name} embarks on {transport.name} ({capacity_used(unit)}/{transport.profile.capacity}).",
        R_EMBARK,
    )
    state = replace_unit(state, add_flag(replace(unit, embarked_in=transport.id), F_EMBARKED))
    return replace_unit(state, replace(transport, passengers=(unit.id,)))


@dataclass(frozen=True)
class Surroundings:
    """What a base set down beside a transport must keep clear of, gathered once for the many
    spots tried: the models of the units on the table but ``ignore``d (with their side), the
    impassable terrain and the battlefield's size."""

    models: tuple[tuple[g.Footprint, str], ...]
    impassable: tuple[BaseGeometry, ...]
    width: float
    height: float


def surroundings(state: MatchState, ignore: set[str]) -> Surroundings:
    models = tuple(
        (fp, u.side) for u in units_on_table(state) if u.id not in ignore for fp in geom.unit_footprints(u)
    )
    impassable = tuple(p.polygon() for p in geom.terrain_pieces(state) if p.has("impassable"))
    return Surroundings(models, impassable, state.battlefield.width, state.battlefield.height)


def blocked(
    state: MatchState, fp: g.Footprint, side: str, others: list[g.Footprint], ignore: set[str]
) -> str | None:
    """Why a base cannot stand here (None when it can): enemy within 1", a model under it, or
    impassable terrain (hh3 Transport sub-type, Embarking / Disembarking and Emergency Disembarkation)."""
    return blocked_in(surroundings(state, ignore), fp, side, others)


def blocked_in(around: Surroundings, fp: g.Footprint, side: str, others: list[g.Footprint]) -> str | None:
    """:func:`blocked`, with the surroundings gathered already (a search trying many spots)."""
    for other, other_side in around.models:
        if g.overlaps(fp, other):
            return "overlaps_model"
        if other_side != side and g.within(fp, other, ENEMY_GAP):
            return "too_close_to_enemy"
    if any(g.overlaps(fp, o) for o in others):
        return "overlaps_model"
    if any(g.overlaps(fp, polygon) for polygon in around.impassable):
        return "impassable"
    if not g.inside_battlefield(fp, around.width, around.height):
        return "off_table"
    return None


def validate_disembark(state: MatchState, unit: Unit, action: Disembark) -> Rejection | None:
    if state.phase != "movement":
        return reject("wrong_phase", R_EMBARK, f"units disembark in the Movement phase, not {state.phase}")
    if unit.embarked_in is None:
        return reject("not_embarked", R_EMBARK, f"{unit.name} is not embarked")
    if unit.flag(F_EMBARKED):
        return reject(
            "embark_and_disembark",
            R_EMBARK,
            f"{unit.name} embarked this Movement phase: it cannot also disembark",
        )
    transport = state.units[unit.embarked_in]
    if transport.flag(F_RUSHED):
        return reject(
            "transport_rushed",
            R_RAPID,
            f"{transport.name} Rushed this turn: its passengers cannot disembark",
        )
    alive = {m.id: m for m in alive_models(unit)}
    if not action.positions:
        return reject("nothing_placed", R_EMBARK, "place at least one model to disembark")
    placed: list[g.Footprint] = []
    for mid, pos in action.positions.items():
        model = alive.get(mid)
        if model is None:
            return reject("unknown_model", R_EMBARK, f"{unit.name} has no model {mid!r} aboard")
        fp = geom.at(model, pos)
        d = access_distance(transport, fp)
        if d > CONTACT or g.overlaps(fp, geom.hull(vehicle_model(transport))):
            return reject(
                "not_at_access_point",
                R_EMBARK,
                f"{mid} must be placed in contact with a facing with an access point ({d:.2f} in away)",
                model=mid,
                distance=d,
            )
        why = blocked(state, fp, unit.side, placed, {unit.id})
        if why is not None:
            return reject(
                why, R_EMBARK, f"{mid} cannot be placed at ({pos.x:g}, {pos.y:g}): {why}", model=mid
            )
        placed.append(fp)
    if not g.coherent(placed, COHERENCY):
        return reject(
            "not_coherent", R_EMBARK, f"the disembarked models must be in coherency ({COHERENCY:g} in)"
        )
    return _left_out_placeable(state, transport, unit, set(alive) - set(action.positions), placed)


def _left_out_placeable(
    state: MatchState, transport: Unit, unit: Unit, left_out: set[str], placed: list[g.Footprint]
) -> Rejection | None:
    """hh3 Transport sub-type, Embarking / Disembarking [seed]: the whole unit disembarks and only
    a model that cannot be placed is a casualty, so a model left out must have no legal position
    left beside the models placed (``disembark_spot``)."""
    around = surroundings(state, {unit.id})
    for mid in sorted(left_out):
        spot = disembark_spot(around, transport, unit.models[mid], unit.side, placed)
        if spot is not None:
            return reject(
                "model_placeable",
                R_EMBARK,
                f"{mid} can still be placed at an access point (e.g. at ({spot.x:.2f}, {spot.y:.2f})): the "
                "whole unit disembarks, only a model that cannot be placed is removed as a casualty",
                model=mid,
                x=round(spot.x, 3),
                y=round(spot.y, 3),
            )
    return None


def disembark_spot(
    around: Surroundings, transport: Unit, model: Model, side: str, placed: list[g.Footprint]
) -> Point | None:
    """hh3 Transport sub-type, Embarking / Disembarking [seed]: a position (tried every PLACE_STEP
    inches round the hull) where ``model`` could still be set down: in contact with a facing with
    an access point, not on the hull, a model or impassable terrain, not within 1" of an enemy,
    and in coherency with the models placed [decided: judged against the player's own placement,
    as for an Emergency Disembarkation]. None: it cannot be placed."""
    hull = geom.hull(vehicle_model(transport))
    for point in candidates(transport, model):
        fp = geom.at(model, point)
        if access_distance(transport, fp) > CONTACT or g.overlaps(fp, hull):
            continue
        if placed and not any(g.within(fp, other, COHERENCY) for other in placed):
            continue
        if blocked_in(around, fp, side, placed) is None:
            return point
    return None


def apply_disembark(state: MatchState, unit: Unit, action: Disembark, ctx: ApplyContext) -> MatchState:
    transport = state.units[unit.embarked_in or ""]
    models = dict(unit.models)
    lost: list[str] = []
    for mid, model in unit.models.items():
        if not model.alive:
            continue
        pos = action.positions.get(mid)
        if pos is None:
            models[mid] = replace(model, alive=False)
            lost.append(mid)
        else:
            models[mid] = replace(model, pos=pos)
    unit = replace(unit, models=models, embarked_in=None)
    # hh3 core, Placing Disembarked Models [ext]: once placed the unit may still make a normal
    # move (not a Rush), so the disembarkation does not use up its Move sub-phase activation.
    for flag in (F_DISEMBARKED, F_MOVED):
        unit = add_flag(unit, flag)
    if transport.has(ASSAULT_VEHICLE_KEYWORD):
        unit = add_flag(unit, F_DISEMBARKED_ASSAULT)
    ctx.log(f"{unit.name} disembarks from {transport.name}.", R_EMBARK)
    if lost:
        ctx.log(f"{', '.join(lost)} could not be placed and are removed as casualties.", R_EMBARK)
    state = replace_unit(state, unit)
    return replace_unit(state, add_flag(replace(transport, passengers=()), F_UNLOADED))


def candidates(transport: Unit, model: Model) -> list[Point]:
    """Positions around the hull where a base touches it, every PLACE_STEP inches."""
    ring = geom.hull(vehicle_model(transport)).polygon().buffer(geom.radius(model) + PLACE_GAP).exterior
    steps = max(1, int(ring.length / PLACE_STEP))
    points = (ring.interpolate(i * ring.length / steps) for i in range(steps))
    return [Point(float(p.x), float(p.y)) for p in points]
