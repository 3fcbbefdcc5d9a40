"""40k7 vehicle movement (40k7 Vehicles, Movement to Flat Out; Skimmer, Heavy, Flyer) with real geometry."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import EndPhase, Fire, Move, Pivot, Shoot
from hulldown.match.state import Point

from .builders import act, dreadnought, flyer, infantry, krak, make_state, rejected, rhino, ruin, vehicle


def test_vehicle_moves_up_to_12_inches_cruising_speed() -> None:
    """40k7 Vehicles, Movement: more than 6" and up to 12" is Cruising Speed."""
    state = make_state(rhino("r", "a", 10, 24))
    res = act(state, "a", Move("r", (Point(22, 24),)))
    r = res.state.units["r"]
    assert r.models["r-m"].pos == Point(22, 24) and r.moved == pytest.approx(12)
    assert "Cruising Speed" in res.texts[0]


def test_vehicle_cannot_move_more_than_12() -> None:
    state = make_state(rhino("r", "a", 10, 24))
    rej = rejected(state, "a", Move("r", (Point(22.5, 24),)))
    assert rej.code == "too_far" and rej.values == {"distance": 12.5, "limit": 12.0}
    assert rej.rule == "40k7 Vehicles, Movement"


def test_combat_speed_up_to_6() -> None:
    state = make_state(rhino("r", "a", 10, 24))
    res = act(state, "a", Move("r", (Point(16, 24),)))
    assert "Combat Speed" in res.texts[0]


def test_heavy_never_faster_than_combat_speed() -> None:
    """Heavy: never faster than Combat Speed."""
    state = make_state(vehicle("h", "a", 10, 24, keywords=("tank", "heavy")))
    assert rejected(state, "a", Move("h", (Point(16.5, 24),))).values["limit"] == 6.0


def test_pivot_only_counts_as_stationary() -> None:
    """A vehicle that only pivots counts as Stationary: all weapons fire at full BS."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak("k1"), krak("k2")))
    state = make_state(gun, rhino("t", "b", 30, 24, 180))
    state = act(state, "a", Pivot("g", 45)).state
    assert state.units["g"].moved == 0
    state = act(state, "a", EndPhase()).state
    act(state, "a", Shoot("g", (Fire("k1", "t"), Fire("k2", "t"))), [1, 1])


def test_immobilised_vehicle_cannot_pivot() -> None:
    rh = replace(rhino("r", "a", 10, 24), statuses={"immobilised": 0})
    state = make_state(rh)
    assert rejected(state, "a", Pivot("r", 90)).code == "immobilised"
    assert rejected(state, "a", Move("r", (Point(12, 24),))).code == "immobilised"


def test_cannot_move_over_friendly_models() -> None:
    """40k7 Vehicles: vehicles cannot move over friendly models."""
    state = make_state(rhino("r", "a", 10, 24), infantry("m", "a", [(16, 24)]))
    rej = rejected(state, "a", Move("r", (Point(21, 24),)))
    assert rej.code == "path_blocked" and rej.values["model"] == "m-0"


def test_skimmer_flies_over_models_but_not_onto_them() -> None:
    """40k7 Skimmers: move over models; may not end on top of them."""
    sk = vehicle("s", "a", 10, 24, keywords=("skimmer",))
    state = make_state(sk, infantry("m", "a", [(16, 24)]))
    act(state, "a", Move("s", (Point(21, 24),)))
    assert rejected(state, "a", Move("s", (Point(16, 24),))).code == "ends_on_model"


def test_dangerous_terrain_fails_on_1_loses_hp_and_immobilised() -> None:
    """40k7 Vehicles, Dangerous Terrain: difficult terrain is dangerous for vehicles; a 1 fails: -1
    HP, Immobilised."""
    state = make_state(rhino("r", "a", 10, 24), terrain=[ruin("woods", 14, 20, 16, 28, kinds=("difficult",))])
    res = act(state, "a", Move("r", (Point(21, 24),)), [1])
    r = res.state.units["r"]
    assert r.hp == 2 and "immobilised" in r.statuses
    assert res.rolls[0].purpose == "dangerous terrain test" and res.rolls[0].outcome == "fail"


def test_dangerous_terrain_passed_on_2() -> None:
    state = make_state(rhino("r", "a", 10, 24), terrain=[ruin("woods", 14, 20, 16, 28, kinds=("difficult",))])
    r = act(state, "a", Move("r", (Point(21, 24),)), [2]).state.units["r"]
    assert r.hp == 3 and r.statuses == {}


def test_no_test_without_difficult_terrain() -> None:
    state = make_state(rhino("r", "a", 10, 24), terrain=[ruin("woods", 14, 40, 16, 44, kinds=("difficult",))])
    act(state, "a", Move("r", (Point(21, 24),)), [])


def test_skimmer_tests_only_when_starting_or_ending_in_difficult_terrain() -> None:
    """40k7 Skimmers: a test only if it starts or ends its move in difficult terrain."""
    woods = ruin("woods", 14, 20, 16, 28, kinds=("difficult",))
    state = make_state(vehicle("s", "a", 10, 24, keywords=("skimmer",)), terrain=[woods])
    act(state, "a", Move("s", (Point(21, 24),)), [])
    act(state, "a", Move("s", (Point(15, 24),)), [3])


def test_walker_failing_dangerous_terrain_is_immobilised_without_losing_hp() -> None:
    """40k7 Walkers: a failed Dangerous Terrain test Immobilises [decided: no Hull Point]."""
    state = make_state(
        dreadnought("w", "a", 10, 24), terrain=[ruin("mine", 12, 20, 13, 28, kinds=("dangerous",))]
    )
    r = act(state, "a", Move("w", (Point(15, 24),)), [1]).state.units["w"]
    assert r.hp == 3 and "immobilised" in r.statuses


def test_walker_moves_6_like_infantry() -> None:
    state = make_state(dreadnought("w", "a", 10, 24))
    assert rejected(state, "a", Move("w", (Point(16.5, 24),))).values["limit"] == 6.0


def test_cannot_end_within_1_inch_of_enemy() -> None:
    state = make_state(rhino("r", "a", 10, 24), infantry("e", "b", [(20, 24)]))
    rej = rejected(state, "a", Move("r", (Point(16.5, 24),)))
    assert rej.code == "too_close_to_enemy"


def test_flat_out_instead_of_shooting() -> None:
    """40k7 Vehicles, Moving Flat Out: up to 6" in the Shooting phase instead of shooting; Fast 12",
    Fast Skimmer 18"; not Heavy."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    fast = vehicle("f", "a", 10, 10, keywords=("fast",))
    fs = vehicle("fs", "a", 10, 40, keywords=("fast", "skimmer"))
    heavy = vehicle("h", "a", 40, 40, keywords=("heavy",))
    state = make_state(gun, fast, fs, heavy, rhino("t", "b", 60, 24), phase="shooting")
    assert rejected(state, "a", Move("g", (Point(16.5, 24),), kind="flat_out")).values["limit"] == 6.0
    assert rejected(state, "a", Move("f", (Point(22.5, 10),), kind="flat_out")).values["limit"] == 12.0
    act(state, "a", Move("fs", (Point(28, 40),), kind="flat_out"))
    assert rejected(state, "a", Move("h", (Point(41, 40),), kind="flat_out")).code == "heavy_no_flat_out"
    after = act(state, "a", Move("g", (Point(16, 24),), kind="flat_out")).state
    assert rejected(after, "a", Shoot("g", (Fire("krak", "t"),))).code == "flat_out"


def test_flat_out_triggers_dangerous_terrain() -> None:
    state = make_state(
        rhino("r", "a", 10, 24),
        terrain=[ruin("woods", 12, 20, 13, 28, kinds=("difficult",))],
        phase="shooting",
    )
    assert act(state, "a", Move("r", (Point(16, 24),), kind="flat_out"), [1]).state.units["r"].hp == 2


def test_move_in_wrong_phase_rejected() -> None:
    state = make_state(rhino("r", "a", 10, 24), phase="shooting")
    assert rejected(state, "a", Move("r", (Point(12, 24),))).code == "wrong_phase"


def test_zooming_flyer_moves_18_to_36_straight() -> None:
    """40k7 Flyers, Zoom: at least 18", at most 36", straight ahead after one pivot of 90 deg."""
    state = make_state(flyer("f", "a", 5, 24))
    assert rejected(state, "a", Move("f", (Point(20, 24),))).code == "flyer_too_slow"
    assert rejected(state, "a", Move("f", (Point(42, 24),))).code == "too_far"
    assert rejected(state, "a", Move("f", (Point(25, 30),))).code == "flyer_not_straight"
    assert rejected(state, "a", EndPhase()).code == "flyer_must_move"
    act(state, "a", Move("f", (Point(5 + 20, 24),)))
    turned = act(state, "a", Pivot("f", 90)).state
    assert rejected(turned, "a", Pivot("f", 90)).code == "flyer_one_pivot"
    act(turned, "a", Move("f", (Point(5, 44),)))
    assert rejected(state, "a", Pivot("f", 135)).code == "flyer_pivot_too_far"


def test_zooming_flyer_leaving_the_table_enters_ongoing_reserves() -> None:
    state = make_state(flyer("f", "a", 60, 24))
    r = act(state, "a", Move("f", (Point(80, 24),))).state.units["f"]
    assert "reserves" in r.statuses


def test_a_walkers_measured_move_has_no_speed_band() -> None:
    """40k7 Vehicles, Walkers: a Walker moves like Infantry, so the live check of its move (the
    facts the table shows while dragging) names no Combat or Cruising Speed: a 6.3" drag of a
    Walker is 'normal', not 'cruising'; a Rhino's is 'cruising'."""
    from hulldown.rules.measure import action_facts

    state = make_state(dreadnought("d", "a", 10, 24), rhino("r", "a", 10, 40))
    walker = action_facts(state, Move("d", (Point(16.3, 26),)))
    assert walker.speed_band == "normal"
    tank = action_facts(state, Move("r", (Point(16.3, 42),)))
    assert tank.speed_band == "cruising"
