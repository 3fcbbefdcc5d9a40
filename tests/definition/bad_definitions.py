"""A valid base match definition per edition and a table of mistakes, each with the path and a
piece of the message it must be refused with (docs/match-definition.md, "What is checked")."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Doc = dict[str, Any]


def _base(edition: str = "40k7") -> Doc:
    vehicle_profile: Doc = {"m": 12, "bs": 4, "armour": {"front": 13, "side": 11, "rear": 10}, "hp": 3}
    if edition == "40k11":
        vehicle_profile = {"m": 10, "t": 10, "w": 12, "sv": 3}
    keywords = {"40k7": ["tank"], "hh3": [], "40k11": ["vehicle"]}[edition]
    return {
        "format": 1,
        "edition": edition,
        "scenario": {
            "battlefield": {"width": 72, "height": 48},
            "terrain": [
                {
                    "id": "ruin",
                    "points": [[30, 20], [34, 20], [34, 26], [30, 26]],
                    "kinds": ["cover"],
                    "cover_save": 4,
                }
            ],
            "units": [
                {
                    "id": "tank",
                    "side": "a",
                    "name": "Tank",
                    "kind": "vehicle",
                    "keywords": keywords,
                    "profile": vehicle_profile,
                    "models": [{"id": "tank-m", "pos": [10, 24], "hull": {"length": 5, "width": 3.5}}],
                    "weapons": [
                        {"id": "gun", "name": "Gun", "range": 48, "strength": 9, "ap": 2, "type": "heavy"}
                    ],
                },
                {
                    "id": "carrier",
                    "side": "b",
                    "name": "Carrier",
                    "kind": "vehicle",
                    "keywords": [*keywords, "transport"] if edition != "40k11" else keywords,
                    "profile": {**vehicle_profile, "capacity": 6, "access": ["left", "right", "rear"]},
                    "models": [
                        {
                            "id": "carrier-m",
                            "pos": [60, 24],
                            "heading": 180,
                            "hull": {"length": 4.5, "width": 3.5},
                        }
                    ],
                    "weapons": [
                        {
                            "id": "bolter",
                            "name": "Storm bolter",
                            "range": 24,
                            "strength": 4,
                            "ap": 5,
                            "shots": 2,
                        }
                    ],
                },
                {
                    "id": "squad",
                    "side": "b",
                    "name": "Squad",
                    "kind": "infantry",
                    "embarked_in": "carrier",  # removed for 40k11 below (no transports there)
                    "profile": {"ws": 4, "bs": 4, "s": 4, "t": 4, "w": 1, "sv": 3},
                    "models": {f"s{k}": {"pos": [60, 24]} for k in range(5)},
                    "weapons": [
                        {
                            "id": f"rifle-{k}",
                            "name": "Rifle",
                            "model": f"s{k}",
                            "range": 24,
                            "strength": 4,
                            "ap": 5,
                        }
                        for k in range(5)
                    ],
                },
            ],
        },
        "options": {"turn_limit": 5},
    }


def base(edition: str = "40k7") -> Doc:
    doc = _base(edition)
    if edition == "40k11":  # on foot beside the carrier
        squad = doc["scenario"]["units"][2]
        del squad["embarked_in"]
        for k, model in enumerate(squad["models"].values()):
            model["pos"] = [50, 10 + 2 * k]
    return doc


@dataclass(frozen=True)
class Bad:
    name: str
    change: Callable[[Doc], None]
    path: str  # the path the first problem must name
    says: str  # a piece of its message (or of its allowed values / suggestion)
    edition: str = "40k7"
    stage: str = "rules"  # shape (400 bad_request) or rules (422 bad_scenario)

    def document(self) -> Doc:
        doc = copy.deepcopy(base(self.edition))
        self.change(doc)
        return doc


def _unit(doc: Doc, i: int) -> Doc:
    unit: Doc = doc["scenario"]["units"][i]
    return unit


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    """Set a value by a dotted path with [i] indexes (the path syntax of the problems)."""

    def change(doc: Doc) -> None:
        node: Any = doc
        parts = path.replace("[", ".").replace("]", "").split(".")
        for p in parts[:-1]:
            node = node[int(p)] if p.isdigit() else node[p]
        last = parts[-1]
        if last.isdigit():
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _drop_units_of(side: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        doc["scenario"]["units"] = [u for u in doc["scenario"]["units"] if u["side"] != side]

    return change


def _add_model(i: int, model: Doc) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        models = _unit(doc, i)["models"]
        if isinstance(models, dict):
            models[model["id"]] = {k: v for k, v in model.items() if k != "id"}
        else:
            models.append(model)

    return change


def _earlier_form(change: Callable[[Doc], None]) -> Callable[[Doc], None]:
    """``change`` made to the document without ``format`` (the earlier form)."""

    def changed(doc: Doc) -> None:
        del doc["format"]
        change(doc)

    return changed


def _many_units(n: int) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        tank = _unit(doc, 0)
        doc["scenario"]["units"].extend(
            {
                **tank,
                "id": f"t{k}",
                "models": [
                    {
                        "id": f"t{k}-m",
                        "pos": [5 + (k % 10) * 6, 5 + (k // 10) % 8 * 5],
                        "hull": {"length": 1, "width": 1},
                    }
                ],
                "weapons": [],
            }
            for k in range(n)
        )

    return change


U0 = "scenario.units[0]"
U1 = "scenario.units[1]"
U2 = "scenario.units[2]"

BAD: tuple[Bad, ...] = (
    # ---- the document (400) ----------------------------------------------------------------------
    Bad("misspelt top-level key", _set("actons", []), "actons", "'options'", stage="shape"),
    Bad("unknown edition", _set("edition", "40k8"), "edition", "40k7", stage="shape"),
    Bad("unsupported format", _set("format", 2), "format", "unsupported format", stage="shape"),
    Bad("unit kind", _set(f"{U0}.kind", "tonk"), f"{U0}.kind", "vehicle", stage="shape"),
    Bad("side c", _set(f"{U0}.side", "c"), f"{U0}.side", "allowed", stage="shape"),
    Bad("unknown unit key", _set(f"{U0}.armor", 12), f"{U0}.armor", "unknown key", stage="shape"),
    Bad("runtime field outside state", _set(f"{U0}.hp", 2), f"{U0}.hp", "state", stage="shape"),
    Bad("a number as text", _set(f"{U0}.profile.bs", "4"), f"{U0}.profile.bs", "whole number", stage="shape"),
    Bad(
        "weapon type", _set(f"{U0}.weapons[0].type", "lazer"), f"{U0}.weapons[0].type", "heavy", stage="shape"
    ),
    Bad(
        "mount kind",
        _set(f"{U0}.weapons[0].mount", {"kind": "turet"}),
        f"{U0}.weapons[0].mount.kind",
        "turret",
        stage="shape",
    ),
    Bad(
        "position of one number",
        _set(f"{U0}.models[0].pos", [1]),
        f"{U0}.models[0].pos",
        "array of 2",
        stage="shape",
    ),
    Bad("missing models", lambda d: _unit(d, 0).pop("models"), f"{U0}.models", "missing", stage="shape"),
    Bad(
        "map id differs from key",
        _set(f"{U2}.models", {"s0": {"id": "other", "pos": [1, 1]}}),
        f"{U2}.models.s0.id",
        "differs",
        stage="shape",
    ),
    Bad(
        "units not a list", _set("scenario.units", "all of them"), "scenario.units", "expected", stage="shape"
    ),
    Bad("options key", _set("options.privat", True), "options.privat", "private_spectators", stage="shape"),
    # The earlier form's passenger check indexed the units by id before their shape was checked:
    # a unit id that is no string was a TypeError (a 500 from POST /matches).
    Bad(
        "earlier form, a unit id not a string",
        _earlier_form(_set(f"{U0}.id", ["tank"])),
        f"{U0}.id",
        "string",
        stage="shape",
    ),
    # ---- names the edition implements ----------------------------------------------------------
    Bad("keyword tonk", _set(f"{U0}.keywords", ["tonk"]), f"{U0}.keywords[0]", "'tank'"),
    Bad("keyword open topped", _set(f"{U1}.keywords", ["open topped"]), f"{U1}.keywords[0]", "open-topped"),
    Bad("weapon rule lazer", _set(f"{U0}.weapons[0].rules", ["lazer"]), f"{U0}.weapons[0].rules[0]", "lance"),
    Bad(
        "status immobilized",
        _set(f"{U0}.state", {"statuses": {"immobilized": 0}}),
        f"{U0}.state.statuses.immobilized",
        "immobilised",
    ),
    Bad(
        "hh3 keyword from 40k7",
        _set(f"{U0}.keywords", ["skimmer"]),
        f"{U0}.keywords[0]",
        "unknown hh3 keyword",
        edition="hh3",
    ),
    Bad(
        "hh3 explodes without value",
        _set(f"{U0}.keywords", ["explodes"]),
        f"{U0}.keywords[0]",
        "needs a value",
        edition="hh3",
    ),
    Bad(
        "hh3 heavy:x",
        _set(f"{U0}.weapons[0].rules", ["heavy:x"]),
        f"{U0}.weapons[0].rules[0]",
        "allowed",
        edition="hh3",
    ),
    Bad(
        "40k11 status",
        _set(f"{U0}.state", {"statuses": {"pinned": 0}}),
        f"{U0}.state.statuses.pinned",
        "has none",
        edition="40k11",
    ),
    Bad(
        "40k11 mount",
        _set(f"{U0}.weapons[0].mount", {"kind": "turret"}),
        f"{U0}.weapons[0].mount.kind",
        "none",
        edition="40k11",
    ),
    Bad(
        "terrain kind",
        _set("scenario.terrain[0].kinds", ["forest"]),
        "scenario.terrain[0].kinds[0]",
        "difficult",
    ),
    # ---- units, vehicles, transports ---------------------------------------------------------
    Bad(
        "40k7 vehicle without armour",
        lambda d: _unit(d, 0)["profile"].pop("armour"),
        f"{U0}.profile.armour",
        "armour",
    ),
    Bad(
        "hh3 vehicle without armour",
        lambda d: _unit(d, 0)["profile"].pop("armour"),
        f"{U0}.profile.armour",
        "armour",
        edition="hh3",
    ),
    Bad("vehicle without hull points", _set(f"{U0}.profile.hp", 0), f"{U0}.profile.hp", "Hull Points"),
    Bad(
        "vehicle without hull or base",
        lambda d: _unit(d, 0)["models"][0].pop("hull"),
        f"{U0}.models[0]",
        "hull",
    ),
    Bad(
        "hh3 vehicle of two models",
        _add_model(0, {"id": "tank-m2", "pos": [10, 30], "hull": {"length": 5, "width": 3.5}}),
        f"{U0}.models",
        "single model",
        edition="hh3",
    ),
    Bad(
        "hh3 vehicle above level 0",
        _set(
            "scenario.terrain[0]",
            {"id": "hill", "points": [[5, 20], [15, 20], [15, 28], [5, 28]], "level": 1},
        ),
        f"{U0}.models[0].pos",
        "level 0",
        edition="hh3",
    ),
    Bad("side with no units", _drop_units_of("b"), "scenario.units", "side b has no units"),
    Bad("no units at all", _set("scenario.units", []), "scenario.units", "side a has no units"),
    Bad(
        "weapon on an unknown model",
        _set(f"{U2}.weapons[0].model", "s9"),
        f"{U2}.weapons[0].model",
        "unknown model",
    ),
    Bad(
        "weapon without model in a squad",
        lambda d: _unit(d, 2)["weapons"][0].pop("model"),
        f"{U2}.weapons[0].model",
        "several",
    ),
    Bad(
        "passengers over capacity",
        _set(f"{U1}.profile.capacity", 4),
        f"{U1}.profile.capacity",
        "capacity is 4",
    ),
    Bad("embarked in itself", _set(f"{U2}.embarked_in", "squad"), f"{U2}.embarked_in", "itself"),
    Bad(
        "embarked in a missing unit",
        _set(f"{U2}.embarked_in", "ghost"),
        f"{U2}.embarked_in",
        "unknown transport",
    ),
    Bad("embarked in the enemy", _set(f"{U2}.side", "a"), f"{U2}.embarked_in", "side"),
    Bad("duplicate unit id", _set(f"{U1}.id", "tank"), f"{U1}.id", "already used"),
    Bad("duplicate model id", _set(f"{U1}.models[0].id", "tank-m"), f"{U1}.models[0].id", "already used"),
    Bad("empty unit id", _set(f"{U0}.id", ""), f"{U0}.id", "empty"),
    Bad("NUL in an id", _set(f"{U0}.id", "tank\u0000"), f"{U0}.id", "U+0000"),
    Bad("right-to-left override in an id", _set(f"{U0}.id", "tank\u202e1"), f"{U0}.id", "U+202E"),
    # ---- geometry --------------------------------------------------------------------------------
    Bad("overlapping hulls", _set(f"{U1}.models[0].pos", [11, 24]), f"{U0}.models[0].pos", "overlaps"),
    Bad("off the table", _set(f"{U0}.models[0].pos", [80, 24]), f"{U0}.models[0].pos", "off the"),
    # A position a million inches away was left out of the placement checks (accepted here,
    # refused later by POST /matches without a path).
    Bad("far off the table", _set(f"{U0}.models[0].pos", [1e7, 24]), f"{U0}.models[0].pos", "off the"),
    Bad("partly off the table", _set(f"{U0}.models[0].pos", [1, 24]), f"{U0}.models[0].pos", "off the"),
    Bad(
        "self-intersecting terrain",
        _set("scenario.terrain[0].points", [[0, 0], [4, 4], [4, 0], [0, 4]]),
        "scenario.terrain[0].points",
        "crosses itself",
    ),
    Bad(
        "terrain of two points",
        _set("scenario.terrain[0].points", [[0, 0], [4, 4]]),
        "scenario.terrain[0].points",
        "at least 3",
    ),
    Bad(
        "duplicate terrain id",
        lambda d: d["scenario"]["terrain"].append(dict(d["scenario"]["terrain"][0])),
        "scenario.terrain[1].id",
        "used twice",
    ),
    # ---- bounds ----------------------------------------------------------------------------------
    Bad("a million shots", _set(f"{U0}.weapons[0].shots", 1_000_000), f"{U0}.weapons[0].shots", "MAX_SHOTS"),
    Bad("negative range", _set(f"{U0}.weapons[0].range", -48), f"{U0}.weapons[0].range", "MAX_RANGE"),
    Bad("enormous range", _set(f"{U0}.weapons[0].range", 1e308), f"{U0}.weapons[0].range", "MAX_RANGE"),
    Bad(
        "zero hull",
        _set(f"{U0}.models[0].hull", {"length": 0, "width": 3}),
        f"{U0}.models[0].hull.length",
        "more than 0",
    ),
    Bad(
        "negative hull",
        _set(f"{U0}.models[0].hull", {"length": 5, "width": -3}),
        f"{U0}.models[0].hull.width",
        "more than 0",
    ),
    Bad("negative hp left", _set(f"{U0}.state", {"hp": -3}), f"{U0}.state.hp", "between 0"),
    Bad("negative profile hp", _set(f"{U1}.profile.hp", -3), f"{U1}.profile.hp", "between 0"),
    Bad(
        "enormous battlefield",
        _set("scenario.battlefield.width", 1e308),
        "scenario.battlefield.width",
        "MAX_BATTLEFIELD",
    ),
    Bad("negative turn limit", _set("options.turn_limit", -1), "options.turn_limit", "between 0"),
    # Integers no float can hold (401 digits): refused by their bound, and shown by their length.
    Bad("a 401-digit turn limit", _set("options.turn_limit", 10**400), "options.turn_limit", "19 digits"),
    Bad(
        "a 401-digit coordinate",
        _set(f"{U0}.models[0].pos", [10**400, 24]),
        f"{U0}.models[0].pos[0]",
        "finite number",
        stage="shape",
    ),
    # Turn flags that name a unit or a number are the rules' record of a turn under way: one that
    # names no unit of the match crashed the fold (hh3 combat resolution, 40k7 charges).
    Bad(
        "a turn flag naming a unit",
        _set(f"{U0}.state", {"turn_flags": ["shot", "shot_at:ghost"]}),
        f"{U0}.state.turn_flags[1]",
        "one plain word",
    ),
    Bad(
        "every model dead, the unit not destroyed",
        _set(f"{U0}.models[0].state", {"alive": False}),
        f"{U0}.models",
        "mark the unit destroyed",
    ),
    # "²" passes str.isdigit and int() refuses it
    Bad(
        "a dice target in superscript",
        _set(f"{U0}.keywords", ["tank", "psychic_pilot:²"]),
        f"{U0}.keywords[1]",
        "dice target 1-6",
    ),
    Bad("too many units", _many_units(250), "scenario.units", "MAX_UNITS"),
    Bad(
        "too many terrain vertices",
        _set(
            "scenario.terrain[0].points",
            [
                [36 + 5 * __import__("math").cos(k / 50), 24 + 5 * __import__("math").sin(k / 50)]
                for k in range(315)
            ],
        ),
        "scenario.terrain[0].points",
        "MAX_TERRAIN_VERTICES",
    ),
    Bad("heading 1e30", _set(f"{U0}.models[0].heading", 1e30), f"{U0}.models[0].heading", "MAX_HEADING"),
    Bad("zero base", _set(f"{U2}.models.s0.base_mm", 0), f"{U2}.models[0].base_mm", "more than 0"),
    Bad(
        "40k7 model profile",
        _set(f"{U2}.models.s0.profile", {"ld": 10}),
        f"{U2}.models[0].profile",
        "hh3 rules only",
    ),
    Bad(
        "hh3 paragon model of a vehicle",
        _set(f"{U0}.models[0].kind", "paragon"),
        f"{U0}.models[0].kind",
        "Infantry or Paragon unit",
        edition="hh3",
    ),
    Bad(
        "Intelligence out of bounds (hh3 Battlesmith tests use it)",
        _set(f"{U0}.profile.intelligence", 1000),
        f"{U0}.profile.intelligence",
        "MAX_CHARACTERISTIC",
    ),
    Bad(
        "negative barrel",
        _set(f"{U0}.weapons[0].mount", {"kind": "hull", "arc": "front", "barrel": -5.0}),
        f"{U0}.weapons[0].mount.barrel",
        "MAX_MOUNT_OFFSET",
    ),
    Bad(
        "barrel longer than any hull",
        _set(f"{U0}.weapons[0].mount", {"kind": "hull", "arc": "front", "barrel": 1000.0}),
        f"{U0}.weapons[0].mount.barrel",
        "MAX_MOUNT_OFFSET",
    ),
    # hh3 Vehicles, Fire arcs and weapon mounts: a sponson fires into its own side's half of the
    # table. Without a side the match was created and every shot with the weapon failed: /check
    # and /odds answered 500 and the acting socket was dropped without an answer.
    Bad(
        "hh3 sponson without a side",
        _set(f"{U0}.weapons[0].mount", {"kind": "sponson"}),
        f"{U0}.weapons[0].mount.side",
        "left",
        edition="hh3",
    ),
    Bad(
        "hh3 sponson on the side arc",
        _set(f"{U0}.weapons[0].mount", {"kind": "sponson", "arc": "side"}),
        f"{U0}.weapons[0].mount.side",
        "sponson",
        edition="hh3",
    ),
    # A co-axial weapon takes its main weapon's arc: linked to another co-axial weapon it had
    # none, and every 40k7 shot with it failed (/check and /odds 500, the acting socket dropped).
    Bad(
        "co-axial linked to a co-axial weapon",
        lambda d: _unit(d, 0)["weapons"].extend(
            [
                {**_unit(d, 0)["weapons"][0], "id": "co-1", "mount": {"kind": "coaxial", "linked": "co-2"}},
                {**_unit(d, 0)["weapons"][0], "id": "co-2", "mount": {"kind": "coaxial", "linked": "co-1"}},
            ]
        ),
        f"{U0}.weapons[1].mount.linked",
        "co-axial",
    ),
    Bad(
        "hh3 model profile out of bounds",
        _set(f"{U2}.models.s0.profile", {"ld": 1000}),
        f"{U2}.models[0].profile.ld",
        "MAX_CHARACTERISTIC",
        edition="hh3",
    ),
)
