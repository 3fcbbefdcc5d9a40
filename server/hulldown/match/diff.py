"""RFC 6902 JSON Patch between two states, walking only what changed
(docs/architecture.md section 4).

State is immutable with structural sharing, so an unchanged sub-tree is the *same object* in
both states: the walk skips it by identity and costs O(change), not O(state). Paths follow the
JSON produced by ``msgspec.to_builtins`` for the same structs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import msgspec

Op = dict[str, Any]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _json(value: Any) -> Any:
    return msgspec.to_builtins(value)


_Walk = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_walks: dict[type, _Walk | None] = {}


def _struct_walk(kind: type) -> _Walk | None:
    """A struct type's path keys (its escaped field names, or indexes when it encodes as an
    array) and a getter of all its fields at once, worked out once per type. None for a type
    encoded without the fields that hold their defaults (``omit_defaults``: the mission's
    definition, an answer): a field joins or leaves its JSON object as it stops or starts
    holding its default, which a walk of the fields cannot tell."""
    try:
        return _walks[kind]
    except KeyError:
        pass
    config = kind.__struct_config__  # type: ignore[attr-defined]
    found: _Walk | None = None
    if not config.omit_defaults:
        fields: tuple[str, ...] = kind.__struct_fields__  # type: ignore[attr-defined]
        keys = tuple(str(i) if config.array_like else _escape(f) for i, f in enumerate(fields))
        if len(fields) == 1:
            (only,) = fields
            found = keys, lambda value: (getattr(value, only),)
        else:
            found = keys, operator.attrgetter(*fields) if fields else (lambda value: ())
    _walks[kind] = found
    return found


def diff(old: Any, new: Any, path: str = "") -> list[Op]:
    """The JSON Patch that turns ``to_builtins(old)`` into ``to_builtins(new)``."""
    ops: list[Op] = []
    _diff(old, new, path, ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if old is new:
        return
    kind, other = type(old), type(new)
    if kind in _SCALARS and other in _SCALARS:  # most nodes a patch reaches: two plain values
        if old != new or kind is not other:
            ops.append({"op": "replace", "path": path, "value": _json(new)})
        return
    if isinstance(old, msgspec.Struct) and kind is other:
        walk = _struct_walk(kind)
        if walk is None:  # diff the JSON objects the two encode to
            _diff_dict(_json(old), _json(new), path, ops)
            return
        keys, fields_of = walk
        for key, a, b in zip(keys, fields_of(old), fields_of(new), strict=True):
            if a is not b:
                _diff(a, b, f"{path}/{key}", ops)
        return
    if isinstance(old, dict) and isinstance(new, dict):
        _diff_dict(old, new, path, ops)
        return
    if isinstance(old, tuple | list) and isinstance(new, tuple | list):
        _diff_sequence(old, new, path, ops)
        return
    if old != new or kind is not other:
        ops.append({"op": "replace", "path": path, "value": _json(new)})


# Types whose values are compared, never walked.
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _diff_dict(old: dict[Any, Any], new: dict[Any, Any], path: str, ops: list[Op]) -> None:
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": f"{path}/{_escape(str(key))}"})
    for key, value in new.items():
        sub = f"{path}/{_escape(str(key))}"
        if key not in old:
            ops.append({"op": "add", "path": sub, "value": _json(value)})
        else:
            before = old[key]
            if before is not value:
                _diff(before, value, sub, ops)


def _diff_sequence(
    old: tuple[Any, ...] | list[Any], new: tuple[Any, ...] | list[Any], path: str, ops: list[Op]
) -> None:
    """Sequences: a window that dropped items at the front and/or appended at the end (the
    combat log) becomes removes of index 0 and appends; equal lengths diff item by item;
    anything else is replaced whole."""
    n_old, n_new = len(old), len(new)
    if n_old == n_new and _same_items(old, new):
        return
    shift = _window_shift(old, new)
    if shift is not None and (shift < n_old or n_old == 0):
        for _ in range(shift):
            ops.append({"op": "remove", "path": f"{path}/0"})
        for value in new[n_old - shift :]:
            ops.append({"op": "add", "path": f"{path}/-", "value": _json(value)})
        return
    if n_old == n_new and n_old and _same_kind(old[0], new[0]):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            if a is not b:
                _diff(a, b, f"{path}/{index}", ops)
        return
    ops.append({"op": "replace", "path": path, "value": _json(new)})


def _same_kind(a: Any, b: Any) -> bool:
    return isinstance(a, msgspec.Struct | dict | list | tuple) and type(a) is type(b)


def _same_items(a: tuple[Any, ...] | list[Any], b: tuple[Any, ...] | list[Any]) -> bool:
    """Equal lengths, and each item of ``a`` is (or equals) the one of ``b`` at its index. Two
    tuples (or two lists) compare so in C: sequence equality tests identity before ``==``."""
    if type(a) is type(b):
        return a == b
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


def _window_shift(old: tuple[Any, ...] | list[Any], new: tuple[Any, ...] | list[Any]) -> int | None:
    """How many items dropped from the front if ``new`` is ``old[k:]`` followed by new items."""
    if not old:
        return 0
    if not new:
        return None
    try:
        k = old.index(new[0])  # the first item that is (or equals) it, as the comparisons below
    except ValueError:
        return None
    kept = len(old) - k
    if kept <= len(new) and _same_items(old[k:], new[:kept]):
        return k
    return None
