"""Rosters that are damaged, hostile or too big for a match (docs/roster-import.md, "Limits"):
each is answered 422 ``bad_roster`` by POST /rosters, naming the offending element and the limit,
never a 500 and never after building a million models; rosters at the limits still import, and
numbers in characteristics are read from the digits 0-9 only."""

from __future__ import annotations

import io
import re
import uuid
import zipfile
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from hulldown.match.limits import MAX_MODELS, MAX_MODELS_PER_UNIT, MAX_WEAPONS_PER_UNIT
from hulldown.roster import values, xmltree
from hulldown.roster.importer import import_roster
from hulldown.roster.values import MAX_NUMBER_DIGITS
from hulldown.roster.xmltree import (
    MAX_FORCES,
    MAX_NESTING,
    MAX_SELECTION_NUMBER,
    MAX_SELECTIONS,
    RosterError,
)
from hulldown.web.app import create_app
from hulldown.web.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rosters"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "roster-import.md"
SYSTEM_40K7 = b"e1ebd931-a209-3ce4-87b4-d9918d25530b"
ENTRY = "orks.ros"  # the member name of the .rosz files built here


# --- building rosters -------------------------------------------------------------------------


def _roster(selections: bytes = b"", forces: bytes | None = None) -> bytes:
    """A 40k7 roster: one force holding ``selections``, or the given ``<force>`` elements."""
    inner = (
        forces
        if forces is not None
        else b'<force name="f"><selections>' + selections + b"</selections></force>"
    )
    return (
        b'<?xml version="1.0"?><roster name="r" gameSystemId="'
        + SYSTEM_40K7
        + b'"><forces>'
        + inner
        + b"</forces></roster>"
    )


def _statline(name: bytes = b"Boy", ws: bytes = b"4", save: bytes = b"6+") -> bytes:
    return (
        b'<profiles><profile name="' + name + b'" typeName="Unit"><characteristics>'
        b'<characteristic name="WS">' + ws + b"</characteristic>"
        b'<characteristic name="Save">' + save + b"</characteristic>"
        b'<characteristic name="Unit Type">Infantry</characteristic>'
        b"</characteristics></profile></profiles>"
    )


def _weapon(name: bytes, number: int) -> bytes:
    return (
        b'<selection name="'
        + name
        + b'" type="upgrade" number="%d"><profiles>' % number
        + b'<profile name="'
        + name
        + b'" typeName="Weapon"><characteristics>'
        b'<characteristic name="Range">18"</characteristic><characteristic name="Strength">4</characteristic>'
        b'<characteristic name="AP">6</characteristic><characteristic name="Type">Assault 2</characteristic>'
        b"</characteristics></profile></profiles></selection>"
    )


def _model(
    number: bytes | int, statline: bytes | None = None, weapons: bytes = b"", name: bytes = b"Boy"
) -> bytes:
    count = number if isinstance(number, bytes) else b"%d" % number
    inner = b"<selections>" + weapons + b"</selections>" if weapons else b""
    return (
        b'<selection name="'
        + name
        + b'" type="model" number="'
        + count
        + b'">'
        + (statline if statline is not None else _statline(name))
        + inner
        + b"</selection>"
    )


def _nested_selections(depth: int) -> bytes:
    return _roster(b'<selection name="s"><selections>' * depth + b"</selections></selection>" * depth)


def _nested_forces(depth: int) -> bytes:
    return _roster(forces=b'<force name="f"><forces>' * depth + b"</forces></force>" * depth)


def _rosz(ros: bytes) -> bytearray:
    """``ros`` stored (not compressed) in a .rosz, so its bytes can be patched below."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(ENTRY, ros)
    return bytearray(buffer.getvalue())


def _central_header(data: bytearray) -> int:
    return data.index(b"PK\x01\x02")


def _with_a_damaged_byte() -> bytes:
    data = _rosz((FIXTURES / "40k7-orks.ros").read_bytes())
    data[30 + len(ENTRY) + 1_000] ^= 0xFF  # a byte of the member's data: its CRC-32 no longer matches
    return bytes(data)


def _encrypted() -> bytes:
    data = _rosz((FIXTURES / "40k7-orks.ros").read_bytes())
    data[6] |= 0x01  # general purpose flag bit 0 (encrypted), local header and central directory
    data[_central_header(data) + 8] |= 0x01
    return bytes(data)


def _compressed_with_method(method: int) -> bytes:
    data = _rosz((FIXTURES / "40k7-orks.ros").read_bytes())
    data[8:10] = method.to_bytes(2, "little")
    central = _central_header(data)
    data[central + 10 : central + 12] = method.to_bytes(2, "little")
    return bytes(data)


def _declaring(encoding: bytes) -> bytes:
    return _roster(_model(1)).replace(b'version="1.0"', b'version="1.0" encoding="' + encoding + b'"', 1)


def _path(*steps: str) -> str:
    return ".".join(steps)


NESTED = ["selections[0]"] * MAX_NESTING  # down to the first selection past MAX_NESTING (the force is 1)

# (body, the start of the message: where, a fragment: what is wrong or the limit's name)
REFUSED = [
    pytest.param(
        _nested_selections(600), _path("forces[0]", *NESTED), "MAX_NESTING", id="600-nested-selections"
    ),
    pytest.param(
        _nested_forces(2_000),
        _path("forces[0]", *["forces[0]"] * MAX_NESTING),
        "MAX_NESTING",
        id="2000-nested-forces",
    ),
    pytest.param(
        _roster(forces=b'<force name="f"/>' * (MAX_FORCES + 1)),
        f"forces[{MAX_FORCES}]",
        "MAX_FORCES",
        id="too-many-forces",
    ),
    pytest.param(
        _roster(b'<selection name="s"/>' * (MAX_SELECTIONS + 1)),
        f"forces[0].selections[{MAX_SELECTIONS}]",
        "MAX_SELECTIONS",
        id="too-many-selections",
    ),
    pytest.param(_with_a_damaged_byte(), ENTRY, "Bad CRC-32", id="rosz-member-bad-crc"),
    pytest.param(_encrypted(), ENTRY, "encrypted", id="rosz-member-encrypted"),
    pytest.param(_compressed_with_method(99), ENTRY, "method 99", id="rosz-member-unknown-compression"),
    pytest.param(_declaring(b"x-bogus"), "<?xml?> declaration", "'x-bogus'", id="unknown-encoding"),
    pytest.param(_declaring(b"shift_jis"), "<?xml?> declaration", "'shift_jis'", id="multi-byte-encoding"),
    pytest.param(
        _roster(_model(1, _statline(ws=b"9" * 5_000))),
        "forces[0].selections[0].profiles[0].characteristics[0]",
        "MAX_NUMBER_DIGITS",
        id="5000-digit-characteristic",
    ),
    pytest.param(
        _roster(_model(1, _statline(save="²".encode()))),
        "forces[0].selections[0].profiles[0].characteristics[1]",
        "U+00B2",
        id="superscript-digit-characteristic",
    ),
    pytest.param(
        _roster(_model(1_000_000)), "forces[0].selections[0]", "MAX_SELECTION_NUMBER", id="a-million-models"
    ),
    pytest.param(
        _roster(_model(1, weapons=_weapon(b"Shoota", 6_000))),
        "forces[0].selections[0].selections[0]",
        "MAX_SELECTION_NUMBER",
        id="6000-weapons",
    ),
    pytest.param(
        _roster(_model(b"1" * 5_000)),
        "forces[0].selections[0]",
        "MAX_SELECTION_NUMBER",
        id="5000-digit-number",
    ),
    pytest.param(
        _roster(_model("²".encode())), "forces[0].selections[0]", "not a whole number", id="number-not-0-9"
    ),
    pytest.param(
        _roster(_model(MAX_MODELS_PER_UNIT + 1)),
        "forces[0].selections[0]",
        "MAX_MODELS_PER_UNIT",
        id="models-of-one-group",
    ),
    pytest.param(
        _roster(
            b'<selection name="Boyz" type="unit"><selections>'
            + _model(60)
            + _model(60, name=b"Nob")
            + b"</selections></selection>"
        ),
        "forces[0].selections[0].selections[1]",
        "MAX_MODELS_PER_UNIT",
        id="models-of-two-groups",
    ),
    pytest.param(
        _roster(_model(10, weapons=_weapon(b"Shoota", 150) + _weapon(b"Choppa", 60))),
        "forces[0].selections[0].selections[1]",
        "MAX_WEAPONS_PER_UNIT",
        id="weapons-of-one-unit",
    ),
    pytest.param(
        _roster(_model(MAX_MODELS_PER_UNIT) * (MAX_MODELS // MAX_MODELS_PER_UNIT + 1)),
        f"forces[0].selections[{MAX_MODELS // MAX_MODELS_PER_UNIT}]",
        "MAX_MODELS",
        id="models-of-the-roster",
    ),
]


# --- over HTTP --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def client(redis_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app in process; a server error stays a 500 answer (raise_app_exceptions=False)."""
    app = create_app(Settings(redis_url=redis_url, key_prefix=f"hdtest-{uuid.uuid4().hex[:12]}"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://hulldown.test") as http:
            yield http


@pytest.mark.parametrize(("body", "where", "what"), REFUSED)
async def test_post_rosters_refuses_with_bad_roster_naming_the_element(
    client: httpx.AsyncClient, body: bytes, where: str, what: str
) -> None:
    answer = await client.post("/rosters", params={"edition": "40k7"}, content=body)
    assert answer.status_code == 422, answer.text[:300]
    error = answer.json()["error"]
    assert error["code"] == "bad_roster"
    assert error["message"].startswith(f"{where}:"), error["message"][:300]
    assert what in error["message"]


# --- the importer itself ----------------------------------------------------------------------


def test_a_million_models_are_refused_before_any_is_built() -> None:
    with pytest.raises(RosterError) as refused:
        import_roster(_roster(_model(1_000_000)), "40k7")
    message = str(refused.value)
    assert message.startswith("forces[0].selections[0]: number 1000000 ")
    assert f"allowed 0 to {MAX_SELECTION_NUMBER}" in message and "docs/roster-import.md" in message


def test_a_unit_at_the_limits_imports_with_unique_weapon_ids() -> None:
    weapons = _weapon(b"Shoota", MAX_WEAPONS_PER_UNIT // 2) * 2  # two selections of one weapon name
    result = import_roster(_roster(_model(MAX_MODELS_PER_UNIT, weapons=weapons)), "40k7")
    [unit] = result.units
    assert len(unit["models"]) == MAX_MODELS_PER_UNIT
    ids = [w["id"] for w in unit["weapons"]]
    assert len(ids) == MAX_WEAPONS_PER_UNIT and len(set(ids)) == MAX_WEAPONS_PER_UNIT
    assert ids[:3] == ["shoota", "shoota-2", "shoota-3"] and ids[-1] == f"shoota-{MAX_WEAPONS_PER_UNIT}"
    assert {w["model"] for w in unit["weapons"]} == {m["id"] for m in unit["models"]}  # two each


def test_weapon_and_unit_ids_skip_ids_a_name_already_took() -> None:
    """The per-name counter still skips an id another weapon's own name gave (``Shoota 2``)."""
    weapons = _weapon(b"Shoota", 3) + _weapon(b"Shoota 2", 1) + _weapon(b"Shoota", 2)
    roster = _roster(_model(1, weapons=weapons) + _model(1) + _model(1, name=b"Boy 2") + _model(1))
    units = import_roster(roster, "40k7").units
    assert [w["id"] for w in units[0]["weapons"]] == [
        "shoota",
        "shoota-2",
        "shoota-3",
        "shoota-2-2",
        "shoota-4",
        "shoota-5",
    ]
    assert [u["id"] for u in units] == ["boy", "boy-2", "boy-2-2", "boy-3"]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("12", 12),
        ("+2", None),
        ("²", None),
        ("٣", None),
        ("１２", None),
        ("9" * MAX_NUMBER_DIGITS, int("9" * MAX_NUMBER_DIGITS)),
        ("9" * (MAX_NUMBER_DIGITS + 1), None),
    ],
)
def test_small_int_reads_at_most_max_number_digits_of_0_to_9(text: str, number: int | None) -> None:
    assert values.small_int(text) == number


def test_value_readers_do_not_take_other_digits_or_endless_numbers() -> None:
    endless = "9" * 5_000  # over Python's 4,300-digit limit on int()
    assert values.first_int(f"Heavy {endless}") is None and values.first_int("Heavy 2") == 2
    assert values.target("²") is None and values.target("٣+") is None and values.target("3+") == 3
    assert values.whole(endless) == (None, False) and values.whole("D6") == (4, True)
    assert values.dice_average(f"{endless}D6") is None and values.dice_average("2D6") == 7
    assert values.inches(f'{endless}"') is None and values.inches('24"') == 24.0
    assert values.long_number(f"WS {endless}") == endless and values.long_number("WS 4") is None
    assert values.foreign_digit("3²+") == "²" and values.foreign_digit("½ 3+") is None


def test_a_weapon_name_counting_in_other_digits_is_one_weapon() -> None:
    """``2x Shoota`` is two shootas; ``²x Shoota`` (a superscript, not 0-9) is a name: one."""
    two = import_roster(_roster(_model(1, weapons=_weapon(b"2x Shoota", 1))), "40k7").units[0]
    assert len(two["weapons"]) == 2
    odd = import_roster(_roster(_model(1, weapons=_weapon("²x Shoota".encode(), 1))), "40k7").units[0]
    assert [w["name"] for w in odd["weapons"]] == ["²x Shoota"]


# --- the docs -----------------------------------------------------------------------------------


def test_the_limits_table_in_the_docs_states_the_constants() -> None:
    text = DOCS.read_text(encoding="utf-8")
    stated = {
        name: int(value.replace(",", ""))
        for name, value in re.findall(r"^\| `(MAX_[A-Z_]+)` \| ([0-9,]+) \|", text, flags=re.MULTILINE)
    }
    assert stated == {
        "MAX_ROSTER_BYTES": xmltree.MAX_ROSTER_BYTES,
        "MAX_ZIP_ENTRIES": xmltree.MAX_ZIP_ENTRIES,
        "MAX_FORCES": MAX_FORCES,
        "MAX_SELECTIONS": MAX_SELECTIONS,
        "MAX_NESTING": MAX_NESTING,
        "MAX_SELECTION_NUMBER": MAX_SELECTION_NUMBER,
        "MAX_MODELS_PER_UNIT": MAX_MODELS_PER_UNIT,
        "MAX_WEAPONS_PER_UNIT": MAX_WEAPONS_PER_UNIT,
        "MAX_MODELS": MAX_MODELS,
        "MAX_NUMBER_DIGITS": MAX_NUMBER_DIGITS,
    }


def test_weapons_that_do_not_divide_among_the_models_are_all_imported() -> None:
    """docs/roster-import.md, Weapons: five Shootas over three Boyz are five weapons, two and
    two and one (the two left over went nowhere: three were imported, with no report line)."""
    [unit] = import_roster(_roster(_model(3, weapons=_weapon(b"Shoota", 5))), "40k7").units
    per_model = Counter(w["model"] for w in unit["weapons"])
    assert sorted(per_model.values()) == [1, 2, 2] and set(per_model) == {m["id"] for m in unit["models"]}


def test_every_profile_of_one_weapon_goes_to_the_same_model() -> None:
    """docs/roster-import.md, Weapons: one missile launcher of two profiles (Krak, Frag) in a
    squad of five is carried by one model, both its profiles with it (they were split over two
    models); the next weapon of the squad goes to the next model."""
    launcher = (
        b'<selection name="Missile launcher" type="upgrade" number="1"><profiles>'
        + b"".join(
            b'<profile name="' + name + b'" typeName="Weapon"><characteristics>'
            b'<characteristic name="Range">48"</characteristic><characteristic name="Strength">'
            + strength
            + b'</characteristic><characteristic name="AP">3</characteristic>'
            b'<characteristic name="Type">Heavy 1</characteristic></characteristics></profile>'
            for name, strength in ((b"Krak missile", b"8"), (b"Frag missile", b"4"))
        )
        + b"</profiles></selection>"
    )
    [unit] = import_roster(_roster(_model(5, weapons=launcher + _weapon(b"Shoota", 1))), "40k7").units
    carriers = {w["name"]: w["model"] for w in unit["weapons"]}
    assert carriers["Krak missile"] == carriers["Frag missile"]
    assert carriers["Shoota"] != carriers["Krak missile"]


def test_units_a_match_would_refuse_are_refused_with_the_unit_and_the_value() -> None:
    """docs/roster-import.md, Limits: a unit the importer made can always be played, so a value
    beyond the match definition's limits is a refusal naming the unit and the value (it was
    imported, and the match made from it was refused later)."""
    with pytest.raises(RosterError) as refused:
        import_roster(_roster(_model(5, statline=_statline(ws=b"999999999"))), "40k7")
    message = str(refused.value)
    assert "'Boy' profile.ws: WS must be between 0 and 100 (MAX_CHARACTERISTIC), got 999999999" in message
    assert "docs/roster-import.md, Limits" in message


def test_an_army_the_deployment_cannot_fit_on_the_table_is_refused() -> None:
    """Ten mobs of a hundred (the most models a roster may hold) do not fit side a's half of the
    72 x 48 table in the importer's rows: refused, naming the first models off the table."""
    with pytest.raises(RosterError) as refused:
        import_roster(_roster(_model(100) * 10), "40k7")
    assert "off the 72 x 48 in table" in str(refused.value)
    assert "more)" in str(refused.value)


def test_a_selection_of_number_0_is_none_of_it_and_is_reported() -> None:
    """docs/roster-import.md, Models: ``number="0"`` is none of the selection - a unit of 0 models
    is no unit, a weapon of number 0 no weapon - each reported as skipped (they were read as
    one model and one weapon, with no report line)."""
    result = import_roster(
        _roster(_model(0, name=b"Nob") + _model(2, weapons=_weapon(b"Shoota", 2) + _weapon(b"Choppa", 0))),
        "40k7",
    )
    [unit] = result.units
    assert unit["name"] == "Boy" and len(unit["models"]) == 2
    assert [w["name"] for w in unit["weapons"]] == ["Shoota", "Shoota"]
    skipped = {(r.name, r.path) for r in result.report if r.level == "skipped"}
    assert ("Nob", "forces[0].selections[0]") in skipped
    assert ("Choppa", "forces[0].selections[1].selections[1]") in skipped
