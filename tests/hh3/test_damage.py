"""hh3 damage (hh3 Vehicles, No Armour Save, Armour penetration to Wrecks; Armoury, Explodes (X)):
penetration, saves, Damage Mitigation, Hull Points, Explodes (X) and wrecks."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fire, Move, Shoot
from hulldown.match.state import MatchState, Options, Point, Unit
from hulldown.rules.hh3 import tables
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY

from .builders import act, log_text, make, rolls, squad, take_proposal, tank, transport, wall, weapon


def _shoot_at(
    target: Unit,
    *,
    gun_rules: tuple[str, ...] = (),
    damage: int = 1,
    strength: int = 9,
    extra: tuple[Unit, ...] = (),
    options: Options | None = None,
    terrain: tuple[object, ...] = (),
) -> tuple[MatchState, Shoot]:
    gun = weapon("gun", strength=strength, damage=damage, rules=gun_rules)
    shooter = tank("v", "a", 20, 24, 0, weapons=[gun])
    state = make([shooter, target, *extra], phase="shooting", options=options, terrain=terrain)  # type: ignore[arg-type]
    return state, Shoot("v", (Fire("gun", target.id),))


def test_penetration_lower_equal_higher() -> None:
    """hh3 Vehicles, Armour penetration: D6 + S vs armour: lower nothing, equal glancing, higher
    penetrating."""
    target = tank("t", "b", 40, 24, 180, armour=(13, 12, 10))
    for die, verdict in ((3, "no effect"), (4, "glancing"), (5, "penetrating")):
        state, shoot = _shoot_at(target)
        extra = {"no effect": [], "glancing": [1], "penetrating": []}[verdict]
        state = act(state, "a", shoot, [6, die, *extra])
        assert verdict in log_text(state)


def test_penetrating_hit_loses_hp_equal_to_damage_and_no_armour_save() -> None:
    """hh3 Vehicles, No Armour Save and Penetrating hits: no armour save; unsaved penetrating hit
    loses HP equal to Damage."""
    state, shoot = _shoot_at(tank("t", "b", 40, 24, 180, hp=4), damage=3)
    state = act(state, "a", shoot, [6, 6])
    assert state.units["t"].hp == 1
    assert [p for p, _ in rolls(state)] == ["hit test", "armour penetration"]


def test_invulnerable_save_against_a_penetrating_hit() -> None:
    """hh3 Vehicles, No Armour Save and Penetrating hits: a vehicle may take its invulnerable save."""
    for save_die, hp in ((5, 3), (4, 1)):
        state, shoot = _shoot_at(tank("t", "b", 40, 24, 180, inv=5), damage=2)
        state = act(state, "a", shoot, [6, 6, save_die])
        assert state.units["t"].hp == hp


def test_damage_mitigation_after_a_failed_save() -> None:
    """hh3 Vehicles, No Armour Save [decided]: mitigation:5 is a Damage Mitigation test (5+), made
    after and in addition to the save; it is not a save, so a vehicle keeps it."""
    for dice, hp in (([6, 6, 1, 5], 3), ([6, 6, 1, 4], 2)):
        state, shoot = _shoot_at(tank("t", "b", 40, 24, 180, inv=5, keywords=("mitigation:5",)))
        state = act(state, "a", shoot, dice)
        assert state.units["t"].hp == hp
        assert [p for p, _ in rolls(state)][-2:] == ["save (invulnerable or cover)", "Damage Mitigation"]


def test_cover_save_when_the_facing_is_obscured() -> None:
    """hh3 Vehicles, No Armour Save: a vehicle may take a cover save: a low wall (4+ cover, not
    blocking sight) hides more than 25% of the targeted front; cover die 4 saves, 3 fails."""
    low_wall = wall("low", 36, 20, 36.5, 25, "cover", cover=4)
    for cover_die, hp in ((4, 3), (3, 2)):
        state, shoot = _shoot_at(tank("t", "b", 40, 24, 180), terrain=(low_wall,))
        state = act(state, "a", shoot, [6, 6, cover_die])
        assert state.units["t"].hp == hp
        assert ("save (invulnerable or cover)", cover_die) in rolls(state)


def test_armourbane_turns_glancing_into_penetrating() -> None:
    """hh3 Armoury, Armourbane: equal to the armour is a penetrating hit."""
    state, shoot = _shoot_at(tank("t", "b", 40, 24, 180), gun_rules=("armourbane",))
    state = act(state, "a", shoot, [6, 4])
    assert "penetrating hit" in log_text(state) and state.units["t"].hp == 2


def test_zero_hp_removed_as_casualty_without_wreck_by_default() -> None:
    """hh3 Vehicles, Hull Points and Wrecks: at 0 HP removed as a casualty; no wreck unless agreed."""
    state, shoot = _shoot_at(tank("t", "b", 40, 24, 180, hp=1))
    state = act(state, "a", shoot, [6, 6])
    assert state.units["t"].destroyed and not state.units["t"].wreck
    assert state.terrain == {}


def test_wreck_remains_when_agreed_difficult_dangerous_6_plus_cover() -> None:
    """hh3 Vehicles, Wrecks: with the match option, the wreck stays as difficult and dangerous terrain
    with a 6+ cover save; a vehicle driving through it takes a dangerous terrain test."""
    state, shoot = _shoot_at(tank("t", "b", 30, 24, 90, hp=1), options=Options(wrecks_remain=True))
    state = act(state, "a", shoot, [6, 6])
    piece = state.terrain["wreck-t"]
    assert state.units["t"].wreck
    assert set(piece.kinds) == {"difficult", "dangerous", "cover"} and piece.cover_save == 6
    state = replace(state, phase="movement")
    state = act(state, "a", Move("v", (Point(27, 24),)), [1])
    assert rolls(state) == [("dangerous terrain", 1)]
    assert state.units["v"].hp == 2


def test_explodes_hits_units_within_6in_and_leaves_no_wreck() -> None:
    """hh3 Armoury, Explodes (X): with X = 4, on a 4+ every unit within 6 in takes hits equal to the
    starting HP (3), S8 AP- D1; no wreck even when wrecks were agreed (hh3 Vehicles, Wrecks)."""
    target = replace(tank("t", "b", 40, 24, 180, hp=3, keywords=("explodes:4",)), hp=1)
    near = squad("near", "b", [(40, 28)], t=4, sv=3)
    far = squad("far", "b", [(40, 33)])
    state, shoot = _shoot_at(target, extra=(near, far), options=Options(wrecks_remain=True))
    # hit, pen 6; explodes 4; three hits on 'near': wound 6 save 1 (dead), then no more models.
    state = act(state, "a", shoot, [6, 6, 4, 6, 1])
    assert state.units["t"].destroyed and not state.units["t"].wreck and state.terrain == {}
    assert state.units["near"].destroyed and not state.units["far"].destroyed
    assert "explodes: 3 S8 AP- hits" in log_text(state)


def test_explodes_below_x_does_nothing() -> None:
    """hh3 Armoury, Explodes (X): below X no explosion."""
    target = tank("t", "b", 40, 24, 180, hp=1, keywords=("explodes:4",))
    state, shoot = _shoot_at(target, extra=(squad("near", "b", [(40, 28)]),))
    state = act(state, "a", shoot, [6, 6, 3])
    assert not state.units["near"].destroyed and "does not explode" in log_text(state)


def test_explodes_after_emergency_disembarkation_hits_the_unit_that_got_out() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation; Armoury, Explodes (X): the unit aboard
    disembarks first (Cool 2 + 2 passes), then the transport explodes (X = 1) and its 3 S8 hits
    (its starting HP) strike every unit within 6 in, the unit that just disembarked included
    (wound 6, save 1, twice: both models die). What does not carry over is the destroying attack
    (the shot), not the explosion."""
    rhino = transport("rhino", "b", 40, 24, 180, hp=1, passengers=("s",), keywords=("explodes:1",))
    rhino = replace(rhino, profile=replace(rhino.profile, hp=3))
    troops = squad("s", "b", [(40, 24)] * 2, embarked_in="rhino", cool=8)
    state, shoot = _shoot_at(rhino, extra=(troops,))
    state = act(state, "a", shoot, [6, 6])
    state = take_proposal(state, DECISION_EMERGENCY, [2, 2, 1, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 6, 1])  # hh3 core, Wound Allocation
    text = log_text(state)
    assert text.index("Emergency Disembarkation") < text.index("explodes: 3 S8 AP- hits")
    assert state.units["s"].destroyed
    assert "explosion of rhino: s loses" in text


def test_hit_and_wound_tables() -> None:
    """hh3 core tables: Ranged (BS4 3+, Snap 5+, BS1 no Snap Shot), Melee (WS4 vs WS1 2+,
    WS4 vs WS4 4+), Wound (S4 vs T4 4+, S3 vs T7 impossible), AP negates armour at or below."""
    assert tables.ranged_hit_target(4, False) == 3 and tables.ranged_hit_target(4, True) == 5
    assert tables.ranged_hit_target(1, True) is None and tables.ranged_hit_target(10, False) == 0
    assert tables.melee_hit_target(4, 1) == 2 and tables.melee_hit_target(4, 4) == 4
    assert tables.wound_target(4, 4) == 4 and tables.wound_target(3, 7) is None
    assert tables.wound_target(8, 4) == 2
    assert not tables.armour_save_allowed(3, 2) and not tables.armour_save_allowed(3, 3)
    assert tables.armour_save_allowed(3, 4) and tables.armour_save_allowed(3, None)
    assert tables.best_save(None, 5, 4) == 4 and tables.best_save(None, None) is None
