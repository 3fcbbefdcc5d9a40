"""Scenario builders for the 40k11 tests: units, weapons, states and a validate-then-evolve step."""

from __future__ import annotations

from collections.abc import Iterable

from hulldown.match.actions import Action, Decide
from hulldown.match.rejection import Rejection
from hulldown.match.state import (
    MatchState,
    Profile,
    Side,
    Terrain,
    Unit,
    Weapon,
    WeaponType,
)
from tests.builders import (
    based_models,
    hull_model,
    multi_model_unit,
    rejection_of,
    single_model_unit,
    validated_step,
)


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
    ld: int = 7,
) -> Unit:
    return multi_model_unit(
        uid,
        side,
        based_models(uid, positions, base_mm=base_mm, wounds=w, first=1),
        kind="infantry",
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, a=a, sv=sv, inv=inv, ld=ld),
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
    model = hull_model(uid, x, y, heading, length=length, width=width, base_mm=base_mm, wounds=w)
    return single_model_unit(
        uid,
        side,
        model,
        kind="monster" if "monster" in keywords else "vehicle",
        profile=Profile(m=m, ws=ws, bs=bs, s=s, t=t, w=w, a=a, sv=sv),
        weapons=weapons,
        bind_weapons=False,
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
    return rejection_of(s, side or s.active, action)


def step(s: MatchState, action: Action, dice: Iterable[int] = (), side: Side | None = None) -> MatchState:
    """Validate (must pass), then evolve with fixed dice, which must all be used."""
    return validated_step(s, side or s.active, action, dice)[0]


def take_proposal(s: MatchState, kind: str, dice: Iterable[int] = ()) -> MatchState:
    """Answer the decision the state is paused on (docs/decisions.md) with the server's
    proposal, by the side it belongs to, with exactly these dice for the rest of the action."""
    pending = s.pending
    assert pending is not None and pending.kind == kind, f"expected a {kind} decision, got {pending}"
    assert s.suspended is not None
    return step(s, Decide(pending.id, pending.proposal), dice, side=pending.side)


def rolls(s: MatchState) -> list[tuple[str, int, str]]:
    """Every roll in the log window as (purpose, face, outcome)."""
    return [(r.purpose, r.value, r.outcome) for e in s.log for r in e.rolls]
