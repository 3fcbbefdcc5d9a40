"""The 40k7 geometry caches and cheap rejections (docs/architecture.md, section 7) never change an
answer: base contact (40k7 Vehicles and Close Combat: models in base contact) and "within"
distances (40k7 "Vehicles and measuring distances": to the hull or the base edge) agree with the
exact closest-point distance for random placements of hulls and bases, near and far; the
end-of-assault contact pairs kept per units map equal the pairs found from scratch."""

from __future__ import annotations

import math
import random

from msgspec.structs import replace

from hulldown.match.state import HullSize, MatchState, Model, Point, Profile, Unit
from hulldown.rules import geometry as g
from hulldown.rules.wh40k7.geo import (
    CONTACT_EPS,
    contact_pairs,
    footprint,
    in_contact,
    model_reach,
    on_table,
    unit_bounds,
    units_within,
)
from hulldown.rules.wh40k7.pivot import contact_enemies


def _model(rng: random.Random, mid: str, x: float, y: float) -> Model:
    if rng.random() < 0.5:
        return Model(
            id=mid,
            pos=Point(x, y),
            heading=rng.uniform(0, 360),
            hull=HullSize(length=rng.uniform(2.0, 7.0), width=rng.uniform(1.5, 4.0)),
        )
    return Model(id=mid, pos=Point(x, y), base_mm=rng.choice([25.0, 32.0, 40.0, 60.0]))


def _unit(rng: random.Random, uid: str, side: str, centre: tuple[float, float], spread: float) -> Unit:
    models = {}
    for k in range(rng.randint(1, 4)):
        mid = f"{uid}-m{k}"
        x = centre[0] + rng.uniform(-spread, spread)
        y = centre[1] + rng.uniform(-spread, spread)
        models[mid] = _model(rng, mid, x, y)
    return Unit(
        id=uid,
        side="a" if side == "a" else "b",
        name=uid,
        kind="infantry",
        profile=Profile(),
        models=models,
    )


def _exact_within(a: Unit, b: Unit, d: float) -> bool:
    return any(
        g.distance(footprint(ma), footprint(mb)) <= d + g.EPS
        for ma in a.models.values()
        if ma.alive
        for mb in b.models.values()
        if mb.alive
    )


def test_units_within_agrees_with_the_exact_distance() -> None:
    rng = random.Random(19)
    checked = {True: 0, False: 0}
    for k in range(400):
        a = _unit(rng, f"a{k}", "a", (30.0, 24.0), rng.uniform(0.5, 5.0))
        b = _unit(rng, f"b{k}", "b", (30.0 + rng.uniform(-14, 14), 24.0 + rng.uniform(-9, 9)), 3.0)
        for d in (CONTACT_EPS, 1.0, 2.0, 6.0):
            expected = _exact_within(a, b, d)
            assert units_within(a, b, d) == expected, (k, d)
            assert units_within(a, b, d) == expected  # asked again: from the caches
            checked[expected] += 1
    assert checked[True] > 200 and checked[False] > 200  # both answers were exercised


def test_the_unit_circle_holds_every_model() -> None:
    """The circle is worked out without footprints: each living model's footprint lies inside it,
    and a model's reach is its footprint's, exactly."""
    rng = random.Random(7)
    for k in range(200):
        unit = _unit(rng, f"u{k}", "a", (20.0, 20.0), rng.uniform(0.5, 8.0))
        if k % 5 == 0:  # some models dead: the circle holds the living ones
            first = next(iter(unit.models))
            unit = replace(unit, models={**unit.models, first: replace(unit.models[first], alive=False)})
        bounds = unit_bounds(unit)
        living = [m for m in unit.models.values() if m.alive]
        assert bounds.empty == (not living)
        for m in living:
            f = footprint(m)
            assert model_reach(m) == f.reach
            assert math.hypot(f.cx - bounds.cx, f.cy - bounds.cy) + f.reach <= bounds.radius + 1e-9


def test_in_contact_agrees_with_the_exact_distance_at_the_contact_tolerance() -> None:
    rng = random.Random(3)
    touching = 0
    for k in range(600):
        a = _model(rng, f"a{k}", 30.0, 24.0)
        fa = footprint(a)
        # Put the other model so its centre lies at a random distance from just inside contact
        # to well apart, along a random direction.
        b = _model(rng, f"b{k}", 0.0, 0.0)
        angle = rng.uniform(0, 2 * math.pi)
        r = fa.reach + footprint(b).reach + rng.uniform(-1.5, 1.0)
        b = replace(b, pos=Point(30.0 + r * math.cos(angle), 24.0 + r * math.sin(angle)))
        expected = g.distance(fa, footprint(b)) <= CONTACT_EPS
        assert in_contact(a, b) == expected, k
        touching += expected
    assert 50 < touching < 550


def test_contact_pairs_per_units_map_equal_the_pairs_from_scratch() -> None:
    rng = random.Random(11)
    for k in range(40):
        units = {}
        for i in range(rng.randint(2, 14)):
            side = "a" if i % 2 == 0 else "b"
            centre = (rng.uniform(5, 67), rng.uniform(5, 43))
            units[f"u{k}-{i}"] = _unit(rng, f"u{k}-{i}", side, centre, 1.5)
        state = MatchState(match_id="m", edition="40k7", units=units)
        for side in ("a", "b"):
            expected = tuple(
                (u.id, e.id)
                for u in units.values()
                if u.side == side and on_table(u)
                for e in units.values()
                if e.side != side and on_table(e) and _exact_within(u, e, CONTACT_EPS)
            )
            assert contact_pairs(state.units, side) == expected
            assert contact_pairs(state.units, side) == expected  # kept: the same answer
        # A unit moves into contact: a new units map, a fresh answer.
        first = next(iter(units.values()))
        enemy = next(u for u in units.values() if u.side != first.side)
        lead = next(iter(enemy.models.values()))
        gap = footprint(lead).reach + max(footprint(m).reach for m in first.models.values())
        moved_models = {
            mid: replace(m, pos=Point(lead.pos.x + gap * 0.5, lead.pos.y)) for mid, m in first.models.items()
        }
        moved = {**units, first.id: replace(first, models=moved_models)}
        assert (first.id, enemy.id) in contact_pairs(moved, first.side)


def test_the_pivots_contact_check_passes_over_far_units_only() -> None:
    """Seed 001, Vehicles and Close Combat (the enemy models in base contact a pivot moves aside):
    the pivot's check skips an enemy unit whose bounding circle is out of contact range; it
    finds exactly the models a model-by-model check finds, for vehicles ringed by enemy units
    at random, near and far."""
    rng = random.Random(23)
    found = 0
    for k in range(150):
        vehicle = replace(
            _unit(rng, f"v{k}", "a", (36.0, 24.0), 0.0),
            models={
                f"v{k}-m": Model(
                    id=f"v{k}-m",
                    pos=Point(36.0, 24.0),
                    heading=rng.uniform(0, 360),
                    hull=HullSize(length=rng.uniform(3.0, 7.0), width=rng.uniform(2.0, 4.0)),
                )
            },
        )
        units = {vehicle.id: vehicle}
        for i in range(rng.randint(1, 6)):
            angle = rng.uniform(0, 2 * math.pi)
            reach = rng.uniform(1.0, 8.0)
            centre = (36.0 + reach * math.cos(angle), 24.0 + reach * math.sin(angle))
            side = "b" if i % 3 else "a"  # a friendly unit now and then: never in the answer
            units[f"e{k}-{i}"] = _unit(rng, f"e{k}-{i}", side, centre, rng.uniform(0.5, 3.0))
        state = MatchState(match_id="m", edition="40k7", units=units)
        expected = [
            (other.id, m.id)
            for other in units.values()
            if other.side != vehicle.side and on_table(other)
            for m in other.models.values()
            if m.alive and any(in_contact(h, m) for h in vehicle.models.values())
        ]
        got = [(other.id, m.id) for other, m in contact_enemies(state, vehicle)]
        assert got == expected, k
        found += len(got)
    assert found > 20  # models in contact were found, not only far units skipped
