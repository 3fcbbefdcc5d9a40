"""Set-up worked examples with fixed dice (docs/missions.md): the roll-off, the order of
deployment, every refusal of a deployment, reserves, the first turn, Seize the Initiative, and
undo and replay across the set-up phase."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import (
    Decide,
    Deploy,
    EndPhase,
    Reserve,
    RollOff,
    TakebackAnswer,
    TakebackRequest,
    Undo,
)
from hulldown.match.history import game_hash
from hulldown.match.state import Point, Unit
from hulldown.missions.model import DeploymentMap, Mission, ObjectiveMarker, Zone
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7
from tests.wh40k11 import builders as k11

from .driver import Game, created, same, standard


def at(unit: Unit, *points: tuple[float, float]) -> dict[str, Point]:
    return {mid: Point(x, y) for mid, (x, y) in zip(unit.models, points, strict=True)}


def hh3_game() -> tuple[Game, dict[str, Unit]]:
    """hh3 The Heart of Battle on Dawn of War: zone A is y <= 12, zone B is y >= 36."""
    units = {
        "tac-a": hh3.squad("tac-a", "a", [(10, 20), (12, 20)]),
        "pred-a": hh3.tank("pred-a", "a", 30, 20),
        "tac-b": hh3.squad("tac-b", "b", [(10, 30), (12, 30)]),
    }
    terrain = (hh3.wall("rock", 40, 2, 44, 6, "impassable"), hh3.wall("bastion", 50, 2, 56, 8, level=1))
    mission = standard("hh3", "the_heart_of_battle", "dawn_of_war")
    return Game(created("hh3", units.values(), mission, terrain)), units


def test_roll_off_ties_are_rolled_again_and_every_die_is_logged() -> None:
    """hh3 Core Mission, Roll-offs: ties are re-rolled; the winner chooses the order."""
    game, _ = hh3_game()
    assert game.state.phase == "setup" and game.state.mission is not None
    state = game.act("a", RollOff(), dice=[3, 3, 2, 5])
    assert state.pending is not None and state.pending.side == "b" and state.pending.kind == "deploy_order"
    rolls = [r for e in state.log for r in e.rolls]
    assert [r.value for r in rolls] == [3, 3, 2, 5]
    assert "Side b wins the roll-off" in state.log[-1].text
    state = game.act("b", Decide(decision=state.pending.id, choice="second"))
    assert state.mission is not None
    assert (
        state.mission.zones == {"a": "A", "b": "B"} and state.mission.deploying == "a" and state.active == "a"
    )


def _to_deploy(game: Game) -> None:
    state = game.act("a", RollOff(), dice=[6, 1])
    assert state.pending is not None
    game.act("a", Decide(decision=state.pending.id, choice="first"))


def test_deployment_refusals_hh3() -> None:
    """hh3 Core Mission step 7, Deployment: within one's zone, never in Impassable Terrain, on an
    Objective or within 2" of an enemy; a vehicle never above level 0; the sides in turn."""
    game, u = hh3_game()
    _to_deploy(game)
    tac, pred = u["tac-a"], u["pred-a"]
    cases = {
        "outside_zone": Deploy(unit="tac-a", positions=at(tac, (10, 11), (12, 13))),
        "impassable_terrain": Deploy(unit="tac-a", positions=at(tac, (41, 4), (45, 4))),
        "overlapping": Deploy(unit="tac-a", positions=at(tac, (10, 6), (10.5, 6))),
        "deploy_positions": Deploy(unit="tac-a", positions={"tac-a-1": Point(10, 6)}),
    }
    for code, action in cases.items():
        refused = game.check("a", action)
        assert refused is not None and refused.code == code, (code, refused)
        assert refused.rule.startswith("hh3")
    hull = next(iter(pred.models))
    high = game.check("a", Deploy(unit="pred-a", positions={hull: Point(53, 5)}))
    assert high is not None and high.code == "vehicle_above_ground"
    out_of_turn = game.check("b", Deploy(unit="tac-b", positions=at(u["tac-b"], (10, 40), (12, 40))))
    assert out_of_turn is not None and out_of_turn.code == "not_your_turn"
    game.act("a", Deploy(unit="tac-a", positions=at(tac, (10, 11), (12, 11))))
    game.act("a", Deploy(unit="pred-a", positions={hull: Point(30, 6)}, heading=90))
    assert game.state.mission is not None and game.state.mission.deploying == "b"
    again = game.check("b", Deploy(unit="tac-a", positions=at(tac, (1, 40), (3, 40))))
    assert again is not None and again.code == "not_your_unit"


def test_too_close_to_the_enemy_and_on_an_objective_hh3() -> None:
    """hh3 Deployment: never within 2" of an enemy model, never on an Objective (a custom map
    whose zones touch, with a marker inside zone A)."""
    zones = (
        Zone("A", ((0, 0), (72, 0), (72, 24), (0, 24))),
        Zone("B", ((0, 24), (72, 24), (72, 48), (0, 48))),
    )
    mission = Mission(
        id="touching",
        name="Touching zones",
        edition="hh3",
        deployment=DeploymentMap(id="halves", name="Halves", zones=zones),
        objectives=(ObjectiveMarker("o1", (36, 12), 2),),
        enemy_gap=2.0,
        marker_clearance=16 / 25.4,
        seize=False,
        custom=True,
    )
    a = hh3.squad("sq-a", "a", [(5, 5)])
    b = hh3.squad("sq-b", "b", [(5, 40)])
    game = Game(created("hh3", (a, b), mission))
    _to_deploy(game)
    on_marker = game.check("a", Deploy(unit="sq-a", positions=at(a, (36.5, 12))))
    assert on_marker is not None and on_marker.code == "on_objective"
    game.act("a", Deploy(unit="sq-a", positions=at(a, (10, 23))))
    close = game.check("b", Deploy(unit="sq-b", positions=at(b, (10, 25.5))))
    assert close is not None and close.code == "too_close_to_enemy" and close.values["gap"] == 2.0
    state = game.act("b", Deploy(unit="sq-b", positions=at(b, (10, 27))))
    # Deployment over: side a deployed first and takes the first turn (no seize in this mission).
    assert state.mission is not None and state.mission.step == "battle"
    assert state.active == "a" and state.first == "a" and state.phase == "start" and state.turn == 1


def test_40k7_flyers_start_in_reserve_and_reserved_units_are_off_the_table() -> None:
    """40k7 rulebook, Flyers: a Flyer starts the game in Reserve; a unit in reserve is not on the
    table: it may not act and may not be targeted."""
    tac = k7.infantry("tac", "a", [(10, 5), (12, 5)])
    jet = k7.flyer("jet", "a", 40, 5)
    foe = k7.infantry("foe", "b", [(10, 44)])
    game = Game(created("40k7", (tac, jet, foe), standard("40k7", "crusade", "dawn_of_war")))
    _to_deploy(game)
    refused = game.check("a", Deploy(unit="jet", positions={next(iter(jet.models)): Point(40, 5)}))
    assert refused is not None and refused.code == "flyer_in_reserve"
    game.act("a", Reserve(unit="jet"))
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5), (12, 5))))
    state = game.act("b", Deploy(unit="foe", positions=at(foe, (10, 44))))
    assert (
        state.pending is not None and state.pending.kind == "seize_initiative" and state.pending.side == "b"
    )
    state = game.act("b", Decide(decision=state.pending.id, choice="seize"), dice=[5])
    assert state.first == "a" and state.active == "a" and "fails to seize" in state.log[-2].text
    assert state.mission is not None and state.mission.off_table == {"jet": "reserve"}
    assert "reserves" in state.units["jet"].statuses
    moved = game.check("a", Deploy(unit="tac", positions=at(tac, (10, 6), (12, 6))))
    assert moved is not None and moved.code == "not_in_setup"


def test_seize_the_initiative_on_a_six_40k7() -> None:
    """40k7 rulebook, Seize the Initiative: the side going second takes the first turn on a 6."""
    tac = k7.infantry("tac", "a", [(10, 5)])
    foe = k7.infantry("foe", "b", [(10, 44)])
    game = Game(created("40k7", (tac, foe), standard("40k7", "crusade")))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    state = game.act("b", Deploy(unit="foe", positions=at(foe, (10, 44))))
    assert state.pending is not None
    state = game.act("b", Decide(decision=state.pending.id, choice="seize"), dice=[6])
    assert state.first == "b" and state.active == "b" and state.phase == "movement"
    # The battle turn counts from the side that took the first turn.
    for _ in range(3):
        state = game.act("b", EndPhase(), dice=[])
    assert state.active == "a" and state.turn == 1
    for _ in range(3):
        state = game.act("a", EndPhase(), dice=[])
    assert state.active == "b" and state.turn == 2


def test_40k11_alternates_units_and_rolls_off_for_the_first_turn() -> None:
    """40k11 core rules, Deploy Armies: one unit at a time in turn; then a roll-off for the first
    turn (no Seize the Initiative)."""
    a1 = k11.infantry("a1", "a", [(10, 5)])
    a2 = k11.infantry("a2", "a", [(20, 5)])
    b1 = k11.infantry("b1", "b", [(10, 44)])
    game = Game(created("40k11", (a1, a2, b1), standard("40k11", "take_and_hold")))
    _to_deploy(game)
    game.act("a", Deploy(unit="a1", positions=at(a1, (10, 5))))
    assert game.state.mission is not None and game.state.mission.deploying == "b"
    game.act("b", Deploy(unit="b1", positions=at(b1, (10, 44))))
    state = game.act("a", Deploy(unit="a2", positions=at(a2, (20, 5))), dice=[2, 4])
    assert state.mission is not None and state.mission.step == "battle" and state.pending is None
    assert state.first == "b" and state.active == "b" and state.phase == "command"


def test_40k11_a_frame_model_deploys_wholly_within_its_zone_base_included() -> None:
    """40k11 Deploy Armies, wholly within the zone, measured as 17.02 Frame measures a FRAME model:
    its hull and its base (a 100 mm base, radius 1.97", past a 2" x 1" hull). Zone A is y <= 12:
    centred at y 10.6 the hull reaches 11.1 but the base 12.57, so it is not wholly within (it was
    accepted, the hull alone counted); at y 9.9 the base reaches 11.87."""
    walker = k11.vehicle("walker", "a", 20, 5, 0.0, length=2.0, width=1.0, base_mm=100.0)
    b1 = k11.infantry("b1", "b", [(10, 44)])
    game = Game(created("40k11", (walker, b1), standard("40k11", "take_and_hold")))
    _to_deploy(game)
    refused = game.check("a", Deploy(unit="walker", positions=at(walker, (20, 10.6))))
    assert refused is not None and refused.code == "outside_zone", refused
    assert game.check("a", Deploy(unit="walker", positions=at(walker, (20, 9.9)))) is None


def test_embarked_units_deploy_with_their_transport_and_one_unit_must_be_deployed() -> None:
    """hh3 Deployment: units may be deployed embarked on a transport; Declare Mission Reserves:
    every side deploys at least one unit."""
    rhino = hh3.transport("rhino", "a", 20, 5, passengers=("tac",))
    tac = hh3.squad("tac", "a", [(20, 5)], embarked_in="rhino")
    foe = hh3.squad("foe", "b", [(20, 44)])
    game = Game(created("hh3", (rhino, tac, foe), standard("hh3", "take_and_hold", "dawn_of_war")))
    _to_deploy(game)
    refused = game.check("a", Deploy(unit="tac", positions=at(tac, (20, 5))))
    assert refused is not None and refused.code == "deploys_with_transport"
    last = game.check("a", Reserve(unit="rhino"))
    assert last is not None and last.code == "must_deploy_one"
    assert last.rule == "hh3 Age of Darkness, Declare Mission Reserves"
    state = game.act(
        "a", Deploy(unit="rhino", positions={next(iter(rhino.models)): Point(20, 5)}, heading=90)
    )
    assert "with tac embarked" in state.log[-1].text
    assert state.mission is not None and "tac" not in state.mission.off_table


def test_undo_and_takeback_across_set_up_restore_the_exact_state() -> None:
    """An undo of a deployment restores the state before it; a takeback to before the roll-off
    restores the start of set-up; the whole log folds again to the live state."""
    game, u = hh3_game()
    start = game.state
    _to_deploy(game)
    before = game.state
    game.act("a", Deploy(unit="tac-a", positions=at(u["tac-a"], (10, 11), (12, 11))))
    state = game.act("a", Undo())
    assert game_hash(state) == game_hash(before)
    assert state.mission is not None and "tac-a" in state.mission.off_table
    request = game.act("a", TakebackRequest(to_seq=1))
    assert request.takeback
    state = game.act("b", TakebackAnswer(grant=True))
    assert (
        game_hash(state) == game_hash(start)
        and state.mission is not None
        and state.mission.step == "roll_off"
    )
    game.act("a", RollOff(), dice=[1, 6])
    assert same(game.folded(), game.state)


def test_actions_outside_set_up_are_refused_while_it_lasts() -> None:
    game, _ = hh3_game()
    refused = game.check("a", EndPhase())
    assert refused is not None and refused.code == "in_setup" and refused.values["step"] == "roll_off"
    plain = Game(
        replace(
            created("hh3", (hh3.squad("s", "a", [(5, 5)]),), standard("hh3", "take_and_hold")), mission=None
        )
    )
    refused = plain.check("a", RollOff())
    assert refused is not None and refused.code == "not_in_setup"
    assert plain.check("a", EndPhase()) is None
