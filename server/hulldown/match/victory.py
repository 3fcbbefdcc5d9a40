"""The victory conditions: one side has no units left, or the turn limit; with a mission
(docs/missions.md) the winner by victory points once the game length has run out.
Pure; evaluated after every game action by ``history.evolve_with_history``.

Decided (named constants, documented in docs/architecture.md, "End of match"):
- A unit is left while it is not destroyed (embarked units count). A side that never had a unit
  cannot be annihilated (scenarios used for tests may field one side only).
- Both sides wiped out by the same action: a draw.
- An hh3 mission is not ended by a side wiped out but by Sudden Death, at the end of the battle
  turn (hh3 Core Mission step 8, match/mission_flow.py); the winner by victory points.
- Turn limit: when game turn ``turn_limit + 1`` would begin, the match ends; the side with more
  units left wins, equal numbers are a draw. ``turn_limit <= 0`` means no limit.
"""

from __future__ import annotations

from msgspec.structs import replace

from .identity_cache import LastOne
from .state import LOG_WINDOW, SIDES, LogEntry, MatchState, Side, Unit

VICTORY_POINTS = "victory_points"
MISSION_RULE = "docs/missions.md, the winner"
SUDDEN_DEATH_VP = 3  # hh3 Core Mission step 8, Sudden Death: the side still on the table scores 3
# Editions whose missions end by Sudden Death at the end of a battle turn (hh3 Core Mission step
# 8), scored by match/mission_flow.py; until then a side wiped out does not end the battle.
SUDDEN_DEATH_EDITIONS = frozenset({"hh3"})
ANNIHILATION = "annihilation"
TURN_LIMIT = "turn_limit"
CONCESSION = "concession"
RULE = "docs/architecture.md, End of match"


Counts = tuple[dict[Side, int], frozenset[Side], tuple[Side, ...]]


# The count of the last units map asked about: consecutive states share their units map until a
# unit changes, so a fold asks about one map again and again; any other map is one pass to count.
_last: LastOne[dict[str, Unit], Counts] = LastOne()


def _count(state: MatchState) -> Counts:
    return _last.get_or_make(state.units, _counted)


def same_count(before: dict[str, Unit], after: dict[str, Unit]) -> None:
    """``after`` is ``before`` with one unit replaced by a copy on the same side and as destroyed
    (or not): it counts the same, so the count kept for ``before`` is kept for ``after`` too
    (turns.replace_unit: a unit that moved or turned is not counted again)."""
    found = _last.get(before)
    if found is not None:
        _last.put(after, found)


# The sides that fielded units and the sides wiped out, by (side a did, side b did): made once.
_FIELDED: dict[tuple[bool, bool], frozenset[Side]] = {
    (a, b): frozenset(side for side, did in zip(SIDES, (a, b), strict=True) if did)
    for a in (False, True)
    for b in (False, True)
}
_WIPED: dict[tuple[bool, bool], tuple[Side, ...]] = {
    (a, b): tuple(side for side, was in zip(SIDES, (a, b), strict=True) if was)
    for a in (False, True)
    for b in (False, True)
}


def _counted(units: dict[str, Unit]) -> Counts:
    """One pass over the units (asked after every game action: a unit that moved makes a new map)."""
    fielded_a = fielded_b = False
    left_a = left_b = 0
    for unit in units.values():
        if unit.side == "a":
            fielded_a = True
            if not unit.destroyed:
                left_a += 1
        else:
            fielded_b = True
            if not unit.destroyed:
                left_b += 1
    left: dict[Side, int] = {"a": left_a, "b": left_b}
    wiped = _WIPED[(fielded_a and left_a == 0, fielded_b and left_b == 0)]
    return left, _FIELDED[(fielded_a, fielded_b)], wiped


def units_left(state: MatchState) -> dict[Side, int]:
    """Units not destroyed, per side."""
    return dict(_count(state)[0])


def fielded(state: MatchState) -> frozenset[Side]:
    return _count(state)[1]


def victory(state: MatchState) -> tuple[Side | None, str, str] | None:
    """(winner or None for a draw, reason, log text) when the match is over, else None."""
    if state.ended:
        return None
    left, _, wiped = _last.get_or_make(state.units, _counted)  # _count, one call fewer
    mission = state.mission
    limit = state.options.turn_limit
    if not wiped and mission is None and not 0 < limit < state.turn:
        return None  # the common case, in short: every condition below needs one of these
    if mission is not None and mission.step == "battle" and state.edition in SUDDEN_DEATH_EDITIONS:
        return _by_vp(state) if mission.over else None
    if len(wiped) == 2:
        return None, ANNIHILATION, "Neither side has a unit left: a draw."
    if mission is not None and mission.step == "battle" and mission.over:
        return _by_vp(state)
    if len(wiped) == 1:
        loser = wiped[0]
        winner: Side = "b" if loser == "a" else "a"
        return winner, ANNIHILATION, f"Side {loser} has no unit left: side {winner} wins."
    if mission is None and 0 < limit < state.turn:
        score = f"{left['a']} units left to {left['b']}"
        if left["a"] == left["b"]:
            return None, TURN_LIMIT, f"Turn limit ({limit}) reached, {score}: a draw."
        leader: Side = "a" if left["a"] > left["b"] else "b"
        return leader, TURN_LIMIT, f"Turn limit ({limit}) reached, {score}: side {leader} wins."
    return None


def _by_vp(state: MatchState) -> tuple[Side | None, str, str]:
    """The winner by victory points (docs/missions.md)."""
    assert state.mission is not None
    vp = state.mission.vp
    a, b = vp.get("a", 0), vp.get("b", 0)
    if a == b:
        return None, VICTORY_POINTS, f"Final tally {a} VP to {b}: a draw."
    winner: Side = "a" if a > b else "b"
    return winner, VICTORY_POINTS, f"Final tally {a} VP to {b}: side {winner} wins."


def apply_victory(state: MatchState) -> MatchState:
    """End the match when a victory condition holds, with a log line at the state's seq."""
    result = victory(state)
    if result is None:
        return state
    winner, reason, text = result
    entry = LogEntry(n=state.log_count, seq=state.seq, text=text, rule=RULE)
    log = (*state.log, entry)[-LOG_WINDOW:]
    return replace(
        state,
        ended=True,
        winner=winner,
        end_reason=reason,
        pending=None,
        takeback={},
        log=log,
        log_count=state.log_count + 1,
    )
