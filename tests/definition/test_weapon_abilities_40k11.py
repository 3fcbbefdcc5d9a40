"""40k11 weapon ability rules in a match definition (docs/match-definition.md, 40k11 weapon
rules): random ``attacks:``/``damage:`` dice expressions, ``rapid_fire:X``, ``anti:KEYWORD:X``
and the plain abilities are taken; malformed values are refused with what is allowed."""

from __future__ import annotations

import copy

import pytest

from hulldown.match.definition import DefinitionError, parse_definition

from .bad_definitions import Doc, base


def _with_rules(*rules: str) -> Doc:
    doc = copy.deepcopy(base("40k11"))
    doc["scenario"]["units"][0]["weapons"][0]["rules"] = list(rules)
    return doc


@pytest.mark.parametrize(
    "rules",
    [
        ("attacks:d6+3", "damage:d6"),
        ("attacks:2d6", "damage:d3+1"),
        ("rapid_fire:1", "assault", "heavy", "torrent", "twin_linked"),
        ("lethal_hits", "sustained_hits:2", "anti:infantry:4", "anti:vehicle:2+", "devastating_wounds"),
        ("melta:2",),
        # 40k11 core rules, Ignores Cover, Lance, Hazardous, One Shot, Extra Attacks, Indirect Fire,
        # Sustained Hits D3.
        ("ignores_cover", "lance", "hazardous", "one_shot", "extra_attacks", "indirect_fire"),
        ("sustained_hits:d3",),
    ],
)
def test_40k11_weapon_abilities_are_taken(rules: tuple[str, ...]) -> None:
    """40k11 core rules, weapon abilities and Random characteristics: the tokens are accepted."""
    parsed = parse_definition(_with_rules(*rules))
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    assert parsed.scenario.units[0].weapons["gun"].rules == rules


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        ("attacks:d7", "dice expression"),
        ("attacks:d6-1", "dice expression"),
        ("damage:11d6", "dice expression"),
        ("attacks", "needs a value"),
        ("rapid_fire:0", "whole number"),
        ("anti:fly:4", "unit keyword"),
        ("anti:infantry:9", "unit keyword"),
        ("melta:x", "whole number"),
        ("sustained_hits:d7", "whole number"),
        ("sustained_hits:0", "whole number"),
    ],
)
def test_malformed_40k11_weapon_abilities_are_refused(rule: str, says: str) -> None:
    parsed = parse_definition(_with_rules(rule))
    assert isinstance(parsed, DefinitionError)
    (problem,) = parsed.problems
    assert problem.path == "scenario.units[0].weapons[0].rules[0]"
    assert says in problem.message, problem.message
