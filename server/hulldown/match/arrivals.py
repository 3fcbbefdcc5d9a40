"""Reserves during the battle (docs/missions.md): reserve rolls at the start of a player turn,
arriving from one's own table edge, 40k7 Deep Strike with scatter and mishap, and a 40k7 Flyer
that left the table coming back from Ongoing Reserves. Pure.

- 40k7 rulebook, Reserves: from turn 2, at the start of its owner's turn each unit in reserve
  arrives on a D6 of 3+; from turn 4 it arrives automatically. It moves on from its own table
  edge (Player's Table Edge: the edge the zone runs along): every model is placed within
  ``ARRIVAL_DEPTH`` of it. A unit not placed in that Movement phase goes back into reserve
  (``UNPLACED_ARRIVAL_BACK_TO_RESERVE``; hh3 the same).
- 40k7 Deep Strike: the first model is aimed at a point and scatters 2D6" unless the scatter
  die shows a hit; the others are placed beside it; a model off the table, in impassable terrain
  or within 1" of an enemy is a Mishap (D6: 1-2 destroyed, 3-6 back to Ongoing Reserves).
- hh3 (Mission Special Rules, Reserves): the same rolls [decided: the compilation read gives
  no numbers]; arrivals come in from one's own edge, never within 2" of an enemy model.
- 40k11 (core rules, Strategic Reserves): from battle round 2 a unit in reserve may arrive
  without a roll, within 6" of a table edge and more than 9" from every enemy model; one not set
  up in that Movement phase stays in Strategic Reserves (``UNPLACED_ARRIVAL_BACK_TO_RESERVE``).
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from .actions import DeepStrike
from .context import ApplyContext
from .placing import OFF_TABLE, footprint_of, placed_footprints, zone_polygon
from .rejection import Rejection, reject
from .setup_special import (
    OUTFLANK_ENEMY_GAP_HH3,
    OUTFLANK_RULE,
    edge_line,
    may_outflank,
    outflank_edges,
    own_table_edge,
)
from .state import MatchState, Point, Side, Unit, other_side

RESERVES = "reserves"
RESERVE_RULE = {
    "40k7": "40k7 rulebook, Reserves",
    "hh3": "hh3 Mission Special Rules, Reserves",
    "40k11": "40k11 core rules, Strategic Reserves",
}
DEEP_STRIKE_RULE = "40k7 rulebook, Deep Strike"
FIRST_RESERVE_TURN = 2  # every edition: reserves arrive from battle turn 2
RESERVE_ROLL = 3  # 40k7 (and hh3, decided): a D6 of 3+ brings a unit in
AUTOMATIC_FROM_TURN = 4  # 40k7: from turn 4 reserves arrive automatically
ARRIVAL_DEPTH = 6.0  # inches from one's table edge an arriving model is placed [decided]
ARRIVAL_ENEMY_GAP = {"40k7": 1.0, "hh3": 2.0, "40k11": 9.0}
DEEP_STRIKE_KEYWORD = "deep_strike"
DEEP_STRIKE_HIT = 2  # the scatter die shows a hit on 1-2 (two faces of six)
MISHAP_DESTROYED = 2  # Mishap table: 1-2 destroyed, 3-6 back to Ongoing Reserves [decided]
MISHAP_DESTROYS_PASSENGERS = True  # a Transport destroyed by a Mishap takes its passengers [decided]
DEEP_STRIKE_ENEMY_GAP = 1.0
SCATTER_DIRECTIONS = 36  # two D6 pick one of 36 directions, 10 degrees apart [decided]
# What becomes of a unit that has arrived (its roll passed, or it is due) but is not placed by the
# end of its side's Movement phase - every edition (before, only 40k7: a 40k11 or hh3 unit stayed
# "arriving" for the rest of the game, still marked as in reserve):
# - 40k7 rulebook, Reserves, Arriving from Reserve: every arriving unit is moved onto the table
#   before any other unit moves; what becomes of one its player does not place is not said.
#   Decided: at the end of its side's Movement phase it goes back into Reserve and rolls again next
#   turn (as a unit that cannot be deployed is placed in Reserve, Preparing Reserves).
# - hh3 (Mission Special Rules, Reserves): decided as 40k7.
# - 40k11 (core rules, Strategic Reserves): arriving is a choice made in the Reinforcements step of
#   one's Movement phase; a unit not set up stays in Strategic Reserves and may arrive in a later
#   Movement phase (it is "arriving" again at the start of its side's next turn, no roll).
UNPLACED_ARRIVAL_BACK_TO_RESERVE = frozenset({"40k7", "hh3", "40k11"})
# Editions whose reserves arrive by choice, without a roll (the log says "may arrive").
ARRIVAL_BY_CHOICE = frozenset({"40k11"})


# Editions whose reserves move on from the player's one table edge (40k7 rulebook, Preparing
# for Battle, Player's Table Edge: the edge the deployment map gives, e.g. Dawn of War's long edge
# touching the zone; hh3 decided the same); 40k11 arrives along any edge its zone touches.
ONE_TABLE_EDGE = frozenset({"40k7", "hh3"})


def own_edges(state: MatchState, side: Side) -> list[LineString]:
    """The battlefield edge(s) the side's reserves arrive from: its table edge (40k7, hh3), or
    every edge its deployment zone touches (40k11)."""
    if state.edition in ONE_TABLE_EDGE:
        return [edge_line(state, own_table_edge(state, side))]
    w, h = state.battlefield.width, state.battlefield.height
    edges = [
        LineString([(0, 0), (w, 0)]),
        LineString([(0, h), (w, h)]),
        LineString([(0, 0), (0, h)]),
        LineString([(w, 0), (w, h)]),
    ]
    zone = zone_polygon(state, side)
    return [e for e in edges if zone.buffer(1e-6).intersection(e).length > 1e-6]


def _near(shapes: list[BaseGeometry], edges: list[LineString]) -> bool:
    return all(any(s.distance(e) <= ARRIVAL_DEPTH + 1e-9 for e in edges) for s in shapes)


def _check_outflank_hh3(
    state: MatchState, side: Side, unit: Unit, shapes: list[BaseGeometry]
) -> Rejection | None:
    """hh3 Outflank: from any battlefield edge, not in the opposing zone, not within 7" of an enemy."""
    r = OUTFLANK_RULE["hh3"]
    every = [edge_line(state, n) for n in ("south", "north", "west", "east")]
    if not _near(shapes, every):
        return reject(
            "not_from_an_edge",
            r,
            f'{unit.name} outflanks: every model within {ARRIVAL_DEPTH:g}" of a battlefield edge',
        )
    theirs = zone_polygon(state, other_side(side))
    if any(s.intersection(theirs).area > 1e-9 for s in shapes):
        return reject(
            "outflank_in_enemy_zone", r, f"{unit.name} may not outflank into the opposing deployment zone"
        )
    enemies = [f for u, f in placed_footprints(state) if u.side != side]
    nearest = min((s.distance(e) for s in shapes for e in enemies), default=float("inf"))
    if nearest < OUTFLANK_ENEMY_GAP_HH3:
        return reject(
            "too_close_to_enemy",
            r,
            f'{unit.name} would be {nearest:.1f}" from an enemy model: an outflanking unit stays {OUTFLANK_ENEMY_GAP_HH3:g}" away',
            gap=OUTFLANK_ENEMY_GAP_HH3,
        )
    return None


def outflanked(state: MatchState, unit_id: str) -> bool:
    """hh3: the unit came on by Outflank, away from its own edge (it may not charge this turn)."""
    unit = state.units[unit_id]
    if state.edition != "hh3" or not may_outflank(state, unit):
        return False
    shapes = [footprint_of(m, m.pos, None) for m in unit.models.values() if m.alive]
    return not _near(shapes, own_edges(state, unit.side))


def check_arrival(state: MatchState, side: Side, unit: Unit, shapes: list[BaseGeometry]) -> Rejection | None:
    """An arriving unit: in the Movement phase, every model within reach of its own edge (40k7
    Outflank: of the side edge the D6 gave; hh3 Outflank: of any edge, away from the enemy)."""
    r = RESERVE_RULE.get(state.edition, "reserves")
    if state.phase != "movement":
        return reject("not_movement_phase", r, "units arrive from reserve in the Movement phase")
    assert state.mission is not None
    flank = state.mission.arrival_edges.get(unit.id)
    if flank is not None:
        if not _near(shapes, [edge_line(state, n) for n in flank]):
            return reject(
                "not_from_flank_edge",
                OUTFLANK_RULE["40k7"],
                f'{unit.name} outflanks: every model within {ARRIVAL_DEPTH:g}" of the {" or ".join(flank)} edge',
                edges=" or ".join(flank),
            )
        return None
    edges = own_edges(state, side)
    if state.edition == "hh3" and may_outflank(state, unit) and not _near(shapes, edges):
        return _check_outflank_hh3(state, side, unit, shapes)
    for shape in shapes:
        if not any(shape.distance(e) <= ARRIVAL_DEPTH + 1e-9 for e in edges):
            return reject(
                "not_from_own_edge",
                r,
                f'{unit.name} arrives within {ARRIVAL_DEPTH:g}" of its own table edge',
                depth=ARRIVAL_DEPTH,
            )
    return None


def arrival_gap(state: MatchState) -> float:
    return ARRIVAL_ENEMY_GAP.get(state.edition, 1.0)


def start_of_player_turn(state: MatchState, side: Side, ctx: ApplyContext) -> MatchState:
    """Reserve rolls for ``side``'s units as its player turn begins."""
    ms = state.mission
    if ms is None or state.turn < FIRST_RESERVE_TURN:
        return state
    waiting = sorted(
        uid for uid, where in ms.off_table.items() if where == "reserve" and state.units[uid].side == side
    )
    waiting = [
        uid for uid in waiting if state.units[uid].embarked_in is None and not state.units[uid].destroyed
    ]
    if not waiting:
        return state
    r = RESERVE_RULE.get(state.edition, "reserves")
    off = dict(ms.off_table)
    for uid in waiting:
        name = state.units[uid].name
        if state.edition in ARRIVAL_BY_CHOICE:
            off[uid] = "arriving"
            ctx.log(f"{name} may arrive from Strategic Reserves this turn (Movement phase).", r)
            continue
        if state.turn >= AUTOMATIC_FROM_TURN:
            off[uid] = "arriving"
            ctx.log(f"{name} arrives from reserve this turn.", r)
            continue
        value = ctx.roll(
            f"reserve roll: {name}", f"{RESERVE_ROLL}+", lambda v: "arrives" if v >= RESERVE_ROLL else "waits"
        )
        if value >= RESERVE_ROLL:
            off[uid] = "arriving"
            ctx.log(f"{name} passes its reserve roll: it arrives this turn.", r)
        else:
            ctx.log(f"{name} stays in reserve.", r)
    edges = dict(ms.arrival_edges)
    for uid in waiting:
        if off[uid] == "arriving" and uid in ms.outflanking:
            edges[uid] = _roll_flank(state, side, state.units[uid].name, ctx)
    return replace(state, mission=replace(ms, off_table=off, arrival_edges=edges))


def unplaced_arrivals(state: MatchState, side: Side, ctx: ApplyContext) -> MatchState:
    """The end of ``side``'s Movement phase: its units still arriving from reserve go back into
    it (``UNPLACED_ARRIVAL_BACK_TO_RESERVE``; an outflanking one rolls its edge again)."""
    ms = state.mission
    if ms is None or state.edition not in UNPLACED_ARRIVAL_BACK_TO_RESERVE:
        return state
    late = sorted(
        uid for uid, where in ms.off_table.items() if where == "arriving" and state.units[uid].side == side
    )
    if not late:
        return state
    for uid in late:
        name = state.units[uid].name
        ctx.log(
            f"{name} was not set up this turn: it stays in Strategic Reserves."
            if state.edition in ARRIVAL_BY_CHOICE
            else f"{name} was not placed this turn: it goes back into reserve.",
            RESERVE_RULE.get(state.edition, "reserves"),
        )
    off = {**ms.off_table, **dict.fromkeys(late, "reserve")}
    edges = {k: v for k, v in ms.arrival_edges.items() if k not in late}
    return replace(state, mission=replace(ms, off_table=off, arrival_edges=edges))


def _roll_flank(state: MatchState, side: Side, name: str, ctx: ApplyContext) -> tuple[str, ...]:
    """40k7 Outflank: 1-2 the left side edge, 3-4 the right, 5-6 the owner's choice."""
    value = ctx.roll(
        f"Outflank: {name}",
        "1-2 left, 3-4 right, 5-6 choice",
        lambda v: " or ".join(outflank_edges(state, side, v)),
    )
    edges = outflank_edges(state, side, value)
    which = " or ".join(edges)
    ctx.log(f"{name} outflanks: it comes on from the {which} edge.", OUTFLANK_RULE["40k7"])
    return edges


def left_the_table(before: MatchState, after: MatchState) -> MatchState:
    """A unit an edition's rule put in reserve during play (a 40k7 Flyer leaving combat airspace
    goes into Ongoing Reserves) is off the table until it comes back."""
    ms = after.mission
    if ms is None:
        return after
    gone = [
        uid
        for uid, u in after.units.items()
        if RESERVES in u.statuses and uid not in ms.off_table and not u.destroyed
    ]
    if not gone:
        return after
    off = dict(ms.off_table)
    units = dict(after.units)
    for uid in gone:
        off[uid] = "reserve"
        u = units[uid]
        units[uid] = replace(u, models={mid: replace(m, pos=OFF_TABLE) for mid, m in u.models.items()})
    return replace(after, units=units, mission=replace(ms, off_table=off))


def arrived(state: MatchState, unit_id: str) -> MatchState:
    """The unit is on the table again: no longer off it, no longer in reserve - nor are the
    passengers it carried in (40k7 Reserves: a transport and its embarked unit are one unit of
    reserves; they may disembark once it has arrived)."""
    ms = state.mission
    assert ms is not None
    unit = state.units[unit_id]
    units = dict(state.units)
    for uid in (unit_id, *unit.passengers):
        held = units[uid]
        units[uid] = replace(held, statuses={k: v for k, v in held.statuses.items() if k != RESERVES})
    off = {k: v for k, v in ms.off_table.items() if k not in (unit_id, *unit.passengers)}
    edges = {k: v for k, v in ms.arrival_edges.items() if k != unit_id}
    flanking = tuple(u for u in ms.outflanking if u != unit_id)
    return replace(
        state, units=units, mission=replace(ms, off_table=off, arrival_edges=edges, outflanking=flanking)
    )


# ---- 40k7 Deep Strike ---------------------------------------------------------------------------


def validate_deep_strike(state: MatchState, side: Side, action: DeepStrike) -> Rejection | None:
    ms = state.mission
    unit = state.units[action.unit]
    if ms is None or ms.off_table.get(unit.id) != "arriving":
        return reject("not_arriving", DEEP_STRIKE_RULE, f"{unit.name} is not arriving from reserve this turn")
    if not unit.has(DEEP_STRIKE_KEYWORD):
        return reject("no_deep_strike", DEEP_STRIKE_RULE, f"{unit.name} does not have the Deep Strike rule")
    if state.phase != "movement":
        return reject(
            "not_movement_phase", DEEP_STRIKE_RULE, "units arrive from reserve in the Movement phase"
        )
    bf = state.battlefield
    if not (0 <= action.at.x <= bf.width and 0 <= action.at.y <= bf.height):
        return reject(
            "off_the_battlefield", DEEP_STRIKE_RULE, "aim the Deep Strike at a point on the battlefield"
        )
    return None


def scatter(ctx: ApplyContext, at: Point) -> Point:
    """40k7 Deep Strike scatter: the scatter die (a hit on 1-2), then 2D6" in one of 36 directions."""
    die = ctx.roll(
        "Deep Strike scatter die",
        f"hit on 1-{DEEP_STRIKE_HIT}",
        lambda v: "hit" if v <= DEEP_STRIKE_HIT else "scatter",
    )
    if die <= DEEP_STRIKE_HIT:
        return at
    distance = ctx.roll("scatter distance") + ctx.roll("scatter distance")
    direction = (ctx.roll("scatter direction") - 1) * 6 + (ctx.roll("scatter direction") - 1)
    angle = math.radians(direction * 360 / SCATTER_DIRECTIONS)
    return Point(at.x + distance * math.cos(angle), at.y + distance * math.sin(angle))


def apply_deep_strike(state: MatchState, side: Side, action: DeepStrike, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    landing = scatter(ctx, action.at)
    alive = [m for m in unit.models.values() if m.alive]
    step = max((m.hull.length if m.hull else (m.base_mm or 25.0) / 25.4) for m in alive)
    positions = {m.id: Point(landing.x + k * step, landing.y) for k, m in enumerate(alive)}
    shapes = [footprint_of(m, positions[m.id], None) for m in alive]
    bf = state.battlefield
    table = Polygon(((0, 0), (bf.width, 0), (bf.width, bf.height), (0, bf.height))).buffer(1e-6)
    impassable = [
        Polygon([(p.x, p.y) for p in t.points]) for t in state.terrain.values() if "impassable" in t.kinds
    ]
    others = placed_footprints(state)
    mishap = (
        any(not table.covers(s) for s in shapes)
        or any(s.intersection(t).area > 1e-9 for s in shapes for t in impassable)
        or any(
            s.distance(o) < DEEP_STRIKE_ENEMY_GAP if u.side != side else s.intersection(o).area > 1e-9
            for s in shapes
            for u, o in others
        )
    )
    where = f"({landing.x:.1f}, {landing.y:.1f})"
    if not mishap:
        models = {mid: replace(m, pos=positions.get(mid, m.pos)) for mid, m in unit.models.items()}
        new = replace(
            state,
            units={
                **state.units,
                unit.id: replace(unit, models=models, turn_flags=(*unit.turn_flags, "deep_struck")),
            },
        )
        ctx.log(f"{unit.name} Deep Strikes and lands at {where}.", DEEP_STRIKE_RULE)
        return arrived(new, unit.id)
    value = ctx.roll("Deep Strike Mishap", "", lambda v: "destroyed" if v <= MISHAP_DESTROYED else "delayed")
    if value <= MISHAP_DESTROYED:
        # A Transport's passengers share its fate (MISHAP_DESTROYS_PASSENGERS): they cannot
        # arrive without it.
        inside = (
            [state.units[p] for p in unit.passengers if p in state.units]
            if MISHAP_DESTROYS_PASSENGERS
            else []
        )
        with_them = f", and {', '.join(p.name for p in inside)} inside it" if inside else ""
        ctx.log(
            f"{unit.name} lands at {where}: a Mishap! The unit is destroyed{with_them}.", DEEP_STRIKE_RULE
        )
        ms = state.mission
        assert ms is not None
        lost = {unit.id, *(p.id for p in inside)}
        off = {k: v for k, v in ms.off_table.items() if k not in lost}
        units = dict(state.units)
        for gone in (unit, *inside):
            units[gone.id] = replace(
                gone, destroyed=True, models={mid: replace(m, alive=False) for mid, m in gone.models.items()}
            )
        return replace(state, units=units, mission=replace(ms, off_table=off))
    ctx.log(f"{unit.name} lands at {where}: a Mishap! It returns to Ongoing Reserves.", DEEP_STRIKE_RULE)
    ms = state.mission
    assert ms is not None
    return replace(state, mission=replace(ms, off_table={**ms.off_table, unit.id: "reserve"}))
