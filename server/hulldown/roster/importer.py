"""Turn a parsed roster into the units of a match definition (docs/roster-import.md).

Every force at any depth is read; each selection directly under a force is a unit when some
selection below it carries a statline (a profile the edition reader knows). Inside a unit, a
*model group* is the selection owning a statline: the selection itself when it is the unit or a
``model`` selection, else its nearest ``model`` ancestor (a 40k7 Captain's statline sits on his
armour upgrade). Its ``number`` is the model count; weapons under it belong to its models, one
weapon per model per weapon profile (every profile of a multi-profile weapon). Weapons outside
every group (hh3 and 40k11 put them beside the model) go to the unit's models in order. A vehicle
group inside a unit of other models (a 40k7 dedicated transport) becomes a unit of its own, and
each vehicle of a 40k7 squadron a unit of its own sharing ``squadron``.

What cannot be mapped is reported by name and path, never dropped silently. A unit that would
hold more models or weapons than a match definition allows (match/limits.py) is refused, naming
the selection that goes over, before its models or weapons are built (docs/roster-import.md,
"Limits").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

from ..match.definition import parse_definition
from ..match.definition_types import DefinitionError
from ..match.limits import MAX_MODELS, MAX_MODELS_PER_UNIT, MAX_WEAPONS_PER_UNIT
from . import dimensions
from .deploy import deploy
from .editions import EDITIONS, EditionReader, Statline, WeaponLine
from .values import slug, small_int
from .xmltree import LIMITS_DOC, Profile, RosterError, Selection, parse_roster

Level = Literal["unmapped", "default", "decided", "skipped"]


@dataclass(frozen=True)
class ReportEntry:
    """One line of the import report: what (``name``), where (``path`` in the roster), and why."""

    level: Level
    path: str
    name: str
    message: str


@dataclass
class RosterImport:
    edition: str
    roster_name: str
    units: list[dict[str, Any]]
    report: list[ReportEntry] = field(default_factory=list)

    def report_lines(self) -> list[str]:
        return [f"{r.level}: {r.path}: {r.name}: {r.message}" for r in self.report]


@dataclass
class _Group:
    anchor: Selection
    statline: Statline
    count: int
    weapons: list[tuple[Selection, Profile]] = field(default_factory=list)
    rules: list[tuple[Selection, str]] = field(default_factory=list)


class _Ids:
    """Unique ids: ``base``, then ``base-2``, ``base-3``... A counter per base resumes where the
    last search for that base stopped, so n ids of one base cost n steps, not n * n / 2."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._next: dict[str, int] = {}

    def new(self, base: str) -> str:
        uid, n = base, self._next.get(base, 2)
        while uid in self._taken:
            uid, n = f"{base}-{n}", n + 1
        self._next[base] = n
        self._taken.add(uid)
        return uid


@dataclass
class _RosterTally:
    """What the units built so far have used: their ids and models (against MAX_MODELS)."""

    unit_ids: _Ids = field(default_factory=_Ids)
    models: int = 0


class _Report:
    def __init__(self) -> None:
        self.entries: list[ReportEntry] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(self, level: Level, path: str, name: str, message: str) -> None:
        entry = ReportEntry(level, path, name, message)
        key = (level, path, name.lower())
        if key not in self._seen:
            self._seen.add(key)
            self.entries.append(entry)


def import_roster(data: bytes, edition: str, side: str = "a", *, deploy_units: bool = True) -> RosterImport:
    """The units of the roster for ``edition`` (side ``side``), placed in that side's deployment
    zone of the default 72 x 48 battlefield, and the report. Raises :class:`RosterError`."""
    reader = EDITIONS.get(edition)
    if reader is None:
        raise RosterError(f"unknown edition {edition!r}; allowed: {', '.join(EDITIONS)}")
    roster = parse_roster(data)
    reader.check_system(roster.game_system_id, roster.game_system_name)
    report = _Report()
    units: list[dict[str, Any]] = []
    tally = _RosterTally()
    for force in roster.all_forces():
        for sel in _fielded(force.selections, report):
            units.extend(_units_of(sel, reader, side, tally, report))
    if not units:
        report.add("unmapped", "forces", roster.name, "no selection of this roster carries a statline")
    if deploy_units:
        deploy(units, side)
        _playable(units, edition)
    return RosterImport(edition=edition, roster_name=roster.name, units=units, report=report.entries)


def _fielded(selections: list[Selection], report: _Report) -> list[Selection]:
    """The selections with a ``number`` of at least 1, at any depth: one of ``number="0"`` is none
    of it - no unit, model or weapon is made of it or of what it holds - and is reported as
    skipped (docs/roster-import.md, Models)."""
    kept = []
    for sel in selections:
        if sel.number == 0:
            report.add(
                "skipped", sel.path, sel.name, "number 0: none of it is in the army, nor what it holds"
            )
            continue
        sel.children = _fielded(sel.children, report)
        kept.append(sel)
    return kept


PLAYABLE_PROBLEMS_SHOWN = 3  # how many of the problems a refused roster's message names


def _playable(units: list[dict[str, Any]], edition: str) -> None:
    """Refuse units a match definition would refuse: values beyond its limits (a BS of
    999999999, shots 0, a capacity of -5) or an army the deployment cannot fit on the table
    (docs/roster-import.md, Limits: a unit the importer made can always be played)."""
    if not units:
        return
    parsed = parse_definition({"format": 1, "edition": edition, "scenario": {"units": units}})
    if not isinstance(parsed, DefinitionError):
        return
    problems = [p for p in parsed.problems if p.path.startswith(_UNITS_PATH)]
    if not problems:
        return
    shown = "; ".join(_unit_problem(p.path, p.message, units) for p in problems[:PLAYABLE_PROBLEMS_SHOWN])
    more = (
        f" (and {len(problems) - PLAYABLE_PROBLEMS_SHOWN} more)"
        if len(problems) > PLAYABLE_PROBLEMS_SHOWN
        else ""
    )
    raise RosterError(f"the roster's units could not be played: {shown}{more} ({LIMITS_DOC})")


_UNITS_PATH = "scenario.units["


def _unit_problem(path: str, message: str, units: list[dict[str, Any]]) -> str:
    """``path`` (``scenario.units[3].profile.bs``) told by the unit's name."""
    index, _, rest = path[len(_UNITS_PATH) :].partition("]")
    if not index.isdigit() or int(index) >= len(units):
        return f"{path}: {message}"
    where = rest.lstrip(".")
    return f"{units[int(index)].get('name', '?')!r}{' ' + where if where else ''}: {message}"


def _units_of(
    root: Selection, reader: EditionReader, side: str, tally: _RosterTally, report: _Report
) -> list[dict[str, Any]]:
    groups = _groups(root, reader, report)
    if not groups:
        types = sorted({p.type_name for sel in root.walk() for p in sel.profiles})
        held = f" (profiles: {', '.join(types)})" if types else ""
        report.add(
            "skipped",
            root.path,
            root.name,
            f"no statline below it{held}: not a unit (configuration, upgrade)",
        )
        return []
    vehicles = [g for g in groups if g.statline.vehicle]
    others = [g for g in groups if not g.statline.vehicle]
    parts: list[tuple[str, list[_Group]]] = []
    if vehicles and others:
        parts.append((root.name, others))
        for v in vehicles:
            report.add(
                "decided",
                v.anchor.path,
                v.anchor.name,
                f"a vehicle bought with {root.name!r}: a unit of its own",
            )
            parts.append((v.anchor.name, [v]))
    else:
        parts.append((root.name, groups))
    loose = _loose_weapons(root, groups, reader)
    out = []
    for index, (name, members) in enumerate(parts):
        unit_rules = [(root, r) for r in root.rules] if index == 0 else []
        unit = _unit(
            name, root, members, loose if index == 0 else [], unit_rules, reader, side, tally, report
        )
        out.extend(_squadron(unit, root, reader, tally, report))
    return out


def _squadron(
    unit: dict[str, Any], root: Selection, reader: EditionReader, tally: _RosterTally, report: _Report
) -> list[dict[str, Any]]:
    """40k7 Vehicle Squadrons: each vehicle keeps its own Hull Points and statuses, so the
    vehicles of one unit become units of their own, each with its weapons, sharing ``squadron``
    (the first one's id). A unit of one vehicle, or of other models, is returned as it is."""
    models = unit["models"]
    if not reader.has_squadrons or len(models) < 2 or unit["kind"] not in ("vehicle", "walker"):
        return [unit]
    squadron = unit["id"]
    members = []
    for k, model in enumerate(models):
        member = {
            **unit,
            "id": squadron if k == 0 else tally.unit_ids.new(squadron),
            "profile": copy.deepcopy(unit["profile"]),
            "models": [model],
            "squadron": squadron,
        }
        weapons = [w for w in unit.get("weapons", []) if w["model"] == model["id"]]
        member.pop("weapons", None)
        if weapons:
            member["weapons"] = weapons
        if "keywords" in unit:
            member["keywords"] = list(unit["keywords"])
        members.append(member)
    report.add(
        "decided",
        root.path,
        unit["name"],
        f"a squadron of {len(models)} vehicles: {len(models)} units sharing squadron {squadron!r}, "
        "each with its own Hull Points",
    )
    return members


def _groups(root: Selection, reader: EditionReader, report: _Report) -> list[_Group]:
    """Model groups of the unit ``root`` with the weapons and rules under each."""
    found: dict[int, _Group] = {}
    parents: dict[int, Selection | None] = {id(root): None}
    order: list[Selection] = []
    stack: list[Selection] = [root]
    while stack:
        sel = stack.pop(0)
        order.append(sel)
        for child in sel.children:
            parents[id(child)] = sel
        stack[0:0] = sel.children
    for sel in order:
        for p in sel.profiles:
            if reader.is_statline(p):
                anchor = _anchor(sel, root, parents)
                if id(anchor) in found:
                    continue
                statline = reader.statline(p, anchor, root, report.add)
                count = max(anchor.number, 1) if anchor is not root or root.type == "model" else 1
                found[id(anchor)] = _Group(anchor, statline, count)
    groups = list(found.values())
    by_anchor = {id(g.anchor): g for g in groups}
    for sel in order:
        owner = _owner(sel, parents, by_anchor)
        if owner is None:
            continue
        for p in sel.profiles:
            if reader.is_weapon(p):
                owner.weapons.append((sel, p))
        if sel is not root and not any(reader.is_weapon(p) for p in sel.profiles):
            owner.rules.extend((sel, r) for r in sel.rules)  # a weapon's rules are the weapon's
    for g in groups:  # the statline's own transport profile and the anchor's category keywords
        g.statline = reader.finish(g.statline, g.anchor, report.add)
    if groups:
        for sel in order:
            for p in sel.profiles:
                known = (
                    reader.is_statline(p) or reader.is_weapon(p) or p.type_name.lower() in reader.used_types
                )
                if not known:
                    report.add(
                        "unmapped",
                        sel.path,
                        p.name,
                        f"{p.type_name or 'untyped'} profile: not used by the rules core (ignored)",
                    )
    return groups


def _anchor(sel: Selection, root: Selection, parents: dict[int, Selection | None]) -> Selection:
    if sel is root or sel.type == "model":
        return sel
    node = parents.get(id(sel))
    while node is not None:
        if node.type == "model" or node is root:
            return node if node.type == "model" else sel
        node = parents.get(id(node))
    return sel


def _owner(
    sel: Selection, parents: dict[int, Selection | None], by_anchor: dict[int, _Group]
) -> _Group | None:
    node: Selection | None = sel
    while node is not None:
        if id(node) in by_anchor:
            return by_anchor[id(node)]
        node = parents.get(id(node))
    return None


def _loose_weapons(
    root: Selection, groups: list[_Group], reader: EditionReader
) -> list[tuple[Selection, Profile]]:
    """Weapons under the unit but outside every model group (beside the models)."""
    if any(g.anchor is root for g in groups):
        return []
    inside = {id(s) for g in groups for s in g.anchor.walk()}
    out: list[tuple[Selection, Profile]] = []
    for sel in root.walk():
        if id(sel) in inside:
            continue
        out.extend((sel, p) for p in sel.profiles if reader.is_weapon(p))
    return out


def _check_model_counts(name: str, groups: list[_Group], tally: _RosterTally) -> None:
    """Refuse the unit before its models are built when its model groups hold more models than
    a unit may (MAX_MODELS_PER_UNIT) or the roster would hold more than a match (MAX_MODELS)."""
    total = 0
    for g in groups:
        total += g.count
        if total > MAX_MODELS_PER_UNIT:
            raise RosterError(
                f"{g.anchor.path}: {g.anchor.name!r} (number {g.anchor.number}) brings unit {name!r} "
                f"to {total} models; allowed at most {MAX_MODELS_PER_UNIT} per unit "
                f"(MAX_MODELS_PER_UNIT, {LIMITS_DOC})"
            )
        if tally.models + total > MAX_MODELS:
            raise RosterError(
                f"{g.anchor.path}: {g.anchor.name!r} (number {g.anchor.number}) brings the roster "
                f"to {tally.models + total} models; allowed at most {MAX_MODELS} in a match "
                f"(MAX_MODELS, {LIMITS_DOC})"
            )
    tally.models += total


def _unit(
    name: str,
    root: Selection,
    groups: list[_Group],
    loose: list[tuple[Selection, Profile]],
    unit_rules: list[tuple[Selection, str]],
    reader: EditionReader,
    side: str,
    tally: _RosterTally,
    report: _Report,
) -> dict[str, Any]:
    _check_model_counts(name, groups, tally)
    uid = tally.unit_ids.new(slug(name))
    main = max(groups, key=lambda g: g.count)  # the statline of most models (not the sergeant's)
    lead = main.statline
    keywords: list[str] = []
    models: list[dict[str, Any]] = []
    weapons: list[dict[str, Any]] = []
    model_slots: list[str] = []
    weapon_ids = _Ids()
    for g in groups:
        for k in g.statline.keywords:
            if k not in keywords:
                keywords.append(k)
        dims = _dimensions(g, report)
        group_models: list[str] = []
        for _ in range(g.count):
            mid = f"{uid}-{len(models) + 1}"
            model: dict[str, Any] = {"id": mid, "pos": [0.0, 0.0]}
            model.update(dims)
            if g.statline.bulky > 1:
                model["bulky"] = g.statline.bulky
            models.append(model)
            group_models.append(mid)
            model_slots.append(mid)
        for sel, rule in g.rules:
            _unit_rule(reader, sel, rule, keywords, models, group_models, report)
        _add_weapons(g.weapons, group_models, g, reader, weapons, weapon_ids, report)
        if g is not main and (g.statline.profile != lead.profile or g.statline.oc != lead.oc):
            report.add(
                "decided",
                g.anchor.path,
                g.anchor.name,
                f"another statline in {name!r}: the unit uses the statline of {main.anchor.name!r} (most models) for every model",
            )
    for sel, rule in unit_rules:
        _unit_rule(reader, sel, rule, keywords, models, model_slots, report)
    if loose:
        _add_weapons(loose, model_slots, main, reader, weapons, weapon_ids, report)
    # the statline, with what the weapons told the readers (40k11 BS/WS are on the weapons)
    profile = {k: v for k, v in lead.profile.items() if not k.startswith("_")}
    for g in groups:
        for k, v in g.statline.profile.items():
            if k.startswith("_"):
                profile.setdefault(k, []).extend(v)
    unit: dict[str, Any] = {
        "id": uid,
        "side": side,
        "name": name,
        "kind": lead.kind,
        "profile": profile,
        "models": models,
    }
    if weapons:
        unit["weapons"] = weapons
    if lead.oc is not None:  # 40k11 Objective Control of every model (the lead statline's)
        keywords.append(f"oc:{lead.oc}")
    if keywords:
        unit["keywords"] = keywords
    unit = reader.finish_unit(unit, report.add, root)
    return unit


def _dimensions(g: _Group, report: _Report) -> dict[str, Any]:
    entry = dimensions.lookup(g.anchor.name) or dimensions.lookup(g.statline.name)
    d = dimensions.defaults()
    out: dict[str, Any] = {}
    baseless = g.statline.vehicle and not g.statline.walker
    if entry is not None and ("hull" in entry or "base_mm" in entry):
        if "hull" in entry and (baseless or "base_mm" not in entry):
            out["hull"] = {"length": entry["hull"][0], "width": entry["hull"][1]}
        else:
            out["base_mm"] = entry.get("base_mm", d["base_mm"])
    elif baseless:
        out["hull"] = {"length": d["vehicle_hull"][0], "width": d["vehicle_hull"][1]}
        report.add(
            "default",
            g.anchor.path,
            g.anchor.name,
            f"no hull size in the dimensions table: {d['vehicle_hull'][0]} x {d['vehicle_hull'][1]} in",
        )
    else:
        base = (
            d["monster_base_mm"]
            if g.statline.kind in ("monster", "walker") or g.statline.vehicle
            else d["base_mm"]
        )
        out["base_mm"] = base
        report.add(
            "default", g.anchor.path, g.anchor.name, f"no base size in the dimensions table: {base} mm"
        )
    g.statline.dimensions_entry = entry
    return out


def _unit_rule(
    reader: EditionReader,
    sel: Selection,
    rule: str,
    keywords: list[str],
    models: list[dict[str, Any]],
    group: list[str],
    report: _Report,
) -> None:
    mapped = reader.unit_rule(rule)
    if mapped is None:
        report.add("unmapped", sel.path, rule, "special rule not implemented by the rules core: ignored")
        return
    kind, value = mapped
    if kind == "unmapped":  # a rule the core implements, with a value it does not take
        report.add("unmapped", sel.path, rule, str(value))
    elif kind == "keyword" and value not in keywords:
        keywords.append(str(value))
    elif kind == "bulky":
        for m in models:
            if m["id"] in group:
                m["bulky"] = int(value)


_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twin": 1}
MAX_NAMED_COUNT = 12  # copies a weapon's name may state ("12 Bolters"); a larger number is a name


def _named_count(name: str) -> int:
    """``Two Quad Lascannons`` -> 2, ``2x Heavy Bolter`` -> 2, ``2 Smart missile systems`` -> 2."""
    first = name.split(" ", 1)[0].lower() if name else ""
    if first in _COUNT_WORDS:
        return _COUNT_WORDS[first]
    count = small_int(first.rstrip("x"))
    return count if count is not None and 0 < count <= MAX_NAMED_COUNT else 1


def _add_weapons(
    found: list[tuple[Selection, Profile]],
    owners: list[str],
    g: _Group,
    reader: EditionReader,
    weapons: list[dict[str, Any]],
    weapon_ids: _Ids,
    report: _Report,
) -> None:
    """One weapon per model per profile. A selection's ``number`` N is already multiplied down
    the tree (a name may say more: ``Two Quad Lascannons``): over M models, each model gets
    N // M copies and the N % M left over go to the next models one each (in turn, across the
    unit's selections). Every profile of one selection goes to the same models."""
    if not owners:
        return
    cursor = 0
    plans: dict[int, list[tuple[str, int]]] = {}  # id(selection) -> its plan
    for sel, prof in found:
        line: WeaponLine | None = reader.weapon(prof, sel, g.statline, report.add)
        if line is None:
            continue
        plan = plans.get(id(sel))
        if plan is None:
            total = max(sel.number, _named_count(sel.name), 1)
            plan = plans[id(sel)] = _weapon_plan(total, owners, cursor)
            cursor += total % len(owners)
        _check_weapon_count(sel, len(weapons) + sum(copies for _, copies in plan))
        if _unsided_sponson(line) and any(copies == 1 for _, copies in plan):
            report.add(
                "decided",
                sel.path,
                sel.name,
                f"one sponson weapon and no side in the data: the {SINGLE_SPONSON_SIDE}-hand one "
                "(docs/roster-import.md, Sponsons)",
            )
        weapons.extend(_weapon_copies(line, plan, weapon_ids))


def _weapon_plan(total: int, owners: list[str], cursor: int) -> list[tuple[str, int]]:
    """(model id, copies): ``total`` copies over the models, ``total // M`` each and one more
    for each of the ``total % M`` models in turn from ``cursor``."""
    base, extra = divmod(total, len(owners))
    copies = dict.fromkeys(owners, base)
    for k in range(extra):
        copies[owners[(cursor + k) % len(owners)]] += 1
    return [(mid, count) for mid, count in copies.items() if count]


def _check_weapon_count(sel: Selection, count: int) -> None:
    """Refuse the unit before the weapons of ``sel`` are built when they would be too many."""
    if count > MAX_WEAPONS_PER_UNIT:
        raise RosterError(
            f"{sel.path}: {sel.name!r} (number {sel.number}) brings its unit to {count} weapons; "
            f"allowed at most {MAX_WEAPONS_PER_UNIT} per unit (MAX_WEAPONS_PER_UNIT, {LIMITS_DOC})"
        )


# A vehicle's one sponson weapon, its side not in the data, is the right-hand one [decided]: as
# the 40k7 rules read a sponson without a side (rules/wh40k7/geo.py, geo_mount); hh3 needs a
# side (hh3 Vehicles, Fire arcs and weapon mounts: a sponson fires into its own side's half).
SINGLE_SPONSON_SIDE = "right"


def _unsided_sponson(line: WeaponLine) -> bool:
    """A sponson whose mount names no side (``side``, or an ``arc`` of left or right)."""
    mount = line.mount or {}
    return (
        mount.get("kind") == "sponson" and "side" not in mount and mount.get("arc") not in ("left", "right")
    )


def _sponson_side(k: int, copies: int) -> str:
    """The side of copy ``k`` of ``copies`` of a sponson weapon on one vehicle: a pair (or more)
    left, right, left...; a single one SINGLE_SPONSON_SIDE."""
    if copies == 1:
        return SINGLE_SPONSON_SIDE
    return "left" if k % 2 == 0 else "right"


def _weapon_copies(line: WeaponLine, plan: list[tuple[str, int]], weapon_ids: _Ids) -> list[dict[str, Any]]:
    """The weapon documents of ``plan``; the copies of a sponson weapon on one vehicle go left and
    right, a single one right."""
    sided = _unsided_sponson(line)
    out: list[dict[str, Any]] = []
    for mid, copies in plan:
        for k in range(copies):
            doc = line.document()
            if sided:
                doc["mount"] = {**doc["mount"], "side": _sponson_side(k, copies)}
            out.append({**doc, "id": weapon_ids.new(slug(line.name)), "model": mid})
    return out
