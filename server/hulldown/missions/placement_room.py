"""Is there room for another objective marker the players place (docs/missions.md, "Placing markers
and choosing the zone")? Pure.

A placed marker must be at least ``edge_gap`` from every battlefield edge, ``spacing`` from every
marker placed before it and ``fixed_gap`` (or ``spacing``, the larger) from the mission's own
markers, and never on impassable terrain (40k7 rulebook, Preparing for Battle, Placing Objective
Markers; hh3 Core Missions, Objectives). The rules say nothing of a battlefield with no such
place left, so:

- a match definition whose placement cannot fit all its markers (the D3 of 40k7 Crusade counted
  at its most) is refused: room is looked for by placing them one after another, each on the
  first free point of a grid of ``MARKER_ROOM_STEP`` inches (on a battlefield over 100" long,
  ``MARKER_ROOM_POINTS`` points along its longer side), row by row;
- in play, when the markers placed so far leave no free point on that grid for the next one, the
  markers not yet placed are not placed and the set-up goes on [decided], rather than waiting for
  a marker no player can place.

Room is looked for on the grid only: a legal place that lies between its points is not seen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import numpy
import shapely
from shapely.geometry import Polygon

from ..match.state import Terrain
from .model import MarkerPlacement

PLACED_MARKER_PREFIX = "m"  # the markers the players place are m1, m2... in the order placed
_PLACED_MARKER_ID = re.compile(rf"{PLACED_MARKER_PREFIX}[0-9]+")
MARKER_ROOM_STEP = 0.5  # inches between the grid points where room for a marker is looked for [decided]
MARKER_ROOM_POINTS = 200  # on a battlefield longer than 100", the grid has this many points a side [decided]
EXTRA_D3_MOST = 3  # the most a D3 adds (40k7 Crusade: D3+2 markers)

XY = tuple[float, float]


def is_placed_marker(marker_id: str) -> bool:
    """A marker the players placed (m1, m2...), not one of the mission's own (a custom mission's
    own markers may not take these ids: missions/checks.py)."""
    return _PLACED_MARKER_ID.fullmatch(marker_id) is not None


def marker_gap(placement: MarkerPlacement, placed: bool) -> float:
    """How far a new marker stays from a marker players ``placed`` (``spacing``), or from one of
    the mission's own (``fixed_gap``, at least ``spacing``)."""
    return placement.spacing if placed else max(placement.spacing, placement.fixed_gap)


def impassable_outlines(terrain: Iterable[Terrain]) -> list[list[XY]]:
    """The corners of each impassable piece: no marker is placed on one."""
    return [[(q.x, q.y) for q in piece.points] for piece in terrain if "impassable" in piece.kinds]


def grid_step(width: float, height: float) -> float:
    return max(MARKER_ROOM_STEP, max(width, height) / MARKER_ROOM_POINTS)


def _axis(low: float, high: float, step: float) -> list[float]:
    """Grid coordinates from ``low`` to ``high``, both included (empty when ``low > high``)."""
    if low > high:
        return []
    count = math.floor((high - low) / step)
    out = [low + i * step for i in range(count + 1)]
    if out[-1] < high:
        out.append(high)
    return out


class Room:
    """The grid points where a marker could go on a battlefield, and what blocks them: the
    mission's markers, each with the distance it keeps, and the impassable terrain."""

    def __init__(
        self,
        width: float,
        height: float,
        placement: MarkerPlacement,
        fixed: Iterable[XY],
        placed: Iterable[XY],
        impassable: Iterable[Sequence[XY]],
    ) -> None:
        step = grid_step(width, height)
        gap = placement.edge_gap
        self.xs = _axis(gap, width - gap, step)
        self.ys = _axis(gap, height - gap, step)
        fixed_gap, spacing = marker_gap(placement, placed=False), marker_gap(placement, placed=True)
        self.markers: list[tuple[float, float, float]] = [(x, y, fixed_gap) for x, y in fixed]
        self.markers.extend((x, y, spacing) for x, y in placed)
        self.spacing = spacing
        self.terrain = [Polygon(points) for points in impassable if len(points) >= 3]
        self._rows_off_terrain: dict[int, list[bool]] = {}

    def add(self, spot: XY) -> None:
        """A marker placed at ``spot``."""
        self.markers.append((spot[0], spot[1], self.spacing))

    def first_free(self) -> XY | None:
        """The first free grid point, row by row, or None when there is none."""
        xs = self.xs
        for j, y in enumerate(self.ys):
            off_terrain = self._off_terrain(j)
            for i, x in enumerate(xs):
                if off_terrain[i] and self._far_from_markers(x, y):
                    return x, y
        return None

    def _far_from_markers(self, x: float, y: float) -> bool:
        """The distances a player's marker is held to (match/setup_markers.py). The marker found
        too close moves to the front: the next grid point is most often too close to it as well
        (the order of the tests does not change the answer)."""
        markers = self.markers
        for k, (mx, my, need) in enumerate(markers):
            if math.hypot(mx - x, my - y) < need:
                if k:
                    markers.insert(0, markers.pop(k))
                return False
        return True

    def _off_terrain(self, j: int) -> list[bool]:
        """Which points of row ``j`` are on no impassable piece (a point on a piece's edge is on
        it, as for a player's marker), worked out once per row."""
        row = self._rows_off_terrain.get(j)
        if row is None:
            y = self.ys[j]
            xs = numpy.asarray(self.xs)
            on = numpy.zeros(len(xs), dtype=bool)
            for piece in self.terrain:
                _, y0, _, y1 = piece.bounds
                if y0 <= y <= y1:
                    on |= shapely.intersects_xy(piece, xs, numpy.full(len(xs), y))
            row = self._rows_off_terrain[j] = (~on).tolist()
        return row


def markers_to_place(placement: MarkerPlacement) -> int:
    """The most markers ``placement`` can ask for (its D3 at 3)."""
    return placement.count + (EXTRA_D3_MOST if placement.extra_d3 else 0)


def room_for(
    width: float,
    height: float,
    placement: MarkerPlacement,
    fixed: Iterable[XY],
    impassable: Iterable[Sequence[XY]],
) -> int:
    """How many of the markers ``placement`` asks for at most fit, placed one after another on
    the first free grid point."""
    room = Room(width, height, placement, fixed, (), impassable)
    wanted = markers_to_place(placement)
    for placed in range(wanted):
        spot = room.first_free()
        if spot is None:
            return placed
        room.add(spot)
    return wanted
