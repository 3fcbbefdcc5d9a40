"""The whole combat log of a match is kept, even when one action writes more lines than the
state's window (LOG_WINDOW) holds: GET /matches/{id}/log and ``hulldown replay`` page it from the
timeline (match/timeline.py), which takes an event's lines from the rules' own context, not from
the window."""

from __future__ import annotations

from hulldown.match.actions import EndPhase, Fire, Shoot
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import LOG_WINDOW, Options
from tests.dice.forge import Forge
from tests.wh40k7 import builders as k7

SEED = b"\x07" * 32
SQUAD = 60


def test_a_volley_of_sixty_weapons_keeps_every_log_line() -> None:
    """40k7 Shooting phase: sixty models fire one assault weapon each at one enemy unit; the
    shooting writes a line per weapon and more, well over the 50-line window."""
    gun = k7.weapon("gun", "Big Gun", 24.0, 4, 5, type="assault", shots=3)
    shooters = k7.infantry(
        "shooters",
        "a",
        [(10.0 + 1.2 * (k % 3), 2.0 + 1.2 * (k // 3)) for k in range(SQUAD)],
        weapons=[(k, gun) for k in range(SQUAD)],
    )
    targets = k7.infantry(
        "targets", "b", [(20.0 + 1.2 * (k % 3), 2.0 + 1.2 * (k // 3)) for k in range(SQUAD)]
    )
    create = CreateMatch(
        edition="40k7", scenario=Scenario(units=(shooters, targets)), options=Options(turn_limit=0)
    )
    forge = Forge("volley", SEED, create)
    forge.act("a", EndPhase())  # movement -> shooting
    before = forge.timeline.state.log_count
    weapons = sorted(forge.timeline.state.units["shooters"].weapons)
    volley = forge.act(
        "a", Shoot(unit="shooters", fire=tuple(Fire(weapon=w, target="targets") for w in weapons))
    )
    after = forge.timeline.state
    written = forge.timeline.entries[volley.seq]
    assert len(written) == after.log_count - before > LOG_WINDOW
    assert [line.n for line in written] == list(range(before, after.log_count))
    assert all(line.seq == volley.seq for line in written)
    assert written[-LOG_WINDOW:] == after.log  # the window is the tail of what was written
    # Every line of the match, once, in order.
    every = [line.n for seq in sorted(forge.timeline.entries) for line in forge.timeline.entries[seq]]
    assert every == list(range(after.log_count))
