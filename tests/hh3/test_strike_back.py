"""hh3 fights between infantry: both sides strike, in Initiative Steps (hh3 core, Fight Sub-Phase:
Declare Weapons and Set Initiative Steps, Resolve First Initiative Step, Continue Initiative
Steps; Resolving an Initiative Step), and combat resolution counts what each side removed (hh3
core, Resolution Sub-Phase). Worked examples with fixed dice; decided details:
docs/rules-notes.md (hh3, 2.19 Combat and Combat resolution)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, EndPhase, Fight
from hulldown.match.state import MatchState, Unit
from hulldown.rules.hh3.core import F_CHARGED, F_DISORDERED, F_STRUCK_BACK, R_INITIATIVE_STEP

from .builders import act, charge, log_text, make, rolls, squad, take_proposal, tank

# 32 mm bases (1.26 in): models 1.27 in apart along x are in base contact.
STEP_RULE = R_INITIATIVE_STEP


def _charged() -> MatchState:
    """s (one trooper at x = 27) charges t (two troopers, 2.5 in away): I4 + M7 gives a 3 in
    Set-up Move, which reaches base contact (hh3 core, Charge Procedure, Make Set-up Move): the
    charge succeeds with no dice and s gets +1 Attack."""
    s = squad("s", "a", [(27, 24)])
    t = squad("t", "b", [(30.76, 24), (30.76, 25.5)])
    state = charge(make([s, t], phase="assault"), "a", Charge("s", "t"), [])
    assert state.units["s"].flag("charge_ok")
    return state


def test_a_charged_squad_strikes_back() -> None:
    """hh3 core, Fight Sub-Phase: s (WS4, A1 + 1 for the charge) misses twice (1, 1) at Initiative
    step 4; in the same step the charged squad's two engaged troopers (t-1 in base contact, t-2
    within 2 in of it) strike back, WS4 vs WS4 on 4+: t-1 hits (4), wounds S4 vs T4 (4) and s-1's
    3+ save fails (1): s is destroyed, so t-2 has nobody left to strike."""
    state = act(_charged(), "a", Fight("s", "t"), [1, 1, 4, 4, 1])
    assert [p for p, _ in rolls(state)] == [
        "melee hit test",
        "melee hit test",
        "strike back hit test",
        "wound test",
        "saving throw",
    ]
    text = log_text(state)
    assert "s attacks t (against WS4: WS4 hits on 4+, +1 Attack for the charge)." in text
    assert "t strikes back at s (against WS4: WS4 hits on 4+)." in text
    assert "Initiative step 4: s strikes with s-1; t strikes with t-1, t-2." in text
    assert "t-1 (close combat): 1 hit." in text
    assert state.units["s"].destroyed
    assert "combat:s:1" in state.units["t"].turn_flags and F_STRUCK_BACK in state.units["t"].turn_flags
    step = next(e for e in state.log if e.text.startswith("Initiative step 4"))
    assert step.rule == STEP_RULE


def test_strike_back_casualties_win_the_combat_resolution() -> None:
    """hh3 core, Resolution Sub-Phase: s (two troopers, not charging) misses twice (1, 1); t's
    two troopers strike back at step 4: t-1 hits and wounds (4, 4); s's owner allocates the wound
    (hh3 core, Wound Allocation: the proposal, s-1, the closest) and the 3+ save fails (1); t-2
    misses (1). Side b scores 1 for the model removed + 1 for the most models (2 against 1); side
    a makes its Panic Check at Leadership 7 - 2 = 5: 3 + 3 fails, s gains Routed."""
    s = squad("s", "a", [(10, 24), (10, 25.3)])
    t = squad("t", "b", [(11.27, 24), (11.27, 25.3)])
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [1, 1, 4, 4])
    assert state.pending is not None and state.pending.side == "a"
    state = take_proposal(state, "allocate_wound", [1, 1])
    assert not state.units["s"].models["s-1"].alive
    state = act(state, "a", EndPhase(), [3, 3, 3])
    text = log_text(state)
    assert "side a 0 points, side b 2 points (models 1 against 2)" in text
    assert "Side b wins the combat." in text
    assert state.units["s"].statuses == {"routed": 0}
    # hh3 core, Resolution Sub-Phase, Aftermath: s Falls Back Initiative 4 + 3 = 7 in; t, with no
    # enemy left in base contact, Consolidates (without moving).
    assert "s is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in text
    assert "t Consolidates: it stays where it is." in text
    assert F_STRUCK_BACK not in state.units["t"].turn_flags  # cleared with the resolution


def test_the_higher_initiative_kills_a_model_before_it_strikes_back() -> None:
    """hh3 core, Fight Sub-Phase, Initiative Steps: s (I5) strikes at step 5: hit 6, wound 6, and
    t-1 has no save: slain before step 4, it never strikes back - no strike back die is rolled."""
    s = squad("s", "a", [(10, 24)], i=5)
    t = squad("t", "b", [(11.27, 24)], sv=None)
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [6, 6])
    assert [p for p, _ in rolls(state)] == ["melee hit test", "wound test"]
    text = log_text(state)
    assert "Initiative step 5: s strikes with s-1." in text
    assert "t-1 of t was slain before Initiative step 4: it does not strike." in text
    assert state.units["t"].destroyed


def test_a_faster_defender_strikes_first_and_the_attacker_never_swings() -> None:
    """hh3 core, Fight Sub-Phase: the charged t (I5) strikes back at step 5, before s (I4): hit 6,
    wound 6, s-1's 3+ save fails (1). s-1 is slain before step 4: s makes no attack at all."""
    s = squad("s", "a", [(10, 24)])
    t = squad("t", "b", [(11.27, 24)], i=5)
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [6, 6, 1])
    assert [p for p, _ in rolls(state)] == ["strike back hit test", "wound test", "saving throw"]
    text = log_text(state)
    assert "Initiative step 5: t strikes with t-1." in text
    assert "s-1 of s was slain before Initiative step 4: it does not strike." in text
    assert state.units["s"].destroyed and all(m.alive for m in state.units["t"].models.values())


def test_same_initiative_strikes_are_simultaneous() -> None:
    """hh3 core, Fight Sub-Phase: casualties are removed at the end of a step, so t-1, slain by s
    at step 4 (6, 6, no save), still strikes back in that step (6, 6, s-1's save 1): both die."""
    s = squad("s", "a", [(10, 24)])
    t = squad("t", "b", [(11.27, 24)], sv=None)
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [6, 6, 6, 6, 1])
    assert state.units["s"].destroyed and state.units["t"].destroyed
    state = act(state, "a", EndPhase())
    assert "one side was wiped out, no resolution to make" in log_text(state)


def test_a_vehicle_still_never_strikes_back() -> None:
    """hh3 Vehicles, Combat: a vehicle does not attack: only s's dice are rolled."""
    s = squad("s", "a", [(32.86, 24)])
    state = act(make([s, tank("v", "b", 36, 24, 180)], phase="assault"), "a", Fight("s", "v"), [1])
    assert [p for p, _ in rolls(state)] == ["melee hit test"]
    text = log_text(state)
    assert "strikes back" not in text and "v does not attack back." in text
    assert "Initiative step 4: s strikes with s-1." in text


def test_a_unit_with_a_status_strikes_at_initiative_step_1() -> None:
    """hh3 core, Resolving an Initiative Step: a model with any status attacks at Initiative Step
    1. The Pinned t (I4) strikes back after s (I4, step 4): s misses (1), t-1 misses (1)."""
    s = squad("s", "a", [(10, 24)])
    t = replace(squad("t", "b", [(11.27, 24)]), statuses={"pinned": 0})
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [1, 1])
    text = log_text(state)
    assert text.index("Initiative step 4: s strikes with s-1.") < text.index(
        "Initiative step 1: t strikes with t-1."
    )


def test_a_disordered_charger_strikes_at_initiative_step_1_without_the_bonus() -> None:
    """[decided] DISORDERED_STRIKES_AT_STEP_1 (docs/rules-notes.md, hh3 2.19 Combat): a unit that
    charged Disordered (here after disembarking) strikes at step 1 with no charge bonus Attack;
    the charged t-1 (I4) strikes first, at step 4: both miss (1, 1)."""
    s: Unit = squad("s", "a", [(10, 24)])
    s = replace(s, turn_flags=(F_CHARGED, F_DISORDERED, "charge_ok"))
    t = squad("t", "b", [(11.27, 24)])
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [1, 1])
    assert [p for p, _ in rolls(state)] == ["strike back hit test", "melee hit test"]
    assert "Initiative step 4: t strikes with t-1." in log_text(state)
    assert "Initiative step 1: s strikes with s-1." in log_text(state)


def test_a_unit_strikes_back_in_one_fight_per_assault_phase() -> None:
    """hh3 core, Fight Sub-Phase: a unit attacks in one combat per Assault phase. s and r both
    touch t; t strikes back at s (both miss: 1, 1) but not again at r (r misses: 1)."""
    s = squad("s", "a", [(10, 24)])
    r = squad("r", "a", [(12.54, 24)])
    t = squad("t", "b", [(11.27, 24)])
    state = act(make([s, r, t], phase="assault"), "a", Fight("s", "t"), [1, 1])
    state = act(state, "a", Fight("r", "t"), [1])
    assert [p for p, _ in rolls(state)] == ["melee hit test"]
    assert "t already attacked in a combat this Assault phase: it does not strike back again." in log_text(
        state
    )
