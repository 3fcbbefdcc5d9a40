"""A bounded cache keyed by object identity, for values computed from immutable objects.

State objects are frozen and the reducer shares every unchanged sub-tree between consecutive
states (match/state.py), so "the same object" means "the same value, already seen": the state
hash (match/hashing.py) and the 40k7 geometry (rules/wh40k7/geo.py) keep what they computed for
an object here and reuse it while the object lives on in later states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """A bounded map from an object's identity to a value computed from the (immutable) object.

    Each entry keeps the object alive, so ``id(obj)`` cannot be reused by another object while
    the entry exists; a hit also checks ``entry[0] is obj``. Two generations bound it: new
    entries go to the young one; when it holds ``size`` entries it becomes the old one (the
    previous old one is dropped); a hit in the old generation moves back to the young one. So
    at most ``2 * size`` entries are kept, and whatever is still in use survives."""

    def __init__(self, size: int) -> None:
        self._size = max(1, size)
        self._young: dict[int, tuple[K, V]] = {}
        self._old: dict[int, tuple[K, V]] = {}

    def get(self, obj: K) -> V | None:
        entry = self._young.get(id(obj))
        if entry is not None:  # the common case first: a hit in the young generation
            return entry[1] if entry[0] is obj else None
        entry = self._old.get(id(obj))
        if entry is None or entry[0] is not obj:
            return None
        return self.put(obj, entry[1])  # back to the young generation

    def get_or_make(self, obj: K, make: Callable[[K], V]) -> V:
        """The value for ``obj``: the kept one, else ``make(obj)``, kept (``get`` and ``put`` in
        one call)."""
        entry = self._young.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        found = self.get(obj)
        return found if found is not None else self.put(obj, make(obj))

    def put(self, obj: K, value: V) -> V:
        young = self._young
        if len(young) >= self._size:
            self._old = young
            young = self._young = {}
        young[id(obj)] = (obj, value)
        return value

    def clear(self) -> None:
        self._young = {}
        self._old = {}

    def __len__(self) -> int:
        return len(self._young) + len(self._old)


class LastOne(Generic[K, V]):
    """A cache of one entry: the value computed for the last object asked about, checked by
    identity (an ``IdentityCache`` of one). For a value asked about again and again for the
    same object, as a fold asks about the units map its consecutive states share until a unit
    changes: one read and one comparison answer it, and nothing builds up to be freed. The
    entry keeps its object alive, so its id cannot be reused; threads may share it (the entry
    is read once and replaced whole)."""

    __slots__ = ("_entry",)

    def __init__(self) -> None:
        self._entry: tuple[K, V] | None = None

    def get(self, obj: K) -> V | None:
        entry = self._entry
        if entry is not None and entry[0] is obj:
            return entry[1]
        return None

    def put(self, obj: K, value: V) -> V:
        self._entry = (obj, value)
        return value

    def get_or_make(self, obj: K, make: Callable[[K], V]) -> V:
        """The value for ``obj``: the kept one when ``obj`` was the last asked about, else
        ``make(obj)``, kept (``get`` and ``put`` in one call)."""
        entry = self._entry
        if entry is not None and entry[0] is obj:
            return entry[1]
        value = make(obj)
        self._entry = (obj, value)
        return value
