"""The minimal 40k7 core: BS and WS tables, to wound, saves, casualties, Morale and Pinning, the
phase order and turns."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import EndPhase, Fire, Move, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.state import Options, Point
from hulldown.rules.dice import FixedDice
from hulldown.rules.wh40k7.core import armour_save_allowed, best_save, shooting_to_hit, to_wound, ws_to_hit
from hulldown.rules.wh40k7.morale import morale_check, pinning_test

from .builders import act, infantry, make_state, rejected, rhino, ruin, vehicle, weapon


@pytest.mark.parametrize(("bs", "need"), [(1, 6), (2, 5), (3, 4), (4, 3), (5, 2), (6, 2)])
def test_bs_table(bs: int, need: int) -> None:
    """40k7 Roll To Hit: 7 - BS (BS6+ re-rolls are not modelled)."""
    assert shooting_to_hit(bs, snap=False) == need
    assert shooting_to_hit(bs, snap=True) == 6


@pytest.mark.parametrize(
    ("att", "dfn", "need"),
    [(4, 1, 3), (4, 3, 3), (4, 4, 4), (4, 8, 4), (4, 9, 5), (3, 7, 5), (1, 1, 4), (4, 0, 1)],
)
def test_ws_chart(att: int, dfn: int, need: int) -> None:
    """40k7 WS chart: higher 3+, more than double 5+, otherwise 4+; WS0 automatic."""
    assert ws_to_hit(att, dfn) == need


@pytest.mark.parametrize(
    ("s", "t", "need"), [(6, 4, 2), (5, 4, 3), (4, 4, 4), (3, 4, 5), (2, 4, 6), (1, 4, 6), (3, 7, 7)]
)
def test_to_wound_chart(s: int, t: int, need: int) -> None:
    assert to_wound(s, t) == need


def test_saves() -> None:
    """AP equal to or better than the save ignores it; the best save is taken."""
    assert not armour_save_allowed(3, 3) and armour_save_allowed(3, 4) and armour_save_allowed(3, None)
    assert best_save(3, 2, 4, None) == (4, "cover")
    assert best_save(3, 5, 4, 5) == (3, "armour")
    assert best_save(None, None, None, 4) == (4, "invulnerable")
    assert best_save(6, 1, None, None) is None


def _squad_vs_squad(attacker_pos, defender_pos, wpn, **kw):  # type: ignore[no-untyped-def]
    shooters = infantry("shooters", "a", attacker_pos, weapons=[(i, wpn) for i in range(len(attacker_pos))])
    targets = infantry("targets", "b", defender_pos, **kw)
    return make_state(shooters, targets, phase="shooting")


def test_rapid_fire_two_shots_within_half_range_wounds_closest_first() -> None:
    """Rapid Fire: 2 shots within half range; wounds go to the closest model first; S4 vs T4 4+;
    armour save 3+ (AP5 does not ignore it)."""
    bolter = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    state = _squad_vs_squad([(10, 24)], [(20, 24), (21, 24)], bolter)
    res = act(state, "a", Shoot("shooters", (Fire("bg", "targets"),)), [3, 3, 4, 6, 1, 5, 3, 3])
    t = res.state.units["targets"]
    assert not t.models["targets-0"].alive and t.models["targets-1"].alive
    assert [r.purpose for r in res.rolls] == [
        "to hit",
        "to hit",
        "to wound",
        "to wound",
        "armour save",
        "armour save",
        "Morale check",
        "Morale check",
    ]
    assert "falling_back" not in t.statuses


def test_instant_death_and_cover_save() -> None:
    """S >= 2T removes every wound; a model behind a ruin takes its 4+ cover save against AP2."""
    las = weapon("las", "Lascannon", 48, 9, 2)
    state = _squad_vs_squad([(10, 24)], [(30, 24)], las, w=3, t=4)
    state = replace(state, terrain={"r": ruin("r", 25, 22, 26, 24.2)})
    res = act(state, "a", Shoot("shooters", (Fire("las", "targets"),)), [4, 2, 3])
    assert [r.purpose for r in res.rolls][-1] == "cover save"
    assert res.state.units["targets"].destroyed


def test_heavy_weapon_after_moving_must_snap() -> None:
    hb = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    shooters = replace(infantry("s", "a", [(10, 24)], weapons=[(0, hb)]), moved=3.0)
    state = make_state(shooters, rhino("t", "b", 30, 24, 180), phase="shooting")
    assert rejected(state, "a", Shoot("s", (Fire("hb", "t"),))).code == "must_snap"


def test_one_weapon_per_model() -> None:
    bolter = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    squad = infantry(
        "s",
        "a",
        [(10, 24)],
        weapons=[(0, bolter), (0, weapon("pistol", "Bolt pistol", 12, 4, 5, type="pistol"))],
    )
    state = make_state(squad, rhino("t", "b", 20, 24, 180), phase="shooting")
    assert (
        rejected(state, "a", Shoot("s", (Fire("bg", "t"), Fire("pistol", "t")))).code
        == "one_weapon_per_model"
    )


def test_quarter_casualties_force_a_morale_check_and_fall_back() -> None:
    """40k7 Morale: 25% casualties in a phase -> Morale check; failure -> Fall Back 2D6" toward
    the unit's own table edge (side b: the right edge)."""
    bolter = weapon("bg", "Boltgun", 24, 4, None, type="assault")
    state = _squad_vs_squad([(10, 24)], [(30, 24), (30, 26), (30, 28), (30, 30)], bolter, sv=None)
    # hit 6, wound 6 (no save) -> 1 of 4 dead; Morale 2D6 = 6 + 5 = 11 > Ld8 fails; Fall Back 3 + 2
    res = act(state, "a", Shoot("shooters", (Fire("bg", "targets"),)), [6, 6, 6, 5, 3, 2])
    t = res.state.units["targets"]
    assert "falling_back" in t.statuses
    assert t.models["targets-1"].pos == Point(35, 26)


def test_vehicles_never_take_morale_checks() -> None:
    state = make_state(rhino("r", "b", 30, 24))
    new, passed = morale_check(state, ApplyContext(1, FixedDice([]), 0), "r")
    assert passed and new is state


def test_pinning_test_failure_goes_to_ground() -> None:
    """40k7 Pinning: a failed Leadership test = Pinned (no move, Snap Shots) until its next turn ends."""
    state = make_state(infantry("g", "b", [(30, 24)], ld=7))
    state = pinning_test(state, ApplyContext(1, FixedDice([4, 4]), 0), "g")
    assert "pinned" in state.units["g"].statuses
    state = replace(state, active="b", phase="movement")
    assert rejected(state, "b", Move("g", (Point(31, 24),))).code == "pinned"


def test_insane_heroism_double_one_passes() -> None:
    state = make_state(infantry("g", "b", [(30, 24)], ld=1))
    _, passed = morale_check(state, ApplyContext(1, FixedDice([1, 1]), 0), "g")
    assert passed


def test_phase_order_and_turns() -> None:
    """40k7 The Turn: Movement, Shooting, Assault; then the other side's turn."""
    state = make_state(rhino("r", "a", 10, 24), rhino("s", "b", 60, 24))
    seen = []
    for _ in range(6):
        seen.append((state.active, state.phase, state.turn))
        state = act(state, state.active, EndPhase()).state
    assert seen == [
        ("a", "movement", 1),
        ("a", "shooting", 1),
        ("a", "assault", 1),
        ("b", "movement", 1),
        ("b", "shooting", 1),
        ("b", "assault", 1),
    ]
    assert (state.active, state.phase, state.turn) == ("a", "movement", 2)


def test_infantry_coherency_and_move_distance() -> None:
    squad = infantry("s", "a", [(10, 24), (11.5, 24)])
    state = make_state(squad)
    assert rejected(state, "a", Move("s", (), positions={"s-0": Point(10, 30)})).code == "coherency"
    assert rejected(state, "a", Move("s", (Point(16.5, 24),))).values["limit"] == 6.0
    act(state, "a", Move("s", (Point(16, 24),)))


def test_infantry_difficult_terrain_2d6_pick_highest() -> None:
    """40k7 Difficult terrain: 2D6 pick the highest is the most a unit moves this turn."""
    squad = infantry("s", "a", [(10, 24)])
    state = make_state(squad, terrain=[ruin("woods", 12, 20, 14, 28, kinds=("difficult",))])
    res = act(state, "a", Move("s", (Point(16, 24),)), [2, 4])
    assert res.state.units["s"].models["s-0"].pos == Point(14, 24)


def test_vehicle_shooting_uses_its_bs() -> None:
    gun = vehicle("g", "a", 10, 24, bs=3, weapons=(weapon("k", "Krak", 48, 8, 3),))
    state = make_state(gun, rhino("t", "b", 30, 24, 180), phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("k", "t"),)), [3])
    assert res.rolls[0].target == "4+" and res.rolls[0].outcome == "miss"


def test_unit_ids_with_separators_are_told_apart_in_phase_bookkeeping() -> None:
    """The reducer is total (docs/architecture.md section 3) whatever the scenario's ids: units "t"
    and "t:2" are both shot at in one phase (40k7 Morale, 25% casualties: each unit's strength at
    the start of the phase is remembered separately)."""
    bolter = weapon("bg", "Boltgun", 24, 4, None, type="assault")
    shooters = [infantry(f"s{k}", "a", [(10, 24 + 10 * k)], weapons=[(0, bolter)]) for k in range(2)]
    t = infantry("t", "b", [(30, 24), (30, 25.2), (30, 26.4), (30, 27.6)], sv=None)
    t2 = infantry("t:2", "b", [(30, 34), (30, 35.2)], sv=None)
    # t-0 and t-1 are equally close to s0 (40k7 Closest Models): auto_decide takes t-0.
    state = replace(make_state(*shooters, t, t2, phase="shooting"), options=Options(auto_decide=True))
    state = act(state, "a", Shoot("s1", (Fire("bg", "t:2"),)), [6, 1]).state  # hit, no wound
    # hit, wound 6 (no save): 1 of 4 "t" dead -> Morale 6 + 5 = 11 > Ld8 fails; Fall Back 3 + 2
    res = act(state, "a", Shoot("s0", (Fire("bg", "t"),)), [6, 6, 6, 5, 3, 2])
    assert "falling_back" in res.state.units["t"].statuses
    assert "falling_back" not in res.state.units["t:2"].statuses
