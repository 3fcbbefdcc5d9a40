"""Warhammer 40,000 7th edition: the edition's rules object (foundation subset).

Implemented so far: vehicle movement distance (Stationary / Combat / Cruising Speed),
pivots, Immobilised, shooting one weapon at a vehicle with range, to-hit, armour penetration,
glancing and penetrating hits and Hull Points. The complete rule set is tracked in its own issue.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from msgspec.structs import replace
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from ...match.actions import Action, EndPhase, Move, Pivot, Shoot
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Side, Unit
from ...match.turns import add_flag, replace_unit
from ..phases import PHASES_40K7, end_phase

COMBAT_SPEED = 6.0  # 40k7 Vehicles, "Vehicles and Movement": up to 6" is Combat Speed
CRUISING_SPEED = 12.0  # more than 6" and up to 12" is Cruising Speed


def footprint(model: Model) -> Polygon:
    """The model's footprint: its hull rectangle, or its base circle (25.4 mm = 1")."""
    if model.hull is not None:
        half_l, half_w = model.hull.length / 2, model.hull.width / 2
        rad = math.radians(model.heading)
        c, s = math.cos(rad), math.sin(rad)
        corners = [(half_l, half_w), (half_l, -half_w), (-half_l, -half_w), (-half_l, half_w)]
        return Polygon([(model.pos.x + x * c - y * s, model.pos.y + x * s + y * c) for x, y in corners])
    radius = (model.base_mm or 25.0) / 25.4 / 2
    return ShapelyPoint(model.pos.x, model.pos.y).buffer(radius, 64)


def facing_hit(target: Model, fx: float, fy: float) -> str:
    """40k7 Vehicles, "Vehicle facing and armour values": the two diagonals through the hull's
    corners split the ground into front, side and rear zones; the firer's zone is the facing hit."""
    assert target.hull is not None
    rad = math.radians(target.heading)
    dx, dy = fx - target.pos.x, fy - target.pos.y
    along = dx * math.cos(rad) + dy * math.sin(rad)
    across = -dx * math.sin(rad) + dy * math.cos(rad)
    # Inside the front zone when |across| / length-half <= along / width-half scaled by the diagonal.
    half_l, half_w = target.hull.length / 2, target.hull.width / 2
    if abs(across) * half_l <= along * half_w:
        return "front"
    if abs(across) * half_l <= -along * half_w:
        return "rear"
    return "side"


def to_hit_target(bs: int) -> int:
    """40k7 Shooting, "Roll To Hit": the score needed is 7 - BS (BS1: 6+, BS5: 2+)."""
    return max(2, 7 - bs)


class Rules:
    edition = "40k7"
    phases = PHASES_40K7

    def validate(self, state: MatchState, side: Side, action: Action) -> Rejection | None:
        match action:
            case EndPhase():
                return None
            case Move():
                return self._validate_move(state, action)
            case Pivot():
                unit = state.units[action.unit]
                if state.phase != "movement":
                    return reject(
                        "wrong_phase",
                        "40k7 Movement",
                        f"pivots happen in the Movement phase, not {state.phase}",
                    )
                if "immobilised" in unit.statuses:
                    return reject(
                        "immobilised",
                        "40k7 Vehicles, Movement",
                        f"{unit.name} is Immobilised: it cannot even pivot",
                    )
                return None
            case Shoot():
                return self._validate_shoot(state, action)
            case _:
                return reject(
                    "unsupported_action", "40k7", f"{type(action).__name__} is not implemented for 40k7 yet"
                )

    def _validate_move(self, state: MatchState, action: Move) -> Rejection | None:
        unit = state.units[action.unit]
        if state.phase != "movement":
            return reject(
                "wrong_phase", "40k7 Movement", f"units move in the Movement phase, not {state.phase}"
            )
        if action.kind != "normal":
            return reject("unsupported_action", "40k7", f"{action.kind} moves are not implemented yet")
        if unit.flag("moved"):
            return reject("already_moved", "40k7 Movement", f"{unit.name} has already moved this phase")
        if "immobilised" in unit.statuses:
            return reject(
                "immobilised", "40k7 Vehicles, Movement", f"{unit.name} is Immobilised and cannot move"
            )
        if not action.path:
            return reject("empty_path", "40k7 Movement", "a move needs at least one waypoint")
        lead = next(iter(unit.models.values()))
        length = _path_length(lead, action)
        limit = CRUISING_SPEED if unit.kind == "vehicle" else unit.profile.m or 6.0
        if length > limit + 1e-9:
            return reject(
                "too_far",
                "40k7 Vehicles, Movement",
                f"path {length:.2f} in > {limit:g} in allowed",
                distance=length,
                limit=limit,
            )
        bf = state.battlefield
        for point in action.path:
            if not (0 <= point.x <= bf.width and 0 <= point.y <= bf.height):
                return reject(
                    "off_table", "40k7 Movement", f"waypoint ({point.x}, {point.y}) is off the battlefield"
                )
        return None

    def _validate_shoot(self, state: MatchState, action: Shoot) -> Rejection | None:
        unit = state.units[action.unit]
        if state.phase != "shooting":
            return reject(
                "wrong_phase", "40k7 Shooting", f"units shoot in the Shooting phase, not {state.phase}"
            )
        if unit.flag("shot"):
            return reject("already_shot", "40k7 Shooting", f"{unit.name} has already shot this phase")
        if not action.fire:
            return reject("no_weapons", "40k7 Shooting", "choose at least one weapon to fire")
        targets = {f.target for f in action.fire}
        if len(targets) > 1:
            return reject(
                "one_target",
                "40k7 Vehicles, Shooting",
                "all of a vehicle's weapons must fire at a single target unit",
                targets=len(targets),
            )
        for fire in action.fire:
            weapon = unit.weapons.get(fire.weapon)
            if weapon is None or weapon.destroyed:
                return reject(
                    "unknown_weapon", "40k7 Shooting", f"{unit.name} has no working weapon {fire.weapon!r}"
                )
            target = state.units.get(fire.target)
            if target is None or target.destroyed:
                return reject("unknown_target", "40k7 Shooting", f"no target unit {fire.target!r}")
            if target.side == unit.side:
                return reject("friendly_target", "40k7 Shooting", "you cannot shoot at your own units")
            shooter = unit.models[weapon.model]
            distance = min(
                footprint(shooter).distance(footprint(m)) for m in target.models.values() if m.alive
            )
            if distance > weapon.range + 1e-9:
                return reject(
                    "out_of_range",
                    "40k7 Shooting, Range",
                    f"target {distance:.1f} in away, weapon range {weapon.range:g} in",
                    distance=distance,
                    range=weapon.range,
                )
        return None

    def apply(self, state: MatchState, side: Side, action: Action, ctx: ApplyContext) -> MatchState:
        match action:
            case EndPhase():
                return end_phase(state, self.phases, ctx)
            case Move():
                return self._apply_move(state, action, ctx)
            case Pivot():
                unit = state.units[action.unit]
                models = {mid: replace(m, heading=action.heading % 360) for mid, m in unit.models.items()}
                ctx.log(
                    f"{unit.name} pivots to {action.heading % 360:g} degrees (counts as Stationary).",
                    "40k7 Vehicles, Movement",
                )
                return replace_unit(state, replace(unit, models=models))
            case Shoot():
                return self._apply_shoot(state, action, ctx)
            case _:
                return state

    def _apply_move(self, state: MatchState, action: Move, ctx: ApplyContext) -> MatchState:
        unit = state.units[action.unit]
        lead = next(iter(unit.models.values()))
        length = _path_length(lead, action)
        end = action.path[-1]
        dx, dy = end.x - lead.pos.x, end.y - lead.pos.y
        models = {}
        for mid, m in unit.models.items():
            heading = action.heading % 360 if action.heading is not None else m.heading
            models[mid] = replace(m, pos=type(m.pos)(m.pos.x + dx, m.pos.y + dy), heading=heading)
        speed = (
            "Stationary" if length == 0 else "Combat Speed" if length <= COMBAT_SPEED else "Cruising Speed"
        )
        moved = add_flag(replace(unit, models=models, moved=unit.moved + length), "moved")
        ctx.log(f"{unit.name} moves {length:.1f} in ({speed}).", "40k7 Vehicles, Movement")
        return replace_unit(state, moved)

    def _apply_shoot(self, state: MatchState, action: Shoot, ctx: ApplyContext) -> MatchState:
        unit = state.units[action.unit]
        for fire in action.fire:
            weapon = unit.weapons[fire.weapon]
            target = state.units[fire.target]
            if target.destroyed:
                continue
            need = to_hit_target(unit.profile.bs)
            for _ in range(weapon.shots):
                hit = ctx.roll("to hit", f"{need}+", _hit_judge(need))
                if hit < need:
                    ctx.log(
                        f"{unit.name}'s {weapon.name} misses {target.name}.", "40k7 Shooting, Roll To Hit"
                    )
                    continue
                target = self._penetrate(state, unit, weapon.strength, weapon.ap, weapon.model, target, ctx)
                state = replace_unit(state, target)
                if target.destroyed:
                    break
        return replace_unit(state, add_flag(state.units[unit.id], "shot"))

    def _penetrate(
        self,
        state: MatchState,
        unit: Unit,
        strength: int,
        ap: int | None,
        model_id: str,
        target: Unit,
        ctx: ApplyContext,
    ) -> Unit:
        model = next(m for m in target.models.values() if m.alive)
        armour = target.profile.armour
        if armour is None or model.hull is None:
            ctx.log(f"{target.name} is hit (non-vehicle targets come with the full rules).", "40k7")
            return target
        shooter = unit.models[model_id]
        facing = facing_hit(model, shooter.pos.x, shooter.pos.y)
        value = {"front": armour.front, "side": armour.side, "rear": armour.rear}[facing]
        die = ctx.roll("armour penetration", f"S{strength} vs AV{value}")
        total = die + strength
        # 40k7 Vehicles, "Armour Penetration": lower none, equal glancing, higher penetrating.
        if total < value:
            ctx.set_outcome("no effect")
            ctx.log(f"{total} vs {facing} armour {value}: no effect.", "40k7 Vehicles, Armour Penetration")
            return target
        hp = max(0, target.hp - 1)
        if total == value:
            ctx.set_outcome("glancing")
            ctx.log(
                f"{total} vs {facing} armour {value}: glancing hit, {hp} HP left.",
                "40k7 Vehicles, Glancing Hits",
            )
            return _with_hp(target, hp)
        ctx.set_outcome("penetrating")
        ctx.log(
            f"{total} vs {facing} armour {value}: penetrating hit, {hp} HP left.",
            "40k7 Vehicles, Penetrating Hits",
        )
        return _with_hp(target, hp)


def _hit_judge(need: int) -> Callable[[int], str]:
    return lambda v: "hit" if v >= need else "miss"


def _with_hp(target: Unit, hp: int) -> Unit:
    if hp == 0:
        return replace(target, hp=0, destroyed=True, wreck=True)
    return replace(target, hp=hp)


def _path_length(lead: Model, action: Move) -> float:
    total = 0.0
    x, y = lead.pos.x, lead.pos.y
    for p in action.path:
        total += math.hypot(p.x - x, p.y - y)
        x, y = p.x, p.y
    return total


RULES = Rules()
