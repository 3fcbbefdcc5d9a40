"""1,000 seeded random mutations of valid match definitions: reading one never raises - it gives
a match, or problems that each name a path - and an accepted one starts a match (its first event
folds) without an exception."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.match.events import Event
from hulldown.match.reducer import evolve
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState
from hulldown.rules.dice import NoDice

from .bad_definitions import base

VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    7,
    1e308,
    -1e308,
    0.5,
    "",
    "x" * 300,
    "tank",
    "\u202e",
    [],
    {},
    [[[[]]]],
    {"a": {}},
    [1, 2],
]
MUTATIONS = 1_000


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _mutate(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        path = rng.choice(paths)
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        action = rng.random()
        if action < 0.2 and isinstance(parent, dict):
            del parent[last]
        elif action < 0.3 and isinstance(parent, dict):
            parent[rng.choice(["extra", "id", "hp", "state", "keywords"])] = rng.choice(VALUES)
        else:
            parent[last] = copy.deepcopy(rng.choice(VALUES))
    return doc


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_mutated_definitions_never_raise(edition: str) -> None:
    rng = random.Random(f"fuzz-{edition}")
    accepted = refused = 0
    for n in range(MUTATIONS // 3 + 1):
        doc = _mutate(base(edition), rng)
        result = parse_definition(doc)
        if isinstance(result, DefinitionError):
            refused += 1
            assert result.problems and all(isinstance(p.path, str) and p.message for p in result.problems), (
                doc
            )
            continue
        accepted += 1
        body = match_created(result.edition, result.scenario, result.options, "fuzz")
        event = Event(seq=1, at=0.0, by="system", action_id="create", body=body)
        state = evolve(MatchState(match_id=f"fuzz-{n}", edition=result.edition, seq=0), event, NoDice())
        assert state.seq == 1 and set(state.units) == {u.id for u in result.scenario.units}
    assert refused > accepted > 0  # most mutations break something; some are harmless
