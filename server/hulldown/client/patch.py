"""RFC 6902 JSON Patch (``add``, ``remove``, ``replace``) over plain JSON data, without copying
what does not change.

:func:`apply_patch` never modifies its input: every container on the path of an operation is
copied once per patch (path copying), everything else is shared with the old document. A patch
that fails part-way therefore leaves the caller's document exactly as it was. Pointers follow
RFC 6901 (``~1`` is ``/``, ``~0`` is ``~``); ``-`` as the last token of an ``add`` path appends
to an array. Protocol version 1 servers emit only these three operations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_INDEX = re.compile(r"0|[1-9][0-9]*")
_ESCAPE = re.compile(r"~(?![01])")


class PatchError(ValueError):
    """An operation that can not be applied to the document (bad path, missing member...)."""


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer (RFC 6901): ``"/a~1b/0"`` -> ``["a/b", "0"]``."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"pointer {pointer!r} must be empty or start with '/'")
    tokens = pointer[1:].split("/")
    for token in tokens:
        if _ESCAPE.search(token):
            raise PatchError(f"pointer {pointer!r} has a '~' not followed by 0 or 1")
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def escape_token(key: str) -> str:
    """The pointer token of an object key (the inverse of the unescaping above)."""
    return key.replace("~", "~0").replace("/", "~1")


def _index(token: str, size: int, *, allow_end: bool, path: str) -> int:
    if not _INDEX.fullmatch(token):
        raise PatchError(f"{path}: {token!r} is not an array index")
    index = int(token)
    limit = size if allow_end else size - 1
    if index > limit:
        raise PatchError(f"{path}: index {index} out of range for an array of {size}")
    return index


class _Patcher:
    """Applies operations to a document, copying each container on a path at most once."""

    def __init__(self, document: Any) -> None:
        self.root = document
        self.owned: set[int] = set()  # ids of containers this patch already copied
        self.keep: list[Any] = []  # the copies themselves, so no id is reused while we run

    def _own(self, value: Any) -> Any:
        if id(value) in self.owned:
            return value
        if isinstance(value, dict):
            copy: Any = dict(value)
        elif isinstance(value, list):
            copy = list(value)
        else:
            return value
        self.owned.add(id(copy))
        self.keep.append(copy)
        return copy

    def _parent(self, tokens: list[str], path: str) -> Any:
        """The (copied) container holding the last token, copying every container on the way."""
        self.root = self._own(self.root)
        node = self.root
        for token in tokens[:-1]:
            if isinstance(node, dict):
                if token not in node:
                    raise PatchError(f"{path}: member {token!r} does not exist")
                child = node[token] = self._own(node[token])
            elif isinstance(node, list):
                i = _index(token, len(node), allow_end=False, path=path)
                child = node[i] = self._own(node[i])
            else:
                raise PatchError(f"{path}: {token!r} is inside a scalar")
            node = child
        if not isinstance(node, dict | list):
            raise PatchError(f"{path}: the parent is not an object or an array")
        return node

    def apply(self, op: Mapping[str, Any]) -> None:
        kind = op.get("op")
        path = op.get("path")
        if not isinstance(path, str):
            raise PatchError(f"operation {op!r} has no string 'path'")
        if kind in ("add", "replace") and "value" not in op:
            raise PatchError(f"{kind} {path}: missing 'value'")
        tokens = parse_pointer(path)
        if kind == "add":
            self._add(tokens, path, op["value"])
        elif kind == "remove":
            self._remove(tokens, path)
        elif kind == "replace":
            self._replace(tokens, path, op["value"])
        else:
            raise PatchError(f"unsupported operation {kind!r} (protocol 1 uses add, remove, replace)")

    def _add(self, tokens: list[str], path: str, value: Any) -> None:
        if not tokens:
            self.root = value
            return
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            parent[last] = value
        elif last == "-":
            parent.append(value)
        else:
            parent.insert(_index(last, len(parent), allow_end=True, path=path), value)

    def _remove(self, tokens: list[str], path: str) -> None:
        if not tokens:
            raise PatchError("remove: can not remove the whole document")
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise PatchError(f"remove {path}: member {last!r} does not exist")
            del parent[last]
        else:
            del parent[_index(last, len(parent), allow_end=False, path=path)]

    def _replace(self, tokens: list[str], path: str, value: Any) -> None:
        if not tokens:
            self.root = value
            return
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise PatchError(f"replace {path}: member {last!r} does not exist")
            parent[last] = value
        else:
            parent[_index(last, len(parent), allow_end=False, path=path)] = value


def apply_patch(document: Any, ops: Iterable[Mapping[str, Any]]) -> Any:
    """The document after ``ops``, sharing every unchanged part with ``document`` (which is never
    modified). Raises :class:`PatchError` and changes nothing if any operation fails."""
    patcher = _Patcher(document)
    for op in ops:
        patcher.apply(op)
    return patcher.root


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON Pointer (KeyError/IndexError-free: raises PatchError)."""
    node = document
    for token in parse_pointer(pointer):
        if isinstance(node, dict):
            if token not in node:
                raise PatchError(f"{pointer}: member {token!r} does not exist")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(token, len(node), allow_end=False, path=pointer)]
        else:
            raise PatchError(f"{pointer}: {token!r} is inside a scalar")
    return node
