"""hh3 core, Wound Allocation: the target unit's owner chooses the model that takes a wound
(docs/decisions.md, ``allocate_wound``), with fixed dice. A Paragon's aimed hits are not asked."""

from __future__ import annotations

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.state import MatchState, Options, UnitKind
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE

from .builders import act, log_text, make, rejection, rolls, squad, take_proposal, wall, weapon

PISTOL = weapon("pistol", strength=4, ap=None, shots=2, rng=24, kind="assault")
SHOOT = Shoot("p", (Fire("p-1-gun", "t"),))
# BS4 hits on 3+, S4 vs T4 wounds on 4+: hits 6, 6; the first hit's wound 6 pauses.
TO_FIRST_PAUSE = [6, 6, 6]


def scene(
    *, kind: UnitKind = "infantry", sv: int | None = 3, options: Options | None = None, cover: bool = False
) -> MatchState:
    hero = squad("p", "a", [(20, 24)], gun=PISTOL, kind=kind)
    victims = squad("t", "b", [(30, 24), (31.5, 24), (33, 24)], sv=sv, w=2)
    terrain = [wall("ruin", 32.5, 23, 33.5, 25, cover=5)] if cover else []
    return make([hero, victims], phase="shooting", options=options, terrain=terrain)


def alive(state: MatchState) -> dict[str, tuple[int, bool]]:
    return {mid: (m.wounds, m.alive) for mid, m in state.units["t"].models.items()}


def test_the_owner_is_asked_with_the_legal_models_and_the_firer_may_not_answer() -> None:
    """hh3 core, Wound Allocation: side b (the target's owner) allocates; no model has lost wounds,
    so all three may take it; the proposal is the closest to the firer, t-1."""
    state = act(scene(), "a", SHOOT, TO_FIRST_PAUSE)
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_ALLOCATE and pending.side == "b"
    assert pending.options == ("t-1", "t-2", "t-3") and pending.proposal == "t-1"
    assert state.suspended is not None and state.suspended.by == "a"
    assert alive(state) == {"t-1": (2, True), "t-2": (2, True), "t-3": (2, True)}
    why = rejection(state, "a", Decide(pending.id, "t-3"))
    assert why is not None and why.code == "not_your_decision"


def test_a_model_not_in_the_target_is_refused_naming_the_allowed_ones() -> None:
    """hh3 core, Wound Allocation: only a live model of the target unit may take the wound."""
    state = act(scene(), "a", SHOOT, TO_FIRST_PAUSE)
    assert state.pending is not None
    why = rejection(state, "b", Decide(state.pending.id, "p-1"))
    assert why is not None and why.code == "invalid_choice"
    assert "t-1, t-2, t-3" in why.message


def test_the_owners_choice_takes_the_wound_and_a_wounded_model_must_take_the_next() -> None:
    """hh3 core, Wound Allocation: b gives the first wound to t-3 (save 1 fails: 2 -> 1 wound);
    the second hit's wound (6) must go to t-3, already wounded, so nothing is asked (save 2 fails:
    t-3 is slain)."""
    state = act(scene(), "a", SHOOT, TO_FIRST_PAUSE)
    assert state.pending is not None
    state = act(state, "b", Decide(state.pending.id, "t-3"), [1, 6, 2])
    assert state.pending is None and state.suspended is None
    assert rolls(state) == [("saving throw", 1), ("wound test", 6), ("saving throw", 2)]
    assert alive(state) == {"t-1": (2, True), "t-2": (2, True), "t-3": (0, False)}


def test_the_chosen_models_own_cover_is_used_for_its_save() -> None:
    """hh3 core, Wound Allocation then Saving Throws: with no armour save, t-3 standing in a ruin
    (5+ cover) rolls a cover save when chosen; t-1 in the open has none (the wound is lost at once)."""
    state = act(scene(sv=None, cover=True), "a", SHOOT, TO_FIRST_PAUSE)
    assert state.pending is not None
    covered = act(state, "b", Decide(state.pending.id, "t-3"), [5, 6])
    assert rolls(covered) == [("saving throw", 5), ("wound test", 6)]
    # t-3 saved, so no model has lost wounds: the second wound is b's choice again.
    assert covered.pending is not None and covered.pending.options == ("t-1", "t-2", "t-3")
    covered = act(covered, "b", Decide(covered.pending.id, "t-3"), [5])
    assert rolls(covered) == [("saving throw", 5)]
    assert alive(covered)["t-3"] == (2, True)
    # In the open: no save; t-1 drops to 1 wound, then must take the second wound (6): slain.
    opened = act(state, "b", Decide(state.pending.id, "t-1"), [6])
    assert rolls(opened) == [("wound test", 6)]
    assert alive(opened)["t-1"] == (0, False)


def test_the_proposal_reproduces_the_automatic_allocation() -> None:
    """docs/decisions.md, auto_decide: taking the proposal gives the same final state as a match
    that never pauses: the closest model t-1 takes both wounds (saves 1, 1)."""
    taken = take_proposal(act(scene(), "a", SHOOT, TO_FIRST_PAUSE), DECISION_ALLOCATE, [1, 6, 1])
    auto = act(scene(options=Options(auto_decide=True)), "a", SHOOT, [*TO_FIRST_PAUSE, 1, 6, 1])
    assert auto.pending is None and taken.pending is None
    assert taken.units == auto.units
    assert alive(auto) == {"t-1": (0, False), "t-2": (2, True), "t-3": (2, True)}


def test_a_paragons_aimed_hit_is_not_asked() -> None:
    """Seed glossary, Paragon: it allocates the hits it inflicts itself: its hit aimed at t-3 goes
    there without a question to b (wound 6, save 1: 2 -> 1; the second hit, wound 6, save 1: t-3
    is slain)."""
    state = scene(kind="paragon")
    aimed = Shoot("p", (Fire("p-1-gun", "t", target_model="t-3"),))
    state = act(state, "a", aimed, [6, 6, 6, 1, 6, 1])
    assert state.pending is None
    assert alive(state) == {"t-1": (2, True), "t-2": (2, True), "t-3": (0, False)}
    assert "Waiting for side b" not in log_text(state)
