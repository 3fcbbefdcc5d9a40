"""hh3 statuses (hh3 Vehicles, Statuses, Repair Test and Vehicle damage table): every status effect
and each rejection it causes."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, Embark, EndPhase, Fight, Fire, Move, Pivot, Shoot
from hulldown.match.state import MatchState, Point, Unit
from hulldown.match.turns import end_player_turn
from hulldown.rules.hh3 import statuses
from hulldown.rules.phases import PHASES_HH3

from .builders import act, bolter, charge, log_text, make, rejection, rolls, squad, tank, weapon


def _with(unit: Unit, *names: str) -> Unit:
    return replace(unit, statuses={n: 0 for n in names})


def test_pinned_vehicle_rejections_name_the_rule() -> None:
    """hh3 Vehicles, Statuses, Pinned: no move, no Rush, no pivot (pivot replaces the move [decided])."""
    v = _with(tank("v", "a", 20, 24, keywords=("fast",)), "pinned")
    state = make([v, tank("e", "b", 50, 24)])
    for action in (Move("v", (Point(25, 24),)), Move("v", (Point(25, 24),), kind="rush"), Pivot("v", 45)):
        why = rejection(state, "a", action)
        assert why is not None and why.code == "pinned" and why.rule == "hh3 Statuses, Pinned"


def test_pinned_infantry_cannot_charge_move_or_embark() -> None:
    """hh3 Vehicles, Statuses, Pinned: no charge; no move; embarking is a move, refused too [decided]."""
    troops = _with(squad("s", "a", [(20, 24), (21.5, 24)]), "pinned")
    rhino = tank("rhino", "a", 20, 28, keywords=("transport",), capacity=10, access=("left", "right"))
    enemy = tank("e", "b", 26, 24)
    state = make([troops, rhino, enemy], phase="assault")
    why = rejection(state, "a", Charge("s", "e"))
    assert why is not None and why.code == "pinned"
    state = replace(state, phase="movement")
    for action in (Move("s", (Point(20, 20),)), Embark("s", "rhino")):
        why = rejection(state, "a", action)
        assert why is not None and why.code == "pinned"


def test_suppressed_vehicle_fires_snap_shots() -> None:
    """hh3 Vehicles, Statuses, Suppressed: all shooting is Snap Shots (BS4: 5+ instead of 3+)."""
    gun = weapon("gun", strength=9, shots=1)
    shooter = tank("v", "a", 20, 24, weapons=[gun])
    target = tank("t", "b", 40, 24, 180)
    free = act(make([shooter, target], phase="shooting"), "a", Shoot("v", (Fire("gun", "t"),)), [4, 1])
    assert "1 of 1 hit" in log_text(free)
    suppressed = make([_with(shooter, "suppressed"), target], phase="shooting")
    state = act(suppressed, "a", Shoot("v", (Fire("gun", "t"),)), [4])
    assert "Snap Shots (Suppressed)" in log_text(state)
    assert "0 of 1 hit" in log_text(state)
    assert rolls(state) == [("hit test", 4)]


def test_suppressed_refuses_weapons_that_cannot_snap() -> None:
    """hh3 Vehicles, Statuses, Suppressed: a Blast weapon cannot make Snap Shots, so it cannot fire."""
    blast = weapon("blast-gun", strength=8, rules=("blast",))
    shooter = _with(tank("v", "a", 20, 24, weapons=[blast]), "suppressed")
    state = make([shooter, tank("t", "b", 40, 24, 180)], phase="shooting")
    why = rejection(state, "a", Shoot("v", (Fire("blast-gun", "t"),)))
    assert why is not None and why.code == "cannot_snap"


def _charge_state(target: Unit) -> MatchState:
    # 3 in back: the Set-up Move (I4 + M7 = 11: 3 in) brings them to 30 (hh3 core, Charge Procedure)
    troops = squad(
        "s", "a", [(27, 24), (27, 25.5)], melee=weapon("fist", strength=8, ap=2, kind="melee", rng=0)
    )
    return make([troops, target], phase="assault")


def test_stunned_vehicle_makes_no_volley_attacks() -> None:
    """hh3 Vehicles, Statuses, Stunned: no reactions, so a charged Stunned vehicle fires no Volley Attacks;
    without the status it does (hh3 Vehicles, Combat)."""
    gun = weapon("hb", strength=5, ap=4, shots=1, rng=36, kind="assault")
    target = tank("v", "b", 36, 24, 180, weapons=[gun])
    # Not stunned: the owner volleys with everything: one Snap Shot (BS4: 5+), then the charge roll.
    state = act(_charge_state(target), "a", Charge("s", "v"))
    assert state.pending is not None and state.pending.kind == "volley"
    state = charge(state, "b", Decide(state.pending.id, "all"), [1, 6, 6])
    assert [p for p, _ in rolls(state, state.seq - 1)] == [
        "volley hit test (Snap Shot)",
        "charge roll",
        "charge roll",
    ]  # the charge move's answer rolls none
    stunned = charge(_charge_state(_with(target, "stunned")), "a", Charge("s", "v"), [6, 6])
    assert [p for p, _ in rolls(stunned, stunned.seq - 1)] == ["charge roll", "charge roll"]
    assert "Stunned: no Volley Attacks" in log_text(stunned)


def test_any_status_makes_a_charge_disordered_without_the_bonus_attack() -> None:
    """hh3 Vehicles, Statuses: any status -> charges are Disordered (no +1 Attack for the charge)."""
    target = tank("v", "b", 33.5, 24, 180)
    for names, attacks in (((), 2), (("suppressed",), 1)):
        # 3.4 in from the tank: a Set-up Move of 3 in (I4 + M7 = 11) unless Disordered, then a 6
        troops = _with(squad("s", "a", [(27, 24)], ws=4, a=1), *names)
        state = charge(make([troops, target], phase="assault"), "a", Charge("s", "v"), [6, 6])
        assert state.units["s"].flag("charge_ok")
        assert state.units["s"].flag("disordered") == bool(names)
        state = act(state, "a", Fight("s", "v"), [1] * attacks)
        assert [p for p, _ in rolls(state)] == ["melee hit test"] * attacks


def test_any_status_loses_the_stationary_benefit_of_heavy_weapons() -> None:
    """hh3 Vehicles, Statuses: a unit with any status counts no Stationary benefit (Heavy (S) +1 S)."""
    gun = weapon("cannon", strength=8, rules=("heavy:s",))
    target = tank("t", "b", 40, 24, 180, armour=(10, 10, 10))
    for names, verdict in (((), "penetrating"), (("stunned",), "glancing")):
        shooter = _with(tank("v", "a", 20, 24, weapons=[gun]), *names)
        dice = [6, 2] + ([1] if verdict == "glancing" else [])
        state = act(make([shooter, target], phase="shooting"), "a", Shoot("v", (Fire("cannon", "t"),)), dice)
        assert f"{verdict} hit" in log_text(state)


def test_vehicles_never_gain_routed_but_infantry_can() -> None:
    """hh3 Vehicles, Statuses: a vehicle can gain every status except Routed."""
    v = tank("v", "a", 20, 24)
    assert statuses.gain(v, "routed") is v
    assert statuses.gain(v, "pinned").statuses == {"pinned": 0}
    s = squad("s", "a", [(10, 10)])
    assert statuses.gain(s, "routed").statuses == {"routed": 0}


def test_statuses_are_not_timed_and_survive_the_end_of_turns() -> None:
    """[decided] hh3 statuses have expiry 0 (until removed): ending player turns keeps them."""
    state = make([_with(tank("v", "a", 20, 24), "pinned", "stunned"), tank("e", "b", 50, 24)])
    for _ in range(4):
        state = end_player_turn(state, PHASES_HH3)
    assert state.units["v"].statuses == {"pinned": 0, "stunned": 0}


def test_glance_on_a_status_held_before_the_attack_costs_1hp() -> None:
    """hh3 Vehicles, Vehicle damage table: a status it already has costs 1 HP instead, no save (4+
    inv unused)."""
    gun = weapon("gun", strength=9)
    target = _with(tank("t", "b", 40, 24, 180, armour=(13, 12, 10), inv=4), "suppressed")
    state = make([tank("v", "a", 20, 24, weapons=[gun]), target], phase="shooting")
    state = act(state, "a", Shoot("v", (Fire("gun", "t"),)), [6, 4, 5])
    assert state.units["t"].hp == 2 and state.units["t"].statuses == {"suppressed": 0}


def test_damage_table_each_face() -> None:
    """hh3 Vehicles, Vehicle damage table [ext]: 1-2 Stunned, 3-4 Pinned, 5-6 Suppressed."""
    gun = weapon("gun", strength=9)
    for face, status in (
        (1, "stunned"),
        (2, "stunned"),
        (3, "pinned"),
        (4, "pinned"),
        (5, "suppressed"),
        (6, "suppressed"),
    ):
        state = make([tank("v", "a", 20, 24, weapons=[gun]), tank("t", "b", 40, 24, 180)], phase="shooting")
        state = act(state, "a", Shoot("v", (Fire("gun", "t"),)), [6, 4, face])
        assert state.units["t"].statuses == {status: 0} and state.units["t"].hp == 3


def test_flyer_and_super_heavy_lose_1hp_per_glance_without_rolling() -> None:
    """hh3 Vehicles, Vehicle damage table: Flyer and Super-heavy vehicles do not roll: 1 HP per
    glancing hit."""
    gun = weapon("gun", strength=9)
    for keyword in ("flyer", "super-heavy"):
        target = tank("t", "b", 40, 24, 180, keywords=(keyword,), hp=6)
        state = make([tank("v", "a", 20, 24, weapons=[gun]), target], phase="shooting")
        state = act(state, "a", Shoot("v", (Fire("gun", "t"),)), [6, 4])
        assert state.units["t"].hp == 5 and state.units["t"].statuses == {}


def test_repair_single_status_removed_without_a_decision_and_auto_repair_target() -> None:
    """hh3 Vehicles, Repair Test: one status -> removed directly; Auto-repair (4+) passes on a 4."""
    v = _with(tank("v", "a", 20, 24, keywords=("auto_repair:4",)), "stunned")
    state = act(make([v, tank("e", "b", 50, 24)], phase="end"), "a", EndPhase(), [4])
    assert state.pending is None and state.units["v"].statuses == {}
    assert ("Repair Test (v)", 4) in rolls(state)


def test_repair_only_for_the_active_players_vehicles() -> None:
    """hh3 Vehicles, Repair Test: roll for each vehicle YOU control (the enemy's statuses stay)."""
    mine = _with(tank("v", "a", 20, 24), "pinned")
    theirs = _with(tank("e", "b", 50, 24), "pinned")
    state = act(make([mine, theirs], phase="end"), "a", EndPhase(), [6])
    assert state.units["v"].statuses == {} and state.units["e"].statuses == {"pinned": 0}


def test_repair_decisions_queue_for_two_vehicles_and_only_owner_decides() -> None:
    """hh3 Vehicles, Repair Test: two vehicles with two statuses each pass: one decision each, in unit order;
    the opponent cannot answer."""
    a1 = _with(tank("a1", "a", 20, 24), "pinned", "stunned")
    a2 = _with(tank("a2", "a", 20, 34), "pinned", "suppressed")
    state = act(make([a1, a2, tank("e", "b", 50, 24)], phase="end"), "a", EndPhase(), [6, 6])
    first = state.pending
    assert first is not None and first.context["unit"] == "a1"
    why = rejection(state, "b", Decide(first.id, "pinned"))
    assert why is not None and why.code == "not_your_decision"
    state = act(state, "a", Decide(first.id, "stunned"))
    second = state.pending
    assert second is not None and second.context["unit"] == "a2" and state.active == "a"
    state = act(state, "a", Decide(second.id, "pinned"))
    assert state.units["a1"].statuses == {"pinned": 0}
    assert state.units["a2"].statuses == {"suppressed": 0}
    assert state.pending is None and state.active == "b"


def test_infantry_statuses_go_on_a_passed_cool_check() -> None:
    """[decided] non-vehicles: one Cool check (2D6 <= Cool) in the Statuses sub-phase."""
    for dice, kept in (([3, 4], {}), ([5, 5], {"pinned": 0})):
        troops = _with(squad("s", "a", [(10, 10)], cool=8, gun=bolter()), "pinned")
        state = act(make([troops, tank("e", "b", 50, 24)], phase="end"), "a", EndPhase(), dice)
        assert state.units["s"].statuses == kept


def test_an_embarked_unit_keeps_its_statuses_and_makes_no_check() -> None:
    """hh3 Transports, Embarking and Disembarking [ext]: a unit that embarks with a status keeps it
    and "may not have any Checks made to remove it until the Unit Disembarks". Worked example: a
    Suppressed squad (Cool 8) aboard its Rhino at the end of its player turn makes no Cool check in
    the Statuses sub-phase (no dice at all: a 2D6 of 3 would have removed the status), and stays
    Suppressed; the Rhino, which has no status, makes no Repair Test either."""
    troops = _with(squad("s", "a", [(30, 24)], cool=8, gun=bolter(), embarked_in="rhino"), "suppressed")
    rhino = tank("rhino", "a", 30, 24, keywords=("transport",), capacity=10, access=("left", "right"))
    rhino = replace(rhino, passengers=("s",))
    state = act(make([rhino, troops, tank("e", "b", 50, 24)], phase="end"), "a", EndPhase(), [])
    assert rolls(state) == []
    assert state.units["s"].statuses == {"suppressed": 0}
    assert state.active == "b"


def test_heavy_d_adds_one_damage_when_stationary() -> None:
    """hh3 Armoury, Heavy (X): +1 to the weapon's X when the unit is Stationary - Heavy (D), the
    lascannons' and autocannons' of the sample rosters, adds 1 Damage. It was not read at all:
    the import reported it unimplemented and typed those weapons Assault. A Stationary tank's
    Heavy (D) lascannon (D1) hits at D2; moved, at D1; with a status, at D1 (no Stationary
    benefit)."""
    from hulldown.match.turns import add_flag
    from hulldown.rules.hh3.core import F_MOVED
    from hulldown.rules.hh3.shooting import heavy_profile

    gun = weapon("lascannon", strength=9, ap=2, damage=1, rules=("heavy:d",))
    still = tank("v", "a", 20, 24, weapons=[gun])
    assert heavy_profile(still, gun) == (9, 2, 1, 2)
    assert heavy_profile(add_flag(still, F_MOVED), gun) == (9, 2, 1, 1)
    assert heavy_profile(_with(still, "pinned"), gun) == (9, 2, 1, 1)
