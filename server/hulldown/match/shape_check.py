"""Check decoded JSON against a msgspec type and report every mismatch with its path.

msgspec's own errors stop at the first mismatch and do not list what is allowed; this walker
reads the same type information (``msgspec.inspect``) and reports each unknown key with the known
keys and a did-you-mean, each enum value with the allowed values, each wrong type with what was
expected. Once it finds nothing, ``msgspec.convert`` of the same data cannot fail.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import msgspec.inspect as mi

from .problems import MAX_PROBLEMS, Problem, closest, join

# Extra words for an unknown key, by key (e.g. runtime fields outside ``state``).
Hints = dict[str, str]


def check_shape(data: Any, typ: Any, path: str = "", hints: Hints | None = None) -> list[Problem]:
    problems: list[Problem] = []
    _walk(data, mi.type_info(typ), path, problems, hints or {})
    return problems[:MAX_PROBLEMS]


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _describe(t: mi.Type) -> str:
    match t:
        case mi.IntType():
            return "a whole number"
        case mi.FloatType():
            return "a number"
        case mi.StrType():
            return "a string"
        case mi.BoolType():
            return "true or false"
        case mi.NoneType():
            return "null"
        case mi.LiteralType():
            return "one of " + ", ".join(repr(v) for v in t.values)
        case mi.ListType() | mi.VarTupleType() | mi.SetType() | mi.FrozenSetType():
            return "an array"
        case mi.DictType():
            return "an object"
        case mi.StructType():
            return "an array [x, y]" if t.array_like else "an object"
        case mi.UnionType():
            return " or ".join(_describe(m) for m in t.types)
        case _:
            return "a value"


def _finite(value: float) -> bool:
    """A finite float, or an integer a float can hold (math.isfinite raises OverflowError on an
    integer too large to convert)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _walk(value: Any, t: mi.Type, path: str, out: list[Problem], hints: Hints) -> None:
    if len(out) >= MAX_PROBLEMS:
        return
    match t:
        case mi.AnyType():
            return
        case mi.IntType():
            if not isinstance(value, int) or isinstance(value, bool):
                out.append(Problem(path, f"expected a whole number, got {_kind(value)}"))
        case mi.FloatType():
            if not isinstance(value, int | float) or isinstance(value, bool):
                out.append(Problem(path, f"expected a number, got {_kind(value)}"))
            elif not _finite(value):
                out.append(Problem(path, "expected a finite number (a float: at most about 1.8e308)"))
        case mi.StrType():
            if not isinstance(value, str):
                out.append(Problem(path, f"expected a string, got {_kind(value)}"))
        case mi.BoolType():
            if not isinstance(value, bool):
                out.append(Problem(path, f"expected true or false, got {_kind(value)}"))
        case mi.NoneType():
            if value is not None:
                out.append(Problem(path, f"expected null, got {_kind(value)}"))
        case mi.LiteralType():
            if value not in t.values or isinstance(value, bool):
                allowed = tuple(str(v) for v in t.values)
                shown = repr(value) if isinstance(value, str | int | float) else _kind(value)
                guess = closest(value, allowed) if isinstance(value, str) else None
                out.append(Problem(path, f"invalid value {shown}", allowed=allowed, did_you_mean=guess))
        case mi.ListType() | mi.VarTupleType() | mi.SetType() | mi.FrozenSetType():
            if not isinstance(value, list):
                out.append(Problem(path, f"expected an array, got {_kind(value)}"))
                return
            for i, item in enumerate(value):
                _walk(item, t.item_type, join(path, i), out, hints)
        case mi.DictType():
            if not isinstance(value, dict):
                out.append(Problem(path, f"expected an object, got {_kind(value)}"))
                return
            for key, item in value.items():
                _walk(item, t.value_type, join(path, key), out, hints)
        case mi.StructType():
            _walk_struct(value, t, path, out, hints)
        case mi.UnionType():
            _walk_union(value, t, path, out, hints)
        case _:
            try:
                msgspec.convert(value, t.cls if hasattr(t, "cls") else object)
            except (msgspec.ValidationError, TypeError) as exc:
                out.append(Problem(path, str(exc)))


def _walk_struct(value: Any, t: mi.StructType, path: str, out: list[Problem], hints: Hints) -> None:
    if t.array_like:
        if not isinstance(value, list) or len(value) != len(t.fields):
            out.append(Problem(path, f"expected an array of {len(t.fields)} numbers, got {_kind(value)}"))
            return
        for i, (f, item) in enumerate(zip(t.fields, value, strict=True)):
            _walk(item, f.type, join(path, i), out, hints)
        return
    if not isinstance(value, dict):
        out.append(Problem(path, f"expected an object, got {_kind(value)}"))
        return
    known = {f.encode_name: f for f in t.fields}
    for key in value:
        if key not in known:
            names = tuple(known)
            hint = hints.get(key, "")
            message = f"unknown key {key!r}" + (f": {hint}" if hint else "")
            out.append(
                Problem(join(path, key), message, allowed=names, did_you_mean=closest(str(key), names))
            )
    for name, f in known.items():
        if name in value:
            _walk(value[name], f.type, join(path, name), out, hints)
        elif f.required:
            out.append(Problem(join(path, name), f"missing: expected {_describe(f.type)}"))


def _walk_union(value: Any, t: mi.UnionType, path: str, out: list[Problem], hints: Hints) -> None:
    """Check against the member of the value's JSON kind (``int | None``: a number or null)."""
    for member in t.types:
        if _accepts_kind(value, member):
            _walk(value, member, path, out, hints)
            return
    out.append(Problem(path, f"expected {_describe(t)}, got {_kind(value)}"))


def _accepts_kind(value: Any, t: mi.Type) -> bool:
    match t:
        case mi.NoneType():
            return value is None
        case mi.BoolType():
            return isinstance(value, bool)
        case mi.IntType():
            return isinstance(value, int) and not isinstance(value, bool)
        case mi.FloatType():
            return isinstance(value, int | float) and not isinstance(value, bool)
        case mi.StrType():
            return isinstance(value, str)
        case mi.LiteralType():
            return any(type(v) is type(value) for v in t.values)
        case mi.StructType():
            return isinstance(value, list) if t.array_like else isinstance(value, dict)
        case mi.DictType():
            return isinstance(value, dict)
        case mi.ListType() | mi.VarTupleType() | mi.SetType() | mi.FrozenSetType():
            return isinstance(value, list)
        case mi.AnyType():
            return True
        case _:
            return False
