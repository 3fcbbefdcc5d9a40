"""Where models stand during set-up and arrivals (docs/missions.md): footprints, the models on the
table, the deployment zones. Shared by ``setup.py`` (deployment) and ``arrivals.py`` (reserves)."""

from __future__ import annotations

from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from ..rules.geometry import shapes as g
from .state import MatchState, Model, Point, Side, Unit

DEFAULT_BASE_MM = 25.0
OFF_TABLE = Point(-1000.0, -1000.0)  # where a unit in reserve or not yet deployed waits


def footprint_of(
    model: Model, at: Point, heading: float | None, unit: Unit | None = None, edition: str = ""
) -> BaseGeometry:
    """A model's footprint at ``at``: its hull (at ``heading``, else its own) or its base. 40k11
    (with the model's ``unit``): the whole model as the 40k11 rules measure it (17.02 Frame: a
    FRAME model's hull and base together, a model with a base its base; ``space.extent``)."""
    if edition == "40k11" and unit is not None:
        # Imported here: the 40k11 rules import the set-up (match/setup.py), which imports this.
        from ..rules.wh40k11.space import extent

        return g.as_geometry(extent(unit, model, (at.x, at.y), heading))
    if model.hull is not None:
        h = model.heading if heading is None else heading
        return g.Hull(at.x, at.y, model.hull.length, model.hull.width, h).polygon()
    radius = (model.base_mm or DEFAULT_BASE_MM) / 25.4 / 2
    return ShapelyPoint(at.x, at.y).buffer(radius, quad_segs=8)


def placed_footprints(state: MatchState) -> list[tuple[Unit, BaseGeometry]]:
    """Every model on the table now, with its footprint."""
    assert state.mission is not None
    out: list[tuple[Unit, BaseGeometry]] = []
    for unit in state.units.values():
        if unit.destroyed or unit.embarked_in is not None or unit.id in state.mission.off_table:
            continue
        for model in unit.models.values():
            if model.alive:
                out.append((unit, footprint_of(model, model.pos, None, unit, state.edition)))
    return out


def zone_polygon(state: MatchState, side: Side) -> Polygon:
    """The side's deployment zone on the battlefield (the mission's deployment map, docs/missions.md)."""
    assert state.mission is not None
    zone_id = state.mission.zones.get(side, "A" if side == "a" else "B")
    zone = next(z for z in state.mission.mission.deployment.zones if z.id == zone_id)
    return Polygon(zone.points)
