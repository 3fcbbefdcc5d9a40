"""Applying hits to a target unit (40k7 Vehicles, Vehicle Facing to Obscured Targets; Vehicle Squadrons).

- A single vehicle: the hits are grouped by the facing they strike (front, left, right, rear:
  each firing model's own zone, 40k7 Vehicle Facing and Armour Values); for each facing group, every armour
  penetration die is rolled first, then cover saves if the facing is obscured (a pass discards
  the hit), then the Hull Points of all unsaved hits are deducted, then the damage table is
  rolled once per penetrating hit - all of them, even when the vehicle is already at 0 HP
  (40k7 Vehicles, Penetrating Hits). Wrecked / Explodes! is decided once at the end of the attack.
- A squadron: hits are resolved one at a time against the member closest to the attackers
  (40k7 Vehicle Squadrons); a member that is destroyed is finished at once and the next hit goes to the
  new closest member. Death or Glory and Ram hits strike the vehicle they name.
- Anything else: wounds (module ``wounds``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ...match.context import ApplyContext
from ...match.state import LogValue, MatchState, Model, Unit
from .. import geometry as g
from ..memo import geometry_memo
from . import refs
from .allocation import Sight, closest_member
from .attacks import ArmourFacing, AttackKind, Hit, Tally
from .cover import (
    BEST_POSSIBLE_SAVE,
    CORNER_LINE_REASON,
    CoverFinding,
    FacingHit,
    armour_value,
    facing_for,
    vehicle_cover_finding,
)
from .damage import Fate, apply_result, lose_hp, roll_damage
from .destruction import decide_vehicle_end
from .geo import alive, footprint, lead_model, los_blockers
from .morale import CLOSE_COMBAT_LOSSES_USE_ASSAULT_RESULT, note_strength
from .penetration import PenRoll, effective_armour, extra_dice, roll_penetration
from .rolls import judge
from .squadrons import squadron_members
from .types import is_vehicle
from .wording import inches, place, plural, rounded
from .wounds import resolve_wounds

FACING_ORDER: tuple[g.Facing, ...] = ("front", "left", "right", "rear")
# Attacks aimed at one particular vehicle, never allocated across its squadron (40k7 Tanks: the
# Death or Glory attack hits the Tank that Tank Shocked; Ramming: the rammed and the ramming
# vehicle each take the collision's hit).
SINGLE_VEHICLE_KINDS: tuple[AttackKind, ...] = ("death_or_glory", "ram")
# 40k7 Jink: a 4+ cover save [ext].
JINK_COVER = 4
# Seed 001, Obscured Targets: "If a special rule or a piece of wargear makes a vehicle obscured
# even if in the open, this is a 5+ cover save, unless specified otherwise". A vehicle with the
# keyword below is obscured wherever it stands (against shooting: hits that strike the facing
# they come from); ``obscured_N`` gives a codex's own N+ [decided: keywords].
OBSCURED_IN_THE_OPEN = "obscured"
OPEN_OBSCURED_COVER = 5


def _attacker_origins(state: MatchState, attacker: str | None, hits: list[Hit]) -> list[g.Shape]:
    """Where distances to the attackers are measured from: the hull or base of every living
    attacking model (40k7 Vehicles, Measuring Distances: "to and from their hull"), else the
    points the hits come from (an explosion's centre)."""
    if attacker is not None and attacker in state.units:
        shapes: list[g.Shape] = [footprint(m) for m in alive(state.units[attacker])]
        if shapes:
            return shapes
    return [h.origin for h in hits]


def can_damage(hit: Hit, armour: int) -> bool:
    """A firing model is "able to damage" a facing when its best roll reaches the armour (after
    Lance, 40k7 Armour Penetration Rolls; Haywire always can)."""
    if hit.pen.haywire:
        return True
    best = hit.strength + 6 * (1 + extra_dice(hit.pen))
    return best >= effective_armour(armour, hit.pen)


@dataclass
class _Entry:
    hit: Hit
    facing: g.Facing
    armour_name: ArmourFacing
    cover_facing: g.Facing  # whose obscuring cover counts (the firer's own on an angled shot)
    bonus: int
    reason: str = "zone"  # why this facing: zone, corner line, angled shot, forced by the attack
    zones: tuple[g.Facing, ...] = ()  # the zones the firer stands in (two on a corner line)


def _facing_entry(
    state: MatchState,
    unit: Unit,
    model: Model,
    hit: Hit,
    exclude: tuple[str, ...],
    seen: dict[g.Point, FacingHit] | None = None,
) -> _Entry:
    """The facing a hit strikes; ``seen`` remembers the facing of each origin already worked out
    (the hits and the firers of one attack share their origins)."""
    if hit.facing is not None:
        gf: g.Facing = "left" if hit.facing == "side" else hit.facing
        return _Entry(hit, gf, hit.facing, gf, 0, "set by the attack")
    fh = seen.get(hit.origin) if seen is not None else None
    if fh is None:
        fh = facing_for(state, unit, model, hit.origin, exclude)
        if seen is not None:
            seen[hit.origin] = fh
    return _Entry(hit, fh.facing, g.armour_facing(fh.facing), fh.cover_facing, fh.bonus, fh.reason, fh.zones)


def _pen_text(entry: _Entry, pen: PenRoll, av: int) -> str:
    """One armour penetration roll as a player reads it: ``12 (penetrating)``."""
    word = "no effect" if pen.result == "none" else pen.result
    if entry.hit.pen.haywire:
        return f"haywire {pen.total} ({word})"
    return f"{pen.total} ({word})"


def _cover_of(
    state: MatchState,
    unit: Unit,
    model: Model,
    entry: _Entry,
    group_origins: dict[str, list[g.Point]],
    exclude: tuple[str, ...],
    cache: dict[tuple[str, str], CoverFinding],
) -> int | None:
    """The cover save against one hit: obscured facing (per firing group), Jink, overrides."""
    hit = entry.hit
    if not hit.cover_allowed:
        return None
    best: int | None = hit.cover_override
    if hit.facing is None:
        # 40k7 Vehicles, Obscured Targets: an angled shot (the firer sees none of its own
        # facing) takes the cover hiding its own facing, one point better (entry.bonus).
        key = (hit.group, entry.cover_facing)
        if key not in cache:
            cache[key] = vehicle_cover_finding(
                state, unit, model, entry.cover_facing, group_origins.get(hit.group, [hit.origin]), exclude
            )
        found = cache[key]
        if found.save is not None:
            obscured = max(BEST_POSSIBLE_SAVE, found.save - entry.bonus)
            best = obscured if best is None else min(best, obscured)
        in_the_open = open_obscured_save(unit)
        if in_the_open is not None:
            best = in_the_open if best is None else min(best, in_the_open)
    if "jink" in unit.statuses:
        best = JINK_COVER if best is None else min(best, JINK_COVER)
    return best


def open_obscured_save(unit: Unit) -> int | None:
    """Seed 001, Obscured Targets: "If a special rule or a piece of wargear makes a vehicle
    obscured even if in the open, this is a 5+ cover save, unless specified otherwise in the
    codex". Keyword ``obscured`` gives OPEN_OBSCURED_COVER; ``obscured_4`` (any digit 2-6) gives
    the codex's own value [decided spelling]."""
    best: int | None = None
    for kw in unit.keywords:
        if kw == OBSCURED_IN_THE_OPEN:
            save = OPEN_OBSCURED_COVER
        elif (
            kw.startswith(OBSCURED_IN_THE_OPEN + "_")
            and kw[-1:].isdigit()
            and len(kw) == len(OBSCURED_IN_THE_OPEN) + 2
        ):
            save = int(kw[-1])
            if not BEST_POSSIBLE_SAVE <= save <= 6:
                continue
        else:
            continue
        best = save if best is None else min(best, save)
    return best


def _cover_values(entry: _Entry, cache: dict[tuple[str, str], CoverFinding]) -> dict[str, LogValue]:
    """The numbers behind a cover save, for the log line's structured values."""
    found = cache.get((entry.hit.group, entry.cover_facing))
    if found is None:
        return {}
    return {
        "cover_facing": found.facing,
        "firers_counted": found.counted,
        "firers_hidden_from": found.hidden,
        "hidden_shares": [rounded(x) for x in found.shares],
        "firer_positions": [place(x, y) for x, y in found.origins],
        "obscured": found.obscured,
        "angled_shot_bonus": entry.bonus,
        "hiding": list(found.pieces),
    }


def _group_origins(unit: Unit, entries: list[_Entry], firers: list[_Entry]) -> dict[str, list[g.Point]]:
    """Origins of the firing models able to damage the facing, per firing group (seed 001,
    Obscured Targets: "the majority of the firing models that are able to damage the vehicle").

    ``firers`` has one entry per weapon that fired at the vehicle, hit or miss; only those in
    the facing of ``entries`` count ("using only models firing at that facing"). A group with
    no firer entry (hits that came to a unit not targeted, e.g. a scattered blast) falls back to
    the origins of its hits."""
    facing = entries[0].facing
    out: dict[str, list[g.Point]] = {}
    groups = {e.hit.group for e in entries}
    for e in firers:
        if e.facing != facing or e.hit.group not in groups:
            continue
        if can_damage(e.hit, armour_value(unit, e.armour_name)):
            pts = out.setdefault(e.hit.group, [])
            if e.hit.origin not in pts:
                pts.append(e.hit.origin)
    for e in entries:
        if e.hit.group in out or not can_damage(e.hit, armour_value(unit, e.armour_name)):
            continue
        if not any(f.hit.group == e.hit.group for f in firers):
            pts = out.setdefault(e.hit.group, [])
            if e.hit.origin not in pts:
                pts.append(e.hit.origin)
    return out


def _log_corner_lines(ctx: ApplyContext, unit: Unit, entries: list[_Entry]) -> None:
    """40k7 Vehicles, Vehicle Facing and Armour Values: a firer exactly on a corner line is in
    two facings; the log says which two, the one used and why (DIAGONAL_FAVOURS_DEFENDER)."""
    said: set[tuple[str, tuple[g.Facing, ...]]] = set()
    for e in entries:
        if e.reason != CORNER_LINE_REASON or len(e.zones) < 2:
            continue
        key = (e.hit.source, e.zones)
        if key in said:
            continue
        said.add(key)
        values = {f: armour_value(unit, g.armour_facing(f)) for f in e.zones}
        both = " and ".join(f"{f} (AV{v})" for f, v in values.items())
        ctx.log(
            f"{e.hit.source} is exactly on a corner line of {unit.name}, in both the {both} facings: "
            f"the {e.facing} facing is used, the one with the higher Armour Value (the rules give "
            f"nobody the choice; see docs/rules-notes.md, 40k7, Being shot).",
            refs.FACING,
            zones=list(e.zones),
            zone_armour=list(values.values()),
            facing=e.facing,
            facing_reason=e.reason,
        )


def _resolve_group(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    entries: list[_Entry],
    exclude: tuple[str, ...],
    fate: Fate,
    tally: Tally,
    firers: list[_Entry],
) -> MatchState:
    """One facing group of one attack against one vehicle (40k7 Vehicles, Armour Penetration
    Rolls, Obscured Targets, Glancing and Penetrating Hits: dice, cover, Hull Points, damage)."""
    unit = state.units[uid]
    model = lead_model(unit)
    armour_name = entries[0].armour_name
    av = armour_value(unit, armour_name)
    _log_corner_lines(ctx, unit, entries)
    origins = _group_origins(unit, entries, firers)
    cache: dict[tuple[str, str], CoverFinding] = {}
    # 1. every armour penetration die. Hits with the same penetration profile, AP and cover save
    # are treated alike below (steps 2-4): for the odds engine their dice are exchangeable
    # (odds/face_classes.py, KEYED_EXCHANGEABLE); the reducer's dice ignore the key.
    rolls: list[PenRoll] = []
    keyed = ctx.batch_keys and len(entries) > 1
    for e in entries:
        key = (
            (e.hit.pen, e.hit.ap, _cover_of(state, unit, model, e, origins, exclude, cache))
            if keyed
            else None
        )
        pen = roll_penetration(ctx, e.hit.pen, av, armour_name, batch=key)
        rolls.append(pen)
    summary = ", ".join(_pen_text(e, p, av) for e, p in zip(entries, rolls, strict=True))
    n_glance = sum(1 for p in rolls if p.result == "glancing")
    n_pen = sum(1 for p in rolls if p.result == "penetrating")
    lanced = [p.armour for p in rolls if p.armour != av]
    av_text = f"AV{av}" + (f", counted as AV{lanced[0]} (Lance)" if lanced else "")
    ctx.log(
        f"{plural(len(entries), 'hit')} on {unit.name}'s {armour_name} armour ({av_text}): "
        f"{summary}; {n_glance} glancing, {n_pen} penetrating.",
        refs.PENETRATION,
        armour=armour_name,
        facing=entries[0].facing,
        facing_reason=entries[0].reason,
        armour_value=av,
        compared_with=[p.armour for p in rolls],
        totals=[p.total for p in rolls],
        results=[p.result for p in rolls],
        glancing=n_glance,
        penetrating=n_pen,
    )
    # 2. cover saves for the glancing and penetrating hits if obscured.
    kept: list[tuple[_Entry, PenRoll]] = []
    for e, p in zip(entries, rolls, strict=True):
        if p.result == "none":
            continue
        cover = _cover_of(state, unit, model, e, origins, exclude, cache)
        if cover is not None:
            face = ctx.roll("cover save", f"{cover}+", judge(cover, "saved", "failed"))
            values = {"save": cover, "roll": face, "saved": face >= cover, **_cover_values(e, cache)}
            if face >= cover:
                ctx.log(
                    f"{unit.name} is obscured ({cover}+ cover): the {p.result} hit is discarded.",
                    refs.OBSCURED,
                    **values,
                )
                continue
            ctx.log(
                f"{unit.name} is obscured ({cover}+ cover) but fails its save against the {p.result} hit.",
                refs.OBSCURED,
                **values,
            )
        kept.append((e, p))
    # 3. deduct the Hull Points of every unsaved hit.
    glancing = [x for x in kept if x[1].result == "glancing"]
    penetrating = [x for x in kept if x[1].result == "penetrating"]
    tally.glancing += len(glancing)
    tally.penetrating += len(penetrating)
    if kept:
        before = state.units[uid].hp
        state = lose_hp(state, uid, len(kept))
        # Hull Points never go below 0: the log says what was lost, not how many hits there were.
        lost = before - state.units[uid].hp
        ctx.log(
            f"{unit.name} loses {plural(lost, 'Hull Point')} ({len(glancing)} glancing, "
            f"{len(penetrating)} penetrating): {state.units[uid].hp} left.",
            refs.PENETRATING if penetrating else refs.GLANCING,
            lost=lost,
            glancing=len(glancing),
            penetrating=len(penetrating),
            hull_points=state.units[uid].hp,
        )
    # 4. one damage roll per penetrating hit, even at 0 HP.
    for e, _ in penetrating:
        result = roll_damage(ctx, state, uid, e.hit.ap)
        state = apply_result(state, uid, result, ctx, fate)
    return state


def _resolve_vehicle(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    hits: list[Hit],
    exclude: tuple[str, ...],
    tally: Tally,
    firers: Sequence[Hit],
) -> MatchState:
    unit = state.units[uid]
    model = lead_model(unit)
    seen: dict[g.Point, FacingHit] = {}
    entries = [_facing_entry(state, unit, model, h, exclude, seen) for h in hits]
    firer_entries = [_facing_entry(state, unit, model, h, exclude, seen) for h in firers]
    fate = Fate()
    for facing in FACING_ORDER:
        group = [e for e in entries if e.facing == facing]
        if group:
            state = _resolve_group(state, ctx, uid, group, exclude, fate, tally, firer_entries)
    before = state.units[uid].destroyed
    state = finish_vehicle(state, ctx, uid, fate)
    if state.units[uid].destroyed and not before:
        tally.destroyed.append(uid)
    if fate.results and any(r in ("stunned", "immobilised", "explodes") for r in fate.results):
        tally.stopped = True
    if state.units[uid].destroyed:
        tally.stopped = True
    return state


def _member_distance(u: Unit, origins: list[g.Shape]) -> float:
    """Closest distance from the attackers (hulls and bases) to a squadron member's hull."""
    return min((g.distance(o, footprint(m)) for o in origins for m in alive(u)), default=math.inf)


def _distance_in(distances: dict[str, float]) -> Callable[[Unit], float]:
    """A member's distance to the firers, read from ``distances`` (by unit id) measured once."""
    return lambda unit: distances[unit.id]


def _resolve_squadron(
    state: MatchState,
    ctx: ApplyContext,
    target: Unit,
    hits: list[Hit],
    origins: list[g.Shape],
    exclude: tuple[str, ...],
    tally: Tally,
    firers: Sequence[Hit],
) -> MatchState:
    """40k7 Vehicle Squadrons: hits one at a time against the closest member."""
    fates: dict[str, Fate] = {}
    chosen: list[str] = []  # the member chosen among equally close ones, until it is destroyed
    for hit in hits:
        members = squadron_members(state, state.units[target.id])
        if not members:
            break
        exact = {u.id: _member_distance(u, origins) for u in members}
        member = closest_member(target, members, ctx, _distance_in(exact), chosen)
        distances = {uid: rounded(d) for uid, d in exact.items()}
        ctx.log(
            f"Hit allocated to {member.name}, the closest vehicle of the squadron "
            f"({inches(distances[member.id])} from the firers).",
            refs.SQUADRONS,
            allocated_to=member.id,
            members=[u.id for u in members],
            distances=[distances[u.id] for u in members],
        )
        model = lead_model(member)
        # Cover is worked out for each vehicle ignoring its (living) squadron-mates.
        excl = (*exclude, *(m.id for m in members))
        seen: dict[g.Point, FacingHit] = {}
        entry = _facing_entry(state, member, model, hit, excl, seen)
        firer_entries = [_facing_entry(state, member, model, f, excl, seen) for f in firers]
        fate = fates.setdefault(member.id, Fate())
        state = _resolve_group(state, ctx, member.id, [entry], excl, fate, tally, firer_entries)
        unit = state.units[member.id]
        if unit.hp == 0 or fate.explodes or fate.crash:
            state = finish_vehicle(state, ctx, member.id, fate)
            if state.units[member.id].destroyed:
                tally.destroyed.append(member.id)
    return state


def _explosion_hits(state: MatchState, ctx: ApplyContext, target_id: str, hits: list[Hit]) -> MatchState:
    """40k7 Vehicle Damage table (Explodes!), Flyers (Crash and Burn), Super-heavy Vehicles
    (Catastrophic Damage), Transports: the hits of a vehicle's end have no attacker."""
    state, _ = resolve_hits(state, ctx, target_id, hits, attacker=None, kind="explosion", exclude=())
    return state


def finish_vehicle(state: MatchState, ctx: ApplyContext, uid: str, fate: Fate) -> MatchState:
    """40k7 Vehicle Damage table: the vehicle's end after an attack (``destruction``), the hits of
    its explosion resolved here."""
    return decide_vehicle_end(state, ctx, uid, fate, _explosion_hits)


def resolve_hits(
    state: MatchState,
    ctx: ApplyContext,
    target_id: str,
    hits: list[Hit],
    *,
    attacker: str | None,
    kind: AttackKind,
    exclude: Iterable[str],
    firers: Sequence[Hit] = (),
) -> tuple[MatchState, Tally]:
    """Apply ``hits`` to a unit; returns the new state and what happened. ``firers`` holds one
    Hit per weapon that fired at the unit, hit or miss (for the obscured majority)."""
    tally = Tally()
    target = state.units.get(target_id)
    if target is None or not hits or target.destroyed:
        return state, tally
    excl = tuple(exclude)
    if attacker is not None:
        excl = (*excl, attacker)
    origins = _attacker_origins(state, attacker, hits)
    if is_vehicle(target):
        members = squadron_members(state, target)
        if len(members) > 1 and kind not in SINGLE_VEHICLE_KINDS:
            state = _resolve_squadron(state, ctx, target, hits, origins, excl, tally, firers)
        else:
            state = _resolve_vehicle(state, ctx, target_id, hits, excl, tally, firers)
        return state, tally
    if not (kind == "close_combat" and CLOSE_COMBAT_LOSSES_USE_ASSAULT_RESULT):
        # 40k7 Morale: whatever causes the casualties, the end of the phase counts them.
        state = note_strength(state, target_id)
    sight = _firers_sight(state, hits, firers, excl) if kind == "shooting" and attacker is not None else None
    return resolve_wounds(state, ctx, target_id, hits, origins if kind != "explosion" else [], excl, sight)


def _firers_sight(
    state: MatchState, hits: list[Hit], firers: Sequence[Hit], exclude: tuple[str, ...]
) -> Sight:
    """40k7 The Shooting Phase, Allocate Wounds: Out Of Sight: a model can take a wound when at
    least one firing model (the mount or model each weapon fired from) draws line of sight to it."""
    points = tuple(dict.fromkeys([*(f.origin for f in firers), *(h.origin for h in hits)]))
    return lambda model: in_sight_of(state, model, points, exclude)


@geometry_memo
def in_sight_of(
    state: MatchState, model: Model, points: tuple[g.Point, ...], exclude: tuple[str, ...]
) -> bool:
    """40k7 The Shooting Phase, Allocate Wounds: Out Of Sight: whether any of ``points`` sees
    the model (the blockers of a weapon's line of sight; memoised for the odds engine)."""
    blockers = los_blockers(state, exclude)
    fp = footprint(model)
    return any(g.line_of_sight(p, fp, blockers) for p in points)
