"""Rejections are values, not exceptions (docs/architecture.md section 2, The path of one action).

A rejection names the rule that forbids an action, with the measured values, e.g.
``Rejection("out_of_range", "40k7 Shooting", "target 25.3 in away, weapon range 24 in", {...})``.
"""

from __future__ import annotations

import msgspec

Value = int | float | str | bool | None


class Rejection(msgspec.Struct, frozen=True):
    """Why an action was refused: a stable code, the rule reference, a message and the numbers."""

    code: str
    rule: str
    message: str
    values: dict[str, Value] = {}


def reject(code: str, rule: str, message: str, **values: Value) -> Rejection:
    """Build a rejection; floats are rounded to 2 decimals so messages and values agree."""
    rounded = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in values.items()}
    return Rejection(code=code, rule=rule, message=message, values=rounded)
