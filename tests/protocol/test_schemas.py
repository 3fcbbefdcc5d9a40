"""The committed JSON Schemas and OpenAPI document are exactly what the code generates
(the generated files client-protocol/SPEC.md lists): a test fails when they differ from the code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hulldown.match.actions import Action
from hulldown.wire import protocol, schemas

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DIR = ROOT / "client-protocol"


def test_committed_schemas_match_the_code() -> None:
    stale = schemas.differences(PROTOCOL_DIR)
    assert stale == [], (
        f"client-protocol files differ from the msgspec types: {stale}; "
        "run `python -m hulldown.wire.schemas` and commit the result"
    )


def test_generator_script_check_mode_agrees() -> None:
    result = subprocess.run(
        [sys.executable, str(PROTOCOL_DIR / "generate_schemas.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_check_mode_reports_a_stale_file(tmp_path: Path) -> None:
    schemas.write(tmp_path)
    assert schemas.differences(tmp_path) == []
    target = tmp_path / "schemas" / "action.json"
    target.write_text(target.read_text().replace('"move"', '"teleport"'))
    assert schemas.differences(tmp_path) == ["schemas/action.json"]
    assert schemas.main(["--out", str(tmp_path), "--check"]) == 1


def _tags(union: Any) -> set[str]:
    return {t.__struct_config__.tag for t in union.__args__}


def _load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((PROTOCOL_DIR / "schemas" / name).read_text())
    return document


@pytest.mark.parametrize(
    ("filename", "union"),
    [
        ("client-message.json", protocol.ClientMessage),
        ("server-message.json", protocol.ServerMessage),
        ("action.json", Action),
        ("replay-client-message.json", protocol.ReplayClientMessage),
        ("replay-server-message.json", protocol.ReplayServerMessage),
    ],
)
def test_every_message_type_is_in_its_schema(filename: str, union: Any) -> None:
    document = _load(filename)
    assert set(document["discriminator"]["mapping"]) == _tags(union)
    assert document["$schema"] == schemas.DIALECT


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


@pytest.mark.parametrize("doc", schemas.DOCUMENTS, ids=lambda d: d.filename)
def test_every_reference_resolves(doc: schemas.Document) -> None:
    document = _load(doc.filename)
    refs = _refs(document)
    assert refs
    for ref in refs:
        assert ref.startswith("#/$defs/"), ref
        assert ref.removeprefix("#/$defs/") in document["$defs"], ref


def test_welcome_view_and_patch_ops_have_their_real_shapes() -> None:
    defs = _load("server-message.json")["$defs"]
    assert defs["Welcome"]["properties"]["view"]["$ref"] == "#/$defs/MatchState"
    assert defs["Resync"]["properties"]["view"]["$ref"] == "#/$defs/MatchState"
    assert defs["Patch"]["properties"]["ops"]["items"] == {"$ref": "#/$defs/JsonPatchOperation"}
    assert defs["JsonPatchOperation"]["properties"]["op"]["enum"] == ["add", "remove", "replace"]
    assert "units" in defs["MatchState"]["properties"]
    replay = _load("replay-server-message.json")["$defs"]
    assert replay["ReplayState"]["properties"]["view"]["$ref"] == "#/$defs/MatchState"
    assert replay["ReplayFrame"]["properties"]["ops"]["items"] == {"$ref": "#/$defs/JsonPatchOperation"}


def test_schema_required_fields_are_what_msgspec_requires() -> None:
    """A message built with only the schema's required fields decodes; one missing any fails."""
    act = _load("client-message.json")["$defs"]["Act"]
    assert act["required"] == ["type", "action_id", "action"]
    minimal = {"type": "act", "action_id": "x", "action": {"type": "end_phase"}}
    assert isinstance(protocol.client_decoder.decode(json.dumps(minimal)), protocol.Act)
    for field in act["required"]:
        broken = {k: v for k, v in minimal.items() if k != field}
        with pytest.raises(msgspec.ValidationError):
            protocol.client_decoder.decode(json.dumps(broken))


def test_a_struct_of_the_same_name_elsewhere_changes_no_document() -> None:
    """The documents depend on the types they hold only: a struct named like one of the view's
    (the geometry's Mount, say, beside the state's Mount) leaves every field of the view's
    struct required, as the server always writes it."""
    before = {doc.filename: schemas.build_document(doc) for doc in schemas.DOCUMENTS}

    class Battlefield(msgspec.Struct):  # the view's Battlefield has width and height
        other: int = 0

    after = {doc.filename: schemas.build_document(doc) for doc in schemas.DOCUMENTS}
    assert after == before
    state = after["match-state.json"]["$defs"]["Battlefield"]
    assert state["required"] == ["width", "height"]
