"""Memoised geometry for the odds engine (docs/odds.md, "Speed").

The odds engine re-runs the rules core once per sequence of dice, and most of every run is the
same geometry (sight, facings, cover) on the same positions. A function decorated with
:func:`geometry_memo` is a pure function of its arguments; inside :func:`memo_scope` its results
are kept, keyed by the exact msgpack encoding of the arguments, so equal questions are answered
once. Outside a scope (every live match, replay and test of the rules) the decorator only calls
the function. The results kept must be immutable (frozen dataclasses or Structs, tuples, numbers).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import ParamSpec, TypeVar, cast

import msgspec

P = ParamSpec("P")
R = TypeVar("R")
A = TypeVar("A")
B = TypeVar("B")

_TABLE: ContextVar[dict[object, object] | None] = ContextVar("hulldown_geometry_memo", default=None)
# Maps are encoded in insertion order (faster than sorting): two equal maps built in different
# orders only miss the memo.
_encoder = msgspec.msgpack.Encoder()


def geometry_memo(fn: Callable[P, R]) -> Callable[P, R]:
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        table = _TABLE.get()
        if table is None:
            return fn(*args, **kwargs)
        try:
            key = _encoder.encode((name, args, sorted(kwargs.items())))
        except TypeError:  # an argument msgpack cannot encode exactly (a generator...)
            return fn(*args, **kwargs)
        if key in table:
            return cast(R, table[key])
        result = fn(*args, **kwargs)
        table[key] = result
        return result

    return wrapper


def measure_memo(fn: Callable[[A, B], float]) -> Callable[[A, B], float]:
    """:func:`geometry_memo` for a cheap measure of two hashable shapes (frozen Structs,
    tuples of numbers), keyed by the shapes themselves: encoding them would cost about what the
    measure does. Equal shapes (``==``, so ``1 == 1.0`` and ``0.0 == -0.0``) must have equal
    measures. Unhashable shapes are measured through."""

    @functools.wraps(fn)
    def wrapper(a: A, b: B) -> float:
        table = _TABLE.get()
        if table is None:
            return fn(a, b)
        key = (fn, a, b)
        try:
            known = table.get(key)
        except TypeError:  # a list of vertices, a shapely geometry...
            return fn(a, b)
        if known is None:
            known = table[key] = fn(a, b)
        return cast(float, known)

    return wrapper


@contextlib.contextmanager
def memo_scope() -> Iterator[None]:
    """Keep the results of memoised geometry until the scope ends (one odds answer)."""
    token = _TABLE.set({})
    try:
        yield
    finally:
        _TABLE.reset(token)
