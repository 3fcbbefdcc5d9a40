"""Action-side bounds (docs/limits-and-outages.md): at most MAX_WAYPOINTS waypoints, finite
numbers within range everywhere (a pivot to heading 1e30 is refused), and /arcs never 500."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import msgspec
import msgspec.inspect
import pytest

from hulldown.match import bounds
from hulldown.match.actions import Action, Disembark, Fire, Move, Pivot, Shoot
from hulldown.match.bounds import (
    MAX_COORDINATE,
    MAX_FIRE_ORDERS,
    MAX_HEADING,
    MAX_POSITIONS,
    MAX_WAYPOINTS,
    check_bounds,
)
from hulldown.match.state import Point

from ..server_process import ServerProcess
from .frames import connect, create, events, hello, reply


def square_path(n: int) -> list[list[float]]:
    """``n`` waypoints turning 90 degrees at every one, 0.25 in apart, round the start (10, 24)."""
    corners = [[10.25, 24.0], [10.25, 24.25], [10.0, 24.25], [10.0, 24.0]]
    return [corners[i % 4] for i in range(n)]


async def test_the_server_refuses_too_many_waypoints_and_huge_headings_and_arcs_stay_200(
    server: ServerProcess,
) -> None:
    created = create(server)
    match_id, token = created["match_id"], created["tokens"]["a"]
    ws = await connect(f"{server.ws}/matches/{match_id}/live")
    try:
        assert (await hello(ws, token))["type"] == "welcome"
        too_long = {"type": "move", "unit": "predator-1", "path": square_path(4000), "heading": 0.0}
        await ws.send(json.dumps({"type": "act", "action_id": "long", "action": too_long}))
        answer = await reply(ws)
        assert (answer["type"], answer["code"]) == ("rejected", "too_many_waypoints")
        assert answer["values"] == {"waypoints": 4000, "max": MAX_WAYPOINTS}
        for heading in (1e30, -1e30, 361.0):
            pivot = {"type": "pivot", "unit": "predator-1", "heading": heading}
            await ws.send(json.dumps({"type": "act", "action_id": f"p{heading}", "action": pivot}))
            answer = await reply(ws)
            assert (answer["type"], answer["code"]) == ("rejected", "number_out_of_range")
            assert answer["values"]["field"] == "heading"
        far = {"type": "move", "unit": "predator-1", "path": [[1e300, 24.0]]}
        await ws.send(json.dumps({"type": "act", "action_id": "far", "action": far}))
        answer = await reply(ws)
        assert (answer["code"], answer["values"]["field"]) == ("number_out_of_range", "path[0][0]")
        # The bounded worst case is legal and acked: MAX_WAYPOINTS right-angle turns.
        legal = {"type": "move", "unit": "predator-1", "path": square_path(MAX_WAYPOINTS), "heading": 45.0}
        await ws.send(json.dumps({"type": "act", "action_id": "legal", "action": legal}))
        answer = await reply(ws)
        assert answer["type"] == "ack", answer
    finally:
        await ws.close()
    assert [e["seq"] for e in events(server, match_id, token)] == [1, 2]
    arcs = httpx.get(
        f"{server.http}/matches/{match_id}/arcs",
        params={"unit": "predator-1", "weapon": "lascannon"},
        timeout=10,
    )
    assert arcs.status_code == 200 and arcs.json()["polygons"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, MAX_COORDINATE * 1.5])
def test_non_finite_and_huge_coordinates_are_refused_in_every_point_field(bad: float) -> None:
    # JSON cannot carry NaN or infinity, but a Python client (or a future decoder) could.
    for action, field in (
        (Move(unit="u", path=(Point(1.0, 1.0), Point(bad, 1.0))), "path[1][0]"),
        (Move(unit="u", positions={"m": Point(1.0, bad)}), "positions.m[1]"),
        (Disembark(unit="u", positions={"m": Point(bad, 2.0)}), "positions.m[0]"),
        (Pivot(unit="u", heading=bad), "heading"),
    ):
        rejection = check_bounds(action)
        assert rejection is not None and rejection.code == "number_out_of_range", action
        assert rejection.values["field"] == field


def test_counts_are_bounded_and_the_bounds_themselves_are_allowed() -> None:
    assert check_bounds(Move(unit="u", path=tuple(Point(1.0, 1.0) for _ in range(MAX_WAYPOINTS)))) is None
    assert check_bounds(Pivot(unit="u", heading=-MAX_HEADING)) is None
    assert check_bounds(Move(unit="u", path=(Point(MAX_COORDINATE, -MAX_COORDINATE),))) is None
    many = {f"m{i}": Point(1.0, 1.0) for i in range(MAX_POSITIONS + 1)}
    rejection = check_bounds(Move(unit="u", positions=many))
    assert rejection is not None and rejection.code == "too_many_positions"
    fires = tuple(Fire(weapon="w", target="t") for _ in range(MAX_FIRE_ORDERS + 1))
    rejection = check_bounds(Shoot(unit="u", fire=fires))
    assert rejection is not None and rejection.code == "too_many_fire_orders"


@pytest.mark.parametrize("weapon_range", [1e308, -48.0])
async def test_arcs_never_answer_500_even_for_numbers_a_definition_let_through(
    server: ServerProcess, weapon_range: float
) -> None:
    definition = json.loads((Path(__file__).resolve().parents[2] / "examples" / "duel-40k7.json").read_text())
    predator = next(u for u in definition["scenario"]["units"] if u["id"] == "predator-1")
    next(w for w in predator["weapons"] if w["id"] == "lascannon")["range"] = weapon_range
    created = httpx.post(f"{server.http}/matches", content=json.dumps(definition), timeout=10)
    if created.status_code != 201:  # refused by the definition's own bounds: nothing to draw
        assert 400 <= created.status_code < 500, created.text
        return
    arcs = httpx.get(
        f"{server.http}/matches/{created.json()['match_id']}/arcs",
        params={"unit": "predator-1", "weapon": "lascannon"},
        timeout=10,
    )
    assert arcs.status_code in (200, 422), arcs.text
    assert "error" in arcs.json() or "polygons" in arcs.json()


def _holds_float(info: msgspec.inspect.Type) -> bool:
    """Whether a float can occur anywhere in a value of this (inspected) type."""
    if isinstance(info, msgspec.inspect.FloatType):
        return True
    if isinstance(info, msgspec.inspect.StructType):
        return any(_holds_float(f.type) for f in info.fields)
    if isinstance(info, msgspec.inspect.UnionType):
        return any(_holds_float(t) for t in info.types)
    if isinstance(info, msgspec.inspect.DictType):
        return _holds_float(info.key_type) or _holds_float(info.value_type)
    if isinstance(info, msgspec.inspect.TupleType):
        return any(_holds_float(t) for t in info.item_types)
    if isinstance(info, msgspec.inspect.VarTupleType | msgspec.inspect.ListType):
        return _holds_float(info.item_type)
    return False


def test_only_action_kinds_that_cannot_hold_a_float_skip_the_walk() -> None:
    """The walk over an action's numbers is skipped for kinds with no float anywhere in them
    (``end_phase``, ``concede``...): checked against a full walk of every kind's type."""
    union = msgspec.inspect.type_info(Action)
    assert isinstance(union, msgspec.inspect.UnionType)
    kinds = [t for t in union.types if isinstance(t, msgspec.inspect.StructType)]
    assert len(kinds) > 10
    skipped = [t.cls.__name__ for t in kinds if not bounds._may_hold_floats(t.cls)]
    for info in kinds:
        if _holds_float(info):
            assert bounds._may_hold_floats(info.cls), info.cls.__name__
    assert "EndPhase" in skipped and "Move" not in skipped
