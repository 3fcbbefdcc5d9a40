"""Close combat and assault results (40k7 Vehicles and Close Combat, and the minimal core [ext]).

- Close combat: models in base contact, or within 2" of a friend in base contact, strike in
  Initiative order (simultaneous within a step). To hit: the WS chart; vehicles are WS1, an
  Immobilised non-Walker WS0 (hit automatically); Walkers and Chariots use their WS. Hits on
  vehicles roll armour penetration against the rear armour (Walkers: front, rear when
  Immobilised; Chariots: front [decided]); glancing = 1 wound, penetrating = 2 for the result.
- Assault result: the loser (not a vehicle) takes a Morale check at -difference; if it fails and
  the winner can make a Sweeping Advance (not a non-Walker vehicle, not a Stunned or Immobilised
  Walker), both roll D6 + I: the loser is destroyed if the winner's total is at least its own;
  otherwise it Falls Back. Vehicles never Pile In, Consolidate or Sweep (40k7 Vehicles and Close
  Combat); no pile-in or consolidation moves are made at all [decided, simplification].
- Vehicles (not Walkers) are never locked in combat; in the vehicle owner's Assault phase the
  enemies still in base contact may attack it again: their owner decides (pending decision).
- Smash (Monstrous Creatures and Super-heavy Walkers, 40k7 Special Rules, Smash [ext]): every close combat
  attack but Hammer of Wrath is AP2 (AP1 weapons keep AP1); instead of its attacks each engaged
  model may make a single Smash Attack at double its Strength (at most 10) that re-rolls armour
  penetration. The choice is the attacking player's (``Fight.smash``); a unit that fights without
  making it (the unit fought against, the combats fought at the end of the phase) makes its
  normal attacks (SMASH_DEFAULT [decided]). A Smash Attack strikes at the model's Initiative.
- Unwieldy (40k7 Special Rules, Unwieldy): a model attacking with an Unwieldy weapon strikes at
  Initiative 1 (UNWIELDY_INITIATIVE), a Smash Attack with one too.
- Two close combat weapons (40k7 The Assault Phase, Number of Attacks [ext]): a model that is not
  a vehicle with two or more Melee weapons gets +1 Attack (TWO_WEAPONS_BONUS); with a Specialist
  Weapon only if it carries another Specialist Weapon. Walkers have their own bonus
  (walker_weapon_bonus) and never this one too.
"""

from __future__ import annotations

import math

from msgspec.structs import replace

from ...match.actions import Fight
from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import Decision, MatchState, Model, Side, Unit, Weapon
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .attacks import ArmourFacing, Hit, Tally
from .core import ws_to_hit
from .geo import CONTACT_EPS, alive, contact_pairs, footprint, on_table, unit_distance, units_in_contact
from .morale import fall_back, morale_check
from .penetration import SMASH_REROLL_RESULTS, PenProfile
from .resolve import resolve_hits
from .rolls import judge
from .squadrons import squadron_members
from .status import add_phase_flag, has_phase_flag
from .stomp import is_super_heavy_walker, stomp
from .types import has_smash, is_chariot, is_vehicle, is_walker, locks_in_combat
from .wording import plural

ENGAGED_RANGE = 2.0
CHARGE_BONUS_ATTACKS = 1
HAMMER_OF_WRATH_INITIATIVE = 10
CHARIOT_HAMMER_STRENGTH = 6
# 40k7 Special Rules, Smash.
SMASH_AP = 2
SMASH_KEEPS_AP = 1  # an AP1 weapon stays AP1
SMASH_STRENGTH_FACTOR = 2
SMASH_MAX_STRENGTH = 10
SMASH_ATTACKS = 1  # per model
SMASH_DEFAULT = False  # a unit not choosing (no Fight action of its own) makes its normal attacks [decided]
# 40k7 Special Rules, Unwieldy.
UNWIELDY_INITIATIVE = 1
# 40k7 The Assault Phase, Number of Attacks: two (or more) close combat weapons.
TWO_WEAPONS_BONUS = 1
# 40k7 Weapons, Pistol: "a Pistol also counts as a close combat weapon in the Assault phase", so
# it counts toward the two weapons (a bolt pistol and a chainsword: +1 Attack) [ext].
PISTOLS_COUNT_AS_CLOSE_COMBAT_WEAPONS = True


def _can_fight(unit: Unit) -> bool:
    """Units that make close combat attacks: everything except non-Walker, non-Chariot vehicles."""
    return not is_vehicle(unit) or is_walker(unit) or is_chariot(unit)


# --- Fight --------------------------------------------------------------------------------


def combat_key(a: str, b: str) -> str:
    return "fought:" + ":".join(sorted((a, b)))


def validate_fight(state: MatchState, action: Fight) -> Rejection | None:
    unit = state.units[action.unit]
    if state.phase != "assault":
        return reject(
            "wrong_phase",
            refs.FIGHT,
            f"close combat is fought in the Assault phase, not the {state.phase} phase",
        )
    target = state.units.get(action.target)
    if target is None or not on_table(target) or target.side == unit.side:
        return reject("bad_target", refs.FIGHT, f"{action.target!r} is not an enemy unit on the battlefield")
    if not on_table(unit):
        return reject("not_on_table", refs.FIGHT, f"{unit.name} is not on the battlefield")
    if action.smash and not has_smash(unit):
        # 40k7 Special Rules, Smash: only a model with the rule (Monstrous Creatures, Super-heavy
        # Walkers); the unit's own rule, so told before where its target stands.
        return reject(
            "no_smash",
            refs.SMASH,
            f"{unit.name} has no Smash special rule (Monstrous Creatures and Super-heavy Walkers have it)",
            unit=unit.id,
        )
    members = squadron_members(state, target)
    d = min((unit_distance(unit, m) for m in members), default=math.inf)
    if d > CONTACT_EPS:
        return reject(
            "not_in_contact",
            refs.FIGHT,
            f"{unit.name} is not in base contact with {target.name} ({d:.2f} in apart)",
            distance=d,
        )
    if has_phase_flag(state, combat_key(unit.id, target.id)):
        return reject(
            "already_fought", refs.FIGHT, f"{unit.name} and {target.name} have already fought this phase"
        )
    if not (_can_fight(unit) or _can_fight(target)):
        return reject("nobody_fights", refs.CLOSE_COMBAT, "neither unit can make close combat attacks")
    if not _can_fight(unit):
        # 40k7 Vehicles and Close Combat: enemies in contact may attack the vehicle again - their choice.
        return reject(
            "cannot_fight",
            refs.CLOSE_COMBAT,
            f"{unit.name} is a vehicle: it makes no close combat attacks (Walkers and Chariots do)",
            unit=unit.id,
        )
    return _validate_fight_weapon(unit, action.weapon)


def _validate_fight_weapon(unit: Unit, weapon_id: str | None) -> Rejection | None:
    """40k7 Fight sub-phase: the attacks are made with one of the unit's working close combat
    weapons (none named: its first one, or a plain close combat attack)."""
    if weapon_id is None:
        return None
    weapon = unit.weapons.get(weapon_id)
    if weapon is None or weapon.destroyed:
        return reject(
            "unknown_weapon",
            refs.FIGHT,
            f"{unit.name} has no working close combat weapon {weapon_id!r}",
            weapon=weapon_id,
        )
    if weapon.type != "melee":
        return reject(
            "not_melee",
            refs.FIGHT,
            f"{weapon.name} is a {weapon.type.replace('_', ' ')} weapon (range {weapon.range:g} in), "
            "not a close combat weapon",
            weapon=weapon.id,
            range=weapon.range,
        )
    return None


def apply_fight(state: MatchState, action: Fight, ctx: ApplyContext) -> MatchState:
    return resolve_combat(state, ctx, action.unit, action.target, action.weapon, action.smash)


def _engaged(state: MatchState, unit: Unit, enemy_ids: list[str]) -> list[Model]:
    enemies = [m for eid in enemy_ids for m in alive(state.units[eid])]
    contact = [
        m for m in alive(unit) if any(g.distance(footprint(m), footprint(e)) <= CONTACT_EPS for e in enemies)
    ]
    engaged = list(contact)
    for m in alive(unit):
        if m in engaged:
            continue
        if any(g.distance(footprint(m), footprint(c)) <= ENGAGED_RANGE + 1e-9 for c in contact):
            engaged.append(m)
    return engaged


def _defender_ws(unit: Unit) -> int:
    """40k7 Vehicles and Close Combat: vehicles count as WS1; an Immobilised non-Walker WS0."""
    if not is_vehicle(unit):
        return unit.profile.ws
    if is_walker(unit) or is_chariot(unit):
        return unit.profile.ws
    return 0 if "immobilised" in unit.statuses else 1


def _cc_facing(unit: Unit) -> ArmourFacing:
    """40k7 Vehicles and Close Combat: rear armour; Walkers front (rear when Immobilised); Chariots
    front [decided]."""
    if is_walker(unit):
        return "rear" if "immobilised" in unit.statuses else "front"
    if is_chariot(unit):
        return "front"
    return "rear"


def _model_weapon(unit: Unit, model: Model, named: str | None) -> Weapon | None:
    """40k7 The Assault Phase, Fight Sub-phase [ext]: each model strikes with a close combat
    weapon it carries itself - the named one if it carries it, else its first working one; a
    model that carries none makes plain close combat attacks (its own Strength, no AP)."""
    carried = [
        w for w in unit.weapons.values() if w.model == model.id and w.type == "melee" and not w.destroyed
    ]
    return next((w for w in carried if w.id == named), carried[0] if carried else None)


StrikeKey = tuple[str, int | None, int | None, tuple[str, ...], int]


def _strike_groups(
    unit: Unit, models: list[Model], named: str | None
) -> list[tuple[Weapon | None, int, int]]:
    """The engaged models grouped by the weapon each strikes with (40k7 The Assault Phase, Fight
    Sub-phase: models with different weapons roll their attacks separately); identical weapons
    (same name and profile) with the same two-weapons bonus (40k7 Number of Attacks) are one
    group, in the order the models come: (weapon, models, bonus Attacks each)."""
    groups: dict[StrikeKey, tuple[Weapon | None, int, int]] = {}
    for m in models:
        w = _model_weapon(unit, m, named)
        bonus = two_weapons_bonus(unit, m, w)
        key: StrikeKey = (
            ("", None, None, (), bonus) if w is None else (w.name, w.strength, w.ap, w.rules, bonus)
        )
        first, count, _ = groups.get(key, (w, 0, bonus))
        groups[key] = (first, count + 1, bonus)
    return list(groups.values())


def _counts_as_close_combat_weapon(weapon: Weapon) -> bool:
    """A working close combat weapon for the two-weapons bonus (40k7 Number of Attacks): Melee
    weapons, not grenades; pistols only if PISTOLS_COUNT_AS_CLOSE_COMBAT_WEAPONS [decided]."""
    if weapon.destroyed or "grenade" in weapon.rules:
        return False
    return weapon.type == "melee" or (PISTOLS_COUNT_AS_CLOSE_COMBAT_WEAPONS and weapon.type == "pistol")


def two_weapons_bonus(unit: Unit, model: Model, weapon: Weapon | None) -> int:
    """40k7 The Assault Phase, Number of Attacks [ext]: a model armed with two (or more)
    close combat weapons gets +1 Attack (TWO_WEAPONS_BONUS, never more than one). 40k7 Special
    Rules, Specialist Weapon: a model fighting with a Specialist Weapon gets it only if it carries
    another Specialist Weapon. Vehicles never: a Walker has walker_weapon_bonus instead (40k7
    Walkers), so the two bonuses are never both applied."""
    if is_vehicle(unit) or weapon is None or not _counts_as_close_combat_weapon(weapon):
        return 0
    others = [
        w
        for w in unit.weapons.values()
        if w.model == model.id and w.id != weapon.id and _counts_as_close_combat_weapon(w)
    ]
    if "specialist" in weapon.rules:
        others = [w for w in others if "specialist" in w.rules]
    return TWO_WEAPONS_BONUS if others else 0


def strike_initiative(unit: Unit, weapon: Weapon | None) -> int:
    """The Initiative step a model strikes at (40k7 The Assault Phase, Fight Sub-phase): its
    Initiative (at least 1, at most 10); 40k7 Special Rules, Unwieldy: Initiative 1 with an
    Unwieldy weapon. A Smash Attack keeps the model's Initiative (40k7 Smash) - Unwieldy still
    applies to it."""
    if weapon is not None and "unwieldy" in weapon.rules:
        return UNWIELDY_INITIATIVE
    return min(HAMMER_OF_WRATH_INITIATIVE, max(1, unit.profile.i))


def walker_weapon_bonus(unit: Unit) -> int:
    """40k7 Walkers, Walkers and Assaults: a Walker armed with two or more Melee weapons gains +1
    bonus Attack for each working one after the first (not limited to one); a destroyed weapon
    no longer counts."""
    if not is_walker(unit):
        return 0
    working = sum(1 for w in unit.weapons.values() if w.type == "melee" and not w.destroyed)
    return max(0, working - 1)


def _attacks_each(state: MatchState, unit: Unit, enemy: Unit, weapon: Weapon | None, bonus: int = 0) -> int:
    """40k7 The Assault Phase, Number of Attacks: A, +1 on the charge, ``bonus`` for two close
    combat weapons (two_weapons_bonus); 40k7 Walkers: +1 per Melee weapon after the first, and
    Stunned or Immobilised one less (at least 1); a model attacking with a grenade makes one
    Attack."""
    attacks_each = unit.profile.a + (CHARGE_BONUS_ATTACKS if _charged(state, unit, enemy) else 0)
    attacks_each += walker_weapon_bonus(unit) + bonus
    if is_walker(unit) and ("stunned" in unit.statuses or "immobilised" in unit.statuses):
        attacks_each = max(1, attacks_each - 1)
    if weapon is not None and "grenade" in weapon.rules:
        attacks_each = 1
    return attacks_each


def _strike(
    state: MatchState,
    ctx: ApplyContext,
    unit: Unit,
    models: list[Model],
    weapon_id: str | None,
    enemy: Unit,
    initiative: int,
    smash: bool = False,
) -> list[Hit]:
    """The engaged models' attacks at one Initiative step, each model with its own weapon: those
    whose weapon strikes at this step (strike_initiative: 40k7 Unwieldy)."""
    hits: list[Hit] = []
    for weapon, count, bonus in _strike_groups(unit, models, weapon_id):
        if strike_initiative(unit, weapon) != initiative:
            continue
        hits += _strike_with(state, ctx, unit, models, weapon, count, enemy, initiative, bonus, smash)
    return hits


def _smash_ap(ap: int | None) -> int:
    """40k7 Special Rules, Smash: the attack is AP2; an AP1 weapon keeps AP1."""
    return SMASH_KEEPS_AP if ap == SMASH_KEEPS_AP else SMASH_AP


def _strike_with(
    state: MatchState,
    ctx: ApplyContext,
    unit: Unit,
    models: list[Model],
    weapon: Weapon | None,
    count: int,
    enemy: Unit,
    initiative: int,
    bonus: int = 0,
    smash: bool = False,
) -> list[Hit]:
    """The attacks of ``count`` engaged models striking with ``weapon`` (None: plain close combat
    attacks): roll To Hit on the Weapon Skill table (40k7 The Assault Phase, Roll To Hit).
    40k7 Special Rules, Smash: a model with Smash strikes at AP2 (an AP1 weapon keeps AP1);
    ``smash``: one Smash Attack per model at double its Strength (at most 10), re-rolling armour
    penetration (penetration.SMASH_REROLL_RESULTS)."""
    smashing = smash and has_smash(unit)
    attacks_each = SMASH_ATTACKS if smashing else _attacks_each(state, unit, enemy, weapon, bonus)
    strength = weapon.strength if weapon is not None and weapon.strength else unit.profile.s
    ap = weapon.ap if weapon is not None else None
    if has_smash(unit):
        ap = _smash_ap(ap)
    rules = weapon.rules if weapon is not None else ()
    n = attacks_each * count
    def_ws = _defender_ws(enemy)
    need = ws_to_hit(unit.profile.ws, def_ws)
    label = f"{unit.name} ({weapon.name if weapon else 'close combat'})"
    if smashing:
        strength = min(SMASH_MAX_STRENGTH, SMASH_STRENGTH_FACTOR * unit.profile.s)
        label = f"{unit.name} (Smash Attack)"
        ctx.log(
            f"{unit.name}: {plural(count, 'Smash Attack')} at S{strength} AP{ap}, re-rolling armour "
            "penetration.",
            refs.SMASH,
            attacks=n,
            strength=strength,
            ap=_smash_ap(ap),
        )
    elif bonus:
        ctx.log(
            f"{label}: +{bonus} Attack for two close combat weapons.",
            refs.NUMBER_OF_ATTACKS,
            bonus=bonus,
        )
    if need <= 1:
        hits_n = n
        ctx.log(
            f"{label}: {plural(n, 'attack')} at Initiative {initiative} hit automatically (WS0).",
            refs.WS_TABLE,
            attacks=n,
            initiative=initiative,
            defender_ws=def_ws,
            to_hit=1,
            hits=hits_n,
        )
    else:
        faces = [
            ctx.roll(
                "close combat to hit",
                f"WS{unit.profile.ws} vs WS{def_ws}: {need}+",
                judge(need, "hit", "miss"),
            )
            for _ in range(n)
        ]
        hits_n = sum(1 for f in faces if f >= need)
        ctx.log(
            f"{label}: {plural(n, 'attack')} at Initiative {initiative}, WS{unit.profile.ws} vs WS{def_ws} hits on {need}+: {plural(hits_n, 'hit')}.",
            refs.WS_TABLE,
            attacks=n,
            initiative=initiative,
            ws=unit.profile.ws,
            defender_ws=def_ws,
            to_hit=need,
            hits=hits_n,
        )
    origin = (models[0].pos.x, models[0].pos.y) if models else (0.0, 0.0)
    facing = _cc_facing(enemy) if is_vehicle(enemy) else None
    pen = PenProfile(
        strength,
        armourbane="armourbane" in rules,
        melta_half="melta" in rules,
        lance="lance" in rules,
        haywire="haywire" in rules,
        reroll=SMASH_REROLL_RESULTS if smashing else (),
    )
    hit = Hit(pen, ap, origin, label, group=unit.id, facing=facing, cover_allowed=False, rules=rules)
    return [hit] * hits_n


def _charged(state: MatchState, unit: Unit, enemy: Unit) -> bool:
    """``unit`` charged ``enemy`` this turn - or its squadron: a charge at any member is at the
    squadron (40k7 Vehicle Squadrons), a member destroyed since included."""
    if unit.flag(f"charged_into:{enemy.id}"):
        return True
    if enemy.squadron is None:
        return False
    return any(
        unit.flag(f"charged_into:{u.id}")
        for u in state.units.values()
        if u.squadron == enemy.squadron and u.side == enemy.side
    )


def _hammer_of_wrath(
    state: MatchState, ctx: ApplyContext, unit: Unit, models: list[Model], enemy: Unit
) -> list[Hit]:
    """40k7 Hammer of Wrath (all Walkers; Chariots: D6 S6 hits) after a successful charge."""
    if not _charged(state, unit, enemy) or not models:
        return []
    origin = (models[0].pos.x, models[0].pos.y)
    facing = _cc_facing(enemy) if is_vehicle(enemy) else None
    if is_chariot(unit):
        n = ctx.roll("Hammer of Wrath (Chariot) hits", "D6")
        pen = PenProfile(CHARIOT_HAMMER_STRENGTH)
    elif is_walker(unit):
        n = len(models)
        pen = PenProfile(unit.profile.s)
    else:
        return []
    ctx.log(f"{unit.name}: Hammer of Wrath, {plural(n, 'automatic hit')} at Initiative 10.", refs.FIGHT)
    hit = Hit(
        pen, None, origin, f"{unit.name} (Hammer of Wrath)", group=unit.id, facing=facing, cover_allowed=False
    )
    return [hit] * n


def _standing(state: MatchState, uid: str) -> str | None:
    """The unit fought as ``uid``: itself while it stands, else a member of its squadron still
    standing - 40k7 Vehicle Squadrons: hits on a squadron go "first against squadron models in
    base contact, then against models further away, once the closest model is destroyed", so the
    fight goes on while any member stands; None when none does."""
    unit = state.units[uid]
    if not unit.destroyed:
        return uid
    return next((m.id for m in squadron_members(state, unit) if not m.destroyed), None)


def _struck(state: MatchState, unit: Unit, foe: str) -> str:
    """The squadron member ``unit``'s attacks are rolled against - its Weapon Skill, the facing
    hit: the one fought while it is in base contact with the attackers, else the first (by id)
    of those that are (40k7 Vehicle Squadrons: hits go "first against squadron models in base
    contact"). Which member a client names no longer matters: the WS of an Immobilised member
    out of reach made every attack hit automatically [decided: by id among several in contact]."""
    touching = [m for m in squadron_members(state, state.units[foe]) if units_in_contact(unit, m)]
    if not touching or any(m.id == foe for m in touching):
        return foe
    return min(m.id for m in touching)


def resolve_combat(
    state: MatchState,
    ctx: ApplyContext,
    a_id: str,
    b_id: str,
    weapon_a: str | None = None,
    smash_a: bool = False,
) -> MatchState:
    """One round of close combat between two units, then the assault result. ``smash_a``: the
    first unit makes Smash Attacks (40k7 Smash, its player's choice); the other SMASH_DEFAULT."""
    state = add_phase_flag(add_phase_flag(state, combat_key(a_id, b_id)), "fight_started")
    a, b = state.units[a_id], state.units[b_id]
    ctx.log(f"Close combat: {a.name} against {b.name}.", refs.FIGHT)
    tallies: dict[str, Tally] = {a_id: Tally(), b_id: Tally()}
    weapons = {a_id: weapon_a, b_id: None}
    smashes = {a_id: smash_a, b_id: SMASH_DEFAULT}
    for step in range(HAMMER_OF_WRATH_INITIATIVE, 0, -1):
        pending: list[tuple[str, str, list[Hit]]] = []
        for me, named in ((a_id, b_id), (b_id, a_id)):
            unit = state.units[me]
            foe = _standing(state, named)
            if unit.destroyed or foe is None or not _can_fight(unit):
                continue
            enemy_ids = [u.id for u in squadron_members(state, state.units[foe])] or [foe]
            models = _engaged(state, unit, enemy_ids)
            if not models:
                continue
            enemy = state.units[_struck(state, unit, foe)]
            hits: list[Hit] = []
            if step == HAMMER_OF_WRATH_INITIATIVE:
                hits += _hammer_of_wrath(state, ctx, unit, models, enemy)
            hits += _strike(state, ctx, unit, models, weapons[me], enemy, step, smashes[me])
            if hits:
                pending.append((me, foe, hits))
        for me, named, hits in pending:
            foe = _standing(state, named)
            if foe is None:
                continue
            state, tally = resolve_hits(state, ctx, foe, hits, attacker=me, kind="close_combat", exclude=())
            t = tallies[me]
            t.glancing += tally.glancing
            t.penetrating += tally.penetrating
            t.unsaved_wounds += tally.unsaved_wounds
            t.casualties += tally.casualties
    # 40k7 Super-heavy Walkers, Stomp: at the Initiative 1 step, after the round's other attacks.
    for me, foe in ((a_id, b_id), (b_id, a_id)):
        unit, enemy = state.units[me], state.units[foe]
        if unit.destroyed or enemy.destroyed or not is_super_heavy_walker(unit):
            continue
        if not _engaged(state, unit, [u.id for u in squadron_members(state, enemy)] or [foe]):
            continue
        state, tally = stomp(state, ctx, me, foe)
        t = tallies[me]
        t.penetrating += tally.penetrating
        t.unsaved_wounds += tally.unsaved_wounds
        t.casualties += tally.casualties
    return _assault_result(state, ctx, a_id, b_id, tallies)


def _assault_result(
    state: MatchState, ctx: ApplyContext, a_id: str, b_id: str, tallies: dict[str, Tally]
) -> MatchState:
    """40k7 Vehicles and Close Combat: glancing = 1 wound, penetrating = 2; vehicles never test or sweep."""
    sa, sb = tallies[a_id].combat_wounds, tallies[b_id].combat_wounds
    a, b = state.units[a_id], state.units[b_id]
    ctx.log(f"Assault result: {a.name} {sa}, {b.name} {sb}.", refs.ASSAULT_RESULT)
    if sa == sb:
        ctx.log("The combat is a draw.", refs.ASSAULT_RESULT)
        return state
    winner, loser = (a_id, b_id) if sa > sb else (b_id, a_id)
    diff = abs(sa - sb)
    lose = state.units[loser]
    if lose.destroyed:
        return state
    if is_vehicle(lose):
        ctx.log(f"{lose.name} is a vehicle and loses the combat: nothing happens.", refs.CLOSE_COMBAT)
        return state
    if "falling_back" in lose.statuses:
        return state
    state, passed = _loser_morale(state, ctx, loser, diff)
    if passed:
        return state
    win = state.units[winner]
    # 40k7 Walkers and Chariots (published rules): both may Sweep; a Stunned or Immobilised
    # Walker may not [decided for the Chariot: the same limits as a Walker].
    can_sweep = not win.destroyed and (
        not is_vehicle(win)
        or (
            (is_walker(win) or is_chariot(win))
            and "stunned" not in win.statuses
            and "immobilised" not in win.statuses
        )
    )
    if not can_sweep:
        if is_vehicle(win):
            ctx.log(f"{win.name} is a vehicle: it does not Sweep or Consolidate.", refs.CLOSE_COMBAT)
        return fall_back(state, ctx, loser)
    wi = ctx.roll("Sweeping Advance (winner)", f"D6 + I{win.profile.i}")
    li = ctx.roll("Sweeping Advance (loser)", f"D6 + I{lose.profile.i}")
    if wi + win.profile.i >= li + lose.profile.i:
        lost = state.units[loser]
        ctx.log(f"{win.name} catches {lost.name} in a Sweeping Advance: it is destroyed.", refs.SWEEPING)
        return replace_unit(
            state,
            replace(
                lost, destroyed=True, models={k: replace(m, alive=False) for k, m in lost.models.items()}
            ),
        )
    ctx.log(f"{lose.name} escapes the Sweeping Advance.", refs.SWEEPING)
    return fall_back(state, ctx, loser)


def _loser_morale(state: MatchState, ctx: ApplyContext, loser: str, diff: int) -> tuple[MatchState, bool]:
    """The loser's Morale check at -difference; on a failure fall_back has already moved it."""
    unit = state.units[loser]
    if "falling_back" in unit.statuses:
        return state, False
    return morale_check(
        state, ctx, loser, modifier=-diff, reason=" (lost the combat)", fall_back_on_fail=False
    )


# --- End of the Assault phase ---------------------------------------------------------------


def _contacts(state: MatchState, side: Side) -> list[tuple[str, str]]:
    """Pairs (unit of ``side``, enemy unit) in base contact."""
    return list(contact_pairs(state.units, side))


def continue_end_of_assault(state: MatchState, ctx: ApplyContext) -> MatchState:
    """Fight the combats left at the end of the active side's Assault phase: locked combats are
    fought; enemies in contact with the active side's vehicles may attack them (their owner
    decides: the returned state then has a pending decision)."""
    side = state.active
    while True:
        progressed = False
        for mine, theirs in _contacts(state, side):
            if has_phase_flag(state, combat_key(mine, theirs)):
                continue
            u, e = state.units[mine], state.units[theirs]
            if u.destroyed or e.destroyed:
                continue
            if not locks_in_combat(u) and _can_fight(e):
                return replace(
                    state,
                    pending=Decision(
                        id=f"attack-{ctx.seq}-{theirs}-{mine}",
                        side=e.side,
                        kind="attack_vehicle",
                        options=("attack", "no"),
                        prompt=f"{e.name} is still in base contact with {u.name}: attack it again?",
                        rule=refs.CLOSE_COMBAT,
                        context={"unit": theirs, "target": mine},
                    ),
                )
            if _can_fight(u) and _can_fight(e) and locks_in_combat(e):
                state = resolve_combat(state, ctx, mine, theirs)
                progressed = True
                break
        if not progressed:
            return state


def resume_attack_vehicle(
    state: MatchState, decision: Decision, choice: str, ctx: ApplyContext
) -> MatchState:
    state = replace(state, pending=None)
    uid, tid = decision.context["unit"], decision.context["target"]
    if choice == "attack":
        state = resolve_combat(state, ctx, uid, tid)
    else:
        state = add_phase_flag(state, combat_key(uid, tid))
        ctx.log(f"{state.units[uid].name} does not attack {state.units[tid].name}.", refs.CLOSE_COMBAT)
    return state
