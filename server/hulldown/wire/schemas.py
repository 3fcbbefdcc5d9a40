"""JSON Schemas of the wire protocol, generated from the msgspec types.

``python -m hulldown.wire.schemas`` (or ``client-protocol/generate_schemas.py``) writes
``client-protocol/schemas/*.json``, ``client-protocol/openapi.json`` and
``client-protocol/rejection-codes.md`` (:mod:`hulldown.wire.rejection_catalogue`); ``--check`` exits
non-zero when the committed files differ from what the code generates. The tests run the same
comparison, so a change to a protocol type without regenerating fails CI.

Two things msgspec can not know are filled in here: the ``view`` of ``welcome``, ``resync`` and
``replay_state`` is a :class:`MatchState` (typed ``Any`` in the protocol to avoid re-encoding the
cached view text), and the ``ops`` of ``patch`` and ``replay_frame`` are RFC 6902 operations.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect

from ..match.actions import Action
from ..match.definition import MatchDefinition
from ..match.events import Event
from ..match.scenario import CreateMatch
from ..match.state import MatchState
from . import protocol, rejection_catalogue

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DEFS_TEMPLATE = "#/$defs/{name}"

Schema = dict[str, Any]

JSON_PATCH_OPERATION: Schema = {
    "title": "JsonPatchOperation",
    "description": (
        "One RFC 6902 operation. Protocol version 1 servers emit only add, remove and replace; "
        "paths are JSON Pointers (RFC 6901, '~0' = '~', '~1' = '/') into the view, and '-' as the "
        "last token of an add path appends to an array."
    ),
    "type": "object",
    "properties": {
        "op": {"enum": ["add", "remove", "replace"]},
        "path": {"type": "string"},
        "value": {},
    },
    "required": ["op", "path"],
}


@dataclass(frozen=True)
class Document:
    """One schema file: its name, title, root type and description. ``output``: the server
    writes these documents (every field of a struct that does not omit its defaults is always
    present, so it is ``required`` - what code generators need to type it as non-optional)."""

    filename: str
    title: str
    root: Any
    description: str
    output: bool = False


DOCUMENTS: tuple[Document, ...] = (
    Document(
        "client-message.json",
        "ClientMessage",
        protocol.ClientMessage,
        "Every websocket frame a client may send to /matches/{id}/live (tagged by 'type').",
    ),
    Document(
        "server-message.json",
        "ServerMessage",
        protocol.ServerMessage,
        "Every websocket frame the server sends on /matches/{id}/live (tagged by 'type').",
        output=True,
    ),
    Document(
        "replay-client-message.json",
        "ReplayClientMessage",
        protocol.ReplayClientMessage,
        "Every websocket frame a client may send to /matches/{id}/replay (tagged by 'type').",
    ),
    Document(
        "replay-server-message.json",
        "ReplayServerMessage",
        protocol.ReplayServerMessage,
        "Every websocket frame the server sends on /matches/{id}/replay (tagged by 'type').",
        output=True,
    ),
    Document(
        "action.json",
        "Action",
        Action,
        "A player action: the 'action' of an 'act' message (tagged by 'type').",
    ),
    Document(
        "match-definition.json",
        "MatchDefinition",
        MatchDefinition,
        "A match definition: the body of POST /matches, the core of a hulldown simulate file, the "
        "examples/ files (docs/match-definition.md). units, terrain, models and weapons may each be "
        "a list of objects with an 'id' or a map keyed by id (the id may then be left out).",
    ),
    Document(
        "create-match.json",
        "CreateMatch",
        CreateMatch,
        "The earlier form of a match definition (no 'format'): a state dump whose runtime fields "
        "are read as the 'state' of match-definition.json. Still accepted by POST /matches.",
    ),
    Document(
        "match-state.json",
        "MatchState",
        MatchState,
        "The view: the match state every audience sees ('view' of welcome/resync, GET .../state).",
        output=True,
    ),
    Document(
        "event.json",
        "Event",
        Event,
        "One entry of a match's event stream, as GET /matches/{id}/events returns it.",
        output=True,
    ),
)


def _with_views(types: list[Any]) -> list[Any]:
    """``types`` and, where a message among them carries a view (typed ``Any`` in the
    protocol), MatchState: the types a document's definitions come from."""
    with_views = (protocol.ServerMessage, protocol.ReplayServerMessage)
    needs_state = any(t in with_views for t in types) and MatchState not in types
    return [*types, MatchState] if needs_state else list(types)


def components(types: list[Any], ref_template: str) -> tuple[list[Schema], dict[str, Schema]]:
    """Schemas for ``types`` and their shared components, with the protocol's ``Any`` fields
    (``view``, ``ops``) given their real shapes."""
    roots, comps = msgspec.json.schema_components(_with_views(types), ref_template=ref_template)
    kept = list(roots[: len(types)])
    ref: Callable[[str], Schema] = lambda name: {"$ref": ref_template.format(name=name)}  # noqa: E731
    for name in ("Welcome", "Resync", "ReplayState"):
        if name in comps:
            comps[name]["properties"]["view"] = {
                **ref("MatchState"),
                "description": "The full view (a MatchState) as of 'seq'.",
            }
    for name in ("Patch", "ReplayFrame"):
        if name in comps:
            comps[name]["properties"]["ops"] = {"type": "array", "items": ref("JsonPatchOperation")}
            comps["JsonPatchOperation"] = dict(JSON_PATCH_OPERATION)
    return kept, dict(sorted(comps.items()))


# Fields of a match definition that may be a list of objects with an id or a map keyed by id
# (docs/match-definition.md, "Lists or maps"): component -> fields.
LIST_OR_MAP = {"ScenarioDef": ("terrain", "units"), "UnitDef": ("models", "weapons")}


def _lists_or_maps(defs: dict[str, Schema]) -> None:
    """Allow the map form beside the list form; in a map the key is the id, so a map value's
    ``id`` is optional (a ``<Name>InMap`` copy without it when the type requires it)."""
    for component, fields in LIST_OR_MAP.items():
        if component not in defs:
            continue
        for name in fields:
            prop = defs[component]["properties"][name]
            ref: str = prop["items"]["$ref"]
            item = ref.rsplit("/", 1)[-1]
            if "id" in defs[item].get("required", []):
                copy = {**defs[item], "required": [r for r in defs[item]["required"] if r != "id"]}
                copy["title"] = f"{item}InMap"
                defs[f"{item}InMap"] = copy
                ref = DEFS_TEMPLATE.format(name=f"{item}InMap")
            listed = {"type": "array", "items": prop["items"]}
            keyed = {"type": "object", "additionalProperties": {"$ref": ref}}
            defs[component]["properties"][name] = {
                "anyOf": [listed, keyed],
                **({"default": prop["default"]} if "default" in prop else {}),
            }


def _struct_types(roots: list[Any]) -> dict[str, type[msgspec.Struct]]:
    """The msgspec struct classes ``roots`` reach, by name (the names the generator gives
    their definitions); a name two of them share is left out. Only the classes the document
    holds count: a struct of the same name elsewhere in the process (the geometry's ``Mount``
    beside the state's) changes nothing."""
    found: dict[str, set[type[msgspec.Struct]]] = {}
    walked: set[type[msgspec.Struct]] = set()
    pending: list[Any] = list(msgspec.inspect.multi_type_info(roots))
    while pending:
        node = pending.pop()
        if isinstance(node, msgspec.inspect.StructType):
            if node.cls in walked:  # a recursive type: its fields are on their way already
                continue
            walked.add(node.cls)
            found.setdefault(node.cls.__name__, set()).add(node.cls)
            pending.extend(field.type for field in node.fields)
            continue
        for name in ("type", "item_type", "key_type", "value_type"):
            inner = getattr(node, name, None)
            if isinstance(inner, msgspec.inspect.Type):
                pending.append(inner)
        for name in ("types", "item_types"):
            pending.extend(getattr(node, name, None) or ())
    return {name: next(iter(classes)) for name, classes in found.items() if len(classes) == 1}


def _always_present_required(root: Any, defs: dict[str, Schema]) -> None:
    """In a document the server writes, a struct that does not omit its defaults always encodes
    every field: mark them all ``required`` (in property order)."""
    types = _struct_types(_with_views([root]))
    for name, schema in defs.items():
        cls = types.get(name)
        properties = schema.get("properties")
        if cls is None or properties is None or cls.__struct_config__.omit_defaults:
            continue
        schema["required"] = list(properties)


def _inline_root(root: Schema, defs: dict[str, Schema]) -> Schema:
    """A root that is only a ``$ref`` to its own definition becomes that definition (code
    generators such as json-schema-to-typescript cannot start from a bare reference); the
    definition stays in ``$defs`` only when something else refers to it."""
    ref = root.get("$ref")
    if not isinstance(ref, str) or set(root) != {"$ref"}:
        return root
    name = ref.removeprefix("#/$defs/")
    inlined = dict(defs[name])
    del defs[name]
    if ref in json.dumps([defs, inlined]):
        defs[name] = inlined
        return root
    inlined.pop("title", None)
    return inlined


def build_document(doc: Document) -> Schema:
    (root,), defs = components([doc.root], DEFS_TEMPLATE)
    if doc.root is MatchDefinition:
        _lists_or_maps(defs)
        defs = dict(sorted(defs.items()))
    if doc.output:
        _always_present_required(doc.root, defs)
    root = _inline_root(root, defs)
    return {
        "$schema": DIALECT,
        "title": doc.title,
        "description": doc.description,
        "x-protocol-version": protocol.PROTOCOL_VERSION,
        **{k: v for k, v in root.items() if k != "description"},
        "$defs": defs,
    }


def render(document: Schema) -> str:
    """Stable text: two-space indent, keys in generation order, a trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def generated_files() -> dict[str, str]:
    """Relative path (under client-protocol/) -> file text, for every generated file."""
    from ..web.openapi import openapi_document  # the web layer builds on these schemas

    files = {f"schemas/{doc.filename}": render(build_document(doc)) for doc in DOCUMENTS}
    files["openapi.json"] = render(openapi_document())
    files["rejection-codes.md"] = rejection_catalogue.render(rejection_catalogue.catalogue())
    return files


def default_directory() -> Path:
    """``client-protocol/`` of the source checkout this module lives in."""
    return Path(__file__).resolve().parents[3] / "client-protocol"


def differences(directory: Path) -> list[str]:
    """The generated files whose committed copy under ``directory`` is missing or different."""
    stale = []
    for relative, text in generated_files().items():
        path = directory / relative
        if not path.exists() or path.read_text() != text:
            stale.append(relative)
    return stale


def write(directory: Path) -> list[Path]:
    written = []
    for relative, text in generated_files().items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the protocol's JSON Schemas and OpenAPI document.")
    parser.add_argument("--out", type=Path, default=default_directory(), help="the client-protocol directory")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = differences(args.out)
        for relative in stale:
            print(f"stale: {args.out / relative}", file=sys.stderr)
        return 1 if stale else 0
    for path in write(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
