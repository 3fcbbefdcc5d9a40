"""``hulldown simulate`` answers a decision taken in the middle of an action (docs/simulate.md,
docs/decisions.md): the shot pauses on the hh3 Emergency Disembarkation placement; the next
action takes the proposal or places the models; ``auto_decide`` takes the proposal at once.
hh3 Transport sub-type, Emergency Disembarkation."""

from __future__ import annotations

from typing import Any

from hulldown.cli.simulate import run_scenario


def _file(
    actions: list[dict[str, Any]], dice: list[int], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    squad_models = [{"id": f"s-{k}", "pos": [40.0, 24.0], "base_mm": 32.0} for k in (1, 2, 3)]
    return {
        "format": 1,
        "edition": "hh3",
        "options": {"turn_limit": 0, **(options or {})},
        "scenario": {
            "units": [
                {
                    "id": "shooter",
                    "side": "a",
                    "name": "Predator",
                    "kind": "vehicle",
                    "profile": {"bs": 4, "armour": {"front": 13, "side": 12, "rear": 10}, "hp": 3},
                    "models": [
                        {"id": "shooter-m", "pos": [10.0, 24.0], "hull": {"length": 5.0, "width": 3.0}}
                    ],
                    "weapons": [
                        {
                            "id": "las",
                            "name": "Lascannon",
                            "model": "shooter-m",
                            "range": 48,
                            "strength": 9,
                            "ap": 2,
                            "type": "heavy",
                            "mount": {"kind": "turret"},
                        }
                    ],
                },
                {
                    "id": "rhino",
                    "side": "b",
                    "name": "Rhino",
                    "kind": "vehicle",
                    "keywords": ["transport"],
                    "profile": {
                        "armour": {"front": 11, "side": 11, "rear": 10},
                        "hp": 1,
                        "capacity": 12,
                        "access": ["left", "right", "rear"],
                    },
                    "models": [
                        {
                            "id": "rhino-m",
                            "pos": [40.0, 24.0],
                            "heading": 180.0,
                            "hull": {"length": 5.0, "width": 3.0},
                        }
                    ],
                },
                {
                    "id": "s",
                    "side": "b",
                    "name": "Squad",
                    "kind": "infantry",
                    "embarked_in": "rhino",
                    "profile": {
                        "m": 7,
                        "ws": 4,
                        "bs": 4,
                        "s": 4,
                        "t": 4,
                        "w": 1,
                        "i": 4,
                        "a": 1,
                        "cool": 8,
                        "sv": 3,
                    },
                    "models": squad_models,
                },
                {
                    "id": "reserve",
                    "side": "b",
                    "name": "Reserve",
                    "kind": "vehicle",
                    "profile": {"armour": {"front": 11, "side": 11, "rear": 10}, "hp": 3},
                    "models": [
                        {"id": "reserve-m", "pos": [66.0, 44.0], "hull": {"length": 5.0, "width": 3.0}}
                    ],
                },
            ]
        },
        "actions": [
            {"by": "a", "type": "end_phase"},
            {"by": "a", "type": "end_phase"},
            {"by": "a", "type": "shoot", "unit": "shooter", "fire": [{"weapon": "las", "target": "rhino"}]},
            *actions,
        ],
        "dice": dice,
        "stop_on_rejection": True,
    }


# hit 5, penetration 3 (S9 + 3 = 12 > AV11); the Cool check 4 + 5 = 9 > 8: Pinned
TOP = {"s-1": [38.0, 26.14], "s-2": [39.5, 26.14], "s-3": [41.0, 26.14]}


def test_the_shot_pauses_and_the_next_action_takes_the_proposal() -> None:
    result = run_scenario(_file([{"type": "decide", "choice": "proposal"}], [5, 3, 4, 5]))
    assert "error" not in result and result["dice_left"] == 0, result.get("error")
    shot, answer = result["events"][2], result["events"][3]
    assert shot["pending"]["kind"] == "place_emergency_disembark" and shot["pending"]["side"] == "b"
    assert set(shot["pending"]["placement"]["proposal"]) == {"s-1", "s-2", "s-3"}
    assert answer["by"] == "b" and "rejected" not in answer
    squad = result["final_state"]["units"]["s"]
    placed = {mid: m["pos"] for mid, m in squad["models"].items()}
    assert placed == shot["pending"]["placement"]["proposal"]
    assert squad["statuses"] == {"pinned": 0}


def test_the_file_places_the_models_and_a_bad_place_is_reported() -> None:
    bad = {**TOP, "s-3": [40.0, 28.0]}
    result = run_scenario(
        _file([{"type": "decide", "choice": "place", "place": bad}], [5, 3, 4, 5])
        | {"stop_on_rejection": False}
    )
    refused = result["events"][3]["rejected"]
    assert refused["code"] == "not_in_contact" and abs(refused["values"]["distance"] - 1.87) < 0.01
    result = run_scenario(_file([{"type": "decide", "choice": "place", "place": TOP}], [5, 3, 4, 5]))
    assert "error" not in result and result["dice_left"] == 0
    assert {mid: m["pos"] for mid, m in result["final_state"]["units"]["s"]["models"].items()} == TOP


def test_auto_decide_takes_the_proposal_at_once() -> None:
    asked = run_scenario(_file([{"type": "decide", "choice": "proposal"}], [5, 3, 4, 5]))
    auto = run_scenario(_file([], [5, 3, 4, 5], {"auto_decide": True}))
    assert "error" not in auto and auto["dice_left"] == 0
    assert "pending" not in auto["events"][2]
    assert auto["final_state"]["units"] == asked["final_state"]["units"]
