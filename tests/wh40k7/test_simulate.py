"""``hulldown simulate``: the scenario runner runs the documented example (docs/simulate.md)
through the same validation and reducer as a live match."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hulldown.cli.simulate import run_scenario

DOC = Path(__file__).resolve().parents[2] / "docs" / "simulate.md"


def _example() -> dict[str, Any]:
    text = DOC.read_text()
    block = text.split("## Example", 1)[1]
    match = re.search(r"```json\n(.*?)```", block, re.S)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_documented_example_runs_worked_example_3_with_a_failed_cover_save() -> None:
    result = run_scenario(_example())
    assert "error" not in result and result["dice_left"] == 0
    events = result["events"]
    shot = events[1]
    purposes = [r["purpose"] for line in shot["log"] for r in line["rolls"]]
    assert purposes == ["to hit", "armour penetration", "cover save", "vehicle damage"]
    rhino = result["final_state"]["units"]["rhino"]
    assert rhino["hp"] == 2 and "immobilised" in rhino["statuses"]
    assert events[2]["rejected"]["code"] == "already_shot"
    assert events[2]["rejected"]["rule"].startswith("40k7")


def test_dice_override_saves_the_hit() -> None:
    data = _example()
    data["dice"] = [6, 4, 4]
    result = run_scenario(data)
    assert result["final_state"]["units"]["rhino"]["hp"] == 3


def test_seeded_dice_without_fixed_dice_are_reproducible() -> None:
    data = _example()
    del data["dice"]
    a, b = run_scenario(data), run_scenario(data)
    assert a["state_hash"] == b["state_hash"] and "error" not in a


def test_running_out_of_fixed_dice_is_an_error() -> None:
    data = _example()
    data["dice"] = [6]
    result = run_scenario(data)
    assert "ran out" in result["error"]


def test_invalid_file_is_reported() -> None:
    assert "invalid simulation file" in run_scenario({"scenario": {"units": [{"id": 3}]}})["error"]


def test_decide_answers_the_pending_decision() -> None:
    data = _example()
    skimmer = json.loads(json.dumps(data["scenario"]["units"][1]))
    skimmer.update(id="sk", name="Land Speeder", keywords=["fast", "skimmer"])
    skimmer["models"][0].update(id="sk-m", pos=[40, 10])
    data["scenario"]["units"].append(skimmer)
    data["dice"] = [6, 6, 4, 1]  # hit, penetration 15 vs AV11, Jink cover 4 (saved)... plus spare
    data["actions"] = [
        {"by": "a", "type": "end_phase"},
        {"by": "a", "type": "shoot", "unit": "predator", "fire": [{"weapon": "lascannon", "target": "sk"}]},
        {"type": "decide", "choice": "jink"},
    ]
    result = run_scenario(data)
    assert result["events"][1]["pending"]["kind"] == "jink"
    assert result["events"][2]["by"] == "b"
    sk = result["final_state"]["units"]["sk"]
    assert sk["hp"] == 3 and "jink" in sk["statuses"]
    assert result["dice_left"] == 1


def test_cli_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hulldown.cli import main

    path = tmp_path / "sim.json"
    path.write_text(json.dumps(_example()))
    assert main(["simulate", str(path), "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_state"]["units"]["rhino"]["hp"] == 2
