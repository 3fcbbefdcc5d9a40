"""40k11 core rules, Deadly Demise, worked with fixed dice (docs/rules-notes.md, 40k11 Deadly
Demise).

The Trukk: a 6 x 4 in hull centred at (20, 20), heading 0 (its hull spans x 17-23, y 18-22),
1 wound left, no save, ``deadly_demise:X``. A gun of side b 20 in below shoots it: hit 4, wound 3
(S9 vs T8: 3+), no save, 3 damage - the Trukk is destroyed. Single-model units stand round it, so
each mortal wound goes on its one model.
"""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fire, Shoot
from hulldown.match.state import MatchState, Side, Unit

from .builders import infantry, rolls, state, step, take_proposal, vehicle, weapon

SHOOT = Shoot(unit="gun", fire=(Fire(weapon="rokkit", target="trukk"),))


def trukk(demise: str = "d3", *, transport: bool = False) -> Unit:
    keywords = ("vehicle", "frame", f"deadly_demise:{demise}") + (("transport",) if transport else ())
    t = vehicle("trukk", "a", 20.0, 20.0, keywords=keywords, w=1, t=8, sv=None)
    return replace(t, profile=replace(t.profile, capacity=12)) if transport else t


def nob(uid: str, side: Side, x: float, y: float, w: int = 5) -> Unit:
    """One 32 mm model (radius 0.63 in) with ``w`` wounds and no save worth taking."""
    return infantry(uid, side, [(x, y)], w=w, sv=None)


def scene(demise: str = "d3") -> MatchState:
    gun = infantry("gun", "b", [(20.0, 0.0)], weapons=(weapon("rokkit", "gun-1", rng=24, s=9, d=3),))
    # near: its base edge 5 in from the hull (x 23 + 5 + 0.63); friend: 2 in above it (side a);
    # far: 7 in from the hull (y 22 + 7 + 0.63)
    return state(
        trukk(demise),
        gun,
        nob("near", "b", 28.63, 20.0),
        nob("friend", "a", 20.0, 24.63),
        nob("far", "b", 20.0, 29.63),
        phase="shooting",
        active="b",
    )


def wounds(s: MatchState, uid: str) -> int:
    return s.units[uid].models[f"{uid}-1"].wounds


def test_a_six_inflicts_x_mortal_wounds_on_each_unit_within_6_inches() -> None:
    """40k11 core rules, Deadly Demise: the Trukk (Deadly Demise 2) is destroyed; D6 6 - each unit
    within 6" of it, friend or foe, suffers 2 mortal wounds with no save; the unit 7" away none."""
    s = step(scene("2"), SHOOT, [4, 3, 6])
    assert s.units["trukk"].destroyed
    assert wounds(s, "near") == 3 and wounds(s, "friend") == 3
    assert wounds(s, "far") == 5
    assert ("Deadly Demise", 6, "deadly demise") in rolls(s)
    texts = [e.text for e in s.log]
    assert "trukk's Deadly Demise: 6 - 2 mortal wounds to each unit within 6 in: friend, near." in texts
    assert texts.count("near suffers 1 mortal wound: near-1 has 4 wounds left.") == 1


def test_one_to_five_does_nothing() -> None:
    """40k11 core rules, Deadly Demise: on a 1-5 the destroyed model does no harm."""
    for die in (1, 5):
        s = step(scene("2"), SHOOT, [4, 3, die])
        assert s.units["trukk"].destroyed
        assert all(wounds(s, u) == 5 for u in ("near", "friend", "far"))
        assert f"trukk's Deadly Demise: {die} - no effect." in [e.text for e in s.log]


def test_a_random_x_is_rolled_for_each_unit() -> None:
    """40k11 core rules, Deadly Demise D3: on a 6, X is rolled separately for each unit within 6"
    (in unit id order: friend, near): D6 5 - 3 mortal wounds, D6 1 - 1 (a D3 is a D6 halved)."""
    s = step(scene("d3"), SHOOT, [4, 3, 6, 5, 1])
    assert wounds(s, "friend") == 2 and wounds(s, "near") == 4 and wounds(s, "far") == 5
    texts = [e.text for e in s.log]
    assert (
        "trukk's Deadly Demise: 6 - D3 mortal wounds to each unit within 6 in: friend (3), near (1)." in texts
    )


def test_a_unit_destroyed_by_it_that_has_deadly_demise_rolls_in_turn() -> None:
    """40k11 core rules, Deadly Demise [decided]: a model the mortal wounds destroy rolls for its own
    Deadly Demise: the second wreck (1 wound, Deadly Demise 1) at (28, 20) is destroyed, rolls a 6
    and hurts the unit within 6" of it (near, again) but not the Trukk, already destroyed."""
    wreck = vehicle("wreck", "a", 30.0, 26.0, keywords=("vehicle", "deadly_demise:1"), w=1, t=8, sv=None)
    s = step(state(*scene("1").units.values(), wreck, phase="shooting", active="b"), SHOOT, [4, 3, 6, 6])
    assert s.units["wreck"].destroyed
    assert wounds(s, "near") == 3
    assert "wreck's Deadly Demise: 6 - 1 mortal wound to each unit within 6 in: far, friend, near." not in [
        e.text for e in s.log
    ]
    assert any(e.text.startswith("wreck's Deadly Demise: 6 - 1 mortal wound to each unit") for e in s.log)


def test_a_transports_passengers_disembark_before_its_deadly_demise() -> None:
    """40k11 core rules, Deadly Demise: "after the units embarked within it (if any) have made their
    emergency disembark moves": the boyz are set up first (Destroyed Transport, D6 2: no mortal
    wound), then the 6 hurts them too (1 mortal wound, 1 wound each: allocated by their owner)."""
    t = replace(trukk("1", transport=True), passengers=("boyz",))
    boyz = replace(infantry("boyz", "a", [(18.0, 28.0)]), embarked_in="trukk")
    gun = infantry("gun", "b", [(20.0, 0.0)], weapons=(weapon("rokkit", "gun-1", rng=24, s=9, d=3),))
    s = step(state(t, boyz, gun, phase="shooting", active="b"), SHOOT, [4, 3])
    s = take_proposal(s, "place_emergency_disembark", [2, 6])
    texts = [e.text for e in s.log]
    demise = next(i for i, e in enumerate(texts) if e.startswith("trukk's Deadly Demise: 6"))
    assert demise > next(i for i, e in enumerate(texts) if "disembarks from the destroyed trukk" in e)
    assert "boyz" in texts[demise]
    assert s.units["boyz"].destroyed
