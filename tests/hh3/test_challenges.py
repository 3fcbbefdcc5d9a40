"""hh3 Challenges (seed 004 glossary, Paragon: "issue and accept Challenges"; hh3 core, Challenge
Sub-Phase: Declare Challenge, Disgraced, Focus, Strike, Glory), with fixed dice. Decided details
and what is left out: docs/rules-notes.md (hh3, Challenges)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Challenge, Decide, EndPhase, Fight
from hulldown.match.state import MatchState, Profile, Unit
from hulldown.rules.hh3.challenge import CONTINUE, DECISION_CHALLENGE, DECISION_CONTINUE, DECLINE, GLORY
from hulldown.rules.hh3.core import F_FOUGHT, lent_characteristic, majority_characteristic

from .builders import act, log_text, make, rejection, rolls_since, squad, take_proposal

CENTURION = Profile(m=7, ws=5, bs=5, s=4, t=4, w=2, i=5, a=3, ld=10, cool=10, intelligence=9, sv=2)
SERGEANT = Profile(m=7, ws=5, bs=4, s=4, t=4, w=2, i=4, a=2, ld=10, cool=8, intelligence=7, sv=4)


def _with_paragon(unit: Unit, mid: str, profile: Profile) -> Unit:
    models = dict(unit.models)
    models[mid] = replace(models[mid], kind="paragon", profile=profile, wounds=profile.w)
    return replace(unit, models=models)


def _combat(defenders: int = 3, paragon: bool = True) -> MatchState:
    """s (x = 10) and t (x = 11.27) stand in base contact row by row (32 mm bases, 0.01 in apart);
    the second model of each is a joined Paragon."""
    rows = [24.0, 25.3, 22.7][:defenders]
    s = _with_paragon(squad("s", "a", [(10, y) for y in (24.0, 25.3, 22.7)]), "s-2", CENTURION)
    t = squad("t", "b", [(11.27, y) for y in rows], sv=None)
    return make([s, _with_paragon(t, "t-2", SERGEANT) if paragon else t], phase="assault")


def test_an_accepted_challenge_is_fought_apart_and_its_glory_counts_in_resolution() -> None:
    """hh3 core, Challenge Sub-Phase: the Centurion s-2 challenges t; the proposal accepts with the
    Sergeant t-2. Focus: 5 + 3 = 8 against 4 + 3 = 7, s-2 has the Advantage (4 Attacks). WS5 vs
    WS5 hits on 4+: 4, 4, 1, 1 are 2 hits; each wounds (S4 vs T4, 4+: 4) and the Sergeant's own
    4+ save fails (1): it loses its 2 Wounds and does not strike back. Glory: base Wounds 2 + 1
    for a Paragon = 3 points. In the Fight s-2 does not attack: s-1 and s-3 (WS4 vs WS4, 4+) roll
    6, 1, the hit wounds on 4 and slays t-1 (the proposal: the closest). hh3 core, Fight Sub-Phase:
    t-1 and t-3 strike back in the same Initiative step 4 (t-1, slain in that step, still strikes),
    WS4 vs WS4 on 4+: 1, 1 miss. Resolution: side a 3 + 1 + 1 (models 4 against 1: the living
    Centurion counts its base Wounds 2, PARAGON_COUNTS_BASE_WOUNDS_ALIVE)."""
    state = act(_combat(), "a", Challenge("s", "s-2", "t"))
    assert state.pending is not None and state.pending.kind == DECISION_CHALLENGE
    assert state.pending.options == (DECLINE, "t-2") and state.pending.proposal == "t-2"
    issued = state.seq
    state = take_proposal(state, DECISION_CHALLENGE, [3, 3, 4, 4, 1, 1, 4, 1, 4, 1])
    assert [v for _, v in rolls_since(state, issued)] == [3, 3, 4, 4, 1, 1, 4, 1, 4, 1]
    assert [r.target for e in state.log if e.seq > issued for r in e.rolls][2:] == [
        "4+", "4+", "4+", "4+", "4+", "4+", "4+", "4+",
    ]  # fmt: skip
    text = log_text(state)
    assert "Focus: s-2 8, t-2 7." in text and "s-2 wins the challenge: 3 combat resolution points." in text
    assert not state.units["t"].models["t-2"].alive
    state = act(state, "a", Fight("s", "t"), [6, 4])
    assert "s-2 (close combat)" not in log_text(state).split("s attacks t")[1]
    state = take_proposal(state, "allocate_wound", [1, 1, 1])
    assert sum(m.alive for m in state.units["t"].models.values()) == 1
    assert "Initiative step 4: s strikes with s-1, s-3; t strikes with t-1, t-3." in log_text(state)
    assert [p for p, _ in rolls_since(state, issued)][-2:] == ["strike back hit test"] * 2
    state = act(state, "a", EndPhase(), [3, 3, 3])
    assert "side a 5 points, side b 0 points (models 4 against 1)" in log_text(state)
    # hh3 core, Resolution Sub-Phase: 7 - 5 = 2, 3 + 3 fails; Aftermath: t Falls Back 4 + 3.
    assert "t is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in log_text(state)
    assert not any(f.startswith("challenge:") for u in state.units.values() for f in u.turn_flags)


def test_the_challenged_models_take_no_wounds_in_the_fight_and_a_draw_scores_nothing() -> None:
    """hh3 core, Challenge Sub-Phase: Focus 5 + 1 and 4 + 2 tie and are rolled again (3 and 1: s-2
    first). s-2's 4 attacks miss (1, 1, 1, 1), the Sergeant's 2 miss (1, 1): a draw, no points.
    In the Fight s-1's wound (6, 4) may go to t-1 or t-3, never to t-2, which is fighting the challenge."""
    state = act(_combat(), "a", Challenge("s", "s-2", "t"))
    state = take_proposal(state, DECISION_CHALLENGE, [1, 2, 3, 1, 1, 1, 1, 1, 1, 1])
    assert "Focus: s-2 6, t-2 6." in log_text(state) and "Focus: s-2 8, t-2 5." in log_text(state)
    # Both stand: side a, with the Advantage, takes the proposal - Glory.
    assert state.pending is not None and state.pending.side == "a"
    assert state.pending.options == (GLORY, CONTINUE) and state.pending.proposal == GLORY
    state = take_proposal(state, DECISION_CONTINUE)
    assert "The challenge is a draw: no combat resolution points." in log_text(state)
    state = act(state, "a", Fight("s", "t"), [6, 4])
    assert state.pending is not None and state.pending.options == ("t-1", "t-3")


def test_a_declined_challenge_disgraces_the_sergeant() -> None:
    """hh3 core, Challenge Sub-Phase, Disgraced: side b declines; its eligible model t-2 is
    Disgraced: WS 5 -> 2 (t's majority WS, a tie of WS4 and WS5, falls from 5 to 4) and the
    Leadership it lends falls from 10 to 5 (t tests on its own 7)."""
    state = _combat(defenders=2)
    assert majority_characteristic(state.units["t"], "ws") == 5
    assert lent_characteristic(state.units["t"], "ld") == 10
    state = act(state, "a", Challenge("s", "s-2", "t"))
    assert state.pending is not None
    state = act(state, "b", Decide(state.pending.id, DECLINE))
    t = state.units["t"]
    assert "disgraced:t-2" in t.turn_flags and "t-2 of t is Disgraced" in log_text(state)
    assert majority_characteristic(t, "ws") == 4 and lent_characteristic(t, "ld") == 7
    state = act(state, "a", EndPhase())
    assert "disgraced:t-2" not in state.units["t"].turn_flags


def test_challenges_are_refused_with_the_reason() -> None:
    """hh3 core, Challenge Sub-Phase: who may issue one, when, and against whom."""
    state = _combat()
    trooper = rejection(state, "a", Challenge("s", "s-1", "t"))
    assert trooper is not None and trooper.code == "not_a_paragon"
    nobody = rejection(_combat(paragon=False), "a", Challenge("s", "s-2", "t"))
    assert nobody is not None and nobody.code == "no_one_to_challenge"
    moved = replace(state, units={**state.units, "t": replace(state.units["t"], models={
        mid: replace(m, pos=replace(m.pos, x=m.pos.x + 3)) for mid, m in state.units["t"].models.items()
    })})  # fmt: skip
    apart = rejection(moved, "a", Challenge("s", "s-2", "t"))
    assert apart is not None and apart.code == "not_in_contact" and apart.values["distance"] == 3.01
    fought = replace(state, units={**state.units, "s": replace(state.units["s"], turn_flags=(F_FOUGHT,))})
    late = rejection(fought, "a", Challenge("s", "s-2", "t"))
    assert late is not None and late.code == "already_fought"
    done = act(state, "a", Challenge("s", "s-2", "t"))
    done = act(done, "b", Decide(done.pending.id, DECLINE))  # type: ignore[union-attr]
    twice = rejection(done, "a", Challenge("s", "s-2", "t"))
    assert twice is not None and twice.code == "already_challenged"
    # One challenge per combat: a lone Paragon touching t is in the same combat.
    lone = squad("r", "a", [(12.54, 24)], kind="paragon")
    joined = replace(done, units={**done.units, "r": lone})
    other = rejection(joined, "a", Challenge("r", "r-1", "t"))
    assert other is not None and other.code == "already_challenged"
    phase = rejection(replace(state, phase="shooting"), "a", Challenge("s", "s-2", "t"))
    assert phase is not None and phase.code == "wrong_phase"


def test_auto_decide_accepts_with_the_proposal() -> None:
    """docs/decisions.md, auto_decide: the challenge is accepted by the proposal without a pause."""
    state = _combat()
    state = replace(state, options=replace(state.options, auto_decide=True))
    state = act(state, "a", Challenge("s", "s-2", "t"), [3, 3, 4, 4, 1, 1, 4, 1, 4, 1])
    assert state.pending is None and "s-2 wins the challenge" in log_text(state)


def test_a_combat_is_resolved_in_the_assault_phase_it_was_fought_only() -> None:
    """hh3 core, Resolution Sub-Phase: the combats that fought a round *this* Assault phase. s
    slays a trooper of t (6, 6; t has no save); both troopers of t strike back at Initiative step 4
    (hh3 core, Fight Sub-Phase), WS4 vs WS4 on 4+, and miss (1, 1); side a wins 1 to 0 and t
    passes its Panic Check (1 + 1 <= 7 - 1). In side b's turn nobody fights: its Assault phase
    resolves nothing."""
    s = squad("s", "a", [(10, 24)])
    t = squad("t", "b", [(11.27, 24), (11.27, 25.3)], sv=None)
    state = act(make([s, t], phase="assault"), "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, "allocate_wound", [1, 1])
    state = act(state, "a", EndPhase(), [1, 1])
    assert log_text(state).count("Combat resolution") == 1
    assert not any(f.startswith(("combat:", "glory:")) for u in state.units.values() for f in u.turn_flags)
    while not (state.active == "b" and state.phase == "end"):
        state = act(state, state.active, EndPhase())
    assert log_text(state).count("Combat resolution") == 1


def test_a_model_of_a_unit_with_a_status_focuses_on_initiative_1() -> None:
    """hh3 core, Challenge Sub-Phase, Focus (Combat Initiative) and Resolving an Initiative Step:
    a model with a status attacks at Initiative 1. t is Suppressed: the Sergeant's Focus is
    1 + 6 = 7 against the Centurion's 5 + 3 = 8, so s-2 strikes first although it rolled lower;
    its 4 attacks and the Sergeant's 2 all miss (1s): a draw."""
    state = _combat()
    t = replace(state.units["t"], statuses={"suppressed": 0})
    state = act(replace(state, units={**state.units, "t": t}), "a", Challenge("s", "s-2", "t"))
    state = take_proposal(state, DECISION_CHALLENGE, [3, 6, 1, 1, 1, 1, 1, 1])
    assert "Focus: s-2 8, t-2 7." in log_text(state)
    assert "s-2 has the Challenge Advantage" in log_text(state)


def test_the_other_side_may_challenge_in_the_same_combat_in_its_own_assault_phase() -> None:
    """hh3 core, Challenge Sub-Phase: one challenge per combat in each Assault phase. Side a's
    declined challenge does not stop side b's Sergeant challenging s in b's Assault phase."""
    state = act(_combat(), "a", Challenge("s", "s-2", "t"))
    state = act(state, "b", Decide(state.pending.id, DECLINE))  # type: ignore[union-attr]
    while not (state.active == "b" and state.phase == "assault"):
        state = act(state, state.active, EndPhase())
    assert rejection(state, "b", Challenge("t", "t-2", "s")) is None


def test_the_player_with_the_advantage_may_fight_another_round() -> None:
    """hh3 core, Challenge Sub-Phase, Strike: both stand after the first round (all 1s); side a,
    with the Advantage, continues. Second Focus 5 + 4 = 9 against 4 + 1 = 5: s-2 first again;
    4, 4, 1, 1 are two hits, each wounds (4) and is not saved (1): the Sergeant falls, and Glory
    gives s-2 its base Wounds 2 + 1 = 3 points."""
    state = act(_combat(), "a", Challenge("s", "s-2", "t"))
    state = take_proposal(state, DECISION_CHALLENGE, [3, 3, 1, 1, 1, 1, 1, 1])
    assert state.pending is not None and state.pending.kind == DECISION_CONTINUE
    state = act(state, "a", Decide(state.pending.id, CONTINUE), [4, 1, 4, 4, 1, 1, 4, 1, 4, 1])
    assert state.pending is None and not state.units["t"].models["t-2"].alive
    assert "Focus: s-2 9, t-2 5." in log_text(state)
    assert "s-2 wins the challenge: 3 combat resolution points." in log_text(state)
    assert "glory:t:3" in state.units["s"].turn_flags
