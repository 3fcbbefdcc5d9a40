"""40k7 The Shooting Phase, Allocate Wounds, with fixed dice: Closest Models (the owner chooses
among equally close models: ``allocate_wound``, docs/decisions.md), Out Of Sight (a model no
firing model sees cannot take a wound; with none in sight the rest are lost; a Blast weapon's
wounds go to the closest model all the same) and Random
Allocation (hits on the passengers of an exploding transport)."""

from __future__ import annotations

import random

from msgspec.structs import replace

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.state import MatchState, Options
from hulldown.rules.dice import FixedDice
from hulldown.rules.wh40k7 import refs
from hulldown.rules.wh40k7.allocation import DECISION_ALLOCATE, EQUIDISTANT_WITHIN
from hulldown.rules.wh40k7.attacks import Hit
from hulldown.rules.wh40k7.geo import footprint
from hulldown.rules.wh40k7.penetration import PenProfile
from hulldown.rules.wh40k7.resolve import _firers_sight
from hulldown.rules.wh40k7.survivors import DECISION_SURVIVORS
from hulldown.rules.wh40k7.wounds import resolve_wounds

from .builders import act, infantry, make_state, rejection_of, rhino, ruin, take_proposal, vehicle, weapon
from .random_play import legal_actions

BOLTER = weapon("bg", "Boltgun", 24, 4, None, type="assault", shots=2)
SHOOT = Shoot("s", (Fire("bg", "t"),))


def _tied(options: Options | None = None, w: int = 1) -> MatchState:
    """A Boltgun (Assault 2) 10" from two models standing 1" either side of its line: both are
    exactly as far from the firer; a third model stands further back. No armour (no save die)."""
    shooter = infantry("s", "a", [(10, 24)], weapons=[(0, BOLTER)])
    target = infantry("t", "b", [(20, 23), (20, 25), (22, 24)], w=w, sv=None)
    state = make_state(shooter, target, phase="shooting")
    return replace(state, options=options) if options is not None else state


def test_equally_close_models_are_the_owners_choice_and_the_firer_may_not_answer() -> None:
    """40k7 Allocate Wounds, Closest Models: "If two or more models are equidistant from the
    firing unit, the owning player chooses". Hits 3, 3 (BS4: 3+); wounds 4, 1 (S4 vs T4: 4+): one
    wound, and t-0 and t-1 tie (t-2 is further back): side b is asked, before any save, with
    the two tied models; the proposal is the lowest id, t-0. Nothing is applied yet."""
    paused = act(_tied(), "a", SHOOT, [3, 3, 4, 1]).state
    pending = paused.pending
    assert pending is not None and pending.kind == DECISION_ALLOCATE and pending.side == "b"
    assert pending.options == ("t-0", "t-1")
    assert pending.proposal == "t-0"
    assert pending.rule == refs.CLOSEST_MODELS
    assert pending.context == {"unit": "t", "damage": "1"}
    assert paused.suspended is not None and paused.suspended.by == "a"
    assert all(m.alive for m in paused.units["t"].models.values())
    why = rejection_of(paused, "a", Decide(pending.id, "t-1"))
    assert why is not None and why.code == "not_your_decision"


def test_a_model_that_is_not_among_the_closest_is_refused_with_the_allowed_ones() -> None:
    """40k7 Closest Models: t-2 stands further back, so it may not be chosen; the rejection names
    the two allowed models and carries the choice in its values; nothing changes."""
    paused = act(_tied(), "a", SHOOT, [3, 3, 4, 1]).state
    assert paused.pending is not None
    why = rejection_of(paused, "b", Decide(paused.pending.id, "t-2"))
    assert why is not None and why.code == "invalid_choice"
    assert why.rule == refs.CLOSEST_MODELS
    assert "t-0, t-1" in why.message
    assert why.values == {"choice": "t-2"}


def test_the_chosen_model_takes_the_wound() -> None:
    """40k7 Closest Models: b gives the wound to t-1, which has no save and is removed; 1 of 3
    lost is 25%: a Morale check, 3 + 3 on Ld 8 passes."""
    paused = act(_tied(), "a", SHOOT, [3, 3, 4, 1]).state
    assert paused.pending is not None
    done = act(paused, "b", Decide(paused.pending.id, "t-1"), [3, 3]).state
    assert done.pending is None and done.suspended is None
    alive = {k: m.alive for k, m in done.units["t"].models.items()}
    assert alive == {"t-0": True, "t-1": False, "t-2": True}
    line = next(e for e in done.log if e.rule == refs.CASUALTIES)
    assert line.values["allocated"] == ["t-1"]


def test_the_chosen_model_stays_the_closest_until_it_is_slain() -> None:
    """40k7 Closest Models: the chosen model "is treated as being the closest model and remains so
    until either the firing unit's attack ends or the model is slain". Two-Wound models; wounds
    4, 4: b chooses t-1 once and it takes both wounds (2 -> 0) with no second question."""
    paused = act(_tied(w=2), "a", SHOOT, [3, 3, 4, 4]).state
    assert paused.pending is not None and paused.pending.options == ("t-0", "t-1")
    done = act(paused, "b", Decide(paused.pending.id, "t-1"), [3, 3]).state
    assert done.pending is None
    models = done.units["t"].models
    assert [(k, m.wounds) for k, m in models.items()] == [("t-0", 2), ("t-1", 0), ("t-2", 2)]


def test_the_proposal_is_the_automatic_allocation() -> None:
    """docs/decisions.md, auto_decide: taking the proposal gives the same state as a match that
    never pauses: t-0 (the lowest id of the tied models) is removed."""
    taken = take_proposal(act(_tied(), "a", SHOOT, [3, 3, 4, 1]).state, DECISION_ALLOCATE, [3, 3]).state
    auto = act(_tied(Options(auto_decide=True)), "a", SHOOT, [3, 3, 4, 1, 3, 3]).state
    assert auto.pending is None
    assert taken.units == auto.units
    assert not auto.units["t"].models["t-0"].alive


def test_models_beyond_the_tolerance_are_not_tied() -> None:
    """40k7 Closest Models [decided EQUIDISTANT_WITHIN]: t-1 stands just beyond the tolerance
    further than t-0, so t-0 is the closest and nobody is asked."""
    shooter = infantry("s", "a", [(10, 24)], weapons=[(0, BOLTER)])
    target = infantry("t", "b", [(20, 23), (20 + 2 * EQUIDISTANT_WITHIN, 25)], sv=None)
    state = make_state(shooter, target, phase="shooting")
    done = act(state, "a", SHOOT, [3, 1, 4, 3, 3]).state
    assert done.pending is None
    assert not done.units["t"].models["t-0"].alive and done.units["t"].models["t-1"].alive


def _hidden_closest() -> MatchState:
    """t-0 is the closest model but a ruin that blocks line of sight stands between it and the
    firer; t-1, further away, is in plain sight (the line to it passes above the ruin)."""
    shooter = infantry("s", "a", [(10, 24)], weapons=[(0, BOLTER)])
    target = infantry("t", "b", [(20, 24), (22, 32)], sv=None)
    return make_state(shooter, target, terrain=[ruin("wall", 14, 22, 16, 26)], phase="shooting")


def test_a_model_out_of_sight_cannot_take_a_wound_and_the_rest_are_lost() -> None:
    """40k7 Allocate Wounds, Out Of Sight: "Wounds cannot be allocated to" a model no firing model
    can see; they go to the nearest visible model, and "If there are no visible models in the
    target unit, all remaining Wounds in the pool are lost". Hits 3, 3; wounds 4, 4: the first
    goes to t-1 (t-0 is closer but hidden), t-1 is removed; the second wound is lost, so t-0
    lives. 1 of 2 lost: Morale 3 + 3 passes."""
    res = act(_hidden_closest(), "a", SHOOT, [3, 3, 4, 4, 3, 3])
    models = res.state.units["t"].models
    assert models["t-0"].alive and not models["t-1"].alive
    lost = next(e for e in res.state.log if e.rule == refs.OUT_OF_SIGHT)
    assert lost.values == {"lost": 1}
    assert lost.text == "No model of t is in sight of the firers: 1 remaining wound is lost."
    line = next(e for e in res.state.log if e.rule == refs.CASUALTIES)
    assert line.values["allocated"] == ["t-1"]


def test_passenger_hits_of_an_exploding_transport_are_randomly_allocated() -> None:
    """40k7 Transports, Effects of Damage on Passengers (Explodes!): the hits on the passengers
    "are Randomly Allocated" (40k7 Allocate Wounds, Random Allocation: a model picked at random
    stays the closest until slain). Lascannon: hit 6, pen 6, damage 5 + 2 (AP1) = 7 Explodes!,
    radius 1; the survivors are placed (the proposal); 3 S4 hits wound on 4, 4, 4; one D6 picks
    among 3 models by pairs of faces (40k7 General Principles, Randomising; id order): 3 picks
    m-1, whose 3+ save fails on 1; the next wound picks again among the 2 left, by halves: 1
    picks m-0, which keeps the last wound too; saves 6 and 6; Pinning 1 1."""
    t = replace(rhino("r", "b", 30, 24, 180, keywords=("tank", "transport")), passengers=("m",))
    m = replace(infantry("m", "b", [(0, 0), (0, 2), (0, 4)]), embarked_in="r")
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("las", "AP1 gun", 48, 9, 1),))
    state = make_state(gun, t, m, phase="shooting")
    paused = act(state, "a", Shoot("g", (Fire("las", "r"),)), [6, 6, 5, 1]).state
    res = take_proposal(paused, DECISION_SURVIVORS, [4, 4, 4, 3, 1, 1, 6, 6, 1, 1])
    picks = [e for e in res.state.log if e.rule == refs.RANDOM_ALLOCATION]
    assert [e.values["model"] for e in picks] == ["m-1", "m-0"]
    assert [e.values["models"] for e in picks] == [3, 2]
    rolls = [r for e in res.state.log for r in e.rolls if r.purpose.startswith("Random Allocation")]
    assert [(r.purpose, r.value) for r in rolls] == [
        ("Random Allocation: the model hit", 3),
        ("Random Allocation: the model hit", 1),
    ]
    alive = {k: mm.alive for k, mm in res.state.units["m"].models.items()}
    assert alive == {"m-0": True, "m-1": False, "m-2": True}


def _wound_once(blast: bool) -> MatchState:
    """One S4 hit from the firer at (10, 24) on the unit whose closest model hides behind the ruin,
    resolved as a shooting attack's wounds (to wound 4: wounded; no armour; a model behind the
    ruin has its 4+ cover save, failed on 1)."""
    state = _hidden_closest()
    hit = Hit(PenProfile(4), None, (10.0, 24.0), "frag missile", rules=("blast",) if blast else ())
    sight = _firers_sight(state, [hit], [hit], ("s",))
    origins = [footprint(m) for m in state.units["s"].models.values()]
    dice = FixedDice([4, 1] if blast else [4])
    state, _ = resolve_wounds(state, ApplyContext(state.seq + 1, dice, 0), "t", [hit], origins, ("s",), sight)
    assert dice.remaining == 0
    return state


def test_a_blast_wound_goes_to_the_closest_model_even_out_of_sight() -> None:
    """40k7 Special Rules, Blast: "any Wounds inflicted by weapons with the Blast special rule must
    be allocated to the closest model in the target unit even if it is out of sight of any models
    from the attacking unit": the hidden t-0 takes it (and its cover save); the same wound from a weapon without Blast
    goes to t-1, the closest visible model (Out Of Sight)."""
    blasted = _wound_once(blast=True).units["t"].models
    assert not blasted["t-0"].alive and blasted["t-1"].alive
    shot = _wound_once(blast=False).units["t"].models
    assert shot["t-0"].alive and not shot["t-1"].alive


def test_the_random_playthrough_answers_an_allocation_with_any_tied_model() -> None:
    """The random playthrough (test_playthrough.py, auto_decide off) answers a pending allocation
    with a random one of its options: every option it may pick is a legal answer by side b."""
    paused = act(_tied(), "a", SHOOT, [3, 3, 4, 1]).state
    assert paused.pending is not None
    side, answers = legal_actions(paused, random.Random(0))
    assert side == "b"
    assert answers == [Decide(paused.pending.id, "t-0"), Decide(paused.pending.id, "t-1")]
    assert all(rejection_of(paused, "b", answer) is None for answer in answers)
