"""40k11 core, Charge phase: base contact where possible [ext].

# A charge move ends with a model within Engagement Range of the target and none within
# Engagement Range of another enemy unit (movement.py); besides, each charging model that can
# end in base contact with a model of the target must [ext].

The player moves the chargers with ``Move(kind="charge")`` (charge.py: the roll is made first,
so no decision pauses the move). A model of that move not in base contact (``BASE_CONTACT``) is
refused when a spot in base contact existed for it: within the charge roll, straight, of where
it started, with the other models where the move puts them, on no model, not within Engagement
Range of another enemy unit, and a move there the edition's own checks accept. The search is
the one 40k7 and hh3 use for their charge moves (``rules/charging.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Point, Unit
from .. import charging
from ..geometry import Footprint, distance
from .constants import (
    BASE_CONTACT,
    CHARGE_TARGET,
    CHARGER_CONTACT_WHOLE_MODEL,
    ENGAGEMENT_RANGE_HORIZONTAL,
    R_CHARGE,
)
from .space import footprint, geo_terrain, parts
from .units import flag_value, live_models, on_table

# 40k11 core: no unit coherency in this core (docs/rules-notes.md, 40k11 Left out): the shared
# check's coherency is never asked here.
LIMITS = charging.ChargeLimits(
    rule=R_CHARGE, contact=BASE_CONTACT, coherency=float("inf"), enemy_gap=ENGAGEMENT_RANGE_HORIZONTAL
)

# Accepts the move with one model's end changed to a spot (the edition's own route checks).
Verify = Callable[[str, Point], bool]


def _scene(state: MatchState, unit: Unit, target: Unit, roll: float) -> charging.ChargeScene:
    chargers = tuple((m.id, footprint(unit, m)) for m in live_models(unit))
    # 17.02 FRAME: base contact with and the gap to the whole model, its base included (``parts``).
    targets = tuple(fp for m in live_models(target) for fp in parts(target, m))
    others: list[Footprint] = []
    shunned: list[Footprint] = []
    for other in state.units.values():
        if other.id in (unit.id, target.id) or not on_table(other):
            continue
        if other.side == unit.side:
            others.extend(footprint(other, m) for m in live_models(other))
        else:
            shunned.extend(fp for m in live_models(other) for fp in parts(other, m))
    return charging.ChargeScene(
        chargers=chargers,
        targets=targets,
        others=tuple(others),
        shunned=tuple(shunned),
        impassable=tuple(p.polygon() for p in geo_terrain(state.terrain) if p.has("impassable")),
        width=state.battlefield.width,
        height=state.battlefield.height,
        reach=roll,
        first=chargers[0][0],
    )


def contact_refusal(
    state: MatchState,
    unit: Unit,
    roll: float,
    ends: dict[str, Footprint],
    verify: Verify,
    whole: Mapping[str, Sequence[Footprint]],
) -> Rejection | None:
    """40k11 Charge [ext]: the first model of the move that ends out of base contact with the
    target although a legal spot in base contact was within its reach; None if there is none.

    ``whole``: each charging model at its end as ``space.parts`` (17.02 FRAME: "measure to and
    from the closest point on that model (so not necessarily from its base, if it has one)"), so
    a FRAME charger is in base contact when any part of it, its base where it sticks out past its
    hull too, touches the target (``CHARGER_CONTACT_WHOLE_MODEL``); ``ends`` (the footprints
    collisions use) places the others while a spot is searched for one of them."""
    target = state.units.get(flag_value(unit, CHARGE_TARGET) or "")
    if target is None:
        return None
    scene = _scene(state, unit, target, roll)
    for mid, fp in ends.items():
        mine = whole.get(mid, [fp]) if CHARGER_CONTACT_WHOLE_MODEL else [fp]
        if min((distance(p, t) for p in mine for t in scene.targets), default=0.0) <= BASE_CONTACT:
            continue
        placed: Sequence[Footprint] = [o for k, o in ends.items() if k != mid]
        spot = charging.contact_spot(scene, LIMITS, mid, placed)
        if spot is not None and verify(mid, spot):
            return reject(
                "contact_possible",
                R_CHARGE,
                f"{mid} can reach base contact with {target.name} (e.g. at ({spot.x:.2f}, {spot.y:.2f})): a "
                "charging model that can must end in base contact",
                model=mid,
                x=spot.x,
                y=spot.y,
            )
    return None
