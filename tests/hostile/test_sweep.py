"""A move's swept area is computed once per move and its cost is linear in the waypoints
(docs/limits-and-outages.md; the geometry is that of docs/geometry.md, unchanged)."""

from __future__ import annotations

import itertools
import math

from shapely import unary_union

from hulldown.match.actions import Move
from hulldown.match.dice_binding import event_dice
from hulldown.match.events import Event
from hulldown.match.history import evolve_with_history
from hulldown.match.reducer import initial_state
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState, Point
from hulldown.match.validate import validate
from hulldown.rules.geometry import movement
from hulldown.rules.geometry.shapes import Hull
from tests.scenarios import duel

from .test_action_bounds import square_path


def _reference_sweep(hull: Hull, path: list[tuple[float, float]], end_heading: float) -> object:
    """The sweep as it was built before: a polygon union per pivot step and per leg."""
    pieces = [hull.polygon()]
    current = hull

    def pivot(h: Hull, turn: float) -> list[object]:
        steps = max(1, math.ceil(abs(turn) / movement.PIVOT_STEP_DEG))
        shapes = [h.rotate(turn * k / steps) for k in range(steps + 1)]
        return [unary_union([a.polygon(), b.polygon()]).convex_hull for a, b in itertools.pairwise(shapes)]

    for target in path:
        dx, dy = target[0] - current.cx, target[1] - current.cy
        turn = movement._turn_mod_180(current.heading, math.degrees(math.atan2(dy, dx)))
        if turn:
            pieces += pivot(current, turn)
            current = current.rotate(turn)
        moved = Hull(target[0], target[1], current.length, current.width, current.heading)
        pieces.append(unary_union([current.polygon(), moved.polygon()]).convex_hull)
        current = moved
    turn = movement._turn_mod_180(current.heading, end_heading)
    if turn:
        pieces += pivot(current, turn)
    return unary_union(pieces)


def test_the_sweep_is_the_same_region_as_the_per_piece_union() -> None:
    hull = Hull(10, 24, 6, 4, 0)
    path = [(12.0, 26.0), (15.0, 25.0), (15.5, 30.0), (11.0, 29.0)]
    movement._swept.cache_clear()
    fast = movement.swept_area(hull, path, 135.0)
    reference = _reference_sweep(hull, path, 135.0)
    assert abs(fast.area - reference.area) < 1e-9  # type: ignore[attr-defined]
    assert fast.symmetric_difference(reference).area < 1e-9


def _state() -> MatchState:
    request = duel()
    return initial_state("sweep", match_created(request.edition, request.scenario, request.options, "c" * 64))


def test_validating_and_applying_a_move_computes_its_sweep_once() -> None:
    state = _state()
    path = tuple(Point(x, y) for x, y in square_path(8))
    action = Move(unit="predator-1", path=path, heading=45.0)
    event = Event(seq=2, at=0.0, by="a", action_id="m", body=action)
    movement._swept.cache_clear()
    assert validate(state, "a", action) is None
    evolve_with_history(state, event, event_dice(b"s" * 32, "sweep", event), lambda seq: state)
    info = movement._swept.cache_info()
    assert info.misses == 1  # one model moved: one sweep built, every other check reused it
    assert info.hits >= 1
