"""A match paused on a decision in the middle of an action, through the log machinery
(docs/decisions.md): the log of events as the server writes them (tests/dice/forge.py) folds
back to the live state, with the seed and with only the logged faces; ``verify`` accepts it; a
granted takeback restores the state before the paused shot. hh3 Transport sub-type, Emergency
Disembarkation."""

from __future__ import annotations

import hashlib
import random

from hulldown.cli.verify import verify_events
from hulldown.match.actions import Concede, Decide, EndPhase, Fire, Shoot, TakebackAnswer, TakebackRequest
from hulldown.match.events import Event
from hulldown.match.history import game_hash
from hulldown.match.reducer import state_hash
from hulldown.match.scenario import CreateMatch
from hulldown.match.scenario_types import Scenario
from hulldown.match.state import Options
from hulldown.match.timeline import fold_history
from hulldown.rules.dice import Dice, FixedDice, NoDice
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY

from ..decision_answers import random_answer
from ..dice.forge import Forge
from .builders import squad, tank, transport, weapon

MATCH = "emergency-history"
SHOT = Shoot("shooter", (Fire("lascannon", "rhino"),))


def _create() -> CreateMatch:
    # A 10-shot S10 lascannon at a 1-HP Rhino: nearly every seed destroys it.
    gun = weapon("lascannon", strength=10, ap=2, shots=10)
    units = (
        tank("shooter", "a", 10, 24, 0, weapons=[gun]),
        transport("rhino", "b", 40, 24, 180, hp=1, passengers=("s",)),
        squad("s", "b", [(40, 24)] * 5, cool=8, embarked_in="rhino"),
        tank("reserve", "b", 66, 44, 180),
        squad("foe", "a", [(45.0, 25.0), (45.0, 23.0)]),
    )
    return CreateMatch(edition="hh3", scenario=Scenario(units=units), options=Options())


def _paused_forge(seed_index: int) -> Forge | None:
    """Side a ends its Start and Movement phases, then shoots. None when the
    shot (with this seed) does not destroy the Rhino."""
    seed = hashlib.sha256(f"emergency-{seed_index}".encode()).digest()
    forge = Forge(MATCH, seed, _create())
    forge.act("a", EndPhase())  # start -> movement
    forge.act("a", EndPhase())  # movement -> shooting
    forge.act("a", SHOT)
    pending = forge.timeline.state.pending
    if pending is None or pending.kind != DECISION_EMERGENCY:
        return None
    return forge


def _paused() -> Forge:
    for i in range(20):
        forge = _paused_forge(i)
        if forge is not None:
            return forge
    raise AssertionError("no seed of 20 destroyed the Rhino")


def _logged_dice(event: Event) -> Dice:
    return FixedDice(event.rolls) if event.rolls else NoDice()


def test_random_answers_fold_back_to_the_live_state_and_verify() -> None:
    """Answered at random (proposal or a random legal placement): the fold of the log with the
    seed, and with only the faces the events logged, is the live state; verify accepts the log."""
    answered = 0
    for i in range(8):
        forge = _paused_forge(i)
        if forge is None:
            continue
        state = forge.timeline.state
        forge.act("b", random_answer(state, random.Random(i)))
        answered += 1
        live = forge.timeline.state
        assert live.pending is None and live.suspended is None and live.units["rhino"].destroyed
        forge.act("b", Concede())
        forge.reveal()
        folded = fold_history(MATCH, forge.events, forge.dice_for)
        assert state_hash(folded) == state_hash(forge.timeline.state)
        from_log = fold_history(MATCH, forge.events, _logged_dice)
        assert state_hash(from_log) == state_hash(forge.timeline.state)
        report = verify_events(MATCH, forge.events)
        assert report.ok, report.failures
        # the answer's event logged only its own dice (the Cool check, if a model was placed)
        decide = next(e for e in forge.events if isinstance(e.body, Decide))
        assert len(decide.rolls) in (0, 2)
    assert answered >= 4


def test_a_granted_takeback_restores_the_state_before_the_paused_shot() -> None:
    forge = _paused()
    before_shot = forge.timeline.state_at(forge.timeline.seq - 1)
    shot_parent = forge.timeline.seq - 1
    forge.act("a", TakebackRequest(to_seq=shot_parent))
    forge.act("b", TakebackAnswer(grant=True))
    restored = forge.timeline.state
    assert restored.pending is None and restored.suspended is None
    assert game_hash(restored) == game_hash(before_shot)
    # the shot can be taken again (at seq parent + 4: shot, request, answer, shot)
    first_shot = forge.events[shot_parent]
    again = forge.act("a", SHOT)
    assert again.seq == shot_parent + 4 and first_shot.seq == shot_parent + 1
    assert first_shot.body == SHOT and len(again.rolls) > 0
