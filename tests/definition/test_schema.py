"""client-protocol/schemas/match-definition.json accepts what the server accepts: every example
and the base definitions, in list and map form; and it refuses an unknown key. A small validator
for the keywords the generated schema uses (type, properties, required, additionalProperties,
items, prefixItems, anyOf, enum, $ref)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .bad_definitions import base

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads(
    (ROOT / "client-protocol" / "schemas" / "match-definition.json").read_text()
)
TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def valid(value: Any, schema: dict[str, Any]) -> bool:
    if "$ref" in schema:
        return valid(value, SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[-1]])
    if "anyOf" in schema:
        return any(valid(value, s) for s in schema["anyOf"])
    if "enum" in schema and value not in schema["enum"]:
        return False
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(
            isinstance(value, TYPES[k]) and not (k in ("integer", "number") and isinstance(value, bool))
            for k in kinds
        ):
            return False
    if isinstance(value, dict):
        props = schema.get("properties", {})
        if any(r not in value for r in schema.get("required", [])):
            return False
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                if not valid(item, props[key]):
                    return False
            elif extra is False or (isinstance(extra, dict) and not valid(item, extra)):
                return False
    if isinstance(value, list):
        prefix = schema.get("prefixItems")
        if prefix is not None:
            return len(value) == len(prefix) and all(valid(v, s) for v, s in zip(value, prefix, strict=True))
        items = schema.get("items")
        if isinstance(items, dict):
            return all(valid(v, items) for v in value)
    return True


EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.json") if "actions" not in json.loads(p.read_text()))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_matches_the_schema(path: Path) -> None:
    assert valid(json.loads(path.read_text()), SCHEMA)


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_the_map_form_matches_the_schema(edition: str) -> None:
    doc = base(edition)
    assert valid(doc, SCHEMA)  # the squad's models are a map there
    doc["scenario"]["units"] = {u.pop("id"): u for u in doc["scenario"]["units"]}
    doc["scenario"]["terrain"] = {t.pop("id"): t for t in doc["scenario"]["terrain"]}
    assert valid(doc, SCHEMA)


def test_the_schema_refuses_what_the_server_refuses_by_shape() -> None:
    doc = base()
    doc["actons"] = []
    assert not valid(doc, SCHEMA)
    doc = base()
    doc["scenario"]["units"][0]["kind"] = "tonk"
    assert not valid(doc, SCHEMA)
