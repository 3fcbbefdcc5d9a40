"""Transports: embarking, disembarking and what damage does to passengers (40k7 Vehicles,
Transports and Open-topped Vehicles [ext]).

- One Infantry unit (any number of units for a Super-heavy), up to the Transport Capacity
  (Bulky models count more); all its models within 2" of an access point (a facing listed in the
  profile's ``access``; every facing when none is listed).
- Embark or disembark only in the Movement phase, not both in one turn; no disembarking from a
  transport that moved more than 6" (or Tank Shocked) this turn; Zooming Flyers neither.
  Disembarking models are placed wholly within 6" of an access point, more than 1" from enemy
  models, in coherency; they count as having moved and cannot charge unless the transport is an
  Assault Vehicle (every Open-topped vehicle is).
- Crew Shaken / Stunned / Weapon Destroyed / Immobilised: at the end of the phase the passengers
  take a Leadership test; on a failure they fire Snap Shots only in their next Shooting phase.
  Wrecked, Explodes! and Crash and Burn: module ``destruction``.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.actions import Disembark, Embark
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Point, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .firing import locked_in_combat
from .geo import alive, coherency_gap, facing_hull, footprint, on_table
from .morale import leadership_test
from .placement import ENEMY_GAP, base_radius
from .speed import COMBAT_SPEED
from .status import end_of_next_shooting_phase, flag_unit, phase_flags_with_prefix, set_status
from .types import is_assault_vehicle, is_super_heavy, is_transport, is_vehicle, is_zooming

EMBARK_RANGE = 2.0
DISEMBARK_RANGE = 6.0
COHERENCY = 2.0


def access_edges(transport: Unit) -> list[tuple[g.Point, g.Point]]:
    hull = facing_hull(alive(transport)[0])
    facings = transport.profile.access or g.FACINGS
    return [g.facing_edge(hull, f) for f in facings]


def _edge_distance(p: g.Point, edges: list[tuple[g.Point, g.Point]]) -> float:
    from shapely import LineString

    pt = g.as_geometry(p)
    return min(float(LineString(e).distance(pt)) for e in edges)


def carried(state: MatchState, transport: Unit) -> int:
    return sum(m.bulky for pid in transport.passengers for m in alive(state.units[pid]))


def check_room(state: MatchState, unit: Unit, transport: Unit) -> Rejection | None:
    """One unit per transport (any number in a Super-heavy), up to its Transport Capacity."""
    if transport.passengers and not is_super_heavy(transport):
        return reject(
            "transport_full",
            refs.TRANSPORT,
            f"{transport.name} already carries a unit (one unit per transport)",
        )
    need = sum(m.bulky for m in alive(unit))
    free = transport.profile.capacity - carried(state, transport)
    if need > free:
        return reject(
            "over_capacity",
            refs.TRANSPORT,
            f"{unit.name} needs {need} places, {transport.name} has {free} free",
            needed=need,
            free=free,
        )
    return None


def check_start_embarked(state: MatchState, unit: Unit, transport: Unit) -> Rejection | None:
    """Set-up (40k7 Vehicles, Transports): who may start the game embarked in ``transport`` -
    the Infantry unit it has room for; where the models stand does not matter yet."""
    if is_vehicle(unit) or unit.kind != "infantry":
        return reject("not_infantry", refs.TRANSPORT, f"{unit.name} is not Infantry: only Infantry embarks")
    if not is_transport(transport):
        return reject("not_a_transport", refs.TRANSPORT, f"{transport.name} is not a transport")
    return check_room(state, unit, transport)


def validate_embark(state: MatchState, action: Embark) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "movement":
        return reject(
            "wrong_phase", refs.TRANSPORT, f"units embark in the Movement phase, not the {state.phase} phase"
        )
    if is_vehicle(unit) or unit.kind != "infantry":
        return reject("not_infantry", refs.TRANSPORT, f"{unit.name} is not Infantry: only Infantry embarks")
    if not on_table(unit):
        return reject("not_on_table", refs.TRANSPORT, f"{unit.name} is not on the battlefield")
    if unit.flag("disembarked") or unit.flag("embarked"):
        return reject(
            "embark_disembark_same_turn",
            refs.TRANSPORT,
            f"{unit.name} already embarked or disembarked this turn",
        )
    if "falling_back" in unit.statuses or locked_in_combat(state, unit):
        return reject("cannot_embark", refs.TRANSPORT, f"{unit.name} is Falling Back or locked in combat")
    transport = state.units.get(action.transport)
    if (
        transport is None
        or not on_table(transport)
        or transport.side != unit.side
        or not is_transport(transport)
    ):
        return reject(
            "not_a_transport",
            refs.TRANSPORT,
            f"{action.transport!r} is not a friendly transport on the battlefield",
        )
    if is_zooming(transport):
        return reject("zooming_flyer", refs.FLYER, f"{transport.name} is a Zooming Flyer: no embarking")
    if transport.flag("tank_shock"):
        return reject("tank_shocked", refs.TANK_SHOCK, f"{transport.name} made a Tank Shock or Ram this turn")
    room = check_room(state, unit, transport)
    if room is not None:
        return room
    edges = access_edges(transport)
    for m in alive(unit):
        d = max(0.0, _edge_distance((m.pos.x, m.pos.y), edges) - base_radius(m))
        if d > EMBARK_RANGE + 1e-9:
            return reject(
                "too_far_to_embark",
                refs.TRANSPORT,
                f"model {m.id} is {d:.2f} in from the nearest access point (2 in)",
                distance=d,
                model=m.id,
            )
    return None


def apply_embark(state: MatchState, action: Embark, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    transport = state.units[action.transport]
    state = replace_unit(state, replace(unit, embarked_in=transport.id))
    state = replace_unit(
        state, replace(state.units[transport.id], passengers=(*transport.passengers, unit.id))
    )
    state = flag_unit(state, unit.id, "embarked", "moved")
    state = flag_unit(state, transport.id, "transport_used")
    ctx.log(f"{unit.name} embarks on {transport.name}.", refs.TRANSPORT)
    return state


def validate_disembark(state: MatchState, action: Disembark) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "movement":
        return reject(
            "wrong_phase",
            refs.TRANSPORT,
            f"units disembark in the Movement phase, not the {state.phase} phase",
        )
    if unit.embarked_in is None:
        return reject("not_embarked", refs.TRANSPORT, f"{unit.name} is not embarked")
    if unit.flag("embarked"):
        return reject(
            "embark_disembark_same_turn",
            refs.TRANSPORT,
            f"{unit.name} embarked this turn: it cannot disembark as well",
        )
    transport = state.units[unit.embarked_in]
    if is_zooming(transport):
        return reject(
            "zooming_flyer", refs.FLYER, f"{transport.name} is a Zooming Flyer: no voluntary disembarking"
        )
    if transport.moved > COMBAT_SPEED + 1e-9:
        return reject(
            "transport_too_fast",
            refs.TRANSPORT,
            f"{transport.name} moved {transport.moved:.1f} in this turn: passengers disembark only if it moved 6 in or less",
            moved=transport.moved,
            limit=COMBAT_SPEED,
        )
    if transport.flag("tank_shock"):
        return reject("tank_shocked", refs.TANK_SHOCK, f"{transport.name} made a Tank Shock or Ram this turn")
    living = alive(unit)
    missing = [m.id for m in living if m.id not in action.positions]
    if missing:
        return reject(
            "positions_missing",
            refs.TRANSPORT,
            f"give a position for every model (missing {missing[0]})",
            model=missing[0],
        )
    edges = access_edges(transport)
    bf = state.battlefield
    others = [
        (u, m) for u in state.units.values() if u.id not in (unit.id,) and on_table(u) for m in alive(u)
    ]
    placed: list[g.Footprint] = []
    for m in living:
        p = action.positions[m.id]
        base = g.Base(p.x, p.y, m.base_mm or 25.0)
        far = _edge_distance((p.x, p.y), edges) + base_radius(m)
        if far > DISEMBARK_RANGE + 1e-9:
            return reject(
                "too_far_to_disembark",
                refs.TRANSPORT,
                f"model {m.id} would be {far:.2f} in from the access point (wholly within 6 in)",
                distance=far,
                model=m.id,
            )
        if not g.inside_battlefield(base, bf.width, bf.height):
            return reject(
                "off_table",
                refs.TRANSPORT,
                f"model {m.id} at ({p.x:.1f}, {p.y:.1f}) would be off the {bf.width:g} x {bf.height:g} in "
                "battlefield",
                model=m.id,
                x=p.x,
                y=p.y,
                width=bf.width,
                height=bf.height,
            )
        for u, o in others:
            if g.overlaps(base, footprint(o)):
                return reject(
                    "overlaps_model", refs.TRANSPORT, f"model {m.id} would overlap {o.id}", model=o.id
                )
            gap = g.distance(base, footprint(o)) if u.side != unit.side else ENEMY_GAP
            if gap < ENEMY_GAP - 1e-9:
                return reject(
                    "too_close_to_enemy",
                    refs.TRANSPORT,
                    f"model {m.id} would be {gap:.2f} in from enemy model {o.id} (at least {ENEMY_GAP:g} in)",
                    distance=gap,
                    model=o.id,
                )
        if any(g.overlaps(base, q) for q in placed):
            return reject(
                "overlaps_model", refs.TRANSPORT, f"model {m.id} would overlap another disembarking model"
            )
        for t in state.terrain.values():
            if "impassable" in t.kinds and g.overlaps(base, [(q.x, q.y) for q in t.points]):
                return reject(
                    "impassable",
                    refs.TRANSPORT,
                    f"model {m.id} would be in impassable terrain {t.id}",
                    terrain=t.id,
                )
        placed.append(base)
    if not g.coherent(placed, COHERENCY):
        gap = coherency_gap(placed)
        return reject(
            "coherency",
            refs.COHERENCY,
            f"{unit.name} would be out of unit coherency: a gap of {gap:.2f} in > {COHERENCY:g} in",
            gap=gap,
            limit=COHERENCY,
        )
    return None


def apply_disembark(state: MatchState, action: Disembark, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    assert unit.embarked_in is not None
    transport = state.units[unit.embarked_in]
    models = dict(unit.models)
    for m in alive(unit):
        p = action.positions[m.id]
        models[m.id] = replace(m, pos=Point(p.x, p.y))
    state = replace_unit(state, replace(unit, models=models, embarked_in=None))
    state = replace_unit(
        state,
        replace(state.units[transport.id], passengers=tuple(p for p in transport.passengers if p != unit.id)),
    )
    flags = ["disembarked", "moved"] + ([] if is_assault_vehicle(transport) else ["no_charge"])
    state = flag_unit(state, unit.id, *flags)
    state = flag_unit(state, transport.id, "transport_used")
    note = "" if is_assault_vehicle(transport) else " (it cannot charge this turn)"
    ctx.log(f"{unit.name} disembarks from {transport.name}{note}.", refs.TRANSPORT)
    return state


def _passenger_and_transport(state: MatchState, ids: str) -> tuple[str, str]:
    """Split "<passenger>:<transport>" where the ids themselves may hold ":" (both are units)."""
    for i, ch in enumerate(ids):
        if ch == ":" and ids[:i] in state.units and ids[i + 1 :] in state.units:
            return ids[:i], ids[i + 1 :]
    return ids, ""


def passenger_tests(state: MatchState, ctx: ApplyContext) -> MatchState:
    """End of phase: passengers of transports that suffered Shaken / Stunned / Weapon Destroyed /
    Immobilised this phase take a Leadership test, even if they have disembarked since (40k7
    Transports, Effects of Damage on Passengers); failure = Snap Shots only in their next Shooting
    phase. One test per passenger unit however many results."""
    pending = phase_flags_with_prefix(state, "passenger_test:")
    if pending:
        state = replace(
            state, phase_flags=tuple(f for f in state.phase_flags if not f.startswith("passenger_test:"))
        )
    tested: set[str] = set()
    for flag in pending:
        pid, tid = _passenger_and_transport(state, flag)
        p = state.units.get(pid)
        if p is None or p.destroyed or pid in tested:
            continue
        tested.add(pid)
        transport = state.units.get(tid)
        where = f"{'inside' if p.embarked_in == tid else 'out of'} {transport.name if transport else tid}"
        if leadership_test(ctx, p.profile.ld, "passenger Leadership test"):
            ctx.log(f"{p.name} ({where}) passes its Leadership test.", refs.PASSENGERS)
        else:
            ctx.log(
                f"{p.name} ({where}) fails its Leadership test: Snap Shots only next Shooting phase.",
                refs.PASSENGERS,
            )
            state = set_status(state, pid, "snap_only", end_of_next_shooting_phase(state, p.side))
    return state
