"""40k11 17.03 / 17.03.01: the worked example (Engaged Monsters/Vehicles - Shooting) as acceptance tests.

One Vehicle (side a) is engaged with Infantry unit B (side b); Infantry unit A (side b) is not
engaged. Unit C (side a) is an unengaged bystander for the [BLAST] cases.
"""

from __future__ import annotations

from hulldown.match.actions import Fire, Shoot
from hulldown.match.rejection import Rejection
from hulldown.match.state import MatchState
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k11.shooting import FirePlan, plan_shoot
from hulldown.rules.wh40k11.space import engaged_with

from .builders import check, infantry, rolls, state, step, take_proposal, vehicle, weapon


def scene(active: str) -> MatchState:
    v = vehicle(
        "vehicle",
        "a",
        20,
        24,
        weapons=(
            weapon("cannon", "vehicle-m", rng=48, s=8, ap=1, d=3),
            weapon("flamer", "vehicle-m", rng=12, s=5, rules=("close_quarters",)),
            weapon("battle_cannon", "vehicle-m", rng=48, s=9, ap=2, d=3, rules=("blast",)),
        ),
    )
    # B's model is 1" from the vehicle's hull (17.02: measured to the hull).
    b = infantry(
        "B",
        "b",
        [(24.63, 24)],
        weapons=(
            weapon("b_rifle", "B-1"),
            weapon("b_pistol", "B-1", rng=12, rules=("close_quarters",)),
            weapon("b_grenade", "B-1", rng=8, s=6, rules=("blast", "close_quarters")),
        ),
    )
    a = infantry(
        "A",
        "b",
        [(32, 24), (32, 26)],
        weapons=(
            weapon("a_rifle", "A-1"),
            weapon("a_pistol", "A-1", rng=12, rules=("close_quarters",)),
            weapon("a_launcher", "A-2", rng=48, s=6, rules=("blast",)),
        ),
    )
    c = infantry("C", "a", [(32, 40)])
    return state(v, b, a, c, phase="shooting", active=active)  # type: ignore[arg-type]


def plans(s: MatchState, unit: str, *fires: tuple[str, str]) -> list[FirePlan]:
    result = plan_shoot(s, Shoot(unit=unit, fire=tuple(Fire(weapon=w, target=t) for w, t in fires)))
    assert not isinstance(result, Rejection), result
    return result


def refused(s: MatchState, unit: str, wpn: str, target: str) -> Rejection:
    problem = check(s, Shoot(unit=unit, fire=(Fire(weapon=wpn, target=target),)))
    assert problem is not None
    return problem


def test_setup_engagement() -> None:
    """40k11 core, Engagement Range: the Vehicle and B are engaged, A and C are not."""
    s = scene("a")
    assert engaged_with(s, s.units["vehicle"]) == ("B",)
    assert engaged_with(s, s.units["B"]) == ("vehicle",)
    assert engaged_with(s, s.units["A"]) == ()
    assert engaged_with(s, s.units["C"]) == ()


def test_case1_vehicle_shoots_unengaged_a_close_quarters() -> None:
    """40k11 worked example case 1 (17.03.01, core Close-quarters shooting): the Vehicle shoots A
    with close-quarters shooting: -1 to hit, except its [CLOSE-QUARTERS] weapons. Fixed dice: the
    cannon's 3 misses (3 - 1 < 3+), the flamer's 3 hits."""
    s = scene("a")
    cannon, flamer, blast = plans(s, "vehicle", ("cannon", "A"), ("flamer", "A"), ("battle_cannon", "A"))
    assert (cannon.modifier, flamer.modifier, blast.modifier) == (-1, 0, -1)
    # cannon: hit 3 (miss); flamer: hit 3, wound 3 (S5 vs T4: 3+), save 1 (fails) -> A-1 destroyed.
    after = step(
        s,
        Shoot(unit="vehicle", fire=(Fire(weapon="cannon", target="A"), Fire(weapon="flamer", target="A"))),
        [3, 3, 3, 1],
    )
    # 40k11 core, Allocate attack: A's owner chooses the model; the proposal is A-1.
    after = take_proposal(after, DECISION_ALLOCATE)
    assert rolls(after) == [
        ("hit", 3, "miss"),
        ("hit", 3, "hit"),
        ("wound", 3, "wound"),
        ("save", 1, "failed"),
    ]
    assert not after.units["A"].models["A-1"].alive
    assert any("close-quarters shooting" in e.text for e in after.log)


def test_case2_a_shoots_engaged_vehicle_normal_shooting() -> None:
    """40k11 worked example case 2 (17.03): A shoots the engaged Vehicle with normal shooting at -1 (also
    with its [CLOSE-QUARTERS] pistol: A is not engaged with the Vehicle); its [BLAST] weapon cannot
    target the engaged Vehicle but can target the unengaged unit C."""
    s = scene("b")
    rifle, pistol = plans(s, "A", ("a_rifle", "vehicle"), ("a_pistol", "vehicle"))
    assert (rifle.modifier, pistol.modifier) == (-1, -1)
    problem = refused(s, "A", "a_launcher", "vehicle")
    assert problem.code == "blast_at_engaged"
    assert problem.rule.startswith("40k11 17.03")
    assert "engaged" in problem.message and "a_launcher" in problem.message
    (launcher,) = plans(s, "A", ("a_launcher", "C"))
    assert launcher.modifier == 0
    after = step(s, Shoot(unit="A", fire=(Fire(weapon="a_rifle", target="vehicle"),)), [3])
    assert rolls(after) == [("hit", 3, "miss")]


def test_case3_vehicle_shoots_engaged_b() -> None:
    """40k11 worked example case 3 (17.03.01): the Vehicle shoots B (engaged with it) with
    close-quarters shooting: -1 except [CLOSE-QUARTERS] weapons; [BLAST] cannot target the
    engaged B."""
    s = scene("a")
    cannon, flamer = plans(s, "vehicle", ("cannon", "B"), ("flamer", "B"))
    assert (cannon.modifier, flamer.modifier) == (-1, 0)
    problem = refused(s, "vehicle", "battle_cannon", "B")
    assert problem.code == "blast_at_engaged"
    after = step(s, Shoot(unit="vehicle", fire=(Fire(weapon="flamer", target="B"),)), [3, 3, 1])
    assert rolls(after) == [("hit", 3, "hit"), ("wound", 3, "wound"), ("save", 1, "failed")]
    assert after.units["B"].destroyed


def test_case4_b_shoots_vehicle_close_quarters_weapons_only() -> None:
    """40k11 worked example case 4 (17.03, 17.03.01): B may shoot only [CLOSE-QUARTERS] weapons, only at the
    Vehicle it is engaged with, and without the -1 (a [CLOSE-QUARTERS] weapon of a model in a unit
    engaged with the target)."""
    s = scene("b")
    (pistol,) = plans(s, "B", ("b_pistol", "vehicle"))
    assert pistol.modifier == 0
    assert refused(s, "B", "b_rifle", "vehicle").code == "close_quarters_only"
    assert refused(s, "B", "b_pistol", "C").code == "close_quarters_target"
    assert refused(s, "B", "b_grenade", "vehicle").code == "blast_at_engaged"
    # Hit 3 hits with no modifier; S4 vs T10 wounds only on a 6: the 5 fails.
    after = step(s, Shoot(unit="B", fire=(Fire(weapon="b_pistol", target="vehicle"),)), [3, 5])
    assert rolls(after) == [("hit", 3, "hit"), ("wound", 5, "fail")]
