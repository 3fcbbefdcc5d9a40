"""docs/match-definition.md is the reference for every name and bound: it lists every keyword,
weapon rule, status, mount and terrain kind of every edition, and every limit constant."""

from __future__ import annotations

import json
from pathlib import Path

from hulldown.match import limits
from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.match.vocabulary import ALL_MOUNTS, TERRAIN_KINDS, VOCABULARIES

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "match-definition.md").read_text()


def _section(edition: str) -> str:
    start = PAGE.index(f"### {edition}\n")
    end = PAGE.find("\n### ", start + 1)
    return PAGE[start:end]


def test_every_name_of_every_edition_is_documented() -> None:
    for edition, vocab in VOCABULARIES.items():
        section = _section(edition)
        for term in (*vocab.keywords, *vocab.weapon_rules, *vocab.statuses):
            shown = f"`{term.name}:X`" if term.variable else f"`{term.name}`"
            assert shown in section, f"{edition}: {term.name} is not in docs/match-definition.md"
            for alias in term.aliases:
                assert f"`{alias}`" in section, f"{edition}: alias {alias} is undocumented"
        for mount in vocab.mounts:
            assert f"`{mount}`" in section
    for kind in TERRAIN_KINDS:
        assert f"| `{kind.name}` |" in PAGE
    assert set(ALL_MOUNTS) >= {m for v in VOCABULARIES.values() for m in v.mounts}


def test_every_limit_is_documented_with_its_value() -> None:
    names = [n for n in dir(limits) if n.startswith("MAX_") or n == "FORMAT_VERSION"]
    assert len(names) > 25
    for name in names:
        value = getattr(limits, name)
        row = next((line for line in PAGE.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"{name} is not in the limits table"
        assert str(value).replace("_", "") in row.replace("_", ""), (name, row)


def test_the_pages_example_definition_makes_a_match() -> None:
    """The definition the page opens with is one the server takes (it had no unit on side b and
    was refused with bad_scenario)."""
    block = PAGE.split("```json\n", 1)[1].split("```", 1)[0]
    created = parse_definition(json.loads(block))
    assert not isinstance(created, DefinitionError), created
    assert {u.side for u in created.scenario.units} == {"a", "b"}
