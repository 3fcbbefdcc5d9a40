"""40k7 Vehicles, Glancing Hits to Wrecked Vehicles: the Vehicle Damage Table and its results, with
fixed dice."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import EndPhase, Fire, Move, Pivot, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.state import MatchState, Point, Unit
from hulldown.rules.dice import FixedDice
from hulldown.rules.wh40k7.damage import Fate, apply_result, damage_modifier, table_result

from .builders import (
    act,
    end_phases,
    flyer,
    infantry,
    krak,
    lascannon,
    make_state,
    rejected,
    rhino,
    vehicle,
    weapon,
)


@pytest.mark.parametrize(
    ("total", "result"),
    [
        (1, "shaken"),
        (2, "shaken"),
        (3, "shaken"),
        (4, "stunned"),
        (5, "weapon_destroyed"),
        (6, "immobilised"),
        (7, "explodes"),
        (9, "explodes"),
    ],
)
def test_table(total: int, result: str) -> None:
    """40k7 Vehicle Damage table: 1-3 Shaken, 4 Stunned, 5 Weapon Destroyed, 6 Immobilised, 7+ Explodes!"""
    assert table_result(total) == result


def test_modifiers_add_up() -> None:
    """AP2 +1, AP1 +2 [seed]; Open-topped +1 [ext]; cumulative."""
    assert damage_modifier(None, False) == 0
    assert damage_modifier(3, False) == 0
    assert damage_modifier(2, False) == 1
    assert damage_modifier(1, False) == 2
    assert damage_modifier(1, True) == 3


def _shoot(target: Unit, dice: list[int], *others: Unit, wpn=None) -> tuple[MatchState, list[str]]:
    shooter = vehicle("gun", "a", 10, 24, weapons=(wpn or krak(),))
    state = make_state(shooter, target, *others, phase="shooting")
    wid = (wpn or krak()).id
    res = act(state, "a", Shoot("gun", (Fire(wid, target.id),)), dice)
    return res.state, res.texts


def test_crew_shaken_snap_shots_until_end_of_owners_next_turn() -> None:
    """Crew Shaken: Snap Shots only until the end of the vehicle's next turn [decided: the owner's
    next player turn]."""
    state, _ = _shoot(rhino("r", "b", 30, 24, 180, weapons=(krak("k2"),)), [6, 4, 2])
    r = state.units["r"]
    assert r.hp == 2 and r.statuses["shaken"] == 2  # side b's next player turn is #2
    # side b's turn: must snap
    state = end_phases(state, 2)  # shooting -> assault -> b's turn, movement
    assert state.active == "b" and "shaken" in state.units["r"].statuses
    state = act(state, "b", EndPhase()).state
    rej = rejected(state, "b", Shoot("r", (Fire("k2", "gun"),)))
    assert rej.code == "must_snap" and rej.values["reason"] == "shaken"
    res = act(state, "b", Shoot("r", (Fire("k2", "gun", snap=True),)), [5])
    assert res.rolls[0].target == "6+"
    state = end_phases(res.state, 2)  # end of b's turn: expires
    assert "shaken" not in state.units["r"].statuses


def _cannot_move_or_pivot_next_turn(state: MatchState, code: str) -> None:
    """In side b's next Movement phase the Rhino "r" neither moves nor pivots."""
    state = end_phases(state, 2)
    assert state.active == "b" and state.phase == "movement"
    assert rejected(state, "b", Move("r", (Point(30, 30),))).code == code
    assert rejected(state, "b", Pivot("r", 90)).code == code


def test_crew_stunned_no_move_no_pivot() -> None:
    """Crew Stunned: Snap Shots only and no move or pivot until the end of its next turn."""
    state, _ = _shoot(rhino("r", "b", 30, 24, 180), [6, 4, 4])
    assert "stunned" in state.units["r"].statuses
    _cannot_move_or_pivot_next_turn(state, "stunned")


def test_weapon_destroyed_picks_a_random_weapon() -> None:
    """Weapon Destroyed: one weapon, chosen at random (a D6 over the working weapons)."""
    target = rhino("r", "b", 30, 24, 180, weapons=(krak("w1"), lascannon("w2")))
    state, _ = _shoot(target, [6, 4, 5, 2])
    ws = state.units["r"].weapons
    assert ws["w2"].destroyed and not ws["w1"].destroyed


def test_weapon_destroyed_without_weapons_counts_as_immobilised() -> None:
    state, _ = _shoot(rhino("r", "b", 30, 24, 180), [6, 4, 5])
    assert "immobilised" in state.units["r"].statuses


def test_immobilised_cannot_move_or_pivot() -> None:
    state, _ = _shoot(rhino("r", "b", 30, 24, 180), [6, 4, 6])
    assert state.units["r"].statuses["immobilised"] == 0
    _cannot_move_or_pivot_next_turn(state, "immobilised")


def test_explodes_removes_vehicle_and_hits_units_within_d6() -> None:
    """Explodes!: destroyed, no wreck; each unit within D6" takes one S4 AP- hit per model in range."""
    target = rhino("r", "b", 30, 24, 180)
    bystanders = infantry("guard", "b", [(30, 27.5), (30, 28.5), (30, 40)], t=3, sv=5)
    lascannon_ap1 = weapon("las", "Lascannon AP1", 48, 9, 1)
    # hit 6, pen 6 (15 > 11), damage 5 + 2 = 7 Explodes!, radius 3, two guardsmen in range:
    # wound 6, 6 (S4 vs T3: 3+), saves 1, 1 (5+)
    state, texts = _shoot(target, [6, 6, 5, 3, 6, 6, 1, 1], bystanders, wpn=lascannon_ap1)
    r = state.units["r"]
    assert r.destroyed and not r.wreck
    assert sum(1 for m in state.units["guard"].models.values() if m.alive) == 1
    assert any("explodes" in t for t in texts)


def test_zero_hull_points_wrecked_stays_as_terrain() -> None:
    """40k7 Wrecked: at 0 HP the vehicle is destroyed and stays as difficult terrain."""
    target = replace(rhino("r", "b", 30, 24, 180), hp=1)
    state, _ = _shoot(target, [6, 3])  # 8 + 3 = 11: glancing
    r = state.units["r"]
    assert r.destroyed and r.wreck and r.hp == 0
    from hulldown.rules.wh40k7.geo import all_terrain

    assert any(p.id == "wreck:r" and p.has("difficult") for p in all_terrain(state))


def test_explodes_beats_wrecked_in_the_same_attack() -> None:
    """40k7 Vehicles, Wrecked Vehicles [decided]: HP to 0 and an Explodes! result in one attack ->
    it explodes."""
    target = replace(rhino("r", "b", 30, 24, 180), hp=1)
    ap1 = weapon("las", "AP1 gun", 48, 9, 1)
    state, _ = _shoot(target, [6, 6, 5, 1], wpn=ap1)  # explosion radius 1: nobody near
    r = state.units["r"]
    assert r.destroyed and not r.wreck


def test_damage_rolled_even_at_zero_hp() -> None:
    """40k7 Vehicles, Penetrating Hits: roll on the damage table even if the vehicle lost its last
    Hull Point."""
    target = replace(rhino("r", "b", 30, 24, 180), hp=1)
    state, _ = _shoot(target, [6, 5, 2])  # penetrating, damage 2 (Shaken), wrecked
    assert state.units["r"].wreck


def _ctx(dice: list[int]) -> ApplyContext:
    return ApplyContext(1, FixedDice(dice), 0)


def test_named_result_without_hull_points() -> None:
    """40k7 Vehicles, Damage Results: a rule that inflicts a damage result without saying glancing/penetrating
    costs no Hull Point."""
    state = make_state(rhino("r", "b", 30, 24))
    state = apply_result(state, "r", "immobilised", _ctx([]), Fate())
    assert state.units["r"].hp == 3 and "immobilised" in state.units["r"].statuses


def test_chariot_immobilised_counts_as_stunned() -> None:
    state = make_state(vehicle("c", "b", 30, 24, keywords=("chariot",)))
    state = apply_result(state, "c", "immobilised", _ctx([]), Fate())
    assert "stunned" in state.units["c"].statuses and "immobilised" not in state.units["c"].statuses


@pytest.mark.parametrize(("face", "crash"), [(2, True), (3, False)])
def test_zooming_flyer_immobilised(face: int, crash: bool) -> None:
    """Zooming Flyer Immobilised: D6, 1-2 Crash and Burn, 3+ Crew Stunned."""
    state = make_state(flyer("f", "b", 30, 24))
    fate = Fate()
    state = apply_result(state, "f", "immobilised", _ctx([face]), fate)
    assert fate.crash is crash
    assert ("stunned" in state.units["f"].statuses) is (not crash)


def test_zooming_flyer_explodes_crashes_and_burns() -> None:
    """Zooming Flyer: Explodes! becomes Crash and Burn (a scattering large blast, S6 hits)."""
    guard = infantry("g", "a", [(31, 24), (40, 40)], t=3, sv=5)
    state = make_state(flyer("f", "b", 30, 24), guard)
    from hulldown.rules.wh40k7.resolve import finish_vehicle

    fate = Fate()
    ctx = _ctx([3, 1, 1, 1, 1, 5, 1])  # scatter die 3 (arrow), 2D6=2, direction 0, wound 5, save 1
    state = apply_result(state, "f", "explodes", ctx, fate)
    assert fate.crash
    state = finish_vehicle(state, ctx, "f", fate)
    assert state.units["f"].destroyed and not state.units["f"].wreck
    assert not state.units["g"].models["g-0"].alive and state.units["g"].models["g-1"].alive


def test_super_heavy_ignores_crew_results_and_explodes_costs_d3() -> None:
    """40k7 Super-heavy: Shaken/Stunned/Weapon Destroyed/Immobilised ignored; Explodes! = D3 HP."""
    state = make_state(vehicle("s", "b", 30, 24, hp=9, keywords=("super-heavy", "tank")))
    for r in ("shaken", "stunned", "weapon_destroyed", "immobilised"):
        state = apply_result(state, "s", r, _ctx([]), Fate())  # type: ignore[arg-type]
    assert state.units["s"].statuses == {}
    fate = Fate()
    state = apply_result(state, "s", "explodes", _ctx([5]), fate)  # D3 = 3
    assert state.units["s"].hp == 6 and not fate.explodes


def test_stunned_expires_at_the_end_of_the_owners_next_turn() -> None:
    state, _ = _shoot(rhino("r", "b", 30, 24, 180), [6, 4, 4])
    for _ in range(5):  # a: shooting, assault; b: movement, shooting, assault
        state = end_phases(state, 1)
        # still Stunned for the rest of side a's turn 1 and all of side b's turn (player turn 2)
        assert ("stunned" in state.units["r"].statuses) is (state.player_turn <= 2)
    assert state.active == "a" and "stunned" not in state.units["r"].statuses


def test_two_explodes_results_one_explosion() -> None:
    """40k7 Vehicle Damage Table, Wrecked Vehicles [decided]: the explosion happens once however
    many Explodes! results."""
    ap1 = (weapon("l1", "AP1 gun", 48, 9, 1), weapon("l2", "AP1 gun", 48, 9, 1))
    shooter = vehicle("gun", "a", 10, 24, weapons=ap1)
    state = make_state(shooter, rhino("r", "b", 30, 24, 180), phase="shooting")
    res = act(state, "a", Shoot("gun", (Fire("l1", "r"), Fire("l2", "r"))), [6, 6, 6, 6, 5, 6, 2])
    assert [r.purpose for r in res.rolls].count("Explodes! radius") == 1
    assert res.state.units["r"].destroyed and not res.state.units["r"].wreck
