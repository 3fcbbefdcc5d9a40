"""Planning a shooting attack: which weapons fire, from where, how many shots, Snap Shots or not.

``plan_shooting`` is pure and shared by validation (a Rejection explains any illegal choice with
the measured values) and by application (the plan says what to roll). 40k7 Vehicles and Shooting:
one target unit (Super-heavies may split fire), per-weapon range from the muzzle (mount point),
fire arc by mount, line of sight from the mount; full BS allowance by speed; Ordnance forces the
other weapons to Snap Shots; Blast and Template weapons cannot Snap Shoot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from msgspec.structs import replace

from ...match.actions import Fire, Shoot
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Unit, Weapon
from .. import geometry as g
from ..memo import geometry_memo
from . import refs
from .geo import (
    alive,
    facing_hull,
    footprint,
    geo_mount,
    los_blockers,
    on_table,
    units_in_contact,
    weapon_mount,
)
from .speed import DEEP_STRUCK, full_bs_allowance, shooting_speed, snap_only, speed_of
from .squadrons import same_target, squadron_members
from .status import phase_flags_with_prefix
from .types import (
    has_type,
    is_flyer,
    is_open_topped,
    is_skimmer,
    is_super_heavy,
    is_vehicle,
    is_walker,
    is_zooming,
    locks_in_combat,
)
from .wording import plural

BLAST_RADIUS = {"blast": 1.5, "large_blast": 2.5}  # 3" and 5" markers
NO_CHARGE_TYPES = ("heavy", "rapid_fire", "salvo", "ordnance")
# Range from the muzzle: the barrel points along the line from the mount to the target [decided].
MUZZLE_ALONG_LINE_OF_FIRE = True
SALVO_MOVED_DIVISOR = 2  # Salvo after moving: half the shots (rounded up) at half range [decided]


@dataclass(frozen=True)
class WeaponShot:
    """One weapon firing in a planned attack."""

    weapon: Weapon
    model: Model
    origin: g.Point
    target: str
    snap: bool
    shots: int
    distance: float
    blast: float | None  # marker radius, None for weapons that roll to hit
    template: bool
    melta_half: bool
    # 40k7 Blast / Template: the point the Fire aimed at in advance (module ``aim``), if any.
    aim: g.Point | None = None


@dataclass(frozen=True)
class Plan:
    unit: str
    shots: tuple[WeaponShot, ...]
    targets: tuple[str, ...]


def is_blast(w: Weapon) -> float | None:
    for name, radius in BLAST_RADIUS.items():
        if name in w.rules:
            return radius
    return None


def is_template(w: Weapon) -> bool:
    return "template" in w.rules


# 40k7 Special Rules, Ignores Cover [ext]: cover saves cannot be taken against the Wounds,
# glancing hits or penetrating hits of a weapon with it - an obscured vehicle's, Jink's 4+, a
# model's in or behind terrain. Weapon rule ``ignores_cover`` (a weapon whose Type says "Ignores
# Cover"), and ``template``: 40k7 Special Rules, Template Weapon [ext]: "Template weapons have the
# Ignores Cover, Wall of Death and No Escape special rules".
IGNORES_COVER_RULES: tuple[str, ...] = ("ignores_cover", "template")


def ignores_cover(w: Weapon) -> bool:
    """40k7 Special Rules, Ignores Cover (a weapon with it, or a Template weapon, which has it):
    the hits of ``w`` allow no cover save (``Hit.cover_allowed`` False)."""
    return any(rule in w.rules for rule in IGNORES_COVER_RULES)


def weapon_origin(state: MatchState, unit: Unit, weapon: Weapon) -> g.Point:
    """Range and sight are measured from the weapon's mount (vehicles, 40k7 Vehicle Weapons and
    Line of Sight), the model's base for others; passengers of an open-topped transport fire from
    its hull centre."""
    if unit.embarked_in is not None:
        transport = state.units[unit.embarked_in]
        lead = alive(transport)[0]
        return (lead.pos.x, lead.pos.y)
    model = unit.models[weapon.model]
    if is_vehicle(unit):
        return g.mount_position(facing_hull(model), geo_mount(weapon.mount))
    return (model.pos.x, model.pos.y)


def muzzle_reach(unit: Unit, weapon: Weapon) -> float:
    """How much nearer the target the muzzle is than the mount point (seed 001, Measuring
    Distances: "ranges are measured from the muzzle of the firing weapon"). The weapon is
    pointed at the target (seed: guns are free to swivel), so its barrel lies along the line
    from the mount to the closest point of the target: the range is the mount's distance minus
    ``Mount.barrel`` (MUZZLE_ALONG_LINE_OF_FIRE [decided]). Passengers fire from the hull."""
    if not MUZZLE_ALONG_LINE_OF_FIRE or not is_vehicle(unit) or unit.embarked_in is not None:
        return 0.0
    return max(0.0, weapon.mount.barrel)


def target_models(state: MatchState, target: Unit) -> list[tuple[Unit, Model]]:
    return [(u, m) for u in squadron_members(state, target) for m in alive(u)]


def same_squadron_same_target(state: MatchState, fires: tuple[Fire, ...]) -> tuple[Fire, ...]:
    """40k7 Vehicle Squadrons: an enemy squadron is one unit, so weapons fired at different
    vehicles of it fire at one target. Each fire naming a vehicle of a squadron on the
    battlefield is given the vehicle of that squadron the action names first; fires at other
    units are left as they are."""
    chosen: dict[tuple[str, str], str] = {}
    named: list[Fire] = []
    for fire in fires:
        target = state.units.get(fire.target)
        if target is not None and target.squadron is not None and on_table(target):
            first = chosen.setdefault((target.side, target.squadron), fire.target)
            if first != fire.target:
                fire = replace(fire, target=first)
        named.append(fire)
    return tuple(named)


def locked_in_combat(state: MatchState, unit: Unit) -> bool:
    """40k7 Vehicles and Close Combat: models, Walkers and Chariots in base contact with enemy
    models, Walkers or Chariots are locked in combat; other vehicles are never locked (seed 001:
    "not including Walkers or Chariots")."""
    if not locks_in_combat(unit):
        return False
    for other in state.units.values():
        if other.side == unit.side or not on_table(other):
            continue
        if not locks_in_combat(other):
            continue
        if units_in_contact(unit, other):
            return True
    return False


def _unit_moved(unit: Unit) -> bool:
    """The unit moved this turn, or counts as having moved: it disembarked, Regrouped, or arrived
    by Deep Strike (40k7 Deep Strike: "count as having moved in the previous Movement phase")."""
    return unit.moved > 1e-9 or unit.flag("disembarked") or unit.flag("regrouped") or unit.flag(DEEP_STRUCK)


def is_psychic_power(w: Weapon) -> bool:
    """A witchfire psychic power, written as a weapon profile with ``witchfire:X`` (X: its Warp
    Charge cost). 40k7 The Psychic Phase, Witchfire: "psychic shooting attacks", manifested in
    the Psychic phase, never fired in the Shooting phase or as Overwatch."""
    return any(r.startswith("witchfire:") for r in w.rules)


@geometry_memo
def plan_shooting(
    state: MatchState, action: Shoot, overwatch: bool = False, psychic: bool = False
) -> Plan | Rejection:
    """Check a Shoot action and work out every weapon's shots (pure). ``psychic``: the one
    "weapon" is a witchfire power being manifested (module ``psychic``)."""
    unit = state.units[action.unit]
    if not action.fire:
        return reject("no_weapons", refs.SHOOTING, "choose at least one weapon to fire")
    ids = [f.weapon for f in action.fire]
    if len(set(ids)) != len(ids):
        return reject("weapon_twice", refs.SHOOTING, "each weapon fires once per Shooting phase")
    fires = same_squadron_same_target(state, action.fire)
    targets = tuple(dict.fromkeys(f.target for f in fires))
    if len(targets) > 1 and not is_super_heavy(unit):
        return reject(
            "one_target",
            refs.SHOOTING,
            f"all weapons must fire at a single target unit ({len(targets)} targets given)",
            targets=len(targets),
        )
    transport: Unit | None = None
    if unit.embarked_in is not None:
        transport = state.units[unit.embarked_in]
        if not is_open_topped(transport):
            return reject(
                "cannot_fire_embarked",
                refs.OPEN_TOPPED,
                f"{unit.name} is inside {transport.name}, which is not Open-topped (fire points are not modelled)",
            )
        if transport.flag("flat_out"):
            return reject(
                "transport_flat_out",
                refs.TRANSPORT,
                f"{transport.name} moved Flat Out: its passengers cannot fire",
            )
    if not is_vehicle(unit):
        by_model: dict[str, int] = {}
        for f in action.fire:
            w = unit.weapons.get(f.weapon)
            if w is not None:
                by_model[w.model] = by_model.get(w.model, 0) + 1
        twice = [m for m, n in by_model.items() if n > 1]
        if twice:
            return reject(
                "one_weapon_per_model",
                refs.WEAPONS,
                f"model {twice[0]} may fire only one weapon",
                model=twice[0],
            )
    sq_targets = phase_flags_with_prefix(state, f"squadron_target:{unit.squadron}:") if unit.squadron else []
    if sq_targets and not overwatch and not any(same_target(state, sq_targets[0], t) for t in targets):
        return reject(
            "squadron_one_target",
            refs.SQUADRONS,
            f"the squadron already fired at {sq_targets[0]} this phase: all its weapons fire at a single unit",
            target=sq_targets[0],
        )
    allowance = full_bs_allowance(unit)
    forced = snap_only(unit)
    if transport is not None:
        tspeed = speed_of(transport)
        if tspeed == "cruising" or transport.flag("rammed"):
            allowance, forced = 0.0, "transport at Cruising Speed"
    if overwatch:
        allowance, forced = 0.0, "Overwatch"
    if allowance == 0 and forced is None:
        # 40k7 Vehicles and Shooting: at Cruising Speed (not Fast) no weapon fires at full BS -
        # every weapon's shots are Snap Shots, and each refusal says so (must_snap, with why).
        forced = f"moved at {shooting_speed(unit)} speed"
    shots: list[WeaponShot] = []
    for fire in fires:
        result = _plan_weapon(state, unit, fire, forced, overwatch, psychic)
        if isinstance(result, Rejection):
            return result
        shots.append(result)
    full = [s for s in shots if not s.snap]
    if len(full) > allowance:
        speed = shooting_speed(unit)
        return reject(
            "too_many_full_bs",
            refs.SHOOTING,
            f"{unit.name} moved at {speed.replace('_', ' ')} ({unit.moved:.1f} in) and may fire "
            f"{plural(int(allowance), 'weapon') if allowance != math.inf else 'all weapons'} at full BS, not {len(full)}: mark the others snap",
            full_bs=len(full),
            allowed=int(allowance) if allowance != math.inf else -1,
            moved=unit.moved,
        )
    ordnance = [s for s in shots if s.weapon.type == "ordnance"]
    if ordnance and is_vehicle(unit) and not is_super_heavy(unit):
        others = [s for s in shots if s.weapon.type != "ordnance" and not s.snap]
        if others or (len(ordnance) > 1 and any(not s.snap for s in ordnance[1:])):
            return reject(
                "ordnance_others_snap",
                refs.SHOOTING,
                f"{unit.name} fires Ordnance: its other weapons may only make Snap Shots",
                weapon=(others or ordnance)[0].weapon.id,
            )
    return Plan(unit.id, tuple(shots), targets)


def _plan_weapon(
    state: MatchState, unit: Unit, fire: Fire, forced: str | None, overwatch: bool, psychic: bool = False
) -> WeaponShot | Rejection:
    weapon = unit.weapons.get(fire.weapon)
    # A power lost to Mental Purge while being manifested still goes off (40k7 Perils of the
    # Warp: Perils "does not necessarily mean that a psychic power fails to manifest").
    if weapon is None or (weapon.destroyed and not psychic):
        return reject(
            "unknown_weapon",
            refs.SHOOTING,
            f"{unit.name} has no working weapon {fire.weapon!r}",
            weapon=fire.weapon,
        )
    if is_psychic_power(weapon) and not psychic:
        return reject(
            "psychic_power",
            refs.WITCHFIRE,
            f"{weapon.name} is a witchfire psychic power: it is manifested in the Psychic phase "
            "(never fired in the Shooting phase or as Overwatch)",
            weapon=weapon.id,
        )
    if weapon.type == "melee" or weapon.range <= 0:
        return reject("not_ranged", refs.WEAPONS, f"{weapon.name} is a close combat weapon", weapon=weapon.id)
    model = unit.models.get(weapon.model)
    # A power manifested goes off even when Perils of the Warp destroyed the Psyker (40k7 The
    # Psychic Phase, Perils of the Warp): it is resolved from where the vehicle stood.
    if model is None or (not model.alive and not psychic):
        return reject(
            "model_dead", refs.WEAPONS, f"the model carrying {weapon.name} is a casualty", weapon=weapon.id
        )
    target = state.units.get(fire.target)
    if target is None or not on_table(target):
        return reject(
            "unknown_target",
            refs.SHOOTING,
            f"no target unit {fire.target!r} on the battlefield",
            target=fire.target,
        )
    if target.side == unit.side:
        return reject(
            "friendly_target", refs.SHOOTING, "you cannot shoot at your own units", target=target.id
        )
    if locked_in_combat(state, target) and not overwatch:
        return reject(
            "target_locked",
            refs.SHOOTING,
            f"{target.name} is locked in close combat and cannot be shot",
            target=target.id,
        )
    blast = is_blast(weapon)
    template = is_template(weapon)
    if fire.aim is not None and blast is None and not template:
        return reject(
            "aim_not_asked",
            refs.WEAPONS,
            f"{weapon.name} is neither a Blast nor a Template weapon: it is not aimed (leave out aim)",
            weapon=weapon.id,
        )
    skyfire = has_type(unit, "skyfire") or "skyfire" in weapon.rules
    reasons: list[str] = []
    if forced is not None:
        reasons.append(forced)
    if is_zooming(target):
        if blast is not None or template:
            return reject(
                "cannot_hit_flyer",
                refs.FLYER,
                f"{weapon.name} is a Blast/Template weapon: it cannot hit a Zooming Flyer",
                weapon=weapon.id,
            )
        if not skyfire:
            reasons.append("target is a Zooming Flyer")
    elif skyfire and not (is_skimmer(target) or is_flyer(target)):
        # 40k7 Skyfire: full BS only against Flyers and Skimmers, Snap Shots at other targets.
        reasons.append("Skyfire weapon at a ground target")
    moved = _unit_moved(unit) or (
        unit.embarked_in is not None and speed_of(state.units[unit.embarked_in]) != "stationary"
    )
    if not is_vehicle(unit) and moved and not has_type(unit, "relentless"):
        if weapon.type == "ordnance":
            return reject(
                "ordnance_moved",
                refs.WEAPONS,
                f"{weapon.name} is Ordnance and the unit moved this turn",
                weapon=weapon.id,
            )
        if weapon.type == "heavy":
            reasons.append("Heavy weapon after moving")
    must_snap = bool(reasons)
    snap = fire.snap or must_snap
    if snap and (blast is not None or template):
        why = reasons[0] if reasons else "Snap Shots asked"
        return reject(
            "cannot_snap",
            refs.SNAP,
            f"{weapon.name} is a Blast/Template weapon and cannot fire Snap Shots ({why})",
            weapon=weapon.id,
        )
    if must_snap and not fire.snap:
        return reject(
            "must_snap",
            refs.SNAP,
            f"{weapon.name} may only fire Snap Shots ({reasons[0]}): mark it snap",
            weapon=weapon.id,
            reason=reasons[0],
        )
    origin = weapon_origin(state, unit, weapon)
    exclude = (
        {u.id for u in squadron_members(state, unit)}
        | {unit.id}
        | {u.id for u in squadron_members(state, target)}
    )
    if unit.embarked_in is not None:
        exclude.add(unit.embarked_in)
    blockers = los_blockers(state, exclude)
    hull = facing_hull(model) if is_vehicle(unit) else None
    mount, linked = weapon_mount(unit, weapon)
    # Closest target model first: the first one in range, in arc and in sight gives the range
    # that counts (Rapid Fire, Melta); line of sight (the costly test) is checked last.
    measured: list[tuple[float, str, g.Footprint]] = []
    barrel = muzzle_reach(unit, weapon)
    for _, m in target_models(state, target):
        fp = footprint(m)
        from_vehicle = is_vehicle(unit) or unit.embarked_in is not None
        d = max(0.0, g.distance(origin, fp) - barrel) if from_vehicle else g.distance(footprint(model), fp)
        measured.append((d, m.id, fp))
    measured.sort(key=lambda x: (x[0], x[1]))
    nearest = measured[0][0] if measured else math.inf
    in_range = [(d, fp) for d, _, fp in measured if d <= weapon.range + 1e-9]
    if not in_range:
        return reject(
            "out_of_range",
            refs.SHOOTING,
            f"target {nearest:.1f} in away, {weapon.name} range {weapon.range:g} in",
            distance=nearest,
            range=weapon.range,
            weapon=weapon.id,
        )
    best: float | None = None
    in_arc_any = False
    # 40k7 Walkers (published rules): firing Overwatch, a Walker turns to face the charge - its
    # arcs are ignored unless it is Immobilised.
    any_arc = overwatch and is_walker(unit) and "immobilised" not in unit.statuses
    for d, fp in in_range:
        if hull is not None and not any_arc and not g.in_arc(hull, mount, fp, linked):
            continue
        in_arc_any = True
        if g.line_of_sight(origin, fp, blockers):
            best = d
            break
    if not in_arc_any:
        return reject(
            "out_of_arc",
            refs.WEAPON_LOS,
            f"{target.name} is outside the fire arc of {weapon.name} ({weapon.mount.kind} mount)",
            weapon=weapon.id,
        )
    if best is None and hull is None:
        # Not a vehicle's weapon: no mount, sight from the model's base (docs/rules-notes.md, 40k7).
        return reject(
            "no_line_of_sight",
            refs.MODEL_LOS,
            f"{model.id}, firing {weapon.name}, cannot see any model of {target.name}",
            weapon=weapon.id,
        )
    if best is None:
        return reject(
            "no_line_of_sight",
            refs.WEAPON_LOS,
            f"{weapon.name} cannot see {target.name} from its mount",
            weapon=weapon.id,
        )
    n = weapon.shots
    if weapon.type == "rapid_fire" and best <= weapon.range / 2 + 1e-9:
        n *= 2
    if weapon.type == "salvo" and moved and not is_vehicle(unit):
        if best > weapon.range / 2 + 1e-9:
            return reject(
                "out_of_range",
                refs.WEAPONS,
                f"Salvo after moving: target {best:.1f} in away, half range {weapon.range / 2:g} in",
                distance=best,
                range=weapon.range / 2,
                weapon=weapon.id,
            )
        n = -(-n // SALVO_MOVED_DIVISOR)
    melta_half = "melta" in weapon.rules and best <= weapon.range / 2 + 1e-9
    aim = (fire.aim.x, fire.aim.y) if fire.aim is not None else None
    return WeaponShot(weapon, model, origin, target.id, snap, n, best, blast, template, melta_half, aim)
