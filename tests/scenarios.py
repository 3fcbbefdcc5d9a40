"""Scenario builders shared by the tests: real profiles from the rulebooks' examples."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import (
    Armour,
    Edition,
    HullSize,
    Model,
    Mount,
    Options,
    Point,
    Profile,
    Side,
    Terrain,
    Unit,
    Weapon,
)


def vehicle(
    uid: str,
    side: Side,
    x: float,
    y: float,
    heading: float = 0.0,
    *,
    name: str = "",
    armour: tuple[int, int, int] = (11, 11, 10),
    hp: int = 3,
    bs: int = 4,
    keywords: tuple[str, ...] = ("tank", "transport"),
    length: float = 4.5,
    width: float = 3.5,
    weapons: tuple[Weapon, ...] = (),
    m: float = 12.0,
) -> Unit:
    model = Model(id=f"{uid}-m", pos=Point(x, y), heading=heading, hull=HullSize(length, width))
    return Unit(
        id=uid,
        side=side,
        name=name or uid,
        kind="vehicle",
        profile=Profile(m=m, bs=bs, armour=Armour(*armour), hp=hp),
        models={model.id: model},
        weapons={w.id: replace(w, model=model.id) for w in weapons},
        keywords=keywords,
        hp=hp,
    )


def lascannon(wid: str = "lascannon", mount: Mount | None = None) -> Weapon:
    return Weapon(
        id=wid,
        name="Lascannon",
        model="",
        range=48,
        strength=9,
        ap=2,
        type="heavy",
        mount=mount or Mount(kind="turret"),
    )


def rhino(uid: str, side: Side, x: float, y: float, heading: float = 0.0) -> Unit:
    return vehicle(uid, side, x, y, heading, name="Rhino", armour=(11, 11, 10), hp=3)


def predator(uid: str, side: Side, x: float, y: float, heading: float = 0.0) -> Unit:
    return vehicle(
        uid,
        side,
        x,
        y,
        heading,
        name="Predator",
        armour=(13, 11, 10),
        hp=3,
        keywords=("tank",),
        weapons=(lascannon("lascannon", Mount(kind="turret")),),
    )


def duel(edition: Edition = "40k7") -> CreateMatch:
    """A Predator (side a) and a Rhino (side b) 30" apart on an empty 72x48 table."""
    return CreateMatch(
        edition=edition,
        scenario=Scenario(
            units=(predator("predator-1", "a", 10, 24), rhino("rhino-1", "b", 40, 24, 180)),
            terrain=(
                Terrain(
                    id="ruin-1",
                    points=(Point(30, 5), Point(34, 5), Point(34, 9), Point(30, 9)),
                    kinds=("difficult", "blocks_los", "cover"),
                    cover_save=4,
                ),
            ),
        ),
        options=Options(),
    )
