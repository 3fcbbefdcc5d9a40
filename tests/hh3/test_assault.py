"""hh3 combat against vehicles (hh3 Vehicles, Combat): no charging, attacking or locking; Volley Attacks;
WS1; rear armour; Hold; attacking again while still in contact."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, EndPhase, Fight, Move
from hulldown.match.state import MatchState, Mount, Point, Unit
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import CONTACT

from .builders import act, charge, log_text, make, rejection, rolls, squad, tank, weapon

FIST = weapon("fist", strength=4, ap=None, kind="melee", rng=0)


def _state(target: Unit, troops: Unit | None = None) -> MatchState:
    # 3 in behind the 2.87 in gap: the set-up move (I4 + M7: 3 in, hh3 core, Charge Procedure,
    # Make Set-up Move) brings them to it.
    troops = troops or squad("s", "a", [(27, 24), (27, 25.5)], ws=4, a=1, melee=FIST)
    return make([troops, target], phase="assault")


def _armoured(**kw: object) -> Unit:
    return tank("v", "b", 36, 24, 180, armour=(13, 12, 10), **kw)  # type: ignore[arg-type]


def test_vehicles_cannot_charge_or_attack() -> None:
    """hh3 Vehicles, Combat: a vehicle cannot charge and cannot attack."""
    state = make([tank("v", "a", 20, 24), squad("e", "b", [(24, 24)])], phase="assault")
    why = rejection(state, "a", Charge("v", "e"))
    assert why is not None and why.code == "vehicle_cannot_charge"
    why = rejection(state, "a", Fight("v", "e"))
    assert why is not None and why.code == "vehicle_cannot_attack"


def test_charge_a_vehicle_volley_then_charge_roll_into_base_contact() -> None:
    """hh3 Vehicles, Combat: the vehicle may make Volley Attacks (Snap Shots) with the Assault weapons
    whose arc reaches the charger (the turret is offered, the rear hull weapon is not); its owner
    answers "all"; then the charge roll (2D6, highest) of 4 beats the 2.87 in gap and the models
    end in base contact."""
    turret = weapon("hb", strength=5, ap=4, rng=36, kind="assault")
    rear = weapon("rear-gun", strength=5, ap=4, rng=36, mount=Mount(kind="hull", arc="rear"), kind="assault")
    state = _state(_armoured(weapons=[turret, rear]))
    state = act(state, "a", Charge("s", "v"))
    pending = state.pending
    assert pending is not None and pending.side == "b" and pending.options == ("all", "none", "hb")
    # volley: 1 snap shot misses; charge roll 2 and 4
    state = charge(state, "b", Decide(pending.id, "all"), [1, 2, 4])
    assert [p for p, _ in rolls(state, state.seq - 1)] == [
        "volley hit test (Snap Shot)",
        "charge roll",
        "charge roll",
    ]  # the charge move's answer rolls none
    unit = state.units["s"]
    assert unit.flag("charge_ok") and not unit.flag("disordered")
    for model in unit.models.values():
        assert geom.model_to_unit(model, state.units["v"]) <= CONTACT


def test_failed_charge_does_not_move() -> None:
    """hh3 core Charge: a charge roll below the distance fails; nobody moves. The failed charge's
    Cool check (hh3 core, Charge Procedure step 5) rolls 3 + 3 = 6 <= Cool 8: passed, no status."""
    state = _state(_armoured())
    state = act(state, "a", Charge("s", "v"), [1, 2, 3, 3])
    assert not state.units["s"].flag("charge_ok")
    assert state.units["s"].models["s-1"].pos == Point(30, 24)
    assert state.units["s"].statuses == {}


def test_failed_charge_cool_check_failed_gives_stunned() -> None:
    """hh3 core, Charge Procedure step 5, Make Charge Move [ext]: when the charge roll is less than
    the distance the charge fails, the chargers do not move and the charging unit makes a Cool
    check; if it fails, the unit gains the Stunned status.

    Worked example: the marines (Cool 8) stand 2.87 in from the Rhino-sized tank; charge roll 1
    and 2, the highest 2 < 2.87: the charge fails. Cool check 5 + 4 = 9 > 8: failed, the unit is
    Stunned."""
    state = act(_state(_armoured()), "a", Charge("s", "v"), [1, 2, 5, 4])
    unit = state.units["s"]
    assert not unit.flag("charge_ok") and unit.models["s-1"].pos == Point(30, 24)
    assert [p for p, _ in rolls(state)] == [
        "charge roll",
        "charge roll",
        "Cool check (failed charge)",
        "Cool check (failed charge)",
    ]
    assert unit.statuses == {"stunned": 0}
    assert "fails its Cool check and is Stunned" in log_text(state)


def test_charge_range_is_12in() -> None:
    """hh3 core Charge: no charge beyond 12 in."""
    state = _state(tank("v", "b", 46, 24, 180))
    why = rejection(state, "a", Charge("s", "v"))
    assert why is not None and why.code == "out_of_charge_range"


def _engaged() -> MatchState:
    state = charge(_state(_armoured()), "a", Charge("s", "v"), [6, 6])
    assert state.units["s"].flag("charge_ok")
    return state


def test_vehicle_counts_as_ws1_and_is_hit_on_its_rear_armour() -> None:
    """hh3 Vehicles, Combat: WS4 against WS1 hits on 2+; the hits (S4) go against the rear armour
    (AV10) although the attackers stand at the front (AV13): 4 + 6 = 10 glances."""
    state = _engaged()
    # two models x (1 A + 1 charge bonus): s-1 rolls 2, 1 -> one hit: penetration 6, table 4;
    # s-2 rolls 1, 1.
    state = act(state, "a", Fight("s", "v"), [2, 1, 6, 4, 1, 1])
    text = log_text(state)
    assert "hits on 2+" in text and "rear armour 10, glancing" in text
    assert state.units["v"].statuses == {"pinned": 0}
    assert "does not attack back" in text
    # hh3 Vehicles, Combat: at the end of the combat (the Resolution sub-phase) it can only Hold.
    state = act(state, "a", EndPhase())
    assert "v is a vehicle: it can only Hold" in log_text(state)


def test_units_still_in_contact_attack_again_next_turn_without_charging() -> None:
    """hh3 Vehicles, Combat: in its next Assault phase a unit still in base contact may attack the
    vehicle again, without counting as charging (no bonus Attack)."""
    state = act(_engaged(), "a", Fight("s", "v"), [1, 1, 1, 1])
    why = rejection(state, "a", Fight("s", "v"))
    assert why is not None and why.code == "already_fought"
    # a: assault, end; b: start, movement, shooting, assault, end; a: start, movement, shooting
    for _ in range(10):
        state = act(state, state.active, EndPhase())
    assert (state.active, state.phase) == ("a", "assault")
    assert not state.units["s"].flag("charge_ok")
    state = act(state, "a", Fight("s", "v"), [1, 1])
    assert [p for p, _ in rolls(state)] == ["melee hit test", "melee hit test"]


def test_a_unit_still_in_contact_attacks_again_but_cannot_charge_again() -> None:
    """hh3 Vehicles, Combat: a unit still in base contact with the vehicle in its own Assault phase
    attacks it again without counting as having charged, so it cannot declare a new charge at
    it (which would give it the charge's bonus Attack again)."""
    state = _engaged()
    # a: assault, end; b: start, movement, shooting, assault, end; a: start, movement, shooting
    for _ in range(10):
        state = act(state, state.active, EndPhase())
    assert (state.active, state.phase) == ("a", "assault")
    why = rejection(state, "a", Charge("s", "v"))
    assert why is not None and why.code == "already_in_contact"
    assert why.rule.startswith("hh3 Vehicles, Combat")
    assert rejection(state, "a", Fight("s", "v")) is None


def test_fight_needs_base_contact() -> None:
    """hh3 core Fight: only units in base contact fight."""
    why = rejection(_state(_armoured()), "a", Fight("s", "v"))
    assert why is not None and why.code == "not_in_contact"


def test_the_vehicle_is_never_locked_and_may_drive_away() -> None:
    """hh3 Vehicles, Combat: the vehicle does not lock and is never locked: next turn it moves
    normally, and the unit in contact is free to move or shoot too."""
    state = _engaged()
    state = replace(state, active="b", phase="movement")
    assert rejection(state, "b", Move("v", (Point(44, 24),))) is None
    state = replace(
        state,
        active="a",
        phase="movement",
        units={**state.units, "s": replace(state.units["s"], turn_flags=())},
    )
    assert rejection(state, "a", Move("s", (Point(27, 24),))) is None


def test_volley_coaxial_weapon_fires_only_with_its_linked_weapon() -> None:
    """hh3 Vehicles, Fire arcs and weapon mounts (Co-axial, or not at all): the linked weapon cannot
    reach the charger (range 2 in, the charger is 2.87 in away), so its co-axial weapon stays
    silent too."""
    main = weapon("main", strength=8, rng=2, kind="assault")
    coax = weapon("coax", strength=4, rng=24, mount=Mount(kind="coaxial", linked="main"), kind="assault")
    state = charge(_state(_armoured(weapons=[main, coax])), "a", Charge("s", "v"), [6, 6])
    assert [p for p, _ in rolls(state, state.seq - 1)] == [
        "charge roll",
        "charge roll",
    ]  # the charge move's answer rolls none


def test_melee_weapon_special_rules_apply_to_vehicle_hits() -> None:
    """hh3 Vehicles, Combat (hits on the rear armour with penetration rolls) with hh3 Armoury,
    Armourbane: a melee weapon's special rules travel with its hits. An Armourbane S4 hit
    rolling 6 against rear AV10 (10 = glancing) is penetrating: 1 HP, no damage table roll."""
    bane = weapon("bomb", strength=4, ap=None, kind="melee", rng=0, rules=("armourbane",))
    troops = squad("s", "a", [(27, 24), (27, 25.5)], ws=4, a=1, melee=bane)
    state = charge(_state(_armoured(), troops), "a", Charge("s", "v"), [6, 6])
    # s-1: hits 2, 1 -> one hit, penetration 6 (4 + 6 = 10 vs AV10); s-2: 1, 1.
    state = act(state, "a", Fight("s", "v"), [2, 1, 6, 1, 1])
    assert "rear armour 10, penetrating" in log_text(state)
    assert state.units["v"].hp == 2 and state.units["v"].statuses == {}
    assert "vehicle damage table" not in [p for p, _ in rolls(state)]
