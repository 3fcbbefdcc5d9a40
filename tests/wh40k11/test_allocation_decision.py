"""40k11 core, Allocate attack: the defender chooses which model takes a failed save
(docs/decisions.md, ``allocate_wound``), with fixed dice."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.state import MatchState, Options
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE

from .builders import check, infantry, state, step, take_proposal, weapon

SHOOT = Shoot(unit="gun", fire=(Fire(weapon="lascannon", target="brutes"),))
# Two shots: hits 4, 4; wounds 2, 2 (S12 vs T5: 2+); saves 4 and 3 fail (5+ invulnerable).
BEFORE_PAUSE = [4, 4, 2, 2, 4]
AFTER_PAUSE = [3]


def scene(options: Options | None = None, wounded: bool = False) -> MatchState:
    shooter = infantry(
        "gun", "a", [(10, 10)], weapons=(weapon("lascannon", "gun-1", rng=48, s=12, ap=3, d=3, shots=2),)
    )
    target = infantry("brutes", "b", [(30, 10), (30, 12), (30, 14)], w=4, t=5, sv=3, inv=5)
    if wounded:
        hurt = replace(target.models["brutes-2"], wounds=2)
        target = replace(target, models={**target.models, "brutes-2": hurt})
    s = state(shooter, target, phase="shooting")
    return replace(s, options=options) if options is not None else s


def test_the_defender_is_asked_with_the_legal_models_and_the_attacker_may_not_answer() -> None:
    """40k11 core, Allocate attack: the target unit's owner (side b) allocates; none of its models
    has lost wounds, so all three may take it; the proposal is the first."""
    s = step(scene(), SHOOT, BEFORE_PAUSE)
    pending = s.pending
    assert pending is not None and pending.kind == DECISION_ALLOCATE and pending.side == "b"
    assert pending.options == ("brutes-1", "brutes-2", "brutes-3")
    assert pending.proposal == "brutes-1"
    assert s.suspended is not None and s.suspended.by == "a"
    # Nothing is applied yet: the state is the one before the shot.
    assert all(m.wounds == 4 for m in s.units["brutes"].models.values())
    why = check(s, Decide(pending.id, "brutes-2"), side="a")
    assert why is not None and why.code == "not_your_decision"


def test_an_illegal_model_is_refused_naming_the_allowed_ones() -> None:
    """40k11 core, Allocate attack: only a model of the target unit may take the wound."""
    s = step(scene(), SHOOT, BEFORE_PAUSE)
    assert s.pending is not None
    why = check(s, Decide(s.pending.id, "gun-1"), side="b")
    assert why is not None and why.code == "invalid_choice"
    assert "brutes-1, brutes-2, brutes-3" in why.message
    assert s.units == step(scene(), SHOOT, BEFORE_PAUSE).units


def test_the_defenders_choice_takes_the_damage_and_the_wounded_model_must_take_the_next() -> None:
    """40k11 core, Allocate attack and Inflict damage: b gives the first failed save to brutes-3
    (4 -> 1); the second must go to brutes-3, which has lost wounds (1 -> 0, 2 damage lost), so
    nothing more is asked."""
    s = step(scene(), SHOOT, BEFORE_PAUSE)
    assert s.pending is not None
    s = step(s, Decide(s.pending.id, "brutes-3"), AFTER_PAUSE, side="b")
    assert s.pending is None and s.suspended is None
    models = s.units["brutes"].models
    assert [(m.wounds, m.alive) for m in models.values()] == [(4, True), (4, True), (0, False)]


def test_a_model_that_lost_wounds_leaves_no_choice() -> None:
    """40k11 core, Allocate attack: brutes-2 has already lost wounds (2 of 4 left): both failed
    save goes to it without a question (2 -> 0); then brutes-1 and brutes-3 may take the second,
    which is asked."""
    s = step(scene(wounded=True), SHOOT, [*BEFORE_PAUSE, *AFTER_PAUSE])
    assert s.pending is not None and s.pending.options == ("brutes-1", "brutes-3")
    assert s.suspended is not None
    # The first failed save went to brutes-2 unasked: the pause comes after the second save.
    assert [e.text for e in s.log if "takes 3 damage" in e.text] == [
        "brutes takes 3 damage: brutes-2 is destroyed."
    ]
    s = step(s, Decide(s.pending.id, "brutes-3"), side="b")
    models = s.units["brutes"].models
    assert [(m.wounds, m.alive) for m in models.values()] == [(4, True), (0, False), (1, True)]


def test_the_proposal_reproduces_the_automatic_allocation() -> None:
    """docs/decisions.md, auto_decide: taking the proposal gives the same final state as a match
    that never pauses (brutes-1 takes both: 4 -> 1 -> 0)."""
    taken = take_proposal(step(scene(), SHOOT, BEFORE_PAUSE), DECISION_ALLOCATE, AFTER_PAUSE)
    auto = step(scene(Options(auto_decide=True)), SHOOT, [*BEFORE_PAUSE, *AFTER_PAUSE])
    assert auto.pending is None
    assert taken.units == auto.units
    assert [e.text for e in taken.log if "damage:" in e.text] == [
        e.text for e in auto.log if "damage:" in e.text
    ]
    models = auto.units["brutes"].models
    assert [(m.wounds, m.alive) for m in models.values()] == [(0, False), (4, True), (4, True)]
