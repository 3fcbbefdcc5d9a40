"""hh3 shooting: fire arcs per mount (hh3 Vehicles, Fire arcs and weapon mounts), split fire and
weapon classes (Shooting; Defensive and Battle weapons), which facing is hit (Which facing is hit)
including both choices of the two-facings decision."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.state import MatchState, Mount
from hulldown.rules.hh3.core import is_defensive

from .builders import act, log_text, make, rejection, rolls, squad, tank, weapon

# Shooter at (40, 24) facing +x (left is +y). Target units placed in each zone.
TARGETS = {
    "front": (55.0, 24.0),
    "rear": (25.0, 24.0),
    "left": (40.0, 35.0),
    "right": (40.0, 13.0),
    "front_left": (55.0, 30.0),  # front zone, outside the centreline strip, left half
    "rear_left": (25.0, 30.0),  # rear zone, left half
}


def _arc_state(*weapons_: object) -> MatchState:
    shooter = tank("v", "a", 40, 24, 0, weapons=list(weapons_))  # type: ignore[arg-type]
    targets = [squad(name, "b", [pos]) for name, pos in TARGETS.items()]
    return make([shooter, *targets], phase="shooting")


MOUNTS: dict[str, tuple[Mount, set[str]]] = {
    "hull front": (Mount(kind="hull", arc="front"), {"front", "front_left"}),
    "hull rear": (Mount(kind="hull", arc="rear"), {"rear", "rear_left"}),
    "hull left": (Mount(kind="hull", arc="left"), {"left"}),
    "hull side": (Mount(kind="hull", arc="side"), {"left", "right"}),
    "turret": (Mount(kind="turret"), set(TARGETS)),
    "pintle": (Mount(kind="pintle"), set(TARGETS)),
    "centreline": (Mount(kind="centreline"), {"front"}),
    "sponson left": (
        Mount(kind="sponson", side="left"),
        {"front", "left", "front_left", "rear_left", "rear"},
    ),
    "sponson right": (Mount(kind="sponson", side="right"), {"front", "right", "rear"}),
}


@pytest.mark.parametrize("name", sorted(MOUNTS))
def test_each_mount_fires_only_into_its_arc(name: str) -> None:
    """hh3 Vehicles, Fire arcs and weapon mounts: Hull (named arc, Side = left and right), Turret
    and Pintle (any arc), Centreline (the strip ahead between the hull sides), Sponson (its own
    side's half, split along the centre line; a target straddling the centre line is in both
    halves)."""
    mount, allowed = MOUNTS[name]
    state = _arc_state(weapon("gun", strength=5, mount=mount))
    for target in TARGETS:
        why = rejection(state, "a", Shoot("v", (Fire("gun", target),)))
        if target in allowed:
            assert why is None, f"{name} -> {target}: {why}"
        else:
            assert why is not None and why.code == "out_of_arc", f"{name} -> {target}: {why}"


def test_coaxial_uses_the_linked_weapons_arc_and_target_or_not_at_all() -> None:
    """hh3 Vehicles, Fire arcs and weapon mounts (Co-axial): the linked weapon's arc and target,
    or not at all."""
    main = weapon("main", strength=8, mount=Mount(kind="hull", arc="front"))
    coax = weapon("coax", strength=4, mount=Mount(kind="coaxial", linked="main"))
    state = _arc_state(main, coax)
    assert rejection(state, "a", Shoot("v", (Fire("main", "front"), Fire("coax", "front")))) is None
    why = rejection(state, "a", Shoot("v", (Fire("coax", "front"),)))
    assert why is not None and why.code == "coaxial_alone"
    why = rejection(state, "a", Shoot("v", (Fire("main", "front"), Fire("coax", "front_left"))))
    assert why is not None and why.code == "coaxial_target"
    why = rejection(state, "a", Shoot("v", (Fire("main", "left"), Fire("coax", "left"))))
    assert why is not None and why.code == "out_of_arc"


def test_defensive_and_battle_weapon_classes() -> None:
    """hh3 Vehicles, Defensive and Battle weapons [ext]: S6 or less, any Sponson, any Pintle ->
    Defensive; else Battle."""
    assert is_defensive(weapon("a", strength=6))
    assert not is_defensive(weapon("b", strength=7))
    assert is_defensive(weapon("c", strength=9, mount=Mount(kind="sponson", side="left")))
    assert is_defensive(weapon("d", strength=9, mount=Mount(kind="pintle")))
    assert not is_defensive(weapon("e", strength=9, mount=Mount(kind="hull", arc="front")))


def _split_state(*keywords: str) -> MatchState:
    battle = weapon("cannon", strength=8)
    defensive = weapon("hb", strength=5, ap=4)
    shooter = tank("v", "a", 20, 24, 0, weapons=[battle, defensive], keywords=keywords)
    t1 = tank("t1", "b", 40, 24, 180, armour=(14, 14, 14))
    t2 = tank("t2", "b", 40, 34, 180, armour=(14, 14, 14))
    return make([shooter, t1, t2], phase="shooting")


def test_split_fire_battle_weapons_snap_defensive_weapons_do_not() -> None:
    """hh3 Vehicles, Shooting: splitting fire, the Battle weapon fires Snap Shots (BS4: 5+, a 4 misses),
    the Defensive weapon fires at full BS (3+, a 4 hits)."""
    state = act(_split_state(), "a", Shoot("v", (Fire("cannon", "t1"), Fire("hb", "t2"))), [4, 4, 1])
    text = log_text(state)
    assert "cannon (Battle, 1 shot, Snap Shots (split fire with a Battle weapon))" in text
    assert "hb (Defensive, 1 shot, full BS)" in text
    assert "cannon: 0 of 1 hit" in text and "hb: 1 of 1 hit" in text


@pytest.mark.parametrize("keyword", ["stable", "super-heavy"])
def test_split_fire_stable_and_super_heavy_are_exempt(keyword: str) -> None:
    """hh3 Vehicles, Shooting: Stable and Super-heavy vehicles split fire without Snap Shots."""
    state = act(
        _split_state(keyword), "a", Shoot("v", (Fire("cannon", "t1"), Fire("hb", "t2"))), [4, 1, 4, 1]
    )
    assert "cannon: 1 of 1 hit" in log_text(state)


def test_one_target_means_no_snap_shots() -> None:
    """hh3 Vehicles, Shooting: without splitting, Battle weapons fire at full BS."""
    state = act(_split_state(), "a", Shoot("v", (Fire("cannon", "t1"), Fire("hb", "t1"))), [4, 1, 4, 1])
    assert "cannon: 1 of 1 hit" in log_text(state)


def test_infantry_cannot_split_fire_and_fire_one_weapon_per_model() -> None:
    """hh3 core Shooting Attacks: an infantry unit fires at one target, one weapon per model."""
    gun = weapon("g", strength=4, ap=5, rng=24)
    troops = squad("s", "a", [(20, 24), (21.5, 24)], gun=gun)
    state = make([troops, squad("e1", "b", [(30, 24)]), squad("e2", "b", [(30, 28)])], phase="shooting")
    why = rejection(state, "a", Shoot("s", (Fire("s-1-gun", "e1"), Fire("s-2-gun", "e2"))))
    assert why is not None and why.code == "one_target"


def test_a_weapon_whose_bearer_is_a_casualty_is_refused_and_says_so() -> None:
    """hh3 core Shooting Attacks: a model fires its own weapon; a casualty fires nothing. The
    refusal names the reason (the bearer is a casualty), not an unknown weapon."""
    gun = weapon("g", strength=4, ap=5, rng=24)
    troops = squad("s", "a", [(20, 24), (21.5, 24)], gun=gun)
    troops = replace(troops, models={**troops.models, "s-2": replace(troops.models["s-2"], alive=False)})
    state = make([troops, squad("e", "b", [(30, 24)])], phase="shooting")
    why = rejection(state, "a", Shoot("s", (Fire("s-2-gun", "e"),)))
    assert why is not None and why.code == "model_dead", why
    assert "s-2" in why.message and "casualty" in why.message, why.message
    assert rejection(state, "a", Shoot("s", (Fire("s-1-gun", "e"),))) is None


def test_each_weapon_fires_once() -> None:
    """hh3 Vehicles, Shooting [ext]: each weapon fires once."""
    state = _split_state()
    why = rejection(state, "a", Shoot("v", (Fire("cannon", "t1"), Fire("cannon", "t2"))))
    assert why is not None and why.code == "weapon_twice"


# --- Which facing is hit (hh3 Vehicles, Which facing is hit) ----------------------------------------
# Target at (40, 24) facing -x: front AV13, side AV12, rear 10. Its front-left corner diagonal
# passes through (25, 33); a base centred there lies across it and sees two facings.


def _facing_state(
    shooter_at: tuple[float, float], armour: tuple[int, int, int] = (13, 12, 10), rules: tuple[str, ...] = ()
) -> MatchState:
    gun = weapon("las", strength=9, rng=48, rules=rules)
    troops = squad("s", "a", [shooter_at], gun=gun)
    target = tank("t", "b", 40, 24, 180, armour=armour)
    return make([troops, target], phase="shooting")


def test_zone_of_the_shooter_is_the_facing_hit() -> None:
    """hh3 Vehicles, Which facing is hit: a shooter straight ahead hits the front (S9 + 4 = 13 vs
    AV13: glancing)."""
    state = act(_facing_state((20, 24)), "a", Shoot("s", (Fire("s-1-gun", "t"),)), [6, 4, 3])
    assert "front armour 13, glancing" in log_text(state)


@pytest.mark.parametrize(("choice", "verdict"), [("front", "glancing"), ("side", "penetrating")])
def test_two_facings_visible_the_owner_chooses(choice: str, verdict: str) -> None:
    """hh3 Vehicles, Which facing is hit: the shooter sees two facings: the vehicle's owner (side b)
    chooses before any die is rolled; both choices (front AV13: 13 glances; side AV12: 13
    penetrates)."""
    state = act(_facing_state((25, 33)), "a", Shoot("s", (Fire("s-1-gun", "t"),)))
    pending = state.pending
    assert pending is not None and pending.side == "b" and pending.kind == "facing"
    assert pending.options == ("front", "side")
    assert rolls(state) == []
    why = rejection(state, "a", Decide(pending.id, choice))
    assert why is not None and why.code == "not_your_decision"
    dice = [6, 4, 3] if verdict == "glancing" else [6, 4]
    state = act(state, "b", Decide(pending.id, choice), dice)
    assert state.pending is None
    assert f"{choice} armour" in log_text(state) and f"{verdict} hit" in log_text(state)
    assert state.units["s"].flag("shot")


def test_two_facings_with_equal_armour_need_no_decision() -> None:
    """[decided] when both facings have the same armour the choice changes nothing: no pause."""
    state = act(
        _facing_state((25, 33), armour=(12, 12, 10)), "a", Shoot("s", (Fire("s-1-gun", "t"),)), [6, 1]
    )
    assert state.pending is None


def test_indirect_fire_always_hits_the_side() -> None:
    """hh3 Vehicles, Which facing is hit: indirect fire (Barrage) hits the Side armour even from the front
    (S9 + 3 = 12 vs side AV12: glancing; against the front it would do nothing)."""
    state = act(
        _facing_state((20, 24), rules=("barrage",)), "a", Shoot("s", (Fire("s-1-gun", "t"),)), [6, 3, 1]
    )
    assert "side armour 12, glancing" in log_text(state)


def test_rushed_unit_cannot_shoot() -> None:
    """hh3 core: a unit that Rushed cannot shoot."""
    from msgspec.structs import replace

    state = _split_state()
    state = replace(state, units={**state.units, "v": replace(state.units["v"], turn_flags=("rushed",))})
    why = rejection(state, "a", Shoot("v", (Fire("cannon", "t1"),)))
    assert why is not None and why.code == "rushed"


def test_out_of_range_reports_the_numbers() -> None:
    """hh3 core Shooting: the rejection carries the measured range."""
    gun = weapon("short", strength=4, rng=12)
    state = make([tank("v", "a", 20, 24, weapons=[gun]), tank("t", "b", 40, 24, 180)], phase="shooting")
    why = rejection(state, "a", Shoot("v", (Fire("short", "t"),)))
    assert why is not None and why.code == "out_of_range"
    assert why.values == {"distance": 15.0, "range": 12.0}


def test_no_line_of_sight_through_blocking_terrain() -> None:
    """hh3 Vehicles, Which facing is hit: line of sight is traced to the hull; a wall in between
    blocks it."""
    from .builders import wall

    gun = weapon("gun", strength=9)
    state = make(
        [tank("v", "a", 20, 24, weapons=[gun]), tank("t", "b", 40, 24, 180)],
        terrain=[wall("w", 29, 10, 31, 38, "blocks_los")],
        phase="shooting",
    )
    why = rejection(state, "a", Shoot("v", (Fire("gun", "t"),)))
    assert why is not None and why.code == "no_line_of_sight"


def test_a_unit_locked_in_combat_cannot_be_targeted() -> None:
    """hh3 core, Shooting Attack procedure, step 1 Select Target Unit [ext]: a unit locked in
    combat cannot be the target of a Shooting Attack; a vehicle never locks nor is locked (hh3
    Vehicles, Combat [seed]), so infantry touching only a vehicle may still be shot.

    Worked example: marines at (20, 24) with an Assault bolter (S4 AP5, 24 in). Enemy squad ``foe``
    at (40, 24) is in base contact with the friendly squad ``ally`` (bases 0.04 in apart): the
    Shooting Attack is refused (``target_locked``). Enemy squad ``lone`` touches only the friendly
    Predator's right side: it is not locked, so it is a legal target: hit 4 (3+), wound 4 (S4 vs
    T4: 4+), save 2 (3+) fails: its only model is removed."""
    bolt = weapon("bolt", strength=4, ap=5, rng=24, kind="assault")
    shooters = squad("s", "a", [(20, 24)], gun=bolt)
    ally = squad("ally", "a", [(41.3, 24)])
    foe = squad("foe", "b", [(40, 24)])
    pred = tank("pred", "a", 40, 30, 0)  # right side at y = 28.5
    lone = squad("lone", "b", [(40, 28.5 - 0.63 - 0.02)])
    state = make([shooters, ally, foe, pred, lone], phase="shooting")
    why = rejection(state, "a", Shoot("s", (Fire("s-1-gun", "foe"),)))
    assert why is not None and why.code == "target_locked"
    assert why.values == {"target": "foe"}
    state = act(state, "a", Shoot("s", (Fire("s-1-gun", "lone"),)), [4, 4, 2])
    assert not state.units["lone"].models["lone-1"].alive
