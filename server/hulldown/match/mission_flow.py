"""The mission during the battle (docs/missions.md): who holds each marker after every action,
victory points at the times the mission says, secondary objectives, and the game length.
Called by the reducer after an edition applied an action; pure.

- Markers score at the end of the game (40k7 Eternal War) or at the end of each player turn for
  the active side (hh3 Victory sub-phase; 40k11 from battle round 2, capped per turn).
- 40k7 game length (rulebook, "Random Game Length"): at the end of turn 5 a D6 of 3+ plays a
  turn 6, at the end of turn 6 a 4+ plays a turn 7; the game ends after turn 7. A custom mission's
  ``random_40k7`` counts from its own ``turns`` (docs/missions.md, "Custom missions").
- Secondaries: First Blood (40k7: the first unit destroyed in the game gives its destroyer 1 VP;
  both sides when simultaneous), Linebreaker (40k7: at the end of the game a scoring or denial
  unit with a model in the enemy deployment zone - a vehicle, a unit with Armour Values, is
  neither, as for objective control), First Strike (hh3: an enemy unit destroyed in one's first
  player turn), Last Man Standing (hh3: at the end, more units on the battlefield without a
  Routed model than the enemy; embarked units are on it, Reserves not), Slay the Warlord (the
  enemy Warlord, a unit or a model the match definition names, removed as a casualty: 40k7
  scored at the end of the game, hh3 when it falls; once).
- hh3 Sudden Death (Core Mission step 8): at the end of any battle turn, a side with no model on
  the battlefield (Reserves are not on it; embarked and Routed models are) ends the battle; the
  side that has models scores 3 VP, and the victor is decided by the victory points so far (Last
  Man Standing is not scored).
"""

from __future__ import annotations

from msgspec.structs import replace
from shapely.geometry import Polygon

from ..missions.control import control, on_table, scores_or_denies_40k7
from ..missions.model import ObjectiveMarker
from .arrivals import left_the_table, start_of_player_turn, unplaced_arrivals
from .context import ApplyContext
from .mission_state import MissionState
from .state import SIDES, MatchState, Side, Unit, other_side
from .victory import SUDDEN_DEATH_EDITIONS, SUDDEN_DEATH_VP

GAME_LENGTH_RULE = "40k7 rulebook, Random Game Length"
# 40k7 Random Game Length: the D6 needed to play one more battle turn at the end of turn 5 and
# of turn 6 - counted from the mission's ``turns`` (5 for the standard missions).
RANDOM_LENGTH_40K7 = (3, 4)
SECONDARY_RULE = {
    "first_blood": "40k7 Eternal War, First Blood",
    "linebreaker": "40k7 Eternal War, Linebreaker",
    "first_strike": "hh3 Core Mission Secondary Objectives, First Strike",
    "last_man_standing": "hh3 Core Mission Secondary Objectives, Last Man Standing",
    "slay_the_warlord": "docs/missions.md, Slay the Warlord",
}
SLAY_THE_WARLORD_RULE = {
    "40k7": "40k7 rulebook, Secondary Objectives, Slay the Warlord",
    "hh3": "hh3 Core Mission Secondary Objectives, Slay the Warlord",
}
# When Slay the Warlord scores: 40k7 "at the end of the game"; hh3 when the enemy High Command
# choice is removed as a casualty; another edition's custom mission: at the end [decided].
SLAY_THE_WARLORD_WHEN_SLAIN = frozenset({"hh3"})
SUDDEN_DEATH_RULE = "hh3 Core Mission step 8, Sudden Death"


def live_markers(ms: MissionState) -> tuple[ObjectiveMarker, ...]:
    """The mission's markers at their current value (hh3 Window of Opportunity removes a marker
    whose value reached 0)."""
    out = []
    for marker in ms.mission.objectives:
        value = ms.values.get(marker.id, marker.value)
        if value > 0 or not ms.mission.scoring.window_of_opportunity:
            out.append(replace(marker, value=value))
    return tuple(out)


def refresh_control(state: MatchState) -> MatchState:
    ms = state.mission
    if ms is None:
        return state
    return replace(state, mission=replace(ms, control=control(state, live_markers(ms))))


def _add_vp(ms: MissionState, side: str, vp: int) -> MissionState:
    return replace(ms, vp={**ms.vp, side: ms.vp.get(side, 0) + vp})


def after_action(before: MatchState, after: MatchState, ctx: ApplyContext) -> MatchState:
    """The mission's part of one action applied during the battle."""
    ms = after.mission
    if ms is None or ms.step != "battle" or before.mission is None or before.mission.step != "battle":
        return after
    state = refresh_control(left_the_table(before, _warlords(before, _casualties(before, after, ctx), ctx)))
    if before.phase == "movement" and (state.phase != "movement" or state.player_turn != before.player_turn):
        state = unplaced_arrivals(state, before.active, ctx)
    if state.player_turn != before.player_turn:
        state = refresh_control(_end_of_player_turn(state, before.active, before.turn, ctx))
    if state.turn != before.turn:
        state = _end_of_battle_turn(state, before.turn, ctx)
    if state.player_turn != before.player_turn and state.mission is not None and not state.mission.over:
        state = start_of_player_turn(state, state.active, ctx)
    return state


def _casualties(before: MatchState, after: MatchState, ctx: ApplyContext) -> MatchState:
    assert after.mission is not None
    ms = after.mission
    lost = [
        u
        for uid, u in after.units.items()
        if u.destroyed and uid in before.units and not before.units[uid].destroyed
    ]
    if not lost:
        return after
    by = dict(ms.destroyed_by)
    for unit in lost:
        by[other_side(unit.side)] = by.get(other_side(unit.side), 0) + 1
    ms = replace(ms, destroyed_by=by)
    secondaries = ms.mission.scoring.secondaries
    if "first_blood" in secondaries and not ms.first_blood:
        scorers = tuple(sorted({other_side(u.side) for u in lost}))
        for side in scorers:
            ms = _add_vp(ms, side, secondaries["first_blood"])
            ctx.log(
                f"First Blood: side {side} scores {secondaries['first_blood']} VP.",
                SECONDARY_RULE["first_blood"],
            )
        ms = replace(ms, first_blood=scorers)
    if "first_strike" in secondaries:
        side = before.active
        first_turn_of_side = before.player_turn == (1 if side == before.first else 2)
        if first_turn_of_side and side not in ms.first_strike and any(u.side != side for u in lost):
            ms = _add_vp(ms, side, secondaries["first_strike"])
            ms = replace(ms, first_strike=(*ms.first_strike, side))
            ctx.log(
                f"First Strike: side {side} scores {secondaries['first_strike']} VP.",
                SECONDARY_RULE["first_strike"],
            )
    return replace(after, mission=ms)


def warlord_slain(state: MatchState, side: Side) -> bool:
    """The Warlord of ``side`` (a unit, or one model of a unit) has been removed as a casualty."""
    ms = state.mission
    named = ms.mission.warlords.get(side) if ms is not None else None
    if named is None:
        return False
    unit = state.units.get(named)
    if unit is not None:
        return unit.destroyed
    for unit in state.units.values():
        if named in unit.models:
            return unit.destroyed or not unit.models[named].alive
    return False


def _slay_the_warlord(state: MatchState, ms: MissionState, scorer: Side, ctx: ApplyContext) -> MissionState:
    vp = ms.mission.scoring.secondaries["slay_the_warlord"]
    ctx.log(
        f"Slay the Warlord: side {other_side(scorer)}'s Warlord has fallen; side {scorer} scores {vp} VP.",
        SLAY_THE_WARLORD_RULE.get(state.edition, SECONDARY_RULE["slay_the_warlord"]),
    )
    return replace(_add_vp(ms, scorer, vp), slew_warlord=(*ms.slew_warlord, scorer))


def _warlords(before: MatchState, after: MatchState, ctx: ApplyContext) -> MatchState:
    """hh3: Slay the Warlord scores as the enemy Warlord is removed as a casualty."""
    ms = after.mission
    if ms is None or "slay_the_warlord" not in ms.mission.scoring.secondaries:
        return after
    if after.edition not in SLAY_THE_WARLORD_WHEN_SLAIN:
        return after
    for scorer in SIDES:
        victim = other_side(scorer)
        if (
            scorer not in ms.slew_warlord
            and warlord_slain(after, victim)
            and not warlord_slain(before, victim)
        ):
            ms = _slay_the_warlord(after, ms, scorer, ctx)
    return replace(after, mission=ms)


def _score_markers(state: MatchState, side: Side, ctx: ApplyContext, cap: int, when: str) -> MatchState:
    assert state.mission is not None
    ms = state.mission
    held = [(mid, c) for mid, c in sorted(ms.control.items()) if c.holder == side and c.value > 0]
    total = sum(c.value for _, c in held)
    if cap > 0:
        total = min(total, cap)
    if not held:
        return state
    ms = _add_vp(ms, side, total)
    names = ", ".join(f"{mid} ({c.value})" for mid, c in held)
    capped = f", at most {cap} a turn" if cap and sum(c.value for _, c in held) > cap else ""
    ctx.log(f"{when}: side {side} holds {names} and scores {total} VP{capped}.", ms.mission.rule)
    if ms.mission.scoring.window_of_opportunity:
        values = dict(ms.values)
        for mid, _ in held:
            values[mid] = max(0, values.get(mid, 0) - 1)
            if values[mid] == 0:
                ctx.log(
                    f"Window of Opportunity: objective {mid} is removed.",
                    "hh3 Take and Hold, Window of Opportunity",
                )
        ms = replace(ms, values=values)
    return replace(state, mission=ms)


def _end_of_player_turn(state: MatchState, side: Side, turn: int, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    scoring = state.mission.mission.scoring
    if scoring.objectives == "end_of_own_turn" and turn >= scoring.from_turn:
        return _score_markers(state, side, ctx, scoring.max_per_turn, f"End of side {side}'s turn {turn}")
    return state


def on_the_battlefield(state: MatchState, unit: Unit) -> bool:
    """hh3 Core Mission step 8: the unit has a model on the Battlefield - embarked models are on
    it, models in Reserves are not (Sudden Death; Last Man Standing reads it the same way)."""
    assert state.mission is not None
    return (
        not unit.destroyed
        and unit.id not in state.mission.off_table
        and any(m.alive for m in unit.models.values())
    )


def _side_on_the_battlefield(state: MatchState, side: Side) -> bool:
    """hh3 Sudden Death: the side has a model on the battlefield (embarked counts, Reserves not)."""
    return any(u.side == side and on_the_battlefield(state, u) for u in state.units.values())


def _sudden_death(state: MatchState, ctx: ApplyContext) -> MatchState | None:
    """hh3 Sudden Death at the end of a battle turn: the battle over, or None when both sides
    that fielded units still have models on the battlefield."""
    assert state.mission is not None
    fielded = {u.side for u in state.units.values()}
    gone = [s for s in SIDES if s in fielded and not _side_on_the_battlefield(state, s)]
    if not gone:
        return None
    ms = state.mission
    if len(gone) == 1:
        survivor = other_side(gone[0])
        ms = _add_vp(ms, survivor, SUDDEN_DEATH_VP)
        ctx.log(
            f"Sudden Death: side {gone[0]} has no models on the battlefield: the battle ends and side "
            f"{survivor} scores {SUDDEN_DEATH_VP} VP.",
            SUDDEN_DEATH_RULE,
        )
    else:
        ctx.log(
            "Sudden Death: neither side has models on the battlefield: the battle ends.", SUDDEN_DEATH_RULE
        )
    return replace(state, mission=replace(ms, over=True))


def _end_of_battle_turn(state: MatchState, ended: int, ctx: ApplyContext) -> MatchState:
    assert state.mission is not None
    if state.edition in SUDDEN_DEATH_EDITIONS:
        sudden = _sudden_death(state, ctx)
        if sudden is not None:
            return sudden
    ms = state.mission
    if ended < ms.last_turn:
        return state
    extra = ended - ms.mission.turns
    if ms.mission.game_length == "random_40k7" and 0 <= extra < len(RANDOM_LENGTH_40K7):
        need = RANDOM_LENGTH_40K7[extra]
        value = ctx.roll(
            "game length", f"{need}+", lambda v: "the game goes on" if v >= need else "the game ends"
        )
        if value >= need:
            ctx.log(f"Turn {ended} is over: the game goes on to turn {ended + 1}.", GAME_LENGTH_RULE)
            return replace(state, mission=replace(ms, last_turn=ended + 1))
        ctx.log(f"Turn {ended} is over: the game ends.", GAME_LENGTH_RULE)
    else:
        ctx.log(f"Turn {ended} was the last: the game ends.", ms.mission.rule)
    return end_of_game(state, ctx)


def end_of_game(state: MatchState, ctx: ApplyContext) -> MatchState:
    """End-of-game scoring; ``over`` tells the victory check to decide by victory points."""
    assert state.mission is not None
    state = refresh_control(state)
    ms = state.mission
    assert ms is not None
    scoring = ms.mission.scoring
    if scoring.objectives == "end_of_game":
        for side in ("a", "b"):
            state = _score_markers(state, side, ctx, 0, "End of the game")
    ms = state.mission
    assert ms is not None
    if scoring.kill_points:
        for side in ("a", "b"):
            kills = ms.destroyed_by.get(side, 0)
            if kills:
                ms = _add_vp(ms, side, kills * scoring.kill_points)
                ctx.log(
                    f"Side {side} destroyed {kills} enemy units: {kills * scoring.kill_points} VP.",
                    ms.mission.rule,
                )
    secondaries = scoring.secondaries
    if "linebreaker" in secondaries:
        for side in SIDES:
            if _breaks_the_line(state, side):
                ms = _add_vp(ms, side, secondaries["linebreaker"])
                ctx.log(
                    f"Linebreaker: side {side} scores {secondaries['linebreaker']} VP.",
                    SECONDARY_RULE["linebreaker"],
                )
    if "slay_the_warlord" in secondaries and state.edition not in SLAY_THE_WARLORD_WHEN_SLAIN:
        for side in SIDES:
            if side not in ms.slew_warlord and warlord_slain(state, other_side(side)):
                ms = _slay_the_warlord(state, ms, side, ctx)
    if "last_man_standing" in secondaries:
        count = {
            s: sum(
                1
                for u in state.units.values()
                if u.side == s and on_the_battlefield(state, u) and "routed" not in u.statuses
            )
            for s in ("a", "b")
        }
        if count["a"] != count["b"]:
            leader: Side = "a" if count["a"] > count["b"] else "b"
            ms = _add_vp(ms, leader, secondaries["last_man_standing"])
            ctx.log(
                f"Last Man Standing: side {leader} has {count[leader]} units to {count[other_side(leader)]}: "
                f"{secondaries['last_man_standing']} VP.",
                SECONDARY_RULE["last_man_standing"],
            )
    return replace(state, mission=replace(ms, over=True))


def _breaks_the_line(state: MatchState, side: Side) -> bool:
    from .placing import zone_polygon

    assert state.mission is not None
    enemy_zone = zone_polygon(state, other_side(side))
    for unit in state.units.values():
        if unit.side != side or not on_table(state, unit) or not scores_or_denies_40k7(unit):
            continue
        if any(m.alive and enemy_zone.covers(_point(m.pos.x, m.pos.y)) for m in unit.models.values()):
            return True
    return False


def _point(x: float, y: float) -> Polygon:
    from shapely.geometry import Point as ShapelyPoint

    return ShapelyPoint(x, y).buffer(1e-6)


def tally(ms: MissionState) -> str:
    return f"{ms.vp.get('a', 0)} VP to {ms.vp.get('b', 0)}"
