"""The schemas are codegen-friendly (client-protocol/SPEC.md, "TypeScript declarations"): a
document the server writes marks every always-present field ``required`` - and the server does
write every such field: each recorded server frame (transcripts) and a live view satisfy the
``required`` lists of their schema, recursively. Roots are definitions, not bare references."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hulldown.wire import schemas

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DIR = ROOT / "client-protocol"


def _load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((PROTOCOL_DIR / "schemas" / name).read_text())
    return document


def _missing(schema: dict[str, Any], value: Any, defs: dict[str, Any], path: str) -> list[str]:
    """Paths where ``value`` lacks a field its schema requires (only ``required`` is checked,
    through $ref, anyOf/oneOf, properties, additionalProperties and items)."""
    if "$ref" in schema:
        return _missing(defs[schema["$ref"].removeprefix("#/$defs/")], value, defs, path)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [
                _missing(option, value, defs, path) for option in schema[key] if _fits(option, value, defs)
            ]
            return min(options, key=len) if options else []
    problems: list[str] = []
    if isinstance(value, dict):
        problems += [f"{path}/{name}" for name in schema.get("required", []) if name not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                problems += _missing(sub, item, defs, f"{path}/{name}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problems += _missing(schema["items"], item, defs, f"{path}/{i}")
    return problems


def _fits(schema: dict[str, Any], value: Any, defs: dict[str, Any]) -> bool:
    """Could ``value`` be an instance of this alternative (by JSON type and tag)?"""
    if "$ref" in schema:
        return _fits(defs[schema["$ref"].removeprefix("#/$defs/")], value, defs)
    kind = schema.get("type")
    if kind == "null":
        return value is None
    if kind == "object" or "properties" in schema:
        tag = schema.get("properties", {}).get("type", {}).get("enum")
        return isinstance(value, dict) and (tag is None or value.get("type") in tag)
    if kind == "array":
        return isinstance(value, list)
    return value is not None and not isinstance(value, dict | list)


def _server_frames() -> list[dict[str, Any]]:
    frames = []
    for path in sorted((PROTOCOL_DIR / "transcripts").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record.get("dir") == "recv":
                frames.append(record["frame"])
    return frames


def test_output_documents_require_every_field_a_struct_always_encodes() -> None:
    defs = _load("server-message.json")["$defs"]
    assert defs["Welcome"]["required"] == [
        "type",
        "match_id",
        "role",
        "seq",
        "view",
        "protocol",
        "delay_events",
        "delay_seconds",
        "delayed",
    ]
    assert "statuses" in defs["Unit"]["required"] and "hp" in defs["Unit"]["required"]
    # Actions omit their defaults when encoded (events): those stay optional.
    assert "kind" not in _load("event.json")["$defs"]["Move"]["required"]
    # Input documents keep defaults optional: a client may leave them out.
    assert _load("client-message.json")["$defs"]["Hello"]["required"] == ["type"]
    assert "statuses" not in _load("create-match.json")["$defs"]["Unit"]["required"]


def test_roots_are_definitions_not_bare_references() -> None:
    for doc in schemas.DOCUMENTS:
        document = _load(doc.filename)
        assert "$ref" not in document, doc.filename
        assert "properties" in document or "anyOf" in document or "oneOf" in document, doc.filename
    state = _load("match-state.json")
    assert "units" in state["required"] and "MatchState" not in state["$defs"]


def test_every_recorded_server_frame_has_every_required_field() -> None:
    document = _load("server-message.json")
    frames = _server_frames()
    assert {f["type"] for f in frames} >= {"welcome", "patch", "ack", "rejected", "error", "pong"}
    for frame in frames:
        assert _missing(document, frame, document["$defs"], "") == [], frame["type"]


def test_the_checker_sees_a_missing_field() -> None:
    document = _load("server-message.json")
    welcome = next(f for f in _server_frames() if f["type"] == "welcome")
    broken = json.loads(json.dumps(welcome))
    del broken["view"]["units"]["predator-1"]["statuses"]
    assert _missing(document, broken, document["$defs"], "") == ["/view/units/predator-1/statuses"]
