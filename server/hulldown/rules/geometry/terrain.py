"""Terrain pieces and the questions movement and shooting ask about them.

# 40k7 Vehicles, Dangerous Terrain (difficult terrain is dangerous for vehicles), Obscured Targets;
# hh3 Vehicles, No climbing / Dangerous terrain / Driving through other units; docs/rules-notes.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypeAlias

import msgspec
from shapely import Polygon
from shapely.geometry.base import BaseGeometry

from .shapes import Footprint, Point, overlaps

TerrainKind: TypeAlias = Literal["difficult", "dangerous", "impassable", "blocks_los", "cover"]
TERRAIN_KINDS: tuple[TerrainKind, ...] = ("difficult", "dangerous", "impassable", "blocks_los", "cover")


class TerrainPiece(msgspec.Struct, frozen=True, gc=False):
    """A piece of terrain: a polygon (vertices in inches), what it does, its cover save (e.g. 4
    for a 4+ save) and its level (0 = ground)."""

    id: str
    vertices: tuple[Point, ...]
    kinds: tuple[str, ...] = ()
    cover_save: int | None = None
    level: int = 0

    def polygon(self) -> Polygon:
        return Polygon(self.vertices)

    def has(self, kind: str) -> bool:
        return kind in self.kinds


def terrain_under(footprint: Footprint, terrain: Iterable[TerrainPiece]) -> list[TerrainPiece]:
    """Pieces whose area overlaps the footprint (touching an edge does not count)."""
    return [piece for piece in terrain if overlaps(footprint, piece.polygon())]


def path_terrain(swept: BaseGeometry, terrain: Iterable[TerrainPiece]) -> list[TerrainPiece]:
    """Pieces crossed by a swept movement area (interiors overlap; touching does not count)."""
    return [piece for piece in terrain if overlaps(swept, piece.polygon())]


def los_blockers(terrain: Iterable[TerrainPiece], exclude_ids: Iterable[str] = ()) -> list[Polygon]:
    """Polygons of the pieces that block line of sight ("blocks_los"), minus `exclude_ids`."""
    excluded = set(exclude_ids)
    return [p.polygon() for p in terrain if p.has("blocks_los") and p.id not in excluded]
