"""40k7 Vehicles, Tanks: Tank Shock - enemy models in the Tank's way, moved aside by their owner.

# 40k7 Tank Shock: enemy models the Tank ends its move over (or within 1" of) are moved out of
# its way by their owner, the shortest distance, to at least 1" from the vehicle; a model that
# cannot be so placed is crushed (removed as a casualty).

The owner places them (docs/decisions.md): the Tank Shock pauses on a ``place_tank_shocked``
decision that carries each model's legal area and the server's proposal, the placement it made
before players were asked (straight out to the nearer side of the hull, 1" clear, then up to
``ASIDE_EXTRA`` inches further in half-inch steps, then the other side).
"""

from __future__ import annotations

from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.decisions import with_areas
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, MatchState, Model, Placement, Point, Shape, Unit
from .. import geometry as g
from ..areas import legal_centres, shapes
from . import refs
from .geo import DEFAULT_BASE_MM, alive, footprint, on_table
from .placement import ENEMY_GAP, Placer, base_radius

DECISION_ASIDE = "place_tank_shocked"
PROPOSAL = "proposal"
PLACE = "place"
# A model moved aside ends at least PUSH_CLEARANCE from the hull.
PUSH_CLEARANCE = 1.0
# "The shortest distance" [decided]: the automatic search tries up to ASIDE_EXTRA inches beyond
# the 1" clearance; an owner's placement may end at most ASIDE_REACH from the hull (the same
# band: 1" clearance, the search's 0.01" margin and its extra 2").
ASIDE_EXTRA = 2.0
ASIDE_REACH = PUSH_CLEARANCE + 0.01 + ASIDE_EXTRA + 0.04


def place_aside(
    state: MatchState, ctx: ApplyContext, tank: Unit, hull: g.Hull, other: Unit, movers: list[Model]
) -> dict[str, Point | None]:
    """Where each model of ``movers`` goes (None: crushed), as the owner of ``other`` answers."""
    proposal = propose(state, hull, other, movers)
    crushed = len(movers) - len(proposal)
    decision = Decision(
        id=f"aside-{ctx.seq}-{other.id}",
        side=other.side,
        kind=DECISION_ASIDE,
        options=(PROPOSAL, PLACE),
        prompt=(
            f"{tank.name}'s Tank Shock ends over {other.name}: move {len(movers)} model(s) out of its way, "
            f'at least {PUSH_CLEARANCE:g}" from the hull and at most {ASIDE_REACH:g}" (proposal: '
            f"{len(proposal)} moved" + (f", {crushed} crushed" if crushed else "") + ")"
        ),
        rule=refs.TANK_SHOCK,
        proposal=PROPOSAL,
        placement=Placement(
            unit=other.id,
            models=tuple(m.id for m in movers),
            proposal=proposal,
            limits={"clearance": PUSH_CLEARANCE, "reach": ASIDE_REACH, "enemy_gap": ENEMY_GAP},
        ),
    )
    answer = ctx.decide(
        decision,
        lambda given: check_aside(state, hull, other, movers, given),
        lambda asked: with_areas(asked, _areas(state, hull, other, movers)),
    )
    chosen = proposal if answer.choice == PROPOSAL else answer.place
    return {m.id: chosen.get(m.id) for m in movers}


def _placer(state: MatchState, hull: g.Hull, other: Unit, movers: list[Model]) -> Placer:
    placer = Placer(state, other.side, {other.id})
    placer.placed.append(hull)
    moving = {m.id for m in movers}
    placer.placed.extend(footprint(m) for m in alive(other) if m.id not in moving)
    return placer


def propose(state: MatchState, hull: g.Hull, other: Unit, movers: list[Model]) -> dict[str, Point]:
    """The automatic placement: each mover in turn at its first legal spot (``aside_spot``)."""
    placer = _placer(state, hull, other, movers)
    out: dict[str, Point] = {}
    for m in movers:
        spot = aside_spot(hull, m, placer)
        if spot is not None:
            out[m.id] = Point(spot[0], spot[1])
    return out


def aside_spot(hull: g.Hull, m: Model, placer: Placer) -> g.Point | None:
    """Straight out to the nearer side of the hull, 1" clear, then further, then the other side."""
    u, v = hull.to_local((m.pos.x, m.pos.y))
    r = base_radius(m)
    sides = (1.0, -1.0) if v >= 0 else (-1.0, 1.0)
    for sign in sides:
        for extra in (0.0, 0.5, 1.0, 1.5, ASIDE_EXTRA):
            lateral = sign * (hull.width / 2 + r + PUSH_CLEARANCE + 0.01 + extra)
            spot = hull.to_world((u, lateral))
            if placer.take([spot], m.base_mm or DEFAULT_BASE_MM):
                return spot
    return None


def _areas(state: MatchState, hull: g.Hull, other: Unit, movers: list[Model]) -> dict[str, tuple[Shape, ...]]:
    moving = {m.id for m in movers}
    keep_out: list[tuple[BaseGeometry, float]] = []
    for unit in state.units.values():
        if not on_table(unit):
            continue
        gap = ENEMY_GAP if unit.side != other.side else 0.0
        keep_out.extend((footprint(m).polygon(), gap) for m in alive(unit) if m.id not in moving)
    keep_out.extend(
        (g.as_geometry([(p.x, p.y) for p in t.points]), 0.0)
        for t in state.terrain.values()
        if "impassable" in t.kinds
    )
    shape = hull.polygon()
    width, height = state.battlefield.width, state.battlefield.height
    out: dict[str, tuple[Shape, ...]] = {}
    by_radius: dict[float, tuple[Shape, ...]] = {}
    for m in movers:
        r = base_radius(m)
        if r not in by_radius:
            band = shape.buffer(ASIDE_REACH + r, quad_segs=4).difference(
                shape.buffer(PUSH_CLEARANCE + r, quad_segs=4)
            )
            by_radius[r] = shapes(legal_centres(band, r, keep_out, width, height))
        out[m.id] = by_radius[r]
    return out


def check_aside(
    state: MatchState, hull: g.Hull, other: Unit, movers: list[Model], answer: Answer
) -> Rejection | None:
    """40k7 Tank Shock: each moved model ends 1" to ASIDE_REACH from the hull, on no model, at
    least 1" from enemy models, not in impassable terrain, on the table; a model left out is
    crushed only when no such spot remains for it."""
    if answer.choice == PROPOSAL:
        if answer.place:
            return reject("place_with_proposal", refs.TANK_SHOCK, "give place only with the choice place")
        return None
    by_id = {m.id: m for m in movers}
    unknown = sorted(set(answer.place) - set(by_id))
    if unknown:
        return reject(
            "unknown_model",
            refs.TANK_SHOCK,
            f"{unknown[0]} is not a model in the Tank's way (models: {', '.join(by_id)})",
            model=unknown[0],
        )
    placer = _placer(state, hull, other, movers)
    for mid in sorted(answer.place):
        m, pos = by_id[mid], answer.place[mid]
        base = g.Base(pos.x, pos.y, m.base_mm or DEFAULT_BASE_MM)
        problem = _spot_problem(placer, hull, mid, pos, base)
        if problem is not None:
            return problem
        placer.placed.append(base)
    for m in movers:
        if m.id in answer.place:
            continue
        spot = aside_spot(hull, m, placer)
        if spot is not None:
            return reject(
                "model_placeable",
                refs.TANK_SHOCK,
                f"{m.id} can still be moved aside (e.g. to ({spot[0]:.2f}, {spot[1]:.2f})): only a model "
                "that cannot be is crushed",
                model=m.id,
                x=round(spot[0], 3),
                y=round(spot[1], 3),
            )
    return None


def _spot_problem(placer: Placer, hull: g.Hull, mid: str, pos: Point, base: g.Base) -> Rejection | None:
    where = f"{mid} at ({pos.x:g}, {pos.y:g})"
    d = g.distance(base, hull)
    if d < PUSH_CLEARANCE - g.EPS:
        return reject(
            "too_close_to_tank",
            refs.TANK_SHOCK,
            f'{where} is {d:.2f}" from the Tank: it must end at least {PUSH_CLEARANCE:g}" away',
            model=mid,
            distance=round(d, 3),
            limit=PUSH_CLEARANCE,
        )
    if d > ASIDE_REACH + g.EPS:
        return reject(
            "too_far_aside",
            refs.TANK_SHOCK,
            f'{where} is {d:.2f}" from the Tank: moved the shortest distance, it ends at most {ASIDE_REACH:g}" away',
            model=mid,
            distance=round(d, 3),
            limit=ASIDE_REACH,
        )
    if not g.inside_battlefield(base, placer.width, placer.height):
        return reject("off_table", refs.TANK_SHOCK, f"{where} is off the battlefield", model=mid)
    if any(g.overlaps(base, o) for o in (*placer.friends, *placer.placed, *placer.enemies)):
        return reject("overlaps_model", refs.TANK_SHOCK, f"{where} overlaps another model", model=mid)
    near = min((g.distance(base, e) for e in placer.enemies), default=float("inf"))
    if near < ENEMY_GAP - g.EPS:
        return reject(
            "too_close_to_enemy",
            refs.TANK_SHOCK,
            f'{where} is {near:.2f}" from an enemy model: it must be at least {ENEMY_GAP:g}" away',
            model=mid,
            distance=round(near, 3),
            limit=ENEMY_GAP,
        )
    if any(g.overlaps(base, poly) for poly in placer.impassable):
        return reject("impassable", refs.TANK_SHOCK, f"{where} is in impassable terrain", model=mid)
    return None
