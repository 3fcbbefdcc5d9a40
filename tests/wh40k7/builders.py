"""Scenario builders for the 40k7 tests: units with real 7th edition profiles, a state factory
and helpers that validate and apply one action with fixed dice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from msgspec.structs import replace

from hulldown.match.actions import Action, Decide, EndPhase
from hulldown.match.reducer import initial_state
from hulldown.match.rejection import Rejection
from hulldown.match.scenario import Scenario, match_created
from hulldown.match.state import (
    Armour,
    HullFacing,
    LogRoll,
    MatchState,
    Mount,
    Options,
    Profile,
    Side,
    Terrain,
    Unit,
    Weapon,
    WeaponType,
)
from hulldown.rules.charging import DECISION_CHARGE
from hulldown.rules.dice import FixedDice
from tests.builders import (
    based_models,
    hull_model,
    multi_model_unit,
    rectangle,
    rejection_of,
    single_model_unit,
    validated_step,
)


def weapon(
    wid: str,
    name: str,
    rng: float,
    s: int,
    ap: int | None,
    *,
    type: WeaponType = "heavy",
    shots: int = 1,
    rules: tuple[str, ...] = (),
    mount: Mount | None = None,
    model: str = "",
) -> Weapon:
    return Weapon(
        id=wid,
        name=name,
        model=model,
        range=rng,
        strength=s,
        ap=ap,
        shots=shots,
        type=type,
        rules=rules,
        mount=mount or Mount(kind="turret"),
    )


def lascannon(wid: str = "lascannon", mount: Mount | None = None) -> Weapon:
    return weapon(wid, "Lascannon", 48, 9, 2, mount=mount)


def krak(wid: str = "krak") -> Weapon:
    return weapon(wid, "Krak missile", 48, 8, 3)


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
    keywords: tuple[str, ...] = ("tank",),
    length: float = 4.5,
    width: float = 3.5,
    weapons: Sequence[Weapon] = (),
    capacity: int = 0,
    access: tuple[HullFacing, ...] = (),
    squadron: str | None = None,
    ws: int = 0,
    s: int = 0,
    i: int = 0,
    a: int = 0,
    kind: str = "vehicle",
    base_mm: float | None = None,
) -> Unit:
    model = hull_model(uid, x, y, heading, length=length, width=width, base_mm=base_mm, hull=not base_mm)
    return single_model_unit(
        uid,
        side,
        model,
        name=name,
        kind=kind,  # type: ignore[arg-type]
        profile=Profile(
            bs=bs,
            ws=ws,
            s=s,
            i=i,
            a=a,
            armour=Armour(*armour),
            hp=hp,
            capacity=capacity,
            access=access,
        ),
        weapons=weapons,
        keywords=keywords,
        hp=hp,
        squadron=squadron,
    )


class VehicleBuilder(Protocol):
    def __call__(
        self, uid: str, side: Side, x: float, y: float, heading: float = 0.0, **kw: object
    ) -> Unit: ...


def _preset(defaults: dict[str, object]) -> VehicleBuilder:
    """A builder: ``vehicle`` with a model's profile as the defaults; keyword arguments override
    them."""

    def build(uid: str, side: Side, x: float, y: float, heading: float = 0.0, **kw: object) -> Unit:
        return vehicle(uid, side, x, y, heading, **{**defaults, **kw})  # type: ignore[arg-type]

    return build


RHINO: dict[str, object] = {
    "name": "Rhino",
    "armour": (11, 11, 10),
    "hp": 3,
    "keywords": ("tank", "transport"),
    "capacity": 10,
    "access": ("left", "right", "rear"),
}
PREDATOR: dict[str, object] = {"name": "Predator", "armour": (13, 11, 10), "hp": 3, "weapons": (lascannon(),)}
# A Space Marine Dreadnought: a Walker, WS4 S6 I4 A2, Armour 12/12/10, on a 2.5" square hull.
DREADNOUGHT: dict[str, object] = {
    "keywords": ("walker",),
    "kind": "walker",
    "ws": 4,
    "s": 6,
    "i": 4,
    "a": 2,
    "armour": (12, 12, 10),
    "length": 2.5,
    "width": 2.5,
}
# A light Fast Skimmer (a Land Speeder, a Vyper): Armour 10/10/10, 2 Hull Points, 3" x 2".
SPEEDER: dict[str, object] = {
    "keywords": ("fast", "skimmer"),
    "armour": (10, 10, 10),
    "hp": 2,
    "length": 3,
    "width": 2,
}
# A Flyer (every Flyer Zooms in these rules).
FLYER: dict[str, object] = {"keywords": ("flyer",)}


rhino = _preset(RHINO)
predator = _preset(PREDATOR)
dreadnought = _preset(DREADNOUGHT)
speeder = _preset(SPEEDER)
flyer = _preset(FLYER)


def infantry(
    uid: str,
    side: Side,
    positions: Sequence[tuple[float, float]],
    *,
    name: str = "",
    ws: int = 4,
    bs: int = 4,
    s: int = 4,
    t: int = 4,
    w: int = 1,
    i: int = 4,
    a: int = 1,
    ld: int = 8,
    sv: int | None = 3,
    inv: int | None = None,
    weapons: Sequence[tuple[int, Weapon]] = (),
    keywords: tuple[str, ...] = (),
    base_mm: float = 25.0,
) -> Unit:
    """A unit of models; ``weapons`` pairs a model index with a weapon it carries."""
    ws_map: dict[str, Weapon] = {}
    for idx, wp in weapons:
        wid = wp.id if wp.id not in ws_map else f"{wp.id}-{idx}"
        ws_map[wid] = replace(wp, id=wid, model=f"{uid}-{idx}")
    return multi_model_unit(
        uid,
        side,
        based_models(uid, positions, base_mm=base_mm, wounds=w),
        name=name,
        kind="infantry",
        profile=Profile(ws=ws, bs=bs, s=s, t=t, w=w, i=i, a=a, ld=ld, sv=sv, inv=inv),
        weapons=ws_map,
        keywords=keywords,
    )


def ruin(
    tid: str,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    save: int = 4,
    kinds: tuple[str, ...] = ("difficult", "blocks_los", "cover"),
) -> Terrain:
    return rectangle(tid, x0, y0, x1, y1, kinds, save)


def make_state(
    *units: Unit,
    terrain: Sequence[Terrain] = (),
    phase: str = "movement",
    active: Side = "a",
    player_turn: int = 1,
) -> MatchState:
    created = match_created("40k7", Scenario(units=tuple(units), terrain=tuple(terrain)), Options(), "test")
    state = initial_state("m-test", created)
    return replace(state, phase=phase, active=active, player_turn=player_turn, turn=(player_turn + 1) // 2)


class Result:
    """The state after an action; ``rolls`` and ``texts`` are those of its events (from
    ``since``, default the last event: an action and the answers it paused on span several)."""

    def __init__(self, state: MatchState, dice: FixedDice, since: int | None = None) -> None:
        self.state = state
        self.dice = dice
        self.since = state.seq if since is None else since

    @property
    def rolls(self) -> list[LogRoll]:
        return [r for e in self.state.log if e.seq >= self.since for r in e.rolls]

    @property
    def texts(self) -> list[str]:
        return [e.text for e in self.state.log if e.seq >= self.since]


def act(
    state: MatchState, side: Side, action: Action, dice: Sequence[int] = (), *, exact: bool = True
) -> Result:
    """Validate then apply one action with fixed dice; with ``exact`` every die must be used."""
    new, fixed = validated_step(state, side, action, dice, exact=exact)
    return Result(new, fixed)


def take_proposal(state: MatchState, kind: str, dice: Sequence[int] = ()) -> Result:
    """Answer the decision the state is paused on (docs/decisions.md) with the server's
    proposal, by the side it belongs to, with exactly these dice for the rest of the action."""
    pending = state.pending
    assert pending is not None and pending.kind == kind, f"expected a {kind} decision, got {pending}"
    assert state.suspended is not None
    return act(state, pending.side, Decide(pending.id, pending.proposal), dice)


def charge(
    state: MatchState, side: Side, action: Action, dice: Sequence[int] = (), *, exact: bool = True
) -> Result:
    """``act`` a charge and, when it pauses on the charge move (40k7 The Assault Phase, Charge;
    ``place_chargers``, docs/decisions.md), take the charging side's proposal: the straight move
    the server made before players were asked."""
    first = act(state, side, action, dice, exact=exact)
    if first.state.pending is None or first.state.pending.kind != DECISION_CHARGE:
        return first
    answered = take_proposal(first.state, DECISION_CHARGE)
    return Result(answered.state, first.dice, since=first.state.seq)


def end_phases(state: MatchState, n: int) -> MatchState:
    """End ``n`` phases in a row, each by the side to play, rolling no dice."""
    for _ in range(n):
        state = act(state, state.active, EndPhase()).state
    return state


def rejected(state: MatchState, side: Side, action: Action) -> Rejection:
    rejection = rejection_of(state, side, action)
    assert rejection is not None, f"expected a rejection for {action}"
    assert rejection.rule.startswith("40k7"), rejection.rule
    return rejection
