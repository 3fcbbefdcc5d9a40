"""A first deployment for imported units: side a along the left edge, side b along the right,
each unit a block of models in rows, blocks stacked down the table and then in further columns.
A roster says nothing about positions; this gives a legal start that people then move
(docs/roster-import.md)."""

from __future__ import annotations

import math
from typing import Any

MM_PER_INCH = 25.4
TABLE_WIDTH = 72.0  # the default battlefield (match/state.py Battlefield)
TABLE_HEIGHT = 48.0
EDGE = 1.0  # inches kept free along the table edges
GAP = 1.0  # inches between units
SPACING = 0.5  # inches between models of a unit
ROW = 5  # models per row of an infantry block


def _size(model: dict[str, Any]) -> tuple[float, float]:
    """Footprint size (along x, along y) with heading 0 or 180: a hull's length lies along x."""
    if "hull" in model:
        return float(model["hull"]["length"]), float(model["hull"]["width"])
    d = float(model.get("base_mm", 32.0)) / MM_PER_INCH
    return d, d


def deploy(
    units: list[dict[str, Any]], side: str, width: float = TABLE_WIDTH, height: float = TABLE_HEIGHT
) -> None:
    """Set ``pos`` (and ``heading``: side a faces +x, side b -x) of every model, in place."""
    heading = 0.0 if side == "a" else 180.0
    column_x = EDGE  # distance of the current column from this side's edge
    column_w = 0.0
    y = EDGE
    for unit in units:
        models = unit["models"]
        sizes = [_size(m) for m in models]
        per_row = ROW if all("hull" not in m for m in models) else 1
        cell_w = max(s[0] for s in sizes) + SPACING
        cell_h = max(s[1] for s in sizes) + SPACING
        rows = math.ceil(len(models) / per_row)
        block_w = per_row * cell_w if len(models) >= per_row else len(models) * cell_w
        block_h = rows * cell_h
        if y + block_h > height - EDGE and y > EDGE:
            column_x += column_w + GAP
            column_w, y = 0.0, EDGE
        for k, (model, size) in enumerate(zip(models, sizes, strict=True)):
            cx = column_x + (k % per_row) * cell_w + size[0] / 2
            cy = y + (k // per_row) * cell_h + size[1] / 2
            x = cx if side == "a" else width - cx
            model["pos"] = [round(x, 2), round(cy, 2)]
            if heading:
                model["heading"] = heading
        column_w = max(column_w, block_w)
        y += block_h + GAP
