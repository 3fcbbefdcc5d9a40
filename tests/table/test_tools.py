"""The table's ruler and line-of-sight routes (docs/table.md) against numbers worked by hand.

The duel: a Predator (hull 4.5 x 3.5 in at (10, 24), heading 0) and a Rhino (same hull at
(40, 24), heading 180, so its front faces the Predator). A wall that blocks line of sight stands
at x 20-21 from y 24 to 30: seen from the Predator's centre, the upper half of the Rhino's front
edge (x 37.75, y 24 to 25.75) is behind it - a hidden share of 0.5 (40k7 Vehicles, Obscured
Targets: 25% or more is obscured; hh3 Which facing is hit draws sight the same way).
"""

from __future__ import annotations

import httpx
import msgspec
import pytest

from hulldown.client import create_match
from hulldown.match.state import Edition, Mount, Options, Point, Terrain, Unit
from tests.scenarios import duel

from ..server_process import ServerProcess

WALL = Terrain(
    id="wall-1", points=(Point(20, 24), Point(21, 24), Point(21, 30), Point(20, 30)), kinds=("blocks_los",)
)


# The duel's 40k7 vehicle types in each edition's vocabulary (docs/match-definition.md): hh3 has
# no Tank type; 40k11 units are VEHICLEs and its weapons have no mounts.
KEYWORDS = {"40k7": None, "hh3": {"tank": ()}, "40k11": {"tank": ("vehicle",), "transport": ()}}


def _in_edition(unit: Unit, edition: Edition) -> Unit:
    mapping = KEYWORDS[edition]
    if mapping is None:
        return unit
    keywords = tuple(k for word in unit.keywords for k in mapping.get(word, (word,)))
    weapons = unit.weapons
    if edition == "40k11":
        weapons = {wid: msgspec.structs.replace(w, mount=Mount()) for wid, w in unit.weapons.items()}
    return msgspec.structs.replace(unit, keywords=keywords, weapons=weapons)


def walled(edition: Edition, private: bool = False) -> object:
    request = duel(edition)
    units = tuple(_in_edition(u, edition) for u in request.scenario.units)
    scenario = msgspec.structs.replace(request.scenario, units=units, terrain=(WALL,))
    return msgspec.structs.replace(request, scenario=scenario, options=Options(private_spectators=private))


@pytest.mark.parametrize("edition", ["40k7", "hh3"])
async def test_ruler_and_sight_match_the_worked_numbers(server: ServerProcess, edition: Edition) -> None:
    created = await create_match(server.http, walled(edition))
    base = f"{server.http}/matches/{created['match_id']}"
    async with httpx.AsyncClient(timeout=10) as http:
        ruler = (await http.get(f"{base}/ruler", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
        # Hull to hull: 30 in between centres less two half lengths of 2.25 in.
        assert ruler == {
            "edition": edition,
            "seq": 1,
            "from_model": "predator-1-m",
            "to_model": "rhino-1-m",
            "distance": 25.5,
        }
        sight = (await http.get(f"{base}/sight", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
        assert sight["visible"] is True  # the lower half of the Rhino is in plain sight
        assert (sight["facing"], sight["armour"]) == ("front", 11)
        assert sight["hidden_share"] == pytest.approx(0.5, abs=0.01)
        assert sight["obscured"] is True
        assert sight["origin"] == [10.0, 24.0] and sight["distance"] == 25.5
        # From the Rhino looking back, the Predator's front is hidden the same way, mirrored:
        # the wall spans y 24-30 at 19-20 in from the Rhino, the Predator's front edge is at x 12.25.
        back = (await http.get(f"{base}/sight", params={"from": "rhino-1-m", "to": "predator-1-m"})).json()
        assert (back["facing"], back["armour"]) == ("front", 13)
        assert back["hidden_share"] == pytest.approx(0.5, abs=0.01)


async def test_forty_k_eleven_has_no_facings_and_measures_frame_hulls(server: ServerProcess) -> None:
    created = await create_match(server.http, walled("40k11"))
    base = f"{server.http}/matches/{created['match_id']}"
    async with httpx.AsyncClient(timeout=10) as http:
        ruler = (await http.get(f"{base}/ruler", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
        assert ruler["distance"] == 25.5  # baseless vehicles: hull to hull (40k11 17.02)
        sight = (await http.get(f"{base}/sight", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
        assert sight["visible"] is True
        assert (sight["facing"], sight["armour"], sight["hidden_share"], sight["obscured"]) == (
            None,
            None,
            None,
            None,
        )


async def test_tools_refuse_bad_parameters_and_keep_private_matches_private(server: ServerProcess) -> None:
    created = await create_match(server.http, walled("40k7", private=True))
    base = f"{server.http}/matches/{created['match_id']}"
    # Tokens travel in the Authorization header; a token in the query string is refused.
    auth = {"authorization": f"Bearer {created['spectator_token']}"}
    async with httpx.AsyncClient(timeout=10) as http:
        refused = await http.get(f"{base}/ruler", params={"from": "predator-1-m", "to": "rhino-1-m"})
        assert refused.status_code == 403
        ok = await http.get(
            f"{base}/ruler",
            params={"from": "predator-1-m", "to": "rhino-1-m"},
            headers=auth,
        )
        assert ok.status_code == 200
        in_query = await http.get(
            f"{base}/ruler",
            params={"from": "predator-1-m", "to": "rhino-1-m", "token": created["spectator_token"]},
        )
        assert in_query.status_code == 400 and in_query.json()["error"]["code"] == "token_in_query"
        missing = await http.get(f"{base}/sight", params={"from": "predator-1-m"}, headers=auth)
        assert missing.status_code == 400 and missing.json()["error"]["code"] == "bad_parameter"
        ghost = await http.get(f"{base}/sight", params={"from": "ghost", "to": "rhino-1-m"}, headers=auth)
        assert ghost.status_code == 404 and ghost.json()["error"]["code"] == "unknown_model"
        weapon = await http.get(
            f"{base}/sight",
            params={"from": "predator-1-m", "to": "rhino-1-m", "weapon": "nope"},
            headers=auth,
        )
        assert weapon.status_code == 404 and weapon.json()["error"]["code"] == "unknown_weapon"
        late = await http.get(
            f"{base}/ruler", params={"from": "predator-1-m", "to": "rhino-1-m", "at": 9}, headers=auth
        )
        assert late.status_code == 404 and late.json()["error"]["code"] == "unknown_seq"


async def test_hh3_sight_across_a_diagonal_names_both_facings(server: ServerProcess) -> None:
    """hh3 Vehicles, Which facing is hit: a shooter whose base lies across the tank's front-left
    diagonal sees two facings and the tank's owner chooses; the tool names both and reports the
    better armoured."""
    from hulldown.match.scenario import CreateMatch, Scenario
    from tests.hh3.builders import squad, tank, weapon

    shooters = squad("s", "a", [(25.0, 33.0)], gun=weapon("las", strength=9, rng=48))
    target = tank("t", "b", 40.0, 24.0, 180.0, armour=(13, 12, 10))
    created = await create_match(
        server.http,
        CreateMatch(edition="hh3", scenario=Scenario(units=(shooters, target)), options=Options()),
    )
    base = f"{server.http}/matches/{created['match_id']}"
    async with httpx.AsyncClient(timeout=10) as http:
        sight = (await http.get(f"{base}/sight", params={"from": "s-1", "to": "t-m"})).json()
        assert sight["facings"] == ["front", "side"] and (sight["facing"], sight["armour"]) == ("front", 13)
        straight = (
            await http.get(f"{base}/sight", params={"from": "s-1", "to": "t-m", "weapon": "s-1-gun"})
        ).json()
        assert straight["facings"] == sight["facings"]
