"""Seeded mutations of JSON values: the fuzz test's frames and match definitions."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

EXTREMES: list[Any] = [
    0,
    -1,
    -48,
    1e308,
    -1e308,
    1e30,
    2**63,
    -(2**63),
    0.5,
    "",
    "\x00",
    "\u202e",
    "x" * 300,
    "has space",
    "{brace}",
    None,
    True,
    [],
    {},
    [[0, 0]] * 50,
    {"type": "move"},
]


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*here, i))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def mutate(value: Any, rng: random.Random, changes: int = 1) -> Any:
    """``value`` with ``changes`` random edits: a leaf replaced by an extreme or a wrong type, a
    key dropped or added, a list emptied, grown or nested deeper."""
    out = copy.deepcopy(value)
    for _ in range(changes):
        paths = [p for p in _paths(out) if p]
        if not paths:
            return copy.deepcopy(rng.choice(EXTREMES))
        path = rng.choice(paths)
        parent = _get(out, path[:-1])
        key = path[-1]
        roll = rng.random()
        if roll < 0.55:
            parent[key] = copy.deepcopy(rng.choice(EXTREMES))
        elif roll < 0.7 and isinstance(parent, dict):
            del parent[key]
        elif roll < 0.8 and isinstance(parent, dict):
            parent[f"extra_{rng.randint(0, 9)}"] = copy.deepcopy(rng.choice(EXTREMES))
        elif roll < 0.9 and isinstance(parent[key], list):
            parent[key] = parent[key] * rng.randint(0, 40)
        else:
            parent[key] = [parent[key]] if rng.random() < 0.5 else {"v": parent[key]}
    return out


def junk_frame(rng: random.Random) -> str | bytes:
    """A frame that is not a valid message at all."""
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    if kind == 1:
        depth = rng.choice([100, 1000, 5000])
        return "[" * depth + "]" * depth
    if kind == 2:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randint(0, 40)))
    if kind == 3:
        return json.dumps(rng.choice(EXTREMES))
    if kind == 4:
        return '{"type":"act","action_id":"trunc' + str(rng.random())
    if kind == 5:
        return json.dumps({"type": rng.choice(["hello", "act", "resume", "ping", "nope"])})
    return "x" * rng.choice([70_000, 300_000])
