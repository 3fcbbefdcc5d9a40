"""Infiltrate, Scout and Outflank, worked examples with fixed dice (docs/missions.md; the rules
are read in match/setup_special.py). Every example plays the set-up through the history-aware
fold, and the last one folds the whole log again from nothing.

Map: 40k7 Crusade on Dawn of War, 72 x 48: zone A is y <= 12 (its table edge the south edge
y = 0), zone B is y >= 36. Side a wins the roll-off (6 to 1) and deploys first, in zone A.
"""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, Deploy, EndPhase, Reserve, RollOff
from hulldown.match.reducer import state_hash
from hulldown.match.setup_special import outflank_edges, own_table_edge
from hulldown.match.state import MatchState, Point, Unit
from hulldown.missions.model import Mission, Scoring
from tests.builders import rectangle
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7

from .driver import Game, created, standard
from .test_scoring import _end_turn, custom
from .test_setup import _to_deploy, at


def _decide(game: Game, choice: str, dice: list[int] | None = None) -> MatchState:
    pending = game.state.pending
    assert pending is not None, "no decision pending"
    return game.act(pending.side, Decide(decision=pending.id, choice=choice), dice=dice or [])


def _crusade() -> Mission:
    return standard("40k7", "crusade", "dawn_of_war")


# ---- 40k7 Infiltrate ----------------------------------------------------------------------------


def _infiltrate_game() -> tuple[Game, dict[str, Unit]]:
    u = {
        "tac": k7.infantry("tac", "a", [(10, 6)]),
        "inf-a": k7.infantry("inf-a", "a", [(60, 6)], keywords=("infiltrate",)),
        "foe": k7.infantry("foe", "b", [(36, 42)]),
        "inf-b": k7.infantry("inf-b", "b", [(50, 42)], keywords=("infiltrate",)),
    }
    wall = rectangle("wall", 4, 13, 16, 15, ("blocks_los",))
    game = Game(created("40k7", u.values(), _crusade(), (wall,)))
    _to_deploy(game)
    return game, u


def test_40k7_infiltrators_deploy_last_alternating_after_a_roll_off() -> None:
    """40k7 rulebook, Special Rules, Infiltrate: Infiltrators deploy after every other unit of
    both sides; both sides have some, so a roll-off (2 to 5: side b) and its winner chooses."""
    game, u = _infiltrate_game()
    state = game.act("a", Deploy(unit="tac", positions=at(u["tac"], (10, 6))))
    assert state.mission is not None and state.mission.deploying == "b"  # only an Infiltrator left
    early = game.check("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (60, 6))))
    assert early is not None and early.code == "not_your_turn"
    state = game.act("b", Deploy(unit="foe", positions=at(u["foe"], (36, 42))), dice=[2, 5])
    assert state.mission is not None and state.mission.step == "infiltrate_order"
    assert state.pending is not None and state.pending.side == "b"
    assert "side b wins the roll-off and chooses who goes first" in state.log[-1].text
    state = _decide(game, "first")
    assert state.mission is not None and state.mission.step == "infiltrate"
    assert state.mission.deploying == "b" and state.active == "b"


def test_40k7_infiltrate_placement_12_hidden_or_18_in_plain_sight() -> None:
    """40k7 Infiltrate: anywhere more than 12" from every enemy unit if no enemy can see it,
    else more than 18"; the unit may not charge in the first game turn."""
    game, u = _infiltrate_game()
    game.act("a", Deploy(unit="tac", positions=at(u["tac"], (10, 6))))
    game.act("b", Deploy(unit="foe", positions=at(u["foe"], (36, 42))), dice=[2, 5])
    _decide(game, "first")
    inf_b = u["inf-b"]
    close = game.check("b", Deploy(unit="inf-b", positions=at(inf_b, (10, 16))))
    assert close is not None and close.code == "infiltrate_too_close"
    assert close.rule == "40k7 rulebook, Special Rules, Infiltrate" and close.values["distance"] < 12
    seen = game.check("b", Deploy(unit="inf-b", positions=at(inf_b, (22, 18))))  # 15" away, past the wall
    assert seen is not None and seen.code == "infiltrate_in_sight" and seen.values["seen_by"] == "tac"
    assert 12 < float(seen.values["distance"]) <= 18
    # 13" from tac, behind the wall that blocks line of sight: accepted.
    state = game.act("b", Deploy(unit="inf-b", positions=at(inf_b, (10, 20))))
    assert state.mission is not None and state.mission.no_charge == {"inf-b": 2}
    assert "Side b infiltrates inf-b; it cannot charge in the first game turn." in state.log[-1].text
    # Side a's Infiltrator next: 15" from foe in plain sight is refused, 32" away is fine.
    assert state.mission.deploying == "a"
    # Set up in its own zone as a normal deployment, the Infiltrate distances do not apply
    # (10.8" from inf-b, which could see it): docs/missions.md, INFILTRATOR_MAY_DEPLOY_IN_ZONE.
    assert game.check("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (14, 10)))) is None
    half_out = game.check("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (14, 13))))
    assert half_out is not None and half_out.code == "infiltrate_too_close"
    refused = game.check("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (40, 28))))
    assert refused is not None and refused.code == "infiltrate_in_sight"
    state = game.act("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (60, 20))))
    # Every unit is down: no Scouts; side a deployed first and goes first; b may Seize.
    assert state.mission is not None and state.mission.step == "seize"
    state = _decide(game, "decline")
    assert state.mission is not None and state.mission.step == "battle"
    _end_turn(game)  # side a's player turn 1
    banned = game.check("b", Charge(unit="inf-b", target="tac"))
    assert banned is not None and banned.code == "no_charge_this_turn"
    assert banned.rule == "40k7 rulebook, Special Rules, Infiltrate and Scout"


def test_40k7_an_infiltrator_with_no_place_to_infiltrate_deploys_in_its_zone() -> None:
    """Side a's whole army is one Infiltrator, so it may not wait in reserve. Side b's two mobs of
    25 (lines in coherency across the table, one of them infiltrating first) leave no place on
    the table 12" from them: the Infiltrator is set up in its own zone instead (without it no
    action was legal for side a and the match could not go on; found by fuzzing)."""
    u = {
        "inf-a": k7.infantry("inf-a", "a", [(20, 6)], keywords=("infiltrate",)),
        "mob": k7.infantry("mob", "b", [(10 + k, 40) for k in range(25)]),
        "inf-b": k7.infantry("inf-b", "b", [(10 + k, 44) for k in range(25)], keywords=("infiltrate",)),
    }
    game = Game(created("40k7", u.values(), _crusade()))
    _to_deploy(game)  # side a deploys first, but all it has infiltrates: side b's turn
    spread = {"mob": 36.6, "inf-b": 9.0}

    def line(unit_id: str) -> dict[str, Point]:
        return {f"{unit_id}-{k}": Point(1.2 + 2.9 * k, spread[unit_id]) for k in range(25)}

    state = game.act("b", Deploy(unit="mob", positions=line("mob")), dice=[2, 5])
    assert state.mission is not None and state.mission.step == "infiltrate_order"
    state = _decide(game, "first")
    state = game.act("b", Deploy(unit="inf-b", positions=line("inf-b")))
    assert state.mission is not None and state.mission.step == "infiltrate" and state.mission.deploying == "a"
    held = game.check("a", Reserve(unit="inf-a"))
    assert held is not None and held.code == "must_deploy_one"
    assert held.rule == "docs/missions.md, Set-up, as actions"  # not an hh3 rule in a 40k7 match
    # No place on the table 12" from side b: every infiltrating placement is refused ...
    beyond_zone = [(x * 2.0 + 1, y * 2.0 + 1) for x in range(36) for y in range(24) if y * 2.0 + 1 > 12.5]
    refusals = [game.check("a", Deploy(unit="inf-a", positions=at(u["inf-a"], xy))) for xy in beyond_zone]
    assert all(r is not None for r in refusals)
    assert {r.code for r in refusals if r is not None} <= {
        "infiltrate_too_close",
        "infiltrate_in_sight",
        "overlapping",
    }
    # ... but its own zone takes it, 3" from inf-b's line.
    state = game.act("a", Deploy(unit="inf-a", positions=at(u["inf-a"], (20, 6))))
    assert state.mission is not None and state.mission.step != "infiltrate"
    assert state_hash(game.folded()) == state_hash(game.state)


# ---- 40k7 Scout ---------------------------------------------------------------------------------


def _scout_game() -> tuple[Game, dict[str, Unit]]:
    """40k7 on two halves (zone A y <= 24, zone B y >= 24), no Seize: the Scouts of side a and
    a foe across the centre line."""
    u = {
        "scouts": k7.infantry("scouts", "a", [(10, 10), (12, 10)], keywords=("scout",)),
        "speeder": replace(k7.speeder("speeder", "a", 40, 6), keywords=("fast", "skimmer", "scout")),
        "foe": k7.infantry("foe", "b", [(14, 28)]),
    }
    game = Game(created("40k7", u.values(), custom("40k7", scoring=Scoring(objectives="never"))))
    _to_deploy(game)
    game.act("a", Deploy(unit="scouts", positions=at(u["scouts"], (10, 10), (12, 10))))
    game.act("a", Deploy(unit="speeder", positions=_hull_at(u["speeder"], 40, 6), heading=90.0))
    game.act("b", Deploy(unit="foe", positions=at(u["foe"], (14, 28))))
    return game, u


def _hull_at(unit: Unit, x: float, y: float) -> dict[str, Point]:
    return {next(iter(unit.models)): Point(x, y)}


def test_40k7_scouts_redeploy_6_or_12_inches_more_than_12_from_the_enemy() -> None:
    """40k7 rulebook, Special Rules, Scout: after deployment each Scout unit may redeploy, each
    model within 6" of where it stands (Infantry) or 12" (every other type, here a Land
    Speeder), more than 12" from every enemy unit; it then may not charge in the first game
    turn. Only side a has Scouts: no roll-off, one unit at a time (by id)."""
    game, u = _scout_game()
    state = game.state
    assert state.mission is not None and state.mission.step == "scout"
    assert state.pending is not None and state.pending.kind == "scout_redeploy"
    assert state.pending.context == {"unit": "scouts"} and 'within 6"' in state.pending.prompt
    _decide(game, "redeploy")
    scouts = u["scouts"]
    far = game.check("a", Deploy(unit="scouts", positions=at(scouts, (10, 16.5), (12, 16.5))))
    assert far is not None and far.code == "scout_too_far" and far.values["reach"] == 6.0
    # 6" up to y = 16: the model at (12, 16) is 11.2" from the foe at (14, 28).
    close = game.check("a", Deploy(unit="scouts", positions=at(scouts, (10, 16), (12, 16))))
    assert close is not None and close.code == "scout_too_close" and float(close.values["distance"]) < 12
    assert close.rule == "40k7 rulebook, Special Rules, Scout"
    state = game.act("a", Deploy(unit="scouts", positions=at(scouts, (10, 14), (12, 14))))
    assert state.mission is not None and state.mission.no_charge == {"scouts": 2}
    assert state.log[-1].text == "scouts redeploys (Scout); it cannot charge in the first game turn."
    # The Land Speeder: 12" of reach.
    assert state.pending is not None and state.pending.context == {"unit": "speeder"}
    assert 'within 12"' in state.pending.prompt
    _decide(game, "redeploy")
    speeder = u["speeder"]
    too_far = game.check("a", Deploy(unit="speeder", positions=_hull_at(speeder, 40, 18.5)))
    assert too_far is not None and too_far.code == "scout_too_far" and too_far.values["reach"] == 12.0
    state = game.act("a", Deploy(unit="speeder", positions=_hull_at(speeder, 40, 18)))
    hull = next(iter(speeder.models))
    assert state.units["speeder"].models[hull].pos == Point(40, 18)
    # No Scout left: the battle begins, side a first (it deployed first).
    assert state.mission is not None and state.mission.step == "battle" and state.active == "a"
    assert state_hash(game.folded()) == state_hash(game.state)


def test_40k7_a_scout_may_stay_where_it_was_deployed() -> None:
    """40k7 Scout: the redeploy is a choice; a unit that stays may charge as usual."""
    game, _ = _scout_game()
    state = _decide(game, "stay")
    assert state.log[-1].text == "scouts stays where it was deployed."
    assert state.pending is not None and state.pending.context == {"unit": "speeder"}
    state = _decide(game, "stay")
    assert state.mission is not None and state.mission.step == "battle" and state.mission.no_charge == {}


def test_40k7_scouts_on_both_sides_roll_off_and_alternate() -> None:
    """40k7 Scout: if both sides have Scouts, a roll-off; the winner decides who redeploys first,
    then the sides alternate."""
    u = {
        "scouts": k7.infantry("scouts", "a", [(10, 6)], keywords=("scout",)),
        "more": k7.infantry("more", "a", [(20, 6)], keywords=("scout",)),
        "rangers": k7.infantry("rangers", "b", [(36, 44)], keywords=("scout",)),
    }
    game = Game(created("40k7", u.values(), _crusade()))
    _to_deploy(game)
    game.act("a", Deploy(unit="scouts", positions=at(u["scouts"], (10, 6))))
    game.act("a", Deploy(unit="more", positions=at(u["more"], (20, 6))))
    state = game.act("b", Deploy(unit="rangers", positions=at(u["rangers"], (36, 44))), dice=[1, 4])
    assert state.mission is not None and state.mission.step == "scout_order"
    assert state.pending is not None and state.pending.side == "b"
    state = _decide(game, "second")  # side b lets side a go first
    assert state.pending is not None and state.pending.context == {"unit": "more"}  # a's first, by id
    state = _decide(game, "stay")
    assert state.pending is not None and state.pending.context == {"unit": "rangers"}
    state = _decide(game, "stay")
    assert state.pending is not None and state.pending.context == {"unit": "scouts"}
    state = _decide(game, "stay")
    assert state.mission is not None and state.mission.step == "seize"


# ---- 40k7 Outflank ------------------------------------------------------------------------------


def test_40k7_outflank_edges_from_the_d6() -> None:
    """40k7 rulebook, Special Rules, Outflank: 1-2 the edge to the left of one's own table edge,
    3-4 the right, 5-6 either. Dawn of War: side a's own edge is south; looking north, its left
    is west."""
    game, _ = _infiltrate_game()
    state = game.state
    assert own_table_edge(state, "a") == "south" and own_table_edge(state, "b") == "north"
    assert [outflank_edges(state, "a", v) for v in (1, 2, 3, 4, 5, 6)] == [
        ("west",),
        ("west",),
        ("east",),
        ("east",),
        ("west", "east"),
        ("west", "east"),
    ]
    assert outflank_edges(state, "b", 1) == ("east",)


def test_40k7_an_outflanking_unit_arrives_from_the_side_edge_the_d6_gives() -> None:
    """40k7 Outflank: declared as the unit goes into Reserve; when it arrives (reserve roll 3+),
    a D6 (3: the right edge, east for side a) picks the edge it moves on from. The fold of the
    whole log equals the live state."""
    u = {
        "tac": k7.infantry("tac", "a", [(10, 6)]),
        "flank": k7.infantry("flank", "a", [(20, 6), (22, 6)], keywords=("outflank",)),
        "foe": k7.infantry("foe", "b", [(36, 44)]),
    }
    game = Game(created("40k7", u.values(), _crusade()))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(u["tac"], (10, 6))))
    state = game.act("a", Reserve(unit="flank"))
    assert state.pending is not None and state.pending.kind == "outflank"
    assert state.pending.context == {"unit": "flank"}
    state = _decide(game, "outflank")
    assert state.mission is not None and state.mission.outflanking == ("flank",)
    assert state.mission.deploying == "b"
    game.act("b", Deploy(unit="foe", positions=at(u["foe"], (36, 44))))
    _decide(game, "decline")  # Seize the Initiative
    _end_turn(game)  # side a, turn 1
    state = _end_turn(game, dice_at_end=[4, 3])  # reserve roll 4: arrives; Outflank D6 3: east
    assert state.turn == 2 and state.mission is not None
    assert state.mission.off_table == {"flank": "arriving"}
    assert state.mission.arrival_edges == {"flank": ("east",)}
    assert "flank outflanks: it comes on from the east edge." in [e.text for e in state.log]
    own = game.check("a", Deploy(unit="flank", positions=at(u["flank"], (20, 3), (22, 3))))
    assert own is not None and own.code == "not_from_flank_edge" and own.values["edges"] == "east"
    state = game.act("a", Deploy(unit="flank", positions=at(u["flank"], (69, 24), (69, 26))))
    assert state.mission is not None and "flank" not in state.mission.off_table
    assert state.mission.arrival_edges == {} and state.mission.outflanking == ()
    assert state_hash(game.folded()) == state_hash(game.state)


# ---- hh3 Infiltrate (X) and Outflank ------------------------------------------------------------


def _hh3_mission() -> Mission:
    """hh3 The Heart of Battle on Dawn of War: zone A y <= 12, zone B y >= 36."""
    return standard("hh3", "the_heart_of_battle", "dawn_of_war")


def test_hh3_infiltrate_x_deploys_outside_the_zone_x_inches_from_the_enemy() -> None:
    """hh3 Special Rules, Infiltrate (X): deployed with the other units, in its own zone or
    outside the opposing zone at least X" (12") from every enemy model; outside its zone it
    cannot charge in the first battle turn. Side a wins the roll-off and deploys second: side b
    is in zone A, side a in zone B."""
    u = {
        "tac-b": hh3.squad("tac-b", "b", [(40, 6)]),
        "tac-a": hh3.squad("tac-a", "a", [(10, 42)]),
        "seekers": hh3.squad("seekers", "a", [(20, 42), (22, 42)], keywords=("infiltrate:12",)),
        "plain": hh3.squad("plain", "a", [(30, 42)]),
    }
    game = Game(created("hh3", u.values(), _hh3_mission()))
    state = game.act("a", RollOff(), dice=[6, 1])
    assert state.pending is not None
    game.act("a", Decide(decision=state.pending.id, choice="second"))
    game.act("b", Deploy(unit="tac-b", positions=at(u["tac-b"], (40, 6))))
    game.act("a", Deploy(unit="tac-a", positions=at(u["tac-a"], (10, 42))))
    plain = game.check("a", Deploy(unit="plain", positions=at(u["plain"], (30, 24))))
    assert plain is not None and plain.code == "outside_zone"
    seekers = u["seekers"]
    near = game.check("a", Deploy(unit="seekers", positions=at(seekers, (40, 18), (42, 18))))
    assert near is not None and near.code == "infiltrate_too_close" and near.values["gap"] == 12.0
    assert near.rule == "hh3 Special Rules, Infiltrate (X)"
    inside = game.check("a", Deploy(unit="seekers", positions=at(seekers, (40, 11), (42, 11))))
    assert inside is not None and inside.code == "infiltrate_in_enemy_zone"
    state = game.act("a", Deploy(unit="seekers", positions=at(seekers, (20, 22), (22, 22))))
    assert state.mission is not None and state.mission.no_charge == {"seekers": 2}
    assert "outside its zone by Infiltrate" in state.log[-1].text
    # In its own zone an Infiltrator is deployed as usual: no charge ban.
    game.act("a", Deploy(unit="plain", positions=at(u["plain"], (30, 42))))
    assert state_hash(game.folded()) == state_hash(game.state)


def test_hh3_outflank_enters_from_any_edge_away_from_the_enemy() -> None:
    """hh3 Special Rules, Outflank: from Reserves the unit may enter from any point of the
    battlefield edge, not within the opposing zone nor within 7" of an enemy model; it may not
    charge in that player turn. A unit without Outflank comes on from its own table edge only."""
    u = {
        "tac-a": hh3.squad("tac-a", "a", [(10, 6)]),
        "flank": hh3.squad("flank", "a", [(30, 6)], keywords=("outflank",)),
        "slow": hh3.squad("slow", "a", [(34, 6)]),
        "tac-b": hh3.squad("tac-b", "b", [(66, 37)]),
    }
    game = Game(created("hh3", u.values(), _hh3_mission()))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac-a", positions=at(u["tac-a"], (10, 6))))
    game.act("a", Reserve(unit="slow"))
    state = game.act("a", Reserve(unit="flank"))
    assert state.pending is None  # hh3: no declaration, Outflank is a choice on arrival
    game.act("b", Deploy(unit="tac-b", positions=at(u["tac-b"], (66, 37))))
    _decide(game, "decline")
    _end_turn(game)
    state = _end_turn(game, dice_at_end=[3, 3])  # both pass their reserve roll (3+)
    assert state.mission is not None and state.mission.off_table == {"flank": "arriving", "slow": "arriving"}
    state = game.act("a", EndPhase(), dice=[])  # hh3: the Start phase, then the Movement phase
    assert state.phase == "movement"
    side_edge = game.check("a", Deploy(unit="slow", positions=at(u["slow"], (71, 24))))
    assert side_edge is not None and side_edge.code == "not_from_own_edge"
    flank = u["flank"]
    in_zone = game.check("a", Deploy(unit="flank", positions=at(flank, (70, 40))))
    assert in_zone is not None and in_zone.code == "outflank_in_enemy_zone"
    inland = game.check("a", Deploy(unit="flank", positions=at(flank, (46, 30))))
    assert inland is not None and inland.code == "not_from_an_edge"
    near = game.check("a", Deploy(unit="flank", positions=at(flank, (71, 31))))
    assert near is not None and near.code == "too_close_to_enemy" and near.values["gap"] == 7.0
    state = game.act("a", Deploy(unit="flank", positions=at(flank, (71, 24))))
    assert state.mission is not None and state.mission.no_charge["flank"] == state.player_turn
    banned = game.check("a", Charge(unit="flank", target="tac-b"))
    assert banned is not None and banned.code == "no_charge_this_turn"
    assert banned.rule == "hh3 Special Rules, Infiltrate (X) and Outflank"
    state = game.act("a", Deploy(unit="slow", positions=at(u["slow"], (34, 3))))
    assert state.mission is not None and "slow" not in state.mission.no_charge
    assert state_hash(game.folded()) == state_hash(game.state)
