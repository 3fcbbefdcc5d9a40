"""Roster import (docs/roster-import.md): every sample roster imports (.ros and .rosz alike) into
units a match definition accepts; a golden test per edition; unmappable entries are reported by
name and path; hostile XML and rosters of other game systems are refused; the CLI and
POST /rosters give the same units."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import msgspec
import pytest

from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.roster.editions import EDITIONS, Statline, WeaponLine
from hulldown.roster.importer import import_roster
from hulldown.roster.xmltree import MAX_ROSTER_BYTES, Profile, RosterError, Selection
from hulldown.web import openapi

from ..server_process import ServerProcess
from .golden import GOLDEN, summary

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rosters"
SAMPLES = sorted(FIXTURES.glob("*.ros")) + sorted(FIXTURES.glob("*.rosz"))
PAIRS = {
    "40k7": ("40k7-space-marines", "40k7-orks"),
    "hh3": ("hh3-legiones-astartes", "hh3-solar-auxilia"),
    "40k11": ("40k11-tau-empire", "40k11-orks"),
}


def _edition(path: Path) -> str:
    return path.name.split("-", 1)[0]


def _import(name: str, edition: str, side: str = "a") -> list[dict[str, object]]:
    return import_roster((FIXTURES / f"{name}.ros").read_bytes(), edition, side).units


def test_all_twelve_samples_are_here() -> None:
    assert len(SAMPLES) == 12


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_roster_imports(path: Path) -> None:
    result = import_roster(path.read_bytes(), _edition(path))
    assert len(result.units) >= 6
    assert all(u["models"] for u in result.units)
    assert any(u.get("weapons") for u in result.units)
    plain = import_roster(path.with_suffix(".ros").read_bytes(), _edition(path))
    assert result.units == plain.units  # .rosz holds the same roster


@pytest.mark.parametrize("edition", sorted(PAIRS))
def test_the_two_armies_of_an_edition_make_a_valid_match(edition: str) -> None:
    a, b = PAIRS[edition]
    units = [*_import(a, edition, "a"), *_import(b, edition, "b")]
    doc = {"format": 1, "edition": edition, "scenario": {"units": units}}
    parsed = parse_definition(doc)
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems][:10]


@pytest.mark.parametrize("edition", sorted(GOLDEN))
def test_golden_import(edition: str) -> None:
    """tests/fixtures/rosters/golden/<edition>.json was checked by hand against the roster."""
    expected = json.loads((FIXTURES / "golden" / f"{edition}.json").read_text())
    assert summary(_import(GOLDEN[edition], edition)) == expected


def test_golden_facts_read_from_the_rosters() -> None:
    """A few values of the golden files, restated (roster statlines quoted in the comments)."""
    marines = {u["name"]: u for u in _import("40k7-space-marines", "40k7")}
    # Captain: WS 6 BS 5 S 4 T 4 W 3 I 5 A 3 Ld 10 Save 3+/4++
    assert marines["Captain"]["profile"] == {
        "ws": 6,
        "bs": 5,
        "s": 4,
        "t": 4,
        "w": 3,
        "i": 5,
        "a": 3,
        "ld": 10,
        "sv": 3,
        "inv": 4,
    }
    # The Rhino bought with the Tactical Squad: Vehicle BS 4, 11/11/10, HP 3, Type "Tank, Transport"
    rhino = marines["Rhino"]
    assert rhino["profile"]["armour"] == {"front": 11, "side": 11, "rear": 10} and rhino["profile"]["hp"] == 3
    assert rhino["keywords"] == ["tank", "transport"] and rhino["profile"]["capacity"] == 10
    # Missile Launcher: both profiles (Krak, Frag) become weapons of the heavy-weapon marine
    names = [w["name"] for w in marines["Tactical Squad"]["weapons"]]
    assert "Krak Missiles" in names and "Frag Missiles" in names
    auxilia = {u["name"]: u for u in _import("hh3-solar-auxilia", "hh3")}
    # Leman Russ Strike Tank: M 10 BS 3 Front 14 Side 13 Rear 10 HP 6; Turret Mounted Battlecannon
    russ = auxilia["Leman Russ Strike Tank"]
    assert russ["profile"] == {"m": 10.0, "bs": 3, "armour": {"front": 14, "side": 13, "rear": 10}, "hp": 6}
    battlecannon = next(w for w in russ["weapons"] if w["name"] == "Battlecannon")
    assert battlecannon["mount"] == {"kind": "turret"} and battlecannon["rules"] == ["heavy:ap", "blast"]
    assert {m.get("bulky") for m in auxilia["Aethon Heavy Sentinel Squadron"]["models"]} == {6}  # Bulky (6)
    tau = {u["name"]: u for u in _import("40k11-tau-empire", "40k11")}
    # Stormsurge: M 8" T 11 Sv 2+ W 20 InSv 4+, keywords Vehicle (Walker, Titanic not implemented)
    surge = tau["Stormsurge"]
    assert (
        surge["profile"]["t"],
        surge["profile"]["w"],
        surge["profile"]["sv"],
        surge["profile"]["inv"],
    ) == (11, 20, 2, 4)
    assert surge["kind"] == "vehicle" and "vehicle" in surge["keywords"]


def test_40k7_blasts_given_by_their_size_are_blast_and_large_blast() -> None:
    """The 40k7 Ork data writes a blast by its marker size (``Heavy 1, 3" Blast``): 3" is Blast,
    5" Large Blast (40k7 Weapons, Blast). They were reported as rules not implemented, and the
    weapons imported without them; a 7" blast is no rule of the core and is still reported."""
    result = import_roster((FIXTURES / "40k7-orks.ros").read_bytes(), "40k7")
    weapons = {w["name"]: w.get("rules", []) for u in result.units for w in u.get("weapons", [])}
    assert weapons["Kannon (Frag)"] == ["blast"]  # Heavy 1, 3" Blast
    assert weapons["Grotzooka"] == ["blast"]  # Heavy 2, 3" Blast
    assert weapons["Stikkbombs"] == ["blast"]  # Assault 1, 3" Blast, Assault grenades
    assert weapons["Supa-rokkit"] == ["large_blast"]  # Heavy 1, 5" Blast, One use only
    assert weapons["Kannon (Shell)"] == []  # Heavy 1
    unmapped = {r.name for r in result.report if r.level == "unmapped"}
    assert '3" Blast' not in unmapped and '5" Blast' not in unmapped
    assert '7" Blast' in unmapped  # Deff Kannon: Primary Weapon 1, 7" Blast


def test_40k7_squadrons_are_vehicles_of_their_own_sharing_a_squadron() -> None:
    """40k7 Vehicle Squadrons: each vehicle keeps its own Hull Points (docs/rules-notes.md,
    Squadrons), so the vehicles of a squadron are units sharing ``squadron``. Two Land Speeders
    (HP 2 each) were one unit of two models with 2 Hull Points between them."""
    marines = import_roster((FIXTURES / "40k7-space-marines.ros").read_bytes(), "40k7")
    speeders = [u for u in marines.units if u["name"] == "Land Speeders"]
    assert [len(u["models"]) for u in speeders] == [1, 1]
    assert [u["profile"]["hp"] for u in speeders] == [2, 2]
    assert {u["squadron"] for u in speeders} == {"land-speeders"}
    assert len({u["id"] for u in speeders}) == 2
    for unit in speeders:  # Heavy Bolter and Heavy Flamer, number 2: one of each per speeder
        assert sorted(w["name"] for w in unit["weapons"]) == ["Heavy Bolter", "Heavy Flamer"]
        assert {w["model"] for w in unit["weapons"]} == {unit["models"][0]["id"]}
    assert any(r.level == "decided" and "squadron" in r.message for r in marines.report)
    predators = [u for u in marines.units if u["name"] == "Predators"]
    assert len(predators) == 1 and "squadron" not in predators[0]  # a squadron of one
    orks = import_roster((FIXTURES / "40k7-orks.ros").read_bytes(), "40k7")
    kans = [u for u in orks.units if u["name"] == "Killa Kans"]
    assert sorted(sorted(w["name"] for w in u["weapons"]) for u in kans) == [
        ["Big Shoota", "Kan Klaw"],
        ["Big Shoota", "Kan Klaw"],
        ["Grotzooka", "Kan Klaw"],
    ]
    assert [u["profile"]["hp"] for u in kans] == [2, 2, 2] and {u["squadron"] for u in kans} == {"killa-kans"}
    parsed = parse_definition(
        {
            "format": 1,
            "edition": "40k7",
            "scenario": {"units": [*marines.units, *_import("40k7-orks", "40k7", "b")]},
        }
    )
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems][:5]
    assert [u.squadron for u in parsed.scenario.units if u.name == "Land Speeders"] == ["land-speeders"] * 2


def test_unmappable_entries_are_reported_by_name_and_path() -> None:
    result = import_roster((FIXTURES / "40k7-space-marines.ros").read_bytes(), "40k7")
    unmapped = {(r.name, r.path) for r in result.report if r.level == "unmapped"}
    assert ("And They Shall Know No Fear", "forces[0].selections[1]") in unmapped
    assert any(name == "Rending" and path.startswith("forces[0].selections[5]") for name, path in unmapped)
    defaults = [r for r in result.report if r.level == "default"]
    assert any("base size" in r.message for r in defaults)  # stated defaults are reported too
    tau = import_roster((FIXTURES / "40k11-tau-empire.ros").read_bytes(), "40k11")
    assert any(r.name == "Titanic" and r.level == "unmapped" for r in tau.report)
    assert any(r.name == "For The Greater Good" and r.level == "unmapped" for r in tau.report)
    # 40k11 core rules, Deadly Demise: read as the deadly_demise:X keyword, no longer reported
    assert not any(r.name.startswith("Deadly Demise") for r in tau.report)
    # profiles the core does not use (abilities, wargear) are reported too, not dropped
    assert any(
        r.name == "Damaged: 1-5 Wounds Remaining" and "Abilities profile" in r.message for r in tau.report
    )
    auxilia = import_roster((FIXTURES / "hh3-solar-auxilia.ros").read_bytes(), "hh3")
    assert any(r.name == "Allegiance" and r.level == "skipped" for r in auxilia.report)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<roster name="&lol3;"><forces/></roster>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<roster name="&xxe;"><forces/></roster>"""


@pytest.mark.parametrize("xml", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["billion-laughs", "external-entity"])
def test_hostile_xml_is_refused(xml: bytes) -> None:
    with pytest.raises(RosterError, match="DTD or entities"):
        import_roster(xml, "40k7")


def test_zip_bomb_and_odd_files_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.ros", b"<roster>" + b" " * (MAX_ROSTER_BYTES + 10) + b"</roster>")
    with pytest.raises(RosterError, match="expands"):
        import_roster(buffer.getvalue(), "40k7")
    with pytest.raises(RosterError, match="well-formed"):
        import_roster(b"<roster", "40k7")
    with pytest.raises(RosterError, match="root element"):
        import_roster(b"<catalogue/>", "40k7")


def test_a_roster_of_another_game_system_is_refused() -> None:
    with pytest.raises(RosterError, match="Horus Heresy"):
        import_roster((FIXTURES / "hh3-solar-auxilia.ros").read_bytes(), "40k7")
    tenth = (
        (FIXTURES / "40k11-orks.ros")
        .read_bytes()
        .replace(b"sys-352e-adc2-7639-d610", b"sys-352e-adc2-7639-d6a9")
    )
    tenth = tenth.replace(b"11th Edition", b"10th Edition")
    with pytest.raises(RosterError, match="10th edition"):
        import_roster(tenth, "40k11")


def test_cli_prints_units_on_stdout_and_the_report_on_stderr() -> None:
    path = FIXTURES / "hh3-legiones-astartes.rosz"
    done = subprocess.run(
        [sys.executable, "-m", "hulldown.cli", "roster", str(path), "--edition", "hh3", "--side", "b"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    units = json.loads(done.stdout)
    assert units == import_roster(path.read_bytes(), "hh3", "b").units
    assert "unmapped:" in done.stderr and "units" in done.stderr.splitlines()[0]
    wrong = subprocess.run(
        [sys.executable, "-m", "hulldown.cli", "roster", str(path), "--edition", "40k7"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (
        wrong.returncode == 1 and wrong.stdout == "" and "not 'Warhammer 40,000 7th Edition'" in wrong.stderr
    )


def test_post_rosters(server: ServerProcess) -> None:
    path = FIXTURES / "40k11-orks.rosz"
    response = httpx.post(
        f"{server.http}/rosters",
        params={"edition": "40k11", "side": "b"},
        content=path.read_bytes(),
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["units"] == import_roster(path.read_bytes(), "40k11", "b").units
    assert body["report"] and {"level", "path", "name", "message"} <= set(body["report"][0])
    msgspec.convert(body, openapi.RosterImport)  # the documented response shape (strict)
    examples = httpx.get(f"{server.http}/examples", timeout=10).json()
    msgspec.convert(examples, openapi.ExampleList)
    assert {"40k7-skirmish", "hh3-skirmish", "40k11-skirmish"} <= {e["name"] for e in examples["examples"]}
    missing = httpx.get(f"{server.http}/examples/nope", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_example"
    hostile = httpx.post(
        f"{server.http}/rosters", params={"edition": "40k7"}, content=BILLION_LAUGHS, timeout=10
    )
    assert hostile.status_code == 422 and hostile.json()["error"]["code"] == "bad_roster"
    bad = httpx.post(f"{server.http}/rosters", params={"edition": "40k8"}, content=b"", timeout=10)
    assert bad.status_code == 400 and "40k7" in bad.json()["error"]["message"]
    big = httpx.post(
        f"{server.http}/rosters",
        params={"edition": "40k7"},
        content=b" " * (MAX_ROSTER_BYTES + 1),
        timeout=10,
    )
    assert big.status_code == 413


EXAMPLES = FIXTURES.parents[1].parent / "examples"
EXAMPLE_ROSTERS = sorted((EXAMPLES / "rosters").glob("*.rosz"))


@pytest.mark.parametrize("path", EXAMPLE_ROSTERS, ids=lambda p: p.name)
def test_example_rosters_import_alike_zipped_or_not(path: Path) -> None:
    zipped = import_roster(path.read_bytes(), _edition(path))
    plain = import_roster(path.with_suffix(".ros").read_bytes(), _edition(path))
    assert zipped.units == plain.units and len(zipped.units) == 4


def test_deployment_and_objective_rules_are_the_keywords_the_core_reads() -> None:
    """Unit special rules the rules core implements become its keywords (docs/match-definition.md):
    40k7 Deep Strike, Infiltrate, Scout, Outflank, Adamantium Will, Psychic Pilot; hh3 Line (X),
    Infiltrate (X), Outflank. They were reported as not implemented and dropped."""
    marines = import_roster((FIXTURES / "40k7-space-marines.ros").read_bytes(), "40k7")
    speeders = [u for u in marines.units if u["name"] == "Land Speeders"]
    assert len(speeders) == 2 and all("deep_strike" in u["keywords"] for u in speeders)  # each vehicle
    assert not any(r.name == "Deep Strike" for r in marines.report if r.level == "unmapped")
    legion = import_roster((FIXTURES / "hh3-legiones-astartes.ros").read_bytes(), "hh3")
    tactical = next(u for u in legion.units if u["name"] == "Tactical Squad")
    assert "line:2" in tactical["keywords"]  # Line (2)
    unmapped = {r.name for r in legion.report if r.level == "unmapped"}
    assert "Line (2)" not in unmapped
    assert "Deep Strike" in unmapped  # hh3 Deep Strike is not modelled by the core: still reported
    auxilia = {u["name"]: u for u in _import("hh3-solar-auxilia", "hh3")}
    assert "line:1" in auxilia["Lasrifle Section"]["keywords"]  # Line (1)
    assert "line:1" in auxilia["Tactical Command Section"]["keywords"]  # not Officer of the Line (2)
    wh40k7, hh3 = EDITIONS["40k7"], EDITIONS["hh3"]
    for rule, keyword in (
        ("Deep Strike", "deep_strike"),
        ("Infiltrate", "infiltrate"),
        ("Scout", "scout"),
        ("Outflank", "outflank"),
        ("Adamantium Will", "adamantium_will"),
        ("Psychic Pilot", "psychic_pilot"),
        ("Psychic Pilot (Mastery Level 2)", "psychic_pilot:2"),
    ):
        assert wh40k7.unit_rule(rule) == ("keyword", keyword), rule
    for rule, keyword in (
        ("Line (2)", "line:2"),
        ("Line (1)", "line:1"),
        ("Infiltrate (6)", "infiltrate:6"),
        ("Infiltrate [3]", "infiltrate:3"),
        ("Outflank", "outflank"),
    ):
        assert hh3.unit_rule(rule) == ("keyword", keyword), rule
    assert hh3.unit_rule("Officer of the Line (2)") is None
    assert hh3.unit_rule("Deep Strike") is None
    # a value a match definition does not accept is reported, not made into a keyword
    beyond = hh3.unit_rule("Infiltrate (9)")
    assert beyond is not None and beyond[0] == "unmapped"
    nine = (
        (FIXTURES / "hh3-legiones-astartes.ros").read_bytes().replace(b'name="Line (2)"', b'name="Line (9)"')
    )
    lined = import_roster(nine, "hh3")
    assert not any(k.startswith("line") for u in lined.units for k in u.get("keywords", []))
    assert any(r.name == "Line (9)" and "1 to 6" in r.message for r in lined.report if r.level == "unmapped")
    parsed = parse_definition(
        {
            "format": 1,
            "edition": "hh3",
            "scenario": {"units": [*legion.units, *_import("hh3-solar-auxilia", "hh3", "b")]},
        }
    )
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems][:5]


def test_40k7_super_heavy_types_keep_their_type() -> None:
    """A 40k7 Super-heavy Tank is a Tank (it may Tank Shock and Ram), a Super-heavy Walker a
    Walker, a Super-heavy Flyer a Flyer (40k7 Super-heavy Vehicles): the Fellblade's
    ``Vehicle (Super-Heavy Tank)`` gave only ``super-heavy``."""
    marines = {u["name"]: u for u in _import("40k7-space-marines", "40k7")}
    fellblade = marines["(FW) Fellblade Super-Heavy Tank"]
    assert sorted(fellblade["keywords"]) == ["super-heavy", "tank"]
    orks = {u["name"]: u for u in _import("40k7-orks", "40k7")}
    assert {"super-heavy", "walker", "transport"} <= set(orks["Stompa"]["keywords"])  # Super-heavy Walker
    reader = EDITIONS["40k7"]
    report: list[tuple[str, str]] = []
    for type_text, expected in (
        ("Vehicle (Super-Heavy Tank)", ["super-heavy", "tank"]),
        ("Super-heavy Walker, Transport", ["super-heavy", "transport", "walker"]),
        ("Vehicle (Super-heavy Flyer)", ["flyer", "super-heavy"]),
        ("Superheavy Tank", ["super-heavy", "tank"]),
        ("Vehicle (Super-heavy)", ["super-heavy"]),
    ):
        profile = Profile(
            "Test", "Vehicle", {"BS": "4", "Front": "13", "Rear": "12", "HP": "9", "Type": type_text}
        )
        root = Selection("s", "Test", "model", 1, "forces[0].selections[0]", [profile])
        statline = reader.statline(
            profile, root, root, lambda level, _p, name, _m: report.append((level, name))
        )
        assert sorted(statline.keywords) == expected, type_text
    assert not report, report  # nothing of these types is left unmapped


def _sponsons(units: list[dict[str, object]], unit_name: str) -> list[tuple[str, str, object]]:
    unit = next(u for u in units if u["name"] == unit_name)
    weapons = unit.get("weapons", [])
    assert isinstance(weapons, list)
    return [(w["id"], w["name"], w["mount"].get("side")) for w in weapons if w["mount"]["kind"] == "sponson"]


def test_sponson_weapons_get_their_sides() -> None:
    """Every imported sponson names its side (docs/roster-import.md, Sponsons): hh3 refuses a sponson
    without one when a match is defined (hh3 Vehicles, Fire arcs and weapon mounts), and 40k7 and
    the viewer read one without a side as the right-hand one. A pair (``Two Sponson Mounted ...``,
    or ``number`` 2) goes left and right; a single sponson goes right, reported as decided. A
    single hh3 sponson made the roster unplayable, and a single 40k7 one had no side."""
    legion = (EXAMPLES / "rosters" / "hh3-legion-small.ros").read_bytes()
    pair = import_roster(legion, "hh3")
    assert _sponsons(pair.units, "Predator") == [
        ("lascannon", "Lascannon", "left"),
        ("lascannon-2", "Lascannon", "right"),
    ]
    one = legion.replace(b'name="Two Sponson Mounted lascannon"', b'name="Sponson Mounted lascannon"')
    single = import_roster(one, "hh3")
    assert _sponsons(single.units, "Predator") == [("lascannon", "Lascannon", "right")]
    [decided] = [r for r in single.report if r.name == "Sponson Mounted lascannon"]
    assert decided.level == "decided" and "right-hand" in decided.message
    assert "docs/roster-import.md" in decided.message
    assert not any(r.name == "Two Sponson Mounted lascannon" for r in pair.report if r.level == "decided")
    counted = import_roster(_with_number(one, b"Sponson Mounted lascannon", 2), "hh3")
    assert _sponsons(counted.units, "Predator") == [
        ("lascannon", "Lascannon", "left"),
        ("lascannon-2", "Lascannon", "right"),
    ]
    auxilia = import_roster((EXAMPLES / "rosters" / "hh3-auxilia-small.ros").read_bytes(), "hh3", "b")
    parsed = parse_definition(
        {"format": 1, "edition": "hh3", "scenario": {"units": [*single.units, *auxilia.units]}}
    )
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems][:5]
    marines = import_roster((FIXTURES / "40k7-space-marines.ros").read_bytes(), "40k7")
    assert _sponsons(marines.units, "Predators") == [("heavy-bolter", "Heavy Bolter", "right")]
    assert any(
        r.level == "decided" and r.name == "Heavy Bolter" and "right-hand" in r.message
        for r in marines.report
    )
    fellblade = _sponsons(marines.units, "(FW) Fellblade Super-Heavy Tank")
    assert [side for _, _, side in fellblade] == ["left", "right"]  # Two Quad Lascannons


def _with_number(roster: bytes, name: bytes, number: int) -> bytes:
    """The roster with the selection named ``name`` bought ``number`` times."""
    head, found, rest = roster.partition(b'name="' + name + b'"')
    assert found
    attrs, close, tail = rest.partition(b">")
    attrs = re.sub(rb'number="[0-9]+"', b'number="%d"' % number, attrs)
    return head + found + attrs + close + tail


def test_40k11_objective_control_is_read_from_the_statline() -> None:
    """40k11 core rules, Objective Control: the Unit profile's ``OC`` becomes the ``oc:X`` keyword
    the missions read (docs/roster-import.md). It was not read at all, so every model played the
    default (2 for infantry, 3 for vehicles and monsters): the Stompa (OC 12) counted 3. ``-``
    (the Dakkajet, an aircraft) is read as 0, reported as decided; the armies still make a match."""
    orks = import_roster((FIXTURES / "40k11-orks.ros").read_bytes(), "40k11")
    by_name = {u["name"]: u for u in orks.units}
    oc = {name: [k for k in u.get("keywords", []) if str(k).startswith("oc:")] for name, u in by_name.items()}
    # Statlines: Stompa OC 12, Battlewagon 5, Deff Dread 3, Boyz 2, Warboss 1, Dakkajet -
    assert oc["Stompa"] == ["oc:12"]
    assert oc["Battlewagon"] == ["oc:5"]
    assert oc["Deff Dread"] == ["oc:3"]
    assert oc["Warboss"] == ["oc:1"]
    assert oc["Dakkajet"] == ["oc:0"]
    assert all(len(found) == 1 for found in oc.values()), oc
    assert any(r.name == "Dakkajet" and "OC" in r.message for r in orks.report if r.level == "decided")
    tau = {u["name"]: u for u in _import("40k11-tau-empire", "40k11")}
    assert "oc:6" in tau["Stormsurge"]["keywords"] and "oc:4" in tau["Riptide Battlesuit"]["keywords"]


def _40k7_unit(save: str) -> dict[str, object]:
    reader = EDITIONS["40k7"]
    chars = {"Unit Type": "Infantry", "WS": "4", "BS": "4", "S": "4", "T": "4", "W": "1", "I": "4"}
    profile = Profile("Test", "Unit", {**chars, "A": "1", "Ld": "8", "Save": save})
    root = Selection("s", "Test", "model", 1, "forces[0].selections[0]", [profile])
    return reader.statline(profile, root, root, lambda *_: None).profile


def test_40k7_an_invulnerable_save_alone_is_not_an_armour_save() -> None:
    """A 40k7 Save written ``4++`` is an invulnerable save only (the data writes ``3+/4++`` for a
    model with both): it set the armour save to 4+ as well."""
    assert (_40k7_unit("4++").get("sv"), _40k7_unit("4++").get("inv")) == (None, 4)
    assert (_40k7_unit("-/5++").get("sv"), _40k7_unit("-/5++").get("inv")) == (None, 5)
    assert (_40k7_unit("3+/4++").get("sv"), _40k7_unit("3+/4++").get("inv")) == (3, 4)
    assert (_40k7_unit("3+").get("sv"), _40k7_unit("3+").get("inv")) == (3, None)
    assert (_40k7_unit("-").get("sv"), _40k7_unit("-").get("inv")) == (None, None)


def test_40k7_a_weapon_without_a_range_is_melee_only_when_its_type_says_melee() -> None:
    """40k7 weapon profiles: a close combat weapon has Range ``-`` and the type ``Melee``; a
    template weapon the range ``Template``. Range ``-`` alone does not make a melee weapon: a bomb
    (``Ordnance 1, Large Blast, Bomb``) was imported as a close combat weapon. A weapon without a
    range that is not Melee cannot be played: it is left out and reported."""
    reader = EDITIONS["40k7"]
    marine = Statline("Marine", "infantry", False, False, {"s": 4})
    sel = Selection("w", "Weapon", "upgrade", 1, "forces[0].selections[0].selections[1]")
    report: list[tuple[str, str, str]] = []

    def line(rng: str, wtype: str) -> WeaponLine | None:
        chars = {"Range": rng, "Strength": "6", "AP": "4", "Type": wtype}
        return reader.weapon(
            Profile("W", "Weapon", chars),
            sel,
            marine,
            lambda lvl, _p, name, msg: report.append((lvl, name, msg)),
        )

    fist = line("-", "Melee, Specialist Weapon, Unwieldy")
    assert fist is not None and fist.type == "melee" and fist.range == 0.0
    flamer = line("Template", "Assault 1")
    assert flamer is not None and flamer.type == "assault" and flamer.rules == ["template"]
    report.clear()  # (nothing to keep: Specialist Weapon and Unwieldy are mapped now)
    for rng, wtype in (("-", "Ordnance 1, Large Blast, Bomb, One use only"), ("", "Armourbane, Unwieldy")):
        assert line(rng, wtype) is None, (rng, wtype)
    assert [(lvl, name) for lvl, name, _ in report] == [("unmapped", "W"), ("unmapped", "W")]
    assert "not a Melee weapon" in report[0][2] and "docs/roster-import.md" in report[0][2]


def test_40k7_ignores_cover_is_imported_as_a_weapon_rule() -> None:
    """40k7 Special Rules, Ignores Cover: the data writes it as a word of the weapon's Type
    (``Heavy 1, Ignores Cover``; ``Ignore Cover`` in some entries) or as a rule of the weapon
    selection. Both are ``ignores_cover`` (docs/roster-import.md); it was reported unmapped and the
    weapon allowed cover saves."""
    reader = EDITIONS["40k7"]
    marine = Statline("Marine", "infantry", False, False, {"s": 4})
    report: list[tuple[str, str]] = []

    def line(wtype: str, rules: list[str]) -> WeaponLine | None:
        sel = Selection("w", "Rifle", "upgrade", 1, "forces[0].selections[0].selections[1]", rules=rules)
        chars = {"Range": "36", "Strength": "4", "AP": "6", "Type": wtype}
        return reader.weapon(
            Profile("Rifle", "Weapon", chars),
            sel,
            marine,
            lambda lvl, _p, name, _m: report.append((lvl, name)),
        )

    for wtype, rules in (
        ("Heavy 1, Ignores Cover", []),
        ("Heavy 1, Ignore Cover", []),
        ("Heavy 1", ["Ignores Cover"]),
        ("Heavy 1, Ignores Cover", ["Ignores Cover"]),
    ):
        rifle = line(wtype, rules)
        assert rifle is not None and rifle.rules == ["ignores_cover"], (wtype, rules)
    assert report == []


def test_40k11_pistol_is_close_quarters() -> None:
    """40k11 Weapon Abilities: "[PISTOL] and [CLOSE-QUARTERS] are identical for all rules
    purposes" (the Pistol rule the rosters carry). A Pistol weapon was reported as a keyword not
    implemented and imported without the rule, so it could not shoot while engaged (17.03)."""
    tau = import_roster((FIXTURES / "40k11-tau-empire.ros").read_bytes(), "40k11")
    pistols = [w for u in tau.units for w in u.get("weapons", []) if w["name"] == "Pulse pistol"]
    assert pistols and all(w["rules"] == ["close_quarters"] for w in pistols)
    assert not any(r.name == "Pistol" for r in tau.report)
    orks = {u["name"]: u for u in import_roster((FIXTURES / "40k11-orks.ros").read_bytes(), "40k11").units}
    slugga = next(w for u in orks.values() for w in u.get("weapons", []) if w["name"] == "Twin slugga")
    assert "close_quarters" in slugga["rules"]


def test_hh3_heavy_d_is_read() -> None:
    """hh3 Armoury, Heavy (X): the rosters' ``Heavy (D)`` (lascannons) is ``heavy:d`` (+1 Damage
    when Stationary) and makes the weapon Heavy. It was reported as not implemented and the
    weapon typed Assault."""
    result = import_roster((FIXTURES / "hh3-solar-auxilia.ros").read_bytes(), "hh3")
    lascannons = [w for u in result.units for w in u.get("weapons", []) if w["name"] == "Lascannon"]
    assert lascannons and all("heavy:d" in w["rules"] and w["type"] == "heavy" for w in lascannons)
    assert not any(r.name == "Heavy (D)" for r in result.report)


def test_40k11_weapon_abilities_and_random_characteristics_are_mapped() -> None:
    """40k11 core rules, Random characteristics and weapon abilities (docs/roster-import.md): a
    dice A or D becomes ``attacks:``/``damage:`` (rolled by the rules core, the number keeping the
    average), reported as rolled; Rapid Fire X, Twin-linked, Anti-Infantry 4+, Devastating Wounds,
    Sustained Hits X, Torrent, Heavy are mapped, no longer reported as not implemented. They were
    all "weapon keyword not implemented by the rules core: ignored" and the dice read as averages."""
    orks = import_roster((FIXTURES / "40k11-orks.ros").read_bytes(), "40k11")
    weapons = {w["name"]: w for u in orks.units for w in u.get("weapons", [])}
    frag = weapons["➤ Kannon - frag"] if "➤ Kannon - frag" in weapons else weapons["Kannon - frag"]
    assert "attacks:d6+3" in frag["rules"] and frag["shots"] == 7
    shell = weapons.get("➤ Kannon - shell") or weapons["Kannon - shell"]
    assert "damage:d6" in shell["rules"] and shell["damage"] == 4
    assert any(
        r.name.endswith("Kannon - frag") and "rolled for each use (attacks:d6+3)" in r.message
        for r in orks.report
    )
    unmapped = {r.name for r in orks.report if r.level == "unmapped"}
    for mapped in (
        "Rapid Fire 2",
        "Twin-linked",
        "Anti-Infantry 4+",
        "Devastating Wounds",
        "Sustained Hits 1",
        "Torrent",
    ):
        assert mapped not in unmapped
    assert "Ignores Cover" not in unmapped  # 40k11 core rules, Ignores Cover: now mapped
    all_rules = {r for w in weapons.values() for r in w.get("rules", [])}
    assert {
        "rapid_fire:2",
        "twin_linked",
        "anti:infantry:4",
        "devastating_wounds",
        "sustained_hits:1",
        "torrent",
    } <= all_rules
    tau = import_roster((FIXTURES / "40k11-tau-empire.ros").read_bytes(), "40k11")
    assert "Heavy" not in {r.name for r in tau.report if r.level == "unmapped"}


def test_40k11_cover_and_remaining_weapon_abilities_are_mapped() -> None:
    """40k11 core rules, Ignores Cover, Lance, Hazardous, One Shot, Extra Attacks, Indirect Fire,
    Sustained Hits D3 (docs/roster-import.md): mapped to ``ignores_cover``, ``lance``,
    ``hazardous``, ``one_shot``, ``extra_attacks``, ``indirect_fire`` and ``sustained_hits:d3``;
    they were all reported ``unmapped``. The Tau roster's Seeker missile is One Shot, its smart
    missile systems Indirect Fire, its overcharged ion weapons Hazardous."""
    tau = import_roster((FIXTURES / "40k11-tau-empire.ros").read_bytes(), "40k11")
    weapons = {w["name"]: w for u in tau.units for w in u.get("weapons", [])}
    assert "one_shot" in weapons["Seeker missile"]["rules"]
    assert "indirect_fire" in weapons["Smart missile system"]["rules"]
    assert "hazardous" in weapons["Ion accelerator - overcharge"]["rules"]
    unmapped = {r.name for r in tau.report if r.level == "unmapped"}
    assert not {"One Shot", "Indirect Fire", "Hazardous"} & unmapped
    reader = EDITIONS["40k11"]
    assert reader.weapon_rule("Sustained Hits D3") == "sustained_hits:d3"
    assert reader.weapon_rule("Sustained Hits 2") == "sustained_hits:2"
    for text, token in (
        ("Ignores Cover", "ignores_cover"),
        ("Lance", "lance"),
        ("Hazardous", "hazardous"),
        ("One Shot", "one_shot"),
        ("Extra Attacks", "extra_attacks"),
        ("Indirect Fire", "indirect_fire"),
    ):
        assert reader.weapon_rule(text) == token
