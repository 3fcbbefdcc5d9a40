"""hh3 Transport sub-type, Emergency Disembarkation: the passengers' owner places them.

# hh3 Transport sub-type, Emergency Disembarkation [seed]: when a transport is destroyed its
# passengers make an Emergency Disembarkation: each model is placed in contact with the transport's
# hull, not within 1" of an enemy model nor in impassable terrain (unit coherency is not needed); a
# model that cannot be placed is removed as a casualty; then the unit takes a Cool check and is
# Pinned if it fails.

The owner places the models (docs/decisions.md): the reducer pauses the destroying attack on a
``place_emergency_disembark`` decision that carries each model's legal area and the server's
proposal, the placement it made before players were asked (in model id order, each model at the
first free position going round the hull from the ring's start: ``transports.candidates``).
"""

from __future__ import annotations

from msgspec.structs import replace
from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.decisions import with_areas
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, MatchState, Model, Placement, Point, Shape, Unit
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from ..areas import centre_band, legal_centres, shapes
from . import geom, statuses
from .core import CONTACT, ENEMY_GAP, F_DISEMBARKED, R_EMERGENCY, alive_models, units_on_table, vehicle_model
from .transports import Surroundings, blocked, blocked_in, candidates, surroundings

DECISION_EMERGENCY = "place_emergency_disembark"
PROPOSAL = "proposal"
PLACE = "place"


def emergency_disembark(state: MatchState, tid: str, ctx: ApplyContext) -> MatchState:
    """hh3 Transport sub-type, Emergency Disembarkation: every passenger unit of transport ``tid``
    is placed by its owner (or lost), then takes its Cool check; nothing of the destroying attack
    carries over to it."""
    transport = state.units[tid]
    for pid in transport.passengers:
        state = _disembark_unit(state, transport, state.units[pid], ctx)
    return replace_unit(state, replace(state.units[tid], passengers=()))


def _disembark_unit(state: MatchState, transport: Unit, unit: Unit, ctx: ApplyContext) -> MatchState:
    decision = placement_decision(state, transport, unit, ctx.seq)
    answer = ctx.decide(
        decision,
        lambda given: check_placement(state, transport, unit, given),
        lambda asked: with_areas(asked, legal_areas(state, transport, unit)),
    )
    return _place(state, transport, unit, _positions(decision, answer), ctx)


def placement_decision(state: MatchState, transport: Unit, unit: Unit, seq: int) -> Decision:
    """The decision the owner of ``unit`` answers: the proposal and the limits; the legal areas
    are added (``legal_areas``) only when the match pauses on it to show it (docs/decisions.md)."""
    models = sorted(m.id for m in alive_models(unit))
    proposal = propose(state, transport, unit)
    lost = [mid for mid in models if mid not in proposal]
    prompt = (
        f"{unit.name} makes an Emergency Disembarkation from the destroyed {transport.name}: place "
        f'each model in contact with its hull, not within {ENEMY_GAP:g}" of an enemy nor in '
        f"impassable terrain (proposal: {len(proposal)} placed"
        + (f", {len(lost)} lost" if lost else "")
        + ")"
    )
    return Decision(
        id=f"emergency-{seq}-{unit.id}",
        side=unit.side,
        kind=DECISION_EMERGENCY,
        options=(PROPOSAL, PLACE),
        prompt=prompt,
        rule=R_EMERGENCY,
        proposal=PROPOSAL,
        placement=Placement(
            unit=unit.id,
            models=tuple(models),
            proposal=proposal,
            limits={"contact": CONTACT, "enemy_gap": ENEMY_GAP},
        ),
    )


def propose(state: MatchState, transport: Unit, unit: Unit) -> dict[str, Point]:
    """The server's placement: in model id order, each model at the first free position going
    round the hull (``transports.candidates``); a model with none is left out (lost).

    The positions round the hull depend only on a base's size, and for two bases of one size
    every position before the one the first took was blocked for it - by what blocks the second
    too, which also has the first to avoid - so the second's search goes on from there: the
    same positions as trying every one from the start, without trying them again."""
    placed: list[g.Footprint] = []
    spots: dict[str, Point] = {}
    around = surroundings(state, {unit.id, transport.id})
    rings: dict[float, list[Point]] = {}  # base radius -> its positions round the hull
    resume: dict[float, int] = {}  # base radius -> where the next search of that size starts
    for mid in sorted(m.id for m in alive_models(unit)):
        model = unit.models[mid]
        radius = geom.radius(model)
        ring = rings.get(radius)
        if ring is None:
            ring = rings[radius] = candidates(transport, model)
        k = resume.get(radius, 0)
        while k < len(ring) and blocked_in(around, geom.at(model, ring[k]), unit.side, placed) is not None:
            k += 1
        resume[radius] = k + 1
        if k < len(ring):
            spots[mid] = ring[k]
            placed.append(geom.at(model, ring[k]))
    return spots


def _free_spot(
    around: Surroundings, transport: Unit, unit: Unit, model: Model, placed: list[g.Footprint]
) -> Point | None:
    return next(
        (
            p
            for p in candidates(transport, model)
            if blocked_in(around, geom.at(model, p), unit.side, placed) is None
        ),
        None,
    )


def legal_areas(state: MatchState, transport: Unit, unit: Unit) -> dict[str, tuple[Shape, ...]]:
    """For each model, where its centre may go: touching the hull (within CONTACT), bases not
    overlapping another model, not within ENEMY_GAP of an enemy, not in impassable terrain."""
    hull = geom.hull(vehicle_model(transport)).polygon()
    keep_out: list[tuple[BaseGeometry, float]] = []
    for other in units_on_table(state):
        if other.id in (unit.id, transport.id):
            continue
        gap = ENEMY_GAP if other.side != unit.side else 0.0
        keep_out.extend((fp.polygon(), gap) for fp in geom.unit_footprints(other))
    keep_out.extend((p.polygon(), 0.0) for p in geom.terrain_pieces(state) if p.has("impassable"))
    by_radius: dict[float, tuple[Shape, ...]] = {}
    areas: dict[str, tuple[Shape, ...]] = {}
    for model in sorted(alive_models(unit), key=lambda m: m.id):
        r = geom.radius(model)
        if r not in by_radius:
            band = centre_band(hull, r, CONTACT)
            width, height = state.battlefield.width, state.battlefield.height
            by_radius[r] = shapes(legal_centres(band, r, keep_out, width, height))
        areas[model.id] = by_radius[r]
    return areas


def _positions(decision: Decision, answer: Answer) -> dict[str, Point]:
    if answer.choice == PLACE:
        return answer.place
    return dict(decision.placement.proposal) if decision.placement is not None else {}


def check_placement(state: MatchState, transport: Unit, unit: Unit, answer: Answer) -> Rejection | None:
    """hh3 Transport sub-type, Emergency Disembarkation: every placed model touches the hull, is not
    within 1" of an enemy, not in impassable terrain, not on another model, on the table; a model
    left out is lost only when no legal position remains for it. Refusals give the numbers."""
    if answer.choice == PROPOSAL:
        if answer.place:
            return reject("place_with_proposal", R_EMERGENCY, "give place only with the choice place")
        return None
    alive = {m.id for m in alive_models(unit)}
    unknown = sorted(set(answer.place) - alive)
    if unknown:
        return reject(
            "unknown_model",
            R_EMERGENCY,
            f"{unknown[0]} is not a model of {unit.name} to place (models: {', '.join(sorted(alive))})",
            model=unknown[0],
        )
    hull = geom.hull(vehicle_model(transport))
    placed: list[g.Footprint] = []
    for mid in sorted(answer.place):
        model, pos = unit.models[mid], answer.place[mid]
        fp = geom.at(model, pos)
        problem = _spot_problem(state, transport, unit, mid, pos, fp, hull, placed)
        if problem is not None:
            return problem
        placed.append(fp)
    around = surroundings(state, {unit.id, transport.id})
    for mid in sorted(alive - set(answer.place)):
        spot = _free_spot(around, transport, unit, unit.models[mid], placed)
        if spot is not None:
            return reject(
                "model_placeable",
                R_EMERGENCY,
                f"{mid} can still be placed (e.g. at ({spot.x:.2f}, {spot.y:.2f})): only a model that "
                "cannot be placed is removed as a casualty",
                model=mid,
                x=round(spot.x, 3),
                y=round(spot.y, 3),
            )
    return None


def _spot_problem(
    state: MatchState,
    transport: Unit,
    unit: Unit,
    mid: str,
    pos: Point,
    fp: g.Footprint,
    hull: g.Hull,
    placed: list[g.Footprint],
) -> Rejection | None:
    where = f"{mid} at ({pos.x:g}, {pos.y:g})"
    if g.overlaps(fp, hull):
        return reject("overlaps_hull", R_EMERGENCY, f"{where} stands on {transport.name}'s hull", model=mid)
    to_hull = g.distance(fp, hull)
    if to_hull > CONTACT + g.EPS:
        return reject(
            "not_in_contact",
            R_EMERGENCY,
            f'{where} is {to_hull:.2f}" from {transport.name}\'s hull: it must touch it (within {CONTACT:g}")',
            model=mid,
            distance=round(to_hull, 3),
            limit=CONTACT,
        )
    why = blocked(state, fp, unit.side, placed, {unit.id, transport.id})
    if why == "too_close_to_enemy":
        enemy = min(
            g.distance(fp, other)
            for u in units_on_table(state)
            if u.side != unit.side
            for other in geom.unit_footprints(u)
        )
        return reject(
            "too_close_to_enemy",
            R_EMERGENCY,
            f'{where} is {enemy:.2f}" from an enemy model: not within {ENEMY_GAP:g}"',
            model=mid,
            distance=round(enemy, 3),
            limit=ENEMY_GAP,
        )
    if why == "overlaps_model":
        return reject("overlaps_model", R_EMERGENCY, f"{where} overlaps another model", model=mid)
    if why == "impassable":
        return reject("impassable", R_EMERGENCY, f"{where} is in impassable terrain", model=mid)
    if why is not None:
        return reject("off_table", R_EMERGENCY, f"{where} is off the battlefield", model=mid)
    return None


def _place(
    state: MatchState, transport: Unit, unit: Unit, positions: dict[str, Point], ctx: ApplyContext
) -> MatchState:
    """Put the models where they were placed (the others are casualties), then the Cool check."""
    models = dict(unit.models)
    placed: list[str] = []
    lost: list[str] = []
    for mid in sorted(m.id for m in alive_models(unit)):
        spot = positions.get(mid)
        if spot is None:
            models[mid] = replace(models[mid], alive=False)
            lost.append(mid)
        else:
            models[mid] = replace(models[mid], pos=spot)
            placed.append(mid)
    unit = add_flag(replace(unit, models=models, embarked_in=None), F_DISEMBARKED)
    ctx.log(
        f"{unit.name} makes an Emergency Disembarkation from {transport.name}: "
        f"{len(placed)} placed, {len(lost)} lost{' (' + ', '.join(lost) + ')' if lost else ''}.",
        R_EMERGENCY,
        placed=len(placed),
        lost=len(lost),
    )
    if not placed:
        ctx.log(f"{unit.name} is destroyed: no model could be placed.", R_EMERGENCY)
        return replace_unit(state, replace(unit, destroyed=True))
    if not statuses.cool_check(unit, ctx, "Emergency Disembarkation"):
        unit = statuses.gain(unit, statuses.PINNED)
        ctx.log(f"{unit.name} fails its Cool check and is Pinned.", R_EMERGENCY)
    else:
        ctx.log(f"{unit.name} passes its Cool check.", R_EMERGENCY)
    return replace_unit(state, unit)
