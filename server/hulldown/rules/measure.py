"""Table measurements as each edition measures them: the ruler, the line-of-sight check and the
facts a "check without acting" reports (docs/table.md). Pure: reads a state, returns numbers.

Nothing here decides legality - the edition's ``validate`` does - but every number is measured
with the edition's own geometry, so the table shows what the rules will see:

- distances are closest point to closest point: hulls for vehicles and bases otherwise (40k7
  "Measuring distances", hh3 core "Measuring"); 40k11 measures with the rules' own functions
  (``wh40k11.space``), so a FRAME model is the whole model, hull and base (17.02);
- line of sight is drawn from the firing point (the weapon's mount on a vehicle, 40k7 Vehicles
  "Vehicle Weapons and Line of Sight"; hh3 Fire arcs and weapon mounts) or the centre of the
  model's base (40k11: ``space.sight_from``, from any part of a FRAME model, 17.02, the sight
  tool's origin being the point it found sight from), and is blocked by
  the terrain (and, in 40k7, the vehicle hulls) the edition counts;
- the facing a shot hits is the diagonal zone of the target hull the firer stands in (40k7
  "Vehicle Facing and Armour Values", hh3 Which facing is hit); 40k11 has no vehicle facings;
- the hidden share is the fraction of that facing's edge hidden from the firer (40k7 "Obscured
  Targets": obscured at 25% or more).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import msgspec
import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from ..match.actions import Action, Charge, Disembark, Fight, Move, Pivot, Shoot
from ..match.state import MatchState, Model, Unit, Weapon
from . import geometry as g
from .hh3 import geom as hh3_geom
from .hh3 import movement as hh3_movement
from .hh3 import transports as hh3_transports
from .hh3.core import CONTACT as HH3_CONTACT
from .wh40k7 import cover as w7_cover
from .wh40k7 import firing as w7_firing
from .wh40k7 import geo as w7_geo
from .wh40k7 import movement as w7_movement
from .wh40k7 import speed as w7_speed
from .wh40k7 import squadrons as w7_squadrons
from .wh40k7 import tankshock as w7_tankshock
from .wh40k7 import transports as w7_transports
from .wh40k7.types import is_vehicle as w7_is_vehicle
from .wh40k7.types import is_walker as w7_is_walker
from .wh40k7.types import is_zooming as w7_is_zooming
from .wh40k11 import movement as w11_movement
from .wh40k11 import space as w11_space

ROUND = 2  # measured values are reported to 0.01 in (the table shows 0.1 in)


class WeaponFacts(msgspec.Struct, frozen=True):
    """One weapon of a shot as the table shows it."""

    weapon: str
    target: str
    distance: float | None
    range: float
    in_range: bool
    in_arc: bool
    visible: bool
    facing: str | None = None
    armour: int | None = None
    hidden_share: float | None = None
    obscured: bool | None = None
    facings: list[str] = []


class Facts(msgspec.Struct, frozen=True):
    """What the table measures for an action (every field always present; null when it does not
    apply to the action)."""

    action: str
    unit: str | None = None
    distance: float | None = None
    allowance: float | None = None
    speed_band: str | None = None
    target_distance: float | None = None
    weapons: list[WeaponFacts] = []
    area: list[list[tuple[float, float]]] = []
    # A 40k7 Tank Shock or Ram that stops short of its end point without a die (40k7 Vehicles,
    # Tanks: 1" short of friendly models, enemies locked in combat, impassable terrain, the table
    # edge...): the Tank's centre where it stops, the inches it travels and what stops it.
    stops_at: tuple[float, float] | None = None
    stops_after: float | None = None
    stops_because: str | None = None


class Sight(msgspec.Struct, frozen=True):
    """A line-of-sight check between two models (the table's LOS tool)."""

    edition: str
    seq: int
    from_model: str
    to_model: str
    distance: float
    visible: bool
    origin: tuple[float, float]
    facing: str | None = None
    armour: int | None = None
    hidden_share: float | None = None
    obscured: bool | None = None
    facings: list[str] = []


@dataclass(frozen=True)
class Located:
    """A model and the unit it belongs to."""

    unit: Unit
    model: Model


def find_model(state: MatchState, model_id: str) -> Located | None:
    """The model ``model_id`` (on the table or not) and its unit."""
    for unit in state.units.values():
        model = unit.models.get(model_id)
        if model is not None:
            return Located(unit, model)
    return None


def shape(state: MatchState, unit: Unit, model: Model) -> g.Shape:
    """The shape the edition measures to and from: 40k11 the whole model (17.02 Frame: hull and
    base of a FRAME model, ``space.extent``), hh3 and 40k7 the hull or the base."""
    if state.edition == "40k11":
        return w11_space.extent(unit, model)
    if state.edition == "hh3":
        return hh3_geom.footprint(model)
    return w7_geo.footprint(model)


def model_distance(state: MatchState, a: Located, b: Located) -> float:
    """Closest point to closest point between two models, unrounded: 40k11 by the rules' own
    ``space.model_distance`` (17.02), the others between their ``shape``s."""
    if state.edition == "40k11":
        return w11_space.model_distance(a.unit, a.model, b.unit, b.model)
    return g.distance(shape(state, a.unit, a.model), shape(state, b.unit, b.model))


def ruler(state: MatchState, a: Located, b: Located) -> float:
    """Closest point to closest point between two models, in inches."""
    return round(model_distance(state, a, b), ROUND)


def _blockers(state: MatchState, exclude: set[str]) -> list[g.PolygonLike]:
    if state.edition == "40k11":
        return list(w11_space.sight_blockers(state))
    if state.edition == "hh3":
        return hh3_geom.blockers(state)
    return list(w7_geo.los_blockers(state, exclude))


def _origin(state: MatchState, unit: Unit, model: Model, weapon: Weapon | None) -> g.Point:
    """Where sight is drawn from: the weapon's mount on a vehicle, else the model's centre."""
    if weapon is not None and model.hull is not None and state.edition != "40k11":
        if state.edition == "hh3":
            return hh3_geom.firing_point(unit, weapon)
        return w7_firing.weapon_origin(state, unit, weapon)
    return (model.pos.x, model.pos.y)


def _armour_value(unit: Unit, facing: g.ArmourFacing) -> int | None:
    armour = unit.profile.armour
    if armour is None:
        return None
    return {"front": armour.front, "side": armour.side, "rear": armour.rear}[facing]


@dataclass(frozen=True)
class FacingSeen:
    """``facing`` is the one reported (its armour and hidden share); ``facings`` every armour
    facing the shot may strike: two when an hh3 shooter sees two facings across a diagonal and
    the vehicle's owner chooses (hh3 Vehicles, Which facing is hit)."""

    facing: str | None
    armour: int | None
    hidden_share: float | None
    obscured: bool | None
    facings: tuple[str, ...] = ()


NO_FACING = FacingSeen(None, None, None, None)


def facing_seen(
    state: MatchState, firer: Unit, firer_model: Model, origin: g.Point, target: Unit, model: Model
) -> FacingSeen:
    """The facing a shot from ``origin`` hits, its armour and how much of it is hidden."""
    if state.edition == "40k11" or target.profile.armour is None:
        return NO_FACING
    if state.edition == "40k7":
        if not w7_is_vehicle(target):
            return NO_FACING
        hull = w7_geo.facing_hull(model)
        hit = w7_cover.facing_for(state, target, model, origin, (firer.id,))
        facing = hit.facing
        blockers: list[g.PolygonLike] = list(w7_geo.los_blockers(state, (firer.id, target.id)))
        options: tuple[str, ...] = (g.armour_facing(facing),)
    else:
        if model.hull is None:
            return NO_FACING
        hull = hh3_geom.hull(model)
        # hh3 Which facing is hit: a shooter whose base lies across a diagonal sees both facings
        # (the same reach the validation uses: the firing model's base radius).
        zones = g.facings_of_point(hull, origin, hh3_geom.radius(firer_model) or g.DIAGONAL_EPS)
        blockers = hh3_geom.blockers(state)
        visible = set(g.visible_facings(hull, origin, blockers))
        seen = [z for z in zones if z in visible] or list(zones)
        # The reported facing is the better armoured of those the owner may choose from.
        facing = max(seen, key=lambda z: _armour_value(target, g.armour_facing(z)) or 0)
        options = tuple(dict.fromkeys(g.armour_facing(z) for z in seen))
    armour_facing = g.armour_facing(facing)
    share = g.hidden_fraction(origin, hull, facing, blockers)
    obscured = share >= g.OBSCURED_THRESHOLD - g.FRACTION_EPS
    return FacingSeen(
        armour_facing, _armour_value(target, armour_facing), round(share, ROUND), obscured, options
    )


def sight(state: MatchState, a: Located, b: Located, weapon: Weapon | None = None) -> Sight:
    """Can model ``a`` see model ``b``; which facing a shot from there hits; its hidden share."""
    origin = _origin(state, a.unit, a.model, weapon)
    target_shape = shape(state, b.unit, b.model)
    if state.edition == "40k11":
        # 40k11 core Line of sight and 17.02 FRAME: the rules' own sight test, from any part of a
        # FRAME model; the origin reported is the point it found sight from (the centre when it
        # found none), so the line the table draws is the rules' (docs/table.md).
        found = w11_space.sight_from(state, a.unit, a.model, [target_shape])
        visible = found is not None
        origin = found if found is not None else origin
    else:
        visible = g.line_of_sight(origin, target_shape, _blockers(state, {a.unit.id, b.unit.id}))
    seen = facing_seen(state, a.unit, a.model, origin, b.unit, b.model)
    return Sight(
        edition=state.edition,
        seq=state.seq,
        from_model=a.model.id,
        to_model=b.model.id,
        distance=ruler(state, a, b),
        visible=visible,
        origin=(round(origin[0], ROUND), round(origin[1], ROUND)),
        facing=seen.facing,
        armour=seen.armour,
        hidden_share=seen.hidden_share,
        obscured=seen.obscured,
        facings=list(seen.facings),
    )


# ---- where disembarking models may go ------------------------------------------------------

AREA_SIMPLIFY = 0.005  # inches: drawing tolerance of the area polygons (an hh3 area is a 0.05 in strip)


def _rings(region: BaseGeometry) -> list[list[tuple[float, float]]]:
    rings = []
    for part in shapely.get_parts(region.simplify(AREA_SIMPLIFY)):
        if isinstance(part, Polygon) and not part.is_empty:
            rings.append(
                [(round(float(x), 2), round(float(y), 2)) for x, y in list(part.exterior.coords)[:-1]]
            )
    return rings


def disembark_area(state: MatchState, unit: Unit) -> list[list[tuple[float, float]]]:
    """Where the centre of the unit's first model may be placed when it disembarks: 40k7
    Transport Vehicles (wholly within 6 in of an access point: within 6 in less the base's radius
    of an access facing), hh3 Transports (in base contact with a facing with an access point).
    The edition's validation still decides every placement (coherency, other models)."""
    transport = state.units.get(unit.embarked_in or "")
    models = _alive(unit)
    if transport is None or not models or not _alive(transport):
        return []
    radius = (models[0].base_mm or 25.0) / g.MM_PER_INCH / 2
    hull_model = _alive(transport)[0]
    if state.edition == "40k7":
        edges = [LineString(e) for e in w7_transports.access_edges(transport)]
        hull = g.as_geometry(w7_geo.facing_hull(hull_model))
        reach = w7_transports.DISEMBARK_RANGE - radius
    elif state.edition == "hh3" and transport.profile.access:
        edges = hh3_transports.access_edges(transport)
        hull = g.as_geometry(hh3_geom.hull(hull_model))
        reach = radius + HH3_CONTACT
    else:
        return []
    band = shapely.union_all([e.buffer(reach, quad_segs=16) for e in edges])
    return _rings(band.difference(hull.buffer(radius, quad_segs=16)))


# ---- facts of an action ------------------------------------------------------------------


def _alive(unit: Unit) -> list[Model]:
    return [m for m in unit.models.values() if m.alive]


def _lead(unit: Unit) -> Model | None:
    models = _alive(unit)
    return models[0] if models else None


def _path_length(model: Model, action: Move) -> float:
    if action.path:
        points = [(model.pos.x, model.pos.y), *((p.x, p.y) for p in action.path)]
        return g.path_length(points)
    end = action.positions.get(model.id)
    if end is None:
        return 0.0
    return math.hypot(end.x - model.pos.x, end.y - model.pos.y)


def _allowance(state: MatchState, unit: Unit, action: Move) -> float:
    if state.edition == "40k7":
        return w7_movement.move_limit(unit, action.kind)
    if state.edition == "hh3":
        return hh3_movement.move_limit(unit, action.kind == "rush")
    return w11_movement.allowance(unit, action.kind)


def speed_band(state: MatchState, unit: Unit, kind: str, distance: float) -> str:
    """The speed band the move reaches: 40k7 vehicles Stationary / Combat Speed (up to 6") /
    Cruising Speed (40k7 Vehicles, Movement), else the kind of move (Run, Rush, Advance...). A
    40k7 Walker moves like Infantry and has no speed band (40k7 Vehicles, Walkers)."""
    if kind != "normal":
        return kind
    if state.edition == "40k7" and w7_is_vehicle(unit) and not w7_is_walker(unit):
        total = unit.moved + distance
        if total <= 1e-9:
            return "stationary"
        limit = w7_speed.FLYER_COMBAT_SPEED if w7_is_zooming(unit) else w7_speed.COMBAT_SPEED
        return "combat" if total <= limit + 1e-9 else "cruising"
    return "stationary" if distance <= 1e-9 else "normal"


def _unit_distance(state: MatchState, a: Unit, b: Unit) -> float | None:
    pairs = [model_distance(state, Located(a, ma), Located(b, mb)) for ma in _alive(a) for mb in _alive(b)]
    return round(min(pairs), ROUND) if pairs else None


@dataclass(frozen=True)
class Measured:
    """A weapon's range, arc and sight to a target unit, measured as the edition's validation
    measures them (the closest target model that counts, and the facing it shows)."""

    distance: float
    nearest: Model
    in_arc: bool
    visible: bool
    origin: g.Point


def _measure_40k7(state: MatchState, unit: Unit, weapon: Weapon, target: Unit) -> Measured | None:
    """40k7 Vehicles and Shooting, Vehicle Weapons and Line of Sight: range from the muzzle (vehicles,
    and passengers of an open-topped transport from its hull) or the base, to the closest model of
    the target (or of its squadron); arc by mount; sight from the mount, the firer's and the
    target's squadrons (and the transport) not blocking."""
    model = unit.models[weapon.model]
    origin = w7_firing.weapon_origin(state, unit, weapon)
    from_vehicle = w7_is_vehicle(unit) or unit.embarked_in is not None
    exclude = {u.id for u in w7_squadrons.squadron_members(state, unit)} | {unit.id}
    exclude |= {u.id for u in w7_squadrons.squadron_members(state, target)}
    if unit.embarked_in is not None:
        exclude.add(unit.embarked_in)
    blockers = w7_geo.los_blockers(state, exclude)
    hull = w7_geo.facing_hull(model) if w7_is_vehicle(unit) else None
    mount, linked = w7_geo.weapon_mount(unit, weapon)  # a co-axial weapon: its linked weapon's arc
    best: tuple[float, str, Model] | None = None
    in_arc = visible = False
    for _, m in w7_firing.target_models(state, target):
        fp = w7_geo.footprint(m)
        d = g.distance(origin, fp) if from_vehicle else g.distance(w7_geo.footprint(model), fp)
        if best is None or (d, m.id) < (best[0], best[1]):
            best = (d, m.id, m)
        arc_ok = hull is None or g.in_arc(hull, mount, fp, linked)
        in_arc = in_arc or arc_ok
        visible = visible or (arc_ok and g.line_of_sight(origin, fp, blockers))
    if best is None:
        return None
    return Measured(best[0], best[2], in_arc, visible, origin)


def _measure_hh3(state: MatchState, unit: Unit, weapon: Weapon, target: Unit) -> Measured | None:
    """hh3 core Shooting (range from the model to the closest target model), hh3 Vehicles, Fire
    arcs and weapon mounts and Which facing is hit (sight from the firing point, to the hull)."""
    models = _alive(target)
    if not models:
        return None
    model = unit.models[weapon.model]
    origin = hh3_geom.firing_point(unit, weapon)
    nearest = min(models, key=lambda m: (g.distance(hh3_geom.footprint(model), hh3_geom.footprint(m)), m.id))
    distance = hh3_geom.model_to_unit(model, target)
    return Measured(
        distance, nearest, hh3_geom.in_arc(unit, weapon, target), hh3_geom.sees(state, origin, target), origin
    )


def _measure_40k11(state: MatchState, unit: Unit, weapon: Weapon, target: Unit) -> Measured | None:
    """40k11 Shooting as ``wh40k11.shooting`` measures it: closest point to closest point with
    ``space.model_distance`` and sight with ``space.sees`` (17.02: the whole of a FRAME model, sight
    from any part of it); no vehicle fire arcs."""
    models = _alive(target)
    if not models:
        return None
    model = unit.models[weapon.model]
    pairs = sorted(
        ((w11_space.model_distance(unit, model, target, m), m.id, m) for m in models), key=lambda t: t[:2]
    )
    origin = (model.pos.x, model.pos.y)
    visible = w11_space.sees(state, unit, model, target)
    return Measured(pairs[0][0], pairs[0][2], True, visible, origin)


def _weapon_facts(state: MatchState, unit: Unit, weapon_id: str, target_id: str) -> WeaponFacts | None:
    weapon = unit.weapons.get(weapon_id)
    target = state.units.get(target_id)
    if weapon is None or target is None or weapon.model not in unit.models:
        return None
    if state.edition == "40k7":
        measured = _measure_40k7(state, unit, weapon, target)
    elif state.edition == "hh3":
        measured = _measure_hh3(state, unit, weapon, target)
    else:
        measured = _measure_40k11(state, unit, weapon, target)
    if measured is None:
        return WeaponFacts(weapon.id, target.id, None, weapon.range, False, False, False)
    seen = facing_seen(state, unit, unit.models[weapon.model], measured.origin, target, measured.nearest)
    return WeaponFacts(
        weapon=weapon.id,
        target=target.id,
        distance=round(measured.distance, ROUND),
        range=weapon.range,
        in_range=measured.distance <= weapon.range + 1e-9,
        in_arc=measured.in_arc,
        visible=measured.visible,
        facing=seen.facing,
        armour=seen.armour,
        hidden_share=seen.hidden_share,
        obscured=seen.obscured,
        facings=list(seen.facings),
    )


def action_facts(state: MatchState, action: Action) -> Facts:
    """The measured facts of ``action`` in ``state`` (empty where they do not apply)."""
    tag = action.__struct_config__.tag
    name = tag if isinstance(tag, str) else type(action).__name__
    unit_id = getattr(action, "unit", None)
    unit = state.units.get(unit_id) if isinstance(unit_id, str) else None
    if unit is None:
        return Facts(action=name, unit=unit_id if isinstance(unit_id, str) else None)
    match action:
        case Move():
            lead = _lead(unit)
            distance = _path_length(lead, action) if lead is not None else 0.0
            target = state.units.get(action.target or "")
            halt = w7_tankshock.halt(state, action) if state.edition == "40k7" else None
            return Facts(
                action=name,
                unit=unit.id,
                distance=round(distance, ROUND),
                allowance=round(_allowance(state, unit, action), ROUND),
                speed_band=speed_band(state, unit, action.kind, distance),
                target_distance=_unit_distance(state, unit, target) if target is not None else None,
                stops_at=(round(halt.point[0], ROUND), round(halt.point[1], ROUND)) if halt else None,
                stops_after=round(halt.distance, ROUND) if halt else None,
                stops_because=halt.because if halt else None,
            )
        case Shoot():
            weapons = [_weapon_facts(state, unit, f.weapon, f.target) for f in action.fire]
            return Facts(action=name, unit=unit.id, weapons=[w for w in weapons if w is not None])
        case Charge() | Fight():
            target = state.units.get(action.target)
            return Facts(
                action=name,
                unit=unit.id,
                target_distance=_unit_distance(state, unit, target) if target is not None else None,
            )
        case Disembark():
            return Facts(action=name, unit=unit.id, area=disembark_area(state, unit))
        case Pivot():
            return Facts(action=name, unit=unit.id)
        case _:
            return Facts(action=name, unit=unit.id)
