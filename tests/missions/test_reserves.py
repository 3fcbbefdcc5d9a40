"""Reserves worked examples with fixed dice (docs/missions.md): reserve rolls, arrival from one's
own table edge, 40k7 Deep Strike scatter and mishap, a 40k7 Flyer coming back."""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from hulldown.match.actions import (
    Charge,
    Decide,
    DeepStrike,
    Deploy,
    Disembark,
    EndPhase,
    Fire,
    Move,
    Pivot,
    Reserve,
    Shoot,
)
from hulldown.match.state import Edition, MatchState, Point, Unit
from hulldown.missions.model import Scoring
from hulldown.rules.wh40k7.speed import shooting_speed, speed_of
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7
from tests.wh40k11 import builders as k11

from .driver import Game, created, standard
from .test_scoring import _end_turn, custom
from .test_setup import _to_deploy, at


def _game() -> Game:
    """40k7 on two halves (side a: y <= 24, its own edge y = 0): tac on the table, res and the
    Deep Striking ds in reserve, the foe across the table."""
    m = custom("40k7", scoring=Scoring(objectives="never"), turns=5)
    tac = k7.infantry("tac", "a", [(10, 5)])
    res = k7.infantry("res", "a", [(20, 5), (22, 5)])
    ds = k7.infantry("ds", "a", [(30, 5), (32, 5)], keywords=("deep_strike",))
    foe = k7.infantry("foe", "b", [(36, 40)])
    game = Game(created("40k7", (tac, res, ds, foe), m))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    game.act("a", Reserve(unit="res"))
    game.act("a", Reserve(unit="ds"))
    game.act("b", Deploy(unit="foe", positions=at(foe, (36, 40))))
    return game


def _to_turn_2(game: Game, dice: list[int]) -> MatchState:
    _end_turn(game)  # side a, turn 1
    return _end_turn(game, dice_at_end=dice)  # side b ends turn 1: side a rolls for its reserves


def test_reserve_rolls_from_turn_2_and_arrival_from_ones_own_edge() -> None:
    """40k7 rulebook, Reserves: from turn 2, a D6 of 3+ at the start of its owner's turn; the unit
    moves on from its own table edge in the Movement phase."""
    game = _game()
    state = _to_turn_2(game, [2, 3])  # ds (sorted first) waits on a 2, res arrives on a 3
    assert state.turn == 2 and state.active == "a" and state.mission is not None
    assert state.mission.off_table == {"ds": "reserve", "res": "arriving"}
    texts = [e.text for e in state.log]
    assert "ds stays in reserve." in texts and "res passes its reserve roll: it arrives this turn." in texts
    res = state.units["res"]
    far = game.check("a", Deploy(unit="res", positions=at(res, (20, 10), (22, 10))))
    assert far is not None and far.code == "not_from_own_edge" and far.values["depth"] == 6.0
    state = game.act("a", Deploy(unit="res", positions=at(res, (20, 4), (22, 4))))
    assert state.mission is not None and "res" not in state.mission.off_table
    assert "reserves" not in state.units["res"].statuses
    assert state.log[-1].text == "res arrives from reserve."


def test_a_unit_in_reserve_can_not_be_moved_or_placed_before_it_arrives() -> None:
    game = _game()
    state = _to_turn_2(game, [2, 2])
    res = state.units["res"]
    refused = game.check("a", Deploy(unit="res", positions=at(res, (20, 4), (22, 4))))
    assert refused is not None and refused.code == "not_in_setup"
    game.act("a", EndPhase(), dice=[])
    late = game.check("a", Deploy(unit="res", positions=at(res, (20, 4), (22, 4))))
    assert late is not None and late.code in ("not_in_setup", "not_movement_phase")


def test_deep_strike_on_a_hit_lands_where_aimed_and_otherwise_scatters() -> None:
    """40k7 rulebook, Deep Strike: the scatter die's hit (1-2 here) means no scatter; otherwise
    the unit scatters 2D6" (3 + 4 = 7") in the direction the two direction dice give (1, 1: 0
    degrees, +x)."""
    game = _game()
    _to_turn_2(game, [3, 1])  # ds arrives on a 3; res waits
    state = game.act("a", DeepStrike(unit="ds", at=Point(36, 20)), dice=[1])
    assert state.units["ds"].models["ds-0"].pos == Point(36, 20)
    assert "ds Deep Strikes and lands at (36.0, 20.0)." in state.log[-1].text
    game = _game()
    _to_turn_2(game, [3, 1])
    state = game.act("a", DeepStrike(unit="ds", at=Point(36, 20)), dice=[5, 3, 4, 1, 1])
    assert state.units["ds"].models["ds-0"].pos == Point(43, 20)
    assert state.mission is not None and "ds" not in state.mission.off_table


def test_deep_strike_mishap_destroys_or_delays() -> None:
    """40k7 Deep Strike Mishap: a model off the table is a Mishap; on the table D6 1-2 the unit
    is destroyed, 3-6 it goes back to Ongoing Reserves [decided, docs/rules-notes.md]."""
    game = _game()
    _to_turn_2(game, [3, 1])
    state = game.act("a", DeepStrike(unit="ds", at=Point(70, 20)), dice=[5, 3, 3, 1, 1, 1])
    assert state.units["ds"].destroyed and "a Mishap! The unit is destroyed." in state.log[-1].text
    game = _game()
    _to_turn_2(game, [3, 1])
    state = game.act("a", DeepStrike(unit="ds", at=Point(70, 20)), dice=[5, 3, 3, 1, 1, 5])
    assert not state.units["ds"].destroyed and state.mission is not None
    assert state.mission.off_table["ds"] == "reserve"
    refused = game.check("a", DeepStrike(unit="res", at=Point(36, 20)))
    assert refused is not None and refused.code == "not_arriving"


def test_a_unit_that_deep_struck_does_not_move_or_charge_that_turn() -> None:
    """40k7 rulebook, Deep Strike: in the Movement phase they arrive, Deep Striking units may not
    move any further; they count as having moved; in that turn's Assault phase they cannot
    charge. ds lands where aimed (a hit, 1); its move and its charge were allowed."""
    game = _game()
    _to_turn_2(game, [3, 1])
    state = game.act("a", DeepStrike(unit="ds", at=Point(36, 30)), dice=[1])
    refused = game.check("a", Move(unit="ds", path=(Point(36, 31),)))
    assert (
        refused is not None and refused.code == "deep_struck" and refused.rule == "40k7 rulebook, Deep Strike"
    )
    assert game.check("a", Move(unit="tac", path=(Point(10, 6),))) is None  # the others move
    assert state.phase == "movement"
    for _ in range(3):  # movement, psychic (passed by a side with no Psyker), shooting
        state = game.act("a", EndPhase(), dice=[])
        if state.phase == "assault":
            break
    assert state.phase == "assault"
    charge = game.check("a", Charge(unit="ds", target="foe"))
    assert charge is not None and charge.code == "cannot_charge" and charge.values["reason"] == "deep_struck"


def test_a_vehicle_that_deep_struck_counts_as_moving_at_combat_speed() -> None:
    """40k7 rulebook, Deep Strike: vehicles (Walkers aside) count as having moved at Combat Speed
    the turn they arrive: one weapon at full BS (40k7 Vehicles and Shooting). It counted as
    Stationary. A pivot, which is not moving, stays allowed (it faces the vehicle it landed)."""
    speeder = k7.vehicle("ls", "a", 30, 5, keywords=("deep_strike", "fast", "skimmer"))
    m = custom("40k7", scoring=Scoring(objectives="never"), turns=5)
    tac = k7.infantry("tac", "a", [(10, 5)])
    foe = k7.infantry("foe", "b", [(36, 40)])
    game = Game(created("40k7", (tac, speeder, foe), m))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    game.act("a", Reserve(unit="ls"))
    game.act("b", Deploy(unit="foe", positions=at(foe, (36, 40))))
    _to_turn_2(game, [3])
    state = game.act("a", DeepStrike(unit="ls", at=Point(36, 25)), dice=[1])
    assert speed_of(state.units["ls"]) == "combat" and shooting_speed(state.units["ls"]) == "combat"
    assert game.check("a", Pivot(unit="ls", heading=90.0)) is None
    refused = game.check("a", Move(unit="ls", path=(Point(36, 27),)))
    assert refused is not None and refused.code == "deep_struck"


def _transport_in_reserve(transport: Unit, passengers: Unit) -> Game:
    """40k7, five turns: side a deploys a squad and holds ``transport`` (with ``passengers``
    inside) in reserve, side b deploys a foe across the table."""
    m = custom("40k7", scoring=Scoring(objectives="never"), turns=5)
    tac = k7.infantry("tac", "a", [(10, 5)])
    foe = k7.infantry("foe", "b", [(36, 40)])
    game = Game(created("40k7", (tac, transport, passengers, foe), m))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    game.act("a", Reserve(unit=transport.id))
    game.act("b", Deploy(unit="foe", positions=at(foe, (36, 40))))
    return game


def test_a_drop_pod_destroyed_by_a_mishap_takes_its_passengers() -> None:
    """40k7 Deep Strike Mishap, 1-2 destroyed, on a Transport with a squad inside: the squad is
    destroyed with it [decided, docs/rules-notes.md]. It stayed in reserve for ever, embarked in
    a wreck that never arrives, and kept its side from ever being annihilated (found by fuzzing)."""
    pod = replace(
        k7.vehicle(
            "pod", "a", 30, 5, keywords=("transport", "deep_strike", "open-topped"), capacity=10,
            access=("left", "right", "front", "rear"),
        ),
        passengers=("sq",),
    )  # fmt: skip
    sq = replace(k7.infantry("sq", "a", [(30, 5)] * 3), embarked_in="pod")
    game = _transport_in_reserve(pod, sq)
    _to_turn_2(game, [3])
    # On top of the foe: the scatter die hits (1), within 1" of an enemy: a Mishap, and a 1.
    state = game.act("a", DeepStrike(unit="pod", at=Point(36, 40)), dice=[1, 1])
    assert "a Mishap! The unit is destroyed, and sq inside it." in state.log[-1].text
    assert state.units["pod"].destroyed and state.units["sq"].destroyed
    assert not any(model.alive for model in state.units["sq"].models.values())
    assert state.mission is not None and state.mission.off_table == {}


def test_a_40k7_flyer_that_left_the_table_comes_back() -> None:
    """40k7 rulebook, Flyers: a Flyer that leaves combat airspace enters Ongoing Reserves (the
    movement rule gives it the reserves status); it rolls for reserves again and comes back on
    from its own edge."""
    m = custom("40k7", scoring=Scoring(objectives="never"), turns=5)
    tac = k7.infantry("tac", "a", [(10, 5)])
    jet = k7.flyer("jet", "a", 40, 5)
    foe = k7.infantry("foe", "b", [(36, 40)])
    game = Game(created("40k7", (tac, jet, foe), m))
    _to_deploy(game)
    game.act("a", Reserve(unit="jet"))
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    game.act("b", Deploy(unit="foe", positions=at(foe, (36, 40))))
    _to_turn_2(game, [4])
    hull = next(iter(jet.models))
    state = game.act("a", Deploy(unit="jet", positions={hull: Point(60, 5)}, heading=0.0))
    assert state.mission is not None and "jet" not in state.mission.off_table
    state = game.act("a", Move(unit="jet", path=(Point(82, 5),)), dice=[])
    assert state.mission is not None and state.mission.off_table == {"jet": "reserve"}
    assert state.units["jet"].models[hull].pos.x < 0 and "Ongoing Reserves" in state.log[-1].text
    game.act("a", EndPhase(), dice=[])
    refused = game.check("a", Shoot(unit="tac", fire=(Fire(weapon="x", target="jet"),)))
    assert refused is not None and refused.code == "not_on_table"
    _end_turn(game)  # side a, turn 2
    state = _end_turn(game, dice_at_end=[3])  # side b ends turn 2: the jet passes its roll
    assert state.turn == 3 and state.mission is not None and state.mission.off_table == {"jet": "arriving"}
    state = game.act("a", Deploy(unit="jet", positions={hull: Point(60, 5)}, heading=0.0))
    assert state.mission is not None and state.mission.off_table == {}
    assert "reserves" not in state.units["jet"].statuses


def test_a_transport_arriving_from_reserve_brings_its_passengers_who_may_then_disembark() -> None:
    """40k7 rulebook, Reserves: a transport and the unit embarked in it are held in reserve
    together and arrive together; once the Rhino is on the table its passengers are no longer in
    reserve (they were kept so, and the mission put them back off the table, so they could never
    get out)."""
    rhino = replace(k7.rhino("rh", "a", 30, 5, 90), passengers=("pas",))
    pas = replace(k7.infantry("pas", "a", [(30, 5), (30, 5)]), embarked_in="rh")
    game = _transport_in_reserve(rhino, pas)
    state = _to_turn_2(game, [6])
    assert state.mission is not None and state.mission.off_table == {"rh": "arriving", "pas": "reserve"}
    state = game.act("a", Deploy(unit="rh", positions={"rh-m": Point(30, 4)}, heading=90.0))
    assert state.mission is not None and state.mission.off_table == {}
    assert "reserves" not in state.units["pas"].statuses
    assert state.units["pas"].embarked_in == "rh"
    out = {"pas-0": Point(27.75, 6.25), "pas-1": Point(28.66, 6.76)}
    assert game.check("a", Disembark(unit="pas", positions=out)) is None
    state = game.act("a", Disembark(unit="pas", positions=out))
    assert state.units["pas"].embarked_in is None and state.mission is not None
    assert "pas" not in state.mission.off_table


def test_a_40k7_unit_that_arrives_but_is_not_placed_goes_back_into_reserve() -> None:
    """40k7 rulebook, Reserves, Arriving from Reserve: a unit that passes its Reserve Roll arrives
    this turn - every arriving unit is moved onto the table before any other unit moves. One not
    placed by the end of its side's Movement phase does not wait on the table edge for a later
    turn: it goes back into Reserve and rolls again next turn [decided,
    ``UNPLACED_ARRIVAL_BACK_TO_RESERVE``, docs/rules-notes.md]."""
    game = _game()
    state = _to_turn_2(game, [2, 3])  # ds waits, res arrives
    assert state.mission is not None and state.mission.off_table["res"] == "arriving"
    state = game.act("a", EndPhase(), dice=[])  # the Movement phase ends: res was not placed
    assert state.mission is not None and state.mission.off_table == {"ds": "reserve", "res": "reserve"}
    assert "res was not placed this turn: it goes back into reserve." in [e.text for e in state.log]
    _end_turn(game)  # the rest of side a's turn 2
    state = _end_turn(game, dice_at_end=[1, 2])  # side b ends turn 2: both of side a's units wait
    assert state.turn == 3 and state.mission is not None
    assert state.mission.off_table == {"ds": "reserve", "res": "reserve"}
    res = state.units["res"]
    refused = game.check("a", Deploy(unit="res", positions=at(res, (20, 4), (22, 4))))
    assert refused is not None and refused.code == "not_in_setup"


def _one_unit_in_reserve(edition: Edition, infantry: Callable[..., Unit], turns: int) -> tuple[Game, Unit]:
    """Side a deploys ``tac`` and holds ``res`` (two models) in reserve, side b deploys ``foe``:
    the battle starts, side a to play."""
    m = custom(edition, scoring=Scoring(objectives="never"), turns=turns)
    tac = infantry("tac", "a", [(10, 5)])
    res = infantry("res", "a", [(20, 5), (22, 5)])
    foe = infantry("foe", "b", [(36, 40)])
    game = Game(created(edition, (tac, res, foe), m))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 5))))
    game.act("a", Reserve(unit="res"))
    state = game.act("b", Deploy(unit="foe", positions=at(foe, (36, 40))))
    assert state.mission is not None and state.mission.step == "battle" and state.active == "a"
    return game, res


def test_a_40k11_unit_not_set_up_from_strategic_reserves_stays_in_them() -> None:
    """40k11 core rules, Strategic Reserves: from battle round 2 a unit in reserve may arrive, set
    up in its side's Movement phase within 6" of an edge its zone touches and more than 9" from
    every enemy model - a choice, no roll. One not set up in that Movement phase stays in
    Strategic Reserves and may arrive in a later one [``UNPLACED_ARRIVAL_BACK_TO_RESERVE``].
    Before, it stayed "arriving" for the rest of the game, its status still "reserves"."""
    game, res = _one_unit_in_reserve("40k11", k11.infantry, turns=5)
    _end_turn(game)  # side a, round 1: nothing arrives
    state = _end_turn(game)  # side b, round 1
    assert state.turn == 2 and state.active == "a" and state.mission is not None
    assert state.mission.off_table == {"res": "arriving"}
    assert "res may arrive from Strategic Reserves this turn (Movement phase)." in [e.text for e in state.log]
    game.act("a", EndPhase())  # the Command phase
    state = game.act("a", EndPhase())  # the Movement phase ends: res was not set up
    assert state.phase == "shooting" and state.mission is not None
    assert state.mission.off_table == {"res": "reserve"}
    assert "reserves" in state.units["res"].statuses
    assert "res was not set up this turn: it stays in Strategic Reserves." in [e.text for e in state.log]
    _end_turn(game)  # the rest of side a's round 2
    state = _end_turn(game)  # side b, round 2
    assert state.turn == 3 and state.active == "a" and state.mission is not None
    assert state.mission.off_table == {"res": "arriving"}
    state = game.act("a", EndPhase())  # to the Movement phase: now it is set up
    state = game.act("a", Deploy(unit="res", positions=at(res, (20, 3), (22, 3))))
    assert state.mission is not None and "res" not in state.mission.off_table
    assert "reserves" not in state.units["res"].statuses


def test_an_hh3_unit_that_arrives_but_is_not_placed_goes_back_into_reserve() -> None:
    """hh3 Mission Special Rules, Reserves (decided as 40k7): a unit that passed its Reserves roll
    and is not placed by the end of its side's Movement phase goes back into Reserve and rolls
    again next turn [``UNPLACED_ARRIVAL_BACK_TO_RESERVE``]. Before, it stayed "arriving" - never
    rolled for again, yet placeable in any later Movement phase of its side."""
    game, _ = _one_unit_in_reserve("hh3", hh3.squad, turns=4)
    _end_turn(game)  # side a, turn 1
    state = _end_turn(game, dice_at_end=[3])  # side b ends turn 1: res passes its roll
    assert state.turn == 2 and state.active == "a" and state.mission is not None
    assert state.mission.off_table == {"res": "arriving"}
    while game.state.phase != "movement":
        game.act("a", EndPhase())
    state = game.act("a", EndPhase())  # the Movement phase ends: res was not placed
    assert state.mission is not None and state.mission.off_table == {"res": "reserve"}
    assert "res was not placed this turn: it goes back into reserve." in [e.text for e in state.log]
    _end_turn(game)  # the rest of side a's turn 2
    state = _end_turn(game, dice_at_end=[2])  # side b ends turn 2: res rolls again and waits
    assert state.turn == 3 and state.mission is not None
    assert state.mission.off_table == {"res": "reserve"}
    assert "res stays in reserve." in [e.text for e in state.log]


def test_an_arrival_refused_for_overlapping_a_model_cites_the_reserves_rule() -> None:
    """An arriving unit is placed as in deployment, but every refusal of the arrival cites the
    arrival rule of its edition (hh3 Mission Special Rules, Reserves; 40k7 rulebook, Reserves),
    not the deployment rule: the overlap as much as the distance from the table edge."""
    u = {
        "tac-a": hh3.squad("tac-a", "a", [(10, 6)]),
        "slow": hh3.squad("slow", "a", [(34, 6)]),
        "tac-b": hh3.squad("tac-b", "b", [(66, 37)]),
    }
    game = Game(created("hh3", u.values(), standard("hh3", "the_heart_of_battle", "dawn_of_war")))
    _to_deploy(game)
    game.act("a", Deploy(unit="tac-a", positions=at(u["tac-a"], (10, 6))))
    game.act("a", Reserve(unit="slow"))
    game.act("b", Deploy(unit="tac-b", positions=at(u["tac-b"], (66, 37))))
    pending = game.state.pending
    assert pending is not None and pending.kind == "seize_initiative"
    game.act(pending.side, Decide(decision=pending.id, choice="decline"))
    _end_turn(game)
    state = _end_turn(game, dice_at_end=[3])  # slow passes its reserve roll
    assert state.mission is not None and state.mission.off_table == {"slow": "arriving"}
    state = game.act("a", EndPhase(), dice=[])  # hh3: the Start phase, then the Movement phase
    assert state.phase == "movement"
    far = game.check("a", Deploy(unit="slow", positions=at(u["slow"], (34, 20))))
    assert far is not None and far.code == "not_from_own_edge"
    assert far.rule == "hh3 Mission Special Rules, Reserves"
    overlap = game.check("a", Deploy(unit="slow", positions=at(u["slow"], (10, 6))))
    assert overlap is not None and overlap.code == "overlapping"
    assert overlap.rule == "hh3 Mission Special Rules, Reserves"
    # 40k7 alike: res arriving on top of tac.
    game = _game()
    state = _to_turn_2(game, [2, 3])
    res = state.units["res"]
    overlap = game.check("a", Deploy(unit="res", positions=at(res, (10, 5), (22, 4))))
    assert overlap is not None and overlap.code == "overlapping"
    assert overlap.rule == "40k7 rulebook, Reserves"
