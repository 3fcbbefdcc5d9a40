"""The edition-aware checks of a well-formed match definition (docs/match-definition.md,
"What is checked"): names the edition implements, bounds (match/limits.py), ids, geometry
(models on the table and not overlapping, terrain polygons), vehicles, transports and sides.

Each check returns problems with the path of the offending value; nothing here raises.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Mapping

from shapely.geometry import Polygon

from ..rules.geometry import shapes as g
from . import limits as L
from .definition_types import MatchDefinition, ModelDef, UnitDef, WeaponDef
from .dice_text import MAX_DICE_BONUS, MAX_DICE_COUNT, parse_dice
from .problems import MAX_PROBLEMS, Problem, join, unknown_name
from .state import Profile, Terrain
from .vocabulary import Term, Vocabulary, terrain_kind_names, vocabulary

DEFAULT_BASE_MM = 32.0  # a model with neither hull nor base is measured as a 32 mm base [decided]
UNITS = "scenario.units"
# Editions whose rules core has no Embark/Disembark, so no unit may start embarked: none now
# (40k11 has them too: docs/rules-notes.md, 40k11 Transports).
EDITIONS_WITHOUT_TRANSPORTS: tuple[str, ...] = ()
TERRAIN = "scenario.terrain"
# A variable keyword's dice target (``psychic_pilot:5`` or ``psychic_pilot:5+``): one of these,
# written in ASCII digits (str.isdigit would let "²" through, which int() refuses).
DICE_TARGETS = frozenset({"1", "2", "3", "4", "5", "6"})
# A unit's turn flag in a definition: one plain word (moved, shot, advanced...). Flags with
# arguments (shot_at:<unit>, combat:<unit>:<points>, advance_roll=<n>) are what the rules write
# during a turn; set by hand they could name units that do not exist [decided, docs/match-definition.md].
TURN_FLAG_WORD = re.compile(r"[a-z][a-z0-9_]*")
# A model this far from the table's corner in x or y is off the table without measuring it
# (geometry with coordinates near the float limits is not measured).
FAR_INCHES = 1e6
# Integers in messages are shown whole below this many bits (an integer too large for a float
# cannot even be formatted as one: it is described by its length).
SHOWN_INT_BITS = 64


def check_definition(d: MatchDefinition) -> list[Problem]:
    out: list[Problem] = []
    for problem in _all(d):
        out.append(problem)
        if len(out) >= MAX_PROBLEMS:
            break
    return out


def _all(d: MatchDefinition) -> Iterator[Problem]:
    vocab = vocabulary(d.edition)
    yield from _battlefield(d)
    yield from _options(d)
    yield from _counts(d)
    yield from _ids(d)
    for i, unit in enumerate(d.scenario.units):
        yield from _unit(d, vocab, i, unit)
    yield from _transports(d)
    for k, piece in enumerate(d.scenario.terrain):
        yield from _terrain(k, piece)
    yield from _placement(d)
    yield from _sides(d)
    yield from _mission(d)


def _mission(d: MatchDefinition) -> Iterator[Problem]:
    """docs/missions.md: a standard mission of the edition, or a custom one that fits."""
    if d.mission is None:
        return
    from ..missions.checks import mission_problems, warlord_problems
    from ..missions.placement_room import impassable_outlines

    bf = d.scenario.battlefield
    side_of: dict[str, str] = {}
    for unit in d.scenario.units:
        side_of[unit.id] = unit.side
        side_of.update({m.id: unit.side for m in unit.models if m.id})
    impassable = impassable_outlines(d.scenario.terrain)
    found = mission_problems(d.mission, d.edition, bf.width, bf.height, impassable)
    for path, message, allowed in found or warlord_problems(d.mission, side_of):
        yield Problem(path, message, allowed=allowed) if allowed else Problem(path, message)


# ---- bounds -------------------------------------------------------------------------------------


Where = str | tuple[str, str | int]  # a path, or (base, key) joined only when there is a problem


def _path(where: Where) -> str:
    return where if isinstance(where, str) else join(*where)


def _bound(
    path: Where, value: float | None, low: float, high: float, what: str, limit: str = ""
) -> Iterator[Problem]:
    if value is None:
        return
    if not low <= value <= high or not math.isfinite(value):
        named = f" ({limit})" if limit else ""
        yield Problem(_path(path), f"{what} must be between {_n(low)} and {_n(high)}{named}, got {_n(value)}")


def _positive(path: Where, value: float | None, high: float, what: str, limit: str) -> Iterator[Problem]:
    if value is None:
        return
    if not 0 < value <= high or not math.isfinite(value):
        yield Problem(
            _path(path), f"{what} must be more than 0 and at most {_n(high)} ({limit}), got {_n(value)}"
        )


def _n(x: float) -> str:
    """A number for a message; an integer too long to show whole (or to convert to a float) is
    shown by its sign and length."""
    if isinstance(x, int):
        digits = str(abs(x)) if x.bit_length() < SHOWN_INT_BITS else None
        if digits is None:
            return f"{'-' if x < 0 else ''}an integer of more than {SHOWN_INT_BITS * 3 // 10} digits"
        return f"{'-' if x < 0 else ''}{digits}"
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:g}"


def _text(path: str, value: str, what: str, max_length: int, *, required: bool) -> Iterator[Problem]:
    if required and not value.strip():
        yield Problem(path, f"{what} must not be empty")
        return
    if len(value) > max_length:
        yield Problem(path, f"{what} is {len(value)} characters long, at most {max_length} allowed")
    bad = sorted({c for c in value if c in L.FORBIDDEN_CHARACTERS})
    if bad:
        codes = ", ".join(f"U+{ord(c):04X}" for c in bad)
        yield Problem(path, f"{what} contains control or bidirectional-override characters ({codes})")


def _battlefield(d: MatchDefinition) -> Iterator[Problem]:
    bf = d.scenario.battlefield
    for key in ("width", "height"):
        yield from _positive(
            ("scenario.battlefield", key),
            getattr(bf, key),
            L.MAX_BATTLEFIELD,
            f"the battlefield {key}",
            "MAX_BATTLEFIELD",
        )


def _options(d: MatchDefinition) -> Iterator[Problem]:
    o = d.options
    yield from _bound(
        "options.turn_limit", o.turn_limit, 0, L.MAX_TURN_LIMIT, "turn_limit (0: no limit)", "MAX_TURN_LIMIT"
    )
    yield from _bound(
        "options.spectator_delay_events",
        o.spectator_delay_events,
        0,
        L.MAX_SPECTATOR_DELAY_EVENTS,
        "spectator_delay_events",
        "MAX_SPECTATOR_DELAY_EVENTS",
    )
    yield from _bound(
        "options.spectator_delay_seconds",
        o.spectator_delay_seconds,
        0,
        L.MAX_SPECTATOR_DELAY_SECONDS,
        "spectator_delay_seconds",
        "MAX_SPECTATOR_DELAY_SECONDS",
    )


def _counts(d: MatchDefinition) -> Iterator[Problem]:
    units = d.scenario.units
    if len(units) > L.MAX_UNITS:
        yield Problem(UNITS, f"{len(units)} units, at most {L.MAX_UNITS} allowed (MAX_UNITS)")
    models = sum(len(u.models) for u in units)
    if models > L.MAX_MODELS:
        yield Problem(UNITS, f"{models} models in all, at most {L.MAX_MODELS} allowed (MAX_MODELS)")
    if len(d.scenario.terrain) > L.MAX_TERRAIN:
        yield Problem(
            TERRAIN,
            f"{len(d.scenario.terrain)} terrain pieces, at most {L.MAX_TERRAIN} allowed (MAX_TERRAIN)",
        )


def _ids(d: MatchDefinition) -> Iterator[Problem]:
    """Unit, model and terrain ids unique in the match; weapon ids unique in their unit."""
    units: dict[str, str] = {}
    models: dict[str, str] = {}
    for i, u in enumerate(d.scenario.units):
        path = join(UNITS, i)
        yield from _text(join(path, "id"), u.id, "a unit id", L.MAX_ID_LENGTH, required=True)
        if u.id in units:
            yield Problem(join(path, "id"), f"unit id {u.id!r} is already used by {units[u.id]}")
        units.setdefault(u.id, path)
        for j, m in enumerate(u.models):
            mpath = join(join(path, "models"), j)
            yield from _text(join(mpath, "id"), m.id, "a model id", L.MAX_ID_LENGTH, required=True)
            if m.id in models:
                yield Problem(join(mpath, "id"), f"model id {m.id!r} is already used by {models[m.id]}")
            models.setdefault(m.id, mpath)
        weapons: set[str] = set()
        for j, w in enumerate(u.weapons):
            wpath = join(join(path, "weapons"), j)
            yield from _text(join(wpath, "id"), w.id, "a weapon id", L.MAX_ID_LENGTH, required=True)
            if w.id in weapons:
                yield Problem(join(wpath, "id"), f"weapon id {w.id!r} is used twice in unit {u.id!r}")
            weapons.add(w.id)
    pieces: set[str] = set()
    for k, t in enumerate(d.scenario.terrain):
        path = join(join(TERRAIN, k), "id")
        yield from _text(path, t.id, "a terrain id", L.MAX_ID_LENGTH, required=True)
        if t.id in pieces:
            yield Problem(path, f"terrain id {t.id!r} is used twice")
        pieces.add(t.id)


# ---- units --------------------------------------------------------------------------------------


def is_vehicle(edition: str, unit: UnitDef) -> bool:
    """A vehicle of the edition: 40k7 Vehicles have Armour Values (Walkers too); hh3 the Vehicle
    type; 40k11 the VEHICLE keyword."""
    if edition == "40k7":
        return unit.kind in ("vehicle", "walker") or unit.profile.armour is not None
    if edition == "hh3":
        return unit.kind == "vehicle"
    return unit.kind == "vehicle" or "vehicle" in unit.keywords


def _unit(d: MatchDefinition, vocab: Vocabulary, i: int, u: UnitDef) -> Iterator[Problem]:
    path = join(UNITS, i)
    yield from _text(join(path, "name"), u.name, "a unit name", L.MAX_TEXT_LENGTH, required=False)
    yield from _text(join(path, "faction"), u.faction, "a faction", L.MAX_TEXT_LENGTH, required=False)
    if u.squadron is not None:
        yield from _text(join(path, "squadron"), u.squadron, "a squadron id", L.MAX_ID_LENGTH, required=True)
    if len(u.keywords) > L.MAX_KEYWORDS:
        yield Problem(
            join(path, "keywords"), f"{len(u.keywords)} keywords, at most {L.MAX_KEYWORDS} (MAX_KEYWORDS)"
        )
    keywords_path = join(path, "keywords")
    for k, word in enumerate(u.keywords):
        yield from _name((keywords_path, k), word, vocab.keywords, f"{d.edition} keyword")
    yield from _profile(join(path, "profile"), u.profile)
    vehicle = is_vehicle(d.edition, u)
    if vehicle and d.edition in ("40k7", "hh3"):
        if u.profile.armour is None:
            yield Problem(
                join(path, "profile.armour"), f"a {d.edition} vehicle needs armour values (front, side, rear)"
            )
        if u.profile.hp <= 0:
            yield Problem(
                join(path, "profile.hp"), f"a {d.edition} vehicle needs Hull Points (hp of 1 or more)"
            )
    if vehicle and d.edition == "hh3" and len(u.models) > 1:
        yield Problem(
            join(path, "models"),
            f"an hh3 vehicle unit is a single model (hh3 Vehicles), this one has {len(u.models)}",
        )
    if not u.models:
        yield Problem(join(path, "models"), f"unit {u.id!r} has no models")
    elif len(u.models) > L.MAX_MODELS_PER_UNIT:
        yield Problem(
            join(path, "models"),
            f"{len(u.models)} models, at most {L.MAX_MODELS_PER_UNIT} (MAX_MODELS_PER_UNIT)",
        )
    for j, m in enumerate(u.models):
        yield from _model(join(join(path, "models"), j), m, vehicle)
        yield from _model_own_profile(join(join(path, "models"), j), m, u, d.edition)
    if len(u.weapons) > L.MAX_WEAPONS_PER_UNIT:
        yield Problem(
            join(path, "weapons"),
            f"{len(u.weapons)} weapons, at most {L.MAX_WEAPONS_PER_UNIT} (MAX_WEAPONS_PER_UNIT)",
        )
    model_ids = [m.id for m in u.models]
    weapon_ids = [w.id for w in u.weapons]
    kinds = {w.id: w.mount.kind for w in u.weapons}
    for j, w in enumerate(u.weapons):
        yield from _weapon(join(join(path, "weapons"), j), w, vocab, d.edition, model_ids, weapon_ids)
        yield from _coaxial_main(join(join(path, "weapons"), j), w, kinds)
    if u.state is not None:
        spath = join(path, "state")
        yield from _bound((spath, "hp"), u.state.hp, 0, max(u.profile.hp, 0), "hp left", "the profile's hp")
        yield from _bound((spath, "moved"), u.state.moved, 0, L.MAX_MOVE * 4, "moved", "MAX_MOVE x 4")
        if len(u.state.statuses) > L.MAX_STATUSES:
            yield Problem(join(spath, "statuses"), f"at most {L.MAX_STATUSES} statuses (MAX_STATUSES)")
        for name, until in u.state.statuses.items():
            spath_k = join(join(spath, "statuses"), name)
            yield from _name(spath_k, name, vocab.statuses, f"{d.edition} status")
            yield from _bound(
                spath_k,
                until,
                0,
                2 * L.MAX_TURN_LIMIT,
                "a status expiry (a player-turn index)",
                "2 x MAX_TURN_LIMIT",
            )
        for k, flag in enumerate(u.state.turn_flags):
            fpath = join(join(spath, "turn_flags"), k)
            yield from _text(fpath, flag, "a turn flag", L.MAX_TEXT_LENGTH, required=True)
            if flag.strip() and not TURN_FLAG_WORD.fullmatch(flag):
                yield Problem(
                    fpath,
                    f"{flag!r}: a turn flag here is one plain word (a-z, 0-9, _), like moved or shot; "
                    "flags naming a unit, a model or a number are the rules' own record of a turn "
                    "under way",
                )
    if (
        not (u.state is not None and u.state.destroyed)
        and u.models
        and all(m.state is not None and not m.state.alive for m in u.models)
    ):
        yield Problem(
            join(path, "models"),
            "every model of the unit is dead: mark the unit destroyed (state.destroyed: true) "
            "or keep a model alive",
        )


@functools.cache
def _tables(terms: tuple[Term, ...]) -> tuple[dict[str, Term], dict[str, Term]]:
    """The plain names (with aliases) and the variable names of a vocabulary table."""
    plain = {n: t for t in terms for n in (t.name, *t.aliases) if not t.variable}
    return plain, {t.name: t for t in terms if t.variable}


def _name(where: Where, word: str, terms: tuple[Term, ...], what: str) -> Iterator[Problem]:
    """A keyword, weapon rule or status the edition implements (``name:X`` for variable ones)."""
    path = ""
    if len(word) > L.MAX_TEXT_LENGTH:
        path = _path(where)
        yield Problem(path, f"{what} is {len(word)} characters long, at most {L.MAX_TEXT_LENGTH}")
        return
    plain, variable = _tables(terms)
    if word in plain:
        return
    path = _path(where)
    head, sep, value = word.partition(":")
    if sep and head in variable:
        term = variable[head]
        if term.value_kind == "dice":
            if parse_dice(value) is None:
                yield Problem(
                    path,
                    f"{word!r}: {head} takes a dice expression such as d3, d6, 2d6 or d6+3 "
                    f"(at most {MAX_DICE_COUNT} dice, +{MAX_DICE_BONUS})",
                )
        elif term.value_kind == "anti":
            # The keyword must be one a unit of the edition may have, else it would never apply.
            keyword, _, need = value.rpartition(":")
            known = tuple(k for k in vocabulary("40k11").keyword_names() if k != "oc")
            if keyword not in known or need.rstrip("+") not in DICE_TARGETS:
                yield Problem(
                    path,
                    f"{word!r}: {head} takes a unit keyword and a dice target ({head}:infantry:4)",
                    allowed=tuple(f"{head}:{k}:X" for k in known),
                )
        elif term.values is not None:
            if value not in term.values:
                yield Problem(
                    path, f"{head}:{value}: the value must be one of the allowed", allowed=term.values
                )
        elif term.bounds is not None:
            # ``count_or_dice``: a dice expression is accepted too (40k11 ``sustained_hits:d3``).
            if not (term.value_kind == "count_or_dice" and parse_dice(value) is not None):
                yield from _bounded_value(path, word, head, value, term.bounds)
        elif value.rstrip("+") not in DICE_TARGETS:
            yield Problem(
                path, f"{word!r}: {head} takes a dice target 1-6 ({head}:5 for {head.title()} (5+))"
            )
        return
    if word in variable:
        yield Problem(path, f"{word!r} needs a value: {word}:X", allowed=(f"{word}:X",))
        return
    names = [*plain, *(f"{n}:X" for n in variable)]
    yield unknown_name(path, what, word, names)


def _bounded_value(
    path: str, word: str, head: str, value: str, bounds: tuple[int, int, str]
) -> Iterator[Problem]:
    """``name:X`` with X a whole number within ``bounds`` (40k11 ``oc:X``: docs/match-definition.md,
    Limits), written in ASCII digits."""
    low, high, limit = bounds
    if not (value.isascii() and value.isdigit()):
        yield Problem(path, f"{word!r}: {head} takes a whole number {low} to {high} ({head}:2)")
    elif not low <= int(value) <= high:
        yield Problem(path, f"{word!r}: {head} takes a whole number {low} to {high} ({limit})")


def _profile(path: str, p: Profile) -> Iterator[Problem]:
    yield from _bound((path, "m"), p.m, 0, L.MAX_MOVE, "M", "MAX_MOVE")
    for key in ("ws", "bs", "s", "t", "i", "a", "ld", "cool", "intelligence"):
        yield from _bound(
            (path, key), getattr(p, key), 0, L.MAX_CHARACTERISTIC, key.upper(), "MAX_CHARACTERISTIC"
        )
    yield from _bound((path, "w"), p.w, 1, L.MAX_WOUNDS, "W", "MAX_WOUNDS")
    yield from _bound((path, "hp"), p.hp, 0, L.MAX_WOUNDS, "HP", "MAX_WOUNDS")
    for key in ("sv", "inv"):
        yield from _bound((path, key), getattr(p, key), 1, 7, f"{key} (a target number)", "")
    if p.armour is not None:
        for key in ("front", "side", "rear"):
            yield from _bound(
                (join(path, "armour"), key),
                getattr(p.armour, key),
                0,
                L.MAX_CHARACTERISTIC,
                "an armour value",
                "MAX_CHARACTERISTIC",
            )
    yield from _bound((path, "capacity"), p.capacity, 0, L.MAX_CAPACITY, "capacity", "MAX_CAPACITY")
    if len(p.access) > L.MAX_ACCESS_POINTS:
        yield Problem(join(path, "access"), f"at most {L.MAX_ACCESS_POINTS} access points (one per facing)")


# hh3 Paragons (seed glossary: "Can join or leave an Infantry unit"): a model of an Infantry unit
# may be a Paragon with its own profile; per-model profiles are read by the hh3 rules only.
OWN_PROFILE_EDITIONS = ("hh3",)
OWN_PROFILE_UNIT_KINDS = ("infantry", "paragon")
MODEL_KINDS = ("paragon",)


def _model_own_profile(path: str, m: ModelDef, u: UnitDef, edition: str) -> Iterator[Problem]:
    """A model's own profile and kind (hh3 only: the other editions' rules read the unit's)."""
    if m.profile is None and m.kind is None:
        return
    if edition not in OWN_PROFILE_EDITIONS:
        yield Problem(
            join(path, "profile" if m.profile is not None else "kind"),
            f"a model's own profile or kind is read by the hh3 rules only, not {edition}'s: "
            "give the unit the profile",
        )
        return
    if u.kind not in OWN_PROFILE_UNIT_KINDS:
        yield Problem(
            join(path, "profile" if m.profile is not None else "kind"),
            f"only the models of an Infantry or Paragon unit have profiles of their own, not a {u.kind} unit's",
            allowed=OWN_PROFILE_UNIT_KINDS,
        )
    if m.kind is not None and (m.kind not in MODEL_KINDS or u.kind != "infantry"):
        yield Problem(
            join(path, "kind"),
            f"a model's kind may only be paragon, in an Infantry unit (got {m.kind!r} in a {u.kind} unit)",
            allowed=MODEL_KINDS,
        )
    if m.profile is not None:
        yield from _profile(join(path, "profile"), m.profile)


def _model(path: str, m: ModelDef, vehicle: bool) -> Iterator[Problem]:
    yield from _bound((path, "heading"), m.heading, -L.MAX_HEADING, L.MAX_HEADING, "heading", "MAX_HEADING")
    if m.hull is not None:
        for key in ("length", "width"):
            yield from _positive(
                (join(path, "hull"), key),
                getattr(m.hull, key),
                L.MAX_HULL_INCHES,
                f"hull {key}",
                "MAX_HULL_INCHES",
            )
    yield from _positive((path, "base_mm"), m.base_mm, L.MAX_BASE_MM, "base_mm", "MAX_BASE_MM")
    if vehicle and m.hull is None and m.base_mm is None:
        yield Problem(path, "a vehicle needs a hull {length, width} (or base_mm for one on a base)")
    yield from _bound((path, "bulky"), m.bulky, 1, L.MAX_BULKY, "bulky", "MAX_BULKY")
    if m.state is not None:
        yield from _bound(
            (path, "state.wounds"), m.state.wounds, 0, L.MAX_WOUNDS, "wounds left", "MAX_WOUNDS"
        )


def _weapon(
    path: str, w: WeaponDef, vocab: Vocabulary, edition: str, models: list[str], weapons: list[str]
) -> Iterator[Problem]:
    yield from _text(join(path, "name"), w.name, "a weapon name", L.MAX_TEXT_LENGTH, required=True)
    if w.model == "":
        if len(models) != 1:
            yield Problem(
                join(path, "model"),
                "missing: which model carries it (the unit has several)",
                allowed=tuple(models),
            )
    elif w.model not in models:
        yield unknown_name(join(path, "model"), "model", w.model, models)
    yield from _bound((path, "range"), w.range, 0, L.MAX_RANGE, "range", "MAX_RANGE")
    yield from _bound((path, "strength"), w.strength, 0, L.MAX_STRENGTH, "strength", "MAX_STRENGTH")
    yield from _bound((path, "ap"), w.ap, -L.MAX_AP, L.MAX_AP, "AP", "MAX_AP")
    yield from _bound((path, "damage"), w.damage, 1, L.MAX_DAMAGE, "damage", "MAX_DAMAGE")
    yield from _bound((path, "shots"), w.shots, 1, L.MAX_SHOTS, "shots", "MAX_SHOTS")
    if len(w.rules) > L.MAX_KEYWORDS:
        yield Problem(join(path, "rules"), f"{len(w.rules)} rules, at most {L.MAX_KEYWORDS} (MAX_KEYWORDS)")
    rules_path = join(path, "rules")
    for k, rule in enumerate(w.rules):
        yield from _name((rules_path, k), rule, vocab.weapon_rules, f"{edition} weapon rule")
    mount = w.mount
    if mount.kind not in vocab.mounts:
        yield Problem(
            join(path, "mount.kind"),
            f"{edition} has no weapon mounts other than the listed (mount {mount.kind!r})",
            allowed=vocab.mounts,
        )
    yield from _sponson_side(path, w, edition)
    yield from _bound((path, "mount.swivel"), mount.swivel, 0, L.MAX_SWIVEL, "swivel", "MAX_SWIVEL")
    # 40k7 Vehicle Weapons and Line of Sight: range is measured from the muzzle, the barrel's
    # length from the mount; a barrel is no longer than a mount is far from the hull centre.
    yield from _bound(
        (path, "mount.barrel"), mount.barrel, 0, L.MAX_MOUNT_OFFSET, "a barrel length", "MAX_MOUNT_OFFSET"
    )
    for key in ("x", "y"):
        yield from _bound(
            (path, f"mount.offset.{key}"),
            getattr(mount.offset, key),
            -L.MAX_MOUNT_OFFSET,
            L.MAX_MOUNT_OFFSET,
            "a mount offset",
            "MAX_MOUNT_OFFSET",
        )
    if mount.linked is not None and (mount.linked not in weapons or mount.linked == w.id):
        yield unknown_name(
            join(path, "mount.linked"), "linked weapon", mount.linked, [x for x in weapons if x != w.id]
        )


def _coaxial_main(path: str, w: WeaponDef, kinds: Mapping[str, str]) -> Iterator[Problem]:
    """A co-axial weapon fires in the arc of the weapon it is ``linked`` to (hh3 Vehicles, Fire
    arcs and weapon mounts, Co-axial), so that one is not co-axial itself."""
    linked = w.mount.linked
    if w.mount.kind != "coaxial" or linked is None or kinds.get(linked) != "coaxial":
        return
    yield Problem(
        join(path, "mount.linked"),
        f"a co-axial weapon fires in the arc of the weapon it is linked to, and {linked!r} is "
        "co-axial itself: link it to its main weapon",
        allowed=tuple(wid for wid, kind in kinds.items() if kind != "coaxial"),
    )


def _sponson_side(path: str, w: WeaponDef, edition: str) -> Iterator[Problem]:
    """hh3 Vehicles, Fire arcs and weapon mounts: a sponson fires into its own side's half of the
    table, so it needs that side (``side``, or an ``arc`` of left or right). The 40k7 rules take
    a sponson without one as the right-hand one."""
    mount = w.mount
    if edition != "hh3" or mount.kind != "sponson" or mount.side is not None:
        return
    if mount.arc not in ("left", "right"):
        yield Problem(
            join(path, "mount.side"),
            "an hh3 sponson fires into its own side's half of the table: give its side",
            allowed=("left", "right"),
        )


# ---- transports, sides --------------------------------------------------------------------------


def _transports(d: MatchDefinition) -> Iterator[Problem]:
    units = d.scenario.units
    index = {u.id: i for i, u in enumerate(units)}
    load: dict[str, int] = {}
    for i, u in enumerate(units):
        if u.embarked_in is None:
            continue
        path = join(join(UNITS, i), "embarked_in")
        if d.edition in EDITIONS_WITHOUT_TRANSPORTS:
            yield Problem(
                path,
                f"{d.edition}: embarking and disembarking are not part of this rules core, so a unit "
                "cannot start embarked (it could never leave)",
            )
            continue
        if u.embarked_in == u.id:
            yield Problem(path, f"unit {u.id!r} cannot be embarked in itself")
            continue
        if u.embarked_in not in index:
            yield unknown_name(
                path, "transport", u.embarked_in, [t.id for t in units if t.profile.capacity > 0]
            )
            continue
        transport = units[index[u.embarked_in]]
        if transport.side != u.side:
            yield Problem(
                path, f"transport {transport.id!r} is side {transport.side}, unit {u.id!r} side {u.side}"
            )
        if transport.embarked_in is not None:
            yield Problem(path, f"transport {transport.id!r} is itself embarked")
        if transport.profile.capacity <= 0:
            yield Problem(path, f"unit {transport.id!r} is no transport (profile.capacity is 0)")
            continue
        load[transport.id] = load.get(transport.id, 0) + sum(m.bulky for m in u.models if _alive(m))
    for tid, carried in load.items():
        transport = units[index[tid]]
        if carried > transport.profile.capacity:
            yield Problem(
                join(join(UNITS, index[tid]), "profile.capacity"),
                f"transport {tid!r} carries {carried} models' worth of passengers, its capacity is {transport.profile.capacity}",
            )


def _alive(m: ModelDef) -> bool:
    return m.state is None or m.state.alive


def _sides(d: MatchDefinition) -> Iterator[Problem]:
    for side in ("a", "b"):
        if not any(u.side == side for u in d.scenario.units):
            yield Problem(UNITS, f"side {side} has no units: each side needs at least one")


# ---- terrain and placement ----------------------------------------------------------------------


def _terrain(k: int, piece: Terrain) -> Iterator[Problem]:
    path = join(TERRAIN, k)
    yield from _text(join(path, "name"), piece.name, "a terrain name", L.MAX_TEXT_LENGTH, required=False)
    n = len(piece.points)
    if n < 3:
        yield Problem(join(path, "points"), f"a terrain piece needs at least 3 points, got {n}")
        return
    if n > L.MAX_TERRAIN_VERTICES:
        yield Problem(
            join(path, "points"), f"{n} points, at most {L.MAX_TERRAIN_VERTICES} (MAX_TERRAIN_VERTICES)"
        )
        return
    limit = 2 * L.MAX_BATTLEFIELD
    for j, p in enumerate(piece.points):
        if not (abs(p.x) <= limit and abs(p.y) <= limit):
            yield Problem(
                join(join(path, "points"), j), f"a terrain point must be within {_n(limit)} in of the table"
            )
            return
    poly = Polygon([(p.x, p.y) for p in piece.points])
    if not poly.is_valid:
        yield Problem(join(path, "points"), "the outline crosses itself (self-intersecting polygon)")
    elif poly.area <= 1e-9:
        yield Problem(join(path, "points"), "the outline has no area")
    names = terrain_kind_names()
    for j, kind in enumerate(piece.kinds):
        if kind not in names:
            yield unknown_name(join(join(path, "kinds"), j), "terrain kind", kind, names)
    if piece.cover_save is not None:
        yield from _bound((path, "cover_save"), piece.cover_save, 2, 7, "cover_save (a target number)")
    yield from _bound((path, "level"), piece.level, 0, L.MAX_LEVEL, "level", "MAX_LEVEL")


def footprint(m: ModelDef) -> g.Footprint:
    if m.hull is not None:
        return g.Hull(m.pos.x, m.pos.y, m.hull.length, m.hull.width, m.heading)
    return g.Base(m.pos.x, m.pos.y, m.base_mm or DEFAULT_BASE_MM)


def _placement(d: MatchDefinition) -> Iterator[Problem]:
    """Models on the table (whole footprint), not overlapping; hh3 vehicles at level 0."""
    bf = d.scenario.battlefield
    if not (0 < bf.width <= L.MAX_BATTLEFIELD and 0 < bf.height <= L.MAX_BATTLEFIELD):
        return
    placed: list[tuple[tuple[float, float, float, float], str, str, g.Footprint]] = []
    for i, u in enumerate(d.scenario.units):
        if u.embarked_in is not None or (u.state is not None and u.state.destroyed):
            continue
        for j, m in enumerate(u.models):
            if not _alive(m) or not _sane(m):
                continue
            path = join(join(join(UNITS, i), "models"), j)
            fp = footprint(m)
            if not _near(m) or not g.inside_battlefield(fp, bf.width, bf.height):
                yield Problem(
                    join(path, "pos"),
                    f"model {m.id!r} at ({_n(m.pos.x)}, {_n(m.pos.y)}) is (partly) off the {_n(bf.width)} x {_n(bf.height)} in table",
                )
                continue
            placed.append((g.as_geometry(fp).bounds, path, m.id, fp))
            if d.edition == "hh3" and is_vehicle("hh3", u):
                for piece in d.scenario.terrain:
                    if piece.level > 0 and len(piece.points) >= 3 and g.overlaps(fp, _piece_polygon(piece)):
                        yield Problem(
                            join(path, "pos"),
                            f"an hh3 vehicle never stands above level 0 (hh3 Vehicles, No climbing): "
                            f"{m.id!r} is on {piece.id!r} (level {piece.level})",
                        )
    placed.sort(key=lambda item: item[0][0])
    for a, (box, path, mid, fp) in enumerate(placed):
        for other_box, _, other_id, other_fp in placed[a + 1 :]:
            if other_box[0] >= box[2]:
                break
            if other_box[1] >= box[3] or other_box[3] <= box[1]:
                continue
            if g.overlaps(fp, other_fp):
                yield Problem(join(path, "pos"), f"model {mid!r} overlaps model {other_id!r}")


def _piece_polygon(piece: Terrain) -> Polygon:
    poly = Polygon([(p.x, p.y) for p in piece.points])
    return poly if poly.is_valid else poly.buffer(0)


def _sane(m: ModelDef) -> bool:
    """Sizes and heading inside their bounds (a bad size is reported once, by _model, not
    measured)."""
    if m.hull is not None and not (
        0 < m.hull.length <= L.MAX_HULL_INCHES and 0 < m.hull.width <= L.MAX_HULL_INCHES
    ):
        return False
    if m.base_mm is not None and not 0 < m.base_mm <= L.MAX_BASE_MM:
        return False
    return abs(m.heading) <= L.MAX_HEADING


def _near(m: ModelDef) -> bool:
    """A position near enough to measure; one farther is off the table without measuring it."""
    return abs(m.pos.x) < FAR_INCHES and abs(m.pos.y) < FAR_INCHES
