"""40k7 The Assault Phase, Charge: Move Chargers - the charging player places the chargers.

# 40k7 Charge [ext]: after a successful charge roll the initial charger (the model closest to
# the target) moves into base contact with the nearest enemy model of the target; then each
# other charging model moves up to the charge distance, into base contact with an enemy model of
# the target if it can, else staying in unit coherency (2"); charging models may not move within
# 1" of enemy units that are not charged. Walkers and Chariots charge the same way.

The charge pauses on a ``place_chargers`` decision of the charging side (docs/decisions.md)
whose proposal is the move the server made before players were asked: each model straight
towards the nearest target model, up to the roll, into base contact if it reaches
(``straight_moves``). The shared geometry and checks: ``rules/charging.py``.
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely.ops import nearest_points

from ...match.context import ApplyContext
from ...match.state import MatchState, Point, Unit
from ...match.turns import replace_unit
from .. import charging
from .. import geometry as g
from . import refs
from .geo import CONTACT_EPS, alive, all_terrain, footprint, on_table
from .movement import INFANTRY_COHERENCY
from .placement import ENEMY_GAP
from .squadrons import squadron_members

LIMITS = charging.ChargeLimits(
    rule=refs.CHARGE, contact=CONTACT_EPS, coherency=INFANTRY_COHERENCY, enemy_gap=ENEMY_GAP
)


def straight_moves(state: MatchState, unit: Unit, target: Unit, roll: float) -> dict[str, Point]:
    """The automatic charge move: each model straight towards the nearest target model, up to
    ``roll``, stopping in base contact (a model already touching stays)."""
    targets = [m for u in squadron_members(state, target) for m in alive(u)]
    out: dict[str, Point] = {}
    for m in alive(unit):
        fp = footprint(m)
        best = min(targets, key=lambda t: g.distance(fp, footprint(t)))
        d = g.distance(fp, footprint(best))
        step = min(roll, d)
        if step <= 0:
            out[m.id] = m.pos
            continue
        a, b = nearest_points(fp.polygon(), footprint(best).polygon())
        dx, dy = float(b.x) - float(a.x), float(b.y) - float(a.y)
        n = math.hypot(dx, dy) or 1.0
        out[m.id] = Point(m.pos.x + dx / n * step, m.pos.y + dy / n * step)
    return out


def scene(state: MatchState, unit: Unit, target: Unit, roll: float) -> charging.ChargeScene:
    """The charging unit's models, the charged unit (a squadron: every member), the models in
    the way and the enemy units not charged, for 40k7 Move Chargers."""
    charged = {u.id for u in squadron_members(state, target)}
    chargers = tuple((m.id, footprint(m)) for m in alive(unit))
    targets = tuple(footprint(m) for uid in sorted(charged) for m in alive(state.units[uid]))
    others: list[g.Footprint] = []
    shunned: list[g.Footprint] = []
    for other in state.units.values():
        if other.id == unit.id or other.id in charged or not on_table(other):
            continue
        into = others if other.side == unit.side else shunned
        into.extend(footprint(m) for m in alive(other))
    return charging.ChargeScene(
        chargers=chargers,
        targets=targets,
        others=tuple(others),
        shunned=tuple(shunned),
        impassable=tuple(p.polygon() for p in all_terrain(state) if p.has("impassable")),
        width=state.battlefield.width,
        height=state.battlefield.height,
        reach=roll,
        first=charging.initial_charger(chargers, targets),
    )


def place_chargers(state: MatchState, ctx: ApplyContext, unit: Unit, target: Unit, roll: float) -> MatchState:
    """40k7 Move Chargers: the charging side places its models (or takes the proposal)."""
    proposal = straight_moves(state, unit, target, roll)
    where = scene(state, unit, target, roll)
    ends = charging.decide_ends(
        ctx,
        unit,
        target,
        where,
        LIMITS,
        proposal,
        refs.CHARGE,
        f'not within {LIMITS.enemy_gap:g}" of another enemy unit',
    )
    models = dict(unit.models)
    for mid, pos in ends.items():
        if pos != models[mid].pos:
            models[mid] = replace(models[mid], pos=pos)
    return replace_unit(state, replace(state.units[unit.id], models=models))
