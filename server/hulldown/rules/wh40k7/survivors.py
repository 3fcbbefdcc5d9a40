"""40k7 Vehicles, Transports: Effects of Damage on Passengers - the owner places the survivors.

# 40k7 Vehicles, Transports: the passengers of a Wrecked transport disembark, placed within 3" of
# its hull; of a transport that Explodes!, a Flyer that Crashes and Burns or suffers Catastrophic
# Damage, they are placed where the vehicle was; a model that cannot be placed is a casualty.

The owner places the models (docs/decisions.md): the reducer pauses the destroying attack on a
``place_survivors`` decision carrying each model's legal area and the server's proposal, the
placement it made before players were asked (``placement.place_models``: rings around the hull,
or a grid inside where the vehicle was first, the first legal spot for each model in turn).
"""

from __future__ import annotations

from shapely import Point as ShapelyPoint
from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.decisions import with_areas
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, MatchState, Model, Placement, Point, Shape, Unit
from .. import geometry as g
from ..areas import legal_centres, shapes
from . import refs
from .geo import DEFAULT_BASE_MM, alive, footprint, on_table
from .placement import ENEMY_GAP, Placer, base_radius, grid_candidates, place_models, ring_candidates

DECISION_SURVIVORS = "place_survivors"
PROPOSAL = "proposal"
PLACE = "place"


def place_survivors(
    state: MatchState,
    ctx: ApplyContext,
    transport: Unit,
    passenger: Unit,
    hull: g.Footprint,
    max_gap: float,
    inside_first: bool,
) -> dict[str, Point | None]:
    """Where each model of ``passenger`` goes (None: it cannot be placed, a casualty), as its
    owner answers. ``max_gap``: a base must lie wholly within this many inches of the hull;
    ``inside_first``: the vehicle is gone, so its footprint is part of the area."""
    models = alive(passenger)
    ignore = {transport.id, passenger.id}
    spots = place_models(state, passenger.side, models, hull, max_gap, inside_first, ignore)
    proposal = {mid: p for mid, p in spots.items() if p is not None}
    lost = len(models) - len(proposal)
    where = "where it was" if inside_first else f'within {max_gap:g}" of its hull'
    decision = Decision(
        id=f"survivors-{ctx.seq}-{passenger.id}",
        side=passenger.side,
        kind=DECISION_SURVIVORS,
        options=(PROPOSAL, PLACE),
        prompt=(
            f"{passenger.name} gets out of the destroyed {transport.name}: place each model {where}, "
            f'not within {ENEMY_GAP:g}" of an enemy nor in impassable terrain (proposal: {len(proposal)} placed'
            + (f", {lost} lost" if lost else "")
            + ")"
        ),
        rule=refs.PASSENGERS,
        proposal=PROPOSAL,
        placement=Placement(
            unit=passenger.id,
            models=tuple(m.id for m in models),
            proposal=proposal,
            limits={"within": max_gap, "enemy_gap": ENEMY_GAP},
        ),
    )
    answer = ctx.decide(
        decision,
        lambda given: check_survivors(state, passenger, hull, max_gap, inside_first, ignore, given),
        lambda asked: with_areas(asked, _areas(state, passenger, hull, max_gap, inside_first, ignore)),
    )
    chosen = proposal if answer.choice == PROPOSAL else answer.place
    return {m.id: chosen.get(m.id) for m in models}


def _allowed(hull: g.Footprint, radius: float, max_gap: float, inside_first: bool) -> BaseGeometry:
    shape = hull.polygon()
    outer = shape.buffer(max(0.0, max_gap - radius), quad_segs=4)
    return outer if inside_first else outer.difference(shape.buffer(radius, quad_segs=4))


def _areas(
    state: MatchState,
    passenger: Unit,
    hull: g.Footprint,
    max_gap: float,
    inside_first: bool,
    ignore: set[str],
) -> dict[str, tuple[Shape, ...]]:
    keep_out: list[tuple[BaseGeometry, float]] = []
    for other in state.units.values():
        if other.id in ignore or not on_table(other):
            continue
        gap = ENEMY_GAP if other.side != passenger.side else 0.0
        keep_out.extend((footprint(m).polygon(), gap) for m in alive(other))
    keep_out.extend(
        (g.as_geometry([(p.x, p.y) for p in t.points]), 0.0)
        for t in state.terrain.values()
        if "impassable" in t.kinds
    )
    by_radius: dict[float, tuple[Shape, ...]] = {}
    out: dict[str, tuple[Shape, ...]] = {}
    width, height = state.battlefield.width, state.battlefield.height
    for m in alive(passenger):
        r = base_radius(m)
        if r not in by_radius:
            by_radius[r] = shapes(
                legal_centres(_allowed(hull, r, max_gap, inside_first), r, keep_out, width, height)
            )
        out[m.id] = by_radius[r]
    return out


def check_survivors(
    state: MatchState,
    passenger: Unit,
    hull: g.Footprint,
    max_gap: float,
    inside_first: bool,
    ignore: set[str],
    answer: Answer,
) -> Rejection | None:
    """40k7 Transports: every placed base lies wholly within ``max_gap`` of the hull (or where the
    vehicle was), off the hull of a wreck, on no model, more than 1" from enemies, not in
    impassable terrain, on the table; a model left out only when it cannot be placed."""
    if answer.choice == PROPOSAL:
        if answer.place:
            return reject("place_with_proposal", refs.PASSENGERS, "give place only with the choice place")
        return None
    models = {m.id: m for m in alive(passenger)}
    unknown = sorted(set(answer.place) - set(models))
    if unknown:
        return reject(
            "unknown_model",
            refs.PASSENGERS,
            f"{unknown[0]} is not a model of {passenger.name} to place (models: {', '.join(sorted(models))})",
            model=unknown[0],
        )
    placer = Placer(state, passenger.side, ignore)
    for mid in sorted(answer.place):
        problem = _spot_problem(placer, hull, max_gap, inside_first, models[mid], answer.place[mid])
        if problem is not None:
            return problem
        placer.placed.append(
            g.Base(answer.place[mid].x, answer.place[mid].y, models[mid].base_mm or DEFAULT_BASE_MM)
        )
    for mid in sorted(set(models) - set(answer.place)):
        m = models[mid]
        r = base_radius(m)
        cands = (grid_candidates(hull, r) if inside_first else []) + ring_candidates(hull, r, max_gap)
        spot = placer.take(cands, m.base_mm or DEFAULT_BASE_MM)
        if spot is not None:
            return reject(
                "model_placeable",
                refs.PASSENGERS,
                f"{mid} can still be placed (e.g. at ({spot[0]:.2f}, {spot[1]:.2f})): only a model that "
                "cannot be placed is removed as a casualty",
                model=mid,
                x=round(spot[0], 3),
                y=round(spot[1], 3),
            )
    return None


def _spot_problem(
    placer: Placer, hull: g.Footprint, max_gap: float, inside_first: bool, model: Model, pos: Point
) -> Rejection | None:
    base = g.Base(pos.x, pos.y, model.base_mm or DEFAULT_BASE_MM)
    where = f"{model.id} at ({pos.x:g}, {pos.y:g})"
    if not inside_first and g.overlaps(base, hull):
        return reject("overlaps_hull", refs.PASSENGERS, f"{where} stands on the wreck's hull", model=model.id)
    reach = float(hull.polygon().distance(ShapelyPoint(pos.x, pos.y))) + base.radius
    if reach > max_gap + g.EPS:
        return reject(
            "too_far_from_hull",
            refs.PASSENGERS,
            f'{where} reaches {reach:.2f}" from the hull: it must lie wholly within {max_gap:g}"',
            model=model.id,
            distance=round(reach, 3),
            limit=max_gap,
        )
    if not g.inside_battlefield(base, placer.width, placer.height):
        return reject("off_table", refs.PASSENGERS, f"{where} is off the battlefield", model=model.id)
    if any(g.overlaps(base, other) for other in (*placer.friends, *placer.placed, *placer.enemies)):
        return reject("overlaps_model", refs.PASSENGERS, f"{where} overlaps another model", model=model.id)
    near = min((g.distance(base, e) for e in placer.enemies), default=float("inf"))
    if near < ENEMY_GAP - g.EPS:
        return reject(
            "too_close_to_enemy",
            refs.PASSENGERS,
            f'{where} is {near:.2f}" from an enemy model: it must be at least {ENEMY_GAP:g}" away',
            model=model.id,
            distance=round(near, 3),
            limit=ENEMY_GAP,
        )
    if any(g.overlaps(base, poly) for poly in placer.impassable):
        return reject("impassable", refs.PASSENGERS, f"{where} is in impassable terrain", model=model.id)
    return None
