"""Bounds on what one action may ask of the rules (docs/limits-and-outages.md).

Every edition's rules iterate over an action's waypoints, positions and fire orders and build
geometry from its numbers; without bounds one frame could cost seconds of CPU (a move through
thousands of waypoints) or poison the geometry (a heading of 1e30, a coordinate of 1e300). These
checks run before any rule does, are the same for every edition, and refuse with a rejection that
names the field, the value and what is allowed. Pure.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import msgspec
import msgspec.inspect

from .actions import Action, Decide, Disembark, Move, Shoot
from .rejection import Rejection, reject

LIMITS_RULE = "docs/limits-and-outages.md"

MAX_WAYPOINTS = 8  # waypoints in one Move.path (a bend every inch or two of a move is plenty)
MAX_POSITIONS = 64  # model end positions in one Move or Disembark
MAX_FIRE_ORDERS = 64  # weapons fired by one Shoot
MAX_COORDINATE = 10_000.0  # inches: |x| and |y| of any point in an action
MAX_HEADING = 360.0  # degrees: headings are given in -360 .. 360
_HEADING_FIELDS = frozenset({"heading"})


def check_bounds(action: Action) -> Rejection | None:
    """The first bound ``action`` breaks, as a rejection; None when it is within every bound."""
    counted = _counts(action)
    if counted is not None:
        return counted
    if not _may_hold_floats(type(action)):
        return None
    for where, value in _numbers(msgspec.to_builtins(action), ""):
        field = where.rsplit(".", 1)[-1].split("[", 1)[0]
        limit = MAX_HEADING if field in _HEADING_FIELDS else MAX_COORDINATE
        if not math.isfinite(value) or abs(value) > limit:
            return reject(
                "number_out_of_range",
                LIMITS_RULE,
                f"{where} is {value}: it must be a finite number in -{limit:g} .. {limit:g}",
                field=where,
                value=value if math.isfinite(value) else str(value),
                max=limit,
            )
    return None


def _counts(action: Action) -> Rejection | None:
    if isinstance(action, Move) and len(action.path) > MAX_WAYPOINTS:
        return reject(
            "too_many_waypoints",
            LIMITS_RULE,
            f"a move may have at most {MAX_WAYPOINTS} waypoints, this one has {len(action.path)}",
            waypoints=len(action.path),
            max=MAX_WAYPOINTS,
        )
    if isinstance(action, Move | Disembark) and len(action.positions) > MAX_POSITIONS:
        return reject(
            "too_many_positions",
            LIMITS_RULE,
            f"at most {MAX_POSITIONS} model positions per action, this one has {len(action.positions)}",
            positions=len(action.positions),
            max=MAX_POSITIONS,
        )
    if isinstance(action, Decide) and len(action.place) > MAX_POSITIONS:
        return reject(
            "too_many_positions",
            LIMITS_RULE,
            f"at most {MAX_POSITIONS} model positions per action, this one has {len(action.place)}",
            positions=len(action.place),
            max=MAX_POSITIONS,
        )
    if isinstance(action, Shoot) and len(action.fire) > MAX_FIRE_ORDERS:
        return reject(
            "too_many_fire_orders",
            LIMITS_RULE,
            f"a shot may fire at most {MAX_FIRE_ORDERS} weapons, this one fires {len(action.fire)}",
            fire_orders=len(action.fire),
            max=MAX_FIRE_ORDERS,
        )
    return None


# Field types that never hold a float (the bounds only look at floats).
_NO_FLOATS = (
    msgspec.inspect.StrType,
    msgspec.inspect.IntType,
    msgspec.inspect.BoolType,
    msgspec.inspect.LiteralType,
    msgspec.inspect.NoneType,
)


@functools.cache
def _may_hold_floats(kind: type) -> bool:
    """Whether an action of type ``kind`` can carry a float anywhere (worked out once per type
    from its fields: ``end_phase`` and the like have none to walk)."""
    info = msgspec.inspect.type_info(kind)
    if not isinstance(info, msgspec.inspect.StructType):
        return True
    return any(not isinstance(f.type, _NO_FLOATS) for f in info.fields)


def _numbers(value: object, where: str) -> Iterator[tuple[str, float]]:
    """Every float in a decoded action, with its path (``path[2][0]``, ``heading``)."""
    if isinstance(value, bool):
        return
    if isinstance(value, float):
        yield where.lstrip("."), value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{where}[{i}]")
