"""Applying hits to a target unit (RULES.md 1.10-1.17, 1.21).

- A single vehicle: the hits are grouped by the facing they strike (front, left, right, rear:
  each firing model's own zone, RULES.md 1.10); for each facing group, every armour
  penetration die is rolled first, then cover saves if the facing is obscured (a pass discards
  the hit), then the Hull Points of all unsaved hits are deducted, then the damage table is
  rolled once per penetrating hit - all of them, even when the vehicle is already at 0 HP
  (RULES.md 1.13). Wrecked / Explodes! is decided once at the end of the attack.
- A squadron: hits are resolved one at a time against the member closest to the attackers
  (RULES.md 1.21); a member that is destroyed is finished at once and the next hit goes to the
  new closest member. Death or Glory and Ram hits strike the vehicle they name.
- Anything else: wounds (module ``wounds``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ...match.context import ApplyContext
from ...match.state import MatchState, Model, Unit
from .. import geometry as g
from . import refs
from .attacks import ArmourFacing, AttackKind, Hit, Tally
from .cover import armour_value, facing_for, vehicle_cover
from .damage import Fate, apply_result, lose_hp, roll_damage
from .destruction import finish_vehicle
from .geo import alive, footprint, lead_model, on_table
from .penetration import PenRoll, effective_armour, extra_dice, roll_penetration
from .rolls import judge
from .types import is_vehicle
from .wounds import resolve_wounds

FACING_ORDER: tuple[g.Facing, ...] = ("front", "left", "right", "rear")
# Attacks aimed at one particular vehicle, never allocated across its squadron (40k7 Tanks: the
# Death or Glory attack hits the Tank that Tank Shocked; Ramming: the rammed and the ramming
# vehicle each take the collision's hit).
SINGLE_VEHICLE_KINDS: tuple[AttackKind, ...] = ("death_or_glory", "ram")
# 40k7 Jink: a 4+ cover save [ext].
JINK_COVER = 4


def squadron_members(state: MatchState, unit: Unit) -> list[Unit]:
    """The living members of the unit's squadron (itself alone when not in a squadron)."""
    if unit.squadron is None:
        return [unit] if on_table(unit) else []
    return [
        u for u in state.units.values() if u.squadron == unit.squadron and on_table(u) and u.side == unit.side
    ]


def _attacker_origins(state: MatchState, attacker: str | None, hits: list[Hit]) -> list[g.Point]:
    if attacker is not None and attacker in state.units:
        pts = [(m.pos.x, m.pos.y) for m in alive(state.units[attacker])]
        if pts:
            return pts
    return [h.origin for h in hits]


def can_damage(hit: Hit, armour: int) -> bool:
    """A firing model is "able to damage" a facing when its best roll reaches the armour (after
    Lance, RULES.md 1.12; Haywire always can)."""
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


def _facing_entry(state: MatchState, unit: Unit, model: Model, hit: Hit, exclude: tuple[str, ...]) -> _Entry:
    if hit.facing is not None:
        gf: g.Facing = "left" if hit.facing == "side" else hit.facing
        return _Entry(hit, gf, hit.facing, gf, 0)
    fh = facing_for(state, unit, model, hit.origin, exclude)
    return _Entry(hit, fh.facing, g.armour_facing(fh.facing), fh.cover_facing, fh.bonus)


def _cover_of(
    state: MatchState,
    unit: Unit,
    model: Model,
    entry: _Entry,
    group_origins: dict[str, list[g.Point]],
    exclude: tuple[str, ...],
    cache: dict[tuple[str, str], int | None],
) -> int | None:
    """The cover save against one hit: obscured facing (per firing group), Jink, overrides."""
    hit = entry.hit
    if not hit.cover_allowed:
        return None
    best: int | None = hit.cover_override
    if hit.facing is None:
        # RULES.md 1.17: an angled shot (the firer sees none of its own facing) takes the cover
        # hiding its own facing, one point better (entry.bonus).
        key = (hit.group, entry.cover_facing)
        if key not in cache:
            cache[key] = vehicle_cover(
                state, unit, model, entry.cover_facing, group_origins.get(hit.group, [hit.origin]), exclude
            )
        obscured = cache[key]
        if obscured is not None:
            obscured = max(2, obscured - entry.bonus)
            best = obscured if best is None else min(best, obscured)
    if "jink" in unit.statuses:
        best = JINK_COVER if best is None else min(best, JINK_COVER)
    return best


def _group_origins(
    state: MatchState, unit: Unit, model: Model, entries: list[_Entry]
) -> dict[str, list[g.Point]]:
    """Origins of the firing models able to damage the facing, per firing group."""
    out: dict[str, list[g.Point]] = {}
    for e in entries:
        if can_damage(e.hit, armour_value(unit, e.armour_name)):
            pts = out.setdefault(e.hit.group, [])
            if e.hit.origin not in pts:
                pts.append(e.hit.origin)
    return out


def _resolve_group(
    state: MatchState,
    ctx: ApplyContext,
    uid: str,
    entries: list[_Entry],
    exclude: tuple[str, ...],
    fate: Fate,
    tally: Tally,
) -> MatchState:
    """One facing group of one attack against one vehicle (RULES.md 1.13 order)."""
    unit = state.units[uid]
    model = lead_model(unit)
    armour_name = entries[0].armour_name
    av = armour_value(unit, armour_name)
    # 1. every armour penetration die.
    rolls: list[PenRoll] = []
    for e in entries:
        pen = roll_penetration(ctx, e.hit.pen, av, armour_name)
        rolls.append(pen)
    summary = ", ".join(
        f"{p.total}" if not e.hit.pen.haywire else f"haywire {p.total}"
        for e, p in zip(entries, rolls, strict=True)
    )
    n_glance = sum(1 for p in rolls if p.result == "glancing")
    n_pen = sum(1 for p in rolls if p.result == "penetrating")
    ctx.log(
        f"{len(entries)} hit(s) on {unit.name}'s {armour_name} armour (AV{av}): {summary} - "
        f"{n_glance} glancing, {n_pen} penetrating.",
        refs.PENETRATION,
    )
    # 2. cover saves for the glancing and penetrating hits if obscured.
    origins = _group_origins(state, unit, model, entries)
    cache: dict[tuple[str, str], int | None] = {}
    kept: list[tuple[_Entry, PenRoll]] = []
    for e, p in zip(entries, rolls, strict=True):
        if p.result == "none":
            continue
        cover = _cover_of(state, unit, model, e, origins, exclude, cache)
        if cover is not None:
            face = ctx.roll("cover save", f"{cover}+", judge(cover, "saved", "failed"))
            if face >= cover:
                ctx.log(
                    f"{unit.name} is obscured ({cover}+ cover): the {p.result} hit is discarded.",
                    refs.OBSCURED,
                )
                continue
            ctx.log(
                f"{unit.name} is obscured ({cover}+ cover) but fails its save against the {p.result} hit.",
                refs.OBSCURED,
            )
        kept.append((e, p))
    # 3. deduct the Hull Points of every unsaved hit.
    glancing = [x for x in kept if x[1].result == "glancing"]
    penetrating = [x for x in kept if x[1].result == "penetrating"]
    tally.glancing += len(glancing)
    tally.penetrating += len(penetrating)
    if kept:
        state = lose_hp(state, uid, len(kept))
        ctx.log(
            f"{unit.name} loses {len(kept)} Hull Point(s) ({len(glancing)} glancing, {len(penetrating)} "
            f"penetrating): {state.units[uid].hp} left.",
            refs.PENETRATING if penetrating else refs.GLANCING,
        )
    # 4. one damage roll per penetrating hit, even at 0 HP.
    for e, _ in penetrating:
        result = roll_damage(ctx, state, uid, e.hit.ap)
        state = apply_result(state, uid, result, ctx, fate)
    return state


def _resolve_vehicle(
    state: MatchState, ctx: ApplyContext, uid: str, hits: list[Hit], exclude: tuple[str, ...], tally: Tally
) -> MatchState:
    unit = state.units[uid]
    model = lead_model(unit)
    entries = [_facing_entry(state, unit, model, h, exclude) for h in hits]
    fate = Fate()
    for facing in FACING_ORDER:
        group = [e for e in entries if e.facing == facing]
        if group:
            state = _resolve_group(state, ctx, uid, group, exclude, fate, tally)
    before = state.units[uid].destroyed
    state = finish_vehicle(state, ctx, uid, fate)
    if state.units[uid].destroyed and not before:
        tally.destroyed.append(uid)
    if fate.results and any(r in ("stunned", "immobilised", "explodes") for r in fate.results):
        tally.stopped = True
    if state.units[uid].destroyed:
        tally.stopped = True
    return state


def _closest_member(members: list[Unit], origins: list[g.Point]) -> Unit:
    def key(u: Unit) -> tuple[float, str]:
        return (min((g.distance(o, footprint(m)) for o in origins for m in alive(u)), default=math.inf), u.id)

    return min(members, key=key)


def _resolve_squadron(
    state: MatchState,
    ctx: ApplyContext,
    target: Unit,
    hits: list[Hit],
    origins: list[g.Point],
    exclude: tuple[str, ...],
    tally: Tally,
) -> MatchState:
    """RULES.md 1.21: hits one at a time against the closest member."""
    fates: dict[str, Fate] = {}
    for hit in hits:
        members = squadron_members(state, state.units[target.id])
        if not members:
            break
        member = _closest_member(members, origins)
        ctx.log(f"Hit allocated to {member.name}, the closest vehicle of the squadron.", refs.SQUADRONS)
        model = lead_model(member)
        # Cover is worked out for each vehicle ignoring its (living) squadron-mates.
        excl = (*exclude, *(m.id for m in members))
        entry = _facing_entry(state, member, model, hit, excl)
        fate = fates.setdefault(member.id, Fate())
        state = _resolve_group(state, ctx, member.id, [entry], excl, fate, tally)
        unit = state.units[member.id]
        if unit.hp == 0 or fate.explodes or fate.crash:
            state = finish_vehicle(state, ctx, member.id, fate)
            if state.units[member.id].destroyed:
                tally.destroyed.append(member.id)
    return state


def resolve_hits(
    state: MatchState,
    ctx: ApplyContext,
    target_id: str,
    hits: list[Hit],
    *,
    attacker: str | None,
    kind: AttackKind,
    exclude: Iterable[str],
) -> tuple[MatchState, Tally]:
    """Apply ``hits`` to a unit; returns the new state and what happened."""
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
            state = _resolve_squadron(state, ctx, target, hits, origins, excl, tally)
        else:
            state = _resolve_vehicle(state, ctx, target_id, hits, excl, tally)
        return state, tally
    return resolve_wounds(state, ctx, target_id, hits, origins if kind != "explosion" else [], excl)
