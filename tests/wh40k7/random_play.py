"""Random legal play for 40k7: candidate actions for the side to act, filtered by validation."""

from __future__ import annotations

import math
import random

from msgspec.structs import replace

from hulldown.match.actions import (
    Abandon,
    Action,
    Charge,
    Decide,
    Disembark,
    Embark,
    EndPhase,
    Fight,
    Fire,
    Move,
    Pivot,
    Shoot,
)
from hulldown.match.scenario import Scenario
from hulldown.match.state import MatchState, Mount, Point, Side, Unit
from hulldown.match.validate import validate
from hulldown.rules.wh40k7.geo import alive, footprint, on_table, unit_distance
from hulldown.rules.wh40k7.placement import place_models
from hulldown.rules.wh40k7.types import is_flyer, is_tank, is_vehicle, is_walker
from tests.decision_answers import random_answer

from .builders import dreadnought, flyer, infantry, krak, lascannon, rhino, ruin, speeder, vehicle, weapon

MAX_ACTIONS_PER_PHASE = 10


def battle_scenario() -> Scenario:
    """Two small armies with every vehicle type, on a 72 x 48 table with terrain."""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    bolter = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    lasgun = weapon("lg", "Lasgun", 24, 3, None, type="rapid_fire")
    ml = weapon("ml", "Missile launcher", 48, 8, 3)
    melta = weapon("mm", "Multi-melta", 24, 8, 1, rules=("melta",))
    fist = weapon("dccw", "Dreadnought close combat weapon", 0, 10, 2, type="melee")
    flamer = weapon("fl", "Heavy flamer", 8, 5, 4, type="assault", rules=("template",))
    cannon = weapon("bc", "Battle cannon", 72, 8, 3, type="ordnance", rules=("large_blast",))
    sponson_l = replace(hb, id="hb-l", mount=Mount(kind="sponson", side="left"))
    sponson_r = replace(hb, id="hb-r", mount=Mount(kind="sponson", side="right"))
    hull_las = replace(lascannon("hl"), mount=Mount(kind="hull", arc="front"))
    units: list[Unit] = [
        vehicle(
            "pa",
            "a",
            8,
            10,
            0,
            name="Predator",
            armour=(13, 11, 10),
            weapons=(lascannon(), sponson_l, sponson_r),
        ),
        replace(
            rhino("ra", "a", 8, 20, 0, weapons=(replace(bolter, id="storm", type="assault", shots=2),)),
            passengers=("ma",),
        ),
        replace(infantry("ma", "a", [(8, 20)] * 5, weapons=[(0, bolter), (1, flamer)]), embarked_in="ra"),
        dreadnought("dread", "a", 10, 30, weapons=(melta, fist)),
        speeder("ls1", "a", 6, 38, squadron="speeders", weapons=(replace(hb, id="hb"),)),
        speeder("ls2", "a", 6, 42, squadron="speeders", weapons=(replace(ml, id="ml"),)),
        infantry(
            "tac",
            "a",
            [(14, 14 + k * 1.2) for k in range(5)],
            weapons=[(0, ml), *((k, bolter) for k in range(1, 5))],
        ),
        vehicle(
            "lr",
            "b",
            44,
            10,
            180,
            name="Leman Russ",
            armour=(14, 13, 10),
            keywords=("tank", "heavy"),
            weapons=(cannon, hull_las),
        ),
        replace(
            vehicle(
                "trukk",
                "b",
                40,
                22,
                180,
                armour=(10, 10, 10),
                keywords=("fast", "open-topped", "transport"),
                capacity=12,
                weapons=(replace(hb, id="big"),),
            ),
            passengers=("boyz",),
        ),
        replace(
            infantry(
                "boyz",
                "b",
                [(40, 22)] * 6,
                ws=4,
                bs=2,
                s=3,
                t=4,
                i=2,
                a=2,
                ld=7,
                sv=6,
                weapons=[
                    (k, replace(bolter, id="shoota", strength=4, ap=6, type="assault", shots=2))
                    for k in range(6)
                ],
            ),
            embarked_in="trukk",
        ),
        flyer("vf", "b", 66, 40, 180, armour=(10, 10, 10), weapons=(lascannon("fl1"), krak("fl2"))),
        vehicle(
            "chariot",
            "b",
            36,
            32,
            180,
            keywords=("chariot", "fast", "open-topped"),
            ws=4,
            s=5,
            i=4,
            a=3,
            armour=(11, 10, 10),
            hp=2,
            weapons=(replace(hb, id="hbc"),),
        ),
        vehicle(
            "bb",
            "b",
            50,
            28,
            180,
            keywords=("super-heavy", "tank"),
            armour=(14, 13, 12),
            hp=9,
            length=7,
            width=4.5,
            weapons=(replace(cannon, id="bbc"), replace(hb, id="bbh")),
        ),
        infantry(
            "gd",
            "b",
            [(38, 8 + k * 1.1) for k in range(10)],
            ws=3,
            bs=3,
            s=3,
            t=3,
            i=3,
            ld=7,
            sv=5,
            weapons=[(k, lasgun) for k in range(10)],
        ),
    ]
    terrain = (
        ruin("ruin", 24, 20, 28, 26, save=4),
        ruin("woods", 22, 34, 28, 40, save=5, kinds=("difficult", "cover")),
        ruin("mines", 20, 4, 23, 7, save=6, kinds=("dangerous", "difficult")),
        ruin("rock", 30, 40, 33, 43, kinds=("impassable", "blocks_los")),
    )
    return Scenario(units=tuple(units), terrain=terrain)


def _nearest_enemy(state: MatchState, unit: Unit, vehicles_only: bool = False) -> Unit | None:
    enemies = [
        u
        for u in state.units.values()
        if u.side != unit.side and on_table(u) and (is_vehicle(u) or not vehicles_only)
    ]
    if not enemies or not alive(unit):
        return None
    return min(enemies, key=lambda e: unit_distance(unit, e))


def _random_move(rng: random.Random, unit: Unit, limit: float, kind: str = "normal") -> Move:
    lead = alive(unit)[0]
    angle = rng.uniform(0, 2 * math.pi)
    dist = rng.uniform(0.5, limit)
    end = Point(lead.pos.x + dist * math.cos(angle), lead.pos.y + dist * math.sin(angle))
    heading = math.degrees(angle) % 360 if lead.hull is not None and rng.random() < 0.7 else None
    return Move(unit.id, (end,), heading=heading, kind=kind)  # type: ignore[arg-type]


def _toward(unit: Unit, target: Unit, dist: float, kind: str) -> Move:
    lead = alive(unit)[0]
    tl = alive(target)[0]
    dx, dy = tl.pos.x - lead.pos.x, tl.pos.y - lead.pos.y
    n = math.hypot(dx, dy) or 1.0
    return Move(unit.id, (Point(lead.pos.x + dx / n * dist, lead.pos.y + dy / n * dist),), kind=kind)  # type: ignore[arg-type]


def _movement_candidates(state: MatchState, rng: random.Random, unit: Unit) -> list[Action]:
    out: list[Action] = []
    if unit.embarked_in is not None:
        transport = state.units[unit.embarked_in]
        if on_table(transport) and alive(transport):
            spots = place_models(
                state, unit.side, alive(unit), footprint(alive(transport)[0]), 6.0, False, {unit.id}
            )
            if all(p is not None for p in spots.values()):
                out.append(Disembark(unit.id, {k: v for k, v in spots.items() if v is not None}))
        return out
    if not on_table(unit):
        return out
    if is_flyer(unit):
        lead = alive(unit)[0]
        for _ in range(3):
            turn = rng.uniform(-90, 90) if rng.random() < 0.5 else 0.0
            heading = (lead.heading + turn) % 360
            dist = rng.uniform(18, 36)
            rad = math.radians(heading)
            end = Point(lead.pos.x + dist * math.cos(rad), lead.pos.y + dist * math.sin(rad))
            out.append(Move(unit.id, (end,), heading=heading))
        rad = math.radians(lead.heading)
        out.append(Move(unit.id, (Point(lead.pos.x + 18 * math.cos(rad), lead.pos.y + 18 * math.sin(rad)),)))
        return out
    vehicle_like = is_vehicle(unit) and not is_walker(unit)
    limit = 12.0 if vehicle_like else 6.0
    out.extend(_random_move(rng, unit, limit) for _ in range(3))
    if vehicle_like:
        out.append(Pivot(unit.id, rng.uniform(0, 360)))
    if unit.squadron is not None:
        members = [u for u in state.units.values() if u.squadron == unit.squadron and on_table(u)]
        angle, dist = rng.uniform(0, 2 * math.pi), rng.uniform(1, 12)
        pos = {
            m.id: Point(m.pos.x + dist * math.cos(angle), m.pos.y + dist * math.sin(angle))
            for u in members
            for m in alive(u)
        }
        out.append(Move(unit.id, (), positions=pos))
        for u in members:
            if "immobilised" in u.statuses:
                out.append(Abandon(unit.id, alive(u)[0].id))
    if is_tank(unit):
        enemy = _nearest_enemy(state, unit)
        if enemy is not None:
            d = min(12.0, unit_distance(unit, enemy) + 3)
            out.append(_toward(unit, enemy, d, "tank_shock"))
        target = _nearest_enemy(state, unit, vehicles_only=True)
        if target is not None:
            out.append(_toward(unit, target, min(12.0, unit_distance(unit, target) + 3), "ram"))
    if not is_vehicle(unit):
        for t in state.units.values():
            if t.side == unit.side and on_table(t) and t.profile.capacity:
                out.append(Embark(unit.id, t.id))
    return out


def _shooting_candidates(state: MatchState, rng: random.Random, unit: Unit) -> list[Action]:
    out: list[Action] = []
    weapons = [w for w in unit.weapons.values() if not w.destroyed and w.type != "melee" and w.range > 0]
    enemies = [u for u in state.units.values() if u.side != unit.side and on_table(u)]
    rng.shuffle(enemies)
    for target in enemies[:2]:
        if not weapons:
            break
        if is_vehicle(unit):
            chosen = weapons
        else:
            per_model: dict[str, str] = {}
            for w in weapons:
                per_model.setdefault(w.model, w.id)
            chosen = [unit.weapons[w] for w in per_model.values()]
        for pattern in ("first", "all", "none"):
            fires = tuple(
                Fire(w.id, target.id, snap=(pattern == "none") or (pattern == "first" and i > 0))
                for i, w in enumerate(chosen)
            )
            out.append(Shoot(unit.id, fires))
        # single weapons (when the others cannot fire)
        for w in chosen[:2]:
            out.append(Shoot(unit.id, (Fire(w.id, target.id),)))
            out.append(Shoot(unit.id, (Fire(w.id, target.id, snap=True),)))
    if on_table(unit) and alive(unit):
        out.append(_random_move(rng, unit, 6.0, "run"))
        out.append(_random_move(rng, unit, 6.0, "flat_out"))
    return out


def _assault_candidates(state: MatchState, unit: Unit) -> list[Action]:
    out: list[Action] = []
    if not on_table(unit) or not alive(unit):
        return out
    for e in state.units.values():
        if e.side == unit.side or not on_table(e):
            continue
        d = unit_distance(unit, e)
        if d <= 12:
            out.append(Charge(unit.id, e.id))
        if d <= 0.05:
            out.append(Fight(unit.id, e.id))
    return out


def legal_actions(state: MatchState, rng: random.Random) -> tuple[Side, list[Action]]:
    """The side to act and a sample of its legal actions (EndPhase first when legal)."""
    if state.pending is not None:
        d = state.pending
        if d.placement is not None or d.aim is not None:
            # docs/decisions.md: the proposal or a random legal placement / aim
            return d.side, [random_answer(state, rng)]
        return d.side, [Decide(d.id, opt) for opt in d.options]
    side = state.active
    cands: list[Action] = [EndPhase()]
    for unit in state.units.values():
        if unit.side != side or unit.destroyed:
            continue
        if state.phase == "movement":
            cands.extend(_movement_candidates(state, rng, unit))
        elif state.phase == "shooting":
            cands.extend(_shooting_candidates(state, rng, unit))
        else:
            cands.extend(_assault_candidates(state, unit))
    return side, [a for a in cands if validate(state, side, a) is None]


def choose(state: MatchState, rng: random.Random, actions_this_phase: int) -> tuple[Side, Action]:
    side, legal = legal_actions(state, rng)
    assert legal, f"no legal action in {state.phase} for side {side}"
    if state.pending is not None:
        return side, rng.choice(legal)
    end = [a for a in legal if isinstance(a, EndPhase)]
    others = [a for a in legal if not isinstance(a, EndPhase)]
    if end and (not others or actions_this_phase >= MAX_ACTIONS_PER_PHASE or rng.random() < 0.12):
        return side, end[0]
    return side, rng.choice(others)
