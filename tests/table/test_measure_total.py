"""``rules/measure.py`` is total and agrees with validation on random 40k7 play (the harness of
tests/wh40k7/random_play.py): for every candidate action of every state - legal or not - the
facts are computed without raising; a legal normal move never measures more than its allowance
(40k7 Vehicles, Movement); a legal shot's weapons are measured in range, in arc and visible
(40k7 Vehicles and Shooting); the ruler and the sight tool work between any two models."""

from __future__ import annotations

import random

import pytest

from hulldown.match.actions import EndPhase, Move, Shoot
from hulldown.match.dice_binding import event_dice
from hulldown.match.events import Event, decode_event, encode_event
from hulldown.match.reducer import evolve
from hulldown.match.scenario import check_scenario, match_created
from hulldown.match.state import MatchState, Options
from hulldown.match.validate import validate
from hulldown.rules import measure
from tests.wh40k7.random_play import MAX_ACTIONS_PER_PHASE, battle_scenario, legal_actions

SEED = b"measure-total-seed-0123456789abc"
EVENTS = 60
SAMPLE = 6  # candidate actions measured per state (all of them would take minutes)


@pytest.mark.parametrize("game", [1])
def test_facts_are_total_and_agree_with_validation(game: int) -> None:
    rng = random.Random(game)
    match_id = f"measure-{game}"
    scenario = battle_scenario()
    assert check_scenario(scenario) is None
    first = decode_event(
        encode_event(
            Event(
                seq=1,
                at=0.0,
                by="system",
                action_id="create",
                body=match_created("40k7", scenario, Options(), "c"),
            )
        )
    )
    state = evolve(
        MatchState(match_id=match_id, edition="40k7", seq=0), first, event_dice(SEED, match_id, first)
    )
    checked_moves = checked_shots = 0
    in_phase = 0
    while state.seq < EVENTS and not state.ended:
        side, legal = legal_actions(state, random.Random(state.seq))
        moves_and_shots = [a for a in legal if isinstance(a, Move | Shoot)]
        for action in rng.sample(moves_and_shots, min(SAMPLE, len(moves_and_shots))):
            facts = measure.action_facts(state, action)
            if isinstance(action, Move) and action.kind == "normal" and action.path:
                assert facts.distance is not None and facts.allowance is not None
                assert facts.distance <= facts.allowance + 0.01, (action, facts)
                checked_moves += 1
            if isinstance(action, Shoot):
                assert validate(state, side, action) is None
                for weapon in facts.weapons:
                    assert weapon.in_range and weapon.in_arc and weapon.visible, (action, weapon)
                checked_shots += 1
        models = [
            (u, m) for u in state.units.values() for m in u.models.values() if m.alive and not u.embarked_in
        ]
        for _ in range(3):
            (ua, ma), (ub, mb) = rng.sample(models, 2)
            a, b = measure.Located(ua, ma), measure.Located(ub, mb)
            assert measure.ruler(state, a, b) >= 0.0
            measure.sight(state, a, b)
        # The harness's policy (random_play.choose) on the legal actions already listed.
        ends = [a for a in legal if isinstance(a, EndPhase)]
        others = [a for a in legal if not isinstance(a, EndPhase)]
        if state.pending is not None or not ends:
            action = rng.choice(legal)
        elif not others or in_phase >= MAX_ACTIONS_PER_PHASE or rng.random() < 0.12:
            action = ends[0]
        else:
            action = rng.choice(others)
        event = decode_event(
            encode_event(
                Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"a{state.seq + 1}", body=action)
            )
        )
        before = (state.active, state.phase)
        state = evolve(state, event, event_dice(SEED, match_id, event))
        in_phase = in_phase + 1 if (state.active, state.phase) == before else 0
    assert checked_moves > 10 and checked_shots > 3
