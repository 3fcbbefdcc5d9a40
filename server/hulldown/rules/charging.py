"""Charge moves placed by the charging player (docs/decisions.md, ``place_chargers``): the
geometry 40k7 and hh3 share. Pure.

After a successful charge roll the charging player places each charging model (40k7 The Assault
Phase, Charge: Move Chargers; hh3 core, Charge Procedure step 5, Make Charge Move):

- each model moves at most the charge roll, measured straight from its start to its end (the
  centre's displacement: every point of a model that only slides moves as far) [decided: no path
  around models or terrain is asked for];
- it ends on the table, on no other model and not in impassable terrain, and not within the
  edition's gap of an enemy unit that is not charged;
- the initial charger (the model closest to the charged unit) ends in base contact with it;
- a model not in base contact is refused when a legal contact spot within its reach existed,
  given where the other chargers were placed ("base contact where possible");
- the unit ends in coherency (the edition's distance), or no less coherent than it started.

The areas a client draws are the legal centres of each model (within its reach, on the table,
off impassable terrain, other models and the forbidden gap); an answer is still checked model
by model, exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from msgspec.structs import replace
from shapely import Point as ShapelyPoint
from shapely import box, unary_union
from shapely.geometry.base import BaseGeometry

from ..match.context import ApplyContext
from ..match.decisions import Check, Suspend
from ..match.rejection import Rejection, reject
from ..match.state import Answer, Decision, Placement, Point, Shape, Unit
from . import geometry as g
from .areas import AREA_QUAD_SEGS, shapes

PROPOSAL = "proposal"
PLACE = "place"
DECISION_CHARGE = "place_chargers"
# Vertices per quarter circle of the contact band searched for "base contact where possible":
# finer than the drawn areas so a band 0.05" wide is not lost to the polygon's chords.
CONTACT_QUAD_SEGS = 16
# A charger may end this much beyond its charge roll (a tabletop measuring tolerance)
# [decided]: the drawn reach (a circumscribed polygon of REACH_QUAD_SEGS vertices per quarter
# circle, at most 0.004" outside a 12" circle) then holds only legal ends, and a model moved the
# full roll lies inside it.
REACH_SLACK = 0.01
REACH_QUAD_SEGS = 32


@dataclass(frozen=True, slots=True)
class ChargeLimits:
    """The distances an edition's charge move sets (inches) and the rule its refusals cite."""

    rule: str
    contact: float
    coherency: float
    enemy_gap: float


@dataclass(frozen=True, slots=True)
class ChargeScene:
    """What a charge move is placed among. ``chargers``: each charging model's id and starting
    footprint, in the unit's order; ``targets``: the charged unit's models; ``others``: every
    other model on the table; ``shunned``: the models of enemy units not charged (kept
    ``enemy_gap`` away); ``first``: the initial charger."""

    chargers: tuple[tuple[str, g.Footprint], ...]
    targets: tuple[g.Footprint, ...]
    others: tuple[g.Footprint, ...]
    shunned: tuple[g.Footprint, ...]
    impassable: tuple[BaseGeometry, ...]
    width: float
    height: float
    reach: float
    first: str

    def start(self, mid: str) -> g.Footprint:
        return next(fp for k, fp in self.chargers if k == mid)


def initial_charger(chargers: Sequence[tuple[str, g.Footprint]], targets: Sequence[g.Footprint]) -> str:
    """The charging model closest to the charged unit (the first of equals)."""
    return min(chargers, key=lambda c: min(g.distance(c[1], t) for t in targets))[0]


def moved_to(fp: g.Footprint, p: Point) -> g.Footprint:
    """``fp`` slid (not turned) so its centre is at ``p``."""
    return fp.translate(p.x - fp.centre[0], p.y - fp.centre[1])


def to_target(scene: ChargeScene, fp: g.Footprint) -> float:
    return min((g.distance(fp, t) for t in scene.targets), default=math.inf)


def _radius(fp: g.Footprint) -> float:
    """A base's radius; a hull's circumscribed radius (its drawn area errs on the safe side)."""
    return fp.radius if isinstance(fp, g.Base) else fp.reach


def _grown(fp: g.Footprint, by: float, segs: int = AREA_QUAD_SEGS, outside: bool = True) -> BaseGeometry:
    """``fp`` grown by ``by``, as a polygon of ``segs`` vertices per quarter circle: all of it
    outside the true shape (``outside``: the polygon's edges touch the true arcs), else all of
    it inside (its vertices on them)."""
    grow = by / math.cos(math.pi / (4 * segs)) if outside else by
    if isinstance(fp, g.Base):
        radius = fp.radius + by
        if outside:
            radius /= math.cos(math.pi / (4 * segs))
        return ShapelyPoint(fp.cx, fp.cy).buffer(radius, quad_segs=segs)
    return fp.polygon().buffer(grow, quad_segs=segs)


def _keep_out(
    scene: ChargeScene, r: float, limits: ChargeLimits, placed: Sequence[g.Footprint], targets: bool = True
) -> BaseGeometry:
    """Where the centre of a base of radius ``r`` may not go: on a model (the charged ones too
    unless not ``targets``), within ``enemy_gap`` of an enemy unit not charged, in impassable
    terrain. Drawn a little large: every point left outside it is legal."""
    zones = [_grown(fp, r) for fp in (*scene.others, *placed)]
    if targets:
        zones += [_grown(fp, r) for fp in scene.targets]
    zones += [_grown(fp, r + limits.enemy_gap) for fp in scene.shunned]
    zones += [
        z.buffer(r / math.cos(math.pi / (4 * AREA_QUAD_SEGS)), quad_segs=AREA_QUAD_SEGS)
        for z in scene.impassable
    ]
    return unary_union(zones)


def _reachable(scene: ChargeScene, fp: g.Footprint) -> BaseGeometry:
    """Centres within the charge roll of ``fp``'s and with its base on the table."""
    r = _radius(fp)
    reach = scene.reach / math.cos(math.pi / (4 * REACH_QUAD_SEGS))
    disk = ShapelyPoint(fp.centre).buffer(reach, quad_segs=REACH_QUAD_SEGS)
    return disk.intersection(box(r, r, scene.width - r, scene.height - r))


def _band(scene: ChargeScene, r: float, limits: ChargeLimits, strict: bool) -> BaseGeometry:
    """Centres of bases of radius ``r`` in base contact with the charged unit, on none of its
    models: ``strict``, only points truly touching and not overlapping; else also a sliver (under
    0.002") overlapping, so a model touching exactly lies inside the drawn area."""
    near = unary_union(
        [_grown(t, r + limits.contact, CONTACT_QUAD_SEGS, outside=False) for t in scene.targets]
    )
    on = unary_union([_grown(t, r, CONTACT_QUAD_SEGS, outside=strict) for t in scene.targets])
    return near.difference(on)


def _free(
    scene: ChargeScene, fp: g.Footprint, limits: ChargeLimits, placed: Sequence[g.Footprint]
) -> BaseGeometry:
    """Legal centres for ``fp`` off the charged unit (any but the contact rule)."""
    return _reachable(scene, fp).difference(_keep_out(scene, _radius(fp), limits, placed))


def _touching(
    scene: ChargeScene, fp: g.Footprint, limits: ChargeLimits, placed: Sequence[g.Footprint], strict: bool
) -> BaseGeometry:
    """Legal centres for ``fp`` in base contact with the charged unit."""
    r = _radius(fp)
    room = _reachable(scene, fp).difference(_keep_out(scene, r, limits, placed, targets=False))
    return _band(scene, r, limits, strict).intersection(room)


def areas(scene: ChargeScene, limits: ChargeLimits) -> dict[str, tuple[Shape, ...]]:
    """For each charger, where its centre may end (the other chargers not counted): off the
    charged unit, or touching it. The zones to keep out are built once per base size."""
    by_radius: dict[float, tuple[BaseGeometry, BaseGeometry, BaseGeometry]] = {}
    out: dict[str, tuple[Shape, ...]] = {}
    for mid, fp in scene.chargers:
        r = _radius(fp)
        if r not in by_radius:
            by_radius[r] = (
                _keep_out(scene, r, limits, ()),
                _keep_out(scene, r, limits, (), targets=False),
                _band(scene, r, limits, strict=False),
            )
        everything, others, band = by_radius[r]
        reach = _reachable(scene, fp)
        out[mid] = shapes(reach.difference(everything).union(band.intersection(reach).difference(others)))
    return out


def ask(
    ctx: ApplyContext, decision: Decision, limits: ChargeLimits, scene: ChargeScene, check: Check
) -> Answer:
    """``ctx.decide`` for ``place_chargers``, drawing the areas only when the decision is really
    put to a player: an answer already in the log, ``auto_decide`` and the odds engine take the
    proposal or the recorded answer without them (they cost most of a charge's fold)."""
    try:
        return ctx.decide(decision, check)
    except Suspend:
        assert decision.placement is not None
        placement = replace(decision.placement, area=areas(scene, limits))
        raise Suspend(replace(decision, placement=placement)) from None


def _problem(
    scene: ChargeScene, limits: ChargeLimits, mid: str, fp: g.Footprint, placed: Sequence[g.Footprint]
) -> Rejection | None:
    """Is ``fp`` (model ``mid`` at its end) a legal end of its charge move? The numbers if not."""
    rule = limits.rule
    start = scene.start(mid)
    where = f"{mid} at ({fp.centre[0]:g}, {fp.centre[1]:g})"
    moved = math.hypot(fp.centre[0] - start.centre[0], fp.centre[1] - start.centre[1])
    if moved > scene.reach + REACH_SLACK:
        return reject(
            "charge_too_far",
            rule,
            f'{where} would move {moved:.2f}": a charging model moves at most the charge roll, {scene.reach:g}"',
            model=mid,
            distance=round(moved, 3),
            limit=scene.reach,
        )
    if not g.inside_battlefield(fp, scene.width, scene.height):
        return reject("off_table", rule, f"{where} is off the battlefield", model=mid)
    if any(g.overlaps(fp, o) for o in (*scene.others, *scene.targets, *scene.shunned, *placed)):
        return reject("overlaps_model", rule, f"{where} overlaps another model", model=mid)
    near = min((g.distance(fp, e) for e in scene.shunned), default=math.inf)
    if near < limits.enemy_gap - g.EPS:
        return reject(
            "too_close_to_enemy",
            rule,
            f'{where} is {near:.2f}" from a model of an enemy unit it does not charge: it must stay '
            f'{limits.enemy_gap:g}" away',
            model=mid,
            distance=round(near, 3),
            limit=limits.enemy_gap,
        )
    if any(g.overlaps(fp, poly) for poly in scene.impassable):
        return reject("impassable", rule, f"{where} is in impassable terrain", model=mid)
    return None


def end_problem(
    scene: ChargeScene, limits: ChargeLimits, mid: str, fp: g.Footprint, placed: Sequence[g.Footprint]
) -> Rejection | None:
    """Is ``fp`` a legal end for model ``mid`` (within the scene's reach, on the table, on no
    other model, off impassable terrain and the gap to enemies not charged)? For moves the
    server makes itself, such as the hh3 set-up move."""
    return _problem(scene, limits, mid, fp, placed)


def contact_spot(
    scene: ChargeScene, limits: ChargeLimits, mid: str, placed: Sequence[g.Footprint]
) -> Point | None:
    """A legal end for ``mid`` in base contact with the charged unit, given the other chargers'
    ends ``placed``; None when there is none. Searched on the area's polygons, each spot found
    checked exactly."""
    start = scene.start(mid)
    region = _touching(scene, start, limits, placed, strict=True)
    if region.is_empty:
        return None
    candidates = [region.representative_point()]
    for poly in getattr(region, "geoms", [region]):
        if not poly.is_empty:
            candidates.append(poly.representative_point())
            candidates.append(poly.centroid)
    for c in candidates:
        p = Point(round(float(c.x), 3), round(float(c.y), 3))
        fp = moved_to(start, p)
        if (
            to_target(scene, fp) <= limits.contact + g.EPS
            and _problem(scene, limits, mid, fp, placed) is None
        ):
            return p
    return None


def ends(scene: ChargeScene, place: Mapping[str, Point]) -> dict[str, g.Footprint]:
    """Each charger's footprint at its end (a model left out stays where it is)."""
    return {mid: moved_to(fp, place[mid]) if mid in place else fp for mid, fp in scene.chargers}


def check(scene: ChargeScene, limits: ChargeLimits, answer: Answer) -> Rejection | None:
    """The charging player's answer to ``place_chargers``: the proposal, or a legal end for each
    model (see the module doc). Refusals give the numbers in ``values``."""
    rule = limits.rule
    if answer.choice == PROPOSAL:
        if answer.place:
            return reject("place_with_proposal", rule, "give place only with the choice place")
        return None
    known = [mid for mid, _ in scene.chargers]
    unknown = sorted(set(answer.place) - set(known))
    if unknown:
        return reject(
            "unknown_model",
            rule,
            f"{unknown[0]} is not a charging model (models: {', '.join(known)})",
            model=unknown[0],
        )
    final = ends(scene, answer.place)
    for mid in known:
        if mid not in answer.place:
            continue
        placed = [fp for k, fp in final.items() if k != mid]
        problem = _problem(scene, limits, mid, final[mid], placed)
        if problem is not None:
            return problem
    first = to_target(scene, final[scene.first])
    if first > limits.contact + g.EPS:
        return reject(
            "not_in_contact",
            rule,
            f"{scene.first} is the initial charger: it must end in base contact with the charged unit "
            f'(it is {first:.2f}" away, contact is within {limits.contact:g}")',
            model=scene.first,
            distance=round(first, 3),
            limit=limits.contact,
        )
    gap = g.coherency_gap(list(final.values()))
    before = g.coherency_gap([fp for _, fp in scene.chargers])
    if gap > limits.coherency + g.EPS and gap > before + g.EPS:
        return reject(
            "not_coherent",
            rule,
            f'the charging unit would end {gap:.2f}" apart: it must end in coherency ({limits.coherency:g}")',
            gap=round(gap, 3),
            limit=limits.coherency,
        )
    for mid in known:
        if to_target(scene, final[mid]) <= limits.contact + g.EPS:
            continue
        spot = contact_spot(scene, limits, mid, [fp for k, fp in final.items() if k != mid])
        if spot is not None:
            return reject(
                "contact_possible",
                rule,
                f"{mid} can reach base contact with the charged unit (e.g. at ({spot.x:.2f}, {spot.y:.2f})): "
                "a charging model that can must end in base contact",
                model=mid,
                x=spot.x,
                y=spot.y,
            )
    return None


def placement(
    scene: ChargeScene, limits: ChargeLimits, unit: str, proposal: Mapping[str, Point]
) -> Placement:
    """What ``place_chargers`` asks: the chargers, the proposal and the limits (``ask`` adds the
    areas when the decision is put to a player)."""
    return Placement(
        unit=unit,
        models=tuple(mid for mid, _ in scene.chargers),
        proposal=dict(proposal),
        limits={
            "reach": scene.reach,
            "contact": limits.contact,
            "coherency": limits.coherency,
            "enemy_gap": limits.enemy_gap,
        },
    )


def chosen(decision_proposal: Mapping[str, Point], scene: ChargeScene, answer: Answer) -> dict[str, Point]:
    """Where each charger ends: the proposal, or the answer (a model left out stays put)."""
    if answer.choice != PLACE:
        return dict(decision_proposal)
    return {mid: answer.place.get(mid, Point(*fp.centre)) for mid, fp in scene.chargers}


def decide_ends(
    ctx: ApplyContext,
    unit: Unit,
    target: Unit,
    scene: ChargeScene,
    limits: ChargeLimits,
    proposal: Mapping[str, Point],
    rule: str,
    keep_clear: str,
) -> dict[str, Point]:
    """40k7 Move Chargers / hh3 Make Charge Move: the charging side's ``place_chargers`` decision
    (the proposal, or a placement checked model by model) and where each charger ends. ``rule``
    is the edition's charge rule; ``keep_clear`` words its gap to enemy units not charged."""
    roll = scene.reach
    decision = Decision(
        id=f"charge-{ctx.seq}-{unit.id}",
        side=unit.side,
        kind=DECISION_CHARGE,
        options=(PROPOSAL, PLACE),
        prompt=(
            f'{unit.name} charges {target.name} ({roll:g}"): move each model up to {roll:g}", the initial '
            f"charger {scene.first} into base contact, the others into base contact where they can, in "
            f'coherency ({limits.coherency:g}"), {keep_clear}'
        ),
        rule=rule,
        proposal=PROPOSAL,
        placement=placement(scene, limits, unit.id, proposal),
    )
    answer = ask(ctx, decision, limits, scene, lambda given: check(scene, limits, given))
    return chosen(proposal, scene, answer)
