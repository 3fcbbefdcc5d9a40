"""Making attacks in 40k11: hit roll, wound roll, saving throw, damage (40k11 core [ext]).

Dice order [decided]: for one weapon (or one fighting model's weapon), roll its Random Attacks
(40k11 core rules, Random characteristics: ``roll_attacks``), then every hit roll (none with
[TORRENT]), then a wound roll for each hit that needs one ([TWIN-LINKED]: a failed one is re-rolled
at once), then one saving throw per wound (none for a [DEVASTATING WOUNDS] Critical Wound), each
followed at once by its Random Damage roll and its damage, so that allocation sees the wounds
already lost. Validation rolls nothing; the odds engine re-runs this same order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace as replace_dc

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.dice_text import DiceExpr
from ...match.state import MatchState, Unit, Weapon
from ...match.turns import replace_unit
from .constants import (
    AUTO_FAIL,
    AUTO_SUCCESS,
    COVER_NO_BENEFIT_SAVE,
    COVER_SAVE_BONUS,
    CRITICAL_ROLL,
    DAMAGE_DICE,
    DEVASTATING_WOUNDS,
    HAZARDOUS,
    HAZARDOUS_FAIL,
    HAZARDOUS_MORTAL_WOUNDS,
    HIT_MODIFIER_CAP,
    LETHAL_HITS,
    R_ANTI,
    R_COVER,
    R_DAMAGE,
    R_DEVASTATING,
    R_HAZARDOUS,
    R_HIT,
    R_LETHAL_HITS,
    R_RANDOM,
    R_SAVE,
    R_SUSTAINED_HITS,
    R_TORRENT,
    R_TWIN_LINKED,
    R_WOUND,
    SUSTAINED_HITS,
    TORRENT,
    TWIN_LINKED,
    WOUND_MODIFIER_CAP,
)
from .demise import model_destroyed
from .dice import roll_dice
from .units import anti_need, dice_rule, is_monster_vehicle, rule_number, sustained_dice
from .wounds import inflict


@dataclass(frozen=True, slots=True)
class AttackProfile:
    """What one group of attacks needs: count, skill (BS/WS target number), S, AP, Damage and the
    hit-roll modifier with the reasons for it (for the log)."""

    label: str
    attacks: int
    skill: int
    strength: int
    ap: int
    damage: int
    modifier: int = 0
    reasons: tuple[str, ...] = ()
    # 40k11 core rules [ext], weapon abilities (constants.py): Random Damage, [MELTA X]'s bonus
    # (already in range), [TORRENT], [LETHAL HITS], [SUSTAINED HITS X], [TWIN-LINKED], the
    # Critical Wound number of [ANTI-KEYWORD X+] against this target, [DEVASTATING WOUNDS].
    damage_dice: DiceExpr | None = None
    damage_bonus: int = 0
    damage_notes: tuple[str, ...] = ()
    torrent: bool = False
    lethal_hits: bool = False
    sustained_hits: int = 0
    twin_linked: bool = False
    anti: int | None = None
    devastating: bool = False
    # [SUSTAINED HITS D3]: X rolled for each Critical Hit (instead of ``sustained_hits``).
    sustained_dice: DiceExpr | None = None
    # 40k11 core rules [ext]: the wound-roll modifier ([LANCE]) and why; the target has the
    # Benefit of Cover against this (ranged) attack (shooting.plan_fire).
    wound_modifier: int = 0
    wound_reasons: tuple[str, ...] = ()
    cover: bool = False


def with_abilities(p: AttackProfile, weapon: Weapon, target: Unit) -> AttackProfile:
    """The weapon's abilities that act on the hit, wound, save and damage steps (40k11 core rules
    [ext]: Random Damage, Torrent, Lethal Hits, Sustained Hits X, Twin-linked, Anti-KEYWORD X+
    against this target, Devastating Wounds)."""
    rules = weapon.rules
    return replace_dc(
        p,
        damage_dice=dice_rule(weapon, DAMAGE_DICE),
        torrent=TORRENT in rules,
        lethal_hits=LETHAL_HITS in rules,
        sustained_hits=rule_number(weapon, SUSTAINED_HITS),
        sustained_dice=sustained_dice(weapon),
        twin_linked=TWIN_LINKED in rules,
        anti=anti_need(weapon, target),
        devastating=DEVASTATING_WOUNDS in rules,
    )


def roll_attacks(expr: DiceExpr | None, fixed: int, attacker: Unit, label: str, ctx: ApplyContext) -> int:
    """40k11 core rules [ext], Random characteristics: a random Attacks characteristic is rolled
    each time the weapon is used, before its hit rolls; otherwise the fixed number."""
    if expr is None:
        return fixed
    n = roll_dice(expr, ctx, "attacks")
    ctx.log(f"{attacker.name}'s {label}: Attacks {expr.text()}: {n}.", R_RANDOM, attacks=n)
    return n


def capped(modifier: int) -> int:
    """40k11 core, Hit roll: the total modifier is capped at +1 / -1."""
    return max(-HIT_MODIFIER_CAP, min(HIT_MODIFIER_CAP, modifier))


def hit_succeeds(die: int, skill: int, modifier: int) -> bool:
    """40k11 core, Hit roll: an unmodified 1 fails, an unmodified 6 hits, otherwise the modified
    roll (modifier capped at +/-1) must reach the BS/WS target number."""
    if die == AUTO_FAIL:
        return False
    if die == AUTO_SUCCESS:
        return True
    return die + capped(modifier) >= skill


def wound_target(strength: int, toughness: int) -> int:
    """40k11 core, Wound roll: S >= 2T 2+, S > T 3+, S = T 4+, S <= T/2 6+, S < T 5+."""
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


def wound_succeeds(die: int, need: int, modifier: int = 0) -> bool:
    """An unmodified 1 always fails, an unmodified 6 always wounds [ext]; otherwise the roll plus
    its modifier ([LANCE], capped at +1/-1: 40k11 core rules [ext], Wound roll) must reach ``need``."""
    if die == AUTO_FAIL:
        return False
    cap = max(-WOUND_MODIFIER_CAP, min(WOUND_MODIFIER_CAP, modifier))
    return die == AUTO_SUCCESS or die + cap >= need


def cover_applies(sv: int | None, ap: int) -> bool:
    """40k11 core rules [ext], Benefit of Cover: +1 to the armour save, except for a model with a
    Save of 3+ or better against an attack with AP 0."""
    return sv is not None and not (sv <= COVER_NO_BENEFIT_SAVE and ap == 0)


def save_target(sv: int | None, inv: int | None, ap: int, cover: bool = False) -> int | None:
    """40k11 core, Saving throw: the armour save needs Sv + AP (AP worsens it), one better with the
    Benefit of Cover (40k11 core rules [ext], Benefit of Cover: ``cover_applies``); an invulnerable
    save ignores AP and cover; the better of the two is used. None: no save possible (needs 7+)."""
    armour = None
    if sv is not None:
        armour = sv + ap - (COVER_SAVE_BONUS if cover and cover_applies(sv, ap) else 0)
    options = [t for t in (armour, inv) if t is not None and t <= 6]
    return min(options) if options else None


def save_succeeds(die: int, need: int | None) -> bool:
    """An unmodified 1 always fails a save [ext]."""
    return need is not None and die != AUTO_FAIL and die >= need


def ap_value(ap: int | None) -> int:
    """Weapon.ap in 40k11 is how much worse the save gets (AP -2 may be written 2 or -2)."""
    return abs(ap) if ap is not None else 0


def _judge(ok: Callable[[int], bool], yes: str, no: str) -> Callable[[int], str]:
    return lambda v: yes if ok(v) else no


def resolve(
    state: MatchState, attacker: Unit, target_id: str, p: AttackProfile, ctx: ApplyContext
) -> MatchState:
    """Roll one group of attacks against a target unit and return the state with its losses."""
    target = state.units[target_id]
    if target.destroyed:
        ctx.log(f"{attacker.name}'s {p.label}: {target.name} is already destroyed, attacks lost.", R_DAMAGE)
        return state
    mod = capped(p.modifier)
    why = f" ({', '.join(p.reasons)})" if p.reasons else ""
    need_text = f"{p.skill}+" + (f" {mod:+d}" if mod else "")
    hits = 0
    crits = 0
    if p.torrent:
        # 40k11 core rules [ext], Torrent: every attack hits automatically, no hit roll (so no
        # Critical Hit).
        hits = p.attacks
        ctx.log(
            f"{attacker.name}'s {p.label}: {p.attacks} attack{'' if p.attacks == 1 else 's'}, "
            f"{hits} automatic hit{'' if hits == 1 else 's'} [TORRENT]{why}.",
            R_TORRENT,
        )
    else:
        # A Critical Hit is named only where it matters (Lethal Hits, Sustained Hits), so the odds
        # engine (odds/face_classes.py) tells a 6 from another hit exactly then.
        crit_matters = p.lethal_hits or p.sustained_hits > 0 or p.sustained_dice is not None

        def judge_hit(v: int) -> str:
            if not hit_succeeds(v, p.skill, p.modifier):
                return "miss"
            return "critical hit" if crit_matters and v == CRITICAL_ROLL else "hit"

        for _ in range(p.attacks):
            die = ctx.roll("hit", need_text, judge_hit)
            hits += hit_succeeds(die, p.skill, p.modifier)
            # 40k11 core rules [ext], Critical Hit: an unmodified hit roll of 6 (it always hits).
            crits += die == CRITICAL_ROLL
        ctx.log(
            f"{attacker.name}'s {p.label}: {p.attacks} attack{'' if p.attacks == 1 else 's'}, "
            f"{hits} hit{'' if hits == 1 else 's'} on {need_text}{why}.",
            R_HIT,
        )
    # 40k11 core rules [ext], Lethal Hits: a Critical Hit automatically wounds (no wound roll; it
    # is not a Critical Wound). Sustained Hits X: a Critical Hit scores X additional hits.
    automatic = crits if p.lethal_hits else 0
    if automatic:
        ctx.log(
            f"Lethal Hits: {automatic} Critical Hit{'' if automatic == 1 else 's'} wound automatically.",
            R_LETHAL_HITS,
        )
    extra = crits * p.sustained_hits
    sustained = str(p.sustained_hits)
    if p.sustained_dice is not None and crits:
        # 40k11 core rules [ext], Sustained Hits D3: X is rolled for each Critical Hit, after the
        # hit rolls, in their order (constants.py).
        rolled = [roll_dice(p.sustained_dice, ctx, "sustained hits") for _ in range(crits)]
        extra = sum(rolled)
        sustained = f"{p.sustained_dice.text()} ({', '.join(map(str, rolled))})"
    if extra:
        ctx.log(
            f"Sustained Hits {sustained}: {crits} Critical Hit{'' if crits == 1 else 's'}, "
            f"+{extra} hit{'' if extra == 1 else 's'}.",
            R_SUSTAINED_HITS,
            extra_hits=extra,
        )
    to_roll = hits - automatic + extra
    need_w = wound_target(p.strength, target.profile.t)
    # 40k11 core rules [ext], Critical Wound: an unmodified wound roll of 6, or of X+ against a
    # KEYWORD unit with [ANTI-KEYWORD X+] (constants.CRITICAL_ROLL); it always wounds.
    crit_need = min(CRITICAL_ROLL, p.anti) if p.anti is not None else CRITICAL_ROLL

    def judge_wound(v: int) -> str:
        if v != AUTO_FAIL and v >= crit_need and (p.devastating or p.anti is not None):
            return "critical wound"  # named only where it matters: Anti, Devastating Wounds
        return "wound" if wound_succeeds(v, need_w, p.wound_modifier) else "fail"

    # One entry per wound, in order: True for a [DEVASTATING WOUNDS] Critical Wound (no save).
    wounds: list[bool] = [False] * automatic
    rerolled = 0
    wmod = max(-WOUND_MODIFIER_CAP, min(WOUND_MODIFIER_CAP, p.wound_modifier))
    wound_text = f"{need_w}+" + (f" {wmod:+d}" if wmod else "")
    for _ in range(to_roll):
        outcome = judge_wound(ctx.roll("wound", wound_text, judge_wound))
        if outcome == "fail" and p.twin_linked:
            # 40k11 core rules [ext], Twin-linked: the wound roll is re-rolled (a failed one, at
            # once [decided]: docs/rules-notes.md, 40k11 Weapon abilities).
            rerolled += 1
            outcome = judge_wound(ctx.roll("wound re-roll", wound_text, judge_wound))
        if outcome != "fail":
            wounds.append(outcome == "critical wound" and p.devastating)
    rolled_wounds = len(wounds) - automatic
    if to_roll:
        notes = list(p.wound_reasons) if wmod else []
        if rerolled:
            notes.append(f"Twin-linked: {rerolled} re-rolled")
        if p.anti is not None and p.anti < CRITICAL_ROLL:
            notes.append(f"Anti {p.anti}+: Critical Wounds on {crit_need}+")
        more = f" ({'; '.join(notes)})" if notes else ""
        rule = R_TWIN_LINKED if rerolled else R_ANTI if p.anti is not None else R_WOUND
        ctx.log(
            f"S{p.strength} vs T{target.profile.t}: {rolled_wounds} of {to_roll} wound on {wound_text}{more}.",
            rule,
        )
    need_s = save_target(target.profile.sv, target.profile.inv, p.ap, p.cover)
    save_text = f"{need_s}+" if need_s is not None else "none"
    if p.cover and wounds:
        # 40k11 core rules [ext], Benefit of Cover: +1 to the armour save against a ranged attack.
        plain = save_target(target.profile.sv, target.profile.inv, p.ap)
        if need_s != plain:
            was = f"{plain}+" if plain is not None else "no save"
            ctx.log(
                f"{target.name} has the Benefit of Cover: saves on {save_text} instead of {was}.", R_COVER
            )
        else:
            why_not = (
                f"a Save of {COVER_NO_BENEFIT_SAVE}+ or better against AP 0"
                if not cover_applies(target.profile.sv, p.ap) and target.profile.sv is not None
                else "its save is no better for it"
            )
            ctx.log(f"{target.name} has the Benefit of Cover, without effect: {why_not}.", R_COVER)
    for devastating in wounds:
        if target.destroyed:
            ctx.log(f"{target.name} is destroyed: the remaining wounds are lost.", R_DAMAGE)
            break
        rule = R_DAMAGE
        if devastating:
            # 40k11 core rules [ext], Devastating Wounds: a Critical Wound's Damage is inflicted
            # with no saving throw, excess lost [decided]: docs/rules-notes.md, 40k11 Weapon abilities).
            ctx.log(f"Devastating Wounds: a Critical Wound, {target.name} makes no save.", R_DEVASTATING)
            saved = False
            rule = R_DEVASTATING
        elif need_s is None:
            ctx.log(f"{target.name} has no save against AP-{p.ap}.", R_SAVE)
            saved = False
        else:
            die = ctx.roll("save", save_text, _judge(lambda v: save_succeeds(v, need_s), "saved", "failed"))
            saved = save_succeeds(die, need_s)
        if saved:
            ctx.log(f"{target.name} saves on {save_text}.", R_SAVE)
            continue
        damage, how = attack_damage(p, ctx)
        alive = {m.id for m in target.models.values() if m.alive}
        target, what = inflict(target, damage, ctx)
        ctx.log(f"{target.name} takes {damage} damage{how}: {what}.", rule, damage=damage)
        for mid in sorted(alive - {m.id for m in target.models.values() if m.alive}):
            # 40k11 core rules, Transports, Destroyed Transport, then Deadly Demise: the units
            # aboard disembark, then the destroyed model's Deadly Demise roll (module ``demise``).
            state = model_destroyed(replace_unit(state, target), target.id, mid, ctx)
            target = state.units[target.id]
    return replace_unit(state, target)


def attack_damage(p: AttackProfile, ctx: ApplyContext) -> tuple[int, str]:
    """One unsaved attack's Damage and how it was made, for the log: 40k11 core rules [ext],
    Random characteristics (a random Damage is rolled for each unsaved attack), plus [MELTA X]."""
    notes = list(p.damage_notes)
    if p.damage_dice is not None:
        damage = roll_dice(p.damage_dice, ctx, "damage")
        notes.insert(0, f"Damage {p.damage_dice.text()}: {damage}")
    else:
        damage = p.damage
    damage += p.damage_bonus
    return damage, f" ({', '.join(notes)})" if notes else ""


def hazardous_tests(state: MatchState, unit_id: str, used: list[Weapon], ctx: ApplyContext) -> MatchState:
    """40k11 core rules [ext], Hazardous [decided, simplified: constants.py]: after the unit has shot
    or fought, one test (a D6) for each [HAZARDOUS] weapon used, in order; on a 1 the model carrying
    it is destroyed, or a MONSTER/VEHICLE model suffers 3 mortal wounds (no save, excess lost)."""
    for weapon in used:
        if HAZARDOUS not in weapon.rules:
            continue
        unit = state.units[unit_id]
        model = unit.models.get(weapon.model)
        if model is None or not model.alive:
            continue
        die = ctx.roll(
            "hazardous", f"{HAZARDOUS_FAIL + 1}+", _judge(lambda v: v > HAZARDOUS_FAIL, "passed", "failed")
        )
        if die > HAZARDOUS_FAIL:
            ctx.log(f"{unit.name}'s {weapon.name}: Hazardous test passed ({die}).", R_HAZARDOUS)
            continue
        mortal = is_monster_vehicle(unit)
        wounds = max(0, model.wounds - HAZARDOUS_MORTAL_WOUNDS) if mortal else 0
        models = {**unit.models, model.id: replace(model, wounds=wounds, alive=wounds > 0)}
        hurt = replace(unit, models=models, destroyed=not any(m.alive for m in models.values()))
        if mortal:
            what = f"{model.id} suffers {HAZARDOUS_MORTAL_WOUNDS} mortal wounds: " + (
                f"{wounds} wound{'' if wounds == 1 else 's'} left" if wounds else "it is destroyed"
            )
        else:
            what = f"{model.id} is destroyed"
        if hurt.destroyed:
            what += f"; {unit.name} is destroyed"
        ctx.log(f"{unit.name}'s {weapon.name}: Hazardous test failed (a 1): {what}.", R_HAZARDOUS)
        state = replace_unit(state, hurt)
    return state
