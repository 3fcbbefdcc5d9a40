"""Hull Points and the Vehicle Damage table (40k7 Vehicles, Glancing Hits to Wrecked Vehicles).

``roll_damage`` rolls the table (D6 + AP2 +1 / AP1 +2 [seed], Open-topped +1 [ext]);
``apply_result`` applies one result to a vehicle, with the type exceptions (Chariot, Zooming
Flyer, Super-heavy, already Immobilised). Destruction (Wrecked, Explodes!, Crash and Burn,
Catastrophic Damage) is decided once per attack by ``destruction.finish_vehicle`` from the
:class:`Fate` collected while the hits were resolved (Explodes! beats Wrecked; the explosion
happens once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, assert_never

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import MatchState
from ...match.turns import replace_unit
from . import refs
from .rolls import d3, random_index
from .status import PERMANENT, add_phase_flag, end_of_next_turn, set_status
from .types import is_chariot, is_open_topped, is_super_heavy, is_transport, is_zooming
from .wording import plural

DamageResult = Literal["shaken", "stunned", "weapon_destroyed", "immobilised", "explodes"]

RESULT_NAMES: dict[DamageResult, str] = {
    "shaken": "Crew Shaken",
    "stunned": "Crew Stunned",
    "weapon_destroyed": "Weapon Destroyed",
    "immobilised": "Immobilised",
    "explodes": "Explodes!",
}
# 40k7 Vehicle Damage table modifiers: AP2 +1, AP1 +2 [seed]; Open-topped +1 [ext].
AP_MODIFIER: dict[int, int] = {1: 2, 2: 1}
OPEN_TOPPED_MODIFIER = 1
# Zooming Flyer Immobilised: D6, 1-2 Crash and Burn, 3+ Crew Stunned [ext].
FLYER_CRASH_MAX = 2


@dataclass
class Fate:
    """What happened to one vehicle during one attack, for the end-of-attack destruction step."""

    explodes: bool = False
    crash: bool = False
    results: list[DamageResult] = field(default_factory=list)


def damage_modifier(ap: int | None, open_topped: bool) -> int:
    """40k7 Vehicle Damage table: cumulative modifiers."""
    mod = AP_MODIFIER.get(ap, 0) if ap is not None else 0
    return mod + (OPEN_TOPPED_MODIFIER if open_topped else 0)


def table_result(total: int) -> DamageResult:
    """40k7 Vehicle Damage table: 1-3 Crew Shaken, 4 Crew Stunned, 5 Weapon Destroyed,
    6 Immobilised, 7+ Explodes!"""
    if total <= 3:
        return "shaken"
    if total == 4:
        return "stunned"
    if total == 5:
        return "weapon_destroyed"
    if total == 6:
        return "immobilised"
    return "explodes"


def roll_damage(ctx: ApplyContext, state: MatchState, uid: str, ap: int | None) -> DamageResult:
    """Roll once on the Vehicle Damage table for one penetrating hit."""
    unit = state.units[uid]
    mod = damage_modifier(ap, is_open_topped(unit))
    # The judge names the table result (the odds engine walks one branch per result,
    # docs/odds.md); the log's outcome is set below with the total.
    face = ctx.roll("vehicle damage", f"+{mod}" if mod else "", lambda f: table_result(f + mod))
    result = table_result(face + mod)
    ctx.set_outcome(f"{face + mod}: {RESULT_NAMES[result]}")
    return result


def lose_hp(state: MatchState, uid: str, n: int) -> MatchState:
    """Lose Hull Points (never below 0). 0 HP is judged at the end of the attack."""
    unit = state.units[uid]
    if n <= 0:
        return state
    return replace_unit(state, replace(unit, hp=max(0, unit.hp - n)))


def _passenger_effect(state: MatchState, uid: str) -> MatchState:
    """40k7 Transports: Shaken/Stunned/Weapon Destroyed/Immobilised make the passengers take a
    Leadership test at the end of the phase - "even if they disembark" (or the transport is
    destroyed) before then: the flag names each passenger unit aboard now."""
    unit = state.units[uid]
    if is_transport(unit):
        for pid in unit.passengers:
            state = add_phase_flag(state, f"passenger_test:{pid}:{uid}")
    return state


def apply_result(
    state: MatchState, uid: str, result: DamageResult, ctx: ApplyContext, fate: Fate
) -> MatchState:
    """Apply one Vehicle Damage result (40k7 Vehicles, Vehicle Damage Table) with every type exception."""
    unit = state.units[uid]
    name = RESULT_NAMES[result]
    if is_super_heavy(unit):
        # 40k7 Super-heavy: Shaken/Stunned/Weapon Destroyed/Immobilised are ignored; Explodes!
        # costs D3 more Hull Points instead. Neither counts as a result the vehicle suffered
        # (``fate.results``: e.g. a Death or Glory result that would stop a Tank Shock).
        if result == "explodes":
            extra = d3(ctx, "Super-heavy Explodes!: extra Hull Points lost")
            state = lose_hp(state, uid, extra)
            ctx.log(
                f"{unit.name}: Explodes! on a Super-heavy vehicle: {plural(extra, 'more Hull Point', 'more Hull Points')} lost, "
                f"{state.units[uid].hp} left.",
                refs.SUPER_HEAVY,
            )
        else:
            ctx.log(f"{unit.name} ignores {name} (Super-heavy vehicle).", refs.SUPER_HEAVY)
        return state
    fate.results.append(result)
    until = end_of_next_turn(state, unit.side)
    match result:
        case "shaken":
            state = set_status(state, uid, "shaken", until)
            ctx.log(
                f"{unit.name}: Crew Shaken - Snap Shots only until the end of its next turn.",
                refs.DAMAGE_TABLE,
            )
            return _passenger_effect(state, uid)
        case "stunned":
            state = set_status(state, uid, "stunned", until)
            note = 'must move 18" straight next Movement phase' if is_zooming(unit) else "no move or pivot"
            ctx.log(
                f"{unit.name}: Crew Stunned - Snap Shots only and {note} until the end of its next turn.",
                refs.DAMAGE_TABLE,
            )
            return _passenger_effect(state, uid)
        case "weapon_destroyed":
            working = [w for w in unit.weapons.values() if not w.destroyed]
            if not working:
                ctx.log(
                    f"{unit.name}: Weapon Destroyed with no weapon left - counts as Immobilised.",
                    refs.DAMAGE_TABLE,
                )
                fate.results.pop()
                return apply_result(state, uid, "immobilised", ctx, fate)
            idx = random_index(ctx, len(working), "weapon destroyed: which weapon")
            lost = working[idx]
            weapons = dict(unit.weapons)
            weapons[lost.id] = replace(lost, destroyed=True)
            state = replace_unit(state, replace(unit, weapons=weapons))
            ctx.log(f"{unit.name}: Weapon Destroyed - its {lost.name} is destroyed.", refs.DAMAGE_TABLE)
            return _passenger_effect(state, uid)
        case "immobilised":
            if is_chariot(unit):
                ctx.log(f"{unit.name}: Immobilised counts as Crew Stunned (Chariot).", refs.CHARIOT)
                fate.results.pop()
                return apply_result(state, uid, "stunned", ctx, fate)
            if is_zooming(unit):
                face = ctx.roll(
                    "Zooming Flyer Immobilised",
                    "1-2 Crash and Burn",
                    lambda v: "crash" if v <= FLYER_CRASH_MAX else "stunned",
                )
                if face <= FLYER_CRASH_MAX:
                    fate.crash = True
                    ctx.log(f"{unit.name}: Immobilised while Zooming - it Crashes and Burns!", refs.FLYER)
                    return state
                ctx.log(f"{unit.name}: Immobilised while Zooming counts as Crew Stunned.", refs.FLYER)
                fate.results.pop()
                return apply_result(state, uid, "stunned", ctx, fate)
            if "immobilised" in unit.statuses:
                state = lose_hp(state, uid, 1)
                ctx.log(
                    f"{unit.name}: Immobilised again - loses 1 more Hull Point, {state.units[uid].hp} left.",
                    refs.DAMAGE_TABLE,
                )
                return _passenger_effect(state, uid)
            state = set_status(state, uid, "immobilised", PERMANENT)
            ctx.log(
                f"{unit.name}: Immobilised - it cannot move or pivot for the rest of the game.",
                refs.DAMAGE_TABLE,
            )
            return _passenger_effect(state, uid)
        case "explodes":
            if is_zooming(unit):
                fate.crash = True
                ctx.log(f"{unit.name}: Explodes! while Zooming - it Crashes and Burns!", refs.FLYER)
            else:
                fate.explodes = True
                ctx.log(f"{unit.name}: Explodes!", refs.DAMAGE_TABLE)
            return state
        case _:
            assert_never(result)
