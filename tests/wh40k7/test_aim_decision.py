"""40k7 Weapons, Blast and Template: the firer aims the marker or the template (docs/decisions.md).

Blast: the firer places the hole over the base of a model of the target unit, within the
weapon's range, with no friendly model under the marker; the marker then scatters from there.
Template: the narrow end at the firer, the rest covering as many models of the target as possible
without touching another friendly model. The shot pauses on an ``aim_blast`` / ``aim_template``
decision of the firing side before the scatter is rolled; the proposal is the aim the server took
before players were asked (the centre of the target's model nearest the firer)."""

from __future__ import annotations

import hashlib
import math
import random

from msgspec.structs import replace
from shapely import Point as ShapelyPoint

from hulldown.cli.verify import verify_events
from hulldown.match.actions import Concede, Decide, EndPhase, Fire, Shoot, Undo
from hulldown.match.events import Event
from hulldown.match.reducer import state_hash
from hulldown.match.scenario import CreateMatch
from hulldown.match.scenario_types import Scenario
from hulldown.match.state import MatchState, Options, Point
from hulldown.match.timeline import fold_history
from hulldown.rules.dice import Dice, FixedDice, NoDice
from hulldown.rules.wh40k7.aim import DECISION_AIM_BLAST, DECISION_AIM_TEMPLATE

from ..decision_answers import polygon, seeded_answered_run
from ..dice.forge import Forge
from .builders import act, infantry, make_state, rejection_of, take_proposal, weapon

R = 25.0 / 25.4 / 2  # a 25 mm base's radius in inches
FRAG = weapon("frag", "Frag launcher", 30, 4, 6, rules=("blast",))
FLAMER = weapon("fl", "Heavy flamer", 8, 5, 4, rules=("template",))


def _blast_units():  # type: ignore[no-untyped-def]
    # The firer at (10, 24); the target's models at (40, 22), (40, 24), (40.8, 26); a friendly
    # model of side a at (40, 27.6), next to the target.
    return (
        infantry("g", "a", [(10.0, 24.0)], weapons=[(0, FRAG)]),
        infantry("e", "b", [(40.0, 22.0), (40.0, 24.0), (40.8, 26.0)]),
        infantry("f", "a", [(40.0, 27.6)]),
    )


def _blast_match(options: Options | None = None) -> MatchState:
    state = make_state(*_blast_units(), phase="shooting")
    return state if options is None else replace(state, options=options)


BLAST = Shoot("g", (Fire("frag", "e"),))


def _paused_blast() -> MatchState:
    return act(_blast_match(), "a", BLAST).state


def test_a_blast_pauses_for_the_firer_before_the_scatter() -> None:
    """40k7 Weapons, Blast: the firer places the marker; no die is rolled before it is placed."""
    before = _blast_match()
    state = _paused_blast()
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_AIM_BLAST and pending.side == "a"
    assert pending.options == ("proposal", "aim") and pending.rule == "40k7 Weapons, Blast"
    aim = pending.aim
    assert aim is not None and aim.shape == "blast" and aim.target == "e" and aim.weapon == "frag"
    assert aim.limits == {"radius": 1.5, "range": 30.0}
    # the proposal: the centre of the target's model nearest the firer
    assert aim.proposal == Point(40.0, 24.0)
    assert state.units == before.units and state.suspended is not None and state.suspended.faces == ()
    area = [polygon(s) for s in aim.area]
    assert any(p.contains(ShapelyPoint(40.0, 24.0)) for p in area)
    assert not any(p.contains(ShapelyPoint(40.0, 23.0)) for p in area)  # between two bases
    assert not any(p.contains(ShapelyPoint(40.8, 26.0)) for p in area)  # beyond 30", friendly under it
    why = rejection_of(state, "b", Decide(pending.id, "proposal"))
    assert why is not None and why.code == "not_your_decision"
    why = rejection_of(state, "a", EndPhase())
    assert why is not None and why.code == "decision_pending"


def test_the_proposal_is_the_automatic_aim() -> None:
    # scatter die 3 (arrow), 2D6 = 4 + 4 - BS4 = 4", direction 1, 1: 0 deg (+x); nothing under it
    dice = [3, 4, 4, 1, 1]
    answered = take_proposal(_paused_blast(), DECISION_AIM_BLAST, dice)
    auto = act(_blast_match(Options(auto_decide=True)), "a", BLAST, dice)
    assert answered.state.units == auto.state.units and auto.state.pending is None
    lands = [t for t in answered.texts if "lands at" in t]
    assert lands == ["g's Frag launcher: the marker lands at (44.0, 24.0), 4.0\" from its aim."]
    assert lands == [t for t in auto.texts if "lands at" in t]


def test_the_aimed_marker_scatters_from_the_chosen_point() -> None:
    state = _paused_blast()
    assert state.pending is not None
    did = state.pending.id
    # the same dice as the proposal's: 4" at 0 deg from (40, 22), not from (40, 24)
    res = act(state, "a", Decide(did, "aim", aim=Point(40.0, 22.0)), [3, 4, 4, 1, 1])
    assert [t for t in res.texts if "lands at" in t] == [
        "g's Frag launcher: the marker lands at (44.0, 22.0), 4.0\" from its aim."
    ]
    assert res.state.pending is None and res.state.suspended is None
    line = next(e for e in res.state.log if "lands at" in e.text)
    assert line.values == {"aim": [40.0, 22.0], "lands": [44.0, 22.0], "scatter": 4.0}
    # a Hit on the scatter die: the marker stays where it was aimed; one model under it (the
    # next base, 2" away, is 1.51" from the hole); its wound roll 1 fails
    res = act(state, "a", Decide(did, "aim", aim=Point(40.0, 22.0)), [1, 3, 3, 1])
    assert [t for t in res.texts if "lands at" in t] == [
        "g's Frag launcher: the marker lands at (40.0, 22.0), 0.0\" from its aim."
    ]
    scatter = "g's Frag launcher: scatter"
    assert [r.purpose for r in res.rolls] == [
        f"{scatter} die",
        f"{scatter} distance",
        f"{scatter} distance",
        "to wound",
    ]


def test_illegal_blast_aims_are_refused_with_the_numbers() -> None:
    state = _paused_blast()
    assert state.pending is not None
    did = state.pending.id

    def refused(choice: str, aim: Point | None) -> tuple[str, dict[str, object]]:
        why = rejection_of(state, "a", Decide(did, choice, aim=aim))
        assert why is not None
        assert why.rule == "40k7 Weapons, Blast"
        return why.code, dict(why.values)

    # between two bases: 1 - 0.492 = 0.508" from each
    code, values = refused("aim", Point(40.0, 23.0))
    assert code == "not_over_target" and abs(float(values["distance"]) - (1 - R)) < 0.01  # type: ignore[arg-type]
    # over the third model's centre: hypot(30.8, 2) - 0.492 = 30.37" from the firer's base > 30"
    code, values = refused("aim", Point(40.8, 26.0))
    assert code == "out_of_range" and values["range"] == 30.0
    assert abs(float(values["distance"]) - (math.hypot(30.8, 2.0) - R)) < 0.01  # type: ignore[arg-type]
    # over the third model's base, in range, but the friendly base is 1.16" from the hole
    code, values = refused("aim", Point(40.4, 26.0))
    assert code == "marker_over_friendly" and values["model"] == "f-0" and values["limit"] == 1.5
    assert abs(float(values["distance"]) - (math.hypot(0.4, 1.6) - R)) < 0.01  # type: ignore[arg-type]
    assert refused("aim", None)[0] == "aim_missing"
    assert refused("proposal", Point(40.0, 24.0))[0] == "aim_with_proposal"
    # a legal aim is accepted
    assert rejection_of(state, "a", Decide(did, "aim", aim=Point(40.2, 24.1))) is None


def test_an_aim_given_to_a_decision_that_aims_nothing_is_refused() -> None:
    from .builders import vehicle

    sk = vehicle("s", "b", 40, 24, 180, keywords=("skimmer", "fast"), armour=(10, 10, 10), hp=2)
    gun = infantry("g", "a", [(10.0, 24.0)], weapons=[(0, weapon("k", "Krak", 48, 8, 3))])
    state = act(make_state(gun, sk, phase="shooting"), "a", Shoot("g", (Fire("k", "s"),))).state
    assert state.pending is not None and state.pending.kind == "jink"
    why = rejection_of(state, "b", Decide(state.pending.id, "jink", aim=Point(1.0, 1.0)))
    assert why is not None and why.code == "aim_not_asked"


# --- Template ----------------------------------------------------------------------------------


def _template_match(options: Options | None = None) -> MatchState:
    # The flamer at (10, 24): two target models straight ahead at (16, 24), (16, 25.2), a third
    # at (14, 18), 56 deg to the right; a friendly model at (15.5, 22).
    units = (
        infantry("m", "a", [(10.0, 24.0)], weapons=[(0, FLAMER)]),
        infantry("t", "b", [(16.0, 24.0), (16.0, 25.2), (14.0, 18.0)]),
        infantry("f", "a", [(15.5, 22.0)]),
    )
    state = make_state(*units, phase="shooting")
    return state if options is None else replace(state, options=options)


FLAME = Shoot("m", (Fire("fl", "t"),))


def _paused_template() -> MatchState:
    return act(_template_match(), "a", FLAME).state


def test_a_template_pauses_for_the_firer_with_its_legal_directions() -> None:
    """40k7 Weapons, Template: the narrow end at the firer; the firer turns the template."""
    state = _paused_template()
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_AIM_TEMPLATE and pending.side == "a"
    assert pending.rule == "40k7 Weapons, Template"
    aim = pending.aim
    assert aim is not None and aim.shape == "template" and aim.origin == Point(10.0, 24.0)
    assert aim.proposal == Point(16.0, 24.0)
    assert aim.limits["length"] == 8.0 and aim.limits["most"] == 2.0
    # straight ahead (0 deg) covers both near models; the third model's direction is not legal
    assert any(lo <= 0.0 <= hi or lo <= 360.0 <= hi for lo, hi in aim.directions)
    toward_third = math.degrees(math.atan2(18.0 - 24.0, 14.0 - 10.0)) % 360
    assert not any(lo <= toward_third <= hi or lo <= toward_third + 360 <= hi for lo, hi in aim.directions)
    assert aim.area and rejection_of(state, "b", Decide(pending.id, "proposal")) is not None


def test_illegal_template_aims_are_refused_with_the_numbers() -> None:
    state = _paused_template()
    assert state.pending is not None
    did = state.pending.id

    def refused(aim: Point) -> tuple[str, dict[str, object]]:
        why = rejection_of(state, "a", Decide(did, "aim", aim=aim))
        assert why is not None and why.rule == "40k7 Weapons, Template"
        return why.code, dict(why.values)

    code, values = refused(Point(15.5, 22.0))
    assert code == "template_over_friendly" and values["model"] == "f-0"
    code, values = refused(Point(14.0, 18.0))
    assert code == "template_not_most" and values["covered"] == 1 and values["most"] == 2
    code, values = refused(Point(10.0, 24.0))
    assert code == "no_direction" and values["distance"] == 0.0
    assert rejection_of(state, "a", Decide(did, "aim", aim=Point(16.0, 24.4))) is None


def test_the_template_proposal_is_the_automatic_aim_and_an_aim_lays_it_there() -> None:
    # two models under the template: two wound rolls of 1 (S5 vs T4 needs 3+)
    answered = take_proposal(_paused_template(), DECISION_AIM_TEMPLATE, [1, 1])
    auto = act(_template_match(Options(auto_decide=True)), "a", FLAME, [1, 1])
    assert answered.state.units == auto.state.units
    covers = [t for t in answered.texts if "template covers" in t]
    assert covers == ["m's Heavy flamer: the template covers 2 models."]
    state = _paused_template()
    assert state.pending is not None
    aimed = act(state, "a", Decide(state.pending.id, "aim", aim=Point(16.0, 24.4)), [1, 1])
    assert [t for t in aimed.texts if "template covers" in t] == covers
    line = next(e for e in aimed.state.log if "template covers" in e.text)
    angle = round(math.degrees(math.atan2(0.4, 6.0)), 1)  # from (10, 24) toward (16, 24.4)
    assert line.values == {"toward": [16.0, 24.4], "angle": angle, "covered": 2}


# --- Through the log: replay, verify, undo -------------------------------------------------------


def test_random_aims_fold_back_to_the_live_state() -> None:
    """Seeded dice and random answers (the proposal, or a random legal aim): folding the events
    again from the start gives the live state."""
    aimed = 0
    kinds = {DECISION_AIM_BLAST, DECISION_AIM_TEMPLATE}
    for i in range(8):
        start = _blast_match() if i % 2 else _template_match()
        seed = hashlib.sha256(f"aim-{i}".encode()).digest()
        run = seeded_answered_run(start, "a", BLAST if i % 2 else FLAME, seed, kinds, random.Random(i))
        assert run.asked is not None and run.asked.aim is not None and run.answer is not None
        aimed += run.answer.choice == "aim"
        assert run.live.pending is None and run.live.suspended is None
    assert aimed >= 3


MATCH = "aim-history"


def _forge(seed_index: int) -> Forge:
    seed = hashlib.sha256(f"aim-history-{seed_index}".encode()).digest()
    forge = Forge(MATCH, seed, CreateMatch(edition="40k7", scenario=Scenario(units=_blast_units())))
    while forge.timeline.state.phase != "shooting":
        forge.act("a", EndPhase())
    forge.act("a", BLAST)
    assert forge.timeline.state.pending is not None
    return forge


def _logged_dice(event: Event) -> Dice:
    return FixedDice(event.rolls) if event.rolls else NoDice()


def test_an_aimed_blast_replays_and_verifies_from_the_log() -> None:
    forge = _forge(0)
    pending = forge.timeline.state.pending
    assert pending is not None
    answer = forge.act("a", Decide(pending.id, "aim", aim=Point(40.0, 22.0)))
    live = forge.timeline.state
    assert live.pending is None and any("lands at" in e.text for e in live.log if e.seq == answer.seq)
    forge.act("b", Concede())
    forge.reveal()
    assert state_hash(fold_history(MATCH, forge.events, forge.dice_for)) == state_hash(forge.timeline.state)
    assert state_hash(fold_history(MATCH, forge.events, _logged_dice)) == state_hash(forge.timeline.state)
    report = verify_events(MATCH, forge.events)
    assert report.ok, report.failures


def test_the_firer_may_undo_a_paused_blast_that_rolled_no_die() -> None:
    """No die was rolled before the marker is placed: the firer takes the shot back alone."""
    forge = _forge(1)
    paused = forge.timeline.state
    before = forge.timeline.state_at(paused.seq - 1)
    assert paused.suspended is not None and paused.suspended.faces == ()
    forge.act("a", Undo())
    restored = forge.timeline.state
    assert restored.pending is None and restored.suspended is None
    assert restored.units == before.units
    forge.act("a", BLAST)
    assert (
        forge.timeline.state.pending is not None and forge.timeline.state.pending.kind == DECISION_AIM_BLAST
    )


# --- Aimed in advance by the Fire ------------------------------------------------------------------


def test_a_fire_may_carry_its_aim_and_skip_the_decision() -> None:
    """The Fire's aim answers the aiming decision in advance: the shot does not pause and folds
    as the aimed answer does (the same dice: 4" at 0 deg from (40, 22))."""
    dice = [3, 4, 4, 1, 1]
    aimed = act(_blast_match(), "a", Shoot("g", (Fire("frag", "e", aim=Point(40.0, 22.0)),)), dice)
    assert aimed.state.pending is None and aimed.state.suspended is None
    paused = _paused_blast()
    assert paused.pending is not None
    answered = act(paused, "a", Decide(paused.pending.id, "aim", aim=Point(40.0, 22.0)), dice)
    assert aimed.state.units == answered.state.units
    line = next(e for e in aimed.state.log if "lands at" in e.text)
    assert line.values["aim"] == [40.0, 22.0] and line.values["lands"] == [44.0, 22.0]
    flame = act(_template_match(), "a", Shoot("m", (Fire("fl", "t", aim=Point(16.0, 24.4)),)), [1, 1])
    assert flame.state.pending is None
    assert [t for t in flame.texts if "template covers" in t] == [
        "m's Heavy flamer: the template covers 2 models."
    ]


def test_an_illegal_aim_in_the_fire_is_refused_with_the_shoot() -> None:
    why = rejection_of(_blast_match(), "a", Shoot("g", (Fire("frag", "e", aim=Point(40.0, 23.0)),)))
    assert why is not None and why.code == "not_over_target" and why.rule == "40k7 Weapons, Blast"
    why = rejection_of(_template_match(), "a", Shoot("m", (Fire("fl", "t", aim=Point(14.0, 18.0)),)))
    assert why is not None and why.code == "template_not_most" and why.values["most"] == 2
    gun = infantry("g", "a", [(10.0, 24.0)], weapons=[(0, weapon("k", "Krak", 48, 8, 3))])
    state = make_state(gun, infantry("e", "b", [(30.0, 24.0)]), phase="shooting")
    why = rejection_of(state, "a", Shoot("g", (Fire("k", "e", aim=Point(30.0, 24.0)),)))
    assert why is not None and why.code == "aim_not_asked" and why.values["weapon"] == "k"


def test_other_editions_refuse_an_aim() -> None:
    """hh3 (and 40k11) model no blast markers nor templates (docs/rules-notes.md, hh3 Left out):
    a Fire carrying an aim is refused, not ignored."""
    from tests.hh3 import builders as h

    state = h.make(
        [
            h.tank("g", "a", 10, 24, 0, weapons=[h.weapon("frag", rules=("blast",))]),
            h.squad("s", "b", [(30, 24)]),
        ],
        phase="shooting",
    )
    why = rejection_of(state, "a", Shoot("g", (Fire("frag", "s", aim=Point(30.0, 24.0)),)))
    assert why is not None and why.code == "unsupported_field" and why.rule == "docs/decisions.md"


def test_a_blast_at_a_skimmer_waits_for_the_jink_then_for_the_aim() -> None:
    """40k7 Jink comes first (the target's owner, before any die); then the firer aims the marker
    (40k7 Weapons, Blast); the answer folds the shot again from the Jink's answer."""
    from .builders import vehicle

    sk = vehicle("s", "b", 30, 24, 180, keywords=("skimmer", "fast"), armour=(10, 10, 10), hp=2)
    gun = infantry("g", "a", [(10.0, 24.0)], weapons=[(0, FRAG)])
    state = act(make_state(gun, sk, phase="shooting"), "a", Shoot("g", (Fire("frag", "s"),))).state
    assert state.pending is not None and state.pending.kind == "jink"
    state = act(state, "b", Decide(state.pending.id, "no")).state
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_AIM_BLAST and pending.side == "a"
    assert state.suspended is not None and state.suspended.before is not None
    assert state.suspended.before.kind == "jink"
    assert pending.aim is not None and pending.aim.proposal == Point(30.0, 24.0)
    # scatter die 3, 2D6 4 + 4 - BS4 = 4", 0 deg: lands 4" behind the skimmer, off its hull
    res = act(state, "a", Decide(pending.id, "aim", aim=Point(31.0, 24.0)), [3, 4, 4, 1, 1])
    assert res.state.pending is None and res.state.suspended is None
    line = next(e for e in res.state.log if "lands at" in e.text)
    assert line.values["aim"] == [31.0, 24.0] and line.values["lands"] == [35.0, 24.0]
    assert res.state.units["s"].hp == 2
