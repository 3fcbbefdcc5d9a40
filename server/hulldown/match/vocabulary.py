"""The names a match definition may use, per edition: unit keywords (types, sub-types, special
rules), weapon rules, statuses, terrain kinds and weapon mounts.

Only names the rules core implements are listed: a name that is not here would be accepted and
then silently do nothing, so the definition checks (match/definition_checks.py) refuse it with the
known names and a did-you-mean. docs/match-definition.md lists them per edition; a test keeps the
page and these tables in step.

A *variable* name carries a value after a colon (``explodes:5``, ``heavy:s``): ``values`` lists
the allowed values; ``bounds`` gives a range of whole numbers (40k11 ``oc:X``, 0 to
``MAX_OBJECTIVE_CONTROL``); with neither, X is a dice target 1-6 (a trailing ``+`` is allowed, as
the rosters write ``Explodes (5+)``). ``value_kind`` names another form of X: ``"dice"``, a dice
expression (match/dice_text.py: ``attacks:d6+3``); ``"anti"``, a keyword and a dice target
(``anti:infantry:4``, 40k11 [ANTI-INFANTRY 4+]); ``"count_or_dice"``, a whole number within
``bounds`` or a dice expression (40k11 ``sustained_hits:2``, ``sustained_hits:d3``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .limits import MAX_DAMAGE, MAX_OBJECTIVE_CONTROL, MAX_SHOTS
from .state import Edition


@dataclass(frozen=True)
class Term:
    """One name: what it means and the rule section it comes from."""

    name: str
    meaning: str
    rule: str
    aliases: tuple[str, ...] = ()
    variable: bool = False  # written ``name:X``
    values: tuple[str, ...] | None = None  # allowed X of a variable name
    # X a whole number in this range, and the name of the limit that bounds it; with neither
    # ``values`` nor ``bounds``, X is a dice target 1-6
    bounds: tuple[int, int, str] | None = None
    value_kind: Literal["dice", "anti", "count_or_dice"] | None = None  # X another form (module docstring)


@dataclass(frozen=True)
class Vocabulary:
    edition: Edition
    keywords: tuple[Term, ...]
    weapon_rules: tuple[Term, ...]
    statuses: tuple[Term, ...]
    mounts: tuple[str, ...]

    def keyword_names(self) -> tuple[str, ...]:
        return _names(self.keywords)

    def weapon_rule_names(self) -> tuple[str, ...]:
        return _names(self.weapon_rules)

    def status_names(self) -> tuple[str, ...]:
        return _names(self.statuses)


def _names(terms: tuple[Term, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for t in terms:
        out.extend((t.name, *t.aliases))
    return tuple(out)


# Terrain kinds are shared by every edition (docs/rules-notes.md: difficult, dangerous, impassable, blocks
# line of sight, gives cover).
TERRAIN_KINDS: tuple[Term, ...] = (
    Term(
        "difficult",
        "difficult terrain (40k7 Difficult Terrain tests; hh3 and 40k11 slow moves)",
        "core, Terrain",
    ),
    Term(
        "dangerous",
        "dangerous terrain: a test on entering (40k7, hh3 Vehicles, Dangerous terrain)",
        "core, Terrain",
    ),
    Term("impassable", "no model may enter it", "core, Terrain"),
    Term("blocks_los", "blocks line of sight", "core, Line of Sight"),
    Term("cover", "gives cover to a model behind or in it (cover_save gives the save)", "core, Cover"),
)

ALL_MOUNTS: tuple[str, ...] = ("none", "hull", "turret", "sponson", "pintle", "coaxial", "centreline")

WH40K7 = Vocabulary(
    edition="40k7",
    keywords=(
        Term("tank", "Tank: Tank Shock, moving through models", "40k7 Vehicles, Tanks"),
        Term("fast", "Fast: moves and fires further", "40k7 Vehicles, Fast"),
        Term("skimmer", "Skimmer: moves over models and terrain, may Jink", "40k7 Vehicles, Skimmers"),
        Term("walker", "Walker: moves, runs and charges like Infantry", "40k7 Vehicles, Walkers"),
        Term(
            "open-topped",
            "Open-topped: worse damage, passengers fire, an Assault Vehicle",
            "40k7 Vehicles, Open-topped",
            aliases=("open_topped", "opentopped"),
        ),
        Term("transport", "Transport: carries the units embarked in it", "40k7 Vehicles, Transports"),
        Term(
            "deep_strike",
            "Deep Strike: may arrive from reserve by Deep Strike (docs/missions.md)",
            "40k7 rulebook, Deep Strike",
        ),
        Term(
            "infiltrate",
            "Infiltrate: deploys after every other unit, far from or hidden from the enemy (docs/missions.md)",
            "40k7 rulebook, Special Rules, Infiltrate",
        ),
        Term(
            "scout",
            "Scout: may redeploy before the first turn (docs/missions.md)",
            "40k7 rulebook, Special Rules, Scout",
        ),
        Term(
            "outflank",
            "Outflank: from Reserve, arrives from a side edge a D6 picks (docs/missions.md)",
            "40k7 rulebook, Special Rules, Outflank",
        ),
        Term("heavy", "Heavy: always counts as Stationary when it shoots, no Jink", "40k7 Vehicles, Heavy"),
        Term("chariot", "Chariot: a rider on a vehicle, Chariot charges", "40k7 Vehicles, Chariots"),
        Term("flyer", "Flyer: Zooms, Jinks, needs Skyfire to be hit normally", "40k7 Vehicles, Flyers"),
        Term(
            "super-heavy",
            "Super-heavy vehicle: fires every weapon, ignores Shaken and Stunned",
            "40k7 Super-heavy Vehicles",
            aliases=("super_heavy", "superheavy", "super-heavy vehicle"),
        ),
        Term(
            "hover", "Hover: a Flyer's hover mode (every Flyer Zooms in this core)", "40k7 Vehicles, Flyers"
        ),
        Term("fearless", "Fearless: passes Morale and Pinning tests", "40k7 Special Rules, Fearless"),
        Term(
            "skyfire",
            "Skyfire: every weapon of the unit may hit Flyers normally",
            "40k7 Special Rules, Skyfire",
        ),
        Term(
            "assault_vehicle",
            "Assault Vehicle: passengers may charge after disembarking",
            "40k7 Vehicles, Transports",
            aliases=("assault vehicle",),
        ),
        Term(
            "relentless", "Relentless: counts as Stationary when shooting", "40k7 Special Rules, Relentless"
        ),
        Term(
            "psychic_pilot",
            "Psychic Pilot: the vehicle is a Psyker of Mastery Level 1 (docs/psychic.md)",
            "40k7 Special Rules, Psychic Pilot",
        ),
        Term(
            "psychic_pilot",
            "Psychic Pilot (Mastery Level X): the vehicle is a Psyker of Mastery Level X",
            "40k7 Special Rules, Psychic Pilot",
            variable=True,
        ),
        Term(
            "adamantium_will",
            "Adamantium Will: +1 to Deny the Witch",
            "40k7 Special Rules, Adamantium Will",
        ),
        Term(
            "smash",
            "Smash: close combat attacks at AP2, or one Smash Attack at double Strength (Monstrous "
            "Creatures and Super-heavy Walkers have it)",
            "40k7 Special Rules, Smash",
        ),
    ),
    weapon_rules=(
        Term("blast", 'Blast: a 3" marker that scatters', "40k7 Weapons, Blast"),
        Term("large_blast", 'Large Blast: a 5" marker that scatters', "40k7 Weapons, Blast"),
        Term("template", "Template: the flame template, no hit roll", "40k7 Weapons, Template"),
        Term("melta", "Melta: an extra D6 armour penetration at half range or less", "40k7 Weapons, Melta"),
        Term("armourbane", "Armourbane: an extra D6 armour penetration", "40k7 Special Rules, Armourbane"),
        Term("lance", "Lance: armour above 12 counts as 12", "40k7 Special Rules, Lance"),
        Term("haywire", "Haywire: D6 per hit instead of armour penetration", "40k7 Special Rules, Haywire"),
        Term(
            "pinning",
            "Pinning: a unit that suffers an unsaved wound tests for Pinning",
            "40k7 Special Rules, Pinning",
        ),
        Term("skyfire", "Skyfire: hits Flyers normally", "40k7 Special Rules, Skyfire"),
        Term(
            "ignores_cover",
            "Ignores Cover: no cover save against its hits (an obscured vehicle's, Jink's, a model's in cover)",
            "40k7 Special Rules, Ignores Cover",
        ),
        Term(
            "witchfire",
            "Witchfire (X): a psychic power of Warp Charge X, a shooting attack manifested in the "
            "Psychic phase (docs/psychic.md)",
            "40k7 The Psychic Phase, Witchfire",
            variable=True,
        ),
        Term("grenade", "Grenade: thrown or used against vehicles in an assault", "40k7 Weapons, Grenades"),
        Term(
            "unwieldy",
            "Unwieldy: its close combat attacks strike at Initiative 1",
            "40k7 Special Rules, Unwieldy",
        ),
        Term(
            "specialist",
            "Specialist Weapon: +1 Attack for two weapons only with another Specialist Weapon",
            "40k7 Special Rules, Specialist Weapon",
        ),
    ),
    statuses=(
        Term("shaken", "Crew Shaken: Snap Shots only", "40k7 Vehicle Damage table"),
        Term("stunned", "Crew Stunned: no moving or pivoting, Snap Shots only", "40k7 Vehicle Damage table"),
        Term("immobilised", "Immobilised: may not move or pivot", "40k7 Vehicle Damage table"),
        Term("jink", "Jinking: a 4+ cover save", "40k7 Vehicles, Jink"),
        Term("snap_only", "Snap Shots only", "40k7 Snap Shots"),
        Term("pinned", "Gone to Ground after a failed Pinning test", "40k7 Special Rules, Pinning"),
        Term("falling_back", "Falling Back until it Regroups", "40k7 Morale, Falling Back"),
        Term("reserves", "in Ongoing Reserves (off the table)", "40k7 Reserves"),
    ),
    mounts=ALL_MOUNTS,
)

HH3 = Vocabulary(
    edition="hh3",
    keywords=(
        Term(
            "fast",
            "Fast (Rapid) sub-type: may move further",
            "hh3 Vehicles, Movement",
            aliases=("rapid",),
        ),
        Term(
            "super-heavy",
            "Super-heavy sub-type",
            "hh3 Vehicles",
            aliases=("super_heavy", "superheavy"),
        ),
        Term("stable", "Stable sub-type: no Snap Shots after moving", "hh3 Vehicles, Shooting"),
        Term("flyer", "Flyer sub-type", "hh3 Vehicles"),
        Term(
            "line",
            "Line (X): adds X per model to Tactical Strength at an objective (docs/missions.md)",
            "hh3 Core Mission Primary Objectives",
            variable=True,
        ),
        Term(
            "infiltrate",
            'Infiltrate (X): may deploy outside its zone, X" from every enemy model (docs/missions.md)',
            "hh3 Special Rules, Infiltrate (X)",
            variable=True,
        ),
        Term(
            "outflank",
            "Outflank: from Reserves, may enter from any battlefield edge (docs/missions.md)",
            "hh3 Special Rules, Outflank",
        ),
        Term("transport", "Transport sub-type: carries embarked units", "hh3 Transport sub-type"),
        Term(
            "assault_vehicle",
            "Assault Vehicle: passengers charge without being Disordered",
            "hh3 Transport sub-type",
        ),
        Term("light_transport", "Light Transport: no Bulky passengers", "hh3 Transport sub-type"),
        Term(
            "explodes",
            "Explodes (X): on destruction, explodes on X+",
            "hh3 Armoury, Explodes (X)",
            variable=True,
        ),
        Term(
            "mitigation",
            "Damage Mitigation (X): a roll of X+ ignores a lost Hull Point",
            "hh3 core, Damage Mitigation",
            variable=True,
        ),
        Term(
            "auto_repair",
            "Auto-repair (X): a Repair Test succeeds on X+",
            "hh3 Armoury, Auto-repair",
            variable=True,
        ),
    ),
    weapon_rules=(
        Term("armourbane", "Armourbane: an extra D6 armour penetration", "hh3 Armoury, Armourbane"),
        Term("barrage", "Barrage: fires indirectly", "hh3 Armoury, Barrage"),
        Term("indirect", "Indirect: fires without line of sight", "hh3 Armoury, Barrage"),
        Term("blast", "Blast: no Snap Shots", "hh3 Armoury, Blast"),
        Term("template", "Template: no Snap Shots", "hh3 Armoury, Template"),
        Term(
            "heavy",
            "Heavy (X): +1 to S, AP, FP or D when the unit is Stationary",
            "hh3 Armoury, Heavy (X)",
            variable=True,
            values=("s", "ap", "fp", "d"),
        ),
    ),
    statuses=(
        Term("pinned", "Pinned: cannot move, Rush or charge", "hh3 Vehicles, Statuses"),
        Term("suppressed", "Suppressed: Snap Shots only", "hh3 Vehicles, Statuses"),
        Term("stunned", "Stunned: no reactions", "hh3 Vehicles, Statuses"),
        Term("routed", "Routed (never a vehicle)", "hh3 core, Statuses"),
    ),
    mounts=ALL_MOUNTS,
)

WH40K11 = Vocabulary(
    edition="40k11",
    keywords=(
        Term(
            "monster",
            "MONSTER: 17.01 moves, 17.03 shooting at engaged Monsters",
            "40k11 17 Monsters and Vehicles",
        ),
        Term(
            "oc",
            "Objective Control (X) of each model (docs/missions.md)",
            "40k11 core rules, Objective Control",
            variable=True,
            bounds=(0, MAX_OBJECTIVE_CONTROL, "MAX_OBJECTIVE_CONTROL"),
        ),
        Term(
            "vehicle",
            "VEHICLE: 17.01 moves, 17.03 shooting at engaged Vehicles",
            "40k11 17 Monsters and Vehicles",
        ),
        Term("infantry", "INFANTRY: may embark within a TRANSPORT", "40k11 core, Keywords"),
        Term(
            "transport",
            "TRANSPORT: carries embarked units up to profile.capacity models",
            "40k11 core rules, Transports",
        ),
        Term(
            "frame", "FRAME: measured to its closest point, hull or base; turns freely", "40k11 17.02 Frame"
        ),
        Term(
            "deadly_demise",
            "Deadly Demise X: a model destroyed rolls a D6; on a 6 each unit within 6 in suffers X mortal wounds (X a number or dice, d3: rolled per unit)",
            "40k11 core rules, Deadly Demise",
            variable=True,
            bounds=(1, MAX_DAMAGE, "MAX_DAMAGE"),
            value_kind="count_or_dice",
        ),
    ),
    weapon_rules=(
        Term("blast", "[BLAST]: may not target a unit engaged with friendly units", "40k11 core, Blast"),
        Term(
            "close_quarters",
            "[CLOSE-QUARTERS]: may shoot while engaged",
            "40k11 core, Close-quarters shooting",
        ),
        Term(
            "attacks",
            "Random Attacks: the Attacks characteristic is rolled for each use of the weapon",
            "40k11 core rules, Random characteristics",
            variable=True,
            value_kind="dice",
        ),
        Term(
            "damage",
            "Random Damage: the Damage characteristic is rolled for each unsaved attack",
            "40k11 core rules, Random characteristics",
            variable=True,
            value_kind="dice",
        ),
        Term(
            "rapid_fire",
            "[RAPID FIRE X]: +X attacks when the target is within half range",
            "40k11 core rules, Rapid Fire",
            variable=True,
            bounds=(1, MAX_SHOTS, "MAX_SHOTS"),
        ),
        Term("assault", "[ASSAULT]: may shoot after Advancing", "40k11 core rules, Assault"),
        Term("heavy", "[HEAVY]: +1 to hit if the unit Remained Stationary", "40k11 core rules, Heavy"),
        Term("torrent", "[TORRENT]: hits automatically", "40k11 core rules, Torrent"),
        Term("twin_linked", "[TWIN-LINKED]: re-roll the wound roll", "40k11 core rules, Twin-linked"),
        Term(
            "lethal_hits",
            "[LETHAL HITS]: a Critical Hit automatically wounds",
            "40k11 core rules, Lethal Hits",
        ),
        Term(
            "sustained_hits",
            "[SUSTAINED HITS X]: a Critical Hit scores X additional hits (X a number or dice, d3: rolled per Critical Hit)",
            "40k11 core rules, Sustained Hits",
            variable=True,
            bounds=(1, MAX_SHOTS, "MAX_SHOTS"),
            value_kind="count_or_dice",
        ),
        Term(
            "anti",
            "[ANTI-KEYWORD X+]: an unmodified wound roll of X+ against a KEYWORD unit is a Critical Wound",
            "40k11 core rules, Anti",
            variable=True,
            value_kind="anti",
        ),
        Term(
            "devastating_wounds",
            "[DEVASTATING WOUNDS]: a Critical Wound's Damage is inflicted with no saving throw",
            "40k11 core rules, Devastating Wounds",
        ),
        Term(
            "melta",
            "[MELTA X]: +X Damage when the target is within half range",
            "40k11 core rules, Melta",
            variable=True,
            bounds=(1, MAX_DAMAGE, "MAX_DAMAGE"),
        ),
        Term(
            "ignores_cover",
            "[IGNORES COVER]: the target has no Benefit of Cover against it",
            "40k11 core rules, Ignores Cover",
        ),
        Term(
            "lance",
            "[LANCE]: +1 to the wound roll if the bearer's unit charged this turn",
            "40k11 core rules, Lance",
        ),
        Term(
            "hazardous",
            "[HAZARDOUS]: a D6 after use, on a 1 the bearer is destroyed (MONSTER/VEHICLE: 3 mortal wounds)",
            "40k11 core rules, Hazardous",
        ),
        Term("one_shot", "[ONE SHOT]: fired only once per battle", "40k11 core rules, One Shot"),
        Term(
            "extra_attacks",
            "[EXTRA ATTACKS]: used in addition to the model's chosen melee weapon",
            "40k11 core rules, Extra Attacks",
        ),
        Term(
            "indirect_fire",
            "[INDIRECT FIRE]: may target a unit not visible; then -1 to hit and the target has cover",
            "40k11 core rules, Indirect Fire",
        ),
    ),
    statuses=(),
    mounts=("none",),
)

VOCABULARIES: dict[str, Vocabulary] = {v.edition: v for v in (WH40K7, HH3, WH40K11)}


def vocabulary(edition: str) -> Vocabulary:
    return VOCABULARIES[edition]


def terrain_kind_names() -> tuple[str, ...]:
    return _names(TERRAIN_KINDS)
