"""``GET /matches/{id}/arcs?unit=&weapon=[&at=]``: a weapon's fire arc within range,
for the viewer (the same access rules as ``/state``: private and delayed matches).

The region is computed by the rules' geometry package (``arc_geometry``, the same arcs the
editions test targets against) intersected with everything within ``range`` inches of the
firing model's footprint (ranges are measured from the hull or base). The viewer draws it;
it is a picture, not a ruling: the edition's validation still decides every shot.
"""

from __future__ import annotations

from typing import Any

import shapely
import shapely.errors
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from starlette.requests import Request
from starlette.responses import Response

from ..live.service import LiveService
from ..match.state import MatchState, Model, Unit, Weapon
from ..rules import geometry as g
from ..rules.hh3 import geom as hh3_geom
from ..rules.wh40k7 import geo as w7_geo
from .access import open_match
from .responses import MsgspecJSON, error, int_param, required_params

SIMPLIFY = 0.05  # inches: drawing tolerance of the returned polygons


def _footprint(model: Model) -> g.Hull | g.Base:
    if model.hull is not None:
        return g.Hull(model.pos.x, model.pos.y, model.hull.length, model.hull.width, model.heading)
    return g.Base(model.pos.x, model.pos.y, model.base_mm or 25.0)


def arc_mounts(state: MatchState, unit: Unit, weapon: Weapon) -> tuple[g.Mount, g.Mount | None]:
    """The weapon's mount, and a co-axial weapon's linked mount, resolved by the edition's own
    rules function, the one its shooting uses (a 40k7 sponson without a side is the right-hand
    one, an hh3 hull mount is the firer's facing zone): the view draws the arc the rules test."""
    if state.edition == "hh3":
        return hh3_geom.geometry_mount(weapon, unit)
    return w7_geo.weapon_mount(unit, weapon)


def arc_region(state: MatchState, unit: Unit, weapon: Weapon) -> BaseGeometry:
    """Where a target's footprint must reach to be in this weapon's arc and range.

    40k11 has no vehicle fire arcs (any direction from the model); models without a hull fire
    in every direction; 40k7 and hh3 hull weapons use their mounts."""
    model = unit.models[weapon.model]
    footprint = _footprint(model)
    reach = g.as_geometry(footprint).buffer(weapon.range, quad_segs=32)
    if not isinstance(footprint, g.Hull) or state.edition == "40k11":
        return reach
    mount, linked = arc_mounts(state, unit, weapon)
    extent = weapon.range + max(footprint.length, footprint.width) + 1.0
    return g.arc_geometry(footprint, mount, extent, linked).intersection(reach)


def region_polygons(region: BaseGeometry) -> list[list[list[float]]]:
    """Exterior rings of the region's polygons, rounded to 0.01 in, for an SVG path."""
    rings = []
    for part in shapely.get_parts(region.simplify(SIMPLIFY)):
        if isinstance(part, Polygon) and not part.is_empty:
            coords = list(part.exterior.coords)[:-1]
            rings.append([[round(float(x), 2), round(float(y), 2)] for x, y in coords])
    return rings


def arc_payload(state: MatchState, unit_id: str, weapon_id: str) -> dict[str, Any] | None:
    unit = state.units.get(unit_id)
    weapon = None if unit is None else unit.weapons.get(weapon_id)
    if unit is None or weapon is None or weapon.model not in unit.models:
        return None
    model = unit.models[weapon.model]
    return {
        "seq": state.seq,
        "unit": unit_id,
        "weapon": weapon_id,
        "range": weapon.range,
        "mount": weapon.mount.kind,
        "origin": [model.pos.x, model.pos.y],
        "polygons": region_polygons(arc_region(state, unit, weapon)),
    }


async def get_arcs(request: Request) -> Response:
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    params = required_params(request, ("unit", "a unit id"), ("weapon", "a weapon id of that unit"))
    if isinstance(params, Response):
        return params
    unit_id, weapon_id = params
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    at = int_param(request, "at")
    if isinstance(at, Response):
        return at
    runtime, access = opened.runtime, opened.access
    latest = access.state(runtime)  # a delayed match's spectators: the delayed state
    state: MatchState | None = latest
    if at is not None:
        if not 1 <= at <= latest.seq:
            return error(404, "unknown_seq", f"seq {at} is outside 1..{latest.seq}")
        state = latest if at == latest.seq else await live.state_at(match_id, at)
    if state is None:
        return error(404, "unknown_seq", "no state at that seq")
    try:
        payload = arc_payload(state, unit_id, weapon_id)
    except (shapely.errors.GEOSException, ValueError, OverflowError) as exc:
        # Numbers the geometry cannot take (a match created before actions were bounded).
        return error(422, "bad_geometry", f"the arc of {weapon_id!r} on {unit_id!r} cannot be drawn: {exc}")
    if payload is None:
        return error(404, "unknown_weapon", f"no weapon {weapon_id!r} on unit {unit_id!r}")
    return MsgspecJSON(payload)
