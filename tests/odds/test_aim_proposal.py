"""The odds engine answers an aiming decision (40k7 Weapons, Blast / Template; docs/decisions.md)
with the server's proposal, and says so: a play never pauses on it, and the answer lists it."""

from __future__ import annotations

from tests.wh40k7.test_aim_decision import FLAME, _template_match

from .helpers import odds, unit_odds


def test_a_template_is_laid_as_proposed_and_the_policy_says_so() -> None:
    """The proposed template (toward the nearest model) covers two T4 3+ models of three: each
    dies when the S5 AP4 hit wounds (3+) and the save (3+) fails, 4/6 x 2/6 = 2/9."""
    answer = odds(_template_match(), "a", FLAME)
    (aim,) = answer.decisions
    assert (aim.kind, aim.side, aim.policy) == ("aim_template", "a", "proposal")
    assert aim.raised.p == 1.0 and aim.chosen == {"proposal": aim.raised}
    assert (
        "aiming a blast marker or a template, a challenge) takes the server's proposal" in answer.policy_note
    )
    t = unit_odds(answer, "t")
    die = 2 / 9
    assert abs(t.final["3"].p - (1 - die) ** 2) < 1e-6
    assert abs(t.final["2"].p - 2 * die * (1 - die)) < 1e-6
    assert abs(t.final["1"].p - die**2) < 1e-6
