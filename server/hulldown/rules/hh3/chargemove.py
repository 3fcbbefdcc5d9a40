"""hh3 core, Charge Procedure step 5, Make Charge Move - the charging player places the chargers.

# hh3 core, Charge Move [ext]: the initial charger (the model closest to the target) moves up
# to the charge roll into base contact with the nearest target model; the other models move the
# same way, into base contact where they can, keeping unit coherency (2") if possible; models
# may move within any distance of the enemy, but touch an enemy unit that is not charged only
# when it cannot be avoided (that exception is not modelled: they may never touch one)
# [decided].

The charge pauses on a ``place_chargers`` decision of the charging side (docs/decisions.md)
whose proposal is the move the server made before players were asked: every model straight
towards the nearest target model, up to the roll, stopping in base contact (``towards``).
The shared geometry and checks: ``rules/charging.py``.
"""

from __future__ import annotations

import math

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Point, Unit
from .. import charging
from .. import geometry as g
from . import geom
from .core import COHERENCY, CONTACT, R_CORE_CHARGE, alive_models, units_on_table

# Charging models stop this far short of touching, so touching never reads as overlapping.
CONTACT_SLACK = 1e-6
# hh3 Charge Move: a charging model may not touch (come within CONTACT of) an enemy unit it
# does not charge [decided: the "unless unavoidable" exception is not modelled].
LIMITS = charging.ChargeLimits(rule=R_CORE_CHARGE, contact=CONTACT, coherency=COHERENCY, enemy_gap=CONTACT)


def towards(model: Model, target: Unit, reach: float) -> Point:
    """Straight towards the nearest point of the nearest target model, up to ``reach`` inches,
    stopping in base contact."""
    fp = geom.footprint(model)
    nearest = min(geom.unit_footprints(target), key=lambda other: g.distance(fp, other))
    gap = g.distance(fp, nearest)
    if gap <= CONTACT:
        return model.pos
    point = g.as_geometry(nearest).exterior.interpolate(
        g.as_geometry(nearest).exterior.project(g.as_geometry((model.pos.x, model.pos.y)))
    )
    dx, dy = float(point.x) - model.pos.x, float(point.y) - model.pos.y
    length = math.hypot(dx, dy)
    step = min(reach, max(0.0, gap - CONTACT_SLACK))
    if length == 0.0:
        return model.pos
    return Point(model.pos.x + dx / length * step, model.pos.y + dy / length * step)


def scene(state: MatchState, unit: Unit, target: Unit, roll: float) -> charging.ChargeScene:
    """The charging unit's models, the charged unit, the models in the way and the enemy units
    not charged, for the hh3 Charge Move."""
    chargers = tuple((m.id, geom.footprint(m)) for m in alive_models(unit))
    targets = tuple(geom.unit_footprints(target))
    others: list[g.Footprint] = []
    shunned: list[g.Footprint] = []
    for other in units_on_table(state):
        if other.id in (unit.id, target.id):
            continue
        (others if other.side == unit.side else shunned).extend(geom.unit_footprints(other))
    return charging.ChargeScene(
        chargers=chargers,
        targets=targets,
        others=tuple(others),
        shunned=tuple(shunned),
        impassable=tuple(p.polygon() for p in geom.terrain_pieces(state) if p.has("impassable")),
        width=state.battlefield.width,
        height=state.battlefield.height,
        reach=roll,
        first=charging.initial_charger(chargers, targets),
    )


def place_chargers(state: MatchState, ctx: ApplyContext, unit: Unit, target: Unit, roll: float) -> Unit:
    """hh3 Make Charge Move: the charging side places its models (or takes the proposal); the
    charging unit with its models moved."""
    proposal = {m.id: towards(m, target, roll) for m in alive_models(unit)}
    where = scene(state, unit, target, roll)
    ends = charging.decide_ends(
        ctx, unit, target, where, LIMITS, proposal, R_CORE_CHARGE, "touching no other enemy unit"
    )
    models = dict(unit.models)
    for mid, pos in ends.items():
        models[mid] = replace(models[mid], pos=pos)
    return replace(unit, models=models)
