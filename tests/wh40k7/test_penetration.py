"""40k7 Vehicles, Armour Penetration Rolls: the roll and its variants."""

from __future__ import annotations

import pytest

from hulldown.match.context import ApplyContext
from hulldown.rules.dice import FixedDice
from hulldown.rules.wh40k7.penetration import PenProfile, compare, outcome, roll_penetration


@pytest.mark.parametrize(
    ("total", "armour", "result"), [(12, 13, "none"), (13, 13, "glancing"), (14, 13, "penetrating")]
)
def test_compare_lower_equal_higher(total: int, armour: int, result: str) -> None:
    """Lower: no effect; equal: glancing; higher: penetrating."""
    assert compare(total, armour) == result


def test_ordnance_rolls_two_dice_and_picks_the_highest() -> None:
    """40k7 Ordnance: 2D6 pick the highest for armour penetration."""
    ctx = ApplyContext(1, FixedDice([2, 5]), 0)
    pen = roll_penetration(ctx, PenProfile(8, ordnance=True), 13, "front")
    assert pen.total == 13 and pen.result == "glancing"


def test_melta_within_half_range_adds_a_d6() -> None:
    """40k7 Melta: +D6 armour penetration within half range."""
    ctx = ApplyContext(1, FixedDice([3, 4]), 0)
    pen = roll_penetration(ctx, PenProfile(8, melta_half=True), 14, "front")
    assert pen.dice == (3, 4) and pen.total == 15 and pen.result == "penetrating"


def test_melta_beyond_half_range_rolls_one_die() -> None:
    ctx = ApplyContext(1, FixedDice([3]), 0)
    pen = roll_penetration(ctx, PenProfile(8, melta_half=False), 14, "front")
    assert pen.total == 11 and pen.result == "none"


def test_armourbane_adds_a_d6_and_does_not_stack_with_melta() -> None:
    """40k7 Armourbane: +D6; with Melta as well still one extra D6 [decided]."""
    assert outcome(PenProfile(4, armourbane=True), 10, (3,), (2,)).total == 9
    ctx = ApplyContext(1, FixedDice([3, 2]), 0)
    pen = roll_penetration(ctx, PenProfile(8, melta_half=True, armourbane=True), 14, "rear")
    assert len(pen.dice) == 2


def test_lance_treats_armour_above_12_as_12() -> None:
    """40k7 Lance: AV14 counts as AV12."""
    pen = outcome(PenProfile(8, lance=True), 14, (4,), ())
    assert pen.armour == 12 and pen.result == "glancing"
    assert outcome(PenProfile(8, lance=True), 11, (3,), ()).armour == 11


@pytest.mark.parametrize(
    ("face", "result"), [(1, "none"), (2, "glancing"), (5, "glancing"), (6, "penetrating")]
)
def test_haywire_replaces_the_roll(face: int, result: str) -> None:
    """40k7 Haywire: D6, 1 no effect, 2-5 glancing, 6 penetrating (any armour)."""
    ctx = ApplyContext(1, FixedDice([face]), 0)
    assert roll_penetration(ctx, PenProfile(2, haywire=True), 14, "front").result == result
