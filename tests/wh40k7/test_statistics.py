"""Statistics over seeded dice (the acceptance numbers): armour penetration with one D6
and with Ordnance (2D6 pick highest), and the damage table by AP - exact probabilities, with
d = armour - strength:

- one D6: glancing 1/6 when 1 <= d <= 6; penetrating (6 - d)/6 when 0 <= d <= 5, always when d < 0;
- Ordnance: glancing (2d - 1)/36, penetrating 1 - d^2/36 for 1 <= d <= 6;
- damage, penetrating AP3: Shaken 1/2, Stunned / Weapon Destroyed / Immobilised 1/6 each;
  AP2: Explodes! 1/6; AP1: Explodes! 2/6.

Every roll goes through the match's dice (SeededDice, HMAC-derived) and the rules functions.
19 cases of N = 20,000 rolls: 380,000 seeded rolls in all.
Tolerance: 5 standard errors of the estimated frequency (a false alarm about once in 3.5 million
checks), which at 20,000 rolls per case is at most 0.0134.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from hulldown.match.context import ApplyContext
from hulldown.rules.dice import SeededDice
from hulldown.rules.wh40k7.damage import roll_damage
from hulldown.rules.wh40k7.penetration import PenProfile, roll_penetration

from .builders import make_state, vehicle

SEED = b"hulldown-40k7-statistics"
N = 20_000
Z = 5.0


def _tolerance(p: float) -> float:
    return Z * math.sqrt(max(p * (1 - p), 1e-12) / N)


def _single_glance(d: int) -> float:
    return 1 / 6 if 1 <= d <= 6 else 0.0


def _single_pen(d: int) -> float:
    if d < 0:
        return 1.0
    return (6 - d) / 6 if d <= 5 else 0.0


def _penetration_counts(case: str, strength: int, armour: int, ordnance: bool) -> Counter[str]:
    dice = SeededDice(SEED, f"stats-{case}", 1)
    ctx = ApplyContext(1, dice, 0)
    profile = PenProfile(strength, ordnance=ordnance)
    return Counter(roll_penetration(ctx, profile, armour, "front").result for _ in range(N))


@pytest.mark.parametrize("d", [-2, -1, 0, 1, 2, 3, 4, 5, 6, 7])
def test_single_d6_penetration_frequencies(d: int) -> None:
    armour = 12
    counts = _penetration_counts(f"d6-{d}", armour - d, armour, ordnance=False)
    for result, p in (("glancing", _single_glance(d)), ("penetrating", _single_pen(d))):
        assert abs(counts[result] / N - p) <= _tolerance(p), (d, result, counts[result] / N, p)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 6])
def test_ordnance_penetration_frequencies(d: int) -> None:
    armour = 14
    counts = _penetration_counts(f"ord-{d}", armour - d, armour, ordnance=True)
    glance, pen = (2 * d - 1) / 36, 1 - d * d / 36
    assert abs(counts["glancing"] / N - glance) <= _tolerance(glance), (d, counts)
    assert abs(counts["penetrating"] / N - pen) <= _tolerance(pen), (d, counts)


@pytest.mark.parametrize(
    ("ap", "expected"),
    [
        (
            3,
            {
                "shaken": 1 / 2,
                "stunned": 1 / 6,
                "weapon_destroyed": 1 / 6,
                "immobilised": 1 / 6,
                "explodes": 0.0,
            },
        ),
        (
            2,
            {
                "shaken": 2 / 6,
                "stunned": 1 / 6,
                "weapon_destroyed": 1 / 6,
                "immobilised": 1 / 6,
                "explodes": 1 / 6,
            },
        ),
        (
            1,
            {
                "shaken": 1 / 6,
                "stunned": 1 / 6,
                "weapon_destroyed": 1 / 6,
                "immobilised": 1 / 6,
                "explodes": 2 / 6,
            },
        ),
    ],
)
def test_damage_table_frequencies(ap: int, expected: dict[str, float]) -> None:
    state = make_state(vehicle("v", "b", 30, 24))
    ctx = ApplyContext(1, SeededDice(SEED, f"dmg-{ap}", 1), 0)
    counts = Counter(roll_damage(ctx, state, "v", ap) for _ in range(N))
    for result, p in expected.items():
        assert abs(counts[result] / N - p) <= _tolerance(p), (ap, result, counts[result] / N, p)  # type: ignore[index]
