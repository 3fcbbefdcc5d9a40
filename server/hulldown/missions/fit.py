"""Does a mission fit the battlefield? Every deployment zone a simple polygon with an area and
every corner on the table, zones A and B not overlapping, every objective marker on the table
(docs/missions.md). Checked for a custom mission as written and for a standard one as built for
the battlefield's size: a map that is drawn for a 72 x 48 in table may not fit a much smaller
one."""

from __future__ import annotations

from shapely.geometry import Polygon

from .model import Mission

MAX_ZONE_POINTS = 200
# Square inches two zones may share and still count as touching, not overlapping (rounding).
ZONE_OVERLAP_TOLERANCE = 1e-6


def _inside(x: float, y: float, width: float, height: float) -> bool:
    return 0 <= x <= width and 0 <= y <= height


def misfits(m: Mission, width: float, height: float) -> list[tuple[str, str]]:
    """(path within the mission, message) for each zone or marker that does not fit."""
    out: list[tuple[str, str]] = []
    for i, zone in enumerate(m.deployment.zones):
        path = f"deployment.zones[{i}].points"
        if not 3 <= len(zone.points) <= MAX_ZONE_POINTS:
            out.append((path, f"a zone has 3 to {MAX_ZONE_POINTS} corners, not {len(zone.points)}"))
            continue
        if not all(_inside(x, y, width, height) for x, y in zone.points):
            out.append((path, f"every corner must be on the {width:g} x {height:g} battlefield"))
        elif not Polygon(zone.points).is_valid or Polygon(zone.points).area <= 0:
            out.append((path, "the zone is not a simple polygon with an area"))
    if not out:
        out.extend(_overlap(m))
    for i, marker in enumerate(m.objectives):
        if not _inside(marker.pos[0], marker.pos[1], width, height):
            out.append((f"objectives[{i}].pos", "the marker is off the battlefield"))
    return out


def _overlap(m: Mission) -> list[tuple[str, str]]:
    """Zones A and B may touch but not overlap: each is one side's (a Dawn of War map, 12" from
    each long edge, overlaps on a table less than 24" deep)."""
    zones = [Polygon(z.points) for z in m.deployment.zones]
    if len(zones) != 2:
        return []
    shared = zones[0].intersection(zones[1]).area
    if shared <= ZONE_OVERLAP_TOLERANCE:
        return []
    return [
        (
            "deployment.zones",
            f"zones A and B overlap by {shared:g} sq in: they may touch but not overlap",
        )
    ]
