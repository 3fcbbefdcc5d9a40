"""The set-up phase before turn 1 when a match names a mission (docs/missions.md): the roll-off,
deploying units in turn in one's own zone, reserves, the first turn and Seize the Initiative.
Shared by every edition's dispatch table (``declare(RULES)``). Pure.

40k7 rulebook, "Deployment": the roll-off winner chooses to deploy first or second; the side
that deploys first places its whole army, then the other; Flyers start in Reserve; the side that
deployed first goes first unless the other Seizes the Initiative (a 6).
hh3 Age of Darkness, Core Mission steps 6-8: reserves are declared, the sides deploy their whole
army one after the other, never in Impassable Terrain, on an Objective or within 2" of an
enemy model; the side that deployed first takes the first turn; Seize the Initiative on a 6.
40k11 core rules, "Deploy Armies": the sides alternate placing one unit at a time; the first
turn goes to the winner of a roll-off.
Infiltrate, Scout and Outflank (match/setup_special.py): 40k7 Infiltrators deploy in a step of
their own once every other unit is down, then Scouts may redeploy; hh3 Infiltrate (X) units
deploy with the others, outside their zone if they keep X" away; a unit that may Outflank and
goes into 40k7 Reserve is asked whether it outflanks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .actions import DeepStrike, Deploy, Embark, PlaceMarker, Reserve, RollOff
from .arrivals import (
    RESERVE_RULE,
    apply_deep_strike,
    arrival_gap,
    arrived,
    check_arrival,
    outflanked,
    validate_deep_strike,
)
from .context import ApplyContext
from .mission_state import MissionState
from .placing import OFF_TABLE, footprint_of, placed_footprints, zone_polygon
from .rejection import Rejection, reject
from .setup_markers import (
    DECISION_ORDER,
    DECISION_ZONE,
    apply_place_marker,
    resume_zone,
    roll_off,
    start,
    validate_place_marker,
)
from .setup_special import (
    FIRST_GAME_TURN_LAST_PLAYER_TURN,
    INFILTRATE_RULE,
    OUTFLANK_RULE,
    SCOUT_RULE,
    check_infiltrate_40k7,
    check_infiltrate_hh3,
    check_scout,
    infiltrate_x,
    infiltrates_last,
    is_scout,
    may_outflank,
    scout_reach,
)
from .state import SIDES, Decision, MatchState, Side, Unit, other_side

if TYPE_CHECKING:
    from ..missions.model import Mission
    from .dispatch import DispatchTable

RULE = {
    "40k7": "40k7 rulebook, Deployment",
    "hh3": "hh3 Age of Darkness, Core Mission steps 6-8",
    "40k11": "40k11 core rules, Deploy Armies",
}
SEIZE_RULE = {
    "40k7": "40k7 rulebook, Seize the Initiative",
    "hh3": "hh3 Mission Special Rules, Seize The Initiative",
}
DECISION_SEIZE = "seize_initiative"
DECISION_INFILTRATE_ORDER = "infiltrate_order"
DECISION_SCOUT_ORDER = "scout_order"
DECISION_SCOUT = "scout_redeploy"
DECISION_OUTFLANK = "outflank"
DEPLOYING_STEPS = ("deploy", "infiltrate")
# 40k7 Infiltrate is a choice (docs/missions.md): in the Infiltrate step an Infiltrator may still
# be set up wholly within its own zone as in a normal deployment [decided]. Without it, enemy
# Infiltrators placed first could leave no place on the table for it, and a side whose every
# unit infiltrates (none may wait in reserve) could do nothing at all.
INFILTRATOR_MAY_DEPLOY_IN_ZONE = True
SEIZE_ON = 6  # 40k7 and hh3: Seize the Initiative succeeds on a 6
# A unit off the table (in reserve) has its models here, far from every rule's reach [decided].
ZONE_TOLERANCE = 1e-6
SETUP_PHASE = "setup"
RESERVES = "reserves"  # the status every edition's rules read as "not on the table"


def rule(state: MatchState) -> str:
    return RULE.get(state.edition, "set-up")


def initial_mission(mission: Mission, units: tuple[Unit, ...]) -> MissionState:
    """The mission at the start of set-up: every unit still to be deployed."""
    return MissionState(
        mission=mission,
        off_table={u.id: "undeployed" for u in units if not u.destroyed},
        values={m.id: m.value for m in mission.objectives},
        last_turn=mission.turns,
    )


def in_setup(state: MatchState) -> bool:
    return state.mission is not None and state.mission.step != "battle"


# ---- the roll-off and the order of deployment -------------------------------------------------


def validate_roll_off(state: MatchState, side: Side, action: RollOff) -> Rejection | None:
    if state.mission is None or state.mission.step != "roll_off":
        return reject(
            "not_in_setup", rule(state), "the roll-off for deployment is made once, before deployment"
        )
    return None


def apply_roll_off(state: MatchState, side: Side, action: RollOff, ctx: ApplyContext) -> MatchState:
    """The first roll-off: for the objective markers, the zone or the deployment (match/setup_markers.py)."""
    return start(state, ctx)


def resume_order(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    first: Side = decision.side if choice == "first" else other_side(decision.side)
    zones = state.mission.zones or {first: "A", other_side(first): "B"}
    ctx.log(
        f"Side {first} deploys first, in zone {zones[first]}; side {other_side(first)} in zone "
        f"{zones[other_side(first)]}.",
        rule(state),
    )
    mission = replace(
        state.mission,
        step="deploy",
        zones=zones,
        deploying=first,
        deployed_first=first,
    )
    new = replace(state, pending=None, mission=mission, active=first)
    if _remaining(new, first):
        return new
    return advance(new, ctx, first)


# ---- deploying ----------------------------------------------------------------------------------


def _is_flyer(unit: Unit) -> bool:
    return unit.has("flyer")


def _is_vehicle(unit: Unit) -> bool:
    return unit.kind in ("vehicle", "walker") or unit.profile.armour is not None


def check_turn(state: MatchState, side: Side, unit_id: str) -> Rejection | None:
    mission = state.mission
    if mission is None or mission.step not in DEPLOYING_STEPS:
        step = mission.step.replace("_", " ") if mission is not None else "none"
        return reject(
            "not_in_setup",
            rule(state),
            f"units are deployed only while the sides deploy, before turn 1 (now: {step})",
            step=step,
        )
    if side != mission.deploying:
        return reject("not_your_deployment", rule(state), f"side {mission.deploying} is deploying now")
    unit = state.units[unit_id]
    if mission.step == "infiltrate" and not infiltrates_last(state, unit):
        return reject(
            "not_an_infiltrator",
            INFILTRATE_RULE["40k7"],
            f"every other unit is deployed: only Infiltrators are set up now, and {unit.name} is not one",
        )
    if mission.off_table.get(unit_id) != "undeployed":
        return reject(
            "already_deployed", rule(state), f"{unit.name} has already been deployed or put in reserve"
        )
    if unit.embarked_in is not None:
        return reject(
            "deploys_with_transport",
            rule(state),
            f"{unit.name} is embarked: it is deployed with {unit.embarked_in}",
        )
    return None


def arriving(state: MatchState, unit_id: str) -> bool:
    """A unit arriving from reserve this turn (match/arrivals.py)."""
    ms = state.mission
    return ms is not None and ms.step == "battle" and ms.off_table.get(unit_id) == "arriving"


def validate_deploy(state: MatchState, side: Side, action: Deploy) -> Rejection | None:
    """The deploying side places a unit wholly within its zone, on the battlefield, never on
    impassable terrain or overlapping a model; hh3: never within 2" of an enemy, on an Objective,
    or a vehicle above level 0. A unit arriving from reserve is placed the same way, but from its
    own table edge instead of in its zone (match/arrivals.py)."""
    coming = arriving(state, action.unit)
    scouting = redeploying(state, action.unit)
    if scouting and side != state.units[action.unit].side:
        return reject("not_your_deployment", SCOUT_RULE, f"{action.unit} is not your unit")
    refused = None if coming or scouting else check_turn(state, side, action.unit)
    if refused is not None:
        return refused
    assert state.mission is not None
    mission = state.mission.mission
    unit = state.units[action.unit]
    # An arrival is refused under its edition's Reserves rule, a deployment under the set-up rule.
    r = RESERVE_RULE.get(state.edition, rule(state)) if coming else rule(state)
    step = state.mission.step
    anywhere = coming or scouting or step == "infiltrate"
    hh3_x = infiltrate_x(unit) if state.edition == "hh3" and not coming else None
    outside = False
    if not coming and mission.flyers_in_reserve and _is_flyer(unit):
        return reject(
            "flyer_in_reserve", "40k7 rulebook, Flyers", f"{unit.name} is a Flyer: it starts in reserve"
        )
    alive = {mid for mid, m in unit.models.items() if m.alive}
    if set(action.positions) != alive:
        missing = sorted(alive - set(action.positions))
        extra = sorted(set(action.positions) - alive)
        return reject(
            "deploy_positions",
            r,
            f"give a position for each model of {unit.name}: missing {missing or 'none'}, unknown {extra or 'none'}",
        )
    zone = zone_polygon(state, side).buffer(ZONE_TOLERANCE)
    bf = state.battlefield
    table = Polygon(((0, 0), (bf.width, 0), (bf.width, bf.height), (0, bf.height))).buffer(ZONE_TOLERANCE)
    placed = [(u, s) for u, s in placed_footprints(state) if u.id != unit.id]
    gap = arrival_gap(state) if coming else mission.enemy_gap
    new: list[BaseGeometry] = []
    for mid in sorted(action.positions):
        at = action.positions[mid]
        shape = footprint_of(unit.models[mid], at, action.heading, unit, state.edition)
        if not table.covers(shape):
            return reject("outside_zone", r, f"model {mid} would be off the battlefield", model=mid)
        if not anywhere and not zone.covers(shape):
            if hh3_x is None:
                return reject(
                    "outside_zone", r, f"model {mid} is not wholly within the deployment zone", model=mid
                )
            outside = True
        for piece in state.terrain.values():
            poly = Polygon([(p.x, p.y) for p in piece.points])
            if (
                "impassable" in piece.kinds
                and poly.intersects(shape)
                and poly.intersection(shape).area > 1e-9
            ):
                return reject(
                    "impassable_terrain", r, f"model {mid} would stand on impassable {piece.id}", model=mid
                )
            if (
                state.edition == "hh3"
                and _is_vehicle(unit)
                and piece.level > 0
                and poly.intersection(shape).area > 1e-9
            ):
                return reject(
                    "vehicle_above_ground",
                    "hh3 core rules, Terrain levels",
                    f"{unit.name} is a vehicle: it may not be deployed on level {piece.level} of {piece.id}",
                    model=mid,
                )
        for other_unit, other in placed:
            if other.intersection(shape).area > 1e-9:
                return reject(
                    "overlapping", r, f"model {mid} would overlap a model of {other_unit.name}", model=mid
                )
            if gap > 0 and other_unit.side != side and other.distance(shape) < gap:
                return reject(
                    "too_close_to_enemy",
                    r,
                    f'model {mid} would be within {gap:g}" of {other_unit.name}',
                    model=mid,
                    gap=gap,
                )
        for earlier in new:
            if earlier.intersection(shape).area > 1e-9:
                return reject(
                    "overlapping", r, f"model {mid} would overlap another model of {unit.name}", model=mid
                )
        if mission.marker_clearance > 0:
            for marker in mission.objectives:
                if shape.distance(ShapelyPoint(marker.pos)) < mission.marker_clearance:
                    return reject(
                        "on_objective", r, f"model {mid} would stand on objective {marker.id}", model=mid
                    )
        new.append(shape)
    if coming:
        return check_arrival(state, side, unit, new)
    if scouting:
        return check_scout(state, side, unit, action.positions, new)
    if step == "infiltrate":
        if INFILTRATOR_MAY_DEPLOY_IN_ZONE and all(zone.covers(shape) for shape in new):
            return None  # set up as a normal deployment: the Infiltrate distances do not apply
        return check_infiltrate_40k7(state, side, unit, new)
    if outside:
        return check_infiltrate_hh3(state, side, unit, new)
    return None


def redeploying(state: MatchState, unit_id: str) -> bool:
    """The Scout unit whose redeployment the set-up waits for (40k7 Scout)."""
    ms = state.mission
    return ms is not None and ms.step == "scout" and ms.scouting == unit_id and state.pending is None


def _outside_own_zone(state: MatchState, side: Side, unit: Unit) -> bool:
    zone = zone_polygon(state, side).buffer(ZONE_TOLERANCE)
    return any(
        not zone.covers(footprint_of(m, m.pos, None, unit, state.edition))
        for m in unit.models.values()
        if m.alive
    )


def _ban_charge(state: MatchState, unit_id: str, last_player_turn: int) -> MatchState:
    assert state.mission is not None
    bans = {**state.mission.no_charge, unit_id: last_player_turn}
    return replace(state, mission=replace(state.mission, no_charge=bans))


def _with_passengers(state: MatchState, unit: Unit) -> list[str]:
    return [unit.id, *unit.passengers]


def apply_deploy(state: MatchState, side: Side, action: Deploy, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    unit = state.units[action.unit]
    models = {
        mid: replace(
            m,
            pos=action.positions.get(mid, m.pos),
            heading=m.heading if action.heading is None or m.hull is None else action.heading,
        )
        for mid, m in unit.models.items()
    }
    units = dict(state.units)
    units[unit.id] = replace(unit, models=models)
    if arriving(state, unit.id):
        ctx.log(f"{unit.name} arrives from reserve.", RESERVE_RULE.get(state.edition, rule(state)))
        placed = arrived(replace(state, units=units), unit.id)
        if outflanked(placed, unit.id):
            placed = _ban_charge(placed, unit.id, state.player_turn)
        return placed
    if redeploying(state, unit.id):
        ctx.log(f"{unit.name} redeploys (Scout); it cannot charge in the first game turn.", SCOUT_RULE)
        new = _ban_charge(replace(state, units=units), unit.id, FIRST_GAME_TURN_LAST_PLAYER_TURN)
        assert new.mission is not None
        left = tuple(u for u in new.mission.scouts_left if u != unit.id)
        new = replace(new, mission=replace(new.mission, scouts_left=left, scouting=None))
        return _next_scout(new, ctx, other_side(side))
    off = {k: v for k, v in state.mission.off_table.items() if k not in _with_passengers(state, unit)}
    carried = (
        f" with {', '.join(state.units[p].name for p in unit.passengers)} embarked" if unit.passengers else ""
    )
    zone = state.mission.zones.get(side, "")
    new = replace(state, units=units, mission=replace(state.mission, off_table=off))
    if state.mission.step == "infiltrate":
        ctx.log(
            f"Side {side} infiltrates {unit.name}{carried}; it cannot charge in the first game turn.",
            INFILTRATE_RULE["40k7"],
        )
        new = _ban_charge(new, unit.id, FIRST_GAME_TURN_LAST_PLAYER_TURN)
    elif (
        infiltrate_x(unit) is not None
        and state.edition == "hh3"
        and _outside_own_zone(new, side, new.units[unit.id])
    ):
        ctx.log(
            f"Side {side} deploys {unit.name}{carried} outside its zone by Infiltrate; "
            "it cannot charge in the first battle turn.",
            INFILTRATE_RULE["hh3"],
        )
        new = _ban_charge(new, unit.id, FIRST_GAME_TURN_LAST_PLAYER_TURN)
    else:
        ctx.log(f"Side {side} deploys {unit.name}{carried} in zone {zone}.", rule(state))
    return advance(new, ctx, side)


def validate_reserve(state: MatchState, side: Side, action: Reserve) -> Rejection | None:
    refused = check_turn(state, side, action.unit)
    if refused is not None:
        return refused
    assert state.mission is not None
    mission = state.mission
    unit = state.units[action.unit]
    if not mission.mission.reserves:
        return reject("no_reserves", rule(state), f"{mission.mission.name} does not use reserves")
    deployed = any(
        u.side == side and u.id not in mission.off_table and not u.destroyed and u.embarked_in is None
        for u in state.units.values()
    )
    others = [
        uid
        for uid, where in mission.off_table.items()
        if where == "undeployed"
        and uid != unit.id
        and state.units[uid].side == side
        and state.units[uid].embarked_in is None
        and not (mission.mission.flyers_in_reserve and _is_flyer(state.units[uid]))
    ]
    if not deployed and not others and not (mission.mission.flyers_in_reserve and _is_flyer(unit)):
        # Two literal rules, not one chosen in a variable: client-protocol/rejection-codes.md is
        # generated from the reject(...) calls and lists each rule reference as written.
        if state.edition == "hh3":
            return reject(
                "must_deploy_one",
                "hh3 Age of Darkness, Declare Mission Reserves",
                "every side deploys at least one unit on the battlefield",
            )
        # The other editions follow hh3 here [decided]: their players are shown where it is written.
        return reject(
            "must_deploy_one",
            "docs/missions.md, Set-up, as actions",
            "every side deploys at least one unit on the battlefield",
        )
    return None


def apply_reserve(state: MatchState, side: Side, action: Reserve, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    unit = state.units[action.unit]
    ids = _with_passengers(state, unit)
    off = dict(state.mission.off_table)
    units = dict(state.units)
    for uid in ids:
        off[uid] = "reserve"
        u = units[uid]
        units[uid] = replace(
            u,
            models={mid: replace(m, pos=OFF_TABLE) for mid, m in u.models.items()},
            statuses={**u.statuses, RESERVES: 0},
        )
    ctx.log(f"Side {side} declares {unit.name} in reserve.", rule(state))
    new = replace(state, units=units, mission=replace(state.mission, off_table=off))
    if state.edition == "40k7" and may_outflank(state, unit):
        decision = Decision(
            id=f"outflank-{ctx.seq}",
            side=side,
            kind=DECISION_OUTFLANK,
            options=("outflank", "own_edge"),
            prompt=f"{unit.name} may Outflank: arrive from a side edge (a D6 picks left or right) or from your own edge?",
            rule=OUTFLANK_RULE["40k7"],
            context={"unit": unit.id},
        )
        return replace(new, pending=decision)
    return advance(new, ctx, side)


def resume_outflank(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    uid = decision.context["unit"]
    ms = state.mission
    if choice == "outflank":
        ctx.log(f"{state.units[uid].name} will Outflank.", OUTFLANK_RULE["40k7"])
        ms = replace(ms, outflanking=(*ms.outflanking, uid))
    return advance(replace(state, pending=None, mission=ms), ctx, decision.side)


def _remaining(state: MatchState, side: Side) -> bool:
    """Units of ``side`` still to deploy in the deployment step (40k7 Infiltrators wait)."""
    assert state.mission is not None
    return any(
        where == "undeployed"
        and state.units[uid].side == side
        and state.units[uid].embarked_in is None
        and not infiltrates_last(state, state.units[uid])
        for uid, where in state.mission.off_table.items()
    )


def _infiltrators_left(state: MatchState, side: Side) -> bool:
    assert state.mission is not None
    return any(
        where == "undeployed"
        and state.units[uid].side == side
        and state.units[uid].embarked_in is None
        and infiltrates_last(state, state.units[uid])
        for uid, where in state.mission.off_table.items()
    )


def advance(state: MatchState, ctx: ApplyContext, current: Side) -> MatchState:
    """Who deploys next; when nobody has a unit left to place, the first turn is decided."""
    assert state.mission is not None
    other = other_side(current)
    if state.mission.step == "infiltrate":
        nxt = (
            other
            if _infiltrators_left(state, other)
            else current
            if _infiltrators_left(state, current)
            else None
        )
        if nxt is not None:
            return replace(state, active=nxt, mission=replace(state.mission, deploying=nxt))
        return _start_scouts(state, ctx)
    if state.mission.mission.deploy_order == "whole_army":
        nxt = current if _remaining(state, current) else other if _remaining(state, other) else None
    else:
        nxt = other if _remaining(state, other) else current if _remaining(state, current) else None
    if nxt is not None:
        return replace(state, active=nxt, mission=replace(state.mission, deploying=nxt))
    return _start_infiltrate(state, ctx)


# ---- 40k7 Infiltrate and Scout: after every other unit is deployed (match/setup_special.py) ------


def _order_decision(state: MatchState, ctx: ApplyContext, kind: str, what: str, r: str) -> Decision:
    winner = roll_off(ctx, f"roll-off for {what}")
    ctx.log(f"Both sides have {what} units: side {winner} wins the roll-off and chooses who goes first.", r)
    return Decision(
        id=f"{kind}-{ctx.seq}",
        side=winner,
        kind=kind,
        options=("first", "second"),
        prompt=f"You won the roll-off for {what}: go first or second?",
        rule=r,
    )


def _start_infiltrate(state: MatchState, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    sides = [s for s in SIDES if _infiltrators_left(state, s)]
    r = INFILTRATE_RULE["40k7"]
    if len(sides) == 2:
        decision = _order_decision(state, ctx, DECISION_INFILTRATE_ORDER, "Infiltrate", r)
        return replace(
            state, pending=decision, mission=replace(state.mission, step="infiltrate_order", deploying=None)
        )
    if sides:
        ctx.log(f"Every other unit is deployed: side {sides[0]} sets up its Infiltrators.", r)
        return replace(
            state, active=sides[0], mission=replace(state.mission, step="infiltrate", deploying=sides[0])
        )
    return _start_scouts(state, ctx)


def resume_infiltrate_order(
    state: MatchState, decision: Decision, choice: str, ctx: ApplyContext
) -> MatchState:
    assert state.mission is not None
    first: Side = decision.side if choice == "first" else other_side(decision.side)
    ctx.log(f"Side {first} sets up an Infiltrator first; the sides alternate.", INFILTRATE_RULE["40k7"])
    mission = replace(state.mission, step="infiltrate", deploying=first)
    return replace(state, pending=None, active=first, mission=mission)


def _start_scouts(state: MatchState, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    ms = state.mission
    scouts = tuple(
        sorted(
            u.id
            for u in state.units.values()
            if not u.destroyed and u.embarked_in is None and u.id not in ms.off_table and is_scout(state, u)
        )
    )
    if not scouts:
        return _finish_deployment(state, ctx)
    ms = replace(ms, scouts_left=scouts, deploying=None)
    sides = sorted({state.units[u].side for u in scouts})
    if len(sides) == 2:
        decision = _order_decision(state, ctx, DECISION_SCOUT_ORDER, "Scout", SCOUT_RULE)
        return replace(state, pending=decision, mission=replace(ms, step="scout_order"))
    only: Side = "a" if sides[0] == "a" else "b"
    return _next_scout(replace(state, mission=replace(ms, step="scout")), ctx, only)


def resume_scout_order(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    first: Side = decision.side if choice == "first" else other_side(decision.side)
    ctx.log(f"Side {first} redeploys a Scout first; the sides alternate.", SCOUT_RULE)
    return _next_scout(replace(state, pending=None, mission=replace(state.mission, step="scout")), ctx, first)


def _next_scout(state: MatchState, ctx: ApplyContext, prefer: Side) -> MatchState:
    """The next Scout unit (of ``prefer`` if it has one left, else of the other side) is asked
    whether it redeploys; none left: the first turn is decided."""
    assert state.mission is not None
    ms = state.mission
    left = [u for u in ms.scouts_left if not state.units[u].destroyed]
    pick = next((u for u in left if state.units[u].side == prefer), None) or next(iter(left), None)
    if pick is None:
        done = replace(state, mission=replace(ms, scouts_left=(), scouting=None, deploying=None))
        return _finish_deployment(done, ctx)
    unit = state.units[pick]
    decision = Decision(
        id=f"scout-{ctx.seq}",
        side=unit.side,
        kind=DECISION_SCOUT,
        options=("redeploy", "stay"),
        prompt=(
            f'{unit.name} has Scout: redeploy it (each model within {scout_reach(unit):g}" of where it '
            'stands, more than 12" from every enemy unit) or stay?'
        ),
        rule=SCOUT_RULE,
        context={"unit": pick},
    )
    mission = replace(ms, step="scout", scouting=pick, deploying=unit.side)
    return replace(state, pending=decision, active=unit.side, mission=mission)


def resume_scout(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    uid = decision.context["unit"]
    if choice == "redeploy":
        ctx.log(f"{state.units[uid].name} will redeploy (Scout).", SCOUT_RULE)
        return replace(state, pending=None)
    ctx.log(f"{state.units[uid].name} stays where it was deployed.", SCOUT_RULE)
    left = tuple(u for u in state.mission.scouts_left if u != uid)
    new = replace(state, pending=None, mission=replace(state.mission, scouts_left=left, scouting=None))
    return _next_scout(new, ctx, other_side(decision.side))


def _finish_deployment(state: MatchState, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    mission = state.mission.mission
    if mission.first_turn == "roll_off":
        first = roll_off(ctx, "roll-off for the first turn")
        ctx.log(f"Deployment is over; side {first} wins the roll-off and takes the first turn.", rule(state))
    else:
        first = state.mission.deployed_first or "a"
        ctx.log(f"Deployment is over; side {first} deployed first and takes the first turn.", rule(state))
    if mission.seize:
        seizer = other_side(first)
        decision = Decision(
            id=f"seize-{ctx.seq}",
            side=seizer,
            kind=DECISION_SEIZE,
            options=("seize", "decline"),
            prompt=f"Side {first} goes first: try to Seize the Initiative (a {SEIZE_ON} takes the first turn)?",
            rule=SEIZE_RULE.get(state.edition, rule(state)),
        )
        return replace(
            state,
            first=first,
            active=first,
            pending=decision,
            mission=replace(state.mission, step="seize", deploying=None),
        )
    return start_battle(state, first, ctx)


def resume_seize(state: MatchState, decision: Decision, choice: str, ctx: ApplyContext) -> MatchState:
    first = state.first
    r = SEIZE_RULE.get(state.edition, rule(state))
    if choice == "seize":
        value = ctx.roll(
            "Seize the Initiative", f"{SEIZE_ON}+", lambda v: "seized" if v >= SEIZE_ON else "failed"
        )
        if value >= SEIZE_ON:
            first = decision.side
            ctx.log(f"Side {decision.side} seizes the initiative!", r)
        else:
            ctx.log(f"Side {decision.side} fails to seize the initiative.", r)
    else:
        ctx.log(f"Side {decision.side} does not try to seize the initiative.", r)
    return start_battle(replace(state, pending=None), first, ctx)


def start_battle(state: MatchState, first: Side, ctx: ApplyContext) -> MatchState:
    from .editions import rules_for

    assert state.mission is not None
    phases = rules_for(state.edition).phases
    ctx.log(f"Turn 1 begins: side {first} takes the first turn.", rule(state))
    mission = replace(state.mission, step="battle", deploying=None)
    from .mission_flow import refresh_control

    return refresh_control(
        replace(
            state,
            first=first,
            active=first,
            phase=phases[0],
            turn=1,
            player_turn=1,
            phase_flags=(),
            mission=mission,
        )
    )


def declare(table: DispatchTable) -> None:
    """Every edition's set-up: the same actions and decisions, read per edition and mission."""
    table.on(RollOff, validate_roll_off, apply_roll_off)
    table.on(PlaceMarker, validate_place_marker, apply_place_marker)
    table.on(Deploy, validate_deploy, apply_deploy)
    table.on(Reserve, validate_reserve, apply_reserve)
    if table.edition == "40k7":
        table.on(DeepStrike, validate_deep_strike, apply_deep_strike)
    else:
        table.unsupported(
            DeepStrike,
            RESERVE_RULE.get(table.edition, "reserves"),
            f"{table.edition}: Deep Strike is not modelled; units arrive from reserve with deploy",
        )
    table.decision(DECISION_ORDER, resume_order)
    table.decision(DECISION_ZONE, resume_zone)
    table.decision(DECISION_SEIZE, resume_seize)
    table.decision(DECISION_INFILTRATE_ORDER, resume_infiltrate_order)
    table.decision(DECISION_SCOUT_ORDER, resume_scout_order)
    table.decision(DECISION_SCOUT, resume_scout)
    table.decision(DECISION_OUTFLANK, resume_outflank)


SETUP_ACTIONS = (RollOff, PlaceMarker, Deploy, Reserve)
# In set-up an ``embark`` starts a unit embarked (match/setup_embark.py); afterwards it is a move.


def _named_units(action: object) -> list[str]:
    from .actions import Charge, Fight, Move, Shoot

    names: list[str] = []
    unit = getattr(action, "unit", None)
    if isinstance(unit, str):
        names.append(unit)
    if isinstance(action, Shoot):
        names.extend(f.target for f in action.fire)
    target = action.target if isinstance(action, Charge | Fight | Move) else None
    if target is not None:
        names.append(target)
    if isinstance(action, Embark):
        names.append(action.transport)
    return names


def check_setup(state: MatchState, action: object) -> Rejection | None:
    """docs/missions.md: during set-up only set-up actions; afterwards none of them, and no unit
    off the table (not deployed, in reserve) acts or is a target."""
    if state.mission is None:
        if isinstance(action, SETUP_ACTIONS):
            return reject(
                "not_in_setup", "docs/missions.md", "this match names no mission: it has no set-up phase"
            )
        return None
    if in_setup(state):
        if not isinstance(action, (*SETUP_ACTIONS, Embark)):
            step = state.mission.step
            return reject(
                "in_setup",
                rule(state),
                f"the match is in set-up ({step.replace('_', ' ')}): roll off, deploy or declare reserves first",
                step=step,
            )
        return None
    coming = isinstance(action, Deploy | DeepStrike) and arriving(state, action.unit)
    banned = _charge_banned(state, action)
    if banned is not None:
        return banned
    if isinstance(action, SETUP_ACTIONS) and not coming:
        return reject("not_in_setup", rule(state), "set-up is over: the battle has begun")
    if isinstance(action, DeepStrike) and not coming:
        return None  # the edition's table says why it is refused
    for uid in _named_units(action)[1:] if coming else _named_units(action):
        where = state.mission.off_table.get(uid)
        if where is not None:
            return reject("not_on_table", rule(state), f"unit {uid} is not on the table ({where})", unit=uid)
    return None


NO_CHARGE_RULE = {
    "40k7": "40k7 rulebook, Special Rules, Infiltrate and Scout",
    "hh3": "hh3 Special Rules, Infiltrate (X) and Outflank",
}


def _charge_banned(state: MatchState, action: object) -> Rejection | None:
    """A unit that infiltrated or redeployed (Scout) may not charge in the first game turn; an
    hh3 unit that outflanked, in the player turn it arrived (match/setup_special.py)."""
    from .actions import Charge

    if not isinstance(action, Charge) or state.mission is None:
        return None
    until = state.mission.no_charge.get(action.unit, 0)
    if state.player_turn > until:
        return None
    name = state.units[action.unit].name if action.unit in state.units else action.unit
    return reject(
        "no_charge_this_turn",
        NO_CHARGE_RULE.get(state.edition, rule(state)),
        f"{name} was set up by Infiltrate, Scout or Outflank: it may not charge until player turn {until + 1}",
        until=until,
    )
