"""The start of the set-up (docs/missions.md): roll-offs, objective markers the players place in
turn, the choice of deployment zone, and the roll-off for the order of deployment. Pure; the
later steps are in ``setup.py``.

- 40k7 rulebook, Preparing for Battle, Placing Objective Markers: a roll-off decides who places
  the first marker; the players take turns; no marker within 6" of a battlefield edge or 12" of
  another marker, none on impassable terrain. Crusade places D3+2 of them.
- 40k7 Eternal War, The Battlefield: each player rolls a D6 (ties again); the higher chooses the
  table half to deploy in. Standard Deployment Method: the winner of a roll-off decides who
  deploys first.
- hh3 Core Missions: the side markers of The Heart of Battle and the markers of The Crucible of
  War and Take and Hold are placed by the players in turn after a roll-off, with the mission's
  distances (missions/catalogue.py).
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from ..missions.model import ObjectiveMarker
from ..missions.placement_room import (
    PLACED_MARKER_PREFIX,
    Room,
    impassable_outlines,
    is_placed_marker,
    marker_gap,
)
from .actions import PlaceMarker
from .context import ApplyContext
from .rejection import Rejection, reject
from .state import Decision, MatchState, Side, other_side

ROLL_OFF_MAX = 20  # a roll-off re-rolls ties at most this often; then side a wins [decided]
DECISION_ORDER = "deploy_order"
DECISION_ZONE = "zone_choice"
PLACEMENT_RULE = {
    "40k7": "40k7 rulebook, Preparing for Battle, Placing Objective Markers",
    "hh3": "hh3 Core Missions, Objectives",
}
ZONE_RULE = {"40k7": "40k7 Eternal War, The Battlefield", "hh3": "hh3 Core Missions, Deployment"}
DEPLOY_RULE = {
    "40k7": "40k7 rulebook, Deployment",
    "hh3": "hh3 Age of Darkness, Core Mission steps 6-8",
    "40k11": "40k11 core rules, Deploy Armies",
}


def roll_off(ctx: ApplyContext, purpose: str) -> Side:
    """Both sides roll a D6, ties re-rolled; the winner."""
    for _ in range(ROLL_OFF_MAX):
        a = ctx.roll(f"{purpose}: side a")
        b = ctx.roll(f"{purpose}: side b")
        if a != b:
            return "a" if a > b else "b"
    return "a"


def _rule(state: MatchState, table: dict[str, str]) -> str:
    return table.get(state.edition, "docs/missions.md")


def start(state: MatchState, ctx: ApplyContext) -> MatchState:
    """The first roll-off of the set-up: for the markers, else the zone, else the deployment."""
    assert state.mission is not None
    placement = state.mission.mission.placement
    if placement is not None:
        r = _rule(state, PLACEMENT_RULE)
        count = placement.count
        if placement.extra_d3:
            d3 = math.ceil(ctx.roll("objective markers: D3") / 2)
            count += d3
            ctx.log(f"D3 + {placement.count}: {count} objective markers are placed.", r)
        if not _room_left(state):
            return _no_room(state, count, ctx)
        winner = roll_off(ctx, "roll-off for the first objective marker")
        ctx.log(f"Side {winner} wins the roll-off and places the first of {count} objective markers.", r)
        mission = replace(state.mission, step="markers", markers_left=count, deploying=winner)
        return replace(state, active=winner, mission=mission)
    return _after_markers(state, ctx)


def _room_left(state: MatchState) -> bool:
    """Is there a place left for the next marker (missions/placement_room.py)?"""
    assert state.mission is not None
    mission = state.mission.mission
    assert mission.placement is not None
    placed = [m.pos for m in mission.objectives if is_placed_marker(m.id)]
    fixed = [m.pos for m in mission.objectives if not is_placed_marker(m.id)]
    bf = state.battlefield
    room = Room(
        bf.width, bf.height, mission.placement, fixed, placed, impassable_outlines(state.terrain.values())
    )
    return room.first_free() is not None


def _no_room(state: MatchState, left: int, ctx: ApplyContext) -> MatchState:
    """No legal place is left for the next marker: the ones not yet placed are not placed
    (docs/missions.md, "Placing markers and choosing the zone") and the set-up goes on."""
    assert state.mission is not None
    ctx.log(
        f"No place is left for another objective marker ({left} not placed): the set-up goes on.",
        _rule(state, PLACEMENT_RULE),
    )
    mission = replace(state.mission, markers_left=0, deploying=None)
    return _after_markers(replace(state, mission=mission), ctx)


def _after_markers(state: MatchState, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    if state.mission.mission.zone_choice:
        winner = roll_off(ctx, "roll-off for the deployment zone")
        r = _rule(state, ZONE_RULE)
        ctx.log(f"Side {winner} wins the roll-off and chooses its deployment zone.", r)
        decision = Decision(
            id=f"zone-{ctx.seq}",
            side=winner,
            kind=DECISION_ZONE,
            options=("A", "B"),
            prompt="You won the roll-off: deploy in zone A or zone B?",
            rule=r,
        )
        return replace(
            state, pending=decision, mission=replace(state.mission, step="zone_choice", deploying=None)
        )
    return order_roll_off(state, ctx)


def resume_zone(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    other = "B" if choice == "A" else "A"
    ctx.log(
        f"Side {decision.side} deploys in zone {choice}; side {other_side(decision.side)} in zone {other}.",
        _rule(state, ZONE_RULE),
    )
    zones = {decision.side: choice, other_side(decision.side): other}
    return order_roll_off(replace(state, pending=None, mission=replace(state.mission, zones=zones)), ctx)


def order_roll_off(state: MatchState, ctx: ApplyContext) -> MatchState:
    """The roll-off whose winner chooses to deploy first or second."""
    assert state.mission is not None
    r = _rule(state, DEPLOY_RULE)
    winner = roll_off(ctx, "roll-off for deployment")
    ctx.log(f"Side {winner} wins the roll-off and chooses to deploy first or second.", r)
    zoned = bool(state.mission.zones)
    decision = Decision(
        id=f"deploy-order-{ctx.seq}",
        side=winner,
        kind=DECISION_ORDER,
        options=("first", "second"),
        prompt=(
            "You won the roll-off: deploy first or second?"
            if zoned
            else "You won the roll-off: deploy first (zone A) or second (zone B)?"
        ),
        rule=r,
    )
    return replace(
        state, pending=decision, mission=replace(state.mission, step="deploy_order", deploying=None)
    )


# ---- placing objective markers ------------------------------------------------------------------


def validate_place_marker(state: MatchState, side: Side, action: PlaceMarker) -> Rejection | None:
    ms = state.mission
    if ms is None or ms.step != "markers" or ms.mission.placement is None:
        return reject(
            "not_placing_markers", "docs/missions.md", "objective markers are placed only before deployment"
        )
    r = _rule(state, PLACEMENT_RULE)
    if side != ms.deploying:
        return reject("not_your_marker", r, f"side {ms.deploying} places the next objective marker")
    p = ms.mission.placement
    x, y = action.at.x, action.at.y
    bf = state.battlefield
    edge = min(x, y, bf.width - x, bf.height - y)
    if edge < p.edge_gap:
        return reject(
            "marker_near_edge",
            r,
            f'a marker at ({x:g}, {y:g}) would be {edge:.1f}" from a battlefield edge: at least {p.edge_gap:g}"',
            gap=p.edge_gap,
        )
    placed = {m.id for m in ms.mission.objectives if is_placed_marker(m.id)}
    for marker in ms.mission.objectives:
        need = marker_gap(p, placed=marker.id in placed)
        d = math.hypot(marker.pos[0] - x, marker.pos[1] - y)
        if d < need:
            return reject(
                "marker_too_close",
                r,
                f'a marker at ({x:g}, {y:g}) would be {d:.1f}" from marker {marker.id}: at least {need:g}"',
                marker=marker.id,
                gap=need,
            )
    here = ShapelyPoint(x, y)
    for piece in state.terrain.values():
        if "impassable" in piece.kinds and Polygon([(q.x, q.y) for q in piece.points]).covers(here):
            return reject("marker_on_impassable", r, f"a marker may not be placed on impassable {piece.id}")
    return None


def apply_place_marker(state: MatchState, side: Side, action: PlaceMarker, ctx: ApplyContext) -> MatchState:
    ms = state.mission
    assert ms is not None and ms.mission.placement is not None
    n = 1 + sum(1 for m in ms.mission.objectives if is_placed_marker(m.id))
    marker = ObjectiveMarker(
        f"{PLACED_MARKER_PREFIX}{n}", (action.at.x, action.at.y), ms.mission.placement.value
    )
    mission = replace(ms.mission, objectives=(*ms.mission.objectives, marker))
    left = ms.markers_left - 1
    ctx.log(
        f"Side {side} places objective marker {marker.id} at ({action.at.x:g}, {action.at.y:g}) "
        f"({marker.value} VP); {left} left.",
        _rule(state, PLACEMENT_RULE),
    )
    ms = replace(ms, mission=mission, values={**ms.values, marker.id: marker.value}, markers_left=left)
    if left > 0:
        nxt = other_side(side)
        placing = replace(state, active=nxt, mission=replace(ms, deploying=nxt))
        return placing if _room_left(placing) else _no_room(placing, left, ctx)
    return _after_markers(replace(state, mission=replace(ms, deploying=None)), ctx)
