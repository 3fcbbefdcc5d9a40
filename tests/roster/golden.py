"""The hand-checked expectation of an import: per unit its name, kind, keywords, profile, model
count, sizes and weapons (with how many copies), compact enough to read against the roster."""

from __future__ import annotations

import json
from typing import Any

GOLDEN = {"40k7": "40k7-space-marines", "hh3": "hh3-solar-auxilia", "40k11": "40k11-tau-empire"}
WEAPON_KEYS = ("name", "range", "strength", "ap", "shots", "damage", "type", "rules", "mount")


def summary(units: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for u in units:
        counts: dict[str, int] = {}
        for w in u.get("weapons", []):
            key = json.dumps({k: w[k] for k in WEAPON_KEYS if k in w}, sort_keys=True)
            counts[key] = counts.get(key, 0) + 1
        out.append(
            {
                "name": u["name"],
                "kind": u["kind"],
                "keywords": u.get("keywords", []),
                "profile": u["profile"],
                "models": len(u["models"]),
                "bulky": sorted({m.get("bulky", 1) for m in u["models"]}),
                "sizes": sorted({json.dumps(m.get("hull") or m.get("base_mm")) for m in u["models"]}),
                "weapons": [{**json.loads(k), "count": n} for k, n in counts.items()],
            }
        )
    return out
