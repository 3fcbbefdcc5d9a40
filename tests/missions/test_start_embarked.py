"""Set-up: a unit starts embarked (docs/missions.md "Set-up, as actions"): in the deployment
step an ``embark`` puts a unit still to deploy into a transport of its side still to deploy; the
transport's deployment (or reserve) takes it along. Refusals name the rule.

40k7 Vehicles, Transports: an Infantry unit, one per transport, within the Transport Capacity.
"""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Deploy, Embark, Reserve
from hulldown.match.state import Edition, Side
from hulldown.missions.model import Scoring
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7
from tests.wh40k11 import builders as k11

from .driver import Game, created
from .test_scoring import custom
from .test_setup import _to_deploy, at


def _game(edition: Edition = "40k7") -> Game:
    """Side a: a Rhino (10 places), a Razorback (2 places), a three-man squad and a Predator;
    side b: a foe. Rolled off: side a deploys first."""
    m = custom(edition, scoring=Scoring(objectives="never"), turns=5)
    units = (
        k7.rhino("rh", "a", 10, 5),
        k7.rhino("rz", "a", 20, 5, capacity=2, name="Razorback"),
        k7.infantry("sq", "a", [(30, 5), (31.5, 5), (33, 5)]),
        k7.predator("pr", "a", 40, 5),
        k7.infantry("foe", "b", [(36, 40)]),
    )
    game = Game(created(edition, units, m))
    _to_deploy(game)
    return game


def test_a_squad_starts_embarked_and_is_deployed_with_its_transport() -> None:
    game = _game()
    state = game.act("a", Embark(unit="sq", transport="rh"))
    assert state.units["sq"].embarked_in == "rh" and state.units["rh"].passengers == ("sq",)
    assert state.mission is not None and state.mission.off_table["sq"] == "undeployed"
    assert state.mission.deploying == "a"
    assert "starts embarked in Rhino" in state.log[-1].text
    refused = game.check("a", Deploy(unit="sq", positions=at(state.units["sq"], (30, 5), (31.5, 5), (33, 5))))
    assert refused is not None and refused.code == "deploys_with_transport"
    state = game.act("a", Deploy(unit="rh", positions=at(state.units["rh"], (10, 5))))
    assert state.mission is not None and "sq" not in state.mission.off_table
    assert state.units["sq"].embarked_in == "rh"
    assert game.folded() == game.state


def test_a_squad_started_embarked_goes_into_reserve_with_its_transport() -> None:
    game = _game()
    game.act("a", Embark(unit="sq", transport="rh"))
    state = game.act("a", Reserve(unit="rh"))
    assert state.mission is not None and state.mission.off_table["sq"] == "reserve"


def test_who_may_not_start_embarked() -> None:
    game = _game()
    cases: dict[str, tuple[Side, Embark]] = {
        "over_capacity": ("a", Embark(unit="sq", transport="rz")),
        "not_infantry": ("a", Embark(unit="pr", transport="rh")),
        "not_a_transport": ("a", Embark(unit="sq", transport="pr")),
        "unknown_transport": ("a", Embark(unit="sq", transport="foe")),
        "not_your_turn": ("b", Embark(unit="foe", transport="rh")),
    }
    for code, (side, action) in cases.items():
        refused = game.check(side, action)
        assert refused is not None and refused.code == code, (code, refused)
        assert refused.rule, code
    game.act("a", Deploy(unit="rh", positions=at(game.state.units["rh"], (10, 5))))
    refused = game.check("a", Embark(unit="sq", transport="rh"))
    assert refused is not None and refused.code == "transport_deployed"
    assert refused.rule == "40k7 rulebook, Deployment"


def test_40k11_start_embarked_in_set_up() -> None:
    """40k11 core rules, Transports: a unit may start embarked (who fits: INFANTRY, capacity);
    the 40k7 builders' squad has no INFANTRY keyword and is refused, a 40k11 one gets in."""
    m = custom("40k11", scoring=Scoring(objectives="never"), turns=5)
    trukk = k11.vehicle("tk", "a", 10, 5, keywords=("vehicle", "frame", "transport"))
    trukk = replace(trukk, profile=replace(trukk.profile, capacity=12))
    units = (
        trukk,
        k11.infantry("boyz", "a", [(30, 5), (31.5, 5), (33, 5)]),
        k7.infantry("sq", "a", [(30, 9), (31.5, 9)]),
        k11.infantry("foe", "b", [(36, 40)]),
    )
    game = Game(created("40k11", units, m))
    _to_deploy(game)
    refused = game.check("a", Embark(unit="sq", transport="tk"))
    assert refused is not None and refused.code == "cannot_embark"
    state = game.act("a", Embark(unit="boyz", transport="tk"))
    assert state.units["boyz"].embarked_in == "tk" and state.units["tk"].passengers == ("boyz",)


def test_hh3_who_may_get_in_at_set_up() -> None:
    """hh3 Transport sub-type, Who can get in: of the transport's Faction, one unit at a time."""
    m = custom("hh3", scoring=Scoring(objectives="never"), turns=4)
    units = (
        hh3.transport("rh", "a", 10, 5),
        hh3.transport("other", "a", 20, 5, faction="Another Legion"),
        hh3.squad("sq", "a", [(30, 5), (32, 5)]),
        hh3.squad("sq2", "a", [(40, 5), (42, 5)]),
        hh3.squad("foe", "b", [(36, 40)]),
    )
    game = Game(created("hh3", units, m))
    _to_deploy(game)
    refused = game.check("a", Embark(unit="sq", transport="other"))
    assert refused is not None and refused.code == "wrong_faction"
    state = game.act("a", Embark(unit="sq", transport="rh"))
    assert state.units["sq"].embarked_in == "rh"
    refused = game.check("a", Embark(unit="sq2", transport="rh"))
    assert refused is not None and refused.code == "transport_occupied"
