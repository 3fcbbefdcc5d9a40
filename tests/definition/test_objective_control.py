"""40k11 ``oc:X`` (docs/match-definition.md, 40k11 keywords; docs/missions.md, Objective Control):
X is a model's Objective Control characteristic, a whole number from 0 (the data's ``-``: an
aircraft controls nothing) to ``MAX_OBJECTIVE_CONTROL``. It was checked as a dice target 1-6, so
real datasheets were refused: a Stompa (OC 12), a Dakkajet (OC ``-``)."""

from __future__ import annotations

import copy

import pytest

from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.match.limits import MAX_OBJECTIVE_CONTROL
from hulldown.missions.control import objective_control

from .bad_definitions import Doc, base


def _with_oc(value: str) -> Doc:
    doc = copy.deepcopy(base("40k11"))
    doc["scenario"]["units"][0]["keywords"] = ["vehicle", f"oc:{value}"]
    return doc


@pytest.mark.parametrize("value", ["0", "12", str(MAX_OBJECTIVE_CONTROL)])
def test_real_objective_control_values_are_taken(value: str) -> None:
    """40k11 core rules, Objective Control: OC 0 and a Stompa's 12 are accepted and played."""
    parsed = parse_definition(_with_oc(value))
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    unit = parsed.scenario.units[0]
    assert objective_control(unit) == int(value)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (str(MAX_OBJECTIVE_CONTROL + 1), "MAX_OBJECTIVE_CONTROL"),
        ("-1", "whole number"),
        ("²", "whole number"),
        ("5+", "whole number"),
        ("", "whole number"),
    ],
)
def test_objective_control_outside_the_limit_is_refused(value: str, says: str) -> None:
    parsed = parse_definition(_with_oc(value))
    assert isinstance(parsed, DefinitionError)
    (problem,) = parsed.problems
    assert problem.path == "scenario.units[0].keywords[1]"
    assert says in problem.message and "oc" in problem.message
