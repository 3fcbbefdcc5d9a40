"""40k11 core, Charge and Fight phases (minimal core [ext]): declaration within 12", the
2D6 charge roll, the charge move (no 17.01 permission), close combat with WS, and the other side's
fights offered as pending decisions."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, EndPhase, Fight, Move
from hulldown.match.state import MatchState, Point
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE

from .builders import check, infantry, rolls, state, step, take_proposal, vehicle, weapon


def charge_scene(*extra: object) -> MatchState:
    squad = infantry(
        "squad",
        "a",
        [(10, 24), (10, 25.5)],
        weapons=(weapon("sword", "squad-1", s=5, ap=1, shots=2, kind="melee"),),
    )
    foe = infantry("foe", "b", [(16, 24)], w=2)
    return state(squad, foe, *extra, phase="charge")  # type: ignore[arg-type]


def test_charge_roll_then_charge_move() -> None:
    """40k11 core, Charge: the declaration rolls 2D6 (2 + 3 = 5); the charge move may go up to 5"
    and must end within Engagement Range of the target."""
    s = step(charge_scene(), Charge(unit="squad", target="foe"), [2, 3])
    assert rolls(s) == [("charge", 2, ""), ("charge", 3, "")]
    assert "charge_roll=5" in s.units["squad"].turn_flags
    too_far = check(s, Move(unit="squad", kind="charge", path=(Point(15.2, 24),)))
    assert too_far is not None and too_far.code == "too_far" and too_far.values["limit"] == 5.0
    short = check(s, Move(unit="squad", kind="charge", path=(Point(11, 24),)))
    assert short is not None and short.code == "charge_not_reached"
    s = step(s, Move(unit="squad", kind="charge", path=(Point(14.739, 24),)))
    assert s.units["squad"].flag("charged")
    again = check(s, Move(unit="squad", kind="charge", path=(Point(14.2, 24),)))
    assert again is not None and again.code == "already_charged"


def test_charge_fails_when_the_roll_is_short() -> None:
    """40k11 core, Charge: 4.74" to close, Engagement Range 2": a roll of 2 cannot reach; the charge
    fails at once and no charge move is allowed."""
    s = step(charge_scene(), Charge(unit="squad", target="foe"), [1, 1])
    assert s.units["squad"].flag("charge_failed")
    problem = check(s, Move(unit="squad", kind="charge", path=(Point(11, 24),)))
    assert problem is not None and problem.code == "charge_failed"


def test_charge_declaration_rejections() -> None:
    """40k11 core, Charge: target within 12", not already engaged, once per turn, Charge phase."""
    far = state(infantry("squad", "a", [(10, 24)]), infantry("foe", "b", [(30, 24)]), phase="charge")
    problem = check(far, Charge(unit="squad", target="foe"))
    assert problem is not None and problem.code == "charge_out_of_range"
    assert problem.values == {"distance": 18.74, "range": 12.0}
    engaged = state(infantry("squad", "a", [(10, 24)]), infantry("foe", "b", [(12, 24)]), phase="charge")
    problem = check(engaged, Charge(unit="squad", target="foe"))
    assert problem is not None and problem.code == "engaged"
    s = step(charge_scene(), Charge(unit="squad", target="foe"), [1, 1])
    problem = check(s, Charge(unit="squad", target="foe"))
    assert problem is not None and problem.code == "already_charged"
    problem = check(replace(charge_scene(), phase="movement"), Charge(unit="squad", target="foe"))
    assert problem is not None and problem.code == "wrong_phase"


def test_charge_move_gets_no_17_01_permission() -> None:
    """40k11 17.01 [decided]: a VEHICLE's charge move may not go through models (17.01 covers
    normal and Advance moves only)."""
    tank = vehicle("tank", "a", 10, 24)
    friends = infantry("friends", "a", [(15.5, 25)])
    foe = infantry("foe", "b", [(21, 24)])
    s = step(state(tank, friends, foe, phase="charge"), Charge(unit="tank", target="foe"), [6, 6])
    problem = check(s, Move(unit="tank", kind="charge", path=(Point(17, 24),)))
    assert problem is not None and problem.code == "move_through_model"
    assert "charge move gives no permission" in problem.message
    assert problem.values["obstacle"] == "friends-1"
    assert check(s, Move(unit="tank", kind="charge", path=(Point(10, 21), Point(17, 21)))) is None


def test_charge_may_not_end_near_another_enemy() -> None:
    """40k11 core, Charge [ext]: no model may end within Engagement Range of a unit it did not charge."""
    s = step(charge_scene(infantry("other", "b", [(15, 27.6)])), Charge(unit="squad", target="foe"), [3, 3])
    problem = check(s, Move(unit="squad", kind="charge", path=(Point(14, 24),)))
    assert problem is not None and problem.code == "charge_other_enemy"


def charged() -> MatchState:
    s = step(charge_scene(), Charge(unit="squad", target="foe"), [2, 3])
    s = step(s, Move(unit="squad", kind="charge", path=(Point(14.739, 24),)))
    return step(s, EndPhase())


def test_fight_uses_ws_and_melee_weapon() -> None:
    """40k11 core, Fight: squad-1 fights with its sword (2 attacks, S5 AP1 vs T4 Sv3+: wounds on 3+,
    saves on 4+), squad-2 (also within Engagement Range) with its profile (1 attack, S4: 4+). WS 3+:
    the 2 misses, the 3 hits."""
    s = charged()
    assert s.phase == "fight"
    # sword: hits 2 (miss), 3 (hit); wound 3; save 3 (fails: needs 4+) -> foe-1 2 -> 1 wound.
    # squad-2: hit 6, wound 4, save 2 (fails) -> foe-1 destroyed.
    after = step(s, Fight(unit="squad", target="foe", weapon="sword"), [2, 3, 3, 3, 6, 4, 2])
    assert rolls(after)[-7:] == [
        ("hit", 2, "miss"),
        ("hit", 3, "hit"),
        ("wound", 3, "wound"),
        ("save", 3, "failed"),
        ("hit", 6, "hit"),
        ("wound", 4, "wound"),
        ("save", 2, "failed"),
    ]
    assert after.units["foe"].destroyed
    problem = check(after, Fight(unit="squad", target="foe"))
    assert problem is not None and problem.code == "already_fought"


def test_fight_needs_engagement() -> None:
    """40k11 core, Fight: only against a unit the fighter is engaged with."""
    s = state(infantry("squad", "a", [(10, 24)]), infantry("foe", "b", [(20, 24)]), phase="fight")
    problem = check(s, Fight(unit="squad", target="foe"))
    assert problem is not None and problem.code == "not_engaged"


def test_other_side_fights_back_through_a_decision() -> None:
    """40k11 core, Fight [decided order]: when the active side ends the Fight phase, each engaged
    unit of the other side that has not fought is offered a fight (pending decision for side b)."""
    s = charged()
    s = step(s, Fight(unit="squad", target="foe", weapon="sword"), [1, 1, 1])  # all miss
    s = step(s, EndPhase())
    assert s.pending is not None and s.pending.side == "b"
    assert s.pending.options == ("squad", "decline")
    assert s.phase == "fight" and s.active == "a"
    # Only side b may answer; side a's actions wait.
    blocked = check(s, EndPhase(), side="a")
    assert blocked is not None and blocked.code == "decision_pending"
    # foe (WS3, A1, S4 vs T4): hit 4, wound 5, save 1 -> squad-1 dies.
    s = step(s, Decide(decision=s.pending.id, choice="squad"), [4, 5, 1], side="b")
    # 40k11 core, Allocate attack: side a chooses which squad model takes it (proposal squad-1).
    s = take_proposal(s, DECISION_ALLOCATE)
    assert s.pending is None
    assert not s.units["squad"].models["squad-1"].alive
    assert (s.active, s.phase) == ("b", "command")


def test_fight_back_can_be_declined() -> None:
    """The offered unit may decline; the player turn then ends."""
    s = charged()
    s = step(s, EndPhase())
    assert s.pending is not None
    s = step(s, Decide(decision=s.pending.id, choice="decline"), side="b")
    assert (s.pending, s.active, s.phase) == (None, "b", "command")


def test_the_log_counts_battle_rounds() -> None:
    """40k11 core rules, The Battle Round: the turn of both players is a battle round, and the log
    says so as the table's header does ("battle round 2", not "turn 2")."""
    s = state(infantry("a1", "a", [(10, 10)]), infantry("b1", "b", [(40, 40)]), phase="fight", active="b")
    s = step(s, EndPhase())
    assert s.log[-1].text == "Side b ends its turn; battle round 2, side a to play."
