"""The client's JSON Patch applier (RFC 6902 add/remove/replace, RFC 6901 pointers), checked
against the RFC's examples, against the third-party ``jsonpatch`` library on random patches, and
on the server's own diffs of real match states."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch
import msgspec
import pytest

from hulldown.client.patch import PatchError, apply_patch, escape_token, parse_pointer, resolve
from hulldown.match.actions import EndPhase, Move, Pivot
from hulldown.match.diff import diff
from hulldown.match.events import Event
from hulldown.match.reducer import evolve
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState, Point
from hulldown.rules.dice import FixedDice
from tests.scenarios import duel


def test_rfc6902_appendix_a_examples() -> None:
    # A.1 adding an object member, A.2 adding an array element, A.3 removing an object member,
    # A.4 removing an array element, A.5 replacing a value, A.10 adding a nested member,
    # A.16 adding an array value.
    assert apply_patch({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}]) == {
        "baz": "qux",
        "foo": "bar",
    }
    assert apply_patch({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}]) == {
        "foo": ["bar", "qux", "baz"]
    }
    assert apply_patch({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}]) == {"foo": "bar"}
    assert apply_patch({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}]) == {
        "foo": ["bar", "baz"]
    }
    assert apply_patch({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}]) == {
        "baz": "boo",
        "foo": "bar",
    }
    assert apply_patch({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}]) == {
        "foo": "bar",
        "child": {"grandchild": {}},
    }
    assert apply_patch({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]) == {
        "foo": ["bar", ["abc", "def"]]
    }


def test_pointer_escapes_rfc6901() -> None:
    assert parse_pointer("") == []
    assert parse_pointer("/a~1b/m~0n/~01") == ["a/b", "m~n", "~1"]
    assert escape_token("a/b~c") == "a~1b~0c"
    doc = {"a/b": {"m~n": 1}, "": {"": 2}}
    assert resolve(doc, "/a~1b/m~0n") == 1
    assert resolve(doc, "//") == 2
    patched = apply_patch(doc, [{"op": "replace", "path": "/a~1b/m~0n", "value": 5}])
    assert patched["a/b"]["m~n"] == 5
    with pytest.raises(PatchError):
        parse_pointer("/bad~2escape")
    with pytest.raises(PatchError):
        parse_pointer("no-slash")


def test_whole_document_add_and_replace() -> None:
    assert apply_patch({"a": 1}, [{"op": "replace", "path": "", "value": [1]}]) == [1]
    assert apply_patch({"a": 1}, [{"op": "add", "path": "", "value": {"b": 2}}]) == {"b": 2}


@pytest.mark.parametrize(
    "op",
    [
        {"op": "remove", "path": "/missing"},
        {"op": "replace", "path": "/missing", "value": 1},
        {"op": "add", "path": "/list/9", "value": 1},
        {"op": "add", "path": "/list/01", "value": 1},
        {"op": "remove", "path": "/list/-"},
        {"op": "replace", "path": "/list/3", "value": 1},
        {"op": "add", "path": "/scalar/x", "value": 1},
        {"op": "add", "path": "/missing/x", "value": 1},
        {"op": "add", "path": "/list", "value": 1, "extra": 0} | {"op": "move"},
        {"op": "add", "path": "/x"},
        {"op": "remove", "path": ""},
    ],
)
def test_bad_operations_fail_and_change_nothing(op: dict[str, Any]) -> None:
    doc = {"list": [1, 2, 3], "scalar": 4, "deep": {"k": [0]}}
    before = copy.deepcopy(doc)
    ops = [{"op": "replace", "path": "/deep/k/0", "value": 9}, op]
    with pytest.raises(PatchError):
        apply_patch(doc, ops)
    assert doc == before


def test_unchanged_parts_are_shared_and_the_input_is_untouched() -> None:
    doc = {"units": {"a": {"hp": 3, "models": {"m": {"pos": [1, 2]}}}, "b": {"hp": 3}}, "log": [1, 2]}
    before = copy.deepcopy(doc)
    new = apply_patch(
        doc,
        [
            {"op": "replace", "path": "/units/a/hp", "value": 2},
            {"op": "replace", "path": "/units/a/models/m/pos/0", "value": 5},
            {"op": "add", "path": "/log/-", "value": 3},
            {"op": "remove", "path": "/log/0"},
        ],
    )
    assert doc == before
    assert new["units"]["a"]["hp"] == 2 and new["units"]["a"]["models"]["m"]["pos"] == [5, 2]
    assert new["log"] == [2, 3]
    assert new["units"]["b"] is doc["units"]["b"]  # untouched subtree shared
    assert new["units"]["a"] is not doc["units"]["a"]


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(5 if depth < 3 else 3)
    if kind == 0:
        return rng.randrange(100)
    if kind == 1:
        return rng.choice(["x", "a/b", "m~n", "", None, True])
    if kind == 2:
        return rng.random()
    if kind == 3:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice(["k", "a/b", "~", "x~1", "z"]) + str(i): _random_value(rng, depth + 1)
        for i in range(rng.randrange(4))
    }


def _containers(doc: Any, path: str = "") -> list[tuple[str, Any]]:
    found = [(path, doc)]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _containers(value, f"{path}/{escape_token(key)}")
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _containers(value, f"{path}/{index}")
    return found


def _random_op(rng: random.Random, doc: Any) -> dict[str, Any]:
    """A valid add/remove/replace on ``doc``."""
    candidates = [(p, v) for p, v in _containers(doc) if isinstance(v, dict | list)]
    path, node = rng.choice(candidates)
    kind = rng.choice(["add", "remove", "replace"])
    if isinstance(node, dict):
        if kind != "add" and node:
            key = rng.choice(list(node))
        else:
            kind = "add"
            key = rng.choice(["new", "a/b", "~t", "k0"]) + str(rng.randrange(3))
        token = escape_token(key)
    else:
        if kind != "add" and node:
            token = str(rng.randrange(len(node)))
        else:
            kind = "add"
            token = rng.choice(["-", str(rng.randrange(len(node) + 1))])
    op: dict[str, Any] = {"op": kind, "path": f"{path}/{token}"}
    if kind != "remove":
        op["value"] = _random_value(rng, 1)
    return op


def test_random_patches_agree_with_the_jsonpatch_library() -> None:
    rng = random.Random(20240607)
    for _ in range(400):
        doc = {"root": _random_value(rng, 0), "list": [1, 2], "map": {"a": {"b": [0]}}}
        for _ in range(rng.randrange(1, 4)):
            frozen = json.dumps(doc, sort_keys=True)
            ops = []
            shadow = doc
            for _ in range(rng.randrange(1, 6)):
                op = _random_op(rng, shadow)
                ops.append(op)
                shadow = jsonpatch.apply_patch(shadow, [op])
            ours = apply_patch(doc, ops)
            theirs = jsonpatch.apply_patch(doc, ops)
            assert ours == theirs, ops
            assert json.dumps(doc, sort_keys=True) == frozen  # input untouched
            doc = ours


def _wire(state: MatchState) -> Any:
    """The view as a client holds it: the JSON the server sends, decoded."""
    return json.loads(msgspec.json.encode(state))


def test_server_diffs_of_real_states_apply_exactly() -> None:
    request = duel()
    created = match_created(request.edition, request.scenario, request.options, "c0mm1t")
    state = evolve(
        MatchState(match_id="m", edition="40k7"), Event(1, 0.0, "system", "create", created), FixedDice([])
    )
    view = _wire(state)
    actions = [
        ("a", Move(unit="predator-1", path=(Point(14.0, 24.0),), heading=30.0)),
        ("a", EndPhase()),
        ("a", EndPhase()),
        ("a", EndPhase()),
        ("b", Pivot(unit="rhino-1", heading=90.0)),
    ]
    for seq, (side, action) in enumerate(actions, start=2):
        after = evolve(state, Event(seq, 0.0, side, f"x{seq}", action), FixedDice([4] * 20))
        ops = json.loads(msgspec.json.encode(diff(state, after)))  # as sent on the wire
        assert ops, f"no change at seq {seq}"
        view = apply_patch(view, ops)
        assert view == _wire(after)
        state = after
