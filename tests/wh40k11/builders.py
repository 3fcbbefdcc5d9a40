"""Scenario builders for the 40k11 tests: units, weapons, states and a validate-then-evolve step."""

from __future__ import annotations

from collections.abc import Iterable

from hulldown.match.actions import Action
from hulldown.match.events import Event
from hulldown.match.reducer import evolve
from hulldown.match.rejection import Rejection
from hulldown.match.state import (
    HullSize,
    MatchState,
    Model,
    Point,
    Profile,
    Side,
    Terrain,
    Unit,
    Weapon,
    WeaponType,
)
from hulldown.match.validate import validate
from hulldown.rules.dice import FixedDice


def weapon(
    wid: str,
    model: str,
    *,
    rng: float = 24.0,
    s: int = 4,
    ap: int = 0,
    d: int = 1,
    shots: int = 1,
    rules: tuple[str, ...] = (),
    kind: WeaponType = "assault",
) -> Weapon:
    return Weapon(
        id=wid,
        name=wid,
        model=model,
        range=rng,
        strength=s,
        ap=ap,
        damage=d,
        shots=shots,
        rules=rules,
        type=kind,
    )


def infantry(
    uid: str,
    side: Side,
    positions: Iterable[tuple[float, float]],
    *,
    weapons: Iterable[Weapon] = (),
    bs: int = 3,
    ws: int = 3,
    s: int = 4,
    t: int = 4,
    sv: int | None = 3,
    inv: int | None = None,
    w: int = 1,
    a: int = 1,
    m: float = 6.0,
    base_mm: float = 32.0,
    keywords: tuple[str, ...] = ("infantry",),
) -> Unit:
    models = {
        f"{uid}-{i}": Model(id=f"{uid}-{i}", pos=Point(x, y), base_mm=base_mm, wounds=w)
        for i, (x, y) in enumerate(positions, start=1)
    }
    return Unit(
        id=uid,
        side=side,
        name=uid,
        kind="infantry",
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, a=a, sv=sv, inv=inv),
        models=models,
        weapons={wp.id: wp for wp in weapons},
        keywords=keywords,
    )


def vehicle(
    uid: str,
    side: Side,
    x: float,
    y: float,
    heading: float = 0.0,
    *,
    weapons: Iterable[Weapon] = (),
    length: float = 6.0,
    width: float = 4.0,
    base_mm: float | None = None,
    keywords: tuple[str, ...] = ("vehicle", "frame"),
    bs: int = 3,
    ws: int = 4,
    s: int = 6,
    t: int = 10,
    sv: int | None = 3,
    w: int = 12,
    a: int = 3,
    m: float = 10.0,
) -> Unit:
    """A one-model MONSTER/VEHICLE unit; its model id is ``<uid>-m``."""
    model = Model(
        id=f"{uid}-m",
        pos=Point(x, y),
        heading=heading,
        hull=HullSize(length, width),
        base_mm=base_mm,
        wounds=w,
    )
    return Unit(
        id=uid,
        side=side,
        name=uid,
        kind="monster" if "monster" in keywords else "vehicle",
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, a=a, sv=sv),
        models={model.id: model},
        weapons={wp.id: wp for wp in weapons},
        keywords=keywords,
    )


def state(
    *units: Unit, phase: str = "movement", active: Side = "a", terrain: Iterable[Terrain] = ()
) -> MatchState:
    return MatchState(
        match_id="t40k11",
        edition="40k11",
        seq=1,
        phase=phase,
        active=active,
        units={u.id: u for u in units},
        terrain={t.id: t for t in terrain},
    )


def check(s: MatchState, action: Action, side: Side | None = None) -> Rejection | None:
    return validate(s, side or s.active, action)


def step(s: MatchState, action: Action, dice: Iterable[int] = (), side: Side | None = None) -> MatchState:
    """Validate (must pass), then evolve with fixed dice, which must all be used."""
    by = side or s.active
    problem = validate(s, by, action)
    assert problem is None, problem
    fixed = FixedDice(dice)
    new = evolve(s, Event(seq=s.seq + 1, at=0.0, by=by, action_id=f"t{s.seq + 1}", body=action), fixed)
    assert fixed.remaining == 0, f"{fixed.remaining} fixed dice unused"
    return new


def rolls(s: MatchState) -> list[tuple[str, int, str]]:
    """Every roll in the log window as (purpose, face, outcome)."""
    return [(r.purpose, r.value, r.outcome) for e in s.log for r in e.rolls]
