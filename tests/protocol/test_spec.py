"""client-protocol/SPEC.md documents every message, field, error code and shared rejection code
the server has, and rejection-codes.md (generated) lists every code the rules raise."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hulldown.wire import protocol, rejection_catalogue

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "client-protocol" / "SPEC.md").read_text()
WEB = ROOT / "server" / "hulldown" / "web"
UNIONS = [
    protocol.ClientMessage,
    protocol.ServerMessage,
    protocol.ReplayClientMessage,
    protocol.ReplayServerMessage,
]


def section(title_start: str) -> str:
    start = SPEC.index(title_start)
    end = SPEC.find("\n### ", start + 1)
    end2 = SPEC.find("\n## ", start + 1)
    ends = [e for e in (end, end2) if e != -1]
    return SPEC[start : min(ends) if ends else len(SPEC)]


def message_types() -> list[Any]:
    return sorted({t for union in UNIONS for t in union.__args__}, key=lambda t: t.__name__)


@pytest.mark.parametrize("message", message_types(), ids=lambda t: t.__name__)
def test_every_message_and_field_is_in_the_spec(message: Any) -> None:
    tag = message.__struct_config__.tag
    assert f"| `{tag}` |" in SPEC, f"message {tag} is not in a table of SPEC.md"
    row = next(line for line in SPEC.splitlines() if f"| `{tag}` |" in line)
    for field in message.__struct_fields__:
        assert f"`{field}" in row, f"{tag}.{field} is not documented in its row of SPEC.md"


def _codes_in_web() -> set[str]:
    codes: set[str] = set()
    for path in WEB.glob("*.py"):
        text = path.read_text()
        codes |= set(re.findall(r'(?:_error|error_text)\(\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'error\(\s*\d{3},\s*"([a-z_]+)"', text))
    return codes


def test_every_protocol_error_code_is_in_the_spec() -> None:
    codes = _codes_in_web()
    assert {"bad_message", "unauthorised", "rate_limited", "unknown_match"} <= codes
    table = section("### 6.1")
    missing = sorted(code for code in codes if f"`{code}`" not in table)
    assert missing == [], f"error codes missing from SPEC.md 6.1: {missing}"


def test_every_shared_rejection_code_is_in_the_spec() -> None:
    shared = {
        code
        for code, raised in rejection_catalogue.catalogue().items()
        if any(r.origin in ("every edition", "undo / takeback", "server") for r in raised)
    }
    assert {"not_your_turn", "busy", "match_ended", "nothing_to_undo"} <= shared
    table = section("### 6.2")
    missing = sorted(code for code in shared if f"`{code}`" not in table)
    assert missing == [], f"shared rejection codes missing from SPEC.md 6.2: {missing}"


def test_catalogue_finds_calls_wrappers_and_named_rules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "rules" / "wh40k7").mkdir(parents=True)
    (package / "rules" / "wh40k7" / "refs.py").write_text('MOVEMENT = "40k7 Vehicles, Movement"\n')
    (package / "rules" / "wh40k7" / "consts.py").write_text('R_SHOOT: str = "40k7 Shooting"\n')
    (package / "rules" / "wh40k7" / "moves.py").write_text(
        "from ...match.rejection import reject\n"
        "from . import refs\n"
        "from .consts import R_SHOOT\n"
        "LOCAL = 'local rule'\n"
        "def _r(code, rule, msg, **v):\n"
        "    return reject(code, rule, msg, **v)\n"
        "def check(unit, limit):\n"
        "    if limit:\n"
        "        return _r('too_far', refs.MOVEMENT, f'path {unit.length:.2f} in > {limit} in')\n"
        "    if unit:\n"
        "        return reject(\n            'out_of_range', R_SHOOT, 'target ' + str(unit), distance=1.0)\n"
        "    return reject('odd', LOCAL, f'{R_SHOOT} says no')\n"
    )
    found = rejection_catalogue.catalogue(package)
    assert list(found) == ["odd", "out_of_range", "too_far"]
    (too_far,) = found["too_far"]
    assert (too_far.origin, too_far.rule, too_far.message) == (
        "40k7",
        "40k7 Vehicles, Movement",
        "path {unit.length} in > {limit} in",
    )
    assert found["out_of_range"][0].rule == "40k7 Shooting"
    assert found["out_of_range"][0].message == "target {str(unit)}"
    assert (found["odd"][0].rule, found["odd"][0].message) == ("local rule", "40k7 Shooting says no")
    text = rejection_catalogue.render(found)
    assert "| `too_far` | 40k7 | 40k7 Vehicles, Movement | path {unit.length} in > {limit} in |" in text


def test_catalogue_lists_a_shared_check_where_it_is_called_with_the_callers_rule(tmp_path: Path) -> None:
    """A check that cites its caller's rule (``RULE_FROM_CALLER``) is listed at each call site,
    with the rule that call site names, and never with its own ``{rule}`` placeholder."""
    package = tmp_path / "pkg"
    (package / "match").mkdir(parents=True)
    (package / "rules" / "hh3").mkdir(parents=True)
    (package / "match" / "decisions.py").write_text(
        "from .rejection import reject\n"
        "def check_wound_taker(options, given, rule):\n"
        "    return reject('invalid_choice', rule, f'{given.choice!r} cannot take it: {options}')\n"
    )
    (package / "rules" / "hh3" / "core.py").write_text('R_ALLOC = "hh3 core, Wound Allocation"\n')
    (package / "rules" / "hh3" / "allocation.py").write_text(
        "from ...match.decisions import check_wound_taker\n"
        "from .core import R_ALLOC\n"
        "def allocate(options, given):\n"
        "    return check_wound_taker(options, given, R_ALLOC)\n"
        "def allocate_again(options, given):\n"
        "    return check_wound_taker(options, given, rule='hh3 core, Fight')\n"
    )
    found = rejection_catalogue.catalogue(package)
    assert [(r.origin, r.rule, r.message) for r in found["invalid_choice"]] == [
        ("hh3", "hh3 core, Fight", "{given.choice} cannot take it: {options}"),
        ("hh3", "hh3 core, Wound Allocation", "{given.choice} cannot take it: {options}"),
    ]


def test_committed_catalogue_covers_codes_seen_in_play() -> None:
    text = (ROOT / "client-protocol" / "rejection-codes.md").read_text()
    codes = rejection_catalogue.catalogue()
    for code in ("not_your_turn", "stale", "wrong_phase", "too_far", "bad_scenario"):
        assert code in codes and f"| `{code}` |" in text
    assert any(r.origin == "40k7" for r in codes["wrong_phase"])


def test_catalogue_names_both_rules_of_a_rule_chosen_by_the_case(tmp_path: Path) -> None:
    """A refusal whose rule depends on the case (``R_A if engaged else R_B``) is listed with both
    rules by name; it showed the expression, ``{R_A if engaged else R_B}``, which users cannot
    read."""
    package = tmp_path / "pkg"
    (package / "rules" / "wh40k11").mkdir(parents=True)
    (package / "rules" / "wh40k11" / "shooting.py").write_text(
        "from ...match.rejection import reject\n"
        'R_MV = "40k11 17.03.01 Shooting while engaged with Monsters/Vehicles"\n'
        'R_CQ = "40k11 core, Close-quarters shooting"\n'
        "def check(unit, mv):\n"
        "    return reject('close_quarters_only', R_MV if mv else R_CQ, f'{unit} may not')\n"
    )
    (rule,) = rejection_catalogue.catalogue(package)["close_quarters_only"]
    assert (
        rule.rule
        == "40k11 17.03.01 Shooting while engaged with Monsters/Vehicles or 40k11 core, Close-quarters shooting"
    )
    assert (
        "{"
        not in (ROOT / "client-protocol" / "rejection-codes.md")
        .read_text()
        .split("| `engaged_cannot_shoot` |")[1]
        .split("|")[1]
    )
