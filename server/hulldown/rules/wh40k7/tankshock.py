"""Tank Shock and Ram (40k7 Vehicles, Tanks: Tank Shock, Death or Glory, Ramming [ext]).

The Tank turns to face its direction, declares a distance (at least some movement, up to its
maximum speed) and moves straight ahead. It stops 1" short of friendly models, impassable
terrain, the board edge, (Tank Shock) enemy vehicles and enemy units locked in combat (never
Tank Shocked [decided: the Tank halts]). Each other enemy unit (not a vehicle) it reaches takes a Morale check (Falling Back units fail automatically) and Falls Back on a failure;
if it passes, its owner may make a Death or Glory attack with one model in the path (a pending
decision): one attack that hits automatically against the front armour, no cover. A Crew
Stunned, Immobilised, Wrecked or Explodes! result stops the Tank 1" from the hero; otherwise the
hero is crushed. Enemy models left under the Tank are moved aside (1" clear) or crushed.
A Ram is a Tank Shock that collides with the first enemy vehicle: each vehicle takes a hit of
Strength half the Armour Value of its impacting facing (rounded up; the rammer's front), +1 for a
Tank, +2 for Heavy or Super-heavy (not cumulative); the rammer halts unless the rammed vehicle is
removed by Explodes!, and may only Snap Shoot that turn. Super-heavies roll on the Thunderblitz
table (the Flipped result skips the scatter [decided]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from msgspec.structs import replace
from shapely import unary_union
from shapely.geometry.base import BaseGeometry

from ...match.actions import Move
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Point, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from ..memo import geometry_memo
from . import refs
from .aside import PUSH_CLEARANCE, place_aside
from .attacks import Hit
from .dangerous import dangerous_for_vehicle, dangerous_test
from .firing import locked_in_combat
from .geo import alive, footprint, on_table
from .morale import morale_check, note_strength
from .movement import common_checks, move_limit
from .moves import ModelMove
from .penetration import PenProfile
from .ram import ram
from .resolve import resolve_hits
from .rolls import dice
from .status import flag_unit
from .types import is_super_heavy, is_tank, is_vehicle, is_zooming
from .wording import plural

STOP_SHORT = 1.0
SEARCH_STEPS = 40
HEADING_TOLERANCE_DEG = 1.0
MAX_DOG_OPTIONS = 30
# 40k7 Tanks: enemies locked in combat cannot be Tank Shocked - the Tank halts 1" short [decided].
LOCKED_UNITS_STOP_THE_TANK = True


def validate_tank_shock(state: MatchState, action: Move) -> Rejection | None:
    unit = state.units[action.unit]
    rule = refs.RAM if action.kind == "ram" else refs.TANK_SHOCK
    what = "Ram" if action.kind == "ram" else "Tank Shock"
    if state.phase != "movement":
        return reject(
            "wrong_phase",
            rule,
            f"Tank Shock and Ram happen in the Movement phase, not the {state.phase} phase",
        )
    if not is_tank(unit):
        return reject(
            "not_a_tank",
            rule,
            f"{unit.name} is not a Tank: only Tanks may {what}",
        )
    if is_zooming(unit):
        return reject(
            "not_a_tank",
            refs.FLYER,
            f"{unit.name} is a Zooming Flyer: it cannot {what}",
        )
    bad = common_checks(state, unit)
    if bad is not None:
        return bad
    if unit.flag("moved"):
        return reject("already_moved", refs.MOVEMENT, f"{unit.name} has already moved this phase")
    if unit.flag("transport_used"):
        return reject(
            "transport_used",
            refs.TANK_SHOCK,
            f"a unit embarked on or disembarked from {unit.name} this turn: no Tank Shock or Ram",
        )
    if len(action.path) != 1:
        return reject(
            "not_straight",
            rule,
            f"a Tank Shock is one straight move: give exactly one end point, not {len(action.path)}",
            waypoints=len(action.path),
        )
    model = alive(unit)[0]
    end = action.path[0]
    length = math.hypot(end.x - model.pos.x, end.y - model.pos.y)
    if length <= 1e-9:
        return reject(
            "must_move",
            rule,
            "a Tank Shock must move at least some distance (pivoting alone is not enough)",
            distance=0.0,
        )
    limit = move_limit(unit, "normal")
    if length > limit + 1e-9:
        return reject(
            "too_far", rule, f"declared {length:.2f} in > {limit:g} in allowed", distance=length, limit=limit
        )
    travel = math.degrees(math.atan2(end.y - model.pos.y, end.x - model.pos.x)) % 360
    if (
        action.heading is not None
        and abs((action.heading - travel + 180) % 360 - 180) > HEADING_TOLERANCE_DEG
    ):
        return reject(
            "not_straight",
            rule,
            f"the Tank faces its direction of travel ({travel:.0f} deg), not {action.heading % 360:.0f}",
            heading=travel,
        )
    if action.kind == "ram" and action.target is not None:
        target = state.units.get(action.target)
        if target is None or not on_table(target) or target.side == unit.side or not is_vehicle(target):
            return reject(
                "bad_ram_target", refs.RAM, f"{action.target!r} is not an enemy vehicle on the battlefield"
            )
        if is_zooming(target):
            return reject(
                "bad_ram_target", refs.FLYER, f"{target.name} is a Zooming Flyer: it cannot be Rammed"
            )
    return None


def _hull_at(start: g.Hull, u: tuple[float, float], t: float) -> g.Hull:
    return start.translate(u[0] * t, u[1] * t)


def _swept(start: g.Hull, u: tuple[float, float], t: float) -> BaseGeometry:
    hull: BaseGeometry = unary_union([start.polygon(), _hull_at(start, u, t).polygon()]).convex_hull
    return hull


@geometry_memo
def first_contact(start: g.Hull, u: tuple[float, float], length: float, shape: g.Shape) -> float | None:
    """The distance the hull travels before it touches ``shape`` (None: never within ``length``)."""
    if not g.overlaps(_swept(start, u, length), shape):
        return None
    if g.overlaps(start, shape):
        return 0.0
    lo, hi = 0.0, length
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi) / 2
        if g.overlaps(_swept(start, u, mid), shape):
            hi = mid
        else:
            lo = mid
    return lo


def _edge_limit(state: MatchState, start: g.Hull, u: tuple[float, float], length: float) -> float:
    bf = state.battlefield
    if g.inside_battlefield(_hull_at(start, u, length), bf.width, bf.height):
        return math.inf
    lo, hi = 0.0, length
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi) / 2
        if g.inside_battlefield(_hull_at(start, u, mid), bf.width, bf.height):
            lo = mid
        else:
            hi = mid
    return lo


class _Run:
    """The state of one Tank Shock / Ram in progress (kept in the decision context)."""

    def __init__(self, data: dict[str, str]) -> None:
        self.data = data
        self.uid = data["unit"]
        self.start = (float(data["sx"]), float(data["sy"]))
        self.heading = float(data["heading"])
        self.length = float(data["length"])
        self.kind = data["kind"]
        self.processed = [x for x in data.get("processed", "").split(",") if x]
        rad = math.radians(self.heading)
        self.u = (math.cos(rad), math.sin(rad))

    def at(self, t: float) -> tuple[float, float]:
        """The Tank's centre ``t`` inches along the declared line."""
        return self.start[0] + self.u[0] * t, self.start[1] + self.u[1] * t

    def hull(self, state: MatchState) -> g.Hull:
        model = alive(state.units[self.uid])[0]
        assert model.hull is not None
        return g.Hull(self.start[0], self.start[1], model.hull.length, model.hull.width, self.heading)


def _declared(state: MatchState, action: Move) -> _Run:
    """The Tank Shock / Ram ``action`` declares, before anything is met: from the Tank's position,
    straight to the path's one end point."""
    unit = state.units[action.unit]
    model = alive(unit)[0]
    end = action.path[0]
    heading = math.degrees(math.atan2(end.y - model.pos.y, end.x - model.pos.x)) % 360
    length = math.hypot(end.x - model.pos.x, end.y - model.pos.y)
    data = {
        "unit": unit.id,
        "sx": repr(model.pos.x),
        "sy": repr(model.pos.y),
        "heading": repr(heading),
        "length": repr(length),
        "kind": action.kind,
        "processed": "",
    }
    return _Run(data)


def begin(state: MatchState, action: Move, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    run = _declared(state, action)
    word = "Rams" if action.kind == "ram" else "Tank Shocks"
    ctx.log(
        f"{unit.name} {word}: {run.length:.1f} in straight ahead at {run.heading:.0f} degrees.",
        refs.RAM if action.kind == "ram" else refs.TANK_SHOCK,
    )
    return _advance(state, ctx, run)


@dataclass(frozen=True)
class Halt:
    """Where a declared Tank Shock / Ram stops short of its end point, without a die: ``distance``
    inches along (the Tank's centre at ``point``), 1" short of ``because`` (the words the log
    uses: "Tactical Squad, a friendly unit", "impassable terrain", "the table edge"...)."""

    distance: float
    point: tuple[float, float]
    because: str


def halt(state: MatchState, action: Move) -> Halt | None:
    """40k7 Vehicles, Tanks: Tank Shock and Ramming - where the Tank Shock or Ram ``action``
    declares stops short of its end point, measured as ``begin`` measures it (``_events`` on the
    declared move): 1" short of friendly models, enemy units locked in combat, (Tank Shock)
    enemy vehicles, impassable terrain or the table edge. None when nothing stops it short, or
    when the action is no single straight move of a model with a hull on the table. What the dice
    decide is not foreseen: a Death or Glory that stops the Tank, the Ram that halts it unless the
    rammed vehicle explodes, units that fall back."""
    unit = state.units.get(action.unit)
    if not is_tank_shock(action) or unit is None or not on_table(unit) or len(action.path) != 1:
        return None
    models = alive(unit)
    if not models or models[0].hull is None:
        return None
    run = _declared(state, action)
    if run.length <= 1e-9:
        return None
    stop, _, _, why = _events(state, run)
    if not why:
        return None
    return Halt(stop, run.at(stop), why)


def _shockable(state: MatchState, unit: Unit) -> bool:
    """40k7 Vehicles, Tanks: Tank Shock - "a Tank Shock cannot be attempted against enemies that
    are locked in combat": such a unit is not Tank Shocked (no Morale check, no Death or Glory)
    and, as the Tank may not move through it, the Tank stops 1" short of it as it does of
    friendly models (`LOCKED_UNITS_STOP_THE_TANK` [decided]); Rams obey the same restriction: a
    Walker or Chariot locked in combat is not rammed, the rammer stops 1" short of it."""
    return not (LOCKED_UNITS_STOP_THE_TANK and locked_in_combat(state, unit))


def _events(
    state: MatchState, run: _Run
) -> tuple[float, list[tuple[float, str]], list[tuple[float, str]], str]:
    """(end distance, enemy units reached [(t, id)], enemy vehicles rammed [(t, id)], what stops
    the Tank short of the distance declared: "" when nothing does)."""
    unit = state.units[run.uid]
    hull = run.hull(state)
    stop = run.length
    why = ""

    def cut(t: float, what: str) -> None:
        nonlocal stop, why
        if t - STOP_SHORT < stop:
            stop, why = t - STOP_SHORT, what

    shocks: dict[str, float] = {}
    rams: list[tuple[float, str]] = []
    locked: dict[str, bool] = {}
    for other in state.units.values():
        if other.id == run.uid or not on_table(other) or other.id in run.processed or is_zooming(other):
            continue
        for m in alive(other):
            t = first_contact(hull, run.u, run.length, footprint(m))
            if t is None:
                continue
            if other.side == unit.side:
                cut(t, f"{other.name}, a friendly unit")
            elif is_vehicle(other):
                # A Walker or Chariot locked in combat is not rammed either (see _shockable).
                if run.kind == "ram" and not locked.setdefault(other.id, not _shockable(state, other)):
                    rams.append((t, other.id))
                else:
                    cut(t, f"{other.name}, a vehicle" + (" locked in combat" if locked.get(other.id) else ""))
            elif locked.setdefault(other.id, not _shockable(state, other)):
                cut(t, f"{other.name}, locked in combat")  # never Tank Shocked: see _shockable
            else:
                shocks[other.id] = min(shocks.get(other.id, math.inf), t)
    for t_piece in state.terrain.values():
        if "impassable" in t_piece.kinds:
            t = first_contact(hull, run.u, run.length, [(p.x, p.y) for p in t_piece.points])
            if t is not None:
                cut(t, "impassable terrain")
    edge = _edge_limit(state, hull, run.u, run.length)
    if edge != math.inf:
        cut(edge, "the table edge")
    stop = max(0.0, stop)
    return stop, sorted((t, uid) for uid, t in shocks.items()), sorted(rams), why


def _advance(state: MatchState, ctx: ApplyContext, run: _Run) -> MatchState:
    """Carry the move on until it ends or a Death or Glory decision is needed."""
    while True:
        end, shocks, rams, why = _events(state, run)
        ram_t = rams[0] if rams and rams[0][0] <= end + STOP_SHORT else None
        shock = shocks[0] if shocks and shocks[0][0] <= end + 1e-9 else None
        if ram_t is not None and (shock is None or ram_t[0] < shock[0]):
            state, go_on = ram(state, ctx, run.uid, _hull_at(run.hull(state), run.u, ram_t[0]), ram_t[1])
            run.processed.append(ram_t[1])
            if not go_on:
                return _finish(state, ctx, run, ram_t[0])
            continue
        if shock is None:
            return _finish(state, ctx, run, end, why)
        _, sid = shock
        run.processed.append(sid)
        state = _thunderblitz_shock(state, ctx, run, sid)
        if state.units[sid].destroyed:
            continue
        state, passed = morale_check(
            state, ctx, sid, reason=f" against {state.units[run.uid].name}'s Tank Shock"
        )
        if not passed or state.units[sid].destroyed:
            continue
        options = _dog_options(state, run, sid, end)
        if len(options) > 1:
            target = state.units[sid]
            data = dict(run.data)
            data["processed"] = ",".join(run.processed)
            data["hero_unit"] = sid
            ctx.log(
                f"{target.name} stands its ground: side {target.side} may attempt Death or Glory.",
                refs.DEATH_OR_GLORY,
            )
            return replace(
                state,
                pending=Decision(
                    id=f"dog-{ctx.seq}",
                    side=target.side,
                    kind="death_or_glory",
                    options=tuple(options),
                    prompt=f"{state.units[run.uid].name} Tank Shocks {target.name}: choose a model and weapon for Death or Glory, or none",
                    rule=refs.DEATH_OR_GLORY,
                    context=data,
                ),
            )


def _dog_options(state: MatchState, run: _Run, sid: str, end: float) -> list[str]:
    hull = run.hull(state)
    target = state.units[sid]
    options = ["none"]
    for m in alive(target):
        t = first_contact(hull, run.u, run.length, footprint(m))
        if t is None or t > end + STOP_SHORT:
            continue
        for w in target.weapons.values():
            if w.model == m.id and not w.destroyed:
                options.append(f"{m.id}/{w.id}")
        options.append(f"{m.id}/close_combat")
    return options[:MAX_DOG_OPTIONS]


def resume_death_or_glory(
    state: MatchState, decision: Decision, choice: str, ctx: ApplyContext
) -> MatchState:
    """The tank-shocked unit's owner chose a Death or Glory attack (or none)."""
    state = replace(state, pending=None)
    run = _Run(dict(decision.context))
    sid = decision.context["hero_unit"]
    if choice == "none":
        ctx.log(f"{state.units[sid].name} lets the Tank through.", refs.DEATH_OR_GLORY)
        return _advance(state, ctx, run)
    hero_unit = state.units[sid]
    # The option is "<model id>/<weapon id or close_combat>"; ids may themselves contain "/".
    model_id = max((m for m in hero_unit.models if choice.startswith(f"{m}/")), key=len)
    weapon_id = choice[len(model_id) + 1 :]
    hero = hero_unit.models[model_id]
    tank = state.units[run.uid]
    hull = run.hull(state)
    hero_t = first_contact(hull, run.u, run.length, footprint(hero)) or 0.0
    weapon = hero_unit.weapons.get(weapon_id)
    strength = hero_unit.profile.s
    ap: int | None = None
    rules: tuple[str, ...] = ()
    if weapon is not None:
        strength = weapon.strength or hero_unit.profile.s
        ap, rules = weapon.ap, weapon.rules
    pen = PenProfile(
        strength,
        ordnance=weapon is not None and weapon.type == "ordnance",
        melta_half="melta" in rules,
        armourbane="armourbane" in rules,
        lance="lance" in rules,
        haywire="haywire" in rules,
    )
    label = f"{hero_unit.name}'s {model_id} ({weapon.name if weapon else 'close combat attack'})"
    ctx.log(
        f"Death or Glory! {label} attacks {tank.name}: the attack hits automatically, front armour.",
        refs.DEATH_OR_GLORY,
    )
    hit = Hit(
        pen, ap, (hero.pos.x, hero.pos.y), label, group=sid, facing="front", cover_allowed=False, rules=rules
    )
    state, tally = resolve_hits(state, ctx, run.uid, [hit], attacker=sid, kind="death_or_glory", exclude=())
    if tally.stopped or state.units[run.uid].destroyed:
        ctx.log(f"The hero stops {tank.name}!", refs.DEATH_OR_GLORY)
        if state.units[run.uid].destroyed:
            return state
        return _finish(state, ctx, run, max(0.0, hero_t - STOP_SHORT))
    state = note_strength(state, sid)
    unit = state.units[sid]
    models = dict(unit.models)
    models[model_id] = replace(hero, alive=False, wounds=0)
    still = any(m.alive for m in models.values())
    state = replace_unit(state, replace(unit, models=models, destroyed=not still))
    ctx.log(f"{model_id} fails to stop {tank.name} and is crushed.", refs.DEATH_OR_GLORY)
    return _advance(state, ctx, run)


def _thunderblitz_shock(state: MatchState, ctx: ApplyContext, run: _Run, sid: str) -> MatchState:
    tank = state.units[run.uid]
    if not is_super_heavy(tank):
        return state
    face = ctx.roll("Thunderblitz (Tank Shock)", "1 none, 2-5 Kerr-runch, 6 Overrun")
    if face == 1:
        return state
    if face == 6:
        n = sum(dice(ctx, 2, "Overrun hits", "2D6"))
        s, ap, name = 10, 2, "Overrun"
    else:
        n = dice(ctx, 1, "Kerr-runch hits", "D6")[0]
        s, ap, name = 6, 4, "Kerr-runch"
    ctx.log(f"Thunderblitz: {name}! {state.units[sid].name} suffers {n} S{s} AP{ap} hits.", refs.THUNDERBLITZ)
    hull = run.hull(state)
    hits = [Hit(PenProfile(s), ap, hull.centre, f"{tank.name} ({name})", group=tank.id)] * n
    state, _ = resolve_hits(state, ctx, sid, hits, attacker=run.uid, kind="tank_shock", exclude=())
    return state


def _finish(state: MatchState, ctx: ApplyContext, run: _Run, end: float, why: str = "") -> MatchState:
    """The Tank ends its move ``end`` inches along; ``why`` names what stopped it 1" short of the
    distance declared (a friendly unit, impassable terrain, the table edge...), for the log."""
    unit = state.units[run.uid]
    if unit.destroyed:
        return state
    model = alive(unit)[0]
    x, y = run.at(end)
    moved_model = replace(model, pos=Point(x, y), heading=run.heading)
    models = dict(unit.models)
    models[model.id] = moved_model
    state = replace_unit(state, replace(unit, models=models, moved=unit.moved + end))
    flags = ["moved", "tank_shock"] + (["rammed"] if run.kind == "ram" else [])
    state = flag_unit(state, run.uid, *flags)
    ctx.log(
        f"{unit.name} ends its {'Ram' if run.kind == 'ram' else 'Tank Shock'} after {end:.1f} in"
        + (f' of the {run.length:.1f} in declared: it stops 1" short of {why}.' if why else "."),
        refs.RAM if run.kind == "ram" else refs.TANK_SHOCK,
    )
    state = _push_aside(state, ctx, run.uid)
    mv = ModelMove(run.uid, model, ((model.pos.x, model.pos.y), (x, y)), run.heading)
    if dangerous_for_vehicle(state, state.units[run.uid], mv):
        state = dangerous_test(state, ctx, run.uid)
    return state


def _push_aside(state: MatchState, ctx: ApplyContext, uid: str) -> MatchState:
    """Enemy models under (or within 1" of) the Tank's final position move aside or are crushed."""
    tank = state.units[uid]
    tmodel = alive(tank)[0]
    hull = footprint(tmodel)
    assert isinstance(hull, g.Hull)
    for other in list(state.units.values()):
        if other.side == tank.side or not on_table(other) or is_vehicle(other):
            continue
        movers = [m for m in alive(other) if g.distance(hull, footprint(m)) < PUSH_CLEARANCE - 1e-9]
        if not movers:
            continue
        state = note_strength(state, other.id)
        other = state.units[other.id]
        # Their owner moves them aside (docs/decisions.md); the proposal is the automatic search.
        spots = place_aside(state, ctx, tank, hull, other, movers)
        models = dict(other.models)
        crushed = 0
        for m in movers:
            spot = spots[m.id]
            if spot is None:
                models[m.id] = replace(m, alive=False, wounds=0)
                crushed += 1
            else:
                models[m.id] = replace(m, pos=spot)
        still = any(mm.alive for mm in models.values())
        state = replace_unit(state, replace(other, models=models, destroyed=not still))
        ctx.log(
            f"{other.name}: {plural(len(movers) - crushed, 'model')} moved out of the Tank's way"
            + (f", {crushed} crushed" if crushed else "")
            + ".",
            refs.TANK_SHOCK,
        )
    return state


def is_tank_shock(action: Move) -> bool:
    return action.kind in ("tank_shock", "ram")
