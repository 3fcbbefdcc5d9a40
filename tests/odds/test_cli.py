"""``hulldown odds FILE`` (docs/odds.md): the last action of a simulate file, after the others;
the same numbers as the engine on the same state, as JSON or as a table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hulldown.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "odds-40k7-lascannon.json"


def test_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", str(EXAMPLE), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["method"] == "exact" and answer["seq"] == 2
    (rhino,) = answer["units"]
    # 40k7: BS4 hits on 3+ (4/6); S9 against the Rhino's front AV11 penetrates on 3+ (4/6), then
    # the ruin gives a 4+ cover save (1/2), so 4/6 * 4/6 * 1/2 of shots take a penetrating HP.
    assert rhino["penetrating"]["p"] == pytest.approx(4 / 6 * 4 / 6, abs=1e-6)
    assert rhino["summary"].startswith("Lascannon -> Rhino, front AV11, 4+ cover: destroyed 4%")
    assert main(["odds", str(EXAMPLE)]) == 0
    table = capsys.readouterr().out
    # 15 branches: faces the rules cannot tell apart are one (606 sequences of single faces).
    assert "exact, 15 plays" in table and "Lascannon -> Rhino" in table
    assert "44.4%" in table  # the penetrating column


def test_sampled_and_fixed_choice_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", str(EXAMPLE), "--json", "--method", "sampled", "--samples", "800"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["method"] == "sampled" and answer["samples"] == 800
    assert answer["units"][0]["penetrating"]["se"] > 0
    assert main(["odds", str(EXAMPLE), "--choose", "jink"]) == 1
    assert "KIND=OPTION" in capsys.readouterr().out


def test_bad_files_get_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(EXAMPLE.read_text())
    no_actions = tmp_path / "none.json"
    no_actions.write_text(json.dumps({**data, "actions": []}))
    assert main(["odds", str(no_actions)]) == 1
    assert "has none" in capsys.readouterr().out
    # The shot asked about before the Shooting phase: the rejection validation gives.
    early = tmp_path / "early.json"
    early.write_text(json.dumps({**data, "actions": data["actions"][1:]}))
    assert main(["odds", str(early), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["rejection"]["code"] == "wrong_phase"
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main(["odds", str(broken)]) == 1
    assert "not JSON" in capsys.readouterr().out


def test_a_refused_file_gets_its_problems_with_their_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/simulate.md: a refused file prints its problems, each with its path; the odds of a
    file read the same way (a fixed die out of 1-6 came back as the error alone)."""
    data = json.loads(EXAMPLE.read_text())
    bad_die = tmp_path / "bad-die.json"
    bad_die.write_text(json.dumps({**data, "dice": [6, 0]}))
    assert main(["odds", str(bad_die), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["error"].startswith("invalid simulation file")
    assert [p["path"] for p in out["problems"]] == ["dice[1]"]
