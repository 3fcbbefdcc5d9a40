"""Dice helpers on top of ``ApplyContext.roll``: every die is recorded with purpose and target.

Scatter with D6 dice only [decided, docs/rules-notes.md, Dice: all dice are D6]: the scatter die is a D6 whose
1-2 show "Hit" (the Hit symbol is on 2 of the 6 faces of the real scatter die); the direction is
two more D6, ``(d1 - 1) * 60 + (d2 - 1) * 10`` degrees counter-clockwise from +x (36 directions,
10 degrees apart).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ...match.context import ApplyContext
from ..dice import d3_face

SCATTER_HIT_FACES = (1, 2)
SCATTER_MAJOR_STEP = 60.0
SCATTER_MINOR_STEP = 10.0


def judge(need: int, yes: str = "pass", no: str = "fail") -> Callable[[int], str]:
    """A log judge: ``yes`` when the face reaches ``need``."""

    def outcome(face: int) -> str:
        return yes if face >= need else no

    return outcome


def d6(ctx: ApplyContext, purpose: str, target: str = "", need: int | None = None) -> int:
    """One D6; with ``need`` the log judges it "pass" (>= need) or "fail"."""
    if need is None:
        return ctx.roll(purpose, target)
    return ctx.roll(purpose, target or f"{need}+", lambda v: "pass" if v >= need else "fail")


def dice(ctx: ApplyContext, n: int, purpose: str, target: str = "") -> list[int]:
    return [ctx.roll(purpose, target) for _ in range(n)]


def d3(ctx: ApplyContext, purpose: str) -> int:
    """D3 = ceil(D6 / 2) (docs/rules-notes.md, All editions, Dice)."""
    return d3_face(ctx.roll(purpose, "D3"))


def two_d6(ctx: ApplyContext, purpose: str, target: str = "") -> tuple[int, int]:
    return ctx.roll(purpose, target), ctx.roll(purpose, target)


def random_index(ctx: ApplyContext, n: int, purpose: str) -> int:
    """A uniformly random index in [0, n) from D6s by rejection sampling (n <= 36; beyond, the
    first 36): a face beyond the choices is re-rolled (40k7 General Principles, Randomising;
    docs/rules-notes.md, Dice). Drawn through ``ctx.uniform``: the odds engine takes the choice
    itself, 1 / n each, rather than walking the endless re-rolls."""
    if n <= 1:
        return 0
    limit = min(n, 36)
    return ctx.uniform(limit, purpose, lambda: _rejection_index(ctx, limit, purpose))


def _rejection_index(ctx: ApplyContext, n: int, purpose: str) -> int:
    """The reducer's draw of ``random_index``: one D6 re-rolled above ``n`` (n <= 6), else two
    D6 read as 0-35 and re-rolled at ``n`` or above."""
    if n <= 6:
        while True:
            v = ctx.roll(purpose, f"1-{n}")
            if v <= n:
                return v - 1
    while True:
        a = ctx.roll(purpose, f"1-{n} (tens)")
        b = ctx.roll(purpose, f"1-{n} (units)")
        v = (a - 1) * 6 + (b - 1)
        if v < n:
            return v


def random_pick(ctx: ApplyContext, n: int, purpose: str) -> int:
    """A uniformly random index in [0, n) as players randomise at the table (40k7 General
    Principles, Randomising): for 2, 3 or 6 choices one D6 split into equal runs of faces (2: 1-3
    and 4-6), otherwise ``random_index``. One die with no re-roll keeps the odds engine's walk of
    the dice finite."""
    if n <= 1:
        return 0
    if 6 % n == 0:
        per = 6 // n
        face = ctx.roll(purpose, f"{n} choices, {per} faces each", lambda f: f"choice {(f - 1) // per + 1}")
        return (face - 1) // per
    return random_index(ctx, n, purpose)


def scatter(ctx: ApplyContext, bs: int | None, purpose: str) -> tuple[float, float]:
    """40k7 scatter: a Hit (1-2) stays put; otherwise 2D6" minus BS (min 0) in a random direction.
    ``bs`` None = no BS reduction (Crash and Burn, Catastrophic Damage). Returns (dx, dy)."""
    face = ctx.roll(
        f"{purpose}: scatter die", "1-2 Hit", lambda v: "hit" if v in SCATTER_HIT_FACES else "scatter"
    )
    a = ctx.roll(f"{purpose}: scatter distance")
    b = ctx.roll(f"{purpose}: scatter distance")
    if face in SCATTER_HIT_FACES:
        return (0.0, 0.0)
    distance = max(0, a + b - (bs or 0))
    d1 = ctx.roll(f"{purpose}: direction (x60 deg)")
    d2 = ctx.roll(f"{purpose}: direction (x10 deg)")
    angle = math.radians((d1 - 1) * SCATTER_MAJOR_STEP + (d2 - 1) * SCATTER_MINOR_STEP)
    return (distance * math.cos(angle), distance * math.sin(angle))
