"""The special rules that change where a unit is set up (docs/missions.md): Infiltrate, Scout and
Outflank. Placement checks and the side edges an outflanking unit arrives from; the steps of the
set-up that use them are wired in ``setup.py`` and ``arrivals.py``. Pure.

- 40k7 rulebook, Special Rules, Infiltrate: units with Infiltrate deploy after every other unit
  (friend and foe), both sides alternating after a roll-off; anywhere on the table more than
  12" from every enemy unit if no deployed enemy unit can see them, or more than 18" from every
  enemy unit even in plain sight; such a unit cannot charge in the first game turn; Infiltrators
  kept in Reserve may Outflank.
- 40k7 rulebook, Special Rules, Scout: after both sides have deployed (Infiltrators included) and
  before the first turn, a Scout unit may redeploy: each model within 6" of where it stands
  (Infantry, Artillery, Walkers, Monstrous Creatures) or 12" (every other type), more than 12"
  from every enemy unit, may leave its zone; it cannot charge in the first game turn; Scouts
  kept in Reserve may Outflank.
- 40k7 rulebook, Special Rules, Outflank: declared when the unit goes into Reserve; when it
  arrives, a D6: 1-2 it comes on from the table edge to the left of its owner's table edge, 3-4
  from the right, 5-6 the owner picks either.
- hh3 Special Rules, Infiltrate (X) (Age of Darkness, p. 332): deployed with the other units,
  in its own zone or anywhere outside the opposing zone at least X" from every enemy model;
  outside its own zone it cannot charge in the first battle turn.
- hh3 Special Rules, Outflank (p. 334): a unit arriving from Reserves may enter from any point
  of the battlefield edge, not within the opposing zone nor within 7" of an enemy model; from
  outside its own zone it cannot charge in that player turn. hh3 has no Scout rule.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from .placing import placed_footprints, zone_polygon
from .rejection import Rejection, reject
from .state import MatchState, Point, Side, Unit, other_side

INFILTRATE_RULE = {
    "40k7": "40k7 rulebook, Special Rules, Infiltrate",
    "hh3": "hh3 Special Rules, Infiltrate (X)",
}
SCOUT_RULE = "40k7 rulebook, Special Rules, Scout"
OUTFLANK_RULE = {"40k7": "40k7 rulebook, Special Rules, Outflank", "hh3": "hh3 Special Rules, Outflank"}

INFILTRATE = "infiltrate"
SCOUT = "scout"
OUTFLANK = "outflank"
INFILTRATE_HIDDEN_GAP = 12.0  # 40k7: more than 12" from every enemy unit, out of its sight
INFILTRATE_OPEN_GAP = 18.0  # 40k7: more than 18" from every enemy unit, even in plain sight
SCOUT_SHORT_REACH = 6.0  # 40k7: Infantry, Artillery, Walkers, Monstrous Creatures
SCOUT_LONG_REACH = 12.0  # 40k7: every other unit type
SCOUT_SHORT_KINDS = ("infantry", "walker", "monster")  # Infantry and Artillery, Walkers, Monstrous Creatures
SCOUT_ENEMY_GAP = 12.0  # 40k7: a Scout redeploys more than 12" from every enemy unit
OUTFLANK_ENEMY_GAP_HH3 = 7.0  # hh3 Outflank: not within 7" of an enemy model
OUTFLANK_LEFT_ON = 2  # 40k7 Outflank D6: 1-2 the left edge
OUTFLANK_RIGHT_ON = 4  # 40k7 Outflank D6: 3-4 the right edge; 5-6 the owner's choice
FIRST_GAME_TURN_LAST_PLAYER_TURN = 2  # the first game (battle) turn is player turns 1 and 2
EDGE_NAMES = ("south", "north", "west", "east")
_INFILTRATE_X = re.compile(r"^infiltrate\s*(?::\s*(\d+)|\(\s*(\d+)\s*\)|\[\s*(\d+)\s*\])$")


def infiltrates_last(state: MatchState, unit: Unit) -> bool:
    """40k7: the unit deploys in the Infiltrate step, after every other unit."""
    return state.edition == "40k7" and unit.has(INFILTRATE)


def infiltrate_x(unit: Unit) -> float | None:
    """hh3 Infiltrate (X): X, written ``infiltrate:X`` or ``infiltrate (X)``; None without it."""
    for keyword in unit.keywords:
        found = _INFILTRATE_X.match(keyword.strip().lower())
        if found:
            return float(next(v for v in found.groups() if v is not None))
    return None


def may_outflank(state: MatchState, unit: Unit) -> bool:
    """40k7: Outflank, or Scout or Infiltrate (which confer it in Reserve); hh3: Outflank."""
    if state.edition == "40k7":
        return unit.has(OUTFLANK) or unit.has(SCOUT) or unit.has(INFILTRATE)
    return state.edition == "hh3" and unit.has(OUTFLANK)


def is_scout(state: MatchState, unit: Unit) -> bool:
    """40k7 Scout; a Transport carrying a Scout unit has it too."""
    if state.edition != "40k7":
        return False
    return unit.has(SCOUT) or any(state.units[p].has(SCOUT) for p in unit.passengers)


def _enemy_shapes(state: MatchState, side: Side, skip: str = "") -> list[tuple[Unit, BaseGeometry]]:
    return [(u, shape) for u, shape in placed_footprints(state) if u.side != side and u.id != skip]


def check_infiltrate_40k7(
    state: MatchState, side: Side, unit: Unit, shapes: list[BaseGeometry]
) -> Rejection | None:
    """40k7 Infiltrate: every model more than 18" from every enemy unit, or more than 12" and
    seen by no deployed enemy model (terrain that blocks line of sight, vehicles' hulls)."""
    r = INFILTRATE_RULE["40k7"]
    enemies = _enemy_shapes(state, side)
    nearest = min((s.distance(e) for s in shapes for _, e in enemies), default=float("inf"))
    if nearest > INFILTRATE_OPEN_GAP:
        return None
    if nearest <= INFILTRATE_HIDDEN_GAP:
        return reject(
            "infiltrate_too_close",
            r,
            f'{unit.name} would be {nearest:.1f}" from an enemy unit: Infiltrators stay more than '
            f'{INFILTRATE_HIDDEN_GAP:g}" away (out of sight) or more than {INFILTRATE_OPEN_GAP:g}" (in plain sight)',
            distance=round(nearest, 2),
        )
    from ..rules.geometry import sight as g_sight  # the rules packages import the set-up
    from ..rules.wh40k7 import geo as w7_geo

    assert state.mission is not None
    waiting = set(state.mission.off_table)
    blockers = w7_geo.los_blockers(state, waiting | {unit.id})
    for enemy, _ in enemies:
        for model in enemy.models.values():
            if not model.alive:
                continue
            origin = (model.pos.x, model.pos.y)
            if any(g_sight.line_of_sight(origin, s, blockers) for s in shapes):
                return reject(
                    "infiltrate_in_sight",
                    r,
                    f'{unit.name} would be {nearest:.1f}" from the enemy and in sight of {enemy.name}: '
                    f'within {INFILTRATE_OPEN_GAP:g}" an Infiltrator must be hidden from every enemy unit',
                    distance=round(nearest, 2),
                    seen_by=enemy.id,
                )
    return None


def check_infiltrate_hh3(
    state: MatchState, side: Side, unit: Unit, shapes: list[BaseGeometry]
) -> Rejection | None:
    """hh3 Infiltrate (X), a model outside its own zone: not in the opposing zone, at least X"
    from every enemy model."""
    x = infiltrate_x(unit)
    assert x is not None
    r = INFILTRATE_RULE["hh3"]
    theirs = zone_polygon(state, other_side(side))
    for shape in shapes:
        if shape.intersection(theirs).area > 1e-9:
            return reject(
                "infiltrate_in_enemy_zone",
                r,
                f"{unit.name} may not infiltrate into the opposing deployment zone",
            )
    nearest = min(
        (s.distance(e) for s in shapes for _, e in _enemy_shapes(state, side)), default=float("inf")
    )
    if nearest < x:
        return reject(
            "infiltrate_too_close",
            r,
            f'{unit.name} would be {nearest:.1f}" from an enemy model: Infiltrate ({x:g}) keeps it {x:g}" away',
            distance=round(nearest, 2),
            gap=x,
        )
    return None


def scout_reach(unit: Unit) -> float:
    return SCOUT_SHORT_REACH if unit.kind in SCOUT_SHORT_KINDS else SCOUT_LONG_REACH


def check_scout(
    state: MatchState, side: Side, unit: Unit, positions: Mapping[str, Point], shapes: list[BaseGeometry]
) -> Rejection | None:
    """40k7 Scout: each model within its reach of where it stands, more than 12" from every
    enemy unit."""
    reach = scout_reach(unit)
    for mid, at in sorted(positions.items()):
        here = unit.models[mid].pos
        moved = math.hypot(at.x - here.x, at.y - here.y)
        if moved > reach + 1e-9:
            return reject(
                "scout_too_far",
                SCOUT_RULE,
                f'model {mid} would redeploy {moved:.1f}": a {unit.kind} Scout redeploys within {reach:g}"',
                model=mid,
                reach=reach,
            )
    nearest = min(
        (s.distance(e) for s in shapes for _, e in _enemy_shapes(state, side)), default=float("inf")
    )
    if nearest <= SCOUT_ENEMY_GAP:
        return reject(
            "scout_too_close",
            SCOUT_RULE,
            f'{unit.name} would be {nearest:.1f}" from an enemy unit: a Scout stays more than {SCOUT_ENEMY_GAP:g}" away',
            distance=round(nearest, 2),
        )
    return None


# ---- edges ---------------------------------------------------------------------------------------


def edge_line(state: MatchState, name: str) -> LineString:
    w, h = state.battlefield.width, state.battlefield.height
    return {
        "south": LineString([(0, 0), (w, 0)]),
        "north": LineString([(0, h), (w, h)]),
        "west": LineString([(0, 0), (0, h)]),
        "east": LineString([(w, 0), (w, h)]),
    }[name]


def own_table_edge(state: MatchState, side: Side) -> str:
    """The side's table edge: the edge its deployment zone runs along the furthest (40k7
    rulebook, Random Deployment Zones: the long edge touching the zone; Hammer and Anvil: the
    short edge) [decided: the longest contact]."""
    zone = zone_polygon(state, side).buffer(1e-6)
    return max(
        EDGE_NAMES, key=lambda n: (zone.intersection(edge_line(state, n)).length, edge_line(state, n).length)
    )


# Looking from one's own table edge into the battlefield: (left, right).
SIDE_EDGES = {
    "south": ("west", "east"),
    "north": ("east", "west"),
    "west": ("north", "south"),
    "east": ("south", "north"),
}


def outflank_edges(state: MatchState, side: Side, roll: int) -> tuple[str, ...]:
    """40k7 Outflank: the edge(s) the D6 allows."""
    left, right = SIDE_EDGES[own_table_edge(state, side)]
    if roll <= OUTFLANK_LEFT_ON:
        return (left,)
    if roll <= OUTFLANK_RIGHT_ON:
        return (right,)
    return (left, right)
