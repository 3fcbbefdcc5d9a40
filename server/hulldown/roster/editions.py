"""How each edition's roster data lays out statlines, weapons and special rules, and how they map
onto the keywords and weapon rules the rules core implements (match/vocabulary.py).

Field names follow the game-system data (read by name, case-insensitive, never by position).
Anything a reader cannot map it reports through ``add(level, path, name, message)``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..match.definition_checks import DICE_TARGETS
from ..match.dice_text import parse_dice
from ..match.limits import MAX_DAMAGE, MAX_OBJECTIVE_CONTROL
from . import dimensions
from .values import first_int, inches, small_int, target, whole, words
from .xmltree import Profile, RosterError, Selection

Add = Callable[[Any, str, str, str], None]

TEMPLATE_RANGE = 8.0  # a template weapon's reach in inches (the flame template's length) [decided]
UNLIMITED_RANGE = 72.0  # "Unlimited", "Infinite" or unreadable ranges: the length of the table [decided]


@dataclass
class Statline:
    name: str
    kind: str
    vehicle: bool
    walker: bool
    profile: dict[str, Any]
    keywords: list[str] = field(default_factory=list)
    bulky: int = 1
    dimensions_entry: dict[str, Any] | None = None
    oc: int | None = None  # 40k11 Objective Control, the unit's ``oc:X`` keyword; None: not in the data


@dataclass
class WeaponLine:
    name: str
    range: float
    strength: int
    ap: int | None
    damage: int
    shots: int
    type: str
    rules: list[str]
    mount: dict[str, Any] | None = None

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": self.name, "range": self.range, "strength": self.strength}
        if self.ap is not None:
            doc["ap"] = self.ap
        if self.damage != 1:
            doc["damage"] = self.damage
        if self.shots != 1:
            doc["shots"] = self.shots
        doc["type"] = self.type
        if self.rules:
            doc["rules"] = list(self.rules)
        if self.mount is not None:
            doc["mount"] = dict(self.mount)
        return doc


def _int(text: str, default: int = 0) -> int:
    value = first_int(text)
    return default if value is None else value


def _access(text: str) -> list[str]:
    """Access points from prose: ``Both Sides`` -> left, right; ``All Facings`` -> all four."""
    t = text.lower()
    if "all" in t:
        return ["front", "rear", "left", "right"]
    out = []
    if "front" in t:
        out.append("front")
    if "rear" in t:
        out.append("rear")
    if "side" in t:
        out.extend(["left", "right"])
    return out


_MOUNT_WORDS = (
    ("co-axial", "coaxial"),
    ("coaxial", "coaxial"),
    ("pintle", "pintle"),
    ("sponson", "sponson"),
    ("turret", "turret"),
    ("centreline", "centreline"),
    ("centerline", "centreline"),
    ("hull", "hull"),
)


def mount_from_name(name: str) -> dict[str, Any] | None:
    """``Hull (Front) Mounted lascannon`` -> hull, front arc; ``Pintle Mounted ...`` -> pintle."""
    lowered = name.lower()
    for word, kind in _MOUNT_WORDS:
        if word in lowered:
            mount: dict[str, Any] = {"kind": kind}
            if kind == "hull":
                for arc in ("front", "rear", "left", "right"):
                    if f"({arc})" in lowered or f"{arc}-mounted" in lowered:
                        mount["arc"] = arc
                mount.setdefault("arc", "front")
            return mount
    return None


def valued_keyword(keyword: str, value: int, rule: str) -> tuple[str, Any]:
    """``keyword:value`` when a match definition accepts the value (a whole number 1-6, as it
    checks every ``name:X`` keyword), else an unmapped entry saying why."""
    if str(value) in DICE_TARGETS:
        return "keyword", f"{keyword}:{value}"
    return "unmapped", f"{rule!r}: a match definition takes {keyword}:X for X of 1 to 6 only: ignored"


class EditionReader(ABC):
    """How one edition's roster data lays out statlines and weapons; each edition implements
    ``statline`` and ``weapon``."""

    edition = ""
    system_ids: tuple[str, ...] = ()
    system_name = ""
    statline_types: tuple[str, ...] = ()
    vehicle_types: tuple[str, ...] = ()
    weapon_types: tuple[str, ...] = ()
    used_types: tuple[str, ...] = ("transport",)  # read with the statline (other profiles are reported)
    weapon_rule_map: ClassVar[dict[str, str]] = {}
    unit_rule_map: ClassVar[dict[str, str]] = {}
    has_mounts = True
    has_squadrons = False  # the vehicles of one unit are units of their own sharing ``squadron``

    def check_system(self, system_id: str, system_name: str) -> None:
        if system_id in self.system_ids or system_name.strip() == self.system_name:
            return
        raise RosterError(
            f"this roster is for {system_name or system_id!r}, not {self.system_name!r} ({self.edition})"
        )

    def is_statline(self, p: Profile) -> bool:
        return p.type_name.lower() in self.statline_types

    def is_weapon(self, p: Profile) -> bool:
        return p.type_name.lower() in self.weapon_types

    @abstractmethod
    def statline(self, p: Profile, anchor: Selection, root: Selection, add: Add) -> Statline: ...

    def finish(self, s: Statline, anchor: Selection, add: Add) -> Statline:
        for p in anchor.profiles:
            if p.type_name.lower() == "transport":
                capacity = first_int(p.get("Capacity"))
                if capacity is not None:
                    s.profile["capacity"] = capacity
                access = _access(p.get("Access Points"))
                if access:
                    s.profile["access"] = access
        return s

    @abstractmethod
    def weapon(self, p: Profile, sel: Selection, s: Statline, add: Add) -> WeaponLine | None: ...

    def weapon_rule(self, text: str) -> str | None:
        """A weapon special rule's name (value stripped) mapped to the core's name, else None."""
        key = re.sub(r"\s*\(.*$", "", text.strip().lower()).strip()
        return self.weapon_rule_map.get(key)

    def unit_rule(self, rule: str) -> tuple[str, Any] | None:
        key = re.sub(r"\s*\(.*$", "", rule.strip().lower()).strip()
        if key in self.unit_rule_map:
            return "keyword", self.unit_rule_map[key]
        return None

    def finish_unit(self, unit: dict[str, Any], add: Add, root: Selection) -> dict[str, Any]:
        profile = unit["profile"]
        if "transport" in unit.get("keywords", ()) and not profile.get("capacity"):
            add(
                "unmapped",
                root.path,
                root.name,
                "a transport without a capacity in the data: capacity 0 (set it by hand)",
            )
        if profile.get("capacity") and not profile.get("access"):
            entry = dimensions.lookup(unit["name"])
            access = (entry or {}).get("access") or dimensions.defaults()["transport_access"]
            profile["access"] = list(access)
            add("default", root.path, root.name, f"access points not in the data: {', '.join(access)}")
        return unit

    def _mount(self, sel: Selection, s: Statline, add: Add) -> dict[str, Any] | None:
        if not self.has_mounts or not s.vehicle:
            return None
        named = mount_from_name(sel.name)
        if named is not None:
            return named
        table = dimensions.mount_for(s.dimensions_entry, sel.name)
        kind = table or dimensions.defaults()["vehicle_mount"]
        mount: dict[str, Any] = {"kind": kind}
        if kind == "hull":
            mount["arc"] = "front"
        if table is None:
            add("default", sel.path, sel.name, f"no mount in the name or the dimensions table: {kind}")
        return mount

    def _weapon_rules(self, texts: list[str], sel: Selection, add: Add) -> list[str]:
        out: list[str] = []
        for text in texts:
            if not text or text == "-":
                continue
            mapped = self.weapon_rule(text)
            if mapped is None:
                add("unmapped", sel.path, text, "weapon rule not implemented by the rules core: ignored")
            elif mapped and mapped not in out:
                out.append(mapped)
        return out


# ---- 40k7 ---------------------------------------------------------------------------------------

_40K7_TYPE_WORDS = {
    "tank": "tank",
    "fast": "fast",
    "skimmer": "skimmer",
    "walker": "walker",
    "open-topped": "open-topped",
    "open topped": "open-topped",
    "transport": "transport",
    "tansport": "transport",
    "tranport": "transport",
    "heavy": "heavy",
    "chariot": "chariot",
    "flyer": "flyer",
    "hover": "hover",
    "super-heavy": "super-heavy",
    "superheavy": "super-heavy",
}
# ``Super-heavy Tank`` / ``Walker`` / ``Flyer`` is also a Tank, Walker, Flyer (40k7 Super-heavy
# Vehicles: a Super-heavy Tank may Tank Shock and Ram): super-heavy plus the type after the prefix.
_40K7_SUPER_HEAVY_PREFIXES = ("super-heavy", "superheavy", "super heavy")
_WEAPON_KINDS_40K7 = (
    ("rapid fire", "rapid_fire"),
    ("primary weapon", "primary"),
    ("assault", "assault"),
    ("heavy", "heavy"),
    ("ordnance", "ordnance"),
    ("salvo", "salvo"),
    ("pistol", "pistol"),
    ("melee", "melee"),
)

# A blast named by its marker's diameter in inches (``3" Blast``, the 40k7 Ork data): 3" is the
# Blast marker, 5" the Large Blast marker (40k7 Weapons, Blast).
_SIZED_BLAST = re.compile(r"""([0-9]+)\s*(?:"|\u201d|\u2033|''|in\.?|inch(?:es)?)?\s*blast""")
_BLAST_SIZES_40K7 = {"3": "blast", "5": "large_blast"}
# Weapon rules that only concern close combat attacks (40k7 Special Rules, Unwieldy and
# Specialist Weapon): a selection's rule entry gives them to its Melee weapons only.
_MELEE_ONLY_RULES_40K7 = ("unwieldy", "specialist")


# 40k7 weapon profiles: a close combat weapon has the Range ``-`` and the type ``Melee``; a
# template weapon the Range ``Template``. Any other weapon whose Range is one of these (a Bomb,
# ``Ordnance 1, Large Blast, Bomb``; a grenade's close combat line without ``Melee``) has no range
# to fire at and is no close combat weapon: it cannot be played, and is left out and reported.
_NO_RANGE_40K7 = ("-", "", "\u2013", "\u2014")


def _no_range_message(rng_text: str, type_text: str) -> str:
    return (
        f"range {rng_text!r} and type {type_text!r}: a weapon without a range that is not a Melee "
        "weapon (type Melee) cannot be played: left out (docs/roster-import.md, 40k7 saves and ranges)"
    )


def _40k7_saves(text: str) -> tuple[int | None, int | None]:
    """40k7 ``Save``: ``3+`` an armour save, ``4++`` an invulnerable save only, ``3+/4++`` both,
    ``-`` or ``-/5++`` no armour save -> (armour save, invulnerable save)."""
    sv: int | None = None
    inv: int | None = None
    for part in text.split("/"):
        if re.search(r"[0-9]\s*\+\s*\+", part):
            inv = target(part) if inv is None else inv
        elif sv is None and not part.strip().startswith("-"):
            sv = target(part)
    return sv, inv


class WH40K7(EditionReader):
    edition = "40k7"
    system_ids = ("e1ebd931-a209-3ce4-87b4-d9918d25530b",)
    system_name = "Warhammer 40,000 7th Edition"
    statline_types = ("unit", "vehicle", "walker", "flyer")
    weapon_types = ("weapon",)
    has_squadrons = True
    weapon_rule_map: ClassVar[dict[str, str]] = {
        "blast": "blast",
        "large blast": "large_blast",
        "template": "template",
        "melta": "melta",
        "armourbane": "armourbane",
        "lance": "lance",
        "haywire": "haywire",
        "pinning": "pinning",
        "skyfire": "skyfire",
        "grenade": "grenade",
        # 40k7 Special Rules, Unwieldy (strikes at Initiative 1) and Specialist Weapon (the +1
        # Attack for two close combat weapons only with another Specialist Weapon).
        "unwieldy": "unwieldy",
        "specialist weapon": "specialist",
        # 40k7 Special Rules, Ignores Cover: a word of the Type (``Heavy 1, Ignores Cover``) or a
        # rule of the weapon selection; ``Ignore Cover`` as some data spells it.
        "ignores cover": "ignores_cover",
        "ignore cover": "ignores_cover",
    }
    unit_rule_map: ClassVar[dict[str, str]] = {
        "fearless": "fearless",
        "relentless": "relentless",
        "skyfire": "skyfire",
        "assault vehicle": "assault_vehicle",
        "deep strike": "deep_strike",
        "infiltrate": "infiltrate",
        "scout": "scout",
        "outflank": "outflank",
        "adamantium will": "adamantium_will",
        "psychic pilot": "psychic_pilot",
        "smash": "smash",
    }

    def weapon_rule(self, text: str) -> str | None:
        """``3" Blast`` (how some codex data writes a blast, by its marker) is Blast, ``5" Blast``
        Large Blast; a marker of another size is no rule of the core."""
        sized = _SIZED_BLAST.fullmatch(text.strip().lower())
        if sized:
            return _BLAST_SIZES_40K7.get(sized.group(1))
        return super().weapon_rule(text)

    def unit_rule(self, rule: str) -> tuple[str, Any] | None:
        key = rule.strip().lower()
        for name, size in (("extremely bulky", 5), ("extremly bulky", 5), ("very bulky", 3), ("bulky", 2)):
            if key == name:
                return "bulky", size
        level = first_int(key)
        if key.startswith("psychic pilot") and level is not None:  # Psychic Pilot (Mastery Level X)
            return valued_keyword("psychic_pilot", level, rule)
        return super().unit_rule(rule)

    def statline(self, p: Profile, anchor: Selection, root: Selection, add: Add) -> Statline:
        t = p.type_name.lower()
        if t == "unit":
            unit_type = p.get("Unit Type").lower()
            kind = "monster" if "monstrous" in unit_type or "gargantuan" in unit_type else "infantry"
            if kind == "infantry" and unit_type and not unit_type.startswith("infantry"):
                add("decided", anchor.path, p.name, f"unit type {p.get('Unit Type')!r} is played as infantry")
            sv, inv = _40k7_saves(p.get("Save", "Sv"))
            profile: dict[str, Any] = {
                "ws": _int(p.get("WS")),
                "bs": _int(p.get("BS")),
                "s": _int(p.get("S")),
                "t": _int(p.get("T")),
                "w": max(1, _int(p.get("W"), 1)),
                "i": _int(p.get("I")),
                "a": max(1, _int(p.get("A"), 1)),
                "ld": _int(p.get("Ld", "LD"), 7),
            }
            if sv is not None:
                profile["sv"] = sv
            if inv is not None:
                profile["inv"] = inv
            return Statline(p.name, kind, False, False, profile)
        type_words = words(p.get("Type"))
        keywords: list[str] = []
        for w in type_words:
            if w == "vehicle":
                continue
            mapped = _40K7_TYPE_WORDS.get(w)
            prefix = next((x for x in _40K7_SUPER_HEAVY_PREFIXES if w.startswith(x)), None)
            if mapped is None and prefix is not None:
                mapped = "super-heavy"
                rest = w.removeprefix(prefix).strip()
                if rest in _40K7_TYPE_WORDS and _40K7_TYPE_WORDS[rest] not in keywords:
                    keywords.append(_40K7_TYPE_WORDS[rest])
                elif rest not in _40K7_TYPE_WORDS and rest not in ("", "vehicle"):
                    add("unmapped", anchor.path, rest, f"vehicle type of {p.name!r} not implemented: ignored")
            if mapped is None:
                add("unmapped", anchor.path, w, f"vehicle type of {p.name!r} not implemented: ignored")
            elif mapped not in keywords:
                keywords.append(mapped)
        walker = t == "walker" or "walker" in keywords
        if t == "flyer" and "flyer" not in keywords:
            keywords.append("flyer")
        profile = {
            "bs": _int(p.get("BS")),
            "armour": {
                "front": _int(p.get("Front")),
                "side": _int(p.get("Side"), _int(p.get("Front"))),
                "rear": _int(p.get("Rear")),
            },
            "hp": max(1, _int(p.get("HP"), 1)),
        }
        if walker:
            profile.update(
                ws=_int(p.get("WS")), s=_int(p.get("S")), i=_int(p.get("I")), a=max(1, _int(p.get("A"), 1))
            )
        return Statline(p.name, "walker" if walker else "vehicle", True, walker, profile, keywords)

    def weapon(self, p: Profile, sel: Selection, s: Statline, add: Add) -> WeaponLine | None:
        rng_text = p.get("Range")
        type_text = p.get("Type")
        kinds = [w.strip() for w in type_text.split(",")]
        head = kinds[0].lower() if kinds else ""
        if rng_text.strip() in _NO_RANGE_40K7 and not head.startswith("melee"):
            add("unmapped", sel.path, p.name, _no_range_message(rng_text, type_text))
            return None
        wtype = "assault"
        shots = 1
        for word, mapped in _WEAPON_KINDS_40K7:
            if head.startswith(word):
                wtype = mapped
                count_text = head[len(word) :].strip()
                if count_text:
                    count_text = count_text.split("/")[-1]
                    value, dice = whole(count_text)
                    if value is not None:
                        shots = value
                        if dice:
                            add(
                                "decided",
                                sel.path,
                                p.name,
                                f"{count_text} shots read as {value} (the average, rounded up)",
                            )
                break
        else:
            if head:
                add("decided", sel.path, p.name, f"weapon type {kinds[0]!r} played as Assault")
        if wtype == "rapid_fire" and shots == 1:
            shots = 1
        melee = wtype == "melee" or rng_text.strip().lower() == "melee"
        rules = self._weapon_rules([k for k in kinds[1:]], sel, add)
        if "template" in rng_text.lower() and "template" not in rules:
            rules.append("template")
        # The selection's rule entries apply to its weapons, but the close-combat-only ones
        # (40k7 Unwieldy, Specialist Weapon) only to its Melee weapons: a Dreadnought's "Power
        # Fist with built-in Storm Bolter" lists Unwieldy for the fist, not for the bolter.
        rules += [
            r
            for r in self._weapon_rules(sel.rules, sel, add)
            if r not in rules and (melee or r not in _MELEE_ONLY_RULES_40K7)
        ]
        strength = self._strength(p.get("Strength", "S"), s, sel, p, add)
        ap_text = p.get("AP")
        ap = first_int(ap_text) if ap_text and ap_text != "-" else None
        rng = 0.0 if melee else (inches(rng_text) or (TEMPLATE_RANGE if "template" in rules else 0.0))
        if melee:
            wtype = "melee"
        elif rng <= 0:
            rng = UNLIMITED_RANGE
            add("decided", sel.path, p.name, f"range {rng_text!r} played as {UNLIMITED_RANGE:g} in")
        return WeaponLine(
            p.name, rng, strength, ap, 1, shots, wtype, rules, None if melee else self._mount(sel, s, add)
        )

    def _strength(self, text: str, s: Statline, sel: Selection, p: Profile, add: Add) -> int:
        base = int(s.profile.get("s", 0))
        t = text.strip().lower()
        plain = small_int(t)
        if plain is not None:
            return plain
        if t in ("user", "as user", ""):
            return base
        if t.startswith("x"):
            return min(10, base * _int(t, 1))
        if t.startswith("+"):
            return min(10, base + _int(t))
        if t == "d":
            add("decided", sel.path, p.name, "Strength D (Destroyer) played as Strength 10")
            return 10
        add("decided", sel.path, p.name, f"Strength {text!r} not a number: {base} (the model's)")
        return base


# ---- hh3 ----------------------------------------------------------------------------------------

_HH3_SUBTYPES = {
    "transport": "transport",
    "flyer": "flyer",
    "stable": "stable",
    "super-heavy": "super-heavy",
    "rapid": "fast",
    "fast": "fast",
}


# ``Line (2)``, ``Infiltrate (6)``, ``Infiltrate [6]``: the core's ``line:X`` and ``infiltrate:X``.
_HH3_VALUED_RULE = re.compile(r"(line|infiltrate)\s*[(\[]\s*([0-9]{1,3})\s*[)\]]")


class HH3(EditionReader):
    edition = "hh3"
    system_ids = ("sys-9fe4-1dc3-b7c2-73cf",)
    system_name = "Horus Heresy 3rd Edition"
    statline_types = ("profile", "vehicle", "knight")
    weapon_types = ("ranged weapon", "melee weapon")
    weapon_rule_map: ClassVar[dict[str, str]] = {
        "armourbane": "armourbane",
        "barrage": "barrage",
        "indirect": "indirect",
        "blast": "blast",
        "template": "template",
    }
    unit_rule_map: ClassVar[dict[str, str]] = {
        "light transport": "light_transport",
        "assault vehicle": "assault_vehicle",
        "outflank": "outflank",
    }

    def unit_rule(self, rule: str) -> tuple[str, Any] | None:
        lowered = rule.strip().lower()
        valued = _HH3_VALUED_RULE.fullmatch(lowered)
        if valued:  # Line (X), Infiltrate (X) (also written Infiltrate [X])
            return valued_keyword(valued.group(1), int(valued.group(2)), rule)
        value = first_int(lowered)
        for name, keyword in (
            ("explodes", "explodes"),
            ("auto-repair", "auto_repair"),
            ("damage mitigation", "mitigation"),
        ):
            if lowered.startswith(name) and value is not None:
                return "keyword", f"{keyword}:{value}"
        if lowered.startswith("bulky") and value is not None:
            return "bulky", value
        return super().unit_rule(rule)

    def weapon_rule(self, text: str) -> str | None:
        lowered = text.strip().lower()
        found = re.match(r"heavy\s*\((rs|ap|fp|s|d)\)", lowered)
        if found:
            return "heavy:" + {"rs": "s"}.get(found.group(1), found.group(1))
        return super().weapon_rule(text)

    def statline(self, p: Profile, anchor: Selection, root: Selection, add: Add) -> Statline:
        t = p.type_name.lower()
        type_text = p.get("Type")
        type_words = words(type_text)
        head = type_words[0] if type_words else ""
        if t == "profile":
            kind = {"infantry": "infantry", "paragon": "paragon", "walker": "walker"}.get(head)
            if kind is None:
                kind = "infantry"
                add("decided", anchor.path, p.name, f"model type {type_text!r} played as infantry")
            for w in type_words[1:]:
                if w not in ("sergeant", "character", "command"):
                    add("unmapped", anchor.path, w, f"sub-type of {p.name!r} not implemented: ignored")
            profile: dict[str, Any] = {
                "m": float(_int(p.get("M"))),
                "ws": _int(p.get("WS")),
                "bs": _int(p.get("BS")),
                "s": _int(p.get("S")),
                "t": _int(p.get("T")),
                "w": max(1, _int(p.get("W"), 1)),
                "i": _int(p.get("I")),
                "a": max(1, _int(p.get("A"), 1)),
                "ld": _int(p.get("LD"), 7),
                "cool": _int(p.get("CL"), 7),
            }
            sv, inv = target(p.get("SAV")), target(p.get("INV"))
            if sv is not None:
                profile["sv"] = sv
            if inv is not None:
                profile["inv"] = inv
            return Statline(p.name, kind, False, False, profile)
        keywords: list[str] = []
        for w in type_words[1:]:
            mapped = _HH3_SUBTYPES.get(w)
            if mapped is None:
                add("unmapped", anchor.path, w, f"sub-type of {p.name!r} not implemented: ignored")
            elif mapped not in keywords:
                keywords.append(mapped)
        front = _int(p.get("Front Armour", "Front"))
        side_text = p.get("Side Armour", "Side")
        if not side_text:
            add("decided", anchor.path, p.name, "no side armour in the data (Knight): side = front")
        profile = {
            "m": float(_int(p.get("M"))),
            "bs": _int(p.get("BS")),
            "armour": {
                "front": front,
                "side": _int(side_text, front),
                "rear": _int(p.get("Rear Armour", "Rear")),
            },
            "hp": max(1, _int(p.get("HP"), 1)),
        }
        capacity = first_int(p.get("Transport Capacity"))
        if capacity:
            profile["capacity"] = capacity
            if "transport" not in keywords:
                keywords.append("transport")
        access = _access(p.get("Access Points"))
        if access:
            profile["access"] = access
        return Statline(p.name, "vehicle", True, False, profile, keywords)

    def weapon(self, p: Profile, sel: Selection, s: Statline, add: Add) -> WeaponLine | None:
        rules_text = [r.strip() for r in p.get("Special Rules").split(",") if r.strip()]
        rules = self._weapon_rules(rules_text, sel, add)
        for r in self._weapon_rules([r for r in sel.rules if r not in rules_text], sel, add):
            if r not in rules:
                rules.append(r)
        ap_text = p.get("AP")
        ap = first_int(ap_text) if ap_text and ap_text != "-" else None
        damage = max(1, _int(p.get("D"), 1))
        if p.type_name.lower() == "melee weapon":
            base = int(s.profile.get("s", 0))
            sm = p.get("SM").strip().upper()
            strength = base if sm in ("S", "") else (base + _int(sm) if sm[:1] in "+-" else _int(sm, base))
            attacks = max(
                1, int(s.profile.get("a", 1)) + (_int(p.get("AM")) if p.get("AM")[:1] in "+-" else 0)
            )
            return WeaponLine(p.name, 0.0, strength, ap, damage, attacks, "melee", rules)
        rng_text = p.get("R")
        if "template" in rng_text.lower() and "template" not in rules:
            rules.append("template")
        rng = inches(rng_text) or (TEMPLATE_RANGE if "template" in rules else UNLIMITED_RANGE)
        shots, dice = whole(p.get("FP") or "1")
        if dice:
            add("decided", sel.path, p.name, f"FP {p.get('FP')} read as {shots} (the average, rounded up)")
        strength = _int(p.get("RS"))
        return WeaponLine(
            p.name,
            rng,
            strength,
            ap,
            damage,
            max(1, shots or 1),
            "heavy" if any(r.startswith("heavy") for r in rules) else "assault",
            rules,
            self._mount(sel, s, add),
        )


# ---- 40k11 --------------------------------------------------------------------------------------

_40K11_KEYWORDS = {"vehicle": "vehicle", "monster": "monster", "infantry": "infantry", "frame": "frame"}
# Unit keywords read from the categories: those above and TRANSPORT (40k11 core rules, Transports;
# its capacity is the Transport profile's first number, ``EditionReader.finish``).
_40K11_UNIT_KEYWORDS = {**_40K11_KEYWORDS, "transport": "transport"}
_40K11_IGNORED_CATEGORIES = ("faction:", "allies:")


class WH40K11(EditionReader):
    edition = "40k11"
    system_ids = ("sys-352e-adc2-7639-d610",)
    system_name = "Warhammer 40,000 11th Edition"
    statline_types = ("unit",)
    weapon_types = ("ranged weapons", "melee weapons")
    weapon_rule_map: ClassVar[dict[str, str]] = {
        "blast": "blast",
        "close-quarters": "close_quarters",
        "close quarters": "close_quarters",
        # 40k11 Weapon Abilities: "[PISTOL] and [CLOSE-QUARTERS] are identical for all rules
        # purposes" (the rule text the rosters carry with every Pistol weapon).
        "pistol": "close_quarters",
        # 40k11 core rules [ext], weapon abilities the rules core implements (docs/rules-notes.md).
        "assault": "assault",
        "heavy": "heavy",
        "torrent": "torrent",
        "twin-linked": "twin_linked",
        "twin linked": "twin_linked",
        "lethal hits": "lethal_hits",
        "devastating wounds": "devastating_wounds",
        "ignores cover": "ignores_cover",
        "lance": "lance",
        "hazardous": "hazardous",
        "one shot": "one_shot",
        "extra attacks": "extra_attacks",
        "indirect fire": "indirect_fire",
    }
    has_mounts = False

    def weapon_rule(self, text: str) -> str | None:
        """A weapon keyword, with the value of [RAPID FIRE X], [SUSTAINED HITS X], [MELTA X] and
        [ANTI-KEYWORD X+] (``rapid_fire:1``, ``anti:infantry:4``); None when the rules core does not
        implement it (a random X of Rapid Fire or Melta, or an Anti keyword no unit can have).
        ``Sustained Hits D3`` is ``sustained_hits:d3`` (X rolled per Critical Hit)."""
        lowered = text.strip().lower()
        dice = re.fullmatch(r"sustained hits\s+(\S+)", lowered)
        if dice and parse_dice(dice.group(1)) is not None:
            return f"sustained_hits:{dice.group(1)}"
        found = re.fullmatch(r"(rapid fire|sustained hits|melta)\s+([0-9]+)", lowered)
        if found and small_int(found.group(2)):
            return f"{found.group(1).replace(' ', '_')}:{int(found.group(2))}"
        anti = re.fullmatch(r"anti-([a-z]+)\s+([2-6])\+?", lowered)
        if anti:
            keyword = _40K11_KEYWORDS.get(anti.group(1))
            return f"anti:{keyword}:{anti.group(2)}" if keyword else None
        return super().weapon_rule(text)

    def unit_rule(self, rule: str) -> tuple[str, Any] | None:
        """40k11 core rules, Deadly Demise X: ``deadly_demise:X`` (X a whole number or dice,
        ``Deadly Demise D3`` is ``deadly_demise:d3``, rolled for each unit it hits)."""
        found = re.fullmatch(r"deadly demise\s+(\S+)", rule.strip().lower())
        if found:
            value = found.group(1)
            if (value.isdigit() and 1 <= int(value) <= MAX_DAMAGE) or (
                not value.isdigit() and parse_dice(value) is not None
            ):
                return "keyword", f"deadly_demise:{value}"
            return (
                "unmapped",
                f"{rule!r}: a match definition takes deadly_demise:X for X a number or dice: ignored",
            )
        return super().unit_rule(rule)

    def check_system(self, system_id: str, system_name: str) -> None:
        if system_id == "sys-352e-adc2-7639-d6a9":
            raise RosterError("this is a 10th edition roster (sys-352e-adc2-7639-d6a9), not 40k11")
        super().check_system(system_id, system_name)

    def statline(self, p: Profile, anchor: Selection, root: Selection, add: Add) -> Statline:
        profile: dict[str, Any] = {
            "m": inches(p.get("M")) or 0.0,
            "t": _int(p.get("T")),
            "w": max(1, _int(p.get("W"), 1)),
            "ld": target(p.get("LD")) or 7,
        }
        sv, inv = target(p.get("Sv", "SV")), target(p.get("InSv"))
        if sv is not None:
            profile["sv"] = sv
        if inv is not None:
            profile["inv"] = inv
        categories = {c.lower() for c in (*root.categories, *anchor.categories)}
        keywords = [k for c, k in _40K11_UNIT_KEYWORDS.items() if c in categories]
        kind = "vehicle" if "vehicle" in keywords else "monster" if "monster" in keywords else "infantry"
        vehicle = kind in ("vehicle", "monster")
        oc = self._objective_control(p, anchor, add)
        return Statline(p.name, kind, vehicle, "walker" in categories, profile, keywords, oc=oc)

    def _objective_control(self, p: Profile, anchor: Selection, add: Add) -> int | None:
        """40k11 core rules, Objective Control: the Unit profile's ``OC`` (a number, or ``-`` for a
        model that controls nothing, read as 0 [decided]); None when the data has none or it is
        beyond what a match definition takes (reported)."""
        text = p.get("OC")
        if not text:
            return None
        if text == "-":
            add("decided", anchor.path, p.name, "OC - read as 0 (oc:0: it controls no objective)")
            return 0
        value = small_int(text)
        if value is None or value > MAX_OBJECTIVE_CONTROL:
            add(
                "unmapped",
                anchor.path,
                p.name,
                f"OC {text!r}: a match definition takes oc:X for X of 0 to {MAX_OBJECTIVE_CONTROL} "
                "(MAX_OBJECTIVE_CONTROL): the mission's default OC is used",
            )
            return None
        return value

    def weapon(self, p: Profile, sel: Selection, s: Statline, add: Add) -> WeaponLine | None:
        keywords_text = [k.strip() for k in p.get("Keywords").split(",") if k.strip() and k.strip() != "-"]
        rules: list[str] = []
        for k in keywords_text:
            mapped = self.weapon_rule(k)
            if mapped is None:
                add("unmapped", sel.path, k, "weapon keyword not implemented by the rules core: ignored")
            elif mapped not in rules:
                rules.append(mapped)
        shots, dice = whole(p.get("A") or "1")
        if dice:
            shots = self._random(p, "A", "attacks", shots, rules, sel, add)
        damage, ddice = whole(p.get("D") or "1")
        if ddice:
            damage = self._random(p, "D", "damage", damage, rules, sel, add)
        ap = abs(_int(p.get("AP")))
        melee = p.type_name.lower() == "melee weapons"
        skill = target(p.get("WS" if melee else "BS"))
        if skill is not None:
            key = "ws" if melee else "bs"
            s.profile.setdefault(f"_{key}", []).append(skill)
        name = p.name.removeprefix("➤").strip()
        rng = 0.0 if melee else (inches(p.get("Range")) or 0.0)
        kind = (
            "melee"
            if melee
            else next(
                (
                    t
                    for word, t in (
                        ("pistol", "pistol"),
                        ("heavy", "heavy"),
                        ("rapid fire", "rapid_fire"),
                        ("assault", "assault"),
                    )
                    if any(k.lower().startswith(word) for k in keywords_text)
                ),
                "assault",
            )
        )
        return WeaponLine(
            name, rng, _int(p.get("S")), ap or None, max(1, damage or 1), max(1, shots or 1), kind, rules
        )

    def _random(
        self,
        p: Profile,
        column: str,
        name: str,
        average: int | None,
        rules: list[str],
        sel: Selection,
        add: Add,
    ) -> int | None:
        """40k11 core rules, Random characteristics: a dice A or D (``D6+3``) is rolled each time
        by the rules core: the ``attacks:d6+3`` / ``damage:d6`` rule, the number field keeping the
        average (rounded up) as a fallback. A form the match definition cannot hold is read as its
        average, said so."""
        text = p.get(column)
        expr = parse_dice(text.replace(" ", ""))
        if expr is None:
            add("decided", sel.path, p.name, f"{column} {text} read as {average} (the average, rounded up)")
            return average
        rules.append(f"{name}:{expr.text().lower()}")
        add(
            "decided",
            sel.path,
            p.name,
            f"{column} {text}: rolled for each {'use' if name == 'attacks' else 'unsaved attack'} ({name}:{expr.text().lower()})",
        )
        return expr.average()

    def finish_unit(self, unit: dict[str, Any], add: Add, root: Selection) -> dict[str, Any]:
        profile = unit["profile"]
        for key in ("bs", "ws"):
            skills = profile.pop(f"_{key}", [])
            if skills:
                common = max(set(skills), key=skills.count)
                profile[key] = common
                if len(set(skills)) > 1:
                    add(
                        "decided",
                        root.path,
                        root.name,
                        f"weapons with {key.upper()} {sorted(set(skills))}: the unit uses {common}+ for all",
                    )
        keywords = list(unit.get("keywords", []))
        for cat in root.categories:
            lowered = cat.lower()
            if lowered in _40K11_UNIT_KEYWORDS:
                if _40K11_UNIT_KEYWORDS[lowered] not in keywords:
                    keywords.append(_40K11_UNIT_KEYWORDS[lowered])
            elif not lowered.startswith(_40K11_IGNORED_CATEGORIES) and lowered != unit["name"].lower():
                add("unmapped", root.path, cat, "keyword not implemented by the rules core: ignored")
        if keywords:
            unit["keywords"] = keywords
        # 40k11 core rules, Transports: a transport has no access points (it is measured to as a
        # whole), so none is defaulted as for 40k7 and hh3.
        if "transport" in keywords and not profile.get("capacity"):
            add(
                "unmapped",
                root.path,
                root.name,
                "a transport without a capacity in the data: capacity 0 (set it by hand)",
            )
        elif profile.get("capacity"):
            add(
                "decided",
                root.path,
                root.name,
                f"transport capacity {profile['capacity']} (the Transport profile's first number; "
                "its other terms, such as models taking the space of 2, are not read)",
            )
        return unit


EDITIONS: dict[str, EditionReader] = {r.edition: r for r in (WH40K7(), HH3(), WH40K11())}

__all__ = ["EDITIONS", "EditionReader", "Statline", "WeaponLine"]
