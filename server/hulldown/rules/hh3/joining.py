"""A Paragon joining and leaving an Infantry unit during the game (hh3 Model Types, Paragon).

# Seed glossary, Paragon: "Can join or leave an Infantry unit (and vice versa)". hh3 Model Types,
# Paragon [ext]: Paragon models may join and leave a unit that includes Infantry models. hh3
# Transports, Specialists, Command and Paragons [ext]: no model may join or leave a unit that is
# embarked, nor leave it in the turn the unit disembarks.
#
# [decided] (docs/rules-notes.md, hh3 Paragon): both are taken in the Movement phase by the
# active player, as the unit is selected in the Move sub-phase (before or after it moves):
# - Join: a Paragon unit of one living model, within unit coherency (2", closest base edges) of
#   a living model of a friendly Infantry unit, neither locked in combat nor embarked, the
#   acting unit not Pinned nor Routed, the Infantry unit with no living Paragon model yet
#   (MAX_JOINED_PARAGONS). Either may act ("and vice versa"): the result is the same, the
#   Infantry unit with the Paragon model in it. The model becomes a ``kind: paragon`` model of the unit with its own
#   profile and weapons; the Paragon unit leaves play as a unit (its id is no longer in the
#   match). The unit keeps its name, keywords and statuses, gains the Paragon's statuses it
#   lacks, and counts as having done what either did this turn (turn flags united, the longer
#   move kept).
# - Leave: a joined Paragon model (``Model.kind == "paragon"``) that is not the unit's last
#   living model; it becomes a Paragon unit of its own where it stands, with the id of the model
#   (or ``<model>-<n>``, the smallest n from 2 whose id is free), its own profile and weapons, the
#   unit's Faction and statuses, and the unit's turn flags (so it may still move only if the unit
#   has not).
# - Never both in one Movement phase (turn flags ``joined`` / ``left``).
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.actions import Join, Leave
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Unit
from ...match.turns import add_flag, replace_unit
from .. import geometry as g
from . import geom, statuses
from .combat_lock import locked
from .core import (
    COHERENCY,
    F_DISEMBARKED,
    R_PARAGON,
    R_TRANSPORT_PARAGONS,
    alive_models,
    is_paragon,
    on_table,
)

F_JOINED = "joined"  # a Paragon joined the unit this turn
F_LEFT = "left"  # the unit is a Paragon that left its unit this turn
JOIN_RANGE = COHERENCY  # within unit coherency of a model of the unit it joins [decided]
JOIN_KINDS = ("infantry",)  # a Paragon joins an Infantry unit (seed glossary, Paragon)
MAX_JOINED_PARAGONS = 1  # [decided] one living Paragon model per unit
# The turn flags a leaving Paragon does not take with it: what its old unit did in a combat.
UNIT_ONLY_FLAG_PREFIXES = ("combat:",)


def _movement_phase(state: MatchState, what: str) -> Rejection | None:
    if state.phase != "movement":
        return reject(
            "wrong_phase", R_PARAGON, f"a Paragon {what} a unit in the Movement phase, not {state.phase}"
        )
    return None


def _gap(model: Model, unit: Unit) -> float:
    fp = geom.footprint(model)
    return min(g.distance(fp, geom.footprint(m)) for m in alive_models(unit))


def _joined_paragons(unit: Unit) -> list[Model]:
    return [m for m in alive_models(unit) if m.kind == "paragon"]


def _pair(unit: Unit, target: Unit | None) -> tuple[Unit, Unit] | None:
    """(the Paragon unit, the unit it joins): a Paragon joins an Infantry unit, or an Infantry
    unit joins a Paragon (seed glossary, Paragon: "Can join or leave an Infantry unit (and vice
    versa)"); None when neither is a Paragon."""
    if is_paragon(unit):
        return (unit, target) if target is not None else None
    if target is not None and is_paragon(target):
        return target, unit
    return None


def _selectable(state: MatchState, unit: Unit, what: str) -> Rejection | None:
    """The acting unit is selected in the Move sub-phase: on the table, not Pinned nor Routed, not
    locked in combat, and it did not leave a unit this turn."""
    if unit.embarked_in is not None:
        return reject(
            "embarked", R_TRANSPORT_PARAGONS, f"{unit.name} is embarked: no model {what} from a transport"
        )
    if not on_table(unit):
        return reject("not_on_table", R_PARAGON, f"{unit.name} is not on the battlefield: it joins no unit")
    if unit.flag(F_LEFT):
        return reject(
            "left_this_turn", R_PARAGON, f"{unit.name} left a unit this turn: it joins none in the same turn"
        )
    if statuses.is_pinned(unit) or statuses.ROUTED in unit.statuses:
        status = "Pinned" if statuses.is_pinned(unit) else "Routed"
        return reject(
            "pinned", R_PARAGON, f"{unit.name} is {status}: it cannot be selected in the Move sub-phase"
        )
    if locked(state, unit):
        return reject(
            "locked_in_combat", R_PARAGON, f"{unit.name} is locked in combat: it cannot join a unit"
        )
    return None


def validate_join(state: MatchState, unit: Unit, action: Join) -> Rejection | None:
    """hh3 Model Types, Paragon: may the Paragon unit join the friendly Infantry unit (or the
    Infantry unit join the Paragon) now?"""
    wrong = _movement_phase(state, "joins")
    if wrong is not None:
        return wrong
    acting = _selectable(state, unit, "joins")
    if acting is not None:
        return acting
    target = state.units.get(action.target)
    if target is None or target.id == unit.id or target.side != unit.side or not on_table(target):
        if target is not None and target.side == unit.side and target.embarked_in is not None:
            return reject(
                "target_embarked", R_TRANSPORT_PARAGONS, f"{target.name} is embarked: no model joins it there"
            )
        return reject("unknown_target", R_PARAGON, f"no other friendly unit {action.target!r} on the table")
    pair = _pair(unit, target)
    if pair is None:
        return reject(
            "not_a_paragon",
            R_PARAGON,
            f"neither {unit.name} nor {target.name} is a Paragon: a Paragon and an Infantry unit join",
        )
    paragon, infantry = pair
    alive = alive_models(paragon)
    if len(alive) != 1:
        return reject(
            "not_one_model",
            R_PARAGON,
            f"{paragon.name} has {len(alive)} living models: a Paragon joins a unit as one model",
            models=len(alive),
            allowed=1,
        )
    if infantry.kind not in JOIN_KINDS:
        return reject(
            "not_infantry",
            R_PARAGON,
            f"{infantry.name} is a {infantry.kind} unit: a Paragon joins an Infantry unit",
            kind=infantry.kind,
            allowed=", ".join(JOIN_KINDS),
        )
    if len(_joined_paragons(infantry)) >= MAX_JOINED_PARAGONS:
        return reject(
            "already_joined",
            R_PARAGON,
            f"{infantry.name} already has a Paragon with it",
            paragons=len(_joined_paragons(infantry)),
            allowed=MAX_JOINED_PARAGONS,
        )
    if locked(state, target):
        return reject("target_locked", R_PARAGON, f"{target.name} is locked in combat: no unit joins it")
    if target.flag(F_LEFT):
        return reject(
            "left_this_turn",
            R_PARAGON,
            f"{target.name} left a unit this turn: it joins none in the same turn",
        )
    gap = _gap(alive[0], infantry)
    if gap > JOIN_RANGE + g.EPS:
        return reject(
            "too_far",
            R_PARAGON,
            f"{paragon.name} is {gap:.2f} in from {infantry.name}: it joins within {JOIN_RANGE:g} in (unit coherency)",
            distance=round(gap, 3),
            limit=JOIN_RANGE,
        )
    clash = sorted(set(paragon.weapons) & set(infantry.weapons))
    if clash:
        return reject(
            "weapon_id_clash",
            R_PARAGON,
            f"{infantry.name} already has weapons with the ids {', '.join(clash)}: weapon ids are unique in a unit",
            weapons=", ".join(clash),
        )
    return None


def apply_join(state: MatchState, unit: Unit, action: Join, ctx: ApplyContext) -> MatchState:
    """The Paragon's model becomes a Paragon model of the Infantry unit (own profile, weapons
    kept); the Infantry unit keeps its id whichever of the two acted [decided]."""
    pair = _pair(unit, state.units[action.target])
    assert pair is not None  # validated
    paragon, infantry = pair
    model = alive_models(paragon)[0]
    joined = replace(model, kind="paragon", profile=model.profile or paragon.profile)
    flags = (*infantry.turn_flags, *(f for f in paragon.turn_flags if f not in infantry.turn_flags))
    merged = replace(
        infantry,
        models={**infantry.models, model.id: joined},
        weapons={**infantry.weapons, **{w.id: w for w in paragon.weapons.values() if w.model == model.id}},
        statuses={**paragon.statuses, **infantry.statuses},
        turn_flags=flags,
        moved=max(infantry.moved, paragon.moved),
    )
    units = {uid: u for uid, u in state.units.items() if uid != paragon.id}
    units[infantry.id] = add_flag(merged, F_JOINED)
    ctx.log(f"{unit.name} joins {state.units[action.target].name}.", R_PARAGON)
    return _warlord_follows(replace(state, units=units), paragon.id, model.id)


def _warlord_follows(state: MatchState, unit_id: str, model_id: str) -> MatchState:
    """A Warlord named by the Paragon's unit id is its model from now on: the unit id is gone
    once it joins (docs/missions.md, Slay the Warlord)."""
    ms = state.mission
    if ms is None or unit_id not in ms.mission.warlords.values():
        return state
    warlords = {side: model_id if named == unit_id else named for side, named in ms.mission.warlords.items()}
    return replace(state, mission=replace(ms, mission=replace(ms.mission, warlords=warlords)))


def validate_leave(state: MatchState, unit: Unit, action: Leave) -> Rejection | None:
    """hh3 Model Types, Paragon: may the joined Paragon model leave its unit now?"""
    wrong = _movement_phase(state, "leaves")
    if wrong is not None:
        return wrong
    model = unit.models.get(action.model)
    if model is None or not model.alive or model.kind != "paragon":
        return reject(
            "not_a_joined_paragon",
            R_PARAGON,
            f"{unit.name} has no living Paragon model {action.model!r} that joined it",
            model=action.model,
        )
    if unit.embarked_in is not None:
        return reject("embarked", R_TRANSPORT_PARAGONS, f"{unit.name} is embarked: no model leaves it there")
    if unit.flag(F_DISEMBARKED):
        return reject(
            "disembarked_this_turn",
            R_TRANSPORT_PARAGONS,
            f"{unit.name} disembarked this turn: its Paragon cannot leave it until the next",
        )
    if unit.flag(F_JOINED):
        return reject(
            "joined_this_turn",
            R_PARAGON,
            f"a Paragon joined {unit.name} this turn: none leaves it in the same turn",
        )
    if statuses.is_pinned(unit) or statuses.ROUTED in unit.statuses:
        status = "Pinned" if statuses.is_pinned(unit) else "Routed"
        return reject(
            "pinned", R_PARAGON, f"{unit.name} is {status}: it cannot be selected in the Move sub-phase"
        )
    if locked(state, unit):
        return reject("locked_in_combat", R_PARAGON, f"{unit.name} is locked in combat: no model leaves it")
    if len(alive_models(unit)) < 2:
        return reject(
            "last_model", R_PARAGON, f"{model.id} is the last model of {unit.name}: there is nothing to leave"
        )
    return None


def leaving_unit_id(state: MatchState, model_id: str) -> str:
    """The id of the unit a leaving Paragon becomes [decided]: its model's id, or ``<model>-<n>``
    (the smallest n from 2) when a unit already has that id."""
    if model_id not in state.units:
        return model_id
    n = 2
    while f"{model_id}-{n}" in state.units:
        n += 1
    return f"{model_id}-{n}"


def apply_leave(state: MatchState, unit: Unit, action: Leave, ctx: ApplyContext) -> MatchState:
    """The Paragon model becomes a Paragon unit of its own, where it stands."""
    model = unit.models[action.model]
    uid = leaving_unit_id(state, model.id)
    own = Unit(
        id=uid,
        side=unit.side,
        name=f"Paragon {model.id}",
        kind="paragon",
        profile=model.profile or unit.profile,
        models={model.id: replace(model, kind=None, profile=None)},
        weapons={w.id: w for w in unit.weapons.values() if w.model == model.id},
        faction=unit.faction,
        statuses=dict(unit.statuses),
        moved=unit.moved,
        turn_flags=tuple(f for f in unit.turn_flags if not f.startswith(UNIT_ONLY_FLAG_PREFIXES)),
    )
    rest = replace(
        unit,
        models={mid: m for mid, m in unit.models.items() if mid != model.id},
        weapons={wid: w for wid, w in unit.weapons.items() if w.model != model.id},
    )
    state = replace_unit(replace_unit(state, rest), add_flag(own, F_LEFT))
    ctx.log(f"{model.id} leaves {unit.name}: it is now the Paragon unit {uid}.", R_PARAGON)
    return state
