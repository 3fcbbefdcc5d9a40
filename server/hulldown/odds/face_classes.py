"""Faces of a die that the rules cannot tell apart (docs/odds.md, "Equal faces are one branch").

Many dice are used only through the outcome their judge gives: a to-hit die at BS4 is "hit" on
3, 4, 5 or 6 and nothing else about the face matters to the state. Walking those four faces as
four branches walks four equal subtrees. For the rolls listed here the engine walks one branch
per outcome of the roll's judge, the outcome's first face standing for all of its faces, with
probability (faces of the outcome) / 6. The log of such a branch shows the standing face; the
state, and everything the answer reads from the log (purposes, targets, outcomes), is the same
for every face of the outcome.

A roll is listed only where the edition's code uses the face through that comparison alone
(read the call sites named below before adding one): a listed roll whose face is used in
another way would make the exact answer wrong. Rolls without a judge, and every roll of an
edition not listed, keep their six faces. ``tests/odds/test_face_classes.py`` checks that the
merged walk gives the same answer as the walk of all six faces.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..match.state import Edition

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
SIX_FACES: tuple[tuple[int, ...], ...] = tuple((f,) for f in FACES)

# Purposes whose face the edition's rules use only through the roll's judge.
JUDGED_ONLY: dict[Edition, frozenset[str]] = {
    "40k7": frozenset(
        {
            # shooting.execute_plan: hits are counted as faces >= the need (BS table, Snap Shots).
            "to hit",
            "snap shot",
            # assault: close combat hits are counted the same way (WS table).
            "close combat to hit",
            # wounds.resolve_wounds: a wound on face >= need (Strength vs Toughness table).
            "to wound",
            # wounds.resolve_wounds and resolve._resolve_group: a save passes on face >= need.
            "armour save",
            "cover save",
            "invulnerable save",
            # penetration.roll_penetration: a single-die roll (no Ordnance, Melta, Armourbane)
            # is judged by D6 + S against the armour; the total only reaches log text. Haywire
            # by its face band. Both pass a judge only then.
            "armour penetration",
            "haywire",
            # damage.roll_damage: the Vehicle Damage table result of face + modifier.
            "vehicle damage",
            # rolls.random_pick (allocation.random_model): a model picked by a run of faces;
            # only the judged roll (2, 3 or 6 choices) uses the face, and only through its run.
            "Random Allocation: the model hit",
        }
    ),
    # hh3 and 40k11: the lines written after these rolls carry no structured values, and their
    # text names counts and targets, never a face.
    "hh3": frozenset(
        {
            # shooting.resolve_shoot: ``hits += die >= need`` (at_least judge), then the line
            # "N of M hit"; only the count reaches the hits resolved.
            "hit test",
            # assault.volley and assault._strike: Volley Attacks and melee hits (the fighting
            # unit's and the fought unit's strike back), counted the same way, then their line.
            "volley hit test (Snap Shot)",
            "melee hit test",
            "strike back hit test",
            # challenge._strike: ``hits += roll >= need``, then the line with the count.
            "challenge hit test",
            # damage.hit_model_unit and challenge._strike: ``die < need`` ends the hit, else it
            # goes on; the face reaches nothing else.
            "wound test",
            # damage.hit_model_unit and challenge._strike: ``roll >= save``.
            "saving throw",
            # damage.hit_vehicle: a penetrating hit is saved on ``roll >= save``.
            "save (invulnerable or cover)",
            # damage.mitigation: the damage is discarded on ``die >= target``.
            "Damage Mitigation",
            # destruction.explodes: the vehicle explodes on ``die >= x``; the hits that follow are
            # its starting Hull Points, not the face.
            "Explodes",
            # movement.dangerous_terrain: passed on ``die > DANGEROUS_FAILS_ON`` (the judge says
            # "failed" on those faces and "passed" above them), else 1 HP or 1 wound.
            "dangerous terrain",
            # damage.hit_vehicle: D6 + S against the Armour Value (judge ``_penetration``), then
            # no effect, a glancing or a penetrating hit; the total only reaches log text.
            "armour penetration",
            # damage.glancing: the Vehicle damage table's status of the face (judge
            # ``_damage_result``); the face reaches nothing else.
            "vehicle damage table",
        }
    ),
    "40k11": frozenset(
        {
            # attacks.resolve: ``hits += hit_succeeds(die, ...)`` - the judge is the same test
            # (unmodified 1 and 6, capped modifier) - then the line with the count.
            "hit",
            # attacks.resolve: ``wounds += wound_succeeds(die, need_w)``, the judge's test.
            "wound",
            # attacks.resolve: ``saved = save_succeeds(die, need_s)``, the judge's test.
            "save",
        }
    ),
}


# Purposes whose consecutive rolls with the same target, with no log line between them, are one
# batch whose results the rules only count: the order of their branches does not matter, so the
# walk takes each batch's branches in one order (non-decreasing, weighed by the multinomial
# count of its orders) and samples in any order are the same play.
EXCHANGEABLE: dict[Edition, frozenset[str]] = {
    "40k7": frozenset(
        {
            # shooting.execute_plan: one weapon's shots, ``n_hits = sum(1 for f in faces if f >= need)``,
            # then the line that says how many hit.
            "to hit",
            "snap shot",
            # assault: one model's attacks, counted the same way, then their line.
            "close combat to hit",
        }
    ),
    "hh3": frozenset(
        {
            # shooting.resolve_shoot: one weapon's shots, ``hits += die >= need``, then the line
            # "N of M hit" (and a line before the next weapon's).
            "hit test",
            # assault.volley: one weapon's Volley Attacks, counted, then their line.
            "volley hit test (Snap Shot)",
            # assault._strike: one model's attacks, counted, then their line - the fighting
            # unit's and the fought unit's striking back.
            "melee hit test",
            "strike back hit test",
            # challenge._strike: one model's attacks, counted, then their line.
            "challenge hit test",
            # Not "wound test": in challenge._strike a failed wound test writes no line, so the
            # next one follows it directly, but a passed one is followed by its save - the order
            # of the wound tests matters there.
        }
    ),
    "40k11": frozenset(
        {
            # attacks.resolve: one group of attacks, ``hits += hit_succeeds(...)``, then its line.
            "hit",
            # attacks.resolve: a wound roll per hit, ``wounds += wound_succeeds(...)``, then the
            # line "N of M wound" (the saves come after it, one line each).
            "wound",
        }
    ),
}
# Purposes whose consecutive rolls are one batch only when the rules give them equal batch keys
# (``ApplyContext.roll(..., batch=...)``), with the same target and no log line between them.
KEYED_EXCHANGEABLE: dict[Edition, frozenset[str]] = {
    "40k7": frozenset(
        {
            # resolve._resolve_group: every armour penetration die of a facing group is rolled
            # first, keyed by all that the group's steps after it read of the hit: its
            # penetration profile, AP and cover save. Those steps treat hits with equal keys
            # alike - a cover save for each one that is not "none", the Hull Points of those
            # kept, a damage roll (by AP) for each penetrating one kept - so only how many came
            # out none, glancing and penetrating matters, the saves and damage rolls being
            # independent dice of equal chances whichever hit they go to (the log's structured
            # values of a cover save still name the firer's group). Single-die rolls only (a
            # judge): an Ordnance pair or a Melta D6 has none.
            "armour penetration",
        }
    ),
}
_NONE: frozenset[str] = frozenset()


def face_classes(
    edition: Edition, purpose: str, judge: Callable[[int], str] | None
) -> tuple[tuple[int, ...], ...]:
    """The faces of a roll grouped by what the rules can tell apart, in face order."""
    if judge is None or purpose not in JUDGED_ONLY.get(edition, _NONE):
        return SIX_FACES
    return _grouped((judge(1), judge(2), judge(3), judge(4), judge(5), judge(6)))


@functools.lru_cache(maxsize=256)
def _grouped(outcomes: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    groups: dict[str, list[int]] = {}
    for face, outcome in zip(FACES, outcomes, strict=True):
        groups.setdefault(outcome, []).append(face)
    return tuple(tuple(g) for g in groups.values())
