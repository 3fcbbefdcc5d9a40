"""The engine against a brute-force sampler over the real reducer (docs/odds.md): the same action
played through ``evolve`` with independently seeded dice agrees with the engine's answer within
4 standard errors - for every unit's destroyed chance, final Hull Point / wound distribution and
expected loss. Cases: several weapons, several targets (hh3 split fire), a squadron, a transport
with passengers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Action, Fire, Shoot
from hulldown.match.state import MatchState, Side
from tests.hh3 import builders as hh3
from tests.wh40k7.builders import infantry, make_state, predator, rhino, vehicle, weapon

from .helpers import assert_agrees, brute_force, odds

PLAYS = 4000


def multi_weapon() -> tuple[MatchState, Side, Action, list[str]]:
    """40k7: a Predator's two weapons, an AP3 cannon (S9) and an autocannon (S6: glances on a 6
    only), at a tank's front (AV12, 4 HP)."""
    cannon = weapon("lascannon", "Cannon", 48, 9, 3)
    autocannon = weapon("krak", "Autocannon", 48, 6, 4)
    shooter = predator("predator", "a", 10, 24, weapons=(cannon, autocannon))
    target = vehicle("tank", "b", 30, 24, 180, armour=(12, 12, 10), hp=4, name="Tank")
    state = make_state(shooter, target, phase="shooting")
    return state, "a", Shoot("predator", (Fire("lascannon", "tank"), Fire("krak", "tank"))), ["tank"]


def multi_target() -> tuple[MatchState, Side, Action, list[str]]:
    """hh3 split fire: a tank's lascannon at one tank, its autocannon at another."""
    las = hh3.weapon("las", strength=9, ap=2)
    auto = hh3.weapon("auto", strength=7, ap=4)
    shooter = hh3.tank("shooter", "a", 10, 24, 0, weapons=(las, auto))
    one = hh3.tank("one", "b", 30, 20, 180, armour=(11, 11, 10))
    two = hh3.tank("two", "b", 30, 30, 180, armour=(10, 10, 10), hp=2)
    state = hh3.make([shooter, one, two], phase="shooting")
    action = Shoot("shooter", (Fire("las", "one"), Fire("auto", "two")))
    return state, "a", action, ["one", "two"]


def squadron() -> tuple[MatchState, Side, Action, list[str]]:
    """40k7 Squadrons: two Haywire shots at a squadron of two 1-HP vehicles; each hit goes to the
    closest living member, so a second hit finds the far one once the near one is wrecked."""
    haywire = weapon("haywire", "Haywire blaster", 36, 3, None, shots=2, rules=("haywire",))
    shooter = predator("predator", "a", 10, 24, weapons=(haywire,))
    near = vehicle("near", "b", 28, 24, 180, armour=(10, 10, 10), hp=1, squadron="sq", name="Near")
    far = vehicle("far", "b", 31, 30, 180, armour=(10, 10, 10), hp=1, squadron="sq", name="Far")
    state = make_state(shooter, near, far, phase="shooting")
    action = Shoot("predator", (Fire("haywire", "near"),))
    return state, "a", action, ["near", "far"]


def transport() -> tuple[MatchState, Side, Action, list[str]]:
    """40k7 Transports: a Lascannon at a 1-HP Rhino carrying a squad of two; a wrecked Rhino
    makes them disembark, an exploding one hits them too."""
    shooter = predator("predator", "a", 10, 24)
    carrier = replace(rhino("rhino", "b", 26, 24, 90, hp=1), passengers=("squad",))
    squad = replace(infantry("squad", "b", [(26, 24)] * 2, sv=4), embarked_in="rhino")
    state = make_state(shooter, carrier, squad, phase="shooting")
    return state, "a", Shoot("predator", (Fire("lascannon", "rhino"),)), ["rhino", "squad"]


Case = Callable[[], tuple[MatchState, Side, Action, list[str]]]
# Each case with the method the engine's answer uses: all four are walked exactly - the
# transport's tree (explosion hits and Pinning tests for the passengers) only since faces the
# rules cannot tell apart are one branch (docs/odds.md).
CASES: dict[str, tuple[Case, str]] = {
    "multi_weapon": (multi_weapon, "exact"),
    "multi_target": (multi_target, "exact"),
    "squadron": (squadron, "exact"),
    "transport": (transport, "exact"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_engine_agrees_with_brute_force_over_the_reducer(name: str) -> None:
    case, method = CASES[name]
    state, side, action, units = case()
    answer = odds(state, side, action, max_plays=5000, expect=method)
    assert {u.unit for u in answer.units} >= set(units)
    sampled = brute_force(state, side, action, units, PLAYS)
    assert assert_agrees(answer, sampled) >= 2 * len(units)
    # Something happens and something may not: a check that could not fail would prove nothing.
    for uid in units:
        bf = sampled[uid]
        assert 0 < bf.lost_mean < max(1, max(bf.final)), (uid, bf)
