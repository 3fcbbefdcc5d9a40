"""hh3 Paragons joining and leaving Infantry units during the game (seed 004 glossary, Paragon:
"Can join or leave an Infantry unit"; hh3 Model Types, Paragon; hh3 Transports, Specialists,
Command and Paragons). Decided details: docs/rules-notes.md (hh3, Paragon joining and leaving)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Join, Leave, Move
from hulldown.match.options import unit_options
from hulldown.match.state import MatchState, Point, Profile, Unit
from hulldown.rules.hh3.core import F_DISEMBARKED, F_MOVE_DONE, lent_characteristic
from hulldown.rules.hh3.joining import F_JOINED, F_LEFT

from .builders import act, log_text, make, rejection, squad, tank, transport, weapon

CENTURION = Profile(m=7, ws=5, bs=5, s=4, t=4, w=3, i=5, a=3, ld=10, cool=10, intelligence=9, sv=2)
PISTOL = weapon("pistol", strength=4, ap=None, rng=12.0, kind="pistol")


def _paragon(x: float, y: float = 24.0, uid: str = "cap", side: str = "a") -> Unit:
    unit = squad(uid, side, [(x, y)], kind="paragon", gun=PISTOL)  # type: ignore[arg-type]
    return replace(unit, name="Centurion", profile=CENTURION, models={
        mid: replace(m, wounds=CENTURION.w) for mid, m in unit.models.items()
    })  # fmt: skip


def _tacticals(side: str = "a") -> Unit:
    return squad("t", side, [(10, 24), (11.5, 24)], gun=PISTOL)  # type: ignore[arg-type]


def _joined() -> Unit:
    """The tacticals with their second model a joined Paragon (own profile, full Wounds)."""
    t = _tacticals()
    models = dict(t.models)
    models["t-2"] = replace(models["t-2"], kind="paragon", profile=CENTURION, wounds=CENTURION.w)
    return replace(t, models=models)


def _state(*units: Unit, phase: str = "movement") -> MatchState:
    return make(list(units), phase=phase)


def test_a_paragon_within_coherency_joins_the_infantry_unit() -> None:
    """hh3 Model Types, Paragon: the Centurion's base is 14 - 11.5 - 1.26 = 1.24 in from the
    nearest tactical, within 2 in coherency: it joins. Its model is now a Paragon model of t with
    its own profile and pistol, the unit cap is gone, and t tests on its Leadership 10."""
    state = act(_state(_tacticals(), _paragon(14.0)), "a", Join("cap", "t"))
    assert "cap" not in state.units
    t = state.units["t"]
    assert sorted(t.models) == ["cap-1", "t-1", "t-2"]
    model = t.models["cap-1"]
    assert model.kind == "paragon" and model.profile == CENTURION and model.wounds == 3
    assert t.weapons["cap-1-gun"].model == "cap-1"
    assert lent_characteristic(t, "ld") == 10
    assert t.flag(F_JOINED)
    assert "Centurion joins" in log_text(state)


def test_joining_is_refused_with_the_reason_and_its_numbers() -> None:
    """hh3 Model Types, Paragon and Transports: every refusal names what was expected."""
    far = _state(_tacticals(), _paragon(16.0))
    too_far = rejection(far, "a", Join("cap", "t"))
    assert too_far is not None and too_far.code == "too_far"
    assert too_far.values == {"distance": 3.24, "limit": 2.0}
    vehicle = _state(tank("v", "a", 20, 24, 0), _paragon(16.0))
    not_infantry = rejection(vehicle, "a", Join("cap", "v"))
    assert not_infantry is not None and not_infantry.code == "not_infantry"
    assert not_infantry.values == {"kind": "vehicle", "allowed": "infantry"}
    enemy = _state(_tacticals("b"), _paragon(14.0))
    refused = rejection(enemy, "a", Join("cap", "t"))
    assert refused is not None and refused.code == "unknown_target"
    already = _state(_joined(), _paragon(14.0))
    twice = rejection(already, "a", Join("cap", "t"))
    assert twice is not None and twice.code == "already_joined"
    assert twice.values == {"paragons": 1, "allowed": 1}
    # An enemy in base contact with the Centurion locks it in combat.
    foe = squad("f", "b", [(15.26, 24)])
    locked = rejection(_state(_tacticals(), _paragon(14.0), foe), "a", Join("cap", "t"))
    assert locked is not None and locked.code == "locked_in_combat"
    phase = rejection(_state(_tacticals(), _paragon(14.0), phase="shooting"), "a", Join("cap", "t"))
    assert phase is not None and phase.code == "wrong_phase"
    rhino = transport("rhino", "a", 30, 30, passengers=("t",))
    aboard = replace(_tacticals(), embarked_in="rhino")
    inside = rejection(_state(rhino, aboard, _paragon(14.0)), "a", Join("cap", "t"))
    assert inside is not None and inside.code == "target_embarked"
    riding = replace(_paragon(30.0, 30.0), embarked_in="rhino")
    carried = rejection(
        _state(replace(rhino, passengers=("cap",)), _tacticals(), riding), "a", Join("cap", "t")
    )
    assert carried is not None and carried.code == "embarked"
    reserve = replace(_paragon(14.0), statuses={"reserves": 0})
    away = rejection(_state(_tacticals(), reserve), "a", Join("cap", "t"))
    assert away is not None and away.code == "not_on_table"
    infantry = rejection(_state(_tacticals(), squad("u", "a", [(14, 24)])), "a", Join("u", "t"))
    assert infantry is not None and infantry.code == "not_a_paragon"
    joined = act(_state(_tacticals(), _paragon(14.0)), "a", Join("cap", "t"))
    again = rejection(joined, "a", Leave("t", "cap-1"))
    assert again is not None and again.code == "joined_this_turn"


def test_a_joined_paragon_leaves_as_a_unit_of_its_own_named_by_its_model() -> None:
    """hh3 Model Types, Paragon: the Paragon t-2 leaves t; it is the Paragon unit t-2 with its own
    profile and pistol, and may still move this phase (t had not moved)."""
    state = act(_state(_joined()), "a", Leave("t", "t-2"))
    t, own = state.units["t"], state.units["t-2"]
    assert sorted(t.models) == ["t-1"] and "t-2-gun" not in t.weapons
    assert own.kind == "paragon" and own.profile == CENTURION and own.faction == t.faction
    assert own.models["t-2"].kind is None and own.models["t-2"].profile is None
    assert own.models["t-2"].wounds == 3 and sorted(own.weapons) == ["t-2-gun"]
    assert own.flag(F_LEFT) and "t-2 leaves" in log_text(state)
    moved = act(state, "a", Move("t-2", path=(Point(15.0, 24.0),)))
    assert moved.units["t-2"].models["t-2"].pos == Point(15.0, 24.0)
    back = rejection(moved, "a", Join("t-2", "t"))
    assert back is not None and back.code == "left_this_turn"


def test_a_paragon_leaving_a_unit_that_moved_has_moved_and_a_taken_id_gets_a_number() -> None:
    """[decided] the leaving Paragon takes its unit's turn flags: t moved, so the new unit has too;
    a unit already called t-2 makes the new one t-2-2."""
    t = replace(_joined(), turn_flags=(F_MOVE_DONE,))
    other = squad("t-2", "a", [(40, 40)])
    state = act(_state(t, other), "a", Leave("t", "t-2"))
    assert "t-2-2" in state.units and state.units["t-2"] == other
    refused = rejection(state, "a", Move("t-2-2", path=(Point(15.0, 24.0),)))
    assert refused is not None and refused.code == "already_moved"


def test_leaving_is_refused_after_disembarking_in_combat_and_for_the_last_model() -> None:
    """hh3 Transports, Specialists, Command and Paragons: not in the turn the unit disembarks; hh3
    Model Types, Paragon: not locked in combat, and a Paragon alone is no unit to leave."""
    off = rejection(_state(replace(_joined(), turn_flags=(F_DISEMBARKED,))), "a", Leave("t", "t-2"))
    assert off is not None and off.code == "disembarked_this_turn"
    foe = squad("f", "b", [(8.74, 24)])
    fighting = rejection(_state(_joined(), foe), "a", Leave("t", "t-2"))
    assert fighting is not None and fighting.code == "locked_in_combat"
    dead = _joined()
    dead = replace(dead, models={**dead.models, "t-1": replace(dead.models["t-1"], alive=False)})
    alone = rejection(_state(dead), "a", Leave("t", "t-2"))
    assert alone is not None and alone.code == "last_model"
    trooper = rejection(_state(_joined()), "a", Leave("t", "t-1"))
    assert trooper is not None and trooper.code == "not_a_joined_paragon"


def test_get_options_lists_join_and_leave() -> None:
    """docs/table.md, "What the unit may do": a Paragon may join, a unit with a joined Paragon
    may let it leave; an Infantry unit with only Infantry beside it cannot join."""
    state = _state(_joined(), _paragon(20.0))
    kinds = {o.kind: o.open for o in unit_options(state, "a", state.units["cap"]).options}
    assert kinds["join"] is True and "leave" not in kinds
    kinds = {o.kind: o.open for o in unit_options(state, "a", state.units["t"]).options}
    assert kinds["leave"] is True
    plain = _state(_tacticals(), squad("u", "a", [(14, 24)]))
    kinds = {o.kind: o.open for o in unit_options(plain, "a", plain.units["u"]).options}
    assert kinds["join"] is False


def test_an_infantry_unit_joins_a_paragon_and_keeps_its_own_id() -> None:
    """Seed glossary, Paragon: "Can join or leave an Infantry unit (and vice versa)": the
    tacticals join the Centurion; the result is the same as the Centurion joining them [decided:
    the Infantry unit keeps its id, the Paragon's model becomes a Paragon model of it]."""
    state = act(_state(_tacticals(), _paragon(14.0)), "a", Join("t", "cap"))
    assert "cap" not in state.units and state.units["t"].models["cap-1"].kind == "paragon"
    assert "t joins Centurion" in log_text(state)


def test_other_editions_refuse_join_and_leave() -> None:
    """Join and Leave are hh3 Paragon actions."""
    from hulldown.match.events import MatchCreated
    from hulldown.match.reducer import initial_state
    from hulldown.match.state import Battlefield, Options

    for edition in ("40k7", "40k11"):
        created = MatchCreated(
            edition=edition,
            battlefield=Battlefield(),
            terrain=(),
            units=(_tacticals(), _paragon(14.0)),
            options=Options(),
            commitment="test",
            first="a",
        )
        state = replace(initial_state("m", created), phase="movement")
        refused = rejection(state, "a", Join("cap", "t"))
        assert refused is not None and refused.code == "unsupported_action", edition
