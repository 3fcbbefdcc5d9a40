"""40k7 Weapons, Blast and Template: the firer aims the marker or the template (docs/decisions.md).

# 40k7 Weapons, Blast: the firer places the marker with its hole entirely over the base (or hull)
# of an enemy model, within the weapon's maximum range, with no friendly base or hull even
# partly under it; then it scatters. 40k7 Weapons, Template: the narrow end touches the firing
# model's base (a vehicle: the weapon's muzzle) and the rest covers as many models of the target
# unit as possible, without touching any other friendly model.

The firer's side answers an ``aim_blast`` / ``aim_template`` decision in the middle of the
shooting (match/suspend.py), before the marker's scatter is rolled: the dice of the weapons
fired before it are already rolled, so it is a decision of the midway framework. The proposal is
the aim the server took before players were asked (``blasts.nearest_point``: the centre of the
target's model nearest the firer), so ``auto_decide`` and the odds engine play as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import shapely
from msgspec.structs import replace
from shapely import Polygon, unary_union
from shapely.geometry.base import BaseGeometry

from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Aim, Answer, Decision, MatchState, Model, Point, Shape, Unit
from .. import geometry as g
from ..areas import AREA_QUAD_SEGS, shapes
from . import refs
from .blasts import TEMPLATE_NARROW, TEMPLATE_WIDE, nearest_point, template_polygon
from .firing import WeaponShot, muzzle_reach
from .geo import alive, footprint, on_table
from .squadrons import squadron_members
from .types import is_vehicle
from .wording import plural

DECISION_AIM_BLAST = "aim_blast"
DECISION_AIM_TEMPLATE = "aim_template"
PROPOSAL = "proposal"
AIM = "aim"
# The template's legal directions are found by turning it in steps of this many degrees round
# its narrow end [decided]: each legal step stands for the half step either side of it. The
# answer itself is checked exactly; "as many models as possible" is the most any step covers.
TEMPLATE_AIM_STEP_DEG = 2.0
# A template aimed at a point nearer its narrow end than this has no direction.
MIN_AIM_DISTANCE = 0.05
# Vertices of a legal direction's wedge per degree of arc (drawn by the browser).
WEDGE_POINTS_PER_DEG = 0.5


@dataclass(frozen=True)
class Firer:
    """Who fires the shot being aimed: the firing unit, the model carrying the weapon, the shot."""

    unit: Unit
    model: Model
    shot: WeaponShot


def _targets(state: MatchState, target_id: str) -> list[Model]:
    target = state.units[target_id]
    return [m for u in squadron_members(state, target) for m in alive(u)]


def _friends(state: MatchState, firer: Firer, skip_firer: bool) -> list[Model]:
    """Friendly models on the table (40k7 Blast: any friendly model; Template: any other
    friendly model than the firer; a passenger's transport carries it)."""
    out: list[Model] = []
    for u in state.units.values():
        if u.side != firer.unit.side or not on_table(u):
            continue
        for m in alive(u):
            if skip_firer and (m.id == firer.model.id or u.id == firer.unit.embarked_in):
                continue
            out.append(m)
    return out


def _from_hull(firer: Firer) -> bool:
    return is_vehicle(firer.unit) or firer.unit.embarked_in is not None


def hole_range(firer: Firer, hole: g.Point) -> float:
    """The hole's distance from the firer as the weapon's range is measured (40k7 Shooting: from
    the muzzle for a vehicle or passengers, from the firing model's base otherwise)."""
    if _from_hull(firer):
        barrel = muzzle_reach(firer.unit, firer.shot.weapon)
        return max(0.0, math.hypot(hole[0] - firer.shot.origin[0], hole[1] - firer.shot.origin[1]) - barrel)
    return g.distance(footprint(firer.model), hole)


# --- Blast -------------------------------------------------------------------------------------


def _range_area(firer: Firer) -> BaseGeometry:
    w = firer.shot.weapon
    if _from_hull(firer):
        reach = w.range + muzzle_reach(firer.unit, w)
        return shapely.Point(firer.shot.origin).buffer(reach, quad_segs=AREA_QUAD_SEGS * 4)
    return footprint(firer.model).polygon().buffer(w.range, quad_segs=AREA_QUAD_SEGS * 4)


def blast_area(state: MatchState, firer: Firer, radius: float) -> BaseGeometry:
    """Where the hole may go (40k7 Weapons, Blast): over a model of the target unit, within the
    weapon's range, no friendly base or hull within the marker's radius."""
    over = unary_union([footprint(m).polygon() for m in _targets(state, firer.shot.target)])
    area = over.intersection(_range_area(firer))
    if area.is_empty:
        return area
    # Only friends whose base or hull comes within the marker's radius of the area's bounds.
    x0, y0, x1, y1 = area.bounds
    near = shapely.box(x0 - radius, y0 - radius, x1 + radius, y1 + radius)
    keep_out = [
        footprint(m).polygon().buffer(radius, quad_segs=AREA_QUAD_SEGS)
        for m in _friends(state, firer, False)
        if g.distance(footprint(m), near) <= g.EPS
    ]
    return area.difference(unary_union(keep_out)) if keep_out else area


def check_blast(state: MatchState, firer: Firer, radius: float, answer: Answer) -> Rejection | None:
    """40k7 Weapons, Blast: is the hole over a model of the target, in range, with no friendly
    model under the marker?"""
    problem = _answer_shape(answer, refs.BLAST_AIM)
    if problem is not None or answer.aim is None:
        return problem
    hole = (answer.aim.x, answer.aim.y)
    targets = _targets(state, firer.shot.target)
    gaps = sorted((g.distance(footprint(m), hole), m.id) for m in targets)
    if not gaps or gaps[0][0] > g.EPS:
        gap = gaps[0][0] if gaps else math.inf
        return reject(
            "not_over_target",
            refs.BLAST_AIM,
            f"the hole must be over the base or hull of a model of {state.units[firer.shot.target].name}: "
            f'({hole[0]:g}, {hole[1]:g}) is {gap:.2f}" from the nearest',
            distance=round(gap, 3),
            limit=0.0,
        )
    reach = hole_range(firer, hole)
    if reach > firer.shot.weapon.range + g.EPS:
        return reject(
            "out_of_range",
            refs.BLAST_AIM,
            f'the hole must be within the {firer.shot.weapon.name}\'s range: {reach:.2f}" > {firer.shot.weapon.range:g}"',
            distance=round(reach, 3),
            range=firer.shot.weapon.range,
        )
    for m in _friends(state, firer, False):
        gap = g.distance(footprint(m), hole)
        if gap <= radius + g.EPS:
            return reject(
                "marker_over_friendly",
                refs.BLAST_AIM,
                f'a friendly model ({m.id}) would be under the marker: {gap:.2f}" from the hole, radius {radius:g}"',
                model=m.id,
                distance=round(gap, 3),
                limit=radius,
            )
    return None


def aim_blast(state: MatchState, ctx: ApplyContext, firer: Firer, radius: float, label: str) -> g.Point:
    """Where the marker's hole goes before it scatters, as the firer answers (the proposal: over
    the target's model nearest the firer). The legal area is computed only for a player asked."""
    if firer.shot.aim is not None:
        return firer.shot.aim  # aimed in advance by the Fire (checked with the Shoot)
    proposal = nearest_point(state, firer.shot.target, firer.shot.origin)
    w = firer.shot.weapon
    target = state.units[firer.shot.target]
    aim = Aim(
        shape="blast",
        weapon=w.id,
        target=target.id,
        origin=Point(*firer.shot.origin),
        proposal=Point(*proposal),
        limits={"radius": radius, "range": w.range},
    )
    decision = Decision(
        id=f"aim-{ctx.seq}-{w.id}-{ctx.asked + 1}",
        side=firer.unit.side,
        kind=DECISION_AIM_BLAST,
        options=(PROPOSAL, AIM),
        prompt=(
            f"{label}: place the marker's hole over a model of {target.name}, within {w.range:g}\", "
            "with no friendly model under it; then it scatters"
        ),
        rule=refs.BLAST_AIM,
        proposal=PROPOSAL,
        aim=aim,
    )

    def detail(asked: Decision) -> Decision:
        area = shapes(blast_area(state, firer, radius))
        return replace(asked, prompt=_prompt(asked.prompt, area), aim=replace(aim, area=area))

    answer = ctx.decide(decision, lambda given: check_blast(state, firer, radius, given), detail)
    return proposal if answer.choice == PROPOSAL or answer.aim is None else (answer.aim.x, answer.aim.y)


# --- Template ----------------------------------------------------------------------------------


def _turned_templates(origin: g.Point, length: float, angles: list[float]) -> list[Polygon]:
    """``blasts.template_polygon`` turned to each of ``angles`` round its narrow end at
    ``origin``: the template pointing along +x, rotated (all at once)."""
    local = np.array(template_polygon((0.0, 0.0), (1.0, 0.0), length).exterior.coords)
    a = np.radians(np.array(angles))[:, None]
    xs = origin[0] + local[None, :, 0] * np.cos(a) - local[None, :, 1] * np.sin(a)
    ys = origin[1] + local[None, :, 0] * np.sin(a) + local[None, :, 1] * np.cos(a)
    return list(shapely.polygons(np.stack([xs, ys], axis=-1)))


def _touched(polys: list[Polygon], models: list[Model]) -> np.ndarray:
    """For each template (row) and model (column): does the template touch the model's base or
    hull? Bases are exact circles (as ``geometry.distance``): the distance from the template to
    the base's centre, less its radius."""
    if not polys or not models:
        return np.zeros((len(polys), len(models)), dtype=bool)
    footprints = [footprint(m) for m in models]
    shapes_ = [shapely.Point(fp.cx, fp.cy) if isinstance(fp, g.Base) else fp.polygon() for fp in footprints]
    reach = np.array([fp.radius if isinstance(fp, g.Base) else 0.0 for fp in footprints])
    d = shapely.distance(np.array(polys, dtype=object)[:, None], np.array(shapes_, dtype=object)[None, :])
    touched: np.ndarray = d - reach[None, :] <= g.EPS
    return touched


@dataclass(frozen=True)
class TemplateReach:
    """The template turned round its narrow end: the sampled directions (degrees) that touch no
    other friendly model and cover the most models of the target (``most``)."""

    legal: tuple[float, ...]
    most: int


def template_reach(state: MatchState, firer: Firer) -> TemplateReach:
    origin, length = firer.shot.origin, firer.shot.weapon.range
    steps = round(360 / TEMPLATE_AIM_STEP_DEG)
    angles = [k * TEMPLATE_AIM_STEP_DEG for k in range(steps)]
    near = length + TEMPLATE_WIDE
    targets = [m for m in _targets(state, firer.shot.target) if g.distance(origin, footprint(m)) <= near]
    friends = [m for m in _friends(state, firer, True) if g.distance(origin, footprint(m)) <= near]
    if not targets:
        return TemplateReach((), 0)
    polys = _turned_templates(origin, length, angles)
    covered = _touched(polys, targets).sum(axis=1)
    clear = ~_touched(polys, friends).any(axis=1) if friends else np.ones(len(angles), dtype=bool)
    counts = np.where(clear, covered, 0)
    most = int(counts.max()) if len(counts) else 0
    if most == 0:
        return TemplateReach((), 0)
    return TemplateReach(tuple(a for a, n in zip(angles, counts, strict=True) if n == most), most)


def direction_intervals(legal: tuple[float, ...]) -> tuple[tuple[float, float], ...]:
    """Consecutive legal steps joined into [from, to] degrees, each step widened by half a step
    either side; an interval crossing 0 degrees runs past 360."""
    if not legal:
        return ()
    step = TEMPLATE_AIM_STEP_DEG
    runs: list[list[float]] = []
    for a in legal:
        if runs and abs(a - runs[-1][1] - step) < 1e-6:
            runs[-1][1] = a
        else:
            runs.append([a, a])
    full = 360.0 - step
    if len(runs) > 1 and runs[0][0] == 0.0 and abs(runs[-1][1] - full) < 1e-6:
        first = runs.pop(0)
        runs[-1][1] = first[1] + 360.0
    if len(runs) == 1 and runs[0][0] == 0.0 and abs(runs[0][1] - full) < 1e-6:
        return ((0.0, 360.0),)
    return tuple((r[0] - step / 2, r[1] + step / 2) for r in runs)


def _wedge(origin: g.Point, start: float, end: float, radius: float) -> Polygon:
    n = max(2, math.ceil((end - start) * WEDGE_POINTS_PER_DEG) + 1)
    arc = [
        (origin[0] + radius * math.cos(math.radians(a)), origin[1] + radius * math.sin(math.radians(a)))
        for a in np.linspace(start, end, n)
    ]
    if end - start >= 360.0:
        return Polygon(arc)
    return Polygon([origin, *arc])


def angle_of(origin: g.Point, toward: g.Point) -> float:
    """The direction from ``origin`` to ``toward`` in degrees, 0 <= a < 360."""
    return math.degrees(math.atan2(toward[1] - origin[1], toward[0] - origin[0])) % 360.0


def check_template(
    state: MatchState, firer: Firer, most: Callable[[], int], answer: Answer
) -> Rejection | None:
    """40k7 Weapons, Template: the template (narrow end at the firer) must touch no other
    friendly model and cover as many models of the target unit as any direction does."""
    problem = _answer_shape(answer, refs.TEMPLATE)
    if problem is not None or answer.aim is None:
        return problem
    origin = firer.shot.origin
    toward = (answer.aim.x, answer.aim.y)
    gap = math.hypot(toward[0] - origin[0], toward[1] - origin[1])
    if gap < MIN_AIM_DISTANCE:
        return reject(
            "no_direction",
            refs.TEMPLATE,
            f"aim at a point at least {MIN_AIM_DISTANCE:g}\" from the template's narrow end ({origin[0]:.2f}, {origin[1]:.2f})",
            distance=round(gap, 3),
            limit=MIN_AIM_DISTANCE,
        )
    poly = template_polygon(origin, toward, firer.shot.weapon.range)
    angle = round(angle_of(origin, toward), 1)
    for m in _friends(state, firer, True):
        if g.distance(poly, footprint(m)) <= g.EPS:
            return reject(
                "template_over_friendly",
                refs.TEMPLATE,
                f"the template aimed at {angle:g} deg touches the friendly model {m.id}",
                model=m.id,
                angle=angle,
            )
    covered = sum(1 for m in _targets(state, firer.shot.target) if g.distance(poly, footprint(m)) <= g.EPS)
    best = most()
    if covered < max(1, best):
        return reject(
            "template_not_most",
            refs.TEMPLATE,
            f"the template aimed at {angle:g} deg covers {plural(covered, 'model')} of "
            f"{state.units[firer.shot.target].name}; it must cover as many as possible ({best})",
            covered=covered,
            most=best,
            angle=angle,
        )
    return None


def aim_template(state: MatchState, ctx: ApplyContext, firer: Firer, label: str) -> g.Point:
    """The point the template points toward from its narrow end, as the firer answers (the
    proposal: the target's model nearest the firer). The legal directions are computed only for
    a player asked, or to check a player's answer."""
    if firer.shot.aim is not None:
        return firer.shot.aim  # aimed in advance by the Fire (checked with the Shoot)
    origin, w = firer.shot.origin, firer.shot.weapon
    proposal = nearest_point(state, firer.shot.target, origin)
    target = state.units[firer.shot.target]
    aim = Aim(
        shape="template",
        weapon=w.id,
        target=target.id,
        origin=Point(*origin),
        proposal=Point(*proposal),
        limits={"length": w.range, "narrow": TEMPLATE_NARROW, "wide": TEMPLATE_WIDE},
    )
    decision = Decision(
        id=f"aim-{ctx.seq}-{w.id}-{ctx.asked + 1}",
        side=firer.unit.side,
        kind=DECISION_AIM_TEMPLATE,
        options=(PROPOSAL, AIM),
        prompt=(
            f"{label}: turn the template round its narrow end to cover as many models of {target.name} "
            "as possible without touching another friendly model"
        ),
        rule=refs.TEMPLATE,
        proposal=PROPOSAL,
        aim=aim,
    )

    def detail(asked: Decision) -> Decision:
        reach = template_reach(state, firer)
        intervals = direction_intervals(reach.legal)
        area = unary_union([_wedge(origin, a, b, w.range) for a, b in intervals]) if intervals else Polygon()
        drawn = shapes(area)
        return replace(
            asked,
            prompt=_prompt(asked.prompt, drawn),
            aim=replace(
                aim,
                area=drawn,
                directions=tuple((round(a, 3), round(b, 3)) for a, b in intervals),
                limits={**aim.limits, "most": float(reach.most)},
            ),
        )

    answer = ctx.decide(
        decision,
        lambda given: check_template(state, firer, lambda: template_reach(state, firer).most, given),
        detail,
    )
    return proposal if answer.choice == PROPOSAL or answer.aim is None else (answer.aim.x, answer.aim.y)


def check_given_aim(state: MatchState, firer: Firer) -> Rejection | None:
    """A Fire's aim given in advance, checked as the aiming decision would check it (40k7
    Weapons, Blast / Template)."""
    given = firer.shot.aim
    assert given is not None
    answer = Answer(choice=AIM, aim=Point(*given))
    if firer.shot.blast is not None:
        return check_blast(state, firer, firer.shot.blast, answer)
    return check_template(state, firer, lambda: template_reach(state, firer).most, answer)


def _prompt(prompt: str, area: tuple[Shape, ...]) -> str:
    return prompt if area else f"{prompt} (no legal aim: take the proposal)"


def _answer_shape(answer: Answer, rule: str) -> Rejection | None:
    """``proposal`` takes no aim; ``aim`` needs one; an aim places no models."""
    if answer.place:
        return reject("place_not_asked", rule, "an aim places no models: give aim, not place")
    if answer.choice == PROPOSAL:
        if answer.aim is not None:
            return reject("aim_with_proposal", rule, "give aim only with the choice aim")
        return None
    if answer.aim is None:
        return reject("aim_missing", rule, "the choice aim needs aim: [x, y], the point aimed at")
    return None
