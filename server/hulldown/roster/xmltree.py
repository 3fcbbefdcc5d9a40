"""Reading a roster file safely into a small tree of selections.

``.rosz`` is a zip with one ``.ros`` entry; its expanded size is bounded (zip bombs). The XML is
parsed by defusedxml, which refuses DTDs, entity declarations and external references (billion
laughs, external entities) instead of expanding them. Element names are read without their
namespace: BattleScribe's ``rosterSchema`` namespace, or none. Everything the importer later
iterates over is bounded here, before anything is built: forces, selections, how deep they nest,
a selection's ``number`` and the digits of a characteristic (docs/roster-import.md, "Limits").
Every refusal names the path of the element (``forces[0].selections[3]``).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from ..match.limits import MAX_MODELS_PER_UNIT, MAX_WEAPONS_PER_UNIT
from .values import MAX_NUMBER_DIGITS, foreign_digit, long_number

MAX_ROSTER_BYTES = 4_000_000  # expanded .ros text; real 2,500-point lists are ~200 KB
MAX_ZIP_ENTRIES = 8
MAX_SELECTIONS = 5_000  # at any depth; real 2,500-point lists have about 50
MAX_FORCES = 100  # at any depth; real rosters have 1 to 3 (a detachment each)
MAX_NESTING = 32  # forces and selections inside one another; real rosters nest 4 or 5 deep
# A selection's ``number`` counts models or weapons of one unit: never more than a unit may hold
# (docs/match-definition.md, "Limits"). The importer checks each unit's totals against both.
MAX_SELECTION_NUMBER = max(MAX_MODELS_PER_UNIT, MAX_WEAPONS_PER_UNIT)
# What BattleScribe and New Recruit write (deflated) and a plain store; others are refused.
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
LIMITS_DOC = "docs/roster-import.md, Limits"  # cited by every refusal over a limit
SHOWN_CHARACTERS = 20  # of a refused value or name quoted in a message (the rest is counted)

# What zipfile raises on a damaged or unusual archive: a bad CRC, a truncated or corrupt stream,
# a zip feature it does not implement (a newer zip version, strong encryption, patched data), an
# encrypted member (RuntimeError: a password is required).
_ZIP_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
)
_ENCODING_DECLARATION = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""")


class RosterError(Exception):
    """The file is not a roster this importer can read (the message says why)."""


@dataclass
class Profile:
    name: str
    type_name: str
    characteristics: dict[str, str]

    def get(self, *names: str) -> str:
        """The first characteristic present under any of ``names`` (case-insensitive), else ""."""
        folded = {k.strip().lower(): v for k, v in self.characteristics.items()}
        for n in names:
            value = folded.get(n.lower())
            if value is not None:
                return value.strip()
        return ""


@dataclass
class Selection:
    id: str
    name: str
    type: str
    number: int
    path: str
    profiles: list[Profile] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    children: list[Selection] = field(default_factory=list)

    def walk(self) -> list[Selection]:
        out = [self]
        for c in self.children:
            out.extend(c.walk())
        return out


@dataclass
class Force:
    name: str
    path: str
    selections: list[Selection]
    forces: list[Force]


@dataclass
class Roster:
    name: str
    game_system_id: str
    game_system_name: str
    forces: list[Force]

    def all_forces(self) -> list[Force]:
        out: list[Force] = []
        stack = list(self.forces)
        while stack:
            f = stack.pop(0)
            out.append(f)
            stack[0:0] = f.forces
        return out


def roster_text(data: bytes) -> bytes:
    """The XML of a ``.ros`` (as is) or a ``.rosz`` (its single ``.ros`` entry)."""
    if data[:4] == b"PK\x03\x04":
        return _zipped_roster(data)
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is {len(data)} bytes, over {MAX_ROSTER_BYTES}")
    return data


def _zipped_roster(data: bytes) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_READ_ERRORS as exc:
        raise RosterError(
            f"not a readable .rosz archive ({exc}); expected a zip archive holding one .ros entry, "
            "as BattleScribe and New Recruit save it"
        ) from exc
    entry = _roster_entry(archive)
    _check_entry_readable(entry)
    try:
        with archive.open(entry) as stream:
            text = stream.read(MAX_ROSTER_BYTES + 1)
    except _ZIP_READ_ERRORS as exc:
        raise RosterError(
            f"{entry.filename}: the .rosz entry is damaged ({exc}); expected the roster as "
            "BattleScribe or New Recruit saved it: save or export it again"
        ) from exc
    if len(text) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster expands to more than {MAX_ROSTER_BYTES} bytes")
    return text


def _roster_entry(archive: zipfile.ZipFile) -> zipfile.ZipInfo:
    entries = [i for i in archive.infolist() if not i.is_dir()]
    if len(entries) > MAX_ZIP_ENTRIES:
        raise RosterError(
            f"a .rosz holds one roster, this archive has {len(entries)} entries; allowed at most "
            f"{MAX_ZIP_ENTRIES} (MAX_ZIP_ENTRIES, {LIMITS_DOC})"
        )
    ros = [i for i in entries if i.filename.lower().endswith(".ros")] or entries[:1]
    if len(ros) != 1:
        raise RosterError("a .rosz must hold exactly one .ros entry")
    entry = ros[0]
    if entry.file_size > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster expands to {entry.file_size} bytes, over {MAX_ROSTER_BYTES}")
    return entry


def _check_entry_readable(entry: zipfile.ZipInfo) -> None:
    """Refuse, before reading, an encrypted entry or one compressed by a method not allowed."""
    if entry.flag_bits & 0x1:
        raise RosterError(
            f"{entry.filename}: the .rosz entry is encrypted; expected an archive without a "
            "password, as BattleScribe and New Recruit save it"
        )
    if entry.compress_type not in ZIP_METHODS:
        raise RosterError(
            f"{entry.filename}: the .rosz entry is compressed with method {entry.compress_type}; "
            f"allowed: {', '.join(f'{n} ({m})' for m, n in ZIP_METHODS.items())}"
        )


def parse_roster(data: bytes) -> Roster:
    """Parse ``.ros`` / ``.rosz`` bytes; hostile XML and anything that is not a roster raise
    :class:`RosterError`."""
    root = _xml_root(roster_text(data))
    if _local(root.tag) != "roster":
        raise RosterError(f"not a roster: the root element is <{_local(root.tag)}>, expected <roster>")
    if root.find(_child("forces")) is None and root.get("points") is not None:
        raise RosterError(
            "a BattleScribe 1.x roster (no <forces>): save it again with BattleScribe 2 or New Recruit"
        )
    budget = _Budget()
    forces = [_force(f, f"forces[{i}]", 1, budget) for i, f in enumerate(_children(root, "forces", "force"))]
    return Roster(
        name=root.get("name", ""),
        game_system_id=root.get("gameSystemId", ""),
        game_system_name=root.get("gameSystemName", ""),
        forces=forces,
    )


def _xml_root(text: bytes) -> Element:
    try:
        root: Element = SafeET.fromstring(text, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise RosterError(f"refused: the XML declares a DTD or entities ({type(exc).__name__})") from exc
    except SafeET.ParseError as exc:
        raise RosterError(f"not well-formed XML: {exc}") from exc
    except (LookupError, ValueError) as exc:  # an encoding Python or expat cannot decode
        raise RosterError(_encoding_message(text, exc)) from exc
    return root


def _encoding_message(text: bytes, exc: Exception) -> str:
    found = _ENCODING_DECLARATION.match(text)
    declared = _shown(found.group(1).decode("ascii", "replace")) if found else "?"
    return (
        f"<?xml?> declaration: encoding {declared!r} cannot be read ({exc}); allowed: UTF-8 (what "
        "BattleScribe and New Recruit write), UTF-16, ISO-8859-1 or another single-byte encoding"
    )


def _shown(text: str) -> str:
    """``text`` to quote in a message: whole when short, else its start and its length."""
    if len(text) <= SHOWN_CHARACTERS:
        return text
    return f"{text[:SHOWN_CHARACTERS]}... ({len(text)} characters)"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(name: str) -> str:
    return f"{{*}}{name}"


def _children(element: Element, group: str, item: str) -> list[Element]:
    out: list[Element] = []
    for g in element:
        if _local(g.tag) == group:
            out.extend(e for e in g if _local(e.tag) == item)
    return out


class _Budget:
    """What the roster has used so far of the limits on forces and selections."""

    def __init__(self) -> None:
        self.forces = 0
        self.selections = 0

    def count_force(self, path: str) -> None:
        self.forces += 1
        if self.forces > MAX_FORCES:
            raise RosterError(
                f"{path}: force number {self.forces}; allowed at most {MAX_FORCES} forces "
                f"(MAX_FORCES, {LIMITS_DOC})"
            )

    def count_selection(self, path: str) -> None:
        self.selections += 1
        if self.selections > MAX_SELECTIONS:
            raise RosterError(
                f"{path}: selection number {self.selections}; allowed at most {MAX_SELECTIONS} "
                f"selections (MAX_SELECTIONS, {LIMITS_DOC})"
            )


def _check_nesting(path: str, depth: int) -> None:
    if depth > MAX_NESTING:
        raise RosterError(
            f"{path}: nested {depth} forces and selections deep; allowed at most {MAX_NESTING} "
            f"(MAX_NESTING, {LIMITS_DOC})"
        )


def _force(element: Element, path: str, depth: int, budget: _Budget) -> Force:
    _check_nesting(path, depth)
    budget.count_force(path)
    name = " ".join(element.get("name", "").split())
    selections = [
        _selection(s, f"{path}.selections[{i}]", depth + 1, budget)
        for i, s in enumerate(_children(element, "selections", "selection"))
    ]
    forces = [
        _force(f, f"{path}.forces[{i}]", depth + 1, budget)
        for i, f in enumerate(_children(element, "forces", "force"))
    ]
    return Force(name=name, path=path, selections=selections, forces=forces)


def _selection(element: Element, path: str, depth: int, budget: _Budget) -> Selection:
    _check_nesting(path, depth)
    budget.count_selection(path)
    sel = Selection(
        id=element.get("id", ""),
        name=" ".join(element.get("name", "").replace("\u00a0", " ").split()),
        type=element.get("type", ""),
        number=_number(element, path),
        path=path,
    )
    sel.profiles = [
        _profile(p, f"{path}.profiles[{i}]") for i, p in enumerate(_children(element, "profiles", "profile"))
    ]
    sel.rules = [" ".join(r.get("name", "").split()) for r in _children(element, "rules", "rule")]
    sel.categories = [
        " ".join(c.get("name", "").split()) for c in _children(element, "categories", "category")
    ]
    sel.children = [
        _selection(s, f"{path}.selections[{i}]", depth + 1, budget)
        for i, s in enumerate(_children(element, "selections", "selection"))
    ]
    return sel


def _number(element: Element, path: str) -> int:
    """The selection's ``number`` (1 when absent): ASCII digits, at most MAX_SELECTION_NUMBER."""
    text = element.get("number", "1").strip()
    shown = _shown(text)
    if not text.isascii() or not text.isdigit():
        raise RosterError(
            f"{path}: number {shown!r} is not a whole number; expected how many models or weapons "
            f"the selection is, allowed 0 to {MAX_SELECTION_NUMBER}"
        )
    if len(text) > len(str(MAX_SELECTION_NUMBER)) or int(text) > MAX_SELECTION_NUMBER:
        raise RosterError(
            f"{path}: number {shown} is more than one unit may hold; allowed 0 to "
            f"{MAX_SELECTION_NUMBER} (MAX_SELECTION_NUMBER: MAX_MODELS_PER_UNIT {MAX_MODELS_PER_UNIT}, "
            f"MAX_WEAPONS_PER_UNIT {MAX_WEAPONS_PER_UNIT}, {LIMITS_DOC})"
        )
    return int(text)


def _profile(element: Element, path: str) -> Profile:
    chars: dict[str, str] = {}
    for j, c in enumerate(_children(element, "characteristics", "characteristic")):
        attribute = c.get("value")  # BattleScribe 1.x kept the value in an attribute
        value = attribute if attribute is not None else (c.text or "")
        name = c.get("name", "")
        _check_digits(f"{path}.characteristics[{j}]", name, value)
        chars[name] = value
    return Profile(
        name=" ".join(element.get("name", "").replace("\u00a0", " ").split()),
        type_name=(element.get("typeName") or element.get("type") or "").strip(),
        characteristics=chars,
    )


def _check_digits(path: str, name: str, value: str) -> None:
    """A characteristic holding a number longer than any game value, or a digit other than 0-9,
    is refused rather than misread."""
    run = long_number(value)
    if run is not None:
        raise RosterError(
            f"{path}: characteristic {_shown(name)!r} holds a number of {len(run)} digits; expected a "
            f"game value, allowed at most {MAX_NUMBER_DIGITS} digits (MAX_NUMBER_DIGITS, {LIMITS_DOC})"
        )
    foreign = foreign_digit(value)
    if foreign is not None:
        raise RosterError(
            f"{path}: characteristic {_shown(name)!r} holds {foreign!r} (U+{ord(foreign):04X}), a digit "
            "other than 0-9; expected a game value written with the digits 0-9, as BattleScribe and "
            "New Recruit write them"
        )
