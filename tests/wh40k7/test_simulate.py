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


def test_a_fixed_die_that_is_no_d6_face_is_refused_with_its_path() -> None:
    """docs/simulate.md: a refused file prints its problems, each with its path - a fixed die out
    of 1-6 as well as any other mistake of the file."""
    data = _example()
    data["dice"] = [6, 0, 3]
    result = run_scenario(data)
    assert result["error"].startswith("invalid simulation file: dice[1]: ")
    assert [p["path"] for p in result["problems"]] == ["dice[1]"]
    assert "1-6" in result["problems"][0]["message"]


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


def _guard(k: int, x: float, y: float) -> dict[str, Any]:
    return {
        "id": f"gd{k}",
        "side": "b",
        "name": f"Guardsman {k}",
        "kind": "infantry",
        "profile": {"ws": 3, "bs": 3, "s": 3, "t": 3, "w": 1, "i": 3, "a": 1, "ld": 7, "sv": 5},
        "models": [{"id": f"gd{k}-m", "pos": [x, y], "base_mm": 25}],
    }


def _big_explosion_file() -> dict[str, Any]:
    """A Rhino explodes among 25 lone Guardsmen (3 log lines each): more than 50 log lines."""
    spots = [(35.5 + 1.05 * i, y) for y in (8.5, 15.5, 16.6) for i in range(9)][:25]
    las = {
        "id": "las",
        "name": "AP1 gun",
        "model": "g-m",
        "range": 48,
        "strength": 9,
        "ap": 1,
        "type": "heavy",
    }
    hull = {"length": 4.5, "width": 3.5}
    armour = {"front": 11, "side": 11, "rear": 10}
    return {
        "scenario": {
            "units": [
                {
                    "id": "g",
                    "side": "a",
                    "name": "Gun",
                    "kind": "vehicle",
                    "profile": {"bs": 4, "armour": armour, "hp": 3},
                    "models": [{"id": "g-m", "pos": [10, 24], "hull": hull}],
                    "weapons": [las],
                },
                {
                    "id": "r",
                    "side": "b",
                    "name": "Rhino",
                    "kind": "vehicle",
                    "profile": {"bs": 4, "armour": armour, "hp": 3},
                    "models": [{"id": "r-m", "pos": [40, 12], "heading": 180, "hull": hull}],
                },
                *(_guard(k, x, y) for k, (x, y) in enumerate(spots)),
            ]
        },
        "actions": [
            {"by": "a", "type": "end_phase"},
            {"by": "a", "type": "shoot", "unit": "g", "fire": [{"weapon": "las", "target": "r"}]},
        ],
    }


def test_every_log_line_of_an_event_is_printed_even_past_the_log_window() -> None:
    """The runner prints every line an event writes: here a shot whose explosion writes more than
    the 50 lines a state keeps; the first lines (the to-hit and armour penetration lines and
    "Explodes!") are still there, and the lines are numbered without a gap."""
    from hulldown.match.state import LOG_WINDOW

    data = _big_explosion_file()
    # to hit 6, penetration 6, damage 5 + 2 = 7 Explodes!, radius 6; then for each Guardsman:
    # to wound 4 (S4 vs T3: 3+), armour save 1 (5+): a casualty.
    data["dice"] = [6, 6, 5, 6] + [4, 1] * 25
    data["stop_on_rejection"] = True
    result = run_scenario(data)
    assert "error" not in result and result["dice_left"] == 0
    log = result["events"][1]["log"]
    assert len(log) > LOG_WINDOW
    texts = [line["text"] for line in log]
    assert texts[0].startswith("Gun's AP1 gun fires 1 shot at Rhino")
    assert any("Explodes!" in t for t in texts[:6])
    assert [line["n"] for line in log] == list(range(log[0]["n"], log[0]["n"] + len(log)))


def test_states_option_prints_the_state_after_each_event() -> None:
    data = _example()
    data["states"] = True
    result = run_scenario(data)
    applied = [e for e in result["events"] if "seq" in e]
    assert applied and all(e["state"]["seq"] == e["seq"] for e in applied)
    assert applied[-1]["state"] == result["final_state"]
    rejected_events = [e for e in result["events"] if "rejected" in e]
    assert all("state" not in e for e in rejected_events)
