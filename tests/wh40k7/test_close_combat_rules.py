"""40k7 close combat special rules with and against vehicles, worked examples with fixed dice:
Smash (Monstrous Creatures, Super-heavy Walkers and units listing it), Unwieldy, and the +1 Attack for two close combat weapons
(with the Specialist Weapon limit). The seed (001) is silent on them; they follow the published
7th edition rules (RULES.md precedence) and docs/rules-notes.md."""

from __future__ import annotations

from hulldown.match.actions import Fight
from hulldown.match.state import MatchState

from .builders import act, dreadnought, infantry, make_state, rejected, rhino, vehicle, weapon

R = 25.0 / 25.4 / 2  # radius of a 25 mm base


def _walker_against(target_armour: tuple[int, int, int], smash: bool = True) -> MatchState:
    """A Dreadnought (WS4 S6 I4 A2, no close combat weapon: plain attacks), with the Smash rule
    listed (keyword ``smash``; a Walker that is not Super-heavy has it only so) unless ``smash`` is
    False, in contact with the rear end of a 4.5" x 3.5" tank of the given armour, which does not
    fight back."""
    walker = dreadnought("w", "a", 26.5, 24, 0, keywords=("walker", "smash") if smash else ("walker",))
    tank = vehicle("t", "b", 30, 24, 0, name="Tank", armour=target_armour, hp=4)
    return make_state(walker, tank, phase="assault")


def test_smash_walker_close_combat_attacks_are_ap2_on_the_damage_table() -> None:
    """40k7 Special Rules, Smash: all close combat attacks of a model with Smash are resolved at
    AP2 - a penetrating hit adds +1 on the Vehicle Damage table (seed 001, AP2 +1). A Walker that
    is not Super-heavy has Hammer of Wrath, not Smash (40k7 Walkers, Special Rules): the same
    attacks from a Dreadnought whose entry does not list Smash stay AP-.
    Worked example: a Dreadnought (S6, no weapon: AP-) makes its 2 attacks against a Rhino's rear
    (AV10, WS1: 3+ to hit): to hit 3, 3; penetration 5 -> 11 penetrating, 4 -> 10 glancing; damage
    die 3 +1 (AP2) = 4: Crew Stunned (AP- would have been 3: Crew Shaken); 4 - 2 = 2 HP left."""
    state = _walker_against((11, 11, 10))
    res = act(state, "a", Fight("w", "t"), [3, 3, 5, 4, 3])
    tank = res.state.units["t"]
    assert tank.hp == 2
    assert "stunned" in tank.statuses and "shaken" not in tank.statuses
    dmg = [r for r in res.rolls if r.purpose == "vehicle damage"]
    assert [r.value for r in dmg] == [3]
    plain = act(_walker_against((11, 11, 10), smash=False), "a", Fight("w", "t"), [3, 3, 5, 4, 3]).state
    assert "shaken" in plain.units["t"].statuses and "stunned" not in plain.units["t"].statuses
    squad = infantry("m", "a", [(27.75 - R, 24.0)])
    assert (
        rejected(
            make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault"), "a", Fight("m", "r", smash=True)
        ).code
        == "no_smash"
    )
    no_smash = _walker_against((11, 11, 10), smash=False)
    assert rejected(no_smash, "a", Fight("w", "t", smash=True)).code == "no_smash"


def test_smash_attack_is_one_attack_at_double_strength_rerolling_penetration() -> None:
    """40k7 Special Rules, Smash: instead of its attacks a model may make a single Smash Attack,
    to hit as normal, at double its Strength (at most 10), AP2, re-rolling armour penetration and
    keeping the second result; the player chooses it (``Fight.smash``).
    Worked example: a Dreadnought (S6 -> S10, not 12) smashes a Land Raider's rear (AV14, WS1):
    one attack, to hit 3; penetration 3 -> 13, no effect: re-rolled 5 -> 15 penetrating; damage
    die 3 +1 (AP2) = 4: Crew Stunned, 4 - 1 = 3 HP left. Infantry have no Smash: refused."""
    state = _walker_against((14, 14, 14))
    res = act(state, "a", Fight("w", "t", smash=True), [3, 3, 5, 3])
    tank = res.state.units["t"]
    assert tank.hp == 3
    assert "stunned" in tank.statuses
    hits = [r for r in res.rolls if r.purpose == "close combat to hit"]
    assert len(hits) == 1
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert [r.value for r in pen] == [3, 5]
    assert pen[0].target == "S10 vs rear AV14"
    assert any("Smash Attack at S10 AP2" in t for t in res.texts)
    assert any("is re-rolled; the second result stands" in t for t in res.texts)
    # A glancing first roll is kept (penetration.SMASH_REROLL_RESULTS [decided]): 4 -> 14 = AV14.
    res = act(state, "a", Fight("w", "t", smash=True), [3, 4])
    assert res.state.units["t"].hp == 3 and not res.state.units["t"].statuses
    squad = infantry("m", "a", [(27.75 - R, 24.0)])
    plain = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    assert rejected(plain, "a", Fight("m", "r", smash=True)).code == "no_smash"


def test_unwieldy_strikes_at_initiative_1_after_the_walker() -> None:
    """40k7 Special Rules, Unwieldy: a model attacking with an Unwieldy weapon strikes at
    Initiative 1. Worked example: a Marine (I4) with an Unwieldy power fist against a Dreadnought
    (I4): the Dreadnought strikes first at Initiative 4 - to hit 4 (WS4 vs WS4), wound 6 (S6 vs
    T4), armour save 1 (3+) fails - and the Marine is dead before its Initiative 1 step: no attack."""
    walker = dreadnought("w", "b", 30, 24, 180, a=1)
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee", rules=("specialist", "unwieldy"))
    squad = infantry("m", "a", [(31.25 + R, 24)], weapons=[(0, fist)], i=4)
    state = make_state(squad, walker, phase="assault")
    res = act(state, "a", Fight("m", "w", "fist"), [4, 6, 1])
    assert res.state.units["m"].destroyed
    assert res.state.units["w"].hp == state.units["w"].hp
    assert not [r for r in res.rolls if r.purpose == "armour penetration"]
    assert any(t.startswith("Assault result: m 0, w 1.") for t in res.texts)


def test_unwieldy_smash_attack_strikes_at_initiative_1() -> None:
    """40k7 Special Rules, Smash and Unwieldy: a Smash Attack strikes at the model's Initiative,
    unless it is made with an Unwieldy weapon. Worked example: a Dreadnought (I4) with an Unwieldy
    power fist smashes a Marine (I4, no weapon): the Marine strikes first - to hit 4, penetration
    6 + S4 = 10 against the front AV12: no effect - then the Smash Attack at Initiative 1: to hit
    4, S10 vs T4 wounds on 2+: 2, AP2 allows no 3+ save: the Marine dies."""
    fist = weapon("fist", "Power fist", 0, 10, 2, type="melee", rules=("specialist", "unwieldy"))
    walker = dreadnought("w", "a", 30, 24, 180, a=2, weapons=(fist,), keywords=("walker", "smash"))
    squad = infantry("m", "b", [(31.25 + R, 24)], i=4)
    state = make_state(walker, squad, phase="assault")
    res = act(state, "a", Fight("w", "m", "fist", smash=True), [4, 6, 4, 2])
    assert res.state.units["m"].destroyed
    texts = res.texts
    marine = next(
        k for k, t in enumerate(texts) if t.startswith("m (close combat): 1 attack at Initiative 4")
    )
    smash = next(k for k, t in enumerate(texts) if t.startswith("w (Smash Attack): 1 attack at Initiative 1"))
    assert marine < smash


def test_two_close_combat_weapons_give_infantry_one_more_attack_not_walkers_twice() -> None:
    """40k7 The Assault Phase, Number of Attacks: a model with two close combat weapons gets +1
    Attack; 40k7 Special Rules, Specialist Weapon: fighting with a Specialist Weapon, only if it
    has another Specialist Weapon. A Walker has its own bonus (40k7 Walkers: +1 per Melee weapon
    after the first) and never both.
    Worked example: a Captain (WS5 A2) with a chainsword and a power fist attacks a Rhino's rear
    (AV10) with the chainsword: 2 + 1 = 3 attacks, to hit 3, 3, 3 (WS1: 3+); penetration S4 + 6 =
    10 glancing, 6 glancing, 1 nothing: 3 - 2 = 1 HP left."""
    sword = weapon("sword", "Chainsword", 0, 4, None, type="melee")
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee", rules=("specialist", "unwieldy"))
    captain = infantry("c", "a", [(27.75 - R, 24.0)], weapons=[(0, sword), (0, fist)], ws=5, a=2)
    state = make_state(captain, rhino("r", "b", 30, 24, 0), phase="assault")
    res = act(state, "a", Fight("c", "r", "sword"), [3, 3, 3, 6, 6, 1])
    assert res.state.units["r"].hp == 1
    assert len([r for r in res.rolls if r.purpose == "close combat to hit"]) == 3
    from hulldown.rules.wh40k7.assault import two_weapons_bonus

    model = captain.models["c-0"]
    # 40k7 Weapons, Pistol: "a Pistol also counts as a close combat weapon in the Assault phase".
    pistol = weapon("pistol", "Bolt pistol", 12, 4, 5, type="pistol")
    marine = infantry("p", "a", [(10, 10)], weapons=[(0, pistol), (0, sword)])
    assert two_weapons_bonus(marine, marine.models["p-0"], marine.weapons["sword"]) == 1
    # With the (Specialist) power fist: no +1, its other weapon is not a Specialist Weapon.
    assert two_weapons_bonus(captain, model, captain.weapons["fist"]) == 0
    # A pair of lightning claws (both Specialist Weapons): +1, and never more than one.
    claw = weapon("claw", "Lightning claw", 0, 4, 3, type="melee", rules=("specialist", "shred"))
    clawed = infantry("k", "a", [(10, 10)], weapons=[(0, claw), (0, claw), (0, claw)], a=2)
    assert two_weapons_bonus(clawed, clawed.models["k-0"], clawed.weapons["claw"]) == 1
    # A Dreadnought with two Melee weapons: the Walker's +1 only (A2 + 1 = 3 attacks, not 4).
    ccw = weapon("ccw", "Dreadnought close combat weapon", 0, 0, None, type="melee")
    ccw2 = weapon("ccw2", "Dreadnought close combat weapon", 0, 0, None, type="melee")
    walker = dreadnought("w", "a", 26.5, 24, 0, weapons=(ccw, ccw2))
    assert two_weapons_bonus(walker, next(iter(walker.models.values())), ccw) == 0
    state = make_state(walker, rhino("r", "b", 30, 24, 0), phase="assault")
    res = act(state, "a", Fight("w", "r", "ccw"), [1, 1, 1])
    assert len([r for r in res.rolls if r.purpose == "close combat to hit"]) == 3
