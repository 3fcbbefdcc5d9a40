"""Deployment maps, built for the battlefield's size (width along x, long edges at y = 0 and
y = height). Readings and decisions: docs/rules-notes.md, "Missions"."""

from __future__ import annotations

from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from .model import XY, DeploymentMap, Zone

# 40k7 rulebook, Eternal War, Dawn of War: each side deploys within 12" of its long table edge.
DAWN_OF_WAR_DEPTH = 12.0
# 40k7 rulebook, Eternal War, Hammer and Anvil: each side deploys in its half across the short
# edges, more than 12" from the centre line (24" deep on a 72" table).
HAMMER_AND_ANVIL_GAP = 12.0
# 40k7 rulebook, Eternal War, Vanguard Strike: the table halved along a diagonal, each side
# deploys in its half more than 12" from the centre of the table.
VANGUARD_STRIKE_CENTRE_GAP = 12.0
# hh3 Age of Darkness, Search and Destroy: opposite table quarters, kept this far from the
# centre (decided: the map is an illustration the text does not measure).
SEARCH_AND_DESTROY_CENTRE_GAP = 9.0
# A circle cut out of a zone is approximated by this many segments per quarter circle.
CIRCLE_QUAD_SEGS = 8


def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[XY, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


class DoesNotFit(ValueError):
    """A deployment map cannot be drawn on a battlefield this size."""


def _minus_circle(points: tuple[XY, ...], centre: XY, radius: float) -> tuple[XY, ...]:
    cut = Polygon(points).difference(ShapelyPoint(centre).buffer(radius, quad_segs=CIRCLE_QUAD_SEGS))
    if not isinstance(cut, Polygon) or cut.is_empty or cut.area <= 0:
        # A small table: the circle kept clear splits the zone in two, or leaves nothing of it.
        raise DoesNotFit(f"the {radius:g} in kept clear around the centre leaves no single zone")
    coords = list(cut.exterior.coords)[:-1]
    return tuple((round(x, 3), round(y, 3)) for x, y in coords)


def dawn_of_war(width: float, height: float, rule: str) -> DeploymentMap:
    d = DAWN_OF_WAR_DEPTH
    return DeploymentMap(
        id="dawn_of_war",
        name="Dawn of War",
        zones=(Zone("A", _rect(0, 0, width, d)), Zone("B", _rect(0, height - d, width, height))),
        rule=rule,
    )


def hammer_and_anvil(width: float, height: float, rule: str) -> DeploymentMap:
    half = width / 2 - HAMMER_AND_ANVIL_GAP
    return DeploymentMap(
        id="hammer_and_anvil",
        name="Hammer and Anvil",
        zones=(Zone("A", _rect(0, 0, half, height)), Zone("B", _rect(width - half, 0, width, height))),
        rule=rule,
    )


def vanguard_strike(width: float, height: float, rule: str) -> DeploymentMap:
    centre = (width / 2, height / 2)
    a = _minus_circle(((0, 0), (width, 0), (0, height)), centre, VANGUARD_STRIKE_CENTRE_GAP)
    b = _minus_circle(((width, 0), (width, height), (0, height)), centre, VANGUARD_STRIKE_CENTRE_GAP)
    return DeploymentMap(
        id="vanguard_strike", name="Vanguard Strike", zones=(Zone("A", a), Zone("B", b)), rule=rule
    )


def search_and_destroy(width: float, height: float, rule: str) -> DeploymentMap:
    centre = (width / 2, height / 2)
    gap = SEARCH_AND_DESTROY_CENTRE_GAP
    a = _minus_circle(_rect(0, 0, width / 2, height / 2), centre, gap)
    b = _minus_circle(_rect(width / 2, height / 2, width, height), centre, gap)
    return DeploymentMap(
        id="search_and_destroy", name="Search and Destroy", zones=(Zone("A", a), Zone("B", b)), rule=rule
    )


def zone_centre(zone: Zone) -> XY:
    c = Polygon(zone.points).centroid
    return (round(c.x, 3), round(c.y, 3))
