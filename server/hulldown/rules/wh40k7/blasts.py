"""Blast markers and templates (40k7 Vehicles, Vehicle Facing and Armour Values [seed]; 40k7 Weapons [ext]).

- Blast: the firer places the marker's hole (module ``aim``; the proposal: over the target's
  model nearest the firer), then it scatters
  2D6" minus the firer's BS (a Hit on the scatter die: no scatter). Every unit with a model even
  partly under the marker takes one hit per such model (a vehicle: one hit per hull under it).
  Against a vehicle the hit uses the facing toward the firer, wherever the marker lands.
- Template: the teardrop is laid from the muzzle in the direction the firer chooses (module
  ``aim``; the proposal: toward the target's nearest model); every model
  even partly under it is hit (templates do not roll to hit). Its shape is approximated by a
  narrow end of TEMPLATE_NARROW", widening to TEMPLATE_WIDE" and a rounded end, as long as the
  weapon's range (8" flamers) [decided].
"""

from __future__ import annotations

import math

from shapely import Polygon

from ...match.context import ApplyContext
from ...match.state import MatchState
from .. import geometry as g
from . import refs
from .geo import alive, footprint, on_table
from .rolls import scatter
from .squadrons import squadron_members
from .types import is_zooming

TEMPLATE_NARROW = 0.6
TEMPLATE_WIDE = 3.0
ROUND_END_STEPS = 8


def nearest_point(state: MatchState, target_id: str, origin: g.Point) -> g.Point:
    """Centre of the target's model nearest the firer (where the blast marker's hole goes)."""
    target = state.units[target_id]
    best: tuple[float, g.Point] | None = None
    for u in squadron_members(state, target):
        for m in alive(u):
            d = g.distance(origin, footprint(m))
            if best is None or d < best[0]:
                best = (d, (m.pos.x, m.pos.y))
    assert best is not None
    return best[1]


def blast_centre(ctx: ApplyContext, hole: g.Point, bs: int, label: str) -> g.Point:
    """Scatter the marker placed with its hole at ``hole`` (2D6 - BS; 40k7 Weapons, Blast)."""
    x, y = hole
    dx, dy = scatter(ctx, bs, label)
    cx, cy = x + dx, y + dy
    ctx.log(
        f'{label}: the marker lands at ({cx:.1f}, {cy:.1f}), {math.hypot(dx, dy):.1f}" from its aim.',
        refs.BLAST,
        aim=[round(x, 3), round(y, 3)],
        lands=[round(cx, 3), round(cy, 3)],
        scatter=round(math.hypot(dx, dy), 3),
    )
    return (cx, cy)


def template_polygon(origin: g.Point, toward: g.Point, length: float) -> Polygon:
    ux, uy = toward[0] - origin[0], toward[1] - origin[1]
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    nx, ny = -uy, ux
    half_wide = TEMPLATE_WIDE / 2
    body = max(0.1, length - half_wide)
    pts: list[g.Point] = [
        (origin[0] + nx * TEMPLATE_NARROW / 2, origin[1] + ny * TEMPLATE_NARROW / 2),
        (origin[0] + ux * body + nx * half_wide, origin[1] + uy * body + ny * half_wide),
    ]
    cx, cy = origin[0] + ux * body, origin[1] + uy * body
    base_angle = math.atan2(ny, nx)
    for k in range(1, ROUND_END_STEPS):
        a = base_angle - math.pi * k / ROUND_END_STEPS
        pts.append((cx + half_wide * math.cos(a), cy + half_wide * math.sin(a)))
    pts.append((origin[0] + ux * body - nx * half_wide, origin[1] + uy * body - ny * half_wide))
    pts.append((origin[0] - nx * TEMPLATE_NARROW / 2, origin[1] - ny * TEMPLATE_NARROW / 2))
    return Polygon(pts)


def models_under_circle(state: MatchState, centre: g.Point, radius: float) -> dict[str, int]:
    """Unit id -> number of its models (hulls) at least partly under a circular marker. A Zooming
    Flyer is never hit by one (40k7 Vehicles, Flyers: "Blast and Template weapons cannot hit
    Zooming Flyers"), whatever the marker was aimed at."""
    out: dict[str, int] = {}
    for unit in state.units.values():
        if not on_table(unit) or is_zooming(unit):
            continue
        n = sum(1 for m in alive(unit) if g.distance(centre, footprint(m)) <= radius + g.EPS)
        if n:
            out[unit.id] = n
    return out


def models_under_shape(state: MatchState, shape: Polygon, exclude: set[str]) -> dict[str, int]:
    """Unit id -> number of its models at least partly under a template; never a Zooming Flyer
    (40k7 Vehicles, Flyers: "Blast and Template weapons cannot hit Zooming Flyers")."""
    out: dict[str, int] = {}
    for unit in state.units.values():
        if unit.id in exclude or not on_table(unit) or is_zooming(unit):
            continue
        n = sum(1 for m in alive(unit) if g.distance(shape, footprint(m)) <= g.EPS)
        if n:
            out[unit.id] = n
    return out
