"""Scenario builders and helpers for the hh3 tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from msgspec.structs import replace

from hulldown.match.actions import Action, Decide
from hulldown.match.events import MatchCreated
from hulldown.match.reducer import initial_state
from hulldown.match.rejection import Rejection
from hulldown.match.state import (
    Armour,
    Battlefield,
    HullFacing,
    MatchState,
    Mount,
    Options,
    Profile,
    Side,
    Terrain,
    Unit,
    UnitKind,
    Weapon,
    WeaponType,
)
from hulldown.rules.charging import DECISION_CHARGE
from tests.builders import (
    based_models,
    hull_model,
    multi_model_unit,
    rectangle,
    rejection_of,
    single_model_unit,
    validated_step,
)

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
    model = hull_model(uid, x, y, heading, length=length, width=width)
    return single_model_unit(
        uid,
        side,
        model,
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
        weapons=weapons,
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
    models = based_models(uid, positions, base_mm=32.0, wounds=w, first=1, bulky=bulky)
    weapons: dict[str, Weapon] = {}
    for mid in models:
        if gun is not None:
            weapons[f"{mid}-gun"] = replace(gun, id=f"{mid}-gun", model=mid)
        if melee is not None:
            weapons[f"{mid}-melee"] = replace(melee, id=f"{mid}-melee", model=mid)
    return multi_model_unit(
        uid,
        side,
        models,
        kind=kind,
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, i=i, a=a, cool=cool, sv=sv, inv=inv),
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
    return rejection_of(state, side, action)


def act(state: MatchState, side: Side, action: Action, dice: Sequence[int] = ()) -> MatchState:
    """Validate (it must pass), then apply with exactly these dice (all must be used)."""
    return validated_step(state, side, action, dice)[0]


def take_proposal(state: MatchState, kind: str, dice: Sequence[int] = ()) -> MatchState:
    """Answer the decision the state is paused on (docs/decisions.md) with the server's
    proposal, by the side it belongs to, with exactly these dice for the rest of the action."""
    pending = state.pending
    assert pending is not None and pending.kind == kind, f"expected a {kind} decision, got {pending}"
    assert state.suspended is not None
    return act(state, pending.side, Decide(pending.id, pending.proposal), dice)


def charge(state: MatchState, side: Side, action: Action, dice: Sequence[int] = ()) -> MatchState:
    """``act`` a charge (or the answer that resumes one) and, when it pauses on the charge move
    (hh3 core, Charge Procedure step 5; ``place_chargers``, docs/decisions.md), take the charging
    side's proposal: the straight move the server made before players were asked."""
    state = act(state, side, action, dice)
    if state.pending is not None and state.pending.kind == DECISION_CHARGE:
        return take_proposal(state, DECISION_CHARGE)
    return state


def log_text(state: MatchState) -> str:
    return "\n".join(e.text for e in state.log)


def rolls_since(state: MatchState, seq: int) -> list[tuple[str, int]]:
    """The rolls of every event from ``seq`` on: an action paused on a decision and its answers."""
    return [(r.purpose, r.value) for e in state.log if e.seq >= seq for r in e.rolls]


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
    return rectangle(tid, x0, y0, x1, y1, kinds, cover, level)
