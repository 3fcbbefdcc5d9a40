"""How long reading and checking a match definition takes (docs/match-definition.md).

Measures ``parse_definition`` (shape, then the edition's checks, then the match) on the examples
and on the largest definition the limits allow in every dimension the checks iterate over:
``MAX_UNITS`` units holding ``MAX_MODELS`` models in all (bases packed on the table, so the
overlap check compares every neighbour), ``MAX_TERRAIN`` pieces of ``MAX_TERRAIN_VERTICES``
points, ``MAX_WEAPONS_PER_UNIT`` weapons per unit and ``MAX_KEYWORDS`` keywords. Also the time to
refuse the same document with one mistake at its end. Prints one JSON object; nothing is asserted.

    python bench/definition.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from hulldown.match import limits as L  # noqa: E402
from hulldown.match.definition import DefinitionError, parse_definition  # noqa: E402


def worst_case(weapons_per_unit: int = L.MAX_WEAPONS_PER_UNIT) -> dict[str, Any]:
    per_unit = L.MAX_MODELS // L.MAX_UNITS
    units = []
    spacing = 1.4  # 32 mm bases (1.26 in) 1.4 in apart: every neighbour is measured
    cols = int(200 / spacing)
    k = 0
    for u in range(L.MAX_UNITS):
        models = []
        for _ in range(per_unit):
            models.append({"id": f"m{k}", "pos": [2 + (k % cols) * spacing, 2 + (k // cols) * spacing]})
            k += 1
        weapons = [
            {
                "id": f"w{j}",
                "name": "Rifle",
                "model": models[j % per_unit]["id"],
                "range": 24,
                "strength": 4,
                "ap": 5,
                "shots": L.MAX_SHOTS,
                "rules": ["blast"],
            }
            for j in range(weapons_per_unit)
        ]
        units.append(
            {
                "id": f"u{u}",
                "side": "a" if u % 2 == 0 else "b",
                "kind": "infantry",
                "keywords": ["fearless"] * L.MAX_KEYWORDS,
                "profile": {"ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "sv": 3},
                "models": models,
                "weapons": weapons,
            }
        )
    terrain = []
    for t in range(L.MAX_TERRAIN):
        cx, cy = 5 + (t % 20) * 11, 40 + (t // 20) * 11
        pts = [
            [
                cx + 4 * math.cos(2 * math.pi * i / L.MAX_TERRAIN_VERTICES),
                cy + 4 * math.sin(2 * math.pi * i / L.MAX_TERRAIN_VERTICES),
            ]
            for i in range(L.MAX_TERRAIN_VERTICES)
        ]
        terrain.append({"id": f"t{t}", "points": pts, "kinds": ["cover"], "cover_save": 5})
    return {
        "format": 1,
        "edition": "40k7",
        "scenario": {
            "battlefield": {"width": L.MAX_BATTLEFIELD, "height": L.MAX_BATTLEFIELD},
            "terrain": terrain,
            "units": units,
        },
    }


def timed(doc: dict[str, Any], repeat: int) -> dict[str, Any]:
    runs = []
    result: Any = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = parse_definition(doc)
        runs.append(time.perf_counter() - start)
    problems = len(result.problems) if isinstance(result, DefinitionError) else 0
    return {
        "median_ms": round(statistics.median(runs) * 1000, 1),
        "max_ms": round(max(runs) * 1000, 1),
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    out: dict[str, Any] = {"repeat": args.repeat, "examples": {}}
    for path in sorted((ROOT / "examples").glob("*-skirmish.json")):
        out["examples"][path.stem] = timed(json.loads(path.read_text()), args.repeat)
    doc = worst_case()
    out["worst_case"] = {
        "units": len(doc["scenario"]["units"]),
        "models": sum(len(u["models"]) for u in doc["scenario"]["units"]),
        "weapons": sum(len(u["weapons"]) for u in doc["scenario"]["units"]),
        "terrain_vertices": sum(len(t["points"]) for t in doc["scenario"]["terrain"]),
        "json_bytes": len(json.dumps(doc)),
        **timed(doc, args.repeat),
    }
    doc["scenario"]["units"][-1]["keywords"][-1] = "tonk"
    out["worst_case_one_mistake"] = timed(doc, args.repeat)
    # the largest that POST /matches reads (MAX_BODY_BYTES): fewer weapons per unit
    per_unit = L.MAX_WEAPONS_PER_UNIT
    while len(json.dumps(small := worst_case(per_unit))) > L.MAX_BODY_BYTES:
        per_unit = int(per_unit * 0.8)
    out["largest_postable"] = {
        "weapons": sum(len(u["weapons"]) for u in small["scenario"]["units"]),
        "json_bytes": len(json.dumps(small)),
        **timed(small, args.repeat),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
