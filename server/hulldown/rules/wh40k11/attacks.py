"""Making attacks in 40k11: hit roll, wound roll, saving throw, damage (40k11 core [ext]).

Dice order [decided]: for one weapon (or one fighting model's weapon), roll every hit roll, then
a wound roll for each hit, then one saving throw per wound, each save followed at once by its
damage, so that allocation sees the wounds already lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState, Unit
from ...match.turns import replace_unit
from .allocation import choose_model
from .constants import AUTO_FAIL, AUTO_SUCCESS, HIT_MODIFIER_CAP, R_DAMAGE, R_HIT, R_SAVE, R_WOUND


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


def wound_succeeds(die: int, need: int) -> bool:
    """An unmodified 1 always fails, an unmodified 6 always wounds [ext]."""
    if die == AUTO_FAIL:
        return False
    return die == AUTO_SUCCESS or die >= need


def save_target(sv: int | None, inv: int | None, ap: int) -> int | None:
    """40k11 core, Saving throw: the armour save needs Sv + AP (AP worsens it); an invulnerable
    save ignores AP; the better of the two is used. None: no save possible (needs 7+)."""
    options = [t for t in ((sv + ap) if sv is not None else None, inv) if t is not None and t <= 6]
    return min(options) if options else None


def save_succeeds(die: int, need: int | None) -> bool:
    """An unmodified 1 always fails a save [ext]."""
    return need is not None and die != AUTO_FAIL and die >= need


def ap_value(ap: int | None) -> int:
    """Weapon.ap in 40k11 is how much worse the save gets (AP -2 may be written 2 or -2)."""
    return abs(ap) if ap is not None else 0


def _judge(ok: Callable[[int], bool], yes: str, no: str) -> Callable[[int], str]:
    return lambda v: yes if ok(v) else no


def inflict(unit: Unit, damage: int, ctx: ApplyContext) -> tuple[Unit, str]:
    """40k11 core, Inflict damage: the allocated model (40k11 core, Allocate attack: the owner's
    choice, rules/wh40k11/allocation.py) loses wounds; excess damage is lost; at 0 wounds it is
    destroyed, and a unit with no models left is destroyed."""
    model = choose_model(unit, damage, ctx)
    if model is None:
        return unit, "no model left"
    wounds = max(0, model.wounds - damage)
    new_model = replace(model, wounds=wounds, alive=wounds > 0)
    models = dict(unit.models)
    models[model.id] = new_model
    hurt = replace(unit, models=models)
    if not any(m.alive for m in models.values()):
        hurt = replace(hurt, destroyed=True)
        return hurt, f"{model.id} is destroyed; {unit.name} is destroyed"
    if wounds == 0:
        return hurt, f"{model.id} is destroyed"
    return hurt, f"{model.id} has {wounds} wound{'s' if wounds != 1 else ''} left"


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
    for _ in range(p.attacks):
        die = ctx.roll(
            "hit", need_text, _judge(lambda v: hit_succeeds(v, p.skill, p.modifier), "hit", "miss")
        )
        hits += hit_succeeds(die, p.skill, p.modifier)
    ctx.log(
        f"{attacker.name}'s {p.label}: {p.attacks} attack{'' if p.attacks == 1 else 's'}, {hits} hit{'' if hits == 1 else 's'} "
        f"on {need_text}{why}.",
        R_HIT,
    )
    need_w = wound_target(p.strength, target.profile.t)
    wounds = 0
    for _ in range(hits):
        die = ctx.roll("wound", f"{need_w}+", _judge(lambda v: wound_succeeds(v, need_w), "wound", "fail"))
        wounds += wound_succeeds(die, need_w)
    if hits:
        ctx.log(f"S{p.strength} vs T{target.profile.t}: {wounds} of {hits} wound on {need_w}+.", R_WOUND)
    need_s = save_target(target.profile.sv, target.profile.inv, p.ap)
    save_text = f"{need_s}+" if need_s is not None else "none"
    for _ in range(wounds):
        if target.destroyed:
            ctx.log(f"{target.name} is destroyed: the remaining wounds are lost.", R_DAMAGE)
            break
        if need_s is None:
            ctx.log(f"{target.name} has no save against AP-{p.ap}.", R_SAVE)
            saved = False
        else:
            die = ctx.roll("save", save_text, _judge(lambda v: save_succeeds(v, need_s), "saved", "failed"))
            saved = save_succeeds(die, need_s)
        if saved:
            ctx.log(f"{target.name} saves on {save_text}.", R_SAVE)
            continue
        target, what = inflict(target, p.damage, ctx)
        ctx.log(f"{target.name} takes {p.damage} damage: {what}.", R_DAMAGE)
    return replace_unit(state, target)
