"""hh3 Paragons with the unit they joined: per-model profiles (seed 004 glossary, Paragon: "lend
its characteristics to its unit for any characteristic test. Counts as its base Wounds value for
combat resolution"), each with fixed dice. A joined Paragon is a model of the Infantry unit with
``kind: paragon`` and a profile of its own (docs/match-definition.md)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import EndPhase, Fight, Fire, Shoot
from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.match.state import MatchState, Profile, Unit
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE
from hulldown.rules.hh3.core import lent_characteristic, majority_characteristic, majority_toughness

from .builders import act, log_text, make, rolls_since, squad, take_proposal, tank, weapon

# A tank at (36, 24) facing -x: bases at x = 32.86 touch its front, at 31.59 they touch those.
TOUCH = 32.86
BEHIND = 31.59
CENTURION = Profile(m=7, ws=5, bs=5, s=4, t=4, w=2, i=5, a=3, ld=10, cool=10, intelligence=9, sv=2)


def _with_paragon(unit: Unit, mid: str, profile: Profile = CENTURION) -> Unit:
    """``unit`` with model ``mid`` a joined Paragon of its own profile (full Wounds)."""
    models = dict(unit.models)
    models[mid] = replace(models[mid], kind="paragon", profile=profile, wounds=profile.w)
    return replace(unit, models=models)


def _defenders(paragon: str | None, paragon_profile: Profile = CENTURION) -> Unit:
    t = squad("t", "b", [(BEHIND, 24), (BEHIND - 1.27, 24)], sv=None)
    return _with_paragon(t, paragon, paragon_profile) if paragon else t


def _melee(defenders: Unit) -> MatchState:
    attackers = squad("s", "a", [(TOUCH, 24), (TOUCH, 25.3), (TOUCH, 22.7)])
    return make([tank("v", "b", 36, 24, 180), attackers, defenders], phase="assault")


def test_a_paragon_lends_its_leadership_to_its_units_panic_check() -> None:
    """hh3 core, Resolution Sub-Phase with the Paragon clause: s kills t's front model. Side a
    scores 1; the models are 3 against 3 (the living W2 Paragon counts 2, with the tank v), so no
    most-models point: side b loses by 1. The Paragon (Ld 10) behind lends its Leadership:
    10 - 1 = 9, so 4 + 3 passes (on the unit's own Leadership 7, 7 - 1 = 6 would fail).
    hh3 core, Fight Sub-Phase: t strikes back - the Paragon (I5, 3 Attacks, WS5 vs WS4: 3+) first,
    at Initiative step 5, and misses (1, 1, 1); at step 4 s-1 hits and wounds (6, 6), s-2 and
    s-3 miss (1, 1) and t-1, slain in that step, still strikes and misses (1)."""
    state = act(_melee(_defenders("t-2")), "a", Fight("s", "t"), [1, 1, 1, 6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1])  # hh3 core, Wound Allocation
    assert "Initiative step 5: t strikes with t-2." in log_text(state)
    assert "Initiative step 4: s strikes with s-1, s-2, s-3; t strikes with t-1." in log_text(state)
    state = act(state, "a", EndPhase(), [4, 3])
    assert "side a 1 points, side b 0 points (models 3 against 3)" in log_text(state)
    assert "passes the Panic Check (Leadership 10 - 1)" in log_text(state)
    assert state.units["t"].statuses == {}


def test_without_a_paragon_the_same_dice_fail_the_panic_check() -> None:
    """The same combat with no Paragon: both of t's troopers strike back at Initiative step 4, after
    s (hh3 core, Fight Sub-Phase), and miss (1, 1); side a also has the most models (3 against 2):
    Leadership 7 - 2 = 5, 3 + 3 fails: t gains Routed."""
    state = act(_melee(_defenders(None)), "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1, 1])  # hh3 core, Wound Allocation
    state = act(state, "a", EndPhase(), [3, 3, 3])
    assert state.units["t"].statuses == {"routed": 0}
    # hh3 core, Resolution Sub-Phase, Aftermath (Fall Back): Initiative 4 + 3.
    assert "t is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in log_text(state)


def test_a_joined_paragon_slain_counts_its_base_wounds() -> None:
    """Seed glossary, Paragon: "Counts as its base Wounds value for combat resolution". The W2
    Paragon stands at the front of t and takes both wounds (a wounded model takes the next; the
    third attack misses): side
    a 2 (its base Wounds) + 1 (3 models against 2) = 3 points. Without its Leadership the unit
    tests on 7 - 3 = 4: 3 + 3 fails. hh3 core, Fight Sub-Phase: the Paragon (I5) strikes back
    first, at Initiative step 5, and misses (1, 1, 1); the trooper t-2 strikes back at step 4,
    after s, and misses (1)."""
    paragon = _defenders("t-1", replace(CENTURION, sv=None))
    state = act(_melee(paragon), "a", Fight("s", "t"), [1, 1, 1, 6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [6, 6, 1, 1])  # hh3 core, Wound Allocation
    assert not state.units["t"].models["t-1"].alive and state.units["t"].models["t-2"].alive
    state = act(state, "a", EndPhase(), [3, 3, 3])
    assert "side a 3 points, side b 0 points (models 3 against 2)" in log_text(state)
    assert state.units["t"].statuses == {"routed": 0}
    # hh3 core, Resolution Sub-Phase, Aftermath (Fall Back): the trooper left, Initiative 4 + 3.
    assert "t is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in log_text(state)


def test_a_living_paragon_counts_its_base_wounds_of_models_for_the_most_models_point() -> None:
    """Seed glossary, Paragon: "Counts as its base Wounds value for combat resolution", read for
    the hh3 core Resolution Sub-Phase's model count too (PARAGON_COUNTS_BASE_WOUNDS_ALIVE,
    docs/rules-notes.md). s's three attacks all miss (1, 1, 1). The combat is s against t and the
    tank v it touches: side a 3 models, side b t-1 + the W2 Paragon t-2 (2) + v = 4, so side b
    scores the most-models point and wins 1 - 0 (counting t-2 as one model, 3 against 3 would be
    a draw); s passes its Panic Check on 1 + 1 against Leadership 7 - 1. hh3 core, Fight
    Sub-Phase: t strikes back and misses too - t-2 (I5) at step 5 (1, 1, 1), t-1 at step 4 after s
    (1)."""
    state = act(_melee(_defenders("t-2")), "a", Fight("s", "t"), [1, 1, 1, 1, 1, 1, 1])
    state = act(state, "a", EndPhase(), [1, 1])
    text = log_text(state)
    assert "side a 0 points, side b 1 points (models 3 against 4)" in text
    assert "Side b wins the combat." in text
    assert "s passes the Panic Check (Leadership 7 - 1)" in text


def test_a_paragon_model_shoots_with_its_own_bs_and_saves_with_its_own_armour() -> None:
    """hh3 core, Hit Tests and Saving Throws, per model: the shooter's Paragon (BS 5) hits on 2+
    (its unit's BS 4 would need 3+); the wound goes to the target's closest model, a Paragon with
    a 2+ save: a 2 saves it (the unit's 3+ would fail)."""
    gun = weapon("gun", strength=4, ap=5, rng=24.0, kind="assault")
    shooters = _with_paragon(squad("p", "a", [(10, 24)], gun=gun), "p-1")
    targets = _with_paragon(squad("t", "b", [(20, 24), (21.5, 24)]), "t-1")
    state = make([shooters, targets], phase="shooting")
    state = act(state, "a", Shoot("p", (Fire("p-1-gun", "t"),)), [2, 6])
    shot = state.seq
    state = take_proposal(state, DECISION_ALLOCATE, [2])  # hh3 core, Wound Allocation
    assert [(p, v) for p, v in rolls_since(state, shot)] == [
        ("hit test", 2),
        ("wound test", 6),
        ("saving throw", 2),
    ]
    targets_of = [r.target for e in state.log if e.seq >= shot for r in e.rolls]
    assert targets_of == ["2+", "4+", "2+"]
    assert all(m.alive for m in state.units["t"].models.values())


def test_characteristic_tests_take_the_best_lent_value_and_wounds_the_majority_toughness() -> None:
    """Seed glossary, Paragon (lends its characteristics, decided: only where better); a wound test
    is against the Toughness most of the unit's living models have (decided, docs/rules-notes.md)."""
    t = _defenders("t-2", replace(CENTURION, cool=6, t=5))
    assert lent_characteristic(t, "ld") == 10
    assert lent_characteristic(t, "cool") == 8  # the unit's own 8 is better than the Paragon's 6
    assert lent_characteristic(t, "intelligence") == 9
    assert majority_toughness(t) == 5  # one T4 and one T5: a tie goes to the highest
    three = _with_paragon(squad("u", "b", [(40, 24), (41.5, 24), (43, 24)]), "u-1", replace(CENTURION, t=5))
    assert majority_toughness(three) == 4
    dead = replace(t, models={**t.models, "t-2": replace(t.models["t-2"], alive=False)})
    assert lent_characteristic(dead, "ld") == 7  # a slain Paragon lends nothing


def _document(edition: str) -> dict[str, object]:
    return {
        "format": 1,
        "edition": edition,
        "scenario": {
            "units": [
                {
                    "id": "squad",
                    "side": "a",
                    "kind": "infantry",
                    "profile": {"t": 4, "w": 1, "ld": 7, "sv": 3},
                    "models": [
                        {"id": "s1", "pos": [10, 10]},
                        {
                            "id": "s2",
                            "pos": [12, 10],
                            "kind": "paragon",
                            "profile": {"t": 4, "w": 3, "ld": 10},
                        },
                    ],
                },
                {"id": "foe", "side": "b", "kind": "infantry", "models": [{"id": "f1", "pos": [60, 10]}]},
            ]
        },
    }


def test_a_match_definition_gives_a_model_its_own_profile_in_hh3_only() -> None:
    """docs/match-definition.md, models: ``profile`` and ``kind`` (hh3 only): the Paragon starts
    with its own 3 Wounds; 40k7 refuses the field with its path."""
    parsed = parse_definition(_document("hh3"))
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    paragon = next(u for u in parsed.scenario.units if u.id == "squad").models["s2"]
    assert paragon.kind == "paragon" and paragon.profile is not None and paragon.wounds == 3
    refused = parse_definition(_document("40k7"))
    assert isinstance(refused, DefinitionError)
    assert refused.problems[0].path == "scenario.units[0].models[1].profile"


def test_close_combat_attacks_use_each_models_own_ws_s_and_a() -> None:
    """hh3 core, Fight Sub-Phase and Melee Hit Tests, per model: s's trooper (WS4, A1, S4) needs
    4+ against t's WS4, so its 3 misses; the joined Paragon (WS5, A3, S5) needs 3+: 3, 3, 1 are
    two hits, and S5 against T4 wounds on 3+ (the unit's S4 would need 4+): both 3s wound and
    slay two of t's W1 models (no save). hh3 core, Fight Sub-Phase, Initiative Steps: the Paragon
    (I5) strikes at step 5, before everyone else (I4), so the two models it slays (t-2 and t-1,
    the closest) do not strike back; at step 4 the trooper misses (3) and t-3 strikes back, WS4
    against s's majority WS5 (a tie of WS4 and WS5), 4+, and misses (1)."""
    paragon = replace(CENTURION, s=5)
    attackers = _with_paragon(squad("s", "a", [(10, 24), (10, 25.3)]), "s-2", paragon)
    defenders = squad("t", "b", [(11.27, 24), (11.27, 25.3), (11.27, 22.7)], sv=None)
    state = make([attackers, defenders], phase="assault")
    state = act(state, "a", Fight("s", "t"), [3, 3, 1, 3])
    fought = state.seq
    assert "against WS4: WS4 hits on 4+, WS5 hits on 3+" in log_text(state)
    state = take_proposal(state, DECISION_ALLOCATE, [3])  # hh3 core, Wound Allocation
    state = take_proposal(state, DECISION_ALLOCATE, [3, 1])
    assert [(p, v) for p, v in rolls_since(state, fought)] == [
        ("melee hit test", 3),
        ("melee hit test", 3),
        ("melee hit test", 1),
        ("wound test", 3),
        ("wound test", 3),
        ("melee hit test", 3),
        ("strike back hit test", 1),
    ]
    targets_of = [r.target for e in state.log if e.seq >= fought for r in e.rolls]
    assert targets_of == ["3+", "3+", "3+", "3+", "3+", "4+", "4+"]
    assert sum(m.alive for m in state.units["t"].models.values()) == 1
    text = log_text(state)
    assert "Initiative step 5: s strikes with s-2." in text
    assert "t-1 of t was slain before Initiative step 4: it does not strike." in text
    assert "t-2 of t was slain before Initiative step 4: it does not strike." in text
    assert "Initiative step 4: s strikes with s-1; t strikes with t-3." in text
    assert "s-1 (close combat): 0 hits." in log_text(state) and "s-2 (close combat): 2 hits." in log_text(
        state
    )


def test_a_paragon_in_the_defending_unit_counts_for_its_majority_weapon_skill() -> None:
    """hh3 core, Melee Hit Tests [ext]: the attackers hit against the target unit's majority WS,
    ties going to the highest: one WS4 trooper and the WS5 Paragon make WS5 (WS4 against WS5:
    4+); with two troopers and the Paragon the majority is WS4 again. t strikes back and misses
    (hh3 core, Fight Sub-Phase): the Paragon at step 5 (1, 1, 1), then s-1 (1) and t-1 (1)."""
    two = _with_paragon(squad("t", "b", [(11.27, 24), (11.27, 25.3)]), "t-2")
    state = make([squad("s", "a", [(10, 24)]), two], phase="assault")
    state = act(state, "a", Fight("s", "t"), [1, 1, 1, 1, 1])
    assert "against WS5: WS4 hits on 4+" in log_text(state)
    three = _with_paragon(squad("t", "b", [(11.27, 24), (11.27, 25.3), (11.27, 22.7)]), "t-2")
    assert majority_characteristic(three, "ws") == 4
