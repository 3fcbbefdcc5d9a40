"""40k7 Vehicles, Armour Penetration Rolls: D6 + Strength against the facing's Armour Value.

Lower: no effect; equal: glancing; higher: penetrating. Variants [ext]:
- Ordnance: roll 2D6 and pick the highest.
- Melta within half range: +D6. Armourbane: +D6. Both together still add one D6
  (MELTA_ARMOURBANE_STACK = False [decided]: both rules say "roll an additional D6").
- Lance: an Armour Value above 12 counts as 12.
- Haywire: a D6 instead of the roll: 1 no effect, 2-5 glancing, 6 penetrating.
- Smash Attack (40k7 Special Rules, Smash): the armour penetration roll may be re-rolled, the
  second result stands. Which results are re-rolled is the attacker's call; the core re-rolls
  the results in SMASH_REROLL_RESULTS [decided: a miss only - a glancing hit is kept].
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from ...match.context import ApplyContext
from . import refs

PenResult = Literal["none", "glancing", "penetrating"]

LANCE_CAP = 12
MELTA_ARMOURBANE_STACK = False
HAYWIRE_GLANCE_FROM = 2
HAYWIRE_PEN_ON = 6
# 40k7 Special Rules, Smash: a Smash Attack re-rolls these armour penetration results [decided].
SMASH_REROLL_RESULTS: tuple[PenResult, ...] = ("none",)


@dataclass(frozen=True)
class PenProfile:
    """What a hit brings to the armour penetration roll."""

    strength: int
    ordnance: bool = False
    melta_half: bool = False  # Melta weapon within half its range
    armourbane: bool = False
    lance: bool = False
    haywire: bool = False
    extra_d6: int = 0  # e.g. Super-heavy Thunderblitz "Kerr-smash"
    reroll: tuple[PenResult, ...] = ()  # results re-rolled once (40k7 Smash Attack)


@dataclass(frozen=True)
class PenRoll:
    dice: tuple[int, ...]
    total: int
    armour: int
    result: PenResult


def effective_armour(armour: int, profile: PenProfile) -> int:
    """40k7 Lance: Armour Values above 12 count as 12."""
    return min(armour, LANCE_CAP) if profile.lance else armour


def extra_dice(profile: PenProfile) -> int:
    extra = 0
    if profile.melta_half or profile.armourbane:
        extra = 2 if (MELTA_ARMOURBANE_STACK and profile.melta_half and profile.armourbane) else 1
    return extra + profile.extra_d6


def compare(total: int, armour: int) -> PenResult:
    """40k7 Armour Penetration Rolls: lower none, equal glancing, higher penetrating."""
    if total < armour:
        return "none"
    return "glancing" if total == armour else "penetrating"


def outcome(profile: PenProfile, armour: int, base: tuple[int, ...], extra: tuple[int, ...]) -> PenRoll:
    """Pure: the result of given dice. ``base`` is one D6 (two for Ordnance), ``extra`` the added D6s."""
    if profile.haywire:
        face = base[0]
        result: PenResult = (
            "penetrating" if face >= HAYWIRE_PEN_ON else "glancing" if face >= HAYWIRE_GLANCE_FROM else "none"
        )
        return PenRoll(base, face, armour, result)
    av = effective_armour(armour, profile)
    total = max(base) + sum(extra) + profile.strength
    return PenRoll((*base, *extra), total, av, compare(total, av))


def roll_penetration(
    ctx: ApplyContext, profile: PenProfile, armour: int, facing: str, batch: object = None
) -> PenRoll:
    """Roll armour penetration through the match dice and judge it. ``batch``: the key of the
    hit (``ApplyContext.roll``): equal keys are hits the rules treat alike. A profile with
    ``reroll`` (40k7 Special Rules, Smash: a Smash Attack may re-roll its armour penetration
    roll and must keep the second result) rolls again once on those results, unbatched: the
    second roll depends on the first."""
    if profile.reroll:
        first = roll_penetration(ctx, replace(profile, reroll=()), armour, facing)
        if first.result not in profile.reroll:
            return first
        ctx.log(
            f"Smash Attack: armour penetration {first.total} ({first.result}) is re-rolled; "
            "the second result stands.",
            refs.SMASH,
        )
        return roll_penetration(ctx, replace(profile, reroll=()), armour, facing)
    av = effective_armour(armour, profile)
    if profile.haywire:
        face = ctx.roll(
            "haywire",
            "1 none, 2-5 glancing, 6 penetrating",
            lambda f: outcome(profile, armour, (f,), ()).result,
        )
        pen = outcome(profile, armour, (face,), ())
        ctx.set_outcome(pen.result)
        return pen
    label = f"S{profile.strength} vs {facing} AV{av}" + (
        f" (Lance: AV{armour} counts as {av})" if av != armour else ""
    )
    n_base = 2 if profile.ordnance else 1
    # A single die with nothing added is judged by D6 + S alone (the odds engine walks one branch
    # per result, docs/odds.md); the log's outcome is set below either way.
    single = n_base == 1 and extra_dice(profile) == 0
    base = tuple(
        ctx.roll(
            "armour penetration (ordnance: highest)" if profile.ordnance else "armour penetration",
            label,
            (lambda f: compare(f + profile.strength, av)) if single else None,
            batch if single else None,
        )
        for _ in range(n_base)
    )
    extra = tuple(ctx.roll("armour penetration (+D6)", label) for _ in range(extra_dice(profile)))
    pen = outcome(profile, armour, base, extra)
    # Every die of the roll carries its result (an Ordnance pair, a Melta or Armourbane D6).
    ctx.set_outcomes(len(base) + len(extra), f"{pen.total}: {pen.result}")
    return pen
