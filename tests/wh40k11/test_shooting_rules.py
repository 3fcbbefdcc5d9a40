"""40k11 shooting rejections, each with its reason (17.03, 17.03.01 and core)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fire, Shoot
from hulldown.match.rejection import Rejection
from hulldown.match.state import MatchState, Point, Terrain
from hulldown.rules.wh40k11.shooting import plan_shoot

from .builders import check, infantry, state, step, vehicle, weapon


def shot(s: MatchState, unit: str, *fires: tuple[str, str]) -> Rejection:
    problem = check(s, Shoot(unit=unit, fire=tuple(Fire(weapon=w, target=t) for w, t in fires)))
    assert problem is not None
    return problem


def melee() -> MatchState:
    """Side a's squad is engaged with side b's infantry 'foe'; side b also has a tank engaged with
    a's 'guard', and an unengaged infantry 'free'."""
    squad = infantry(
        "squad",
        "a",
        [(10, 10)],
        weapons=(
            weapon("rifle", "squad-1"),
            weapon("knife_gun", "squad-1", rng=6, rules=("close_quarters",)),
            weapon("sword", "squad-1", kind="melee"),
        ),
    )
    foe = infantry("foe", "b", [(12, 10)])
    tank = vehicle("tank", "b", 40, 30)
    guard = infantry("guard", "a", [(44.63, 30)], weapons=(weapon("g_rifle", "guard-1"),))
    free = infantry("free", "b", [(30, 10)])
    shooters = infantry(
        "shooters",
        "a",
        [(30, 20)],
        weapons=(
            weapon("s_rifle", "shooters-1", rng=30),
            weapon("s_frag", "shooters-1", rng=30, rules=("blast",)),
            weapon("s_short", "shooters-1", rng=5),
        ),
    )
    return state(squad, foe, tank, guard, free, shooters, phase="shooting")


def test_engaged_infantry_without_close_quarters_weapons_cannot_shoot() -> None:
    """40k11 17.03.01: an engaged unit is not eligible to shoot unless it can use close-quarters
    shooting; 'guard' (engaged with the tank) has no [CLOSE-QUARTERS] weapon."""
    problem = shot(melee(), "guard", ("g_rifle", "tank"))
    assert problem.code == "engaged_cannot_shoot"
    assert problem.rule.startswith("40k11 17.03.01")
    assert "engaged with tank" in problem.message


def test_close_quarters_only_and_only_at_engaged_units() -> None:
    """40k11 17.03.01, core Close-quarters shooting: an engaged non-MONSTER/VEHICLE unit fires only
    [CLOSE-QUARTERS] weapons, only at units it is engaged with (no -1 against infantry)."""
    s = melee()
    assert shot(s, "squad", ("rifle", "foe")).code == "close_quarters_only"
    problem = shot(s, "squad", ("knife_gun", "free"))
    assert problem.code == "close_quarters_target" and "foe" in problem.message
    plans = plan_shoot(s, Shoot(unit="squad", fire=(Fire(weapon="knife_gun", target="foe"),)))
    assert not isinstance(plans, Rejection) and [p.modifier for p in plans] == [0]


def test_normal_shooting_cannot_target_engaged_infantry() -> None:
    """40k11 core: engaged units cannot be targeted, except engaged MONSTER/VEHICLE units (17.03)."""
    s = melee()
    problem = shot(s, "shooters", ("s_rifle", "foe"))
    assert problem.code == "target_engaged"
    assert "not a MONSTER/VEHICLE" in problem.message
    # ...but the engaged tank can be targeted, at -1.
    plans = plan_shoot(s, Shoot(unit="shooters", fire=(Fire(weapon="s_rifle", target="tank"),)))
    assert not isinstance(plans, Rejection) and [p.modifier for p in plans] == [-1]


def test_blast_cannot_target_engaged_vehicle() -> None:
    """40k11 17.03: [BLAST] weapons can never target an engaged MONSTER/VEHICLE unit."""
    problem = shot(melee(), "shooters", ("s_frag", "tank"))
    assert problem.code == "blast_at_engaged"
    assert problem.values == {"weapon": "s_frag", "target": "tank"}
    assert check(melee(), Shoot(unit="shooters", fire=(Fire(weapon="s_frag", target="free"),))) is None


def test_melee_weapon_range_friendly_and_repeat() -> None:
    """40k11 core: no melee weapons in the Shooting phase, range, own units, one shot per weapon."""
    s = melee()
    assert shot(s, "squad", ("sword", "foe")).code == "melee_weapon"
    problem = shot(s, "shooters", ("s_short", "free"))
    assert problem.code == "out_of_range" and problem.values["range"] == 5.0
    assert shot(s, "shooters", ("s_rifle", "squad")).code == "friendly_target"
    assert shot(s, "shooters", ("s_rifle", "free"), ("s_rifle", "free")).code == "weapon_twice"


def test_shoots_once_per_phase_and_only_in_shooting_phase() -> None:
    """40k11 core: a unit shoots once per Shooting phase."""
    s = melee()
    after = step(s, Shoot(unit="shooters", fire=(Fire(weapon="s_rifle", target="free"),)), [1])
    assert shot(after, "shooters", ("s_frag", "free")).code == "already_shot"
    moving = melee()
    assert shot(replace(moving, phase="movement"), "shooters", ("s_rifle", "free")).code == "wrong_phase"


def test_line_of_sight_blocked_by_terrain() -> None:
    """40k11 core [ext]: a target no firing model can see cannot be shot (terrain 'blocks_los')."""
    wall = Terrain(
        id="wall", points=(Point(19, 0), Point(21, 0), Point(21, 48), Point(19, 48)), kinds=("blocks_los",)
    )
    s = state(
        infantry("gunner", "a", [(10, 24)], weapons=(weapon("rifle", "gunner-1"),)),
        infantry("hidden", "b", [(30, 24)]),
        phase="shooting",
        terrain=(wall,),
    )
    problem = shot(s, "gunner", ("rifle", "hidden"))
    assert problem.code == "no_line_of_sight"


def test_monster_vehicle_close_quarters_cannot_target_units_engaged_with_others() -> None:
    """40k11 core, Close-quarters shooting [decided]: an engaged VEHICLE may shoot unengaged units
    and units it is engaged with, not infantry engaged only with other units."""
    s = melee()
    s = replace(s, active="b")
    tank = s.units["tank"]
    s = replace(s, units={**s.units, "tank": replace(tank, weapons={"gun": weapon("gun", "tank-m", rng=48)})})
    assert shot(s, "tank", ("gun", "squad")).code == "target_engaged"
    plans = plan_shoot(
        s,
        Shoot(unit="tank", fire=(Fire(weapon="gun", target="guard"), Fire(weapon="gun", target="shooters"))),
    )
    assert isinstance(plans, Rejection) and plans.code == "weapon_twice"
    for target in ("guard", "shooters"):
        plans = plan_shoot(s, Shoot(unit="tank", fire=(Fire(weapon="gun", target=target),)))
        assert not isinstance(plans, Rejection) and [p.modifier for p in plans] == [-1]


def test_a_slain_models_close_quarters_weapon_does_not_make_its_unit_eligible() -> None:
    """40k11 17.03.01 ("a unit that is engaged with an enemy MONSTER/VEHICLE unit is still not
    eligible to shoot ... unless that unit is eligible to shoot while engaged"): 'pair' is engaged
    with side b's tank; its only [CLOSE-QUARTERS] weapon, pair-2's pistol, went with pair-2 when it
    was slain. Left with pair-1's rifle, the unit cannot use close-quarters shooting, so it is not
    eligible to shoot at all (engaged_cannot_shoot), not told it may fire only [CLOSE-QUARTERS]
    weapons it no longer has."""
    pair = infantry(
        "pair",
        "a",
        [(36.4, 24), (36.4, 25.5)],
        weapons=(weapon("rifle", "pair-1"), weapon("pistol", "pair-2", rng=12, rules=("close_quarters",))),
    )
    slain = replace(pair.models["pair-2"], wounds=0, alive=False)
    pair = replace(pair, models={**pair.models, "pair-2": slain})
    s = state(pair, vehicle("tank", "b", 40, 24), phase="shooting")
    problem = shot(s, "pair", ("rifle", "tank"))
    assert problem.code == "engaged_cannot_shoot"
    assert problem.rule.startswith("40k11 17.03.01")
    assert problem.values == {"engaged_with": "tank"}


def test_close_quarters_limits_off_monsters_and_vehicles_cite_the_core_rule() -> None:
    """40k11 core, Close-quarters shooting: 'squad' is engaged with infantry 'foe' only, so its
    limits (only [CLOSE-QUARTERS] weapons, only at units it is engaged with) come from the core
    rule; 17.03.01 speaks of units engaged with an enemy MONSTER/VEHICLE unit and is cited only
    then (B in the worked example of 17.03.01, engaged with the Vehicle)."""
    s = melee()
    only = shot(s, "squad", ("rifle", "foe"))
    target = shot(s, "squad", ("knife_gun", "free"))
    assert (only.code, only.rule) == ("close_quarters_only", "40k11 core, Close-quarters shooting")
    assert (target.code, target.rule) == ("close_quarters_target", "40k11 core, Close-quarters shooting")
    guard = s.units["guard"]  # engaged with the tank
    armed = replace(
        guard, weapons={**guard.weapons, "g_pistol": weapon("g_pistol", "guard-1", rules=("close_quarters",))}
    )
    s = replace(s, units={**s.units, "guard": armed})
    problem = shot(s, "guard", ("g_rifle", "tank"))
    assert (problem.code, problem.rule) == (
        "close_quarters_only",
        "40k11 17.03.01 Shooting while engaged with Monsters/Vehicles",
    )
