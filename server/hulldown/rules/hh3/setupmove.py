"""hh3 core, Charge Procedure, Make Set-up Move - the chargers close in before the charge roll.

# hh3 core, Charge Procedure, Make Set-up Move [ext]: after the charge is declared and checked,
# and before any Volley Attacks, a charge that is not Disordered moves the charging models
# towards the charged unit by a distance set by Initiative + Movement (``SETUP_TABLE``). The move
# ignores difficult terrain, may go within any distance of the enemy and may end in base contact
# with the charged unit (never with another enemy unit); a model moves as far as it can unless
# it reaches base contact, the others as close as they can, keeping coherency if possible. If a
# charging model is in base contact with the charged unit afterwards the charge is complete:
# no Volley Attacks and no charge roll. Otherwise the charge roll is compared with the gap left.
#
# Simplified [decided]: the move is always made (the published move is optional; a charging
# player practically always wants it) and made by the server, not placed by the player: every
# model goes straight towards the nearest point of the nearest target model (``towards``, the
# same move as the ``place_chargers`` proposal), the model closest to the charged unit first;
# where the full straight move would end illegally (on another model, in impassable terrain, off
# the table, touching an enemy unit not charged) the model goes the longest legal fraction of it
# (``SETUP_STEPS``) or stays put; coherency is not enforced beyond what a common straight move
# keeps. The whole unit moves the distance of its living model with the lowest Initiative +
# Movement (``setup_distance``), so no model outruns the unit.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.state import MatchState, Model, Point, Unit
from .. import charging
from .. import geometry as g
from . import geom
from .chargemove import LIMITS, scene, towards
from .core import alive_models, current_value, model_profile

# hh3 core, Charge Procedure, Make Set-up Move, the Set-up Move distance table [ext]: a total of
# Initiative + Movement up to the first number moves the second (inches); 20 or more moves
# ``SETUP_TOP``.
SETUP_TABLE: tuple[tuple[int, float], ...] = ((6, 1.0), (9, 2.0), (11, 3.0), (13, 4.0), (19, 5.0))
SETUP_TOP = 6.0
# A model whose full straight set-up move would end illegally tries 11/12, 10/12, ... of it and
# takes the first legal end, else stays put [decided].
SETUP_STEPS = 12


def setup_distance_for(total: int) -> float:
    """hh3 core, Charge Procedure, Make Set-up Move [ext]: the set-up distance for a total of
    Initiative + Movement (the Set-up Move distance table)."""
    for top, move in SETUP_TABLE:
        if total <= top:
            return move
    return SETUP_TOP


def initiative_and_movement(unit: Unit, model: Model) -> int:
    """hh3 core, Charge Procedure, Make Set-up Move [ext]: a model's current Initiative plus its
    Movement, the total the set-up distance table reads."""
    return current_value(unit, model, "i") + int(model_profile(unit, model).m)


def unit_total(unit: Unit) -> int:
    """hh3 core, Charge Procedure, Make Set-up Move [decided]: the unit reads the table with its
    living model of lowest Initiative + Movement, so no model outruns the unit."""
    totals = [initiative_and_movement(unit, m) for m in alive_models(unit)]
    return min(totals) if totals else 0


def setup_distance(unit: Unit) -> float:
    """hh3 core, Charge Procedure, Make Set-up Move: how far the charging unit's models move."""
    return setup_distance_for(unit_total(unit))


def setup_end(where: charging.ChargeScene, model: Model, target: Unit, placed: list[g.Footprint]) -> Point:
    """hh3 core, Charge Procedure, Make Set-up Move [decided]: where one model ends - straight
    towards the nearest target model, as far as is legal (``SETUP_STEPS``), else where it is."""
    start = geom.footprint(model)
    for k in range(SETUP_STEPS, 0, -1):
        end = towards(model, target, where.reach * k / SETUP_STEPS)
        if charging.end_problem(where, LIMITS, model.id, charging.moved_to(start, end), placed) is None:
            return end
    return model.pos


def setup_move(state: MatchState, unit: Unit, target: Unit, reach: float) -> Unit:
    """hh3 core, Charge Procedure, Make Set-up Move [decided]: the charging unit with every living
    model moved towards ``target`` by up to ``reach``, the model closest to it first."""
    where = scene(state, unit, target, reach)
    models = dict(unit.models)
    order = sorted(alive_models(unit), key=lambda m: (charging.to_target(where, geom.footprint(m)), m.id))
    for model in order:
        placed = [geom.footprint(m) for m in models.values() if m.alive and m.id != model.id]
        models[model.id] = replace(model, pos=setup_end(where, model, target, placed))
    return replace(unit, models=models)
