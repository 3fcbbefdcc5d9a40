"""Horus Heresy 3rd edition: constants, rule references and unit queries shared by every module.

Sub-types and special rules live in ``Unit.keywords`` (lower case); a variable special rule is a
keyword ``name:X`` (``explodes:5``, ``mitigation:5``, ``auto_repair:4``). Weapon special rules
live in ``Weapon.rules`` the same way (``heavy:s``, ``armourbane``, ``barrage``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Profile, Side, Unit, Weapon

# --- Rule references (edition + section: hh3 Vehicles, Transport sub-type and core headings) ---
R_VEHICLE = "hh3 Vehicles"
R_REPAIR = "hh3 Vehicles, Repair Test"
R_MOVE = "hh3 Vehicles, Movement"
R_PIVOT = "hh3 Vehicles, Pivoting is not moving"
R_RUSH = "hh3 Vehicles, No rushing"
R_RAPID = "hh3 Vehicle Sub-Types, Rapid (the Fast sub-type)"
R_CLIMB = "hh3 Vehicles, No climbing"
R_DANGEROUS = "hh3 Vehicles, Dangerous terrain"
R_DIFFICULT = "hh3 core, Line of Movement (difficult and dangerous terrain)"
R_DRIVE = "hh3 Vehicles, Driving through other units"
R_SHOOT = "hh3 Vehicles, Shooting"
R_WEAPON_CLASS = "hh3 Vehicles, Defensive and Battle weapons"
R_ARCS = "hh3 Vehicles, Fire arcs and weapon mounts"
R_FACING = "hh3 Vehicles, Which facing is hit"
R_PEN = "hh3 Vehicles, Armour penetration"
R_PENETRATING = "hh3 Vehicles, Penetrating hits"
R_GLANCING = "hh3 Vehicles, Vehicle damage table"
R_WRECK = "hh3 Vehicles, Wrecks"
R_EXPLODES = "hh3 Armoury, Explodes (X)"
R_COMBAT = "hh3 Vehicles, Combat"
R_VOLLEY = "hh3 core, Charge Procedure, Make Volley Attacks"
R_CHARGE_MOVE = "hh3 core, Charge Procedure, Make Charge Move"
R_SETUP_MOVE = "hh3 core, Charge Procedure, Make Set-up Move"
R_LIGHT_TRANSPORT = "hh3 Armoury, Light Transport and Bulky (X)"
R_TRANSPORT = "hh3 Transport sub-type, Who can get in"
R_EMBARK = "hh3 Transport sub-type, Embarking / Disembarking"
R_DISEMBARK_MOVE = "hh3 core, Placing Disembarked Models"
R_EMERGENCY = "hh3 Transport sub-type, Emergency Disembarkation"
R_EMBARKED_STATUS = "hh3 Transports, Embarking and Disembarking (an embarked unit keeps its statuses)"
R_CORE_MOVE = "hh3 core, Movement Phase"
R_CORE_SHOOT = "hh3 core, Shooting Attacks"
R_CORE_TARGET = "hh3 core, Shooting Attack Procedure, Select Target Unit"
R_CORE_HIT = "hh3 core, Hit Tests (Ranged and Melee Hit Tables)"
R_CORE_WOUND = "hh3 core, Wound Tests (Wound Table)"
R_CORE_SAVE = "hh3 core, Saving Throws and Damage Mitigation"
R_CORE_ALLOCATE = "hh3 core, Wound Allocation"
R_CORE_CHARGE = "hh3 core, Charge Sub-Phase"
R_CORE_FIGHT = "hh3 core, Fight Sub-Phase"
R_INITIATIVE_STEP = "hh3 core, Fight Sub-Phase, Resolving an Initiative Step"
R_PARAGON = "hh3 Model Types, Paragon"
R_TRANSPORT_PARAGONS = "hh3 Transports, Specialists, Command and Paragons"
R_BATTLESMITH = "hh3 Armoury, Battlesmith (X)"
R_RESOLUTION = "hh3 core, Resolution Sub-Phase"
R_CHALLENGE = "hh3 core, Challenge Sub-Phase"
R_DISGRACED = "hh3 core, Challenge Sub-Phase, Disgraced"
R_CORE_COOL = "hh3 core, Cool Checks"
R_TURN = "hh3 core, The Turn"

# --- Distances (inches) -------------------------------------------------------------------------
# Never end a move, pivot or disembark within 1" of an enemy (hh3 Vehicles, Pivoting is not moving
# and Driving through other units; Transport sub-type, Embarking / Disembarking).
ENEMY_GAP = 1.0
EMBARK_RANGE = 2.0  # embark within 2" of an access facing (hh3 Transport sub-type, Embarking / Disembarking)
COHERENCY = 2.0  # infantry unit coherency (hh3 core, Unit Coherency)
CHARGE_RANGE = 12.0  # hh3 core, Charge Sub-Phase: a charge may be declared up to 12" away [ext]
# Base contact: bases touching within this tolerance count as in contact [decided: 0.05"].
CONTACT = 0.05
# Models engaged in a fight: in base contact, or within 2" of a friendly model in base contact [ext].
ENGAGE_SUPPORT = 2.0
EXPLOSION_RANGE = 6.0  # hh3 Armoury, Explodes (X): every unit within 6"
DEFAULT_BASE_MM = 32.0  # a model on a base without a size given: 32 mm [decided]

# --- Numbers ----------------------------------------------------------------------------------
VEHICLE_WS = 1  # a vehicle counts as WS1 in combat (hh3 Vehicles, Combat)
REPAIR_TARGET = 6  # hh3 Vehicles, Repair Test: a 6 removes one status; Auto-repair (X) lowers it
DRIVE_THROUGH_STRENGTH = 6  # D6 S6 AP- hits per enemy unit (hh3 Vehicles, Driving through other units) [ext]
EXPLOSION_STRENGTH = 8  # hh3 Armoury, Explodes (X): S8 AP- D1 hits, as many as the starting HP
DEFENSIVE_MAX_STRENGTH = 6  # S6 or less: Defensive (hh3 Vehicles, Defensive and Battle weapons) [ext]
DANGEROUS_FAILS_ON = 1  # a dangerous terrain test fails on a 1 (hh3 Vehicles, Dangerous terrain) [ext]

# Sub-type keywords. The seed calls it Fast, the published rules Rapid: accept both (hh3 Vehicles,
# No rushing).
FAST_KEYWORDS = ("fast", "rapid")
SUPER_HEAVY_KEYWORDS = ("super-heavy", "super_heavy", "superheavy")
STABLE_KEYWORD = "stable"
FLYER_KEYWORD = "flyer"
TRANSPORT_KEYWORD = "transport"
ASSAULT_VEHICLE_KEYWORD = "assault_vehicle"
LIGHT_TRANSPORT_KEYWORD = "light_transport"
# Unit kinds that may embark on a transport (hh3 Transport sub-type, Who can get in).
EMBARK_KINDS = ("infantry", "paragon")

# Turn flags (Unit.turn_flags, cleared when the owner's player turn starts).
F_MOVE_DONE = "move_done"  # the unit used its Move sub-phase activation (moved, pivoted, rushed)
F_MOVED = "moved"  # not Stationary this turn (moved, rushed or disembarked)
F_RUSHED = "rushed"
F_SHOT = "shot"
F_CHARGED = "charged"  # declared a charge this turn
F_CHARGE_OK = "charge_ok"  # the charge reached base contact
F_DISORDERED = "disordered"
F_FOUGHT = "fought"
# The charged (reactive) unit struck back in a fight this Assault phase (hh3 core, Fight Sub-Phase:
# a unit attacks in one combat per Assault phase); cleared with the combats' resolution.
F_STRUCK_BACK = "struck_back"
F_EMBARKED = "embarked"
F_DISEMBARKED = "disembarked"
F_UNLOADED = "unloaded"  # a transport whose passengers disembarked this turn
F_DISEMBARKED_ASSAULT = "disembarked_assault"  # from an Assault Vehicle: charges not Disordered


def is_vehicle(unit: Unit) -> bool:
    return unit.kind == "vehicle"


def is_paragon(unit: Unit) -> bool:
    return unit.kind == "paragon"


# Seed glossary, Paragon: "lend its characteristics to its unit for any characteristic test". A
# unit tests on the best of its own profile and the profiles of its living Paragon models: a
# Paragon lends a characteristic only where it is better [decided].
LEND_ONLY_BETTER = True
LENT_CHARACTERISTICS = ("ld", "cool", "intelligence")


def model_profile(unit: Unit, model: Model) -> Profile:
    """The characteristics of one model: its own profile where it has one (a Paragon in the
    unit it joined, docs/match-definition.md), else its unit's."""
    return model.profile or unit.profile


def is_paragon_model(unit: Unit, model: Model) -> bool:
    """A Paragon model: the model of a Paragon unit, or one marked Paragon in an Infantry unit."""
    return (model.kind or unit.kind) == "paragon"


# Turn flags of a challenge (hh3 core, Challenge Sub-Phase), cleared when the Assault phase ends:
# "challenge:<model>" on the unit of each model fighting in a challenge (it neither attacks nor
# is allocated wounds in the Fight sub-phase), "disgraced:<model>" on the unit of a model made
# Disgraced (Weapon Skill and Leadership halved for that Assault phase).
CHALLENGE_FLAG = "challenge"
F_CHALLENGED = "challenged"  # the unit issued a challenge this Assault phase
DISGRACED_FLAG = "disgraced"
DISGRACE_HALVES = ("ws", "ld")  # hh3 core, Challenge Sub-Phase, Disgraced [ext]


# --- Fight Sub-Phase: Initiative Steps ---------------------------------------------------------
# hh3 core, Fight Sub-Phase [ext]: a combat round is fought in Initiative Steps, from the highest
# Combat Initiative present to the lowest; models striking in the same step strike simultaneously
# and casualties are removed at the end of each step, so a model slain before its step does not
# strike. hh3 core, Resolving an Initiative Step [ext]: a model with any status attacks at
# Initiative Step 1; a Disgraced model's unit-level effects also make its Combat Initiative 1.
STATUS_INITIATIVE = 1
# [decided] A unit that made a Disordered charge this turn strikes at Initiative Step 1 too. Most
# Disordered charges come from a status (already Step 1); this extends it to the charge after
# disembarking from a transport without the Assault Vehicle rule. False: only statuses count.
DISORDERED_STRIKES_AT_STEP_1 = True
# [decided] Within one Initiative Step the active unit's models roll first, then the charged
# unit's (hh3 core, Resolving an Initiative Step: "starting with the Active player"); each side's
# models in unit order. The order only fixes the dice sequence: the step's strikes are simultaneous.
ACTIVE_STRIKES_FIRST_IN_STEP = True


def in_challenge(unit: Unit, model_id: str) -> bool:
    return f"{CHALLENGE_FLAG}:{model_id}" in unit.turn_flags


def is_disgraced(unit: Unit, model_id: str) -> bool:
    return f"{DISGRACED_FLAG}:{model_id}" in unit.turn_flags


def current_value(unit: Unit, model: Model, name: str) -> int:
    """A model's current characteristic ``name``: its profile's, halved (rounded down) while it is
    Disgraced for Weapon Skill and Leadership (hh3 core, Challenge Sub-Phase, Disgraced [ext])."""
    value = int(getattr(model_profile(unit, model), name))
    return value // 2 if name in DISGRACE_HALVES and is_disgraced(unit, model.id) else value


def combat_initiative(unit: Unit, model: Model) -> int:
    """hh3 core, Fight Sub-Phase, Combat Initiative Score: the model's Initiative (no weapon
    Initiative modifiers are modelled), but STATUS_INITIATIVE for a model of a unit with a status
    or a Disgraced model (hh3 core, Resolving an Initiative Step; Challenge Sub-Phase, Disgraced),
    and for a unit that charged Disordered this turn (DISORDERED_STRIKES_AT_STEP_1, [decided])."""
    if unit.statuses or is_disgraced(unit, model.id):
        return STATUS_INITIATIVE
    if DISORDERED_STRIKES_AT_STEP_1 and F_DISORDERED in unit.turn_flags:
        return STATUS_INITIATIVE
    return model_profile(unit, model).i


def lent_characteristic(unit: Unit, name: str) -> int:
    """The value a unit takes a characteristic test on (Leadership, Cool, Intelligence): its
    own, or a living Paragon's that is better (seed glossary, Paragon: it lends its
    characteristics to its unit for any characteristic test). A Disgraced Paragon lends half its
    Leadership; a Paragon unit whose model is Disgraced tests on half its own."""
    own: int = getattr(unit.profile, name)
    if is_paragon(unit) and any(current_value(unit, m, name) < own for m in alive_models(unit)):
        own = min(current_value(unit, m, name) for m in alive_models(unit))
    lent = [
        current_value(unit, m, name) for m in unit.models.values() if m.alive and is_paragon_model(unit, m)
    ]
    if not lent:
        return own
    return max(own, *lent) if LEND_ONLY_BETTER else max(lent)


def majority_characteristic(unit: Unit, name: str) -> int:
    """The value of characteristic ``name`` most of the unit's living models have, ties going to
    the highest (hh3 core, Wound Tests and Melee Hit Tests [ext]: the target unit's majority
    Toughness / Weapon Skill); a unit of one profile keeps its own."""
    counts: dict[int, int] = {}
    for m in unit.models.values():
        if m.alive:
            value = current_value(unit, m, name)
            counts[value] = counts.get(value, 0) + 1
    if not counts:
        return int(getattr(unit.profile, name))
    return max(counts, key=lambda v: (counts[v], v))


def majority_toughness(unit: Unit) -> int:
    """The Toughness a wound test is made against: the one most of the unit's living models have
    (ties: the highest) [decided: a unit of one profile keeps its T; docs/rules-notes.md]."""
    return majority_characteristic(unit, "t")


def check_target_model(unit: Unit, target: Unit, model: str | None) -> Rejection | None:
    """Seed glossary, Paragon: "allocates the hits it inflicts itself, both shooting and in melee":
    only a Paragon unit may name the target model, which must be alive in the target unit."""
    if model is None:
        return None
    if not is_paragon(unit):
        return reject(
            "not_a_paragon", R_PARAGON, f"{unit.name} is not a Paragon: the defender's models take its hits"
        )
    chosen = target.models.get(model)
    if chosen is None or not chosen.alive:
        return reject("unknown_model", R_PARAGON, f"{target.name} has no live model {model!r}", model=model)
    if in_challenge(target, model):
        return reject(
            "in_challenge",
            R_CHALLENGE,
            f"{model} is fighting a challenge: it is allocated no wounds in the Fight sub-phase",
            model=model,
        )
    return None


def any_keyword(unit: Unit, names: Iterable[str]) -> bool:
    return any(unit.has(n) for n in names)


def is_fast(unit: Unit) -> bool:
    return any_keyword(unit, FAST_KEYWORDS)


def is_super_heavy(unit: Unit) -> bool:
    return any_keyword(unit, SUPER_HEAVY_KEYWORDS)


def is_flyer(unit: Unit) -> bool:
    return unit.has(FLYER_KEYWORD)


def rule_value(rules: Iterable[str], name: str) -> int | None:
    """The X of a variable special rule ``name:X`` (``explodes:5`` -> 5), or None."""
    prefix = name + ":"
    for rule in rules:
        if rule.startswith(prefix):
            text = rule[len(prefix) :].rstrip("+")
            if text.isdigit():
                return int(text)
    return None


def rule_text(rules: Iterable[str], name: str) -> str | None:
    """The X of ``name:X`` as text (``heavy:ap`` -> "ap"), or None."""
    prefix = name + ":"
    for rule in rules:
        if rule.startswith(prefix):
            return rule[len(prefix) :]
    return None


def alive_models(unit: Unit) -> list[Model]:
    return [m for m in unit.models.values() if m.alive]


def vehicle_model(unit: Unit) -> Model:
    """A vehicle is always a unit of a single model (hh3 Vehicles, Always alone)."""
    return next(iter(unit.models.values()))


RESERVES = "reserves"  # docs/missions.md: the status of a unit in reserve


def on_table(unit: Unit) -> bool:
    """A unit that can be seen, measured to and hit: not destroyed, not embarked, not in reserve
    (hh3 Mission Special Rules, Reserves: off the battlefield)."""
    return not unit.destroyed and unit.embarked_in is None and RESERVES not in unit.statuses


def enemies(state: MatchState, side: Side) -> Iterator[Unit]:
    return (u for u in state.units.values() if u.side != side and on_table(u))


def units_on_table(state: MatchState) -> Iterator[Unit]:
    return (u for u in state.units.values() if on_table(u))


def working_weapons(unit: Unit) -> list[Weapon]:
    alive = {m.id for m in alive_models(unit)}
    return [w for w in unit.weapons.values() if not w.destroyed and w.model in alive]


def is_melee(weapon: Weapon) -> bool:
    return weapon.type == "melee"


def is_defensive(weapon: Weapon) -> bool:
    """hh3 Vehicles, Defensive and Battle weapons [ext]: Strength 6 or less, any Sponson and any
    Pintle weapon, and any weapon whose profile designates it Defensive (``Weapon.defensive``) is
    Defensive; everything else is a Battle weapon (hh3 Vehicles, Defensive Weapons and Battle
    Weapons)."""
    if weapon.defensive:
        return True
    return weapon.strength <= DEFENSIVE_MAX_STRENGTH or weapon.mount.kind in ("sponson", "pintle")


def has_status(unit: Unit) -> bool:
    return bool(unit.statuses)


def at_least(target: int, yes: str, no: str) -> Callable[[int], str]:
    """A judge for ctx.roll: ``yes`` when the die is ``target`` or more, else ``no``."""
    return lambda value: yes if value >= target else no
