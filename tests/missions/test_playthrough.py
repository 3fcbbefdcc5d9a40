"""A whole game per edition, from the roll-off to the result, by random legal play
(docs/missions.md): folding the log again gives the live state, the game ends by victory points
with the final tally in the log."""

from __future__ import annotations

import math
import random

import pytest

from hulldown.match.actions import Action, EndPhase, Move
from hulldown.match.state import MatchState, Point, Side
from hulldown.match.victory import VICTORY_POINTS

from ..hh3 import test_playthrough as hh3_play
from ..wh40k7.random_play import battle_scenario, legal_actions
from ..wh40k11 import test_playthrough as k11_play
from .driver import Game, created, play_game, same, standard


def _40k7_candidates(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    """The 40k7 random play's actions; a Flyer on the table zooms 24" ahead first (off the table
    it goes into Ongoing Reserves and comes back later)."""
    flights: list[tuple[Side, Action]] = []
    if s.phase == "movement":
        for u in s.units.values():
            if u.side == s.active and u.has("flyer") and not u.destroyed and "reserves" not in u.statuses:
                m = next(iter(u.models.values()))
                h = math.radians(m.heading)
                end = Point(m.pos.x + 24 * math.cos(h), m.pos.y + 24 * math.sin(h))
                flights.append((s.active, Move(unit=u.id, path=(end,))))
    side, actions = legal_actions(s, rng)
    return [*flights, *((side, a) for a in actions), (s.active, EndPhase())]


CASES = {
    "40k7": (lambda: battle_scenario().units, "crusade", "dawn_of_war", _40k7_candidates),
    "hh3": (hh3_play.armies, "the_heart_of_battle", "dawn_of_war", hh3_play.candidates),
    "40k11": (k11_play.armies, "take_and_hold", "dawn_of_war", k11_play.candidates),
}


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_a_whole_game_from_roll_off_to_result(edition: str) -> None:
    units, mission_id, deployment, battle = CASES[edition]
    body = created(edition, units(), standard(edition, mission_id, deployment))  # type: ignore[arg-type]
    game = Game(body, dice_seed=f"whole-{edition}".encode())
    applied = play_game(game, battle, seed=7, max_steps=3000, end_early=0.1)
    live = game.state
    assert applied.get("RollOff") == 1
    assert applied.get("Deploy", 0) >= 3 and applied.get("Reserve", 0) >= 1
    assert live.ended, f"the game did not end: turn {live.turn}"
    assert live.end_reason in (VICTORY_POINTS, "annihilation")
    assert live.mission is not None and live.mission.step == "battle"
    if live.end_reason == VICTORY_POINTS:
        tally = [e.text for e in live.log if "Final tally" in e.text]
        a, b = live.mission.vp["a"], live.mission.vp["b"]
        assert tally and f"{a} VP to {b}" in tally[-1]
        assert live.winner == (None if a == b else "a" if a > b else "b")
    assert same(game.folded(), live)
