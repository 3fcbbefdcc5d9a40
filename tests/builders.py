"""The test builders every edition shares: models, units, terrain, states and one validated step.

Each edition's builders (tests/wh40k7/builders.py, tests/hh3/builders.py,
tests/wh40k11/builders.py) and the cross-edition scenarios (tests/scenarios.py) are presets on
top of these: they choose the profile defaults of their edition, these build the structs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from msgspec.structs import replace

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
    UnitKind,
    Weapon,
)
from hulldown.match.validate import validate
from hulldown.rules.dice import FixedDice


def hull_model(
    uid: str,
    x: float,
    y: float,
    heading: float = 0.0,
    *,
    length: float,
    width: float,
    base_mm: float | None = None,
    wounds: int = 1,
    hull: bool = True,
) -> Model:
    """The one model of a vehicle or monster unit, id ``<uid>-m``; ``hull=False`` leaves only
    its base (a model on a round base)."""
    return Model(
        id=f"{uid}-m",
        pos=Point(x, y),
        heading=heading,
        hull=HullSize(length, width) if hull else None,
        base_mm=base_mm,
        wounds=wounds,
    )


def single_model_unit(
    uid: str,
    side: Side,
    model: Model,
    *,
    kind: UnitKind,
    profile: Profile,
    name: str = "",
    weapons: Iterable[Weapon] = (),
    bind_weapons: bool = True,
    keywords: tuple[str, ...] = (),
    **fields: object,
) -> Unit:
    """A unit of one model (a vehicle, a walker, a monster); its weapons are carried by that
    model unless ``bind_weapons`` is off. ``fields`` are further Unit fields (hp, faction...)."""
    carried = {w.id: replace(w, model=model.id) if bind_weapons else w for w in weapons}
    return multi_model_unit(
        uid,
        side,
        {model.id: model},
        kind=kind,
        profile=profile,
        weapons=carried,
        name=name,
        keywords=keywords,
        **fields,
    )


def based_models(
    uid: str,
    positions: Iterable[tuple[float, float]],
    *,
    base_mm: float,
    wounds: int = 1,
    first: int = 0,
    bulky: int = 1,
) -> dict[str, Model]:
    """Models on round bases at ``positions``, ids ``<uid>-<first>``, ``<uid>-<first + 1>``..."""
    return {
        f"{uid}-{k}": Model(id=f"{uid}-{k}", pos=Point(x, y), base_mm=base_mm, wounds=wounds, bulky=bulky)
        for k, (x, y) in enumerate(positions, start=first)
    }


def multi_model_unit(
    uid: str,
    side: Side,
    models: Mapping[str, Model],
    *,
    kind: UnitKind,
    profile: Profile,
    weapons: Mapping[str, Weapon],
    name: str = "",
    keywords: tuple[str, ...] = (),
    **fields: object,
) -> Unit:
    """A unit of several models (infantry, a squad); ``weapons`` already name their models."""
    return Unit(
        id=uid,
        side=side,
        name=name or uid,
        kind=kind,
        profile=profile,
        models=dict(models),
        weapons=dict(weapons),
        keywords=keywords,
        **fields,  # type: ignore[arg-type]
    )


def rectangle(
    tid: str,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    kinds: tuple[str, ...],
    cover_save: int | None = None,
    level: int = 0,
) -> Terrain:
    """An axis-aligned piece of terrain from (x0, y0) to (x1, y1)."""
    return Terrain(
        id=tid,
        points=(Point(x0, y0), Point(x1, y0), Point(x1, y1), Point(x0, y1)),
        kinds=kinds,
        cover_save=cover_save,
        level=level,
    )


def validated_step(
    state: MatchState,
    side: Side,
    action: Action,
    dice: Sequence[int] | Iterable[int] = (),
    *,
    exact: bool = True,
) -> tuple[MatchState, FixedDice]:
    """Validate ``action`` (it must be legal), then fold it as the next event with fixed dice;
    with ``exact`` every die given must be used."""
    rejection = validate(state, side, action)
    assert rejection is None, f"unexpectedly rejected: {rejection}"
    fixed = FixedDice(dice)
    event = Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"t{state.seq + 1}", body=action)
    new = evolve(state, event, fixed)
    if exact:
        assert fixed.remaining == 0, (
            f"{fixed.remaining} fixed dice left unused; log: {[e.text for e in new.log[-8:]]}"
        )
    return new, fixed


def rejection_of(state: MatchState, side: Side, action: Action) -> Rejection | None:
    """What validation says of ``action`` (None when it is legal)."""
    return validate(state, side, action)
