"""Every 40k7 rejection: refused before it is appended, with a stable code, the rule (edition and
section) and the measured values. (Codes tested elsewhere are not repeated here.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from msgspec.structs import replace

from hulldown.match.actions import (
    Abandon,
    Action,
    Charge,
    Decide,
    Disembark,
    Embark,
    EndPhase,
    Fight,
    Fire,
    Move,
    Pivot,
    Shoot,
)
from hulldown.match.state import MatchState, Point, Unit

from .builders import act, flyer, infantry, krak, make_state, rejected, rhino, vehicle, weapon

R = 25.0 / 25.4 / 2
Case = Callable[[], tuple[MatchState, Action]]


def _shooting(*units, **kw):  # type: ignore[no-untyped-def]
    return make_state(*units, phase="shooting", **kw)


def _gun(**kw):  # type: ignore[no-untyped-def]
    return vehicle("g", "a", 10, 24, weapons=(krak(), weapon("fist", "Fist", 0, 8, 2, type="melee")), **kw)


def _squad_with_dead_gunner():  # type: ignore[no-untyped-def]
    squad = infantry("s", "a", [(10, 24), (11, 24)], weapons=[(1, krak())])
    models = dict(squad.models)
    models["s-1"] = replace(models["s-1"], alive=False, wounds=0)
    return replace(squad, models=models)


def _target() -> object:
    return rhino("t", "b", 40, 24, 180)


CASES: dict[str, tuple[Case, str]] = {
    "no_weapons": (lambda: (_shooting(_gun(), _target()), Shoot("g", ())), "Vehicles and Shooting"),
    "weapon_twice": (
        lambda: (_shooting(_gun(), _target()), Shoot("g", (Fire("krak", "t"), Fire("krak", "t")))),
        "Vehicles and Shooting",
    ),
    "unknown_weapon": (
        lambda: (_shooting(_gun(), _target()), Shoot("g", (Fire("laser", "t"),))),
        "Vehicles and Shooting",
    ),
    "not_ranged": (lambda: (_shooting(_gun(), _target()), Shoot("g", (Fire("fist", "t"),))), "Weapons"),
    "model_dead": (
        lambda: (_shooting(_squad_with_dead_gunner(), _target()), Shoot("s", (Fire("krak", "t"),))),
        "Weapons",
    ),
    "unknown_target": (
        lambda: (_shooting(_gun(), _target()), Shoot("g", (Fire("krak", "nobody"),))),
        "Vehicles and Shooting",
    ),
    "target_locked": (
        lambda: (
            _shooting(_gun(), infantry("e", "b", [(30, 24)]), infantry("f", "a", [(30 - 2 * R, 24)])),
            Shoot("g", (Fire("krak", "e"),)),
        ),
        "Vehicles and Shooting",
    ),
    "locked_in_combat": (
        lambda: (
            _shooting(
                infantry("s", "a", [(20, 24)], weapons=[(0, krak())]),
                infantry("e", "b", [(20 + 2 * R, 24)]),
                _target(),
            ),
            Shoot("s", (Fire("krak", "t"),)),
        ),
        "Vehicles and Shooting",
    ),
    "transport_flat_out": (
        lambda: (
            _shooting(
                replace(
                    vehicle("o", "a", 10, 24, keywords=("open-topped", "transport"), capacity=10),
                    passengers=("s",),
                    turn_flags=("flat_out",),
                ),
                replace(infantry("s", "a", [(10, 24)], weapons=[(0, krak())]), embarked_in="o"),
                _target(),
            ),
            Shoot("s", (Fire("krak", "t"),)),
        ),
        "Transports",
    ),
    "ordnance_moved": (
        lambda: (
            _shooting(
                replace(
                    infantry(
                        "s",
                        "a",
                        [(10, 24)],
                        weapons=[(0, weapon("mortar", "Mortar", 48, 6, 4, type="ordnance"))],
                    ),
                    moved=2.0,
                ),
                _target(),
            ),
            Shoot("s", (Fire("mortar", "t"),)),
        ),
        "Weapons",
    ),
    "unsupported_action": (
        lambda: (make_state(_gun()), Move("g", (Point(12, 24),), kind="advance")),
        "The Turn",
    ),
    "already_moved": (
        lambda: (make_state(replace(_gun(), turn_flags=("moved",))), Move("g", (Point(12, 24),))),
        "Movement",
    ),
    "transport_used": (
        lambda: (
            make_state(replace(rhino("r", "a", 10, 24), turn_flags=("transport_used",))),
            Move("r", (Point(16, 24),), kind="tank_shock"),
        ),
        "Tank Shock",
    ),
    "not_in_squadron": (lambda: (make_state(_gun()), Abandon("g", "g-m")), "Squadrons"),
    "not_a_vehicle": (lambda: (make_state(infantry("s", "a", [(10, 24)])), Pivot("s", 90)), "Movement"),
    "not_on_table": (
        lambda: (make_state(replace(_gun(), statuses={"reserves": 0})), Move("g", (Point(12, 24),))),
        "Movement",
    ),
    "emergency_disembark": (
        lambda: (
            make_state(replace(infantry("s", "a", [(10, 24)]), turn_flags=("emergency",))),
            Move("s", (Point(12, 24),)),
        ),
        "Transports",
    ),
    "bad_move": (lambda: (make_state(_gun()), Move("g", ())), "Movement"),
    "flyer_stunned": (
        lambda: (
            make_state(replace(flyer("f", "a", 10, 24), statuses={"stunned": 2})),
            Move("f", (Point(30, 24),)),
        ),
        "Flyers",
    ),
    "off_table": (lambda: (make_state(vehicle("g", "a", 4, 24)), Move("g", (Point(1, 24),))), "Movement"),
    "cannot_run": (lambda: (_shooting(_gun()), Move("g", (Point(12, 24),), kind="run")), "Run"),
    "regrouped": (
        lambda: (
            _shooting(replace(infantry("s", "a", [(10, 24)]), turn_flags=("regrouped",))),
            Move("s", (Point(12, 24),), kind="run"),
        ),
        "Regrouping",
    ),
    "cannot_flat_out": (
        lambda: (_shooting(infantry("s", "a", [(10, 24)])), Move("s", (Point(12, 24),), kind="flat_out")),
        "Flat Out",
    ),
    "passengers_fired": (
        lambda: (
            _shooting(replace(_gun(), turn_flags=("passengers_fired",))),
            Move("g", (Point(12, 24),), kind="flat_out"),
        ),
        "Transports",
    ),
    "cannot_embark": (
        lambda: (
            make_state(
                replace(infantry("s", "a", [(26.5, 24)]), statuses={"falling_back": 0}),
                rhino("r", "a", 30, 24),
            ),
            Embark("s", "r"),
        ),
        "Transports",
    ),
    "not_a_transport": (
        lambda: (make_state(infantry("s", "a", [(26.5, 24)]), _gun()), Embark("s", "g")),
        "Transports",
    ),
    "zooming_flyer": (
        lambda: (
            make_state(
                infantry("s", "a", [(26.5, 24)]),
                vehicle("f", "a", 30, 24, keywords=("flyer", "transport"), capacity=10),
            ),
            Embark("s", "f"),
        ),
        "Flyers",
    ),
    "transport_full": (
        lambda: (
            make_state(
                infantry("s", "a", [(26.5, 24)]),
                replace(rhino("r", "a", 30, 24), passengers=("x",)),
                replace(infantry("x", "a", [(30, 24)]), embarked_in="r"),
            ),
            Embark("s", "r"),
        ),
        "Transports",
    ),
    "not_embarked": (
        lambda: (make_state(infantry("s", "a", [(26.5, 24)])), Disembark("s", {})),
        "Transports",
    ),
    "positions_missing": (
        lambda: (
            make_state(
                replace(rhino("r", "a", 30, 24), passengers=("s",)),
                replace(infantry("s", "a", [(30, 24)]), embarked_in="r"),
            ),
            Disembark("s", {}),
        ),
        "Transports",
    ),
    "overlaps_model": (
        lambda: (
            make_state(
                replace(rhino("r", "a", 30, 24), passengers=("s",)),
                replace(infantry("s", "a", [(30, 24)]), embarked_in="r"),
                infantry("o", "a", [(26, 24)]),
            ),
            Disembark("s", {"s-0": Point(26.2, 24)}),
        ),
        "Transports",
    ),
    "fight_started": (
        lambda: (
            replace(
                make_state(infantry("s", "a", [(20, 24)]), _target(), phase="assault"),
                phase_flags=("fight_started",),
            ),
            Charge("s", "t"),
        ),
        "Charge",
    ),
    "bad_target": (
        lambda: (make_state(infantry("s", "a", [(20, 24)]), phase="assault"), Charge("s", "ghost")),
        "Charge",
    ),
    "charge_other_target": (
        lambda: (
            make_state(
                replace(infantry("s", "a", [(20, 24)]), turn_flags=("shot", "shot_at:t")),
                _target(),
                rhino("u", "b", 25, 10),
                phase="assault",
            ),
            Charge("s", "u"),
        ),
        "Charge",
    ),
    "already_fought": (
        lambda: (
            replace(
                make_state(infantry("s", "a", [(37.75 - R, 24)]), _target(), phase="assault"),
                phase_flags=("fought:s:t",),
            ),
            Fight("s", "t"),
        ),
        "Fight",
    ),
    "nobody_fights": (
        lambda: (
            make_state(rhino("r", "a", 30, 24), rhino("t", "b", 34.5, 24), phase="assault"),
            Fight("r", "t"),
        ),
        "Close Combat",
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_rejection(code: str) -> None:
    build, section = CASES[code]
    state, action = build()
    rej = rejected(state, "a", action)
    assert rej.code == code, rej
    assert rej.rule.startswith("40k7") and section in rej.rule, rej.rule
    assert rej.message


def test_rejected_actions_are_not_applied() -> None:
    """Validation happens before anything is appended: a rejected action changes nothing."""
    state = make_state(_gun())
    assert rejected(state, "a", Move("g", (Point(30, 24),))).values == {"distance": 20.0, "limit": 12.0}
    assert state.units["g"].models["g-m"].pos == Point(10, 24)


def test_decide_only_by_the_deciding_side() -> None:
    """A pending decision waits for one player: the other side's actions are refused."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    sk = vehicle("s", "b", 40, 24, 180, keywords=("skimmer",))
    state = act(make_state(gun, sk, phase="shooting"), "a", Shoot("g", (Fire("krak", "s"),))).state
    from hulldown.match.validate import validate

    assert state.pending is not None
    assert validate(state, "a", EndPhase()).code == "decision_pending"  # type: ignore[union-attr]
    assert validate(state, "a", Decide(state.pending.id, "no")).code == "not_your_decision"  # type: ignore[union-attr]
    assert validate(state, "b", Decide(state.pending.id, "maybe")).code == "invalid_choice"  # type: ignore[union-attr]


def _embarked_squad(*others: Unit) -> MatchState:
    return make_state(
        replace(rhino("r", "a", 30, 24), passengers=("s",)),
        replace(infantry("s", "a", [(30, 24), (30, 24)]), embarked_in="r"),
        *others,
    )


def _zooming() -> MatchState:
    return make_state(flyer("f", "a", 5, 24))


# code -> (state and action, the measured values, what the message must say)
MEASURED: dict[str, tuple[Case, dict[str, object], str]] = {
    "squadron_coherency": (
        lambda: (
            # 2 in between the hulls: a1's turn to face its leg clears a2 (a squadron-mate is in
            # the way like any other model)
            make_state(vehicle("a1", "a", 10, 24, squadron="s"), vehicle("a2", "a", 10, 29.5, squadron="s")),
            Move("a1", (Point(10, 18),)),
        ),
        {"gap": 8.0, "limit": 4.0},
        "a gap of 8.00 in > 4 in",
    ),
    "coherency": (
        lambda: (
            make_state(infantry("s", "a", [(10, 24), (11.5, 24)])),
            Move("s", (), positions={"s-0": Point(10, 30)}),
        ),
        {"gap": 5.2, "limit": 2.0},
        "a gap of 5.20 in > 2 in",
    ),
    "flyer_stunned": (
        CASES["flyer_stunned"][0],
        {"distance": 20.0, "limit": 18.0},
        "exactly 18 in straight ahead, not 20.0 in",
    ),
    "flyer_pivot_too_far": (
        lambda: (_zooming(), Move("f", (Point(5, 44),), heading=135.0)),
        {"turn": 135.0, "limit": 90.0},
        "at most 90 degrees, not 135",
    ),
    "flyer_not_straight": (
        lambda: (_zooming(), Move("f", (Point(25, 30),))),
        {"heading": 0.0, "towards": 16.7},
        "(heading 0), not towards 17",
    ),
    "off_table": (
        CASES["off_table"][0],
        {"x": 1.0, "y": 24.0, "width": 72.0, "height": 48.0},
        "would end at (1.0, 24.0), off the 72 x 48 in battlefield",
    ),
    "too_close_to_enemy": (
        lambda: (
            _embarked_squad(infantry("e", "b", [(26, 28.5)])),
            Disembark("s", {"s-0": Point(26, 27), "s-1": Point(26, 25.9)}),
        ),
        {"distance": 0.52, "model": "e-0"},
        "would be 0.52 in from enemy model e-0 (at least 1 in)",
    ),
    "not_straight": (
        lambda: (
            make_state(rhino("t", "a", 10, 40)),
            Move("t", (Point(14, 40), Point(16, 42)), kind="tank_shock"),
        ),
        {"waypoints": 2},
        "give exactly one end point, not 2",
    ),
}


@pytest.mark.parametrize("code", sorted(MEASURED))
def test_rejection_reports_the_measured_numbers(code: str) -> None:
    """client-protocol/SPEC.md section 2.2: a rejection carries the measured numbers, in its values
    and in its message."""
    build, values, text = MEASURED[code]
    state, action = build()
    rej = rejected(state, "a", action)
    assert rej.code == code, rej
    for key, value in values.items():
        got = rej.values.get(key)
        close = isinstance(value, float) and isinstance(got, float) and abs(got - value) < 0.05
        assert got == value or close, (key, rej.values)
    assert text in rej.message, rej.message
