"""Scenario builders and helpers for the hh3 tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec.structs import replace

from hulldown.match.actions import Action
from hulldown.match.events import Event, MatchCreated
from hulldown.match.reducer import evolve, initial_state
from hulldown.match.rejection import Rejection
from hulldown.match.state import (
    Armour,
    Battlefield,
    HullFacing,
    HullSize,
    MatchState,
    Model,
    Mount,
    Options,
    Point,
    Profile,
    Side,
    Terrain,
    Unit,
    UnitKind,
    Weapon,
    WeaponType,
)
from hulldown.match.validate import validate
from hulldown.rules.dice import FixedDice

FACTION = "legiones-astartes"


def weapon(
    wid: str,
    *,
    strength: int = 9,
    ap: int | None = 2,
    damage: int = 1,
    shots: int = 1,
    rng: float = 48.0,
    mount: Mount | None = None,
    rules: tuple[str, ...] = (),
    kind: WeaponType = "heavy",
    model: str = "",
) -> Weapon:
    return Weapon(
        id=wid,
        name=wid,
        model=model,
        range=rng,
        strength=strength,
        ap=ap,
        damage=damage,
        shots=shots,
        type=kind,
        rules=rules,
        mount=mount or Mount(kind="turret"),
    )


def tank(
    uid: str,
    side: Side,
    x: float,
    y: float,
    heading: float = 0.0,
    *,
    armour: tuple[int, int, int] = (13, 12, 10),
    hp: int = 3,
    bs: int = 4,
    m: float = 10.0,
    keywords: tuple[str, ...] = (),
    weapons: Sequence[Weapon] = (),
    capacity: int = 0,
    access: tuple[HullFacing, ...] = (),
    faction: str = FACTION,
    length: float = 5.0,
    width: float = 3.0,
    inv: int | None = None,
    passengers: tuple[str, ...] = (),
) -> Unit:
    model = Model(id=f"{uid}-m", pos=Point(x, y), heading=heading, hull=HullSize(length, width))
    return Unit(
        id=uid,
        side=side,
        name=uid,
        kind="vehicle",
        profile=Profile(
            m=m,
            bs=bs,
            armour=Armour(*armour),
            hp=hp,
            capacity=capacity,
            access=access,
            inv=inv,
        ),
        models={model.id: model},
        weapons={w.id: replace(w, model=model.id) for w in weapons},
        keywords=keywords,
        faction=faction,
        hp=hp,
        passengers=passengers,
    )


def transport(
    uid: str,
    side: Side,
    x: float,
    y: float,
    heading: float = 0.0,
    *,
    capacity: int = 12,
    access: tuple[HullFacing, ...] = ("left", "right", "rear"),
    keywords: tuple[str, ...] = (),
    armour: tuple[int, int, int] = (11, 11, 10),
    hp: int = 3,
    faction: str = FACTION,
    passengers: tuple[str, ...] = (),
    weapons: Sequence[Weapon] = (),
) -> Unit:
    """A Rhino-like transport: AV 11/11/10, 3 HP, access points left, right and rear."""
    return tank(
        uid,
        side,
        x,
        y,
        heading,
        capacity=capacity,
        access=access,
        keywords=(*keywords, "transport"),
        armour=armour,
        hp=hp,
        faction=faction,
        passengers=passengers,
        weapons=weapons,
    )


def squad(
    uid: str,
    side: Side,
    positions: Iterable[tuple[float, float]],
    *,
    kind: UnitKind = "infantry",
    ws: int = 4,
    bs: int = 4,
    s: int = 4,
    t: int = 4,
    w: int = 1,
    i: int = 4,
    a: int = 1,
    cool: int = 8,
    sv: int | None = 3,
    inv: int | None = None,
    m: float = 7.0,
    bulky: int = 1,
    faction: str = FACTION,
    gun: Weapon | None = None,
    melee: Weapon | None = None,
    keywords: tuple[str, ...] = (),
    embarked_in: str | None = None,
) -> Unit:
    models: dict[str, Model] = {}
    weapons: dict[str, Weapon] = {}
    for n, (x, y) in enumerate(positions, start=1):
        mid = f"{uid}-{n}"
        models[mid] = Model(id=mid, pos=Point(x, y), base_mm=32.0, wounds=w, bulky=bulky)
        if gun is not None:
            weapons[f"{mid}-gun"] = replace(gun, id=f"{mid}-gun", model=mid)
        if melee is not None:
            weapons[f"{mid}-melee"] = replace(melee, id=f"{mid}-melee", model=mid)
    return Unit(
        id=uid,
        side=side,
        name=uid,
        kind=kind,
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, i=i, a=a, cool=cool, sv=sv, inv=inv),
        models=models,
        weapons=weapons,
        keywords=keywords,
        faction=faction,
        embarked_in=embarked_in,
    )


def row(x: float, y: float, n: int, gap: float = 1.5) -> list[tuple[float, float]]:
    return [(x + k * gap, y) for k in range(n)]


def bolter() -> Weapon:
    return weapon("bolter", strength=4, ap=5, rng=24.0, kind="rapid_fire")


def make(
    units: Sequence[Unit],
    *,
    terrain: Sequence[Terrain] = (),
    phase: str = "movement",
    active: Side = "a",
    options: Options | None = None,
) -> MatchState:
    created = MatchCreated(
        edition="hh3",
        battlefield=Battlefield(),
        terrain=tuple(terrain),
        units=tuple(units),
        options=options or Options(),
        commitment="test",
        first=active,
    )
    return replace(initial_state("m-test", created), phase=phase)


def rejection(state: MatchState, side: Side, action: Action) -> Rejection | None:
    return validate(state, side, action)


def act(state: MatchState, side: Side, action: Action, dice: Sequence[int] = ()) -> MatchState:
    """Validate (it must pass), then apply with exactly these dice (all must be used)."""
    why = validate(state, side, action)
    assert why is None, f"unexpected rejection: {why}"
    fixed = FixedDice(dice)
    event = Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"t{state.seq + 1}", body=action)
    new = evolve(state, event, fixed)
    assert fixed.remaining == 0, f"{fixed.remaining} dice left unused"
    return new


def log_text(state: MatchState) -> str:
    return "\n".join(e.text for e in state.log)


def rolls(state: MatchState, seq: int | None = None) -> list[tuple[str, int]]:
    at = state.seq if seq is None else seq
    return [(r.purpose, r.value) for e in state.log if e.seq == at for r in e.rolls]


def wall(
    tid: str,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    *kinds: str,
    cover: int | None = None,
    level: int = 0,
) -> Terrain:
    return Terrain(
        id=tid,
        points=(Point(x0, y0), Point(x1, y0), Point(x1, y1), Point(x0, y1)),
        kinds=kinds,
        cover_save=cover,
        level=level,
    )
