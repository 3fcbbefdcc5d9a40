"""Rule references cited by 40k7 rejections and log lines (edition + section).

Every rejection and every log line of the 40k7 rules names the rulebook section it applies, e.g.
``"40k7 Vehicles, Movement"``. RULES.md section 1 item numbers are given in the comments.
"""

from __future__ import annotations

# Seed 001 (Vehicles) and the published 7th edition sections it relies on.
MOVEMENT = "40k7 Vehicles, Movement"  # RULES.md 1.1-1.3
DANGEROUS = "40k7 Vehicles, Dangerous Terrain"  # 1.4
FLAT_OUT = "40k7 Vehicles, Moving Flat Out"  # 1.5
SHOOTING = "40k7 Vehicles, Vehicles and Shooting"  # 1.6-1.8
WEAPON_LOS = "40k7 Vehicles, Vehicle Weapons and Line of Sight"  # 1.9
FACING = "40k7 Vehicles, Vehicle Facing and Armour Values"  # 1.10-1.11
PENETRATION = "40k7 Vehicles, Armour Penetration Rolls"  # 1.12
GLANCING = "40k7 Vehicles, Glancing Hits"  # 1.13
PENETRATING = "40k7 Vehicles, Penetrating Hits"  # 1.13
DAMAGE_TABLE = "40k7 Vehicles, Vehicle Damage Table"  # 1.14
DAMAGE_RESULTS = "40k7 Vehicles, Damage Results"  # 1.15
WRECKED = "40k7 Vehicles, Wrecked Vehicles"  # 1.16
OBSCURED = "40k7 Vehicles, Obscured Targets"  # 1.17
CLOSE_COMBAT = "40k7 Vehicles, Vehicles and Close Combat"  # 1.18-1.20
SQUADRONS = "40k7 Vehicles, Vehicle Squadrons"  # 1.21

# Vehicle types [ext].
FAST = "40k7 Vehicles, Fast Vehicles"
SKIMMER = "40k7 Vehicles, Skimmers"
WALKER = "40k7 Vehicles, Walkers"
TANK_SHOCK = "40k7 Vehicles, Tanks: Tank Shock"
DEATH_OR_GLORY = "40k7 Vehicles, Tanks: Death or Glory"
RAM = "40k7 Vehicles, Tanks: Ramming"
OPEN_TOPPED = "40k7 Vehicles, Open-topped Vehicles"
TRANSPORT = "40k7 Vehicles, Transports"
PASSENGERS = "40k7 Vehicles, Transports: Effects of Damage on Passengers"
HEAVY = "40k7 Vehicles, Heavy Vehicles"
CHARIOT = "40k7 Vehicles, Chariots"
FLYER = "40k7 Vehicles, Flyers: Zoom"
FLYER_HOVER = "40k7 Vehicles, Flyers: Hover"
JINK = "40k7 Special Rules, Jink"
SUPER_HEAVY = "40k7 Vehicles, Super-heavy Vehicles"
CATASTROPHIC = "40k7 Vehicles, Super-heavy Vehicles: Catastrophic Damage"
THUNDERBLITZ = "40k7 Vehicles, Super-heavy Vehicles: Thunderblitz"
SUPER_HEAVY_WALKER = "40k7 Vehicles, Super-heavy Walkers"
STOMP = "40k7 Vehicles, Super-heavy Walkers: Stomp"
SUPER_HEAVY_FLYER = "40k7 Vehicles, Super-heavy Flyers"

# The minimal core around the vehicle rules [ext].
TURN = "40k7 The Turn"
INF_MOVE = "40k7 The Movement Phase"
COHERENCY = "40k7 The Movement Phase, Unit Coherency"
DIFFICULT = "40k7 Terrain, Difficult Terrain"
RUN = "40k7 The Shooting Phase, Run"
TO_HIT = "40k7 The Shooting Phase, Roll To Hit"
SNAP = "40k7 The Shooting Phase, Snap Shots"
WEAPONS = "40k7 Weapons"
BLAST = "40k7 Weapons, Blast and Template"
TO_WOUND = "40k7 The Shooting Phase, Roll To Wound"
SAVES = "40k7 The Shooting Phase, Saving Throws"
CASUALTIES = "40k7 The Shooting Phase, Remove Casualties"
ALLOCATE = "40k7 The Shooting Phase, Allocate Wounds"
CLOSEST_MODELS = "40k7 The Shooting Phase, Allocate Wounds: Closest Models"
RANDOM_ALLOCATION = "40k7 The Shooting Phase, Allocate Wounds: Random Allocation"
OUT_OF_SIGHT = "40k7 The Shooting Phase, Allocate Wounds: Out Of Sight"
MORALE = "40k7 Morale, Morale Checks"
FALL_BACK = "40k7 Morale, Fall Back"
REGROUP = "40k7 Morale, Regrouping"
PINNING = "40k7 Special Rules, Pinning"
CHARGE = "40k7 The Assault Phase, Charge"
OVERWATCH = "40k7 The Assault Phase, Overwatch"
FIGHT = "40k7 The Assault Phase, Fight Sub-phase"
WS_TABLE = "40k7 The Assault Phase, Roll To Hit (Weapon Skill table)"
ASSAULT_RESULT = "40k7 The Assault Phase, Determine Assault Result"
SWEEPING = "40k7 The Assault Phase, Sweeping Advances"

# The Psychic phase, for vehicles with Psychic Pilot (seed 001: "manifest their psychic powers
# during the Psychic phase, as normal") [ext].
PSYCHIC_PILOT = "40k7 Special Rules, Psychic Pilot"
PSYCHIC_PHASE = "40k7 The Psychic Phase"
WARP_CHARGE = "40k7 The Psychic Phase, Generating Warp Charge"
MANIFEST = "40k7 The Psychic Phase, Manifesting Psychic Powers"
PSYCHIC_TEST = "40k7 The Psychic Phase, Take Psychic Test"
DENY_THE_WITCH = "40k7 The Psychic Phase, Deny the Witch"
PERILS = "40k7 The Psychic Phase, Perils of the Warp"
WITCHFIRE = "40k7 The Psychic Phase, Witchfire"
