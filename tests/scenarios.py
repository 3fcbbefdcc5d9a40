"""Scenario builders shared by the tests: real profiles from the rulebooks' examples."""

from __future__ import annotations

from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import (
    Armour,
    Edition,
    Mount,
    Options,
    Profile,
    Side,
    Unit,
    Weapon,
)
from tests.builders import (
    hull_model,
    rectangle,
    single_model_unit,
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
    return single_model_unit(
        uid,
        side,
        hull_model(uid, x, y, heading, length=length, width=width),
        name=name,
        kind="vehicle",
        profile=Profile(m=m, bs=bs, armour=Armour(*armour), hp=hp),
        weapons=weapons,
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
            terrain=(rectangle("ruin-1", 30, 5, 34, 9, ("difficult", "blocks_los", "cover"), 4),),
        ),
        options=Options(),
    )
