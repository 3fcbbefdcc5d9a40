"""Reading a roster file safely into a small tree of selections.

``.rosz`` is a zip with one ``.ros`` entry; its expanded size is bounded (zip bombs). The XML is
parsed by defusedxml, which refuses DTDs, entity declarations and external references (billion
laughs, external entities) instead of expanding them. Element names are read without their
namespace: BattleScribe's ``rosterSchema`` namespace, or none.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

MAX_ROSTER_BYTES = 4_000_000  # expanded .ros text; real 2,500-point lists are ~200 KB
MAX_ZIP_ENTRIES = 8
MAX_SELECTIONS = 5_000


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
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as exc:
            raise RosterError(f"not a readable .rosz archive: {exc}") from exc
        entries = [i for i in archive.infolist() if not i.is_dir()]
        if len(entries) > MAX_ZIP_ENTRIES:
            raise RosterError(f"a .rosz holds one roster, this archive has {len(entries)} entries")
        ros = [i for i in entries if i.filename.lower().endswith(".ros")] or entries[:1]
        if len(ros) != 1:
            raise RosterError("a .rosz must hold exactly one .ros entry")
        entry = ros[0]
        if entry.file_size > MAX_ROSTER_BYTES:
            raise RosterError(f"the roster expands to {entry.file_size} bytes, over {MAX_ROSTER_BYTES}")
        with archive.open(entry) as stream:
            text = stream.read(MAX_ROSTER_BYTES + 1)
        if len(text) > MAX_ROSTER_BYTES:
            raise RosterError(f"the roster expands to more than {MAX_ROSTER_BYTES} bytes")
        return text
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster is {len(data)} bytes, over {MAX_ROSTER_BYTES}")
    return data


def parse_roster(data: bytes) -> Roster:
    """Parse ``.ros`` / ``.rosz`` bytes; hostile XML and anything that is not a roster raise
    :class:`RosterError`."""
    text = roster_text(data)
    try:
        root = SafeET.fromstring(text, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise RosterError(f"refused: the XML declares a DTD or entities ({type(exc).__name__})") from exc
    except SafeET.ParseError as exc:
        raise RosterError(f"not well-formed XML: {exc}") from exc
    if _local(root.tag) != "roster":
        raise RosterError(f"not a roster: the root element is <{_local(root.tag)}>, expected <roster>")
    if root.find(_child("forces")) is None and root.get("points") is not None:
        raise RosterError(
            "a BattleScribe 1.x roster (no <forces>): save it again with BattleScribe 2 or New Recruit"
        )
    counter = [0]
    forces = [_force(f, f"forces[{i}]", counter) for i, f in enumerate(_children(root, "forces", "force"))]
    return Roster(
        name=root.get("name", ""),
        game_system_id=root.get("gameSystemId", ""),
        game_system_name=root.get("gameSystemName", ""),
        forces=forces,
    )


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


def _force(element: Element, path: str, counter: list[int]) -> Force:
    name = " ".join(element.get("name", "").split())
    selections = [
        _selection(s, f"{path}.selections[{i}]", counter)
        for i, s in enumerate(_children(element, "selections", "selection"))
    ]
    forces = [
        _force(f, f"{path}.forces[{i}]", counter) for i, f in enumerate(_children(element, "forces", "force"))
    ]
    return Force(name=name, path=path, selections=selections, forces=forces)


def _selection(element: Element, path: str, counter: list[int]) -> Selection:
    counter[0] += 1
    if counter[0] > MAX_SELECTIONS:
        raise RosterError(f"more than {MAX_SELECTIONS} selections")
    try:
        number = int(element.get("number", "1"))
    except ValueError:
        number = 1
    sel = Selection(
        id=element.get("id", ""),
        name=" ".join(element.get("name", "").replace("\u00a0", " ").split()),
        type=element.get("type", ""),
        number=max(number, 0),
        path=path,
    )
    for p in _children(element, "profiles", "profile"):
        chars: dict[str, str] = {}
        for c in _children(p, "characteristics", "characteristic"):
            attribute = c.get("value")  # BattleScribe 1.x kept the value in an attribute
            chars[c.get("name", "")] = attribute if attribute is not None else (c.text or "")
        sel.profiles.append(
            Profile(
                name=" ".join(p.get("name", "").replace("\u00a0", " ").split()),
                type_name=(p.get("typeName") or p.get("type") or "").strip(),
                characteristics=chars,
            )
        )
    sel.rules = [" ".join(r.get("name", "").split()) for r in _children(element, "rules", "rule")]
    sel.categories = [
        " ".join(c.get("name", "").split()) for c in _children(element, "categories", "category")
    ]
    sel.children = [
        _selection(s, f"{path}.selections[{i}]", counter)
        for i, s in enumerate(_children(element, "selections", "selection"))
    ]
    return sel
