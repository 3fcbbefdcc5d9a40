"""40k11 core rules, Transports [ext]: Embark, Disembark and who fits (the set-up's start embarked).

- A TRANSPORT is a unit with the ``transport`` keyword; ``profile.capacity`` is how many models
  it carries (``Model.bulky`` a model's places: "takes up the space of 2 models"). Any number of
  units may be aboard while the capacity allows.
- Embark: an INFANTRY unit (``EMBARK_KEYWORD`` [decided]) whose every model ended its Normal,
  Advance or Fall Back move this phase within 3" of a friendly TRANSPORT; it is removed from the
  battlefield. Not after disembarking this phase.
- Disembark: a unit that started the Movement phase embarked, from a transport that did not
  Advance or Fall Back this phase; every model set up wholly within 3" of the transport, not
  within Engagement Range of enemy models. After the transport's Normal move the unit cannot
  move or charge this turn.
- Destroyed Transport: module ``destroyed``.
"""

from __future__ import annotations

from msgspec.structs import replace
from shapely import Point as ShapelyPoint
from shapely import unary_union
from shapely.geometry.base import BaseGeometry

from ...match.actions import Disembark, Embark
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import replace_unit
from ..geometry import Footprint, as_geometry, distance, inside_battlefield, overlaps
from .constants import (
    ADVANCED,
    DISEMBARK_RANGE,
    DISEMBARKED,
    EMBARK_KEYWORD,
    EMBARK_RANGE,
    EMBARKED,
    ENGAGEMENT_RANGE_HORIZONTAL,
    EPS,
    FELL_BACK,
    MOVED,
    NO_CHARGE,
    R_DISEMBARK,
    R_EMBARK,
    R_TRANSPORTS,
    TRANSPORT,
)
from .space import extent, footprint, geo_terrain
from .units import live_models, on_table, with_flags


def is_transport(unit: Unit) -> bool:
    """40k11 core rules, Transports: a unit with the TRANSPORT keyword."""
    return unit.has(TRANSPORT)


def places(unit: Unit) -> int:
    """40k11 core rules, Transports (transport capacity): one place per live model, ``Model.bulky``
    for a model that "takes up the space of" more."""
    return sum(max(1, m.bulky) for m in live_models(unit))


def carried(state: MatchState, transport: Unit) -> int:
    """Places taken by the units aboard ``transport``."""
    return sum(places(state.units[pid]) for pid in transport.passengers if pid in state.units)


def transport_shape(transport: Unit, dead_too: bool = False) -> BaseGeometry:
    """The whole transport (40k11 17.02 FRAME: measured to its closest point); a destroyed
    transport's models too when ``dead_too`` (Destroyed Transport: "before removing it")."""
    models = [m for m in transport.models.values() if m.alive or dead_too]
    return unary_union([as_geometry(extent(transport, m)) for m in models])


def farthest(fp: Footprint, shape: BaseGeometry) -> float:
    """How far the farthest point of ``fp`` is from ``shape`` ("wholly within" X": at most X)."""
    ring = as_geometry(fp).exterior
    return max(float(shape.distance(ShapelyPoint(x, y))) for x, y in ring.coords)


def check_fits(state: MatchState, unit: Unit, transport: Unit) -> Rejection | None:
    """40k11 core rules, Transports: who may be aboard ``transport`` - an INFANTRY unit
    (EMBARK_KEYWORD [decided]) of its faction (when both name one [decided]), not itself a
    transport, with room left in the transport capacity. Also the set-up's start embarked."""
    if not is_transport(transport):
        return reject("not_a_transport", R_TRANSPORTS, f"{transport.name} has no TRANSPORT keyword")
    if not unit.has(EMBARK_KEYWORD) or is_transport(unit):
        return reject(
            "cannot_embark",
            R_TRANSPORTS,
            f"{unit.name} is not an INFANTRY unit: only INFANTRY embarks (docs/rules-notes.md, 40k11 Transports)",
        )
    if unit.faction and transport.faction and unit.faction != transport.faction:
        return reject(
            "wrong_faction",
            R_TRANSPORTS,
            f"{unit.name} ({unit.faction}) is not of {transport.name}'s faction ({transport.faction})",
            unit_faction=unit.faction,
            transport_faction=transport.faction,
        )
    need = places(unit)
    free = transport.profile.capacity - carried(state, transport)
    if need > free:
        return reject(
            "over_capacity",
            R_TRANSPORTS,
            f"{unit.name} needs {need} places, {transport.name} has {max(0, free)} free "
            f"(transport capacity {transport.profile.capacity})",
            needed=need,
            free=max(0, free),
            capacity=transport.profile.capacity,
        )
    return None


def validate_embark(state: MatchState, action: Embark) -> Rejection | None:
    """40k11 core rules, Transports, Embark: every model of the unit ended a Normal, Advance or
    Fall Back move within 3" of a friendly TRANSPORT this phase, which has room for it; a unit
    that disembarked this phase cannot embark."""
    unit = state.units[action.unit]
    if state.phase != "movement":
        return reject(
            "wrong_phase", R_EMBARK, f"units embark in the Movement phase, not the {state.phase} phase"
        )
    if not on_table(unit):
        return reject("not_on_table", R_EMBARK, f"{unit.name} is not on the battlefield")
    if unit.flag(DISEMBARKED):
        return reject(
            "disembarked_this_phase",
            R_EMBARK,
            f"{unit.name} disembarked this phase: it cannot embark in the same phase",
        )
    transport = state.units.get(action.transport)
    if transport is None or transport.id == unit.id or transport.side != unit.side or not on_table(transport):
        return reject(
            "unknown_transport",
            R_EMBARK,
            f"no friendly transport {action.transport!r} on the battlefield",
            transport=action.transport,
        )
    refused = check_fits(state, unit, transport)
    if refused is not None:
        return refused
    if not unit.flag(MOVED):
        return reject(
            "not_moved",
            R_EMBARK,
            f"{unit.name} has not made a Normal, Advance or Fall Back move this phase: a unit embarks "
            "when its move ends within 3 in of the transport",
        )
    shape = transport_shape(transport)
    for m in live_models(unit):
        gap = float(as_geometry(extent(unit, m)).distance(shape))
        if gap > EMBARK_RANGE + EPS:
            return reject(
                "too_far_to_embark",
                R_EMBARK,
                f"model {m.id} is {gap:.2f} in from {transport.name}: every model must be within "
                f"{EMBARK_RANGE:g} in",
                model=m.id,
                distance=round(gap, 3),
                limit=EMBARK_RANGE,
            )
    return None


def apply_embark(state: MatchState, action: Embark, ctx: ApplyContext) -> MatchState:
    """40k11 core rules, Transports, Embark: the unit is removed from the battlefield, aboard."""
    unit = state.units[action.unit]
    transport = state.units[action.transport]
    state = replace_unit(state, with_flags(replace(unit, embarked_in=transport.id), EMBARKED))
    transport = replace(transport, passengers=(*transport.passengers, unit.id))
    state = replace_unit(state, transport)
    ctx.log(
        f"{unit.name} embarks within {transport.name} "
        f"({carried(state, transport)}/{transport.profile.capacity} places).",
        R_EMBARK,
    )
    return state


def spot_problem(
    state: MatchState,
    unit: Unit,
    model: Model,
    fp: Footprint,
    shape: BaseGeometry,
    reach: float,
    placed: list[Footprint],
    ignore: set[str],
    rule: str,
) -> Rejection | None:
    """40k11 core rules, Transports (Disembark, Destroyed Transport): a model set up at ``fp`` is
    wholly within ``reach`` of the transport, on the battlefield, on no model nor impassable
    terrain, and not within Engagement Range of an enemy model. Refusals give the numbers."""
    far = farthest(fp, shape)
    if far > reach + EPS:
        return reject(
            "too_far_to_disembark",
            rule,
            f"model {model.id} would reach {far:.2f} in from the transport: set up wholly within {reach:g} in",
            model=model.id,
            distance=round(far, 3),
            limit=reach,
        )
    bf = state.battlefield
    if not inside_battlefield(fp, bf.width, bf.height):
        return reject("off_table", rule, f"model {model.id} would be off the battlefield", model=model.id)
    if overlaps(fp, shape) or any(overlaps(fp, q) for q in placed):
        return reject(
            "overlaps_model", rule, f"model {model.id} would stand on another model", model=model.id
        )
    for other in state.units.values():
        if other.id in ignore or not on_table(other):
            continue
        for o in live_models(other):
            if overlaps(fp, footprint(other, o)):
                return reject(
                    "overlaps_model",
                    rule,
                    f"model {model.id} would stand on {o.id}",
                    model=model.id,
                    other=o.id,
                )
            if other.side == unit.side:
                continue
            gap = distance(fp, extent(other, o))
            if gap <= ENGAGEMENT_RANGE_HORIZONTAL + EPS:
                return reject(
                    "in_engagement_range",
                    rule,
                    f"model {model.id} would be {gap:.2f} in from enemy model {o.id}: not within "
                    f"Engagement Range ({ENGAGEMENT_RANGE_HORIZONTAL:g} in)",
                    model=model.id,
                    other=o.id,
                    distance=round(gap, 3),
                    limit=ENGAGEMENT_RANGE_HORIZONTAL,
                )
    for piece in geo_terrain(state.terrain):
        if piece.has("impassable") and overlaps(fp, piece.polygon()):
            return reject(
                "impassable",
                rule,
                f"model {model.id} would be in impassable terrain {piece.id}",
                model=model.id,
            )
    return None


def validate_disembark(state: MatchState, action: Disembark) -> Rejection | None:
    """40k11 core rules, Transports, Disembark: a unit that started the Movement phase embarked,
    from a transport that has not Advanced or Fallen Back this phase, every model set up wholly
    within 3" of it and not within Engagement Range of enemy models."""
    unit = state.units[action.unit]
    if state.phase != "movement":
        return reject(
            "wrong_phase", R_DISEMBARK, f"units disembark in the Movement phase, not the {state.phase} phase"
        )
    if unit.embarked_in is None or unit.embarked_in not in state.units:
        return reject("not_embarked", R_DISEMBARK, f"{unit.name} is not embarked")
    if unit.flag(EMBARKED):
        return reject(
            "embarked_this_phase",
            R_DISEMBARK,
            f"{unit.name} embarked this phase: only a unit that started the Movement phase embarked disembarks",
        )
    transport = state.units[unit.embarked_in]
    if transport.flag(ADVANCED) or transport.flag(FELL_BACK):
        how = "Advanced" if transport.flag(ADVANCED) else "Fell Back"
        return reject(
            "transport_advanced_or_fell_back",
            R_DISEMBARK,
            f"{transport.name} {how} this phase: no unit disembarks from it",
        )
    living = list(live_models(unit))
    missing = [m.id for m in living if m.id not in action.positions]
    if missing:
        return reject(
            "positions_missing",
            R_DISEMBARK,
            f"give a position for every model (missing {missing[0]})",
            model=missing[0],
        )
    unknown = sorted(set(action.positions) - {m.id for m in living})
    if unknown:
        return reject("unknown_model", R_DISEMBARK, f"{unit.name} has no live model {unknown[0]!r}")
    shape = transport_shape(transport)
    placed: list[Footprint] = []
    for m in living:
        p = action.positions[m.id]
        fp = footprint(unit, m, (p.x, p.y))
        problem = spot_problem(
            state, unit, m, fp, shape, DISEMBARK_RANGE, placed, {unit.id, transport.id}, R_DISEMBARK
        )
        if problem is not None:
            return problem
        placed.append(fp)
    return None


def apply_disembark(state: MatchState, action: Disembark, ctx: ApplyContext) -> MatchState:
    """40k11 core rules, Transports, Disembark: set the models up; after the transport's Normal
    move this phase the unit cannot move or charge this turn (it may otherwise act)."""
    unit = state.units[action.unit]
    assert unit.embarked_in is not None
    transport = state.units[unit.embarked_in]
    models = dict(unit.models)
    for m in live_models(unit):
        p = action.positions[m.id]
        models[m.id] = replace(m, pos=Point(p.x, p.y))
    late = transport.flag(MOVED)
    flags = (DISEMBARKED, MOVED, NO_CHARGE) if late else (DISEMBARKED,)
    state = replace_unit(state, with_flags(replace(unit, models=models, embarked_in=None), *flags))
    passengers = tuple(p for p in transport.passengers if p != unit.id)
    state = replace_unit(state, replace(transport, passengers=passengers))
    note = (
        f" after {transport.name} moved: it cannot move or charge this turn"
        if late
        else f" before {transport.name} moved: it may still move"
    )
    ctx.log(f"{unit.name} disembarks from {transport.name}{note}.", R_DISEMBARK)
    return state
