"""Objective control, victory points and the winner, worked examples with fixed dice
(docs/missions.md; each test cites the edition's section)."""

from __future__ import annotations

from collections.abc import Iterable

from msgspec.structs import replace

from hulldown.match.actions import Decide, Deploy, EndPhase, Move, Reserve, RollOff
from hulldown.match.context import ApplyContext
from hulldown.match.mission_flow import after_action, end_of_game
from hulldown.match.reducer import initial_state
from hulldown.match.state import MatchState, Point, Unit
from hulldown.match.victory import VICTORY_POINTS, apply_victory
from hulldown.missions.control import control
from hulldown.missions.model import DeploymentMap, Mission, ObjectiveMarker, Scoring, Zone
from hulldown.rules.dice import FixedDice
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7
from tests.wh40k11 import builders as k11

from .driver import MATCH, Game, created

HALVES = DeploymentMap(
    id="halves",
    name="Halves",
    zones=(
        Zone("A", ((0, 0), (72, 0), (72, 24), (0, 24))),
        Zone("B", ((0, 24), (72, 24), (72, 48), (0, 48))),
    ),
)
CENTRE = ObjectiveMarker("o1", (36, 24), 3)


def custom(edition: str, **kw: object) -> Mission:
    base = Mission(
        id="test", name="Test", edition=edition, deployment=HALVES, objectives=(CENTRE,), custom=True
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def battle(edition: str, units: Iterable[Unit], mission: Mission) -> MatchState:
    """The match as the battle begins, every unit where the builder put it."""
    state = initial_state(MATCH, created(edition, tuple(units), mission))  # type: ignore[arg-type]
    assert state.mission is not None
    return replace(state, mission=replace(state.mission, step="battle", off_table={}), phase="movement")


def holder(state: MatchState) -> tuple[str | None, str]:
    found = control(state, (CENTRE,))["o1"]
    return found.holder, found.why


# ---- control ----------------------------------------------------------------------------------


def test_40k7_scoring_and_denial_vehicles_excepted() -> None:
    """40k7 rulebook, Eternal War, Controlling Objective Markers: a scoring unit within 3" holds the
    marker unless an enemy denial unit is within 3"; a vehicle neither scores nor denies."""
    tac = k7.infantry("tac", "a", [(36, 22)])
    rhino = k7.rhino("rhino", "b", 36, 26.5)
    foe = k7.infantry("foe", "b", [(38, 25.5)])
    m = custom("40k7")
    assert holder(battle("40k7", (tac, rhino), m))[0] == "a"
    who, why = holder(battle("40k7", (tac, rhino, foe), m))
    assert who is None and why.startswith("contested")
    who, why = holder(battle("40k7", (rhino,), m))
    assert who is None and "cannot score" in why
    falling = replace(tac, statuses={"falling_back": 0})
    assert holder(battle("40k7", (falling, foe), m))[0] == "b"


def test_hh3_tactical_strength_line_and_statuses() -> None:
    """hh3 Age of Darkness, Core Mission Primary Objectives: a contested marker goes to the unit
    with the higher Tactical Strength (models within 3", plus X each with Line (X)); a Pinned
    unit or a vehicle may not control; equal strengths hold nobody."""
    three = hh3.squad("three", "a", [(34, 22), (36, 22), (38, 22)])
    line = hh3.squad("line", "b", [(35, 26), (37, 26)], keywords=("line (1)",))
    m = custom("hh3")
    who, why = holder(battle("hh3", (three, line), m))
    assert who == "b" and "Tactical Strength 4 to 3" in why
    two = hh3.squad("two", "b", [(35, 26), (37, 26), (39, 26)])
    who, why = holder(battle("hh3", (three, two), m))
    assert who is None and "equal Tactical Strength 3" in why
    pinned = replace(line, statuses={"pinned": 0})
    assert holder(battle("hh3", (three, pinned), m))[0] == "a"
    tank = hh3.tank("tank", "b", 36, 26.5)
    assert holder(battle("hh3", (tank,), m))[0] is None


def test_40k11_objective_control_totals_and_battle_shock() -> None:
    """40k11 core rules, Objective Control: the side with the higher total OC within range holds
    the marker; a Battle-shocked unit counts 0; equal totals hold nobody."""
    pair = k11.infantry("pair", "a", [(35, 22), (37, 22)])  # OC 2 each: 4
    tank = k11.vehicle("tank", "b", 36, 26.5)  # OC 3
    m = custom("40k11")
    who, why = holder(battle("40k11", (pair, tank), m))
    assert who == "a" and "4 (a) to 3 (b)" in why
    shocked = replace(pair, statuses={"battle_shocked": 0})
    assert holder(battle("40k11", (shocked, tank), m))[0] == "b"
    one = k11.infantry("one", "b", [(36, 26)], keywords=("oc:4",))
    who, why = holder(battle("40k11", (pair, one), m))
    assert who is None and why.startswith("contested")


def test_40k11_17_02_objective_range_measured_to_a_frame_models_base() -> None:
    """40k11 17.02 Frame: a FRAME model's position is measured from its closest point, "not
    necessarily from its base" - hull or base, whichever is closer. A Dreadnought-like FRAME
    walker (hull 2" x 1", 100 mm base: radius 1.97") centred 4.5" from the marker along the hull's
    short axis: its hull is 4.0" away, its base 2.53" - within the 3" of Objective Control, so
    its OC 3 holds the marker (measured to the hull alone nobody held it). A model with a hull and
    a base but no FRAME keyword is measured to its base (docs/rules-notes.md, 17.02): the same
    model without FRAME holds it too; and a baseless, hull-less model is a 32 mm base
    (DEFAULT_BASE_MM of the 40k11 core), so a model centred 3.6" away is within range
    (3.6 - 0.63 = 2.97")."""
    m = custom("40k11")
    walker = k11.vehicle("walker", "b", 36, 28.5, 0.0, length=2.0, width=1.0, base_mm=100.0)
    who, why = holder(battle("40k11", (walker,), m))
    assert who == "b", why
    plain = replace(walker, keywords=("vehicle",))
    assert holder(battle("40k11", (plain,), m))[0] == "b"
    bare = k11.infantry("bare", "a", [(36, 20.4)])
    bare = replace(bare, models={k: replace(v, base_mm=None) for k, v in bare.models.items()})
    assert holder(battle("40k11", (bare,), m))[0] == "a"


# ---- scoring moments ----------------------------------------------------------------------------


def _start(game: Game, placements: dict[str, tuple[float, float]]) -> MatchState:
    """Roll off (side a wins and deploys first), deploy each unit at its builder positions."""
    state = game.act("a", RollOff(), dice=[6, 1])
    assert state.pending is not None
    game.act("a", Decide(decision=state.pending.id, choice="first"))
    for _ in range(len(placements)):
        ms = game.state.mission
        assert ms is not None and ms.deploying is not None
        uid = next(u for u in placements if u in ms.off_table and game.state.units[u].side == ms.deploying)
        unit = game.state.units[uid]
        x, y = placements[uid]
        step = 1.6
        positions = {mid: Point(x + k * step, y) for k, mid in enumerate(unit.models)}
        game.act(ms.deploying, Deploy(unit=uid, positions=positions))
    return game.state


def _end_turn(game: Game, dice_at_end: list[int] | None = None) -> MatchState:
    """End every phase of the active side's turn; the last EndPhase rolls ``dice_at_end``."""
    state = game.state
    side, player_turn = state.active, state.player_turn
    while game.state.player_turn == player_turn and not game.state.ended:
        phases_left = game.state.phase
        last = phases_left == (
            "end" if state.edition == "hh3" else "fight" if state.edition == "40k11" else "assault"
        )
        game.act(side, EndPhase(), dice=(dice_at_end or []) if last else [])
    return game.state


def test_hh3_markers_score_at_the_end_of_the_active_sides_turn_window_of_opportunity() -> None:
    """hh3 Core Mission: markers score in the Victory sub-phase of the active player's turn;
    Take and Hold, Window of Opportunity: each time a marker scores its value drops by 1 and at
    0 it is removed."""
    m = custom(
        "hh3",
        objectives=(ObjectiveMarker("o1", (36, 22), 2),),
        scoring=Scoring(objectives="end_of_own_turn", window_of_opportunity=True),
        turns=4,
    )
    a = hh3.squad("sq-a", "a", [(36, 20)])
    b = hh3.squad("sq-b", "b", [(36, 40)])
    game = Game(created("hh3", (a, b), m))
    _start(game, {"sq-a": (36, 20), "sq-b": (36, 40)})
    state = _end_turn(game)
    assert state.mission is not None and state.mission.vp == {"a": 2, "b": 0}
    assert "End of side a's turn 1: side a holds o1 (2) and scores 2 VP." in [e.text for e in state.log]
    state = _end_turn(game)  # side b holds nothing
    assert state.mission is not None and state.mission.vp == {"a": 2, "b": 0}
    state = _end_turn(game)
    assert state.mission is not None and state.mission.vp == {"a": 3, "b": 0}
    assert state.mission.values["o1"] == 0 and "o1" not in state.mission.control
    assert any("objective o1 is removed" in e.text for e in state.log)


def test_40k11_scores_from_round_two_at_most_fifteen_a_turn() -> None:
    """40k11 standard mission: from battle round 2, 5 VP per marker held at the end of one's turn,
    at most 15 a turn [decided, docs/rules-notes.md]."""
    markers = tuple(ObjectiveMarker(f"o{k}", (10 + 12 * k, 20), 5) for k in range(4))
    m = custom(
        "40k11",
        objectives=markers,
        scoring=Scoring(objectives="end_of_own_turn", from_turn=2, max_per_turn=15),
        first_turn="deployed_first",
    )
    squads = {f"s{k}": k11.infantry(f"s{k}", "a", [(10 + 12 * k, 19)]) for k in range(4)}
    foe = k11.infantry("foe", "b", [(36, 44)])
    game = Game(created("40k11", (*squads.values(), foe), m))
    _start(game, {**{uid: (10 + 12 * k, 19) for k, uid in enumerate(squads)}, "foe": (36, 44)})
    state = _end_turn(game)
    assert state.mission is not None and state.mission.vp["a"] == 0  # round 1 scores nothing
    _end_turn(game)
    state = _end_turn(game)
    assert state.mission is not None and state.mission.vp["a"] == 15
    assert any("scores 15 VP, at most 15 a turn" in e.text for e in state.log)


def _k7_game(length: str = "random_40k7") -> Game:
    m = custom(
        "40k7",
        scoring=Scoring(objectives="end_of_game", secondaries={"first_blood": 1, "linebreaker": 1}),
        game_length=length,
        turns=5,
    )
    tac = k7.infantry("tac", "a", [(36, 22)])
    raider = k7.infantry("raider", "a", [(10, 23)])
    foe = k7.infantry("foe", "b", [(60, 40)])
    game = Game(created("40k7", (tac, raider, foe), m))
    _start(game, {"tac": (36, 22), "raider": (10, 23), "foe": (60, 40)})
    state = game.state
    assert state.pending is None and state.mission is not None and state.mission.step == "battle"
    return game


def test_40k7_random_game_length_ends_on_a_2_after_turn_5_and_scores_the_end() -> None:
    """40k7 rulebook, Random Game Length: at the end of turn 5 a D6 of 3+ plays on; a 2 ends the
    game; objectives score at the end of the game; the winner by victory points."""
    game = _k7_game()
    for _turn in range(1, 6):
        _end_turn(game)
        if _turn < 5:
            _end_turn(game)
    state = _end_turn(game, dice_at_end=[2])
    texts = [e.text for e in state.log]
    assert "Turn 5 is over: the game ends." in texts
    assert "End of the game: side a holds o1 (3) and scores 3 VP." in texts
    assert state.ended and state.end_reason == VICTORY_POINTS and state.winner == "a"
    assert texts[-1] == "Final tally 3 VP to 0: side a wins."


def test_40k7_random_game_length_plays_turns_6_and_7() -> None:
    """40k7 Random Game Length: a 3 after turn 5 plays turn 6; a 4 after turn 6 plays turn 7;
    the game ends after turn 7 without a roll."""
    game = _k7_game()
    for _ in range(9):
        _end_turn(game)
    state = _end_turn(game, dice_at_end=[3])
    assert not state.ended and state.mission is not None and state.mission.last_turn == 6
    _end_turn(game)
    state = _end_turn(game, dice_at_end=[4])
    assert not state.ended and state.mission is not None and state.mission.last_turn == 7
    _end_turn(game)
    state = _end_turn(game)
    assert state.ended and "Turn 7 was the last: the game ends." in [e.text for e in state.log]


def test_40k7_random_game_length_counts_from_a_custom_missions_turns() -> None:
    """docs/missions.md, Custom missions: ``random_40k7`` plays the 40k7 rulebook's Random Game
    Length from turn ``turns``: at its end a 3+ plays one more turn, at the end of that one a 4+
    plays another, and the game ends after it without a roll."""
    m = custom("40k7", scoring=Scoring(objectives="end_of_game"), game_length="random_40k7", turns=3)
    tac = k7.infantry("tac", "a", [(36, 22)])
    foe = k7.infantry("foe", "b", [(60, 40)])
    game = Game(created("40k7", (tac, foe), m))
    _start(game, {"tac": (36, 22), "foe": (60, 40)})
    for _ in range(5):
        _end_turn(game)
    state = _end_turn(game, dice_at_end=[3])
    assert not state.ended and state.mission is not None and state.mission.last_turn == 4
    assert "Turn 3 is over: the game goes on to turn 4." in [e.text for e in state.log]
    _end_turn(game)
    state = _end_turn(game, dice_at_end=[4])
    assert not state.ended and state.mission is not None and state.mission.last_turn == 5
    _end_turn(game)
    state = _end_turn(game)
    assert state.ended and "Turn 5 was the last: the game ends." in [e.text for e in state.log]


def test_first_blood_and_linebreaker_40k7() -> None:
    """40k7 Eternal War secondaries: First Blood, 1 VP to the side that destroys the first unit of
    the game (both sides when simultaneous); Linebreaker, 1 VP for a unit in the enemy zone at the
    end of the game."""
    game = _k7_game()
    before = game.state
    assert before.mission is not None
    foe = before.units["foe"]
    killed = replace(before, units={**before.units, "foe": replace(foe, destroyed=True)})
    ctx = ApplyContext(before.seq + 1, FixedDice([]), before.log_count)
    after = after_action(before, killed, ctx)
    assert after.mission is not None and after.mission.vp["a"] == 1 and after.mission.first_blood == ("a",)
    assert [e.text for e in ctx.entries] == ["First Blood: side a scores 1 VP."]
    again = after_action(after, after, ApplyContext(after.seq + 1, FixedDice([]), after.log_count))
    assert again.mission is not None and again.mission.vp["a"] == 1
    # Linebreaker: the raider moves 6" into zone B; a fixed-length game is played to its end.
    game = _k7_game("fixed")
    game.act("a", Move(unit="raider", path=(Point(10, 29),)), dice=[])
    for _ in range(10):
        state = _end_turn(game)
    texts = [e.text for e in state.log]
    assert "Linebreaker: side a scores 1 VP." in texts and state.winner == "a"
    assert texts[-1] == "Final tally 4 VP to 0: side a wins."


def _kill(game: Game, uid: str) -> None:
    """The unit is removed as a casualty (as an attack would), in the middle of a player turn."""
    unit = game.state.units[uid]
    models = {mid: replace(m, alive=False) for mid, m in unit.models.items()}
    game.state = replace(
        game.state, units={**game.state.units, uid: replace(unit, destroyed=True, models=models)}
    )


def test_hh3_sudden_death_at_the_end_of_the_battle_turn() -> None:
    """hh3 Core Mission step 8, Sudden Death: if, at the end of any battle turn, a side has no
    models on the battlefield, the battle ends; the side that has models scores 3 VP and the
    victor is decided by the victory points scored so far (Last Man Standing is not scored).
    Until the end of the battle turn the battle goes on: side a, which wiped side b out in its
    turn, still scores its marker in its Victory sub-phase."""
    m = custom(
        "hh3",
        objectives=(ObjectiveMarker("o1", (36, 22), 2),),
        scoring=Scoring(objectives="end_of_own_turn", secondaries={"last_man_standing": 3}),
    )
    a = hh3.squad("sq-a", "a", [(36, 20)])
    b = hh3.squad("sq-b", "b", [(36, 40)])
    game = Game(created("hh3", (a, b), m))
    _start(game, {"sq-a": (36, 20), "sq-b": (36, 40)})
    _kill(game, "sq-b")
    state = _end_turn(game)
    assert not state.ended and state.mission is not None and state.mission.vp == {"a": 2, "b": 0}
    state = _end_turn(game)
    texts = [e.text for e in state.log]
    assert state.ended and state.end_reason == VICTORY_POINTS and state.winner == "a"
    assert state.mission is not None and state.mission.vp == {"a": 5, "b": 0}
    assert (
        "Sudden Death: side b has no models on the battlefield: the battle ends and side a scores 3 VP."
        in texts
    )
    assert texts[-1] == "Final tally 5 VP to 0: side a wins."
    assert not any(t.startswith("Last Man Standing") for t in texts)


def test_hh3_sudden_death_the_victor_is_decided_by_victory_points() -> None:
    """hh3 Core Mission step 8, Sudden Death: the side with models left scores 3 VP, then the
    victor is decided by victory points - a side wiped out that led by more than 3 still wins."""
    m = custom("hh3", scoring=Scoring(objectives="end_of_own_turn"))
    a = hh3.squad("sq-a", "a", [(36, 20)])
    b = hh3.squad("sq-b", "b", [(36, 40)])
    game = Game(created("hh3", (a, b), m))
    _start(game, {"sq-a": (36, 20), "sq-b": (36, 40)})
    assert game.state.mission is not None
    game.state = replace(game.state, mission=replace(game.state.mission, vp={"a": 1, "b": 5}))
    _kill(game, "sq-b")
    _end_turn(game)
    state = _end_turn(game)
    assert state.ended and state.end_reason == VICTORY_POINTS and state.winner == "b"
    assert state.mission is not None and state.mission.vp == {"a": 4, "b": 5}
    assert state.log[-1].text == "Final tally 4 VP to 5: side b wins."


def test_hh3_sudden_death_units_in_reserve_are_not_on_the_battlefield() -> None:
    """hh3 Core Mission step 8, Sudden Death: models in Reserves do not count as on the
    battlefield - a side whose last unit on the table fell ends the battle at the end of the
    battle turn, though it has a unit still to come from Reserves."""
    m = custom("hh3", scoring=Scoring(objectives="end_of_own_turn"))
    a = hh3.squad("sq-a", "a", [(36, 20)])
    b = hh3.squad("sq-b", "b", [(36, 40)])
    held = hh3.squad("sq-r", "b", [(10, 40)])
    game = Game(created("hh3", (a, b, held), m))
    state = game.act("a", RollOff(), dice=[6, 1])
    assert state.pending is not None
    game.act("a", Decide(decision=state.pending.id, choice="first"))
    game.act("a", Deploy(unit="sq-a", positions={"sq-a-1": Point(36, 20)}))
    game.act("b", Reserve(unit="sq-r"))
    state = game.act("b", Deploy(unit="sq-b", positions={"sq-b-1": Point(36, 40)}))
    assert state.mission is not None and state.mission.step == "battle"
    _kill(game, "sq-b")
    _end_turn(game)
    state = _end_turn(game)
    assert state.ended and state.winner == "a" and state.end_reason == VICTORY_POINTS
    assert state.mission is not None and state.mission.vp == {"a": 3, "b": 0}


def test_hh3_a_draw_by_victory_points() -> None:
    """hh3 Core Mission, Decide Victor: equal victory points at the end are a draw."""
    m = custom("hh3", scoring=Scoring(objectives="end_of_own_turn"))
    a = hh3.squad("sq-a", "a", [(10, 10)])
    b = hh3.squad("sq-b", "b", [(10, 40)])
    state = battle("hh3", (a, b), m)
    assert state.mission is not None
    over = replace(state, mission=replace(state.mission, vp={"a": 2, "b": 2}, over=True))
    drawn = apply_victory(over)
    assert drawn.ended and drawn.winner is None and drawn.log[-1].text == "Final tally 2 VP to 2: a draw."


def test_hh3_last_man_standing_counts_units_embarked_in_a_transport() -> None:
    """hh3 Core Mission Secondary Objectives, Last Man Standing: at the end of the battle, more
    units on the Battlefield with no Routed model than the enemy. Models embarked in a Transport
    are on the Battlefield, models in Reserves are not (Core Mission step 8, Sudden Death): side a
    has its Rhino and the squad inside it (2), side b one squad on the table and one in Reserves
    (1)."""
    m = custom("hh3", scoring=Scoring(objectives="never", secondaries={"last_man_standing": 3}))
    rhino = hh3.transport("rhino", "a", 20, 10, passengers=("inside",))
    inside = hh3.squad("inside", "a", [(20, 10)] * 2, embarked_in="rhino")
    foe = hh3.squad("foe", "b", [(20, 40)])
    held = hh3.squad("held", "b", [(40, 40)])
    state = battle("hh3", (rhino, inside, foe, held), m)
    assert state.mission is not None
    state = replace(state, mission=replace(state.mission, off_table={"held": "reserve"}))
    ctx = ApplyContext(state.seq + 1, FixedDice([]), state.log_count)
    over = end_of_game(state, ctx)
    assert over.mission is not None and over.mission.vp == {"a": 3, "b": 0}
    assert [e.text for e in ctx.entries] == ["Last Man Standing: side a has 2 units to 1: 3 VP."]


def test_40k7_linebreaker_and_control_agree_on_what_a_vehicle_is() -> None:
    """40k7 rulebook, Eternal War, Linebreaker: a scoring or denial unit in the enemy deployment
    zone at the end of the game; a vehicle is neither (Controlling Objective Markers, decided:
    ``VEHICLES_DENY_40K7``). A vehicle is a unit with Armour Values (40k7 Vehicles), whatever its
    kind: a chariot written with kind ``monster`` and armour holds no marker, nor breaks the line."""
    m = custom("40k7", scoring=Scoring(objectives="never", secondaries={"linebreaker": 1}))
    chariot = k7.vehicle("chariot", "a", 36, 26.5, kind="monster", keywords=("chariot",), base_mm=60.0)
    foe = k7.infantry("foe", "b", [(60, 44)])
    state = battle("40k7", (chariot, foe), m)
    who, why = holder(state)
    assert who is None and "cannot score" in why
    ctx = ApplyContext(state.seq + 1, FixedDice([]), state.log_count)
    over = end_of_game(state, ctx)
    assert over.mission is not None and over.mission.vp == {"a": 0, "b": 0}
    assert not any(e.text.startswith("Linebreaker") for e in ctx.entries)
