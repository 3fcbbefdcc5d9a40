"""40k11 core rules, Transports: Destroyed Transport [ext].

When a TRANSPORT is destroyed, before it is removed, each unit aboard disembarks: its models are
set up wholly within 3" of the transport (wholly within 6" if they cannot be), not within
Engagement Range of enemy models; a model that cannot be set up is destroyed, and so is a unit
none of whose models can be. Then one D6 is rolled for each model set up: for each 1 the unit
suffers 1 mortal wound (allocated like an attack, 40k11 core, Allocate attack).

The owner places the models (docs/decisions.md): the destroying attack pauses on the
``place_emergency_disembark`` decision hh3 uses, carrying each model's legal area and the
server's proposal [decided]: in model id order, each model at the first free spot on rings round
the transport, nearest ring first (``PLACE_RING_STEP`` apart, spots ``PLACE_STEP`` apart along a
ring); wholly within 3" when the proposal places every model so, else within 6" - the limit an
answer is then checked against (``limits["within"]``).
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace
from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.decisions import with_areas
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, MatchState, Model, Placement, Point, Shape, Unit
from ...match.turns import replace_unit
from ..areas import centre_band, legal_centres, shapes
from ..geometry import Footprint, as_geometry, inside_battlefield, overlaps, within
from .constants import (
    DESTROYED_TRANSPORT_WOUND_ON,
    DISEMBARK_RANGE,
    DISEMBARKED,
    EMERGENCY_RANGE,
    ENGAGEMENT_RANGE_HORIZONTAL,
    EPS,
    PLACE_GAP,
    PLACE_RING_STEP,
    PLACE_STEP,
    R_DESTROYED_TRANSPORT,
)
from .space import extent, footprint, geo_terrain
from .transports import spot_problem, transport_shape
from .units import live_models, on_table, with_flags
from .wounds import inflict

DECISION_EMERGENCY = "place_emergency_disembark"  # the kind hh3 asks too (docs/decisions.md)
PROPOSAL = "proposal"
PLACE = "place"


@dataclass(frozen=True)
class Around:
    """What a model set up beside the destroyed transport keeps clear of, gathered once for the
    many spots tried: friendly models (not to stand on), enemy models (not within Engagement
    Range), impassable terrain, the battlefield's size."""

    friends: tuple[Footprint, ...]
    enemies: tuple[BaseGeometry, ...]
    impassable: tuple[BaseGeometry, ...]
    width: float
    height: float


def _around(state: MatchState, unit: Unit, transport: Unit) -> Around:
    friends: list[Footprint] = []
    foes: list[BaseGeometry] = []
    for other in state.units.values():
        if other.id in (unit.id, transport.id) or not on_table(other):
            continue
        for m in live_models(other):
            friends.append(footprint(other, m))
            if other.side != unit.side:
                foes.append(as_geometry(extent(other, m)))
    blocks = tuple(p.polygon() for p in geo_terrain(state.terrain) if p.has("impassable"))
    return Around(tuple(friends), tuple(foes), blocks, state.battlefield.width, state.battlefield.height)


def _free(around: Around, fp: Footprint, placed: list[Footprint]) -> bool:
    """A spot of ``_spots`` (off the transport and wholly within the limit by construction) where
    nothing else stops a model being set up."""
    if not inside_battlefield(fp, around.width, around.height):
        return False
    if any(overlaps(fp, b) for b in around.impassable):
        return False
    if any(overlaps(fp, o) for o in (*around.friends, *placed)):
        return False
    return not any(within(fp, e, ENGAGEMENT_RANGE_HORIZONTAL) for e in around.enemies)


def _spots(unit: Unit, model: Model, shape: BaseGeometry, reach: float) -> list[Point]:
    """Candidate centres on rings round the transport, nearest ring first [decided]: a centre
    ``offset`` from the transport, ``offset`` between r and ``reach`` - r, keeps a base of radius r
    off it and wholly within ``reach`` of it."""
    r = footprint(unit, model).reach
    out: list[Point] = []
    offset = r + PLACE_GAP
    while offset + r <= reach + EPS:
        ring = shape.buffer(offset).exterior
        steps = max(1, int(ring.length / PLACE_STEP))
        for i in range(steps):
            p = ring.interpolate(i * ring.length / steps)
            out.append(Point(float(p.x), float(p.y)))
        offset += PLACE_RING_STEP
    return out


def _first_free(
    around: Around, unit: Unit, model: Model, shape: BaseGeometry, reach: float, placed: list[Footprint]
) -> Point | None:
    for p in _spots(unit, model, shape, reach):
        if _free(around, footprint(unit, model, (p.x, p.y)), placed):
            return p
    return None


def propose(state: MatchState, transport: Unit, unit: Unit) -> tuple[float, dict[str, Point]]:
    """The server's placement [decided] and the limit it keeps: wholly within 3" when every model
    fits so, else within 6" (a model with no spot then is left out: destroyed)."""
    around = _around(state, unit, transport)
    shape = transport_shape(transport, dead_too=True)
    models = sorted(live_models(unit), key=lambda m: m.id)
    best: dict[str, Point] = {}
    for reach in (DISEMBARK_RANGE, EMERGENCY_RANGE):
        placed: list[Footprint] = []
        spots: dict[str, Point] = {}
        for m in models:
            p = _first_free(around, unit, m, shape, reach, placed)
            if p is not None:
                spots[m.id] = p
                placed.append(footprint(unit, m, (p.x, p.y)))
        best = spots
        if len(spots) == len(models):
            return reach, spots
    return EMERGENCY_RANGE, best


def legal_areas(state: MatchState, transport: Unit, unit: Unit, reach: float) -> dict[str, tuple[Shape, ...]]:
    """For each model, where its centre may go: wholly within ``reach`` of the transport, off it,
    not on another model, not within Engagement Range of an enemy, not in impassable terrain."""
    shape = transport_shape(transport, dead_too=True)
    keep_out: list[tuple[BaseGeometry, float]] = []
    for other in state.units.values():
        if other.id in (unit.id, transport.id) or not on_table(other):
            continue
        gap = ENGAGEMENT_RANGE_HORIZONTAL if other.side != unit.side else 0.0
        keep_out.extend((as_geometry(extent(other, m)), gap) for m in live_models(other))
    keep_out.extend((p.polygon(), 0.0) for p in geo_terrain(state.terrain) if p.has("impassable"))
    areas: dict[str, tuple[Shape, ...]] = {}
    for m in sorted(live_models(unit), key=lambda m: m.id):
        r = footprint(unit, m).reach
        band = centre_band(shape, r, max(0.0, reach - 2 * r))
        areas[m.id] = shapes(
            legal_centres(band, r, keep_out, state.battlefield.width, state.battlefield.height)
        )
    return areas


def check_placement(
    state: MatchState, transport: Unit, unit: Unit, reach: float, answer: Answer
) -> Rejection | None:
    """40k11 core rules, Transports, Destroyed Transport: every placed model wholly within the
    limit of the transport, not within Engagement Range of an enemy, on no model nor impassable
    terrain, on the battlefield; a model left out only when no spot is left for it."""
    if answer.choice == PROPOSAL:
        if answer.place:
            return reject(
                "place_with_proposal", R_DESTROYED_TRANSPORT, "give place only with the choice place"
            )
        return None
    alive = {m.id: m for m in live_models(unit)}
    unknown = sorted(set(answer.place) - set(alive))
    if unknown:
        return reject(
            "unknown_model",
            R_DESTROYED_TRANSPORT,
            f"{unknown[0]} is not a model of {unit.name} to place",
            model=unknown[0],
        )
    shape = transport_shape(transport, dead_too=True)
    placed: list[Footprint] = []
    for mid in sorted(answer.place):
        p = answer.place[mid]
        fp = footprint(unit, alive[mid], (p.x, p.y))
        problem = spot_problem(
            state, unit, alive[mid], fp, shape, reach, placed, {unit.id, transport.id}, R_DESTROYED_TRANSPORT
        )
        if problem is not None:
            return problem
        placed.append(fp)
    around = _around(state, unit, transport)
    for mid in sorted(set(alive) - set(answer.place)):
        spot = _first_free(around, unit, alive[mid], shape, reach, placed)
        if spot is not None:
            return reject(
                "model_placeable",
                R_DESTROYED_TRANSPORT,
                f"{mid} can still be set up (e.g. at ({spot.x:.2f}, {spot.y:.2f})): only a model that "
                "cannot be set up is destroyed",
                model=mid,
                x=round(spot.x, 3),
                y=round(spot.y, 3),
            )
    return None


def destroyed_transport(state: MatchState, tid: str, ctx: ApplyContext) -> MatchState:
    """40k11 core rules, Transports, Destroyed Transport: before the destroyed transport ``tid``
    is removed, every unit aboard disembarks (the owner places it), then rolls for its models."""
    transport = state.units[tid]
    for pid in transport.passengers:
        if pid in state.units:
            state = _disembark(state, transport, state.units[pid], ctx)
    return replace_unit(state, replace(state.units[tid], passengers=()))


def _disembark(state: MatchState, transport: Unit, unit: Unit, ctx: ApplyContext) -> MatchState:
    reach, proposal = propose(state, transport, unit)
    models = tuple(sorted(m.id for m in live_models(unit)))
    lost = [mid for mid in models if mid not in proposal]
    decision = Decision(
        id=f"emergency-{ctx.seq}-{unit.id}",
        side=unit.side,
        kind=DECISION_EMERGENCY,
        options=(PROPOSAL, PLACE),
        prompt=(
            f"{transport.name} is destroyed: set up {unit.name} wholly within {reach:g} in of it, not "
            f"within Engagement Range of an enemy (proposal: {len(proposal)} placed"
            + (f", {len(lost)} destroyed" if lost else "")
            + ")"
        ),
        rule=R_DESTROYED_TRANSPORT,
        proposal=PROPOSAL,
        placement=Placement(
            unit=unit.id,
            models=models,
            proposal=proposal,
            limits={"within": reach, "engagement_range": ENGAGEMENT_RANGE_HORIZONTAL},
        ),
    )
    answer = ctx.decide(
        decision,
        lambda given: check_placement(state, transport, unit, reach, given),
        lambda asked: with_areas(asked, legal_areas(state, transport, unit, reach)),
    )
    positions = answer.place if answer.choice == PLACE else proposal
    new_models = dict(unit.models)
    placed: list[str] = []
    gone: list[str] = []
    for mid in models:
        spot = positions.get(mid)
        if spot is None:
            new_models[mid] = replace(new_models[mid], alive=False, wounds=0)
            gone.append(mid)
        else:
            new_models[mid] = replace(new_models[mid], pos=spot)
            placed.append(mid)
    unit = with_flags(replace(unit, models=new_models, embarked_in=None), DISEMBARKED)
    ctx.log(
        f"{unit.name} disembarks from the destroyed {transport.name} (wholly within {reach:g} in): "
        f"{len(placed)} set up" + (f", {len(gone)} destroyed ({', '.join(gone)})" if gone else "") + ".",
        R_DESTROYED_TRANSPORT,
        placed=len(placed),
        lost=len(gone),
    )
    if not placed:
        ctx.log(f"{unit.name} is destroyed: no model could be set up.", R_DESTROYED_TRANSPORT)
        return replace_unit(state, replace(unit, destroyed=True))
    ones = 0
    for _ in placed:
        die = ctx.roll(
            "destroyed transport",
            f"{DESTROYED_TRANSPORT_WOUND_ON}: mortal wound",
            lambda v: "mortal wound" if v <= DESTROYED_TRANSPORT_WOUND_ON else "safe",
        )
        ones += die <= DESTROYED_TRANSPORT_WOUND_ON
    ctx.log(
        f"{unit.name}: {len(placed)} D6 rolled, {ones} mortal wound{'' if ones == 1 else 's'}.",
        R_DESTROYED_TRANSPORT,
        mortal_wounds=ones,
    )
    for _ in range(ones):
        if unit.destroyed:
            break
        unit, what = inflict(unit, 1, ctx)
        ctx.log(f"{unit.name} suffers 1 mortal wound: {what}.", R_DESTROYED_TRANSPORT)
    return replace_unit(state, unit)
