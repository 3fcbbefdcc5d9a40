"""The match definition: the one document that ``POST /matches``, ``hulldown simulate``, the
examples and the browser's new-match page all use (docs/match-definition.md).

It holds only what a person sets: the edition, the battlefield, terrain, units with their
profiles, models and weapons, and the options. ``units``, ``terrain``, ``models`` and ``weapons``
may each be a list of objects with an ``id`` or a map keyed by id; both become the same
:class:`~hulldown.match.scenario.Scenario`. What the rules change during a game (hull points
left, wounds, statuses, destroyed weapons...) starts from the profile and may be given only under
an explicit ``state`` key, for a scenario that deliberately starts mid-game.

``format`` is the document's version (:data:`~hulldown.match.limits.FORMAT_VERSION`). A document
without ``format`` is read as the earlier form, where runtime fields sat beside the others (the
state dumps the first examples were written as); they are taken as the same ``state``.

:func:`read_definition` is pure: decoded JSON in, a :class:`CreateMatch` or the list of problems
out. The shape is checked first (unknown keys, types, enum values), then the rules of the edition
(match/definition_checks.py).
"""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi

from ..missions.catalogue import resolve
from ..missions.model import Mission
from .definition_checks import check_definition
from .definition_types import (
    DefinitionError,
    MatchDefinition,
    ModelDef,
    ModelState,
    ScenarioDef,
    SimulationFile,
    UnitDef,
    UnitState,
    WeaponDef,
    WeaponState,
)
from .limits import FORMAT_VERSION
from .problems import Problem, join
from .scenario_types import CreateMatch, Scenario
from .shape_check import check_shape
from .state import (
    Model,
    Mount,
    Options,
    Profile,
    Terrain,
    Unit,
    Weapon,
)

# Runtime fields of the earlier form and where they go under ``state``.
_UNIT_RUNTIME = ("hp", "statuses", "destroyed", "wreck", "moved", "turn_flags")
_MODEL_RUNTIME = ("wounds", "alive")
_WEAPON_RUNTIME = ("destroyed",)
_STATE_HINT = "this is match state: give it under 'state' (a match that starts mid-game), or leave it out"
_HINTS = {name: _STATE_HINT for name in (*_UNIT_RUNTIME, *_MODEL_RUNTIME, "passengers")}
_HINTS["passengers"] = "give each passenger unit 'embarked_in' instead"


def read_definition(
    raw: Any, as_type: type[MatchDefinition] = MatchDefinition
) -> MatchDefinition | DefinitionError:
    """Check the shape of decoded JSON and convert it (lists or maps, earlier form upgraded)."""
    if not isinstance(raw, dict):
        return DefinitionError("shape", (Problem("", "a match definition is a JSON object"),))
    problems: list[Problem] = []
    data = _normalised(raw, problems)
    if problems:
        return DefinitionError("shape", tuple(problems))
    try:  # the fast path: msgspec's strict conversion accepts exactly the well-formed documents
        return msgspec.convert(data, as_type)
    except msgspec.ValidationError as exc:
        # the walker finds every problem, with the allowed values and a did-you-mean
        problems = check_shape(data, as_type, hints=_HINTS)
        return DefinitionError("shape", tuple(problems) or (Problem("", str(exc)),))


def create_match(definition: MatchDefinition) -> CreateMatch:
    """The match a checked definition describes: every default derived from the profile."""
    units = definition.scenario.units
    passengers: dict[str, list[str]] = {}
    for u in units:
        if u.embarked_in is not None:
            passengers.setdefault(u.embarked_in, []).append(u.id)
    scenario = Scenario(
        battlefield=definition.scenario.battlefield,
        terrain=definition.scenario.terrain,
        units=tuple(_unit(u, tuple(passengers.get(u.id, ()))) for u in units),
        first=definition.scenario.first,
    )
    mission: Mission | None = None
    if definition.mission is not None:
        bf = definition.scenario.battlefield
        found = resolve(definition.mission, definition.edition, bf.width, bf.height)
        assert isinstance(found, Mission), found  # check_definition refused an unknown mission
        mission = found
    return CreateMatch(
        edition=definition.edition, scenario=scenario, options=definition.options, mission=mission
    )


def parse_definition(raw: Any) -> CreateMatch | DefinitionError:
    """Shape, then the edition's rules: the match to create, or every problem found."""
    definition = read_definition(raw)
    if isinstance(definition, DefinitionError):
        return definition
    return checked(definition)


def checked(definition: MatchDefinition) -> CreateMatch | DefinitionError:
    problems = check_definition(definition)
    if problems:
        return DefinitionError("rules", tuple(problems))
    return create_match(definition)


def to_document(create: CreateMatch) -> dict[str, Any]:
    """A match back as a definition (format 1): only what differs from the defaults is written,
    runtime fields under ``state`` when they differ from the start of a match."""
    units = []
    for u in create.scenario.units:
        unit = _unit_document(u)
        units.append(unit)
    doc: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "edition": create.edition,
        "scenario": {
            "battlefield": msgspec.to_builtins(create.scenario.battlefield),
            "terrain": [_trim(msgspec.to_builtins(t), Terrain) for t in create.scenario.terrain],
            "units": units,
            "first": create.scenario.first,
        },
    }
    options = _trim(msgspec.to_builtins(create.options), Options)
    if options:
        doc["options"] = options
    if create.mission is not None:
        doc["mission"] = {"custom": msgspec.to_builtins(create.mission)}
    return doc


# ---- helpers ------------------------------------------------------------------------------------


def _trim(data: dict[str, Any], cls: type[msgspec.Struct]) -> dict[str, Any]:
    defaults = _defaults(cls)
    return {k: v for k, v in data.items() if k not in defaults or defaults[k] != v}


def _defaults(cls: type[msgspec.Struct]) -> dict[str, Any]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    out: dict[str, Any] = {}
    for f in info.fields:
        if f.default is not msgspec.NODEFAULT:
            out[f.encode_name] = msgspec.to_builtins(f.default)
        elif f.default_factory is not msgspec.NODEFAULT:
            out[f.encode_name] = msgspec.to_builtins(f.default_factory())
    return out


def _unit_document(u: Unit) -> dict[str, Any]:
    unit: dict[str, Any] = {"id": u.id, "side": u.side, "name": u.name, "kind": u.kind}
    profile = _trim(msgspec.to_builtins(u.profile), Profile)
    if profile:
        unit["profile"] = profile
    models = []
    for m in u.models.values():
        model = _trim(msgspec.to_builtins(m), Model)
        model["id"], model["pos"] = m.id, [m.pos.x, m.pos.y]
        model_state: dict[str, Any] = {}
        if m.wounds != (m.profile or u.profile).w:
            model_state["wounds"] = m.wounds
        if not m.alive:
            model_state["alive"] = False
        for key in _MODEL_RUNTIME:
            model.pop(key, None)
        if model_state:
            model["state"] = model_state
        models.append(model)
    unit["models"] = models
    weapons = []
    for w in u.weapons.values():
        weapon = _trim(msgspec.to_builtins(w), Weapon)
        weapon.update(id=w.id, name=w.name, model=w.model, range=w.range, strength=w.strength)
        if weapon.pop("destroyed", False):
            weapon["state"] = {"destroyed": True}
        if "mount" in weapon:
            weapon["mount"] = _trim(weapon["mount"], Mount)
        weapons.append(weapon)
    if weapons:
        unit["weapons"] = weapons
    for key in ("keywords", "faction", "squadron", "embarked_in"):
        field = getattr(u, key)
        if field not in ((), "", None):
            unit[key] = list(field) if isinstance(field, tuple) else field
    state: dict[str, Any] = {}
    if u.hp != u.profile.hp:
        state["hp"] = u.hp
    for key in ("statuses", "destroyed", "wreck", "moved", "turn_flags"):
        runtime = getattr(u, key)
        if runtime not in ({}, False, 0.0, ()):
            state[key] = list(runtime) if isinstance(runtime, tuple) else runtime
    if state:
        unit["state"] = state
    return unit


def _unit(u: UnitDef, passengers: tuple[str, ...]) -> Unit:
    state = u.state or UnitState()
    models = {m.id: _model(m, u.profile) for m in u.models}
    only = u.models[0].id if len(u.models) == 1 else ""
    weapons = {w.id: _weapon(w, only) for w in u.weapons}
    return Unit(
        id=u.id,
        side=u.side,
        name=u.name or u.id,
        kind=u.kind,
        profile=u.profile,
        models=models,
        weapons=weapons,
        keywords=u.keywords,
        faction=u.faction,
        squadron=u.squadron,
        hp=u.profile.hp if state.hp is None else state.hp,
        statuses=state.statuses,
        embarked_in=u.embarked_in,
        passengers=passengers,
        destroyed=state.destroyed,
        wreck=state.wreck,
        moved=state.moved,
        turn_flags=state.turn_flags,
    )


def _model(m: ModelDef, profile: Profile) -> Model:
    state = m.state or ModelState()
    return Model(
        id=m.id,
        pos=m.pos,
        heading=m.heading,
        hull=m.hull,
        base_mm=m.base_mm,
        wounds=(m.profile or profile).w if state.wounds is None else state.wounds,
        bulky=m.bulky,
        alive=state.alive,
        profile=m.profile,
        kind=m.kind,
    )


def _weapon(w: WeaponDef, only_model: str) -> Weapon:
    return Weapon(
        id=w.id,
        name=w.name,
        model=w.model or only_model,
        range=w.range,
        strength=w.strength,
        ap=w.ap,
        damage=w.damage,
        shots=w.shots,
        type=w.type,
        rules=w.rules,
        mount=w.mount,
        defensive=w.defensive,
        destroyed=(w.state or WeaponState()).destroyed,
    )


def _normalised(raw: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """Maps keyed by id become lists; the earlier form's runtime fields move under ``state``."""
    legacy = "format" not in raw
    fmt = raw.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION or isinstance(fmt, bool):
        problems.append(Problem("format", f"unsupported format {fmt!r}", allowed=(str(FORMAT_VERSION),)))
        return raw
    data = dict(raw)
    scenario = data.get("scenario")
    if not isinstance(scenario, dict):
        return data
    scenario = dict(scenario)
    data["scenario"] = scenario
    for key in ("units", "terrain"):
        if key in scenario:
            scenario[key] = _listed(scenario[key], join("scenario", key), problems)
    units = scenario.get("units")
    if not isinstance(units, list):
        return data
    declared: dict[str, list[str]] = {}
    new_units = []
    for i, unit in enumerate(units):
        path = join(join("scenario", "units"), i)
        if not isinstance(unit, dict):
            new_units.append(unit)
            continue
        unit = dict(unit)
        for key in ("models", "weapons"):
            if key in unit:
                unit[key] = _listed(unit[key], join(path, key), problems)
        if legacy:
            if isinstance(unit.get("passengers"), list) and isinstance(unit.get("id"), str):
                declared[unit["id"]] = [p for p in unit.pop("passengers") if isinstance(p, str)]
            _to_state(unit, _UNIT_RUNTIME, {"hp": 0})
            for child_key, fields, blank in (
                ("models", _MODEL_RUNTIME, {}),
                ("weapons", _WEAPON_RUNTIME, {}),
            ):
                children = unit.get(child_key)
                if isinstance(children, list):
                    unit[child_key] = [
                        _to_state(dict(c), fields, blank) if isinstance(c, dict) else c for c in children
                    ]
        new_units.append(unit)
    scenario["units"] = new_units
    if legacy:
        _check_declared_passengers(new_units, declared, problems)
    return data


def _to_state(obj: dict[str, Any], fields: tuple[str, ...], unset: dict[str, Any]) -> dict[str, Any]:
    """Move the earlier form's runtime ``fields`` of ``obj`` under ``state``; a value equal to
    ``unset`` (``hp: 0`` meant "from the profile") is dropped."""
    moved = {k: obj.pop(k) for k in fields if k in obj}
    moved = {k: v for k, v in moved.items() if not (k in unset and unset[k] == v)}
    if moved and "state" not in obj:
        obj["state"] = moved
    return obj


def _check_declared_passengers(
    units: list[Any], declared: dict[str, list[str]], problems: list[Problem]
) -> None:
    """The earlier form listed ``passengers`` on the transport as well: they must agree. A unit
    whose id is no string is left to the shape check, which names it."""
    by_id = {
        u["id"]: (i, u) for i, u in enumerate(units) if isinstance(u, dict) and isinstance(u.get("id"), str)
    }
    for transport, names in declared.items():
        i, _ = by_id[transport]
        for j, name in enumerate(names):
            found = by_id.get(name)
            path = f"scenario.units[{i}].passengers[{j}]"
            if found is None:
                problems.append(Problem(path, f"passenger {name!r} is not a unit of this match"))
            elif found[1].get("embarked_in") != transport:
                problems.append(Problem(path, f"passenger {name!r} does not say embarked_in {transport!r}"))


def _listed(items: Any, path: str, problems: list[Problem]) -> Any:
    """A map ``{id: {...}}`` as a list of objects with that ``id`` (a list is returned as is)."""
    if not isinstance(items, dict):
        return items
    out = []
    for key, item in items.items():
        if isinstance(item, dict):
            if "id" in item and item["id"] != key:
                problems.append(
                    Problem(join(join(path, key), "id"), f"id {item['id']!r} differs from its key {key!r}")
                )
            out.append({**item, "id": key})
        else:
            out.append(item)
    return out


__all__ = [
    "DefinitionError",
    "MatchDefinition",
    "ModelDef",
    "ModelState",
    "ScenarioDef",
    "SimulationFile",
    "UnitDef",
    "UnitState",
    "WeaponDef",
    "WeaponState",
    "checked",
    "create_match",
    "parse_definition",
    "read_definition",
    "to_document",
]
