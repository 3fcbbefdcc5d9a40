"""What a unit may do now, decided by validation itself (docs/table.md, "What the unit may do").

For every kind of action a representative of that kind is built for the unit (a short step along
its heading, a pivot of 15 degrees, its first ranged weapon at the nearest enemy, a charge and a
fight at the nearest enemy, an embark into the nearest transport of its side, a disembark with no
model placed yet, ...) and run through :func:`match.validate.validate`, exactly as ``act`` would
run it. A kind is *open* when the representative is accepted or refused only for its particulars
(too far, out of range, ends on a model: a different path or target could be legal); it is
*closed* when the refusal is about the unit, the phase or the turn - a code in
:data:`CLOSED_CODES`, which names no rule of its own: every reason is the edition's rejection.
"""

from __future__ import annotations

import math
import typing

import msgspec

from .actions import (
    Abandon,
    Challenge,
    Charge,
    Disembark,
    Embark,
    Fight,
    Fire,
    Join,
    Leave,
    Manifest,
    Move,
    MoveKind,
    Pivot,
    PlayAction,
    Shoot,
)
from .editions import rules_for
from .rejection import Rejection
from .state import MatchState, Point, Side, Unit
from .validate import validate

# Refusals that close a kind of action for this unit now (whatever its path or target): the
# phase, the turn, the unit's own state. Every other refusal is about the representative's
# particulars, so the kind stays open.
CLOSED_CODES = frozenset(
    {
        "wrong_phase", "not_your_turn", "not_your_unit", "unit_destroyed", "match_ended",
        "decision_pending", "unsupported_action", "unsupported_move", "unknown_unit",
        "already_moved", "already_shot", "already_fought", "already_charged", "already_advanced",
        "already_embarked", "already_in_contact", "advanced", "fell_back", "rushed", "falling_back",
        "immobilised", "stunned", "pinned", "locked_in_combat", "engaged", "engaged_cannot_shoot",
        "engaged_must_fall_back", "not_engaged", "embarked", "not_embarked", "not_a_vehicle",
        "not_a_transport", "not_a_tank", "not_infantry", "not_in_squadron", "not_immobilised",
        "vehicle_cannot_charge", "vehicle_cannot_attack", "cannot_run", "cannot_flat_out",
        "heavy_no_flat_out", "cannot_charge", "cannot_fight", "cannot_embark", "no_weapons",
        "no_rush", "no_charge", "no_battlesmith", "battlesmith_used", "disembarked_no_rush",
        "zooming_flyer", "flyer_stunned", "not_on_table", "tank_shocked", "regrouped",
        "transport_used", "transport_rushed", "transport_unloaded", "embark_disembark_same_turn",
        "embark_and_disembark", "charge_failed", "nobody_fights", "fight_started", "passengers_fired",
        "no_decision_pending", "takeback_pending", "not_a_psyker", "not_enough_warp_charge",
        "not_a_paragon", "not_one_model", "left_this_turn", "joined_this_turn", "disembarked_this_turn",
        "last_model", "already_challenged", "routed", "no_smash",
    }
)  # fmt: skip

# Kinds listed only when open: a choice only some units ever have (a unit without Smash never
# makes a Smash Attack: listing it "not now" on every card would say it might some time).
SMASH_KIND = "fight:smash"
LISTED_ONLY_WHEN_OPEN = frozenset({SMASH_KIND})

STEP_IN = 0.5  # the representative move: half an inch along the unit's heading
PIVOT_STEP_DEG = 15.0  # the representative pivot


class UnitOption(msgspec.Struct, frozen=True):
    """One kind of action: ``kind`` is the action type, or ``move:<kind>`` for a kind of move.
    ``open``: the unit may take it now; otherwise ``code``/``rule``/``reason`` are the
    validation's refusal of the representative."""

    kind: str
    open: bool
    code: str | None = None
    rule: str | None = None
    reason: str | None = None


class UnitOptions(msgspec.Struct, frozen=True):
    unit: str
    seq: int
    phase: str
    options: list[UnitOption]


def _lead(unit: Unit) -> tuple[str, tuple[float, float], float]:
    alive = [m for m in unit.models.values() if m.alive] or list(unit.models.values())
    m = alive[0]
    return m.id, (m.pos.x, m.pos.y), float(m.heading)


def _nearest(state: MatchState, unit: Unit, pred: typing.Callable[[Unit], bool]) -> Unit | None:
    _, (x, y), _ = _lead(unit)
    found: list[tuple[float, str, Unit]] = []
    for other in state.units.values():
        if other.id == unit.id or other.destroyed or other.embarked_in or not pred(other):
            continue
        # A unit off the table (in Reserve, arriving, still to deploy) is not near anything: an
        # option built on it would be refused for where it is, not for what the unit may do.
        if state.mission is not None and other.id in state.mission.off_table:
            continue
        alive = [m for m in other.models.values() if m.alive]
        if alive:
            d = min(math.hypot(m.pos.x - x, m.pos.y - y) for m in alive)
            found.append((d, other.id, other))
    return min(found)[2] if found else None


def representatives(state: MatchState, unit: Unit) -> list[tuple[str, PlayAction | None]]:
    """One representative action per kind (``None``: nothing to build it from, e.g. no enemy)."""
    _, (x, y), heading = _lead(unit)
    step = Point(
        round(x + STEP_IN * math.cos(math.radians(heading)), 2),
        round(y + STEP_IN * math.sin(math.radians(heading)), 2),
    )
    enemy = _nearest(state, unit, lambda u: u.side != unit.side)
    transport = _nearest(state, unit, lambda u: u.side == unit.side and u.profile.capacity > 0)
    vehicle_heading = heading if any(m.hull is not None for m in unit.models.values()) else None
    out: list[tuple[str, PlayAction | None]] = []
    for kind in typing.get_args(MoveKind):
        target = enemy.id if enemy is not None and kind in ("tank_shock", "ram") else None
        if kind == "battlesmith":
            out.append((f"move:{kind}", Move(unit.id, kind=kind, target=transport.id if transport else None)))
        elif kind == "advance":
            out.append((f"move:{kind}", Move(unit.id, kind=kind)))  # declares the Advance
        else:
            out.append(
                (
                    f"move:{kind}",
                    Move(unit.id, path=(step,), heading=vehicle_heading, kind=kind, target=target),
                )
            )
    out.append(("pivot", Pivot(unit.id, (heading + PIVOT_STEP_DEG) % 360)))
    usable = [w for w in unit.weapons.values() if w.type != "melee" and w.range > 0 and not w.destroyed]
    ranged = [w for w in usable if not _is_power(w.rules)]
    powers = [w for w in usable if _is_power(w.rules)]
    out.append(("shoot", Shoot(unit.id, (Fire(ranged[0].id, enemy.id),)) if ranged and enemy else None))
    # 40k7 Psychic phase (docs/psychic.md): the first power known, one Warp Charge point.
    out.append(("manifest", Manifest(unit.id, powers[0].id, enemy.id, 1) if powers and enemy else None))
    out.append(("charge", Charge(unit.id, enemy.id) if enemy else None))
    out.append(("fight", Fight(unit.id, enemy.id) if enemy else None))
    # 40k7 Special Rules, Smash: a Smash Attack instead of the unit's attacks (listed when open).
    smash = Fight(unit.id, enemy.id, smash=True) if enemy and state.edition == "40k7" else None
    out.append((SMASH_KIND, smash))
    # hh3 Challenge Sub-Phase: the unit's first Paragon model challenges the nearest enemy.
    paragons = sorted(m.id for m in unit.models.values() if m.alive and (m.kind or unit.kind) == "paragon")
    out.append(("challenge", Challenge(unit.id, paragons[0], enemy.id) if paragons and enemy else None))
    out.append(("embark", Embark(unit.id, transport.id) if transport else None))
    out.append(("disembark", Disembark(unit.id, {})))
    # hh3 Paragon: join the nearest friendly unit; leave with the unit's first joined Paragon.
    friend = _nearest(state, unit, lambda u: u.side == unit.side)
    out.append(("join", Join(unit.id, friend.id) if friend else None))
    joined = sorted(m.id for m in unit.models.values() if m.alive and m.kind == "paragon")
    out.append(("leave", Leave(unit.id, joined[0]) if joined else None))
    # 40k7 Vehicle Squadrons: a member (a unit of its own) abandoned by its squadron.
    out.append(("abandon", Abandon(unit.id, _lead(unit)[0]) if unit.squadron is not None else None))
    return out


def _is_power(rules: tuple[str, ...]) -> bool:
    """A 40k7 witchfire psychic power (weapon rule ``witchfire:X``)."""
    return any(r.startswith("witchfire:") for r in rules)


def _option(kind: str, rejection: Rejection | None) -> UnitOption:
    if rejection is None or rejection.code not in CLOSED_CODES:
        return UnitOption(kind, True)
    return UnitOption(kind, False, rejection.code, rejection.rule, rejection.message)


def unit_options(state: MatchState, side: Side, unit: Unit) -> UnitOptions:
    """Every kind of action the edition has (``DispatchTable.has``), with whether ``unit`` may
    take it now (validation decides). A kind the edition does not have is not listed: a card
    showing "advance: not in this edition" in a 40k7 match, or "run: wrong phase" in an hh3 one,
    suggested it would be open some time."""
    rules = rules_for(state.edition)
    options = [
        _option(kind, validate(state, side, action))
        for kind, action in representatives(state, unit)
        if action is not None and rules.has(action)
    ]
    return UnitOptions(
        unit.id,
        state.seq,
        state.phase,
        [o for o in options if o.open or o.kind not in LISTED_ONLY_WHEN_OPEN],
    )
