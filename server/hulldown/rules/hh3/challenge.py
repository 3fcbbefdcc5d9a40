"""Challenges: two Paragons fight each other only (hh3 core, Challenge Sub-Phase).

# Seed glossary, Paragon: it may "issue and accept Challenges". hh3 core, Challenge Sub-Phase
# [ext]: the active player may issue a challenge in a combat with a model able to (a Paragon) that
# is locked in combat with an enemy unit that has an eligible model, not Routed. The opponent
# accepts with one eligible model or declines; declined, the issuer makes one eligible enemy model
# Disgraced (Weapon Skill and Leadership halved for that Assault phase). Accepted, the two fight
# apart: Focus (a die + Initiative, -1 per wound lost; the higher has the Challenge Advantage:
# it strikes first with +1 Attack; ties are rolled again), Strike (hit tests against the other
# model's WS, wound tests against its Toughness, its own saves; no wound spills out of the
# challenge), Glory (a slain model: its base Wounds + 1 for a Paragon to the winner; both alive:
# the model that inflicted more wounds scores them; otherwise nobody scores). The two neither
# attack nor take wounds in the Fight sub-phase, and return for the Resolution sub-phase.
#
# [decided] (docs/rules-notes.md, hh3 Challenges): the challenge is the action ``challenge {unit,
# model, target}`` of a unit in the Assault phase, in base contact with ``target``, before any
# unit of the active side has fought this phase (the Challenge sub-phase comes first), one per
# combat (the units linked by base contact, ``combat_of``), accepted or declined. The opponent answers through the decision ``accept_challenge`` (options
# ``decline`` and its eligible models; proposal: accept with the eligible model with the most
# Wounds left, ties by the higher WS, then model id). Declined: the Disgraced model is the
# eligible enemy model with the highest WS (ties: model id). When both models stand after a
# round, the player with the Challenge Advantage answers ``continue_challenge`` (``continue`` or
# ``glory``; proposal: ``glory``); the wounds of every round count for Glory. Focus ties rolled
# again up to FOCUS_ROLLS times, then the challenger has the Advantage. Left out: Gambits, Outside Support, Heroic Intervention, Combat
# Initiative weapon modifiers, the Duellist's Edge, Heavy and Light modifiers, pile-in moves.
"""

from __future__ import annotations

from ...match.actions import Challenge
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Answer, Decision, MatchState, Model, Unit
from ...match.turns import add_flag, replace_unit
from . import damage, geom, statuses
from .assault import melee_weapon
from .core import (
    CHALLENGE_FLAG,
    CONTACT,
    DISGRACED_FLAG,
    F_CHALLENGED,
    F_FOUGHT,
    R_CHALLENGE,
    R_DISGRACED,
    alive_models,
    at_least,
    combat_initiative,
    current_value,
    in_challenge,
    is_paragon_model,
    model_profile,
    on_table,
)
from .resolution import glory_flag
from .tables import armour_save_allowed, best_save, melee_hit_target, wound_target

DECISION_CHALLENGE = "accept_challenge"
DECLINE = "decline"
DECISION_CONTINUE = "continue_challenge"
GLORY = "glory"
CONTINUE = "continue"
ADVANTAGE_ATTACKS = 1  # hh3 core, Challenge Sub-Phase, Focus: the Advantage gives +1 Attack
PARAGON_GLORY = 1  # hh3 core, Challenge Sub-Phase, Glory: +1 for slaying a Paragon
FOCUS_ROLLS = 5  # [decided] Focus ties rolled again at most this often, then the challenger wins


def eligible(unit: Unit) -> list[Model]:
    """The models of ``unit`` that may fight a challenge: living Paragons, not already in one, of
    a unit that is not Routed (hh3 core, Challenge Sub-Phase)."""
    if statuses.ROUTED in unit.statuses:
        return []
    return [m for m in alive_models(unit) if is_paragon_model(unit, m) and not in_challenge(unit, m.id)]


def combat_of(state: MatchState, unit: Unit) -> set[str]:
    """The units of the combat ``unit`` is in: every unit linked to it by base contact with an
    enemy unit, repeated (hh3 core, Fight Sub-Phase, Determine Combat Units)."""
    group, todo = {unit.id}, [unit]
    while todo:
        current = todo.pop()
        for other in state.units.values():
            if other.id in group or other.side == current.side or not on_table(other):
                continue
            if geom.unit_distance(current, other) <= CONTACT:
                group.add(other.id)
                todo.append(other)
    return group


def validate_challenge(state: MatchState, unit: Unit, action: Challenge) -> Rejection | None:
    """hh3 core, Challenge Sub-Phase: may ``model`` of ``unit`` challenge ``target`` now?"""
    if state.phase != "assault":
        return reject(
            "wrong_phase", R_CHALLENGE, f"challenges are issued in the Assault phase, not {state.phase}"
        )
    fought = sorted(u.name for u in state.units.values() if u.side == unit.side and u.flag(F_FOUGHT))
    if fought:
        return reject(
            "already_fought",
            R_CHALLENGE,
            f"{', '.join(fought)} fought this phase: the Challenge sub-phase comes before the Fight sub-phase",
        )
    if statuses.ROUTED in unit.statuses:
        return reject("routed", R_CHALLENGE, f"{unit.name} is Routed: its models cannot fight a challenge")
    model = unit.models.get(action.model)
    if model is None or not model.alive or not is_paragon_model(unit, model):
        return reject(
            "not_a_paragon",
            R_CHALLENGE,
            f"{unit.name} has no living Paragon model {action.model!r}: only a Paragon issues a challenge",
            model=action.model,
        )
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("unknown_target", R_CHALLENGE, f"no enemy unit {action.target!r} on the table")
    gap = geom.unit_distance(unit, target)
    if gap > CONTACT:
        return reject(
            "not_in_contact",
            R_CHALLENGE,
            f"{unit.name} is {gap:.2f} in from {target.name}: a challenge is issued in a combat",
            distance=round(gap, 3),
            limit=CONTACT,
        )
    issued = sorted(state.units[u].name for u in combat_of(state, unit) if state.units[u].flag(F_CHALLENGED))
    if issued:
        return reject(
            "already_challenged",
            R_CHALLENGE,
            f"a challenge was already issued in this combat (by {', '.join(issued)}): one per combat",
        )
    if not eligible(target):
        return reject(
            "no_one_to_challenge", R_CHALLENGE, f"{target.name} has no Paragon that may accept a challenge"
        )
    return None


def proposal(models: list[Model], unit: Unit) -> Model:
    """[decided] The model that accepts by default: the most Wounds left, then the higher WS,
    then the model id."""
    return min(models, key=lambda m: (-m.wounds, -model_profile(unit, m).ws, m.id))


def _check(options: tuple[str, ...], given: Answer) -> Rejection | None:
    if given.choice in options:
        return None
    return reject(
        "invalid_choice",
        R_CHALLENGE,
        f"{given.choice!r} is not an answer to this challenge: allowed {', '.join(options)}",
        choice=given.choice,
    )


def apply_challenge(state: MatchState, unit: Unit, action: Challenge, ctx: ApplyContext) -> MatchState:
    """Issue the challenge, ask the target's owner, then Disgraced or the challenge itself."""
    target = state.units[action.target]
    challenger = unit.models[action.model]
    state = replace_unit(state, add_flag(unit, F_CHALLENGED))
    ctx.log(f"{challenger.id} of {unit.name} challenges {target.name}.", R_CHALLENGE)
    able = eligible(target)
    options = (DECLINE, *(m.id for m in able))
    proposed = proposal(able, target)
    decision = Decision(
        id=f"challenge-{ctx.seq}-{ctx.asked + 1}",
        side=target.side,
        kind=DECISION_CHALLENGE,
        options=options,
        prompt=(
            f"{challenger.id} of {unit.name} challenges {target.name}: accept with one of "
            f"{', '.join(m.id for m in able)} or {DECLINE!r} (that model is then Disgraced); "
            f"proposal: {proposed.id}"
        ),
        rule=R_CHALLENGE,
        context={"unit": target.id, "challenger": challenger.id},
        proposal=proposed.id,
    )
    answer = ctx.decide(decision, lambda given: _check(options, given))
    if answer.choice == DECLINE:
        return _disgrace(state, target, able, ctx)
    return _fight(state, unit.id, challenger.id, target.id, answer.choice, ctx)


def _disgrace(state: MatchState, target: Unit, able: list[Model], ctx: ApplyContext) -> MatchState:
    """hh3 core, Challenge Sub-Phase, Disgraced: declined, the issuer makes one eligible enemy model
    Disgraced [decided: the highest WS, ties by model id]."""
    model = min(able, key=lambda m: (-model_profile(target, m).ws, m.id))
    ctx.log(
        f"Side {target.side} declines: {model.id} of {target.name} is Disgraced "
        f"(Weapon Skill and Leadership halved this Assault phase).",
        R_DISGRACED,
    )
    return replace_unit(state, add_flag(target, f"{DISGRACED_FLAG}:{model.id}"))


def _focus(state: MatchState, sides: tuple[tuple[str, str], tuple[str, str]], ctx: ApplyContext) -> int:
    """hh3 core, Challenge Sub-Phase, Focus: a die + Combat Initiative, -1 per wound lost; the
    index of the model with the Challenge Advantage (ties rolled again, FOCUS_ROLLS at most)."""
    bases = []
    for uid, mid in sides:
        unit = state.units[uid]
        model = unit.models[mid]
        bases.append(combat_initiative(unit, model) - (model_profile(unit, model).w - model.wounds))
    for _ in range(FOCUS_ROLLS):
        totals = [
            base + ctx.roll(f"focus roll ({mid})", "highest wins")
            for base, (_, mid) in zip(bases, sides, strict=True)
        ]
        ctx.log(f"Focus: {sides[0][1]} {totals[0]}, {sides[1][1]} {totals[1]}.", R_CHALLENGE)
        if totals[0] != totals[1]:
            return 0 if totals[0] > totals[1] else 1
    return 0


def _strike(
    state: MatchState, attacker: tuple[str, str], defender: tuple[str, str], extra: int, ctx: ApplyContext
) -> tuple[MatchState, int]:
    """hh3 core, Challenge Sub-Phase, Strike: one model's attacks on the other only; the wounds it
    inflicted (no wound spills out of the challenge)."""
    unit, model = state.units[attacker[0]], state.units[attacker[0]].models[attacker[1]]
    profile = model_profile(unit, model)
    weapon = melee_weapon(unit, model, None)
    strength = weapon.strength if weapon is not None and weapon.strength > 0 else profile.s
    ap = weapon.ap if weapon is not None else None
    dmg = weapon.damage if weapon is not None else 1
    label = f"{model.id} ({weapon.name if weapon else 'close combat'})"
    foe = state.units[defender[0]]
    foe_model = foe.models[defender[1]]
    need = melee_hit_target(current_value(unit, model, "ws"), current_value(foe, foe_model, "ws"))
    inflicted = 0
    if need is None:
        ctx.log(f"{label} cannot attack.", R_CHALLENGE)
        return state, 0
    hits = 0
    for _ in range(profile.a + extra):
        hits += ctx.roll("challenge hit test", f"{need}+", at_least(need, "hit", "miss")) >= need
    ctx.log(f"{label}: {hits} hit{'' if hits == 1 else 's'} on {foe_model.id}.", R_CHALLENGE)
    own = model_profile(foe, foe_model)
    to_wound = wound_target(strength, own.t)
    for _ in range(hits):
        foe_model = state.units[defender[0]].models[defender[1]]
        if not foe_model.alive or to_wound is None:
            break
        if (
            to_wound > 0
            and ctx.roll("wound test", f"{to_wound}+", at_least(to_wound, "wound", "no wound")) < to_wound
        ):
            continue
        save = best_save(own.sv if armour_save_allowed(own.sv, ap) else None, own.inv)
        if (
            save is not None
            and ctx.roll("saving throw", f"{save}+", at_least(save, "saved", "failed")) >= save
        ):
            ctx.log(f"{label}: {foe_model.id} saves.", R_CHALLENGE)
            continue
        if damage.mitigation(state.units[defender[0]], ctx):
            continue
        inflicted += min(dmg, foe_model.wounds)
        state = damage.wound_model(state, defender[0], defender[1], dmg, ctx, label)
    return state, inflicted


def _fight(state: MatchState, uid: str, mid: str, tid: str, accepted: str, ctx: ApplyContext) -> MatchState:
    """The challenge accepted: the two models are set apart; Focus and Strike, again as long as
    both live and the player with the Challenge Advantage chooses to go on; then Glory."""
    ctx.log(f"{accepted} of {state.units[tid].name} accepts the challenge.", R_CHALLENGE)
    for unit_id, model_id in ((uid, mid), (tid, accepted)):
        state = replace_unit(state, add_flag(state.units[unit_id], f"{CHALLENGE_FLAG}:{model_id}"))
    sides = ((uid, mid), (tid, accepted))
    inflicted = [0, 0]
    while True:
        first = _focus(state, sides, ctx)
        ctx.log(f"{sides[first][1]} has the Challenge Advantage: it strikes first, +1 Attack.", R_CHALLENGE)
        for k in (first, 1 - first):
            attacker, defender = sides[k], sides[1 - k]
            if not state.units[attacker[0]].models[attacker[1]].alive:
                continue
            extra = ADVANTAGE_ATTACKS if k == first else 0
            state, wounds = _strike(state, attacker, defender, extra, ctx)
            inflicted[k] += wounds
        if not all(state.units[u].models[m].alive for u, m in sides) or not _go_on(state, sides[first], ctx):
            return _glory(state, sides, inflicted, ctx)


def _go_on(state: MatchState, leader: tuple[str, str], ctx: ApplyContext) -> bool:
    """hh3 core, Challenge Sub-Phase, Strike: both models live; the player with the Challenge
    Advantage chooses to fight another round or go to Glory (decision ``continue_challenge``;
    proposal [decided]: Glory, so ``auto_decide`` fights one round)."""
    unit = state.units[leader[0]]
    options = (GLORY, CONTINUE)
    decision = Decision(
        id=f"challenge-{ctx.seq}-{ctx.asked + 1}",
        side=unit.side,
        kind=DECISION_CONTINUE,
        options=options,
        prompt=(
            f"Both models stand: {leader[1]} has the Challenge Advantage; fight another round "
            f"({CONTINUE!r}) or go to Glory ({GLORY!r}); proposal: {GLORY}"
        ),
        rule=R_CHALLENGE,
        context={"unit": unit.id, "model": leader[1]},
        proposal=GLORY,
    )
    answer = ctx.decide(decision, lambda given: _check(options, given))
    return answer.choice == CONTINUE


def _glory(
    state: MatchState, sides: tuple[tuple[str, str], tuple[str, str]], inflicted: list[int], ctx: ApplyContext
) -> MatchState:
    """hh3 core, Challenge Sub-Phase, Glory: the winner's combat resolution points."""
    alive = [state.units[u].models[m].alive for u, m in sides]
    winner: int | None = None
    points = 0
    if alive[0] != alive[1]:
        winner = 0 if alive[0] else 1
        unit_id, model_id = sides[1 - winner]
        slain = state.units[unit_id]
        points = model_profile(slain, slain.models[model_id]).w + PARAGON_GLORY
    elif all(alive) and inflicted[0] != inflicted[1]:
        winner = 0 if inflicted[0] > inflicted[1] else 1
        points = inflicted[winner]
    if winner is None:
        ctx.log("The challenge is a draw: no combat resolution points.", R_CHALLENGE)
        # The combat still fought a round: it is resolved in the Resolution sub-phase.
        record = (sides[0][0], glory_flag(sides[1][0], 0))
    else:
        ctx.log(f"{sides[winner][1]} wins the challenge: {points} combat resolution points.", R_CHALLENGE)
        record = (sides[winner][0], glory_flag(sides[1 - winner][0], points))
    return replace_unit(state, add_flag(state.units[record[0]], record[1]))
