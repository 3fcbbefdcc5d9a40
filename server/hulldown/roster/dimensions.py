"""The editable table of model dimensions (roster/dimensions.json; docs/roster-import.md):
hull sizes, base sizes, transport access points and weapon mounts, which no roster carries."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any


@functools.cache
def table() -> dict[str, Any]:
    text = resources.files("hulldown.roster").joinpath("dimensions.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def defaults() -> dict[str, Any]:
    found: dict[str, Any] = table()["defaults"]
    return found


def lookup(name: str) -> dict[str, Any] | None:
    """The entry whose key is the longest one contained in ``name`` (lower case), with its key."""
    folded = " ".join(name.lower().replace("(fw)", " ").split())
    models: dict[str, dict[str, Any]] = table()["models"]
    best = max((k for k in models if k in folded), key=len, default=None)
    if best is None:
        return None
    return {"key": best, **models[best]}


def mount_for(entry: dict[str, Any] | None, weapon: str) -> str | None:
    """The table's mount for a weapon of this model (longest contained key; ``""`` = any)."""
    if entry is None:
        return None
    mounts: dict[str, str] = entry.get("mounts", {})
    folded = weapon.lower()
    best = max((k for k in mounts if k in folded), key=len, default=None)
    return mounts[best] if best is not None else None
