"""Random values of 40k11 (40k11 core rules [ext], Random characteristics), shared by attacks
(attacks.py) and Deadly Demise (demise.py)."""

from __future__ import annotations

from ...match.context import ApplyContext
from ...match.dice_text import DiceExpr
from ..dice import d3_face
from .constants import MIN_RANDOM_VALUE


def roll_dice(expr: DiceExpr, ctx: ApplyContext, purpose: str) -> int:
    """40k11 core rules [ext], Random characteristics: roll ``expr`` (a D3 is a D6 halved, rounded
    up: docs/rules-notes.md, Dice); never below MIN_RANDOM_VALUE [decided]."""
    total = expr.bonus
    for _ in range(expr.count):
        die = ctx.roll(purpose, f"D{expr.sides}")
        total += d3_face(die) if expr.sides == 3 else die
    return max(MIN_RANDOM_VALUE, total)
