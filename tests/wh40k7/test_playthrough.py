"""A random playthrough (the replay check of docs/architecture.md section 1): random legal actions
for both sides over several turns with SeededDice; every event is encoded and decoded
(match/events.py); then fold(initial, log) equals the live state and its hash."""

from __future__ import annotations

import random

import pytest

from hulldown.match.actions import Decide, Move, Shoot
from hulldown.match.dice_binding import event_dice
from hulldown.match.events import Event, decode_event, encode_event
from hulldown.match.reducer import evolve, fold, state_hash
from hulldown.match.scenario import check_scenario, match_created
from hulldown.match.state import MatchState, Options

from .random_play import battle_scenario, choose

SEED = b"0123456789abcdef0123456789abcdef"
TURNS = 4
MAX_EVENTS = 400


@pytest.mark.parametrize("game", [1, 2, 3])
def test_random_playthrough_fold_equals_live(game: int) -> None:
    match_id = f"random-{game}"
    rng = random.Random(game)
    scenario = battle_scenario()
    assert check_scenario(scenario) is None
    created = match_created("40k7", scenario, Options(), "commitment")
    first = Event(seq=1, at=0.0, by="system", action_id="create", body=created)
    log = [decode_event(encode_event(first))]
    live = evolve(
        MatchState(match_id=match_id, edition="40k7", seq=0), log[0], event_dice(SEED, match_id, log[0])
    )
    counts: dict[str, int] = {}
    phase_key, in_phase = (live.active, live.phase, live.turn), 0
    aims = 0
    while live.turn <= TURNS and len(log) < MAX_EVENTS and not live.ended:
        aiming = live.pending is not None and live.pending.aim is not None
        side, action = choose(live, rng, in_phase)
        aims += aiming and isinstance(action, Decide) and action.choice == "aim"
        event = Event(
            seq=live.seq + 1, at=float(live.seq), by=side, action_id=f"a{live.seq + 1}", body=action
        )
        decoded = decode_event(encode_event(event))
        assert decoded == event
        log.append(decoded)
        live = evolve(live, decoded, event_dice(SEED, match_id, decoded))
        counts[type(action).__name__] = counts.get(type(action).__name__, 0) + 1
        key = (live.active, live.phase, live.turn)
        in_phase = in_phase + 1 if key == phase_key else 0
        phase_key = key
    folded = fold(match_id, log, lambda e: event_dice(SEED, match_id, e))
    assert folded == live
    assert state_hash(folded) == state_hash(live)
    # The game really was played: turns passed, units moved and shot.
    assert live.turn > 2 or len(log) >= MAX_EVENTS
    assert counts.get(Move.__name__, 0) > 0 and counts.get(Shoot.__name__, 0) > 0
    # 40k7 Weapons, Blast / Template: the firers aimed markers and templates themselves (game 3's
    # random turns fire no Blast or Template since squadron-mates block each other's moves).
    assert aims > 0 or game == 3
