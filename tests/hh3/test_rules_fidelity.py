"""hh3 rules fidelity, fixed dice: vehicles block line of sight, one facing per attack, moving
after disembarking, Rapid vehicles, Super-heavy and Stable vehicles, Explodes (X) after an
Emergency Disembarkation, Volley Attacks, Light Transport and explicit Defensive weapons
(docs/rules-notes.md, hh3)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, Disembark, Embark, EndPhase, Fight, Fire, Move, Shoot
from hulldown.match.state import MatchState, Mount, Point, Unit, UnitKind
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE

from .builders import (
    act,
    charge,
    log_text,
    make,
    rejection,
    rolls,
    squad,
    take_proposal,
    tank,
    transport,
    wall,
    weapon,
)

# --- Vehicles block line of sight (hh3 core, Line of Sight) ---------------------------------------
# Shooter at (20, 24), target hull at (40, 24); a 5 x 3 hull turned across the line at (30, 24)
# hides every point of the target from the shooter's turret.


def _sight_state(blocker_side: str | None, blocker_kind: str = "vehicle") -> MatchState:
    shooter = tank("s", "a", 20, 24, 0, weapons=[weapon("gun", strength=9)])
    target = tank("t", "b", 40, 24, 180)
    units = [shooter, target]
    if blocker_side == "a" or blocker_side == "b":
        if blocker_kind == "vehicle":
            units.append(tank("wall-tank", blocker_side, 30, 24, 90))
        else:
            units.append(squad("wall-squad", blocker_side, [(30, 22), (30, 23.3), (30, 24.6), (30, 25.9)]))
    return make(units, phase="shooting")


@pytest.mark.parametrize("blocker_side", ["a", "b"])
def test_a_vehicle_of_either_side_blocks_line_of_sight(blocker_side: str) -> None:
    """hh3 core, Line of Sight: a model with the Vehicle type breaks the line, friend or foe."""
    why = rejection(_sight_state(blocker_side), "a", Shoot("s", (Fire("gun", "t"),)))
    assert why is not None and why.code == "no_line_of_sight"


def test_a_flyer_in_the_way_does_not_block() -> None:
    """hh3 Flyers: a model with the Flyer sub-type does not block line of sight."""
    state = _sight_state("b")
    flyer = replace(state.units["wall-tank"], keywords=("flyer",))
    state = replace(state, units={**state.units, "wall-tank": flyer})
    assert rejection(state, "a", Shoot("s", (Fire("gun", "t"),))) is None


def test_without_the_vehicle_in_the_way_the_target_is_seen() -> None:
    """hh3 core, Line of Sight: the same shot with nothing in between is legal and resolves."""
    state = act(_sight_state(None), "a", Shoot("s", (Fire("gun", "t"),)), [6, 1])
    assert "front armour 13, no effect" in log_text(state)


def test_infantry_in_the_way_does_not_block() -> None:
    """hh3 core, Line of Sight [decided]: only models with the Vehicle type block; the squad
    standing where the hull stood does not."""
    assert rejection(_sight_state("a", "infantry"), "a", Shoot("s", (Fire("gun", "t"),))) is None


def test_a_vehicle_in_the_way_blocks_the_charge_line_of_sight() -> None:
    """hh3 core, Charge Sub-Phase: a charge needs line of sight, which a vehicle breaks."""
    troops = squad("c", "a", [(24, 24)])
    target = squad("e", "b", [(34, 24)])
    blocker = tank("wall-tank", "a", 29, 24, 90, length=8.0)
    state = make([troops, target, blocker], phase="assault")
    why = rejection(state, "a", Charge("c", "e"))
    assert why is not None and why.code == "no_line_of_sight"


# --- One facing per attack (hh3 Vehicles, Which facing is hit) --------------------------------------
# Target at (40, 24) facing -x: front AV13, side AV12, rear AV10. Models at x = 20 stand in the
# front zone; a model at (40, 34) stands in a side zone; (25, 33) lies on the front corner line.
FRONT = [(20.0, 22.5), (20.0, 24.0), (20.0, 25.5)]
SIDE = (40.0, 34.0)
CORNER = (25.0, 33.0)


def _attack_state(positions: list[tuple[float, float]], rules: tuple[str, ...] = ()) -> MatchState:
    gun = weapon("las", strength=9, rng=48, rules=rules)
    troops = squad("s", "a", positions, gun=gun)
    target = tank("t", "b", 40, 24, 180, armour=(13, 12, 10))
    return make([troops, target], phase="shooting")


def _all_fire(state: MatchState) -> Shoot:
    return Shoot("s", tuple(Fire(w, "t") for w in sorted(state.units["s"].weapons)))


def test_the_facing_with_most_firing_models_is_hit_by_every_hit() -> None:
    """hh3 Vehicles, Which facing is hit: three firing models in the front zone, one in a side
    zone: the whole attack hits the front, the side model's hit included (4 hits, penetration dice
    1: 10 vs 13)."""
    state = _attack_state([*FRONT, SIDE])
    state = act(state, "a", _all_fire(state), [6, 1] * 4)
    text = log_text(state)
    assert state.pending is None
    assert text.count("vs front armour 13, no effect") == 4
    assert "side armour" not in text
    assert "firing models: 3 in front, 1 in" in text


@pytest.mark.parametrize(("choice", "armour"), [("front", 13), ("side", 12)])
def test_a_tie_is_the_owners_choice_for_the_whole_attack(choice: str, armour: int) -> None:
    """hh3 Vehicles, Which facing is hit ("the vehicle's owner chooses"): one model in front, one in
    a side zone is a tie; the owner (side b) is asked before any die and both hits take the
    chosen facing."""
    state = _attack_state([FRONT[1], SIDE])
    state = act(state, "a", _all_fire(state))
    pending = state.pending
    assert pending is not None and pending.side == "b" and pending.kind == "facing"
    assert pending.options == ("front", "side")
    state = act(state, "b", Decide(pending.id, choice), [6, 1, 6, 1])
    assert log_text(state).count(f"vs {choice} armour {armour}, no effect") == 2


def test_a_lone_blast_firer_on_a_corner_line_takes_the_side() -> None:
    """hh3 Vehicles, Which facing is hit / hh3 Vehicles, Template and Blast Weapons: Blast hits that
    could land on two facings use the Side, so the owner is not asked (penetration 3: 12 vs side
    AV12, glancing; against the front: nothing)."""
    state = _attack_state([CORNER], rules=("blast",))
    state = act(state, "a", _all_fire(state), [6, 3, 1])
    assert state.pending is None
    assert "vs side armour 12, glancing" in log_text(state)


def test_blast_hits_take_the_side_while_the_rest_follow_the_owners_choice() -> None:
    """hh3 Vehicles, Which facing is hit / Template and Blast Weapons: a tie between a model with an
    ordinary gun (front) and one with a Blast weapon (side zone): the owner chooses front, which
    the ordinary hit takes; the Blast hit takes the facing its own firer sees, the Side
    (penetration dice 1: 10 vs 13, 10 vs 12)."""
    state = _attack_state([FRONT[1], SIDE])
    troops = state.units["s"]
    blast = replace(troops.weapons["s-2-gun"], name="frag", rules=("blast",))
    troops = replace(troops, weapons={**troops.weapons, "s-2-gun": blast})
    state = replace(state, units={**state.units, "s": troops})
    state = act(state, "a", _all_fire(state))
    pending = state.pending
    assert pending is not None and pending.options == ("front", "side")
    state = act(state, "b", Decide(pending.id, "front"), [6, 1, 6, 1])
    text = log_text(state)
    assert "las: 10 vs front armour 13, no effect" in text
    assert "frag: 10 vs side armour 12, no effect" in text


def test_a_blast_hit_takes_its_own_firers_facing_not_the_majority() -> None:
    """hh3 Vehicles, Template and Blast Weapons: a vehicle under a Blast marker is hit on the
    facing its firer draws line of sight to. Two models in a side zone and one Blast firer in
    front: the attack's facing is the Side (no decision), but the Blast hit strikes the front."""
    state = _attack_state([FRONT[1], SIDE, (41.0, 34.0)])
    troops = state.units["s"]
    blast = replace(troops.weapons["s-1-gun"], name="frag", rules=("blast",))
    state = replace(
        state, units={**state.units, "s": replace(troops, weapons={**troops.weapons, "s-1-gun": blast})}
    )
    state = act(state, "a", _all_fire(state), [6, 1, 6, 1, 6, 1])
    text = log_text(state)
    assert state.pending is None
    assert "frag: 10 vs front armour 13, no effect" in text
    assert text.count("las: 10 vs side armour 12, no effect") == 2


def test_a_vehicle_firer_is_one_model_in_each_zone_its_weapons_stand_in() -> None:
    """hh3 Vehicles, Which facing is hit [decided]: a firing vehicle is one model: two of its
    weapons mounted in the target's front zone and one in a side zone count 1 front, 1 side - a
    tie the owner decides, not a front majority of weapons."""
    guns = [
        weapon("a1", strength=9, mount=Mount(kind="turret", offset=Point(-2, 0))),
        weapon("a2", strength=9, mount=Mount(kind="turret", offset=Point(-2, 0.5))),
        weapon("b1", strength=9, mount=Mount(kind="turret", offset=Point(2, 0))),
    ]
    state = make([tank("s", "a", 28, 31, 0, weapons=guns), tank("t", "b", 40, 24, 180)], phase="shooting")
    state = act(state, "a", Shoot("s", tuple(Fire(w.id, "t") for w in guns)))
    pending = state.pending
    assert pending is not None and pending.options == ("front", "side")
    assert "firing models: 1 in front, 1 in right" in log_text(state)


# --- Disembarking ends with a move (hh3 core, Placing Disembarked Models) ---------------------------


def _disembarked() -> MatchState:
    troops = squad("s", "a", [(30, 24)] * 4, embarked_in="rhino", m=7.0)
    rhino = transport("rhino", "a", 30, 24, 0, passengers=("s",))
    state = make([rhino, troops, tank("e", "b", 60, 24, 180)])
    spots = {f"s-{k + 1}": Point(28.0 + 1.3 * k, 26.14) for k in range(4)}
    return act(state, "a", Disembark("s", spots))


def test_disembarked_models_may_then_make_a_normal_move() -> None:
    """hh3 core, Placing Disembarked Models: once placed the unit may make a normal move (up to
    M 7 in); then it has used its move."""
    state = _disembarked()
    state = act(state, "a", Move("s", (Point(28.0, 33.0),)))
    lead = state.units["s"].models["s-1"]
    assert (lead.pos.x, lead.pos.y) == (28.0, 33.0)
    why = rejection(state, "a", Move("s", (Point(28.0, 34.0),)))
    assert why is not None and why.code == "already_moved"


def test_the_move_after_disembarking_is_a_normal_move_only() -> None:
    """hh3 core, Placing Disembarked Models: a normal move, so no Rush and no more than M."""
    state = _disembarked()
    why = rejection(state, "a", Move("s", (Point(28.0, 30.0),), kind="rush"))
    assert why is not None and why.code == "disembarked_no_rush"
    why = rejection(state, "a", Move("s", (Point(28.0, 33.3),)))
    assert why is not None and why.code == "too_far"


# --- Rapid (Fast) vehicles (hh3 Vehicle Sub-Types, Rapid) ------------------------------------------------------


def _rushed_rapid() -> MatchState:
    gun = weapon("las", strength=9, rng=48)
    frag = weapon("frag", strength=4, ap=None, rng=24, rules=("blast",))
    rapid = tank("v", "a", 20, 24, 0, m=10, keywords=("rapid",), weapons=[gun, frag])
    state = make([rapid, tank("e", "b", 50, 24, 180)])
    state = act(state, "a", Move("v", (Point(30, 24),), kind="rush"))
    return replace(state, phase="shooting")


def test_a_rapid_vehicle_that_rushed_may_shoot_snap_shots_only() -> None:
    """hh3 Vehicle Sub-Types, Rapid: a Rapid vehicle that Rushed may shoot, every attack a Snap Shot (BS4
    Snap Shots hit on 5+: a 4 misses)."""
    state = _rushed_rapid()
    state = act(state, "a", Shoot("v", (Fire("las", "e"),)), [4])
    text = log_text(state)
    assert "Snap Shots (Rushed)" in text and "las: 0 of 1 hit" in text


def test_a_rushed_rapid_vehicle_cannot_fire_a_weapon_that_cannot_snap() -> None:
    """hh3 Vehicle Sub-Types, Rapid and Blast: a Blast weapon cannot make Snap Shots, so it cannot fire."""
    why = rejection(_rushed_rapid(), "a", Shoot("v", (Fire("frag", "e"),)))
    assert why is not None and why.code == "cannot_snap" and why.values["reason"] == "Rushed"


def test_a_rapid_transport_that_rushed_lets_nobody_disembark() -> None:
    """hh3 Vehicle Sub-Types, Rapid: a Rapid transport that Rushed may not let its passengers disembark."""
    troops = squad("s", "a", [(20, 24)] * 2, embarked_in="rhino")
    rhino = transport("rhino", "a", 20, 24, 0, passengers=("s",), keywords=("rapid",))
    state = make([rhino, troops, tank("e", "b", 60, 24, 180)])
    spots = {"s-1": Point(28.0, 26.14), "s-2": Point(29.3, 26.14)}
    state = act(state, "a", Move("rhino", (Point(30, 24),), kind="rush"))
    why = rejection(state, "a", Disembark("s", spots))
    assert why is not None and why.code == "transport_rushed"
    walked = make([transport("rhino", "a", 30, 24, 0, passengers=("s",), keywords=("rapid",)), troops])
    assert rejection(walked, "a", Disembark("s", spots)) is None


# --- Super-heavy and Stable vehicles (hh3 Vehicle Sub-Types, Super-heavy, Stable) --------------------------
SWAMP = wall("swamp", 24, 20, 26, 28, "dangerous", "difficult")


def test_difficult_or_dangerous_terrain_slows_a_move_by_2in() -> None:
    """hh3 core, Line of Movement: crossing difficult or dangerous terrain reduces the Movement
    by 2 in: M10 moves at most 8 in through the swamp (then a dangerous terrain test)."""
    state = make([tank("v", "a", 20, 24, 0, m=10)], terrain=[SWAMP])
    why = rejection(state, "a", Move("v", (Point(30, 24),)))
    assert why is not None and why.code == "too_far" and why.values["limit"] == 8.0
    state = act(state, "a", Move("v", (Point(28, 24),)), [2])
    assert rolls(state) == [("dangerous terrain", 2)]


def test_a_super_heavy_vehicle_ignores_difficult_and_dangerous_terrain() -> None:
    """hh3 Vehicle Sub-Types, Super-heavy: not affected by difficult or dangerous terrain: the full 10 in
    through the swamp, and no dangerous terrain test (no die at all)."""
    state = make([tank("v", "a", 20, 24, 0, m=10, keywords=("super-heavy",))], terrain=[SWAMP])
    state = act(state, "a", Move("v", (Point(30, 24),)))
    assert rolls(state) == [] and state.units["v"].hp == 3


def _heavy_shot(keywords: tuple[str, ...], statuses: dict[str, int] | None = None) -> str:
    gun = weapon("cannon", strength=8, rules=("heavy:s",))
    shooter = tank("v", "a", 20, 24, 0, m=10, keywords=keywords, weapons=[gun])
    shooter = replace(shooter, statuses=statuses or {})
    state = make([shooter, tank("t", "b", 40, 24, 180)])
    state = act(state, "a", Move("v", (Point(24, 24),)))
    state = act(replace(state, phase="shooting"), "a", Shoot("v", (Fire("cannon", "t"),)), [6, 1])
    (target,) = [
        r.target
        for e in state.log
        if e.seq == state.seq
        for r in e.rolls
        if r.purpose == "armour penetration"
    ]
    return target


@pytest.mark.parametrize("keyword", ["stable", "super-heavy"])
def test_stable_and_super_heavy_vehicles_count_as_stationary_for_heavy(keyword: str) -> None:
    """hh3 Vehicle Sub-Types, Stable / Super-heavy: always Stationary for its weapons, so Heavy (S) adds 1
    Strength after a move (S8 fires at S9); a vehicle without the rule gets nothing."""
    assert _heavy_shot((keyword,)) == "S9 vs AV13"
    assert _heavy_shot(()) == "S8 vs AV13"


def test_a_status_still_takes_the_stationary_benefit_away() -> None:
    """hh3 Vehicles, Statuses (any status: no Stationary benefit) [decided: Stable does not override it]."""
    assert _heavy_shot(("stable",), {"stunned": 0}) == "S8 vs AV13"


def test_a_rushed_rapid_vehicle_makes_one_shooting_attack_only() -> None:
    """hh3 Vehicle Sub-Types, Rapid: no multiple Shooting Attacks in a turn in which it Rushed."""
    state = _rushed_rapid()
    state = replace(state, units={**state.units, "e2": tank("e2", "b", 50, 34, 180)})
    why = rejection(state, "a", Shoot("v", (Fire("las", "e"), Fire("frag", "e2"))))
    assert why is not None and why.code == "rushed_split_fire"


def test_a_rapid_transport_that_let_passengers_out_cannot_rush() -> None:
    """hh3 Vehicle Sub-Types, Rapid: a Rapid transport that Rushes may not Disembark anyone in that turn,
    so after its passengers got out it may still move normally, not Rush."""
    troops = squad("s", "a", [(20, 24)] * 2, embarked_in="rhino")
    rhino = transport("rhino", "a", 30, 24, 0, passengers=("s",), keywords=("rapid",))
    state = make([rhino, troops, tank("e", "b", 60, 24, 180)])
    state = act(state, "a", Disembark("s", {"s-1": Point(28.0, 26.14), "s-2": Point(29.3, 26.14)}))
    why = rejection(state, "a", Move("rhino", (Point(30, 14),), kind="rush"))
    assert why is not None and why.code == "transport_unloaded"
    assert rejection(state, "a", Move("rhino", (Point(30, 16),))) is None


def test_stable_gets_no_stationary_benefit_after_a_rush() -> None:
    """hh3 Vehicle Sub-Types, Stable: always Stationary for its weapons, except after a Rush (a Rapid and
    Stable vehicle that Rushed fires its Heavy (S) cannon at S8, as Snap Shots: BS4 5+)."""
    gun = weapon("cannon", strength=8, rules=("heavy:s",))
    shooter = tank("v", "a", 20, 24, 0, m=10, keywords=("stable", "rapid"), weapons=[gun])
    state = make([shooter, tank("t", "b", 40, 24, 180)])
    state = act(state, "a", Move("v", (Point(24, 24),), kind="rush"))
    state = act(replace(state, phase="shooting"), "a", Shoot("v", (Fire("cannon", "t"),)), [6, 1])
    targets = [r.target for e in state.log if e.seq == state.seq for r in e.rolls]
    assert targets == ["5+", "S8 vs AV13"]


# --- Volley Attacks (hh3 core, Charge Procedure step 4; hh3 Vehicles, Combat) -----------------------


def _volley_state() -> MatchState:
    weapons = [
        weapon("hb", strength=5, ap=4, rng=36, kind="assault"),
        weapon("storm", strength=4, ap=5, rng=24, kind="assault"),
        weapon("cannon", strength=8, ap=3, rng=36, kind="heavy"),
        weapon("pintle", strength=8, ap=3, rng=36, kind="heavy", mount=Mount(kind="pintle")),
    ]
    # 3 in back: the Set-up Move (I4 + M7 = 11: 3 in) brings them to 30 (hh3 core, Charge Procedure)
    troops = squad("s", "a", [(27, 24), (27, 25.5)], melee=weapon("fist", strength=4, kind="melee", rng=0))
    return make([troops, tank("v", "b", 36, 24, 180, weapons=weapons)], phase="assault")


def test_only_assault_weapons_and_pintle_mounts_may_volley() -> None:
    """hh3 core, Charge Procedure step 4: Volley Attacks use Assault weapons only; a Pintle mounted
    weapon counts as having the Assault trait (hh3 Vehicles, Weapon Mounts). The Heavy cannon is
    not offered."""
    state = act(_volley_state(), "a", Charge("s", "v"))
    pending = state.pending
    assert pending is not None and pending.kind == "volley" and pending.side == "b"
    assert pending.options == ("all", "none", "hb", "pintle", "storm")
    assert rolls(state) == []


def test_the_owner_chooses_which_weapons_volley() -> None:
    """hh3 Vehicles, Combat / hh3 core step 4: the owner picks the heavy bolter, then stops: only its one
    Snap Shot is rolled (a 1 misses), then the charge roll."""
    state = act(_volley_state(), "a", Charge("s", "v"))
    assert state.pending is not None
    state = act(state, "b", Decide(state.pending.id, "hb"))
    pending = state.pending
    assert pending is not None and pending.options == ("all", "done", "pintle", "storm")
    state = charge(state, "b", Decide(pending.id, "done"), [1, 2, 4])
    assert [p for p, _ in rolls(state, state.seq - 1)] == [
        "volley hit test (Snap Shot)",
        "charge roll",
        "charge roll",
    ]  # the charge move's answer rolls none
    assert "Volley Attacks with hb: 0 of 1 hit" in log_text(state)
    assert "with storm" not in log_text(state)


def test_the_owner_may_choose_not_to_volley() -> None:
    """hh3 core step 4: either side may choose not to volley: no volley die, only the charge roll."""
    state = act(_volley_state(), "a", Charge("s", "v"))
    assert state.pending is not None
    state = charge(state, "b", Decide(state.pending.id, "none"), [2, 4])
    assert [p for p, _ in rolls(state, state.seq - 1)] == [
        "charge roll",
        "charge roll",
    ]  # the charge move's answer rolls none
    assert state.units["s"].flag("charge_ok")


def test_no_volley_from_a_unit_already_locked_in_combat() -> None:
    """hh3 core step 4: if the charged unit is already locked in combat, it makes no Volley."""
    gun = weapon("bolt", strength=4, ap=5, rng=24, kind="assault")
    target = squad("t", "b", [(40, 24)], gun=gun)
    other = squad("o", "a", [(41.3, 24)])
    charger = squad("c", "a", [(34, 24)])
    state = charge(make([charger, target, other], phase="assault"), "a", Charge("c", "t"), [6, 6])
    assert state.pending is None
    assert "already locked in combat: no Volley Attacks" in log_text(state)


# --- Light Transport and Bulky (X); Defensive weapons by designation --------------------------------


def _embark(*keywords: str, bulky: int = 1) -> MatchState:
    carrier = transport("light", "a", 30, 24, 0, keywords=("light_transport",))
    troops = squad("s", "a", [(27.6 + 1.3 * k, 26.6) for k in range(2)], bulky=bulky, keywords=keywords)
    return make([carrier, troops])


@pytest.mark.parametrize(("keywords", "bulky"), [(("bulky:1",), 1), (("bulky",), 1), ((), 2)])
def test_a_light_transport_refuses_any_bulky_model_bulky_1_included(
    keywords: tuple[str, ...], bulky: int
) -> None:
    """hh3 Armoury, Light Transport and Bulky (X) [decided: any X]: Bulky (1), written as the
    keyword or bare, and Bulky (2) models cannot embark."""
    why = rejection(_embark(*keywords, bulky=bulky), "a", Embark("s", "light"))
    assert why is not None and why.code == "light_transport"


def test_a_light_transport_takes_models_without_bulky() -> None:
    """hh3 Armoury, Light Transport: models without the Bulky rule embark (1 point each)."""
    state = act(_embark(), "a", Embark("s", "light"))
    assert state.units["s"].embarked_in == "light" and "(2/12)" in log_text(state)


def test_bulky_keyword_counts_x_points_of_capacity() -> None:
    """hh3 Transport sub-type, Who can get in: a Bulky (3) model takes 3 points: two of them need 6
    of a capacity of 5."""
    carrier = transport("rhino", "a", 30, 24, 0, capacity=5)
    troops = squad("s", "a", [(27.6 + 1.3 * k, 26.6) for k in range(2)], keywords=("bulky:3",))
    why = rejection(make([carrier, troops]), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "over_capacity" and why.values["needed"] == 6


def test_a_weapon_designated_defensive_does_not_snap_when_splitting_fire() -> None:
    """hh3 Vehicles, Defensive Weapons and Battle Weapons: a weapon designated Defensive on its
    profile is Defensive whatever its Strength: an S8 hull gun marked so fires at full BS (3+)
    when the vehicle splits its fire, while the unmarked S8 cannon makes Snap Shots (5+)."""
    marked = replace(weapon("hull-gun", strength=8, mount=Mount(kind="hull", arc="front")), defensive=True)
    cannon = weapon("cannon", strength=8)
    shooter = tank("v", "a", 20, 24, 0, weapons=[marked, cannon])
    state = make([shooter, tank("t1", "b", 40, 24, 180), tank("t2", "b", 40, 34, 180)], phase="shooting")
    state = act(state, "a", Shoot("v", (Fire("hull-gun", "t1"), Fire("cannon", "t2"))), [4, 4, 1])
    targets = [r.target for e in state.log if e.seq == state.seq for r in e.rolls if r.purpose == "hit test"]
    assert targets == ["3+", "5+"]
    assert "hull-gun (Defensive, 1 shot, full BS)" in log_text(state)


# --- Repair Tests with added dice (hh3 Vehicles, Repair Test: "some special rules add dice") --------


def _repairing(*keywords: str) -> MatchState:
    vehicle = replace(tank("v", "a", 20, 24, keywords=keywords), statuses={"pinned": 0})
    return make([vehicle, tank("enemy", "b", 50, 24)], phase="end")


def test_a_rule_that_adds_dice_rolls_them_all_and_any_six_repairs() -> None:
    """hh3 Repair Test: repair_dice:2 adds two dice: 2, 6, 1 -> passed, the one status goes."""
    state = act(_repairing("repair_dice:2"), "a", EndPhase(), [2, 6, 1])
    assert [p for p, _ in rolls(state)] == ["Repair Test (v)"] * 3
    assert state.units["v"].statuses == {}


def test_added_dice_without_a_six_fail_and_one_die_without_the_rule() -> None:
    """hh3 Repair Test: 5, 4 with one added die fail; without the rule only one die is rolled."""
    state = act(_repairing("repair_dice:1"), "a", EndPhase(), [5, 4])
    assert state.units["v"].statuses == {"pinned": 0}
    state = act(_repairing(), "a", EndPhase(), [6])
    assert state.units["v"].statuses == {}


def test_added_dice_combine_with_a_lowered_target() -> None:
    """hh3 Repair Test: Auto-repair (4) lowers the target to 4+ and repair_dice:1 adds a die:
    3, 4 passes."""
    state = act(_repairing("repair_dice:1", "auto_repair:4"), "a", EndPhase(), [3, 4])
    assert state.units["v"].statuses == {}


# --- Combat resolution with vehicles (hh3 Vehicles, Combat; hh3 core, Resolution Sub-Phase) ---------
# A tank at (36, 24) facing -x: its front edge is x = 33.5. Bases of radius 0.63 centred at
# x = 32.86 touch it; at x = 31.59 they touch those.
TOUCH = 32.86
BEHIND = 31.59


def _melee(*units: Unit) -> MatchState:
    return make([tank("v", "b", 36, 24, 180), *units], phase="assault")


def test_a_lone_vehicle_loses_on_models_and_can_only_hold() -> None:
    """hh3 Vehicles, Combat ("a lone vehicle will normally lose the combat. It can only Hold") with the
    Resolution Sub-Phase: two attackers, no model removed: side a 1 point for the most models,
    side b 0: side a wins; the vehicle cannot be Routed (no Panic Check, no die) and Holds."""
    state = _melee(squad("s", "a", [(TOUCH, 24), (TOUCH, 25.3)]))
    state = act(state, "a", Fight("s", "v"), [1, 1])
    state = act(state, "a", EndPhase())
    text = log_text(state)
    assert "side a 1 points, side b 0 points (models 2 against 1)" in text
    assert "Side a wins the combat." in text and "no Panic Check" in text
    assert "v is a vehicle: it can only Hold." in text
    assert rolls(state) == [] and state.units["v"].statuses == {}


def test_a_lone_vehicle_against_a_lone_model_is_a_draw() -> None:
    """hh3 core, Resolution Sub-Phase: one model against one, nothing removed: 0 - 0, a draw."""
    state = _melee(squad("p", "a", [(TOUCH, 24)], kind="paragon"))
    state = act(state, "a", Fight("p", "v"), [1])
    state = act(state, "a", EndPhase())
    assert "The combat is a draw." in log_text(state)


def _mixed_loser(kind: UnitKind = "infantry", w: int = 1) -> MatchState:
    attackers = squad("s", "a", [(TOUCH, 24), (TOUCH, 25.3), (TOUCH, 22.7)])
    defenders = squad(
        "t",
        "b",
        [(BEHIND, 24)] + ([(BEHIND - 1.27, 24)] if kind == "infantry" else []),
        kind=kind,
        w=w,
        sv=None,
    )
    return _melee(attackers, defenders)


def test_the_losing_side_panics_and_its_infantry_is_routed_while_its_vehicle_holds() -> None:
    """hh3 core, Resolution Sub-Phase: s kills one of t's two models: side a 1 + 1 (3 models
    against 2) = 2, side b 0. One Panic Check for the losers at Leadership 7 - 2 = 5: 3 + 3 fails,
    t gains Routed; the tank in the same combat cannot be Routed and can only Hold. hh3 core,
    Fight Sub-Phase: both of t's models strike back at Initiative step 4 (the slain one too: the
    step is simultaneous) and miss (1, 1); the tank does not attack (hh3 Vehicles, Combat)."""
    state = act(_mixed_loser(), "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1, 1])  # hh3 core, Wound Allocation
    state = act(state, "a", EndPhase(), [3, 3, 3])
    text = log_text(state)
    assert "side a 2 points, side b 0 points (models 3 against 2)" in text
    assert state.units["t"].statuses == {"routed": 0}
    assert state.units["v"].statuses == {}
    assert "v is a vehicle: it can only Hold." in text
    assert [p for p, _ in rolls(state)] == ["Panic Check (t)", "Panic Check (t)", "Fall Back (t)"]
    # hh3 core, Resolution Sub-Phase, Aftermath (Fall Back): t-2 (I4) moves 4 + 3 = 7 in straight
    # away from s-1; the tank stays where it is and s, still touching it, Holds.
    assert "t is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in text and "s Holds." in text
    assert state.units["t"].models["t-2"].pos == Point(BEHIND - 1.27 - 7.0, 24.0)
    assert state.units["v"].models == _mixed_loser().units["v"].models


def test_a_passed_panic_check_changes_nothing() -> None:
    """hh3 core, Resolution Sub-Phase: the same combat (t's strike back misses: 1, 1), Panic
    Check 2 + 3 = 5 passes."""
    state = act(_mixed_loser(), "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1, 1])  # hh3 core, Wound Allocation
    state = act(state, "a", EndPhase(), [2, 3])
    assert state.units["t"].statuses == {}


def test_a_slain_paragon_counts_its_base_wounds_for_combat_resolution() -> None:
    """Paragon (seed glossary: "counts as its base Wounds value for combat resolution"): s slays a
    W2 Paragon (two wounds) while the tank fights on: side a 2 (its base Wounds) + 1 (3 models
    against 1) = 3 points, not 2; side b (only the tank left) makes no Panic Check. hh3 core,
    Fight Sub-Phase: the Paragon, slain at Initiative step 4, still strikes back in that step
    (simultaneous) and misses (1)."""
    state = act(_mixed_loser("paragon", w=2), "a", Fight("s", "t"), [6, 6, 6, 6, 1])
    assert state.units["t"].destroyed
    state = act(state, "a", EndPhase())
    assert "side a 3 points, side b 0 points (models 3 against 1)" in log_text(state)


# --- Battlesmith (X) (hh3 Armoury; the seed: statuses go "with a Repair Test or Battlesmith") -----


def _smith(
    x: int = 1, hp: int = 3, vehicle_statuses: dict[str, int] | None = None, at: float = 26.0
) -> MatchState:
    smith = squad("smith", "a", [(at, 24)], keywords=(f"battlesmith:{x}",))
    smith = replace(smith, profile=replace(smith.profile, intelligence=8))
    rhino = replace(tank("rhino", "a", 20, 24, hp=3), hp=hp, statuses=vehicle_statuses or {})
    return make([smith, rhino, tank("e", "b", 60, 24, 180)])


def _mend() -> Move:
    return Move("smith", kind="battlesmith", target="rhino")


def test_battlesmith_repairs_x_hull_points_on_a_passed_intelligence_check() -> None:
    """hh3 Armoury, Battlesmith (1): Intelligence Check 3 + 4 = 7 <= 8 passes; the only useful
    option, Repair, gives back 1 HP (1 -> 2); the Battlesmith may still move afterwards."""
    state = act(_smith(hp=1), "a", _mend(), [3, 4])
    assert state.pending is None and state.units["rhino"].hp == 2
    assert [p for p, _ in rolls(state)] == ["Intelligence Check (smith)"] * 2
    assert rejection(state, "a", Move("smith", (Point(27, 24),))) is None
    why = rejection(state, "a", _mend())
    assert why is not None and why.code == "battlesmith_used"


def test_battlesmith_never_repairs_above_the_base_hull_points() -> None:
    """hh3 Armoury, Battlesmith (3): 3 HP back at most up to the base value: 2 -> 3."""
    state = act(_smith(x=3, hp=2), "a", _mend(), [1, 1])
    assert state.units["rhino"].hp == 3


def test_a_failed_intelligence_check_does_nothing() -> None:
    """hh3 Armoury, Battlesmith: 5 + 6 = 11 > 8 fails: no effect."""
    state = act(_smith(hp=1), "a", _mend(), [5, 6])
    assert state.units["rhino"].hp == 1 and "fails the Intelligence Check" in log_text(state)


def test_battlesmith_owner_chooses_repair_or_restore_then_which_status() -> None:
    """hh3 Armoury, Battlesmith (1): damaged and Pinned and Stunned: the owner chooses Restore,
    then which status goes (one, X = 1): Stunned; the vehicle keeps Pinned and its HP."""
    state = act(_smith(hp=2, vehicle_statuses={"pinned": 0, "stunned": 0}), "a", _mend(), [2, 2])
    pending = state.pending
    assert pending is not None and pending.kind == "battlesmith" and pending.options == ("repair", "restore")
    state = act(state, "a", Decide(pending.id, "restore"))
    pending = state.pending
    assert pending is not None and pending.options == ("pinned", "stunned")
    state = act(state, "a", Decide(pending.id, "stunned"))
    rhino = state.units["rhino"]
    assert state.pending is None and rhino.statuses == {"pinned": 0} and rhino.hp == 2


def test_battlesmith_2_restores_both_statuses_at_once() -> None:
    """hh3 Armoury, Battlesmith (2): Restore removes up to two statuses: both go, nobody asked."""
    state = act(_smith(x=2, vehicle_statuses={"pinned": 0, "suppressed": 0}), "a", _mend(), [2, 2])
    assert state.pending is None and state.units["rhino"].statuses == {}


def test_battlesmith_rejections() -> None:
    """hh3 Armoury, Battlesmith (X): a friendly Vehicle within 6 in that needs mending, once."""
    why = rejection(_smith(hp=1, at=30.0), "a", _mend())
    assert why is not None and why.code == "too_far"
    why = rejection(_smith(), "a", _mend())
    assert why is not None and why.code == "nothing_to_repair"
    why = rejection(_smith(hp=1), "a", Move("smith", kind="battlesmith", target="e"))
    assert why is not None and why.code == "unknown_target"
    plain = replace(
        _smith(hp=1), units={**_smith(hp=1).units, "smith": replace(_smith().units["smith"], keywords=())}
    )
    why = rejection(plain, "a", _mend())
    assert why is not None and why.code == "no_battlesmith"


# --- A Paragon allocates the hits it inflicts (seed glossary, Paragon) ---------------------------


def _paragon_duel(kind: UnitKind = "paragon") -> MatchState:
    pistol = weapon("pistol", strength=4, ap=None, shots=2, rng=24, kind="assault")
    hero = squad("p", "a", [(20, 24)], kind=kind, gun=pistol)
    victims = squad("t", "b", [(30, 24), (31.5, 24), (33, 24)], sv=3)
    return make([hero, victims], phase="shooting")


def test_a_paragon_names_the_model_its_shooting_hits_go_to() -> None:
    """Paragon: "allocates the hits it inflicts itself, both shooting and in melee". The Paragon
    aims at t-3, the farthest model: the first hit slays it (wound 6, save 1); once it is dead the
    next hit is allocated as usual, to the closest model t-1."""
    state = _paragon_duel()
    shoot = Shoot("p", (Fire("p-1-gun", "t", target_model="t-3"),))
    state = act(state, "a", shoot, [6, 6, 6, 1, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1])  # hh3 core, Wound Allocation
    alive = {mid: m.alive for mid, m in state.units["t"].models.items()}
    assert alive == {"t-1": False, "t-2": True, "t-3": False}


def test_without_naming_a_model_the_closest_takes_the_hits() -> None:
    """The usual allocation [decided]: the closest models first (t-1, then t-2)."""
    state = act(_paragon_duel(), "a", Shoot("p", (Fire("p-1-gun", "t"),)), [6, 6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 6])  # hh3 core, Wound Allocation
    state = take_proposal(state, DECISION_ALLOCATE, [1])
    alive = {mid: m.alive for mid, m in state.units["t"].models.items()}
    assert alive == {"t-1": False, "t-2": False, "t-3": True}


def test_only_a_paragon_names_the_model_and_it_must_be_alive() -> None:
    """Paragon: the choice is the Paragon's; other units are refused, and so is a model that is
    not in the target unit."""
    why = rejection(_paragon_duel("infantry"), "a", Shoot("p", (Fire("p-1-gun", "t", target_model="t-3"),)))
    assert why is not None and why.code == "not_a_paragon"
    why = rejection(_paragon_duel(), "a", Shoot("p", (Fire("p-1-gun", "t", target_model="t-9"),)))
    assert why is not None and why.code == "unknown_model"


def test_a_paragon_allocates_its_melee_hits_too() -> None:
    """Paragon, in melee: the Paragon in contact with t-1 aims its hit at t-2 (wound 6, save 1).
    Both of t's models strike back at the same Initiative step 4 (hh3 core, Fight Sub-Phase; t-2,
    engaged within 2 in of t-1, strikes though slain in that step) and miss (1, 1)."""
    hero = squad("p", "a", [(30 - 1.27, 24)], kind="paragon", a=1)
    victims = squad("t", "b", [(30, 24), (31.3, 24)], sv=3)
    state = make([hero, victims], phase="assault")
    state = act(state, "a", Fight("p", "t", target_model="t-2"), [6, 6, 1, 1, 1])
    alive = {mid: m.alive for mid, m in state.units["t"].models.items()}
    assert alive == {"t-1": True, "t-2": False}


def test_other_editions_refuse_a_target_model() -> None:
    """Paragon allocation exists in hh3 only: a 40k11 shot naming a model is refused, not ignored."""
    from tests.wh40k11 import builders as w11

    gun = w11.weapon("gun", "a1-1")
    s = w11.state(
        w11.infantry("a1", "a", [(10, 10)], weapons=(gun,)),
        w11.infantry("b1", "b", [(20, 10)]),
        phase="shooting",
    )
    why = rejection(s, "a", Shoot("a1", (Fire("gun", "b1", target_model="b1-1"),)))
    assert why is not None and why.code == "unsupported_field"


def test_other_editions_refuse_a_smash_attack() -> None:
    """Smash Attacks (``Fight.smash``) are a 40k7 special rule (40k7 Special Rules, Smash): an hh3
    fight asking for one is refused, not ignored."""
    hero = squad("p", "a", [(30 - 1.27, 24)], kind="paragon", a=1)
    victims = squad("t", "b", [(30, 24), (31.3, 24)], sv=3)
    state = make([hero, victims], phase="assault")
    why = rejection(state, "a", Fight("p", "t", smash=True))
    assert why is not None and why.code == "unsupported_field" and "smash" in why.message
