"""40k7 Special Rules, Ignores Cover: "Cover saves cannot be taken against Wounds, glancing hits
or penetrating hits caused by weapons with the Ignores Cover special rule" (weapon rule
``ignores_cover``; Template weapons have it); and the Jink decision a target is not asked when no
hit of the shot on it could take a cover save (shooting.JINK_AGAINST_IGNORED_COVER [decided],
docs/rules-notes.md, 40k7, Shooting)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fire, Shoot
from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.rules.wh40k7.shooting import JINK_AGAINST_IGNORED_COVER

from ..definition.bad_definitions import base
from .builders import act, infantry, krak, make_state, rhino, ruin, speeder, take_proposal, vehicle, weapon


def _sniper(wid: str = "ic"):
    """An S5 AP4 Heavy 1 weapon whose Type says Ignores Cover (``Heavy 1, Ignores Cover``)."""
    return weapon(wid, "Hunting rifle", 36, 5, 4, rules=("ignores_cover",))


def _flamer(wid: str = "fl"):
    return weapon(wid, "Heavy flamer", 8, 5, 4, type="assault", rules=("template",))


# --- 1. Ignores Cover: no cover save of any kind --------------------------------------------------


def test_an_ignores_cover_weapon_ignores_the_jink_cover_save() -> None:
    """40k7 Special Rules, Ignores Cover against Jink's 4+ cover save (40k7 Special Rules, Jink):
    the Land Speeder Jinked earlier (no decision asked now); the Ignores Cover shot hits (6),
    penetrates (S5 + 6 = 11 > AV10) and no cover save is rolled; damage 1 (AP4: +0): Crew Shaken.
    It used to roll its 4+ Jink save (the rule ``ignores_cover`` did nothing)."""
    marksman = infantry("m", "a", [(10, 24)], weapons=[(0, _sniper())])
    jinked = replace(speeder("s", "b", 30, 24, 180), statuses={"jink": 2, "snap_only": 2})
    res = act(make_state(marksman, jinked, phase="shooting"), "a", Shoot("m", (Fire("ic", "s"),)), [6, 6, 1])
    assert [r.purpose for r in res.rolls] == ["to hit", "armour penetration", "vehicle damage"]
    assert res.state.units["s"].hp == 1 and "shaken" in res.state.units["s"].statuses


def test_an_ignores_cover_weapon_ignores_a_models_cover() -> None:
    """40k7 Special Rules, Ignores Cover: a Marine (T4, no armour save) inside a ruin that gives a
    4+ cover save: hit 6, wound 6 (S5 vs T4 on 3+), no cover save is rolled - the Marine is slain.
    It used to take its 4+ cover save."""
    marksman = infantry("m", "a", [(10, 24)], weapons=[(0, _sniper())])
    marine = infantry("t", "b", [(22, 24)], t=4, sv=None)
    cover = ruin("ruin", 21, 23, 23, 25, save=4, kinds=("cover",))
    state = make_state(marksman, marine, terrain=[cover], phase="shooting")
    res = act(state, "a", Shoot("m", (Fire("ic", "t"),)), [6, 6])
    assert "cover save" not in [r.purpose for r in res.rolls]
    assert res.state.units["t"].destroyed


def test_ignores_cover_is_a_40k7_weapon_rule_of_a_match_definition() -> None:
    """docs/match-definition.md, 40k7 weapon rules: ``ignores_cover`` is taken (it was refused as
    an unknown weapon rule)."""
    doc = base("40k7")
    doc["scenario"]["units"][0]["weapons"][0]["rules"] = ["ignores_cover"]
    parsed = parse_definition(doc)
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    tank = next(u for u in parsed.scenario.units if u.id == "tank")
    assert tank.weapons["gun"].rules == ("ignores_cover",)


# --- 2. No Jink decision when no hit could take a cover save ---------------------------------------


def test_no_jink_decision_against_a_template() -> None:
    """40k7 Special Rules, Jink (the owner "may declare" a Jink before any To Hit roll) and
    Template Weapon (Ignores Cover): Jinking against a heavy flamer gives the Land Speeder no save,
    only Snap Shots. Not asked (JINK_AGAINST_IGNORED_COVER [decided]): the shot goes on to the
    aim; penetration 6 (11 > AV10), damage 1: Crew Shaken, and the Speeder has not Jinked. It used
    to pause on a Jink decision first."""
    assert JINK_AGAINST_IGNORED_COVER is False
    burner = infantry("m", "a", [(10, 24)], weapons=[(0, _flamer())])
    state = make_state(burner, speeder("s", "b", 15, 24, 180), phase="shooting")
    paused = act(state, "a", Shoot("m", (Fire("fl", "s"),))).state
    assert paused.pending is not None and paused.pending.kind == "aim_template"
    res = take_proposal(paused, "aim_template", [6, 1])
    s = res.state.units["s"]
    assert s.hp == 1 and "shaken" in s.statuses
    assert "jink" not in s.statuses and "snap_only" not in s.statuses
    said = [e for e in res.state.log if "not asked to Jink" in e.text]
    assert len(said) == 1 and said[0].rule == "40k7 Special Rules, Jink" and said[0].values == {"target": "s"}


def test_no_jink_decision_against_an_ignores_cover_weapon() -> None:
    """As above for a weapon with Ignores Cover: no decision, the shot is resolved at once (hit 6,
    penetration 6, damage 1: Crew Shaken). It used to ask the Speeder's owner about Jink."""
    marksman = infantry("m", "a", [(10, 24)], weapons=[(0, _sniper())])
    state = make_state(marksman, speeder("s", "b", 30, 24, 180), phase="shooting")
    res = act(state, "a", Shoot("m", (Fire("ic", "s"),)), [6, 6, 1])
    assert res.state.pending is None
    assert [r.purpose for r in res.rolls] == ["to hit", "armour penetration", "vehicle damage"]
    assert "jink" not in res.state.units["s"].statuses and "shaken" in res.state.units["s"].statuses


def test_split_fire_asks_only_the_target_whose_hits_could_take_cover() -> None:
    """A Super-heavy splits its fire: a heavy flamer at Speeder s (no cover against it) and a krak
    missile at Speeder k (cover allowed). Only k's owner is asked about Jink; s is not. s used to
    be asked first."""
    gun = vehicle("g", "a", 10, 24, weapons=(_flamer(), krak()), keywords=("super-heavy",), hp=9)
    state = make_state(gun, speeder("s", "b", 17, 24, 180), speeder("k", "b", 40, 10, 180), phase="shooting")
    paused = act(state, "a", Shoot("g", (Fire("fl", "s"), Fire("krak", "k")))).state
    assert paused.pending is not None and paused.pending.kind == "jink"
    assert paused.pending.context["target"] == "k"


def test_a_target_is_still_asked_when_one_weapon_allows_cover() -> None:
    """Guard: a heavy flamer and a boltgun fired at the Speeder - the boltgun's hits may take the
    Jink save, so its owner is asked (40k7 Special Rules, Jink)."""
    bolter = weapon("bolter", "Boltgun", 24, 4, 5, type="rapid_fire")
    squad = infantry("m", "a", [(10, 24), (10, 25)], weapons=[(0, _flamer()), (1, bolter)])
    state = make_state(squad, speeder("s", "b", 15, 24, 180), phase="shooting")
    paused = act(state, "a", Shoot("m", (Fire("fl", "s"), Fire("bolter", "s")))).state
    assert paused.pending is not None and paused.pending.kind == "jink"


def test_a_target_is_still_asked_when_a_blast_could_scatter_onto_it() -> None:
    """Guard: a Super-heavy fires a heavy flamer at the Speeder and a frag blast at a Rhino - the
    blast's marker may scatter onto the Speeder and its hits allow cover (Jink's 4+ included), so
    the Speeder's owner is asked."""
    frag = weapon("frag", "Frag blast", 48, 4, 6, rules=("blast",))
    gun = vehicle("g", "a", 10, 24, weapons=(_flamer(), frag), keywords=("super-heavy",), hp=9)
    state = make_state(gun, speeder("s", "b", 17, 24, 180), rhino("r", "b", 40, 10, 180), phase="shooting")
    paused = act(state, "a", Shoot("g", (Fire("fl", "s"), Fire("frag", "r")))).state
    assert paused.pending is not None and paused.pending.kind == "jink"
    assert paused.pending.context["target"] == "s"
