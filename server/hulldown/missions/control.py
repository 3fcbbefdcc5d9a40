"""Who controls each objective marker, as each edition says (docs/rules-notes.md, "Missions").

- 40k7 (rulebook, Eternal War, "Controlling Objective Markers"): a side controls a marker with a
  scoring unit within 3" and no enemy denial unit within 3". Vehicles neither score nor deny
  (``VEHICLES_DENY_40K7``); a unit Falling Back or embarked does neither.
- hh3 (Age of Darkness, Core Mission Primary Objectives): a unit with a model within 3" may
  control unless Stunned, Suppressed, Pinned or Routed, Locked in Combat, embarked, or with the
  Vehicle, Cavalry or Automata Type; when both sides may, the unit with the higher Tactical
  Strength (models within 3", Bulky counted once, plus X per model with Line (X)) holds it, a tie
  holds nobody.
- 40k11 (core rules, Objective Control): the side whose models within 3" have the higher total
  Objective Control holds it; Battle-shocked models count 0; equal totals hold nobody.
"""

from __future__ import annotations

import math
import re

from shapely.geometry import Point as ShapelyPoint

from ..match.mission_state import MarkerControl
from ..match.state import MatchState, Model, Side, Unit
from ..rules.geometry import shapes as g
from ..rules.wh40k7.types import is_vehicle
from ..rules.wh40k11.space import extent
from .model import ObjectiveMarker

CONTROL_RANGE = 3.0  # inches from the marker's centre, every edition
DEFAULT_BASE_MM = 25.0
VEHICLES_DENY_40K7 = False  # decided: a vehicle neither scores nor denies in 40k7
HH3_BLOCKING_STATUSES = ("stunned", "suppressed", "pinned", "routed")
HH3_BLOCKING_KEYWORDS = ("cavalry", "automata")
# 40k11 Objective Control when a unit's keywords give none ("oc:N" sets it) [decided].
DEFAULT_OC_40K11 = {"infantry": 2, "paragon": 2, "vehicle": 3, "walker": 3, "monster": 3}
BATTLE_SHOCKED = "battle_shocked"
_LINE = re.compile(r"^line(?::(\d+)|\s*\(\s*(\d+)\s*\))?$")
_OC = re.compile(r"^oc:(\d+)$")


def model_distance(model: Model, at: tuple[float, float]) -> float:
    """Inches from the edge of a model's footprint to a point (exact up to CONTROL_RANGE; beyond
    it, for a hull, a cheaper lower bound)."""
    centre = math.hypot(model.pos.x - at[0], model.pos.y - at[1])
    if model.hull is not None:
        reach = math.hypot(model.hull.length, model.hull.width) / 2
        if centre - reach > CONTROL_RANGE:
            return centre - reach  # a lower bound, enough to tell it is out of range
        hull = g.Hull(model.pos.x, model.pos.y, model.hull.length, model.hull.width, model.heading)
        return float(hull.polygon().distance(ShapelyPoint(at)))
    radius = (model.base_mm or DEFAULT_BASE_MM) / 25.4 / 2
    return max(0.0, centre - radius)


def frame_distance_40k11(unit: Unit, model: Model, at: tuple[float, float]) -> float:
    """40k11 17.02 Frame: inches from the closest point of the model to a point, measured as the
    40k11 rules measure it (``wh40k11.space.extent``): a FRAME model's hull and base together, a
    model with a base and no FRAME keyword its base, a model with neither a 32 mm base."""
    return float(g.as_geometry(extent(unit, model)).distance(ShapelyPoint(at)))


def models_in_range(unit: Unit, marker: ObjectiveMarker, edition: str = "") -> list[Model]:
    """The unit's live models within 3" of the marker (40k11: measured by 17.02 Frame)."""
    if edition == "40k11":
        return [
            m
            for m in unit.models.values()
            if m.alive and frame_distance_40k11(unit, m, marker.pos) <= CONTROL_RANGE
        ]
    return [m for m in unit.models.values() if m.alive and model_distance(m, marker.pos) <= CONTROL_RANGE]


def on_table(state: MatchState, unit: Unit) -> bool:
    mission = state.mission
    off = mission is not None and unit.id in mission.off_table
    return not unit.destroyed and unit.embarked_in is None and not off


def control(state: MatchState, markers: tuple[ObjectiveMarker, ...]) -> dict[str, MarkerControl]:
    """Marker id -> who holds it now and why."""
    out: dict[str, MarkerControl] = {}
    for marker in markers:
        near = [
            u
            for u in state.units.values()
            if on_table(state, u) and models_in_range(u, marker, state.edition)
        ]
        if state.edition == "40k7":
            holder, why = _control_40k7(near)
        elif state.edition == "hh3":
            holder, why = _control_hh3(state, near, marker)
        else:
            holder, why = _control_40k11(near, marker)
        out[marker.id] = MarkerControl(holder=holder, why=why, value=marker.value)
    return out


def _names(units: list[Unit]) -> str:
    return ", ".join(u.name for u in units)


def scores_or_denies_40k7(unit: Unit) -> bool:
    """40k7 Controlling Objective Markers: a scoring or a denial unit (what Linebreaker counts):
    not Falling Back, and not a vehicle (the core's notion: Armour Values, ``rules/wh40k7/types.py``)
    unless ``VEHICLES_DENY_40K7``."""
    return "falling_back" not in unit.statuses and (VEHICLES_DENY_40K7 or not is_vehicle(unit))


def _control_40k7(near: list[Unit]) -> tuple[Side | None, str]:
    scoring = {
        s: [u for u in near if u.side == s and "falling_back" not in u.statuses and not is_vehicle(u)]
        for s in ("a", "b")
    }
    denial = {s: [u for u in near if u.side == s and scores_or_denies_40k7(u)] for s in ("a", "b")}
    holders: list[Side] = [s for s in ("a", "b") if scoring[s] and not denial["b" if s == "a" else "a"]]
    if len(holders) == 1:
        s = holders[0]
        return s, f'side {s} has a scoring unit within 3" ({_names(scoring[s])}) and no enemy unit denies it'
    if (scoring["a"] and scoring["b"]) or (scoring["a"] and denial["b"]) or (scoring["b"] and denial["a"]):
        return None, f'contested: {_names(denial["a"])} (side a) and {_names(denial["b"])} (side b) within 3"'
    if near:
        return None, f'no scoring unit within 3" ({_names(near)} cannot score)'
    return None, 'no unit within 3"'


def line_value(unit: Unit) -> int:
    """hh3 Line (X): X (a bare "line" keyword is Line (1))."""
    for keyword in unit.keywords:
        found = _LINE.match(keyword.strip())
        if found:
            return int(found.group(1) or found.group(2) or 1)
    return 0


def tactical_strength(unit: Unit, marker: ObjectiveMarker) -> int:
    """hh3: models within 3" (a Bulky model counts once) plus X for each with Line (X)."""
    models = models_in_range(unit, marker)
    return len(models) * (1 + line_value(unit))


def _control_hh3(state: MatchState, near: list[Unit], marker: ObjectiveMarker) -> tuple[Side | None, str]:
    from ..rules.hh3.combat_lock import locked
    from ..rules.hh3.core import is_vehicle

    eligible = [
        u
        for u in near
        if not is_vehicle(u)
        and not any(u.has(k) for k in HH3_BLOCKING_KEYWORDS)
        and not any(s in u.statuses for s in HH3_BLOCKING_STATUSES)
        and not locked(state, u)
    ]
    best: dict[Side, tuple[int, Unit]] = {}
    for u in eligible:
        ts = tactical_strength(u, marker)
        if u.side not in best or ts > best[u.side][0]:
            best[u.side] = (ts, u)
    if not best:
        if near:
            return None, f'no unit within 3" may control it ({_names(near)})'
        return None, 'no unit within 3"'
    if len(best) == 1:
        only, (ts, u) = next(iter(best.items()))
        return only, f'side {only}: {u.name} within 3" (Tactical Strength {ts})'
    (ta, ua), (tb, ub) = best["a"], best["b"]
    if ta == tb:
        return None, f"contested: {ua.name} and {ub.name} have equal Tactical Strength {ta}"
    side: Side = "a" if ta > tb else "b"
    return side, f"side {side} wins the contest by Tactical Strength {max(ta, tb)} to {min(ta, tb)}"


def objective_control(unit: Unit) -> int:
    """40k11 OC per model: ``oc:N`` keyword, else the kind's default; Battle-shocked: 0."""
    if BATTLE_SHOCKED in unit.statuses:
        return 0
    for keyword in unit.keywords:
        found = _OC.match(keyword)
        if found:
            return int(found.group(1))
    return DEFAULT_OC_40K11.get(unit.kind, 1)


def _control_40k11(near: list[Unit], marker: ObjectiveMarker) -> tuple[Side | None, str]:
    total = {"a": 0, "b": 0}
    for u in near:
        total[u.side] += objective_control(u) * len(models_in_range(u, marker, "40k11"))
    if total["a"] == total["b"]:
        if total["a"] == 0:
            return None, 'no Objective Control within 3"'
        return None, f"contested: Objective Control {total['a']} to {total['b']}"
    side: Side = "a" if total["a"] > total["b"] else "b"
    return side, f"side {side}: Objective Control {total['a']} (a) to {total['b']} (b)"
