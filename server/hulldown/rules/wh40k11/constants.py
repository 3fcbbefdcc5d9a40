"""Named constants and rule references of the 40k11 rules core.

Every decided ambiguity is a constant here so it is easy to find and change; the reasoning is in
docs/rules-notes.md, section "40k11" (40k11 core [ext] and 17 Monsters and Vehicles).
"""

from __future__ import annotations

from typing import Final

EDITION: Final = "40k11"

# --- keywords (lower-case in Unit.keywords / Weapon.rules) -----------------------------------
MONSTER: Final = "monster"
VEHICLE: Final = "vehicle"
INFANTRY: Final = "infantry"
FRAME: Final = "frame"
BLAST: Final = "blast"
CLOSE_QUARTERS: Final = "close_quarters"
# Weapon abilities (40k11 core rules [ext], Weapon abilities); ``name:X`` carries a value.
ATTACKS_DICE: Final = "attacks"  # attacks:d6+3 - random Attacks
DAMAGE_DICE: Final = "damage"  # damage:d6 - random Damage
RAPID_FIRE: Final = "rapid_fire"  # rapid_fire:X
ASSAULT: Final = "assault"
HEAVY: Final = "heavy"
TORRENT: Final = "torrent"
TWIN_LINKED: Final = "twin_linked"
LETHAL_HITS: Final = "lethal_hits"
SUSTAINED_HITS: Final = "sustained_hits"  # sustained_hits:X
DEADLY_DEMISE: Final = "deadly_demise"  # a unit keyword, deadly_demise:X (X a number or dice)
ANTI: Final = "anti"  # anti:KEYWORD:X
DEVASTATING_WOUNDS: Final = "devastating_wounds"
MELTA: Final = "melta"  # melta:X
IGNORES_COVER: Final = "ignores_cover"
LANCE: Final = "lance"
HAZARDOUS: Final = "hazardous"
ONE_SHOT: Final = "one_shot"
EXTRA_ATTACKS: Final = "extra_attacks"
INDIRECT_FIRE: Final = "indirect_fire"
# Terrain (Terrain.kinds, docs/match-definition.md) that gives the Benefit of Cover to a model in it.
COVER_KIND: Final = "cover"

# --- rule references (used in rejections and log lines) --------------------------------------
R_CORE: Final = "40k11 core"
R_PHASES: Final = "40k11 core, The Battle Round"
R_MOVE: Final = "40k11 core, Movement phase"
R_ADVANCE: Final = "40k11 core, Advance"
R_FALL_BACK: Final = "40k11 core, Fall Back"
R_ENGAGEMENT: Final = "40k11 core, Engagement Range"
R_SHOOT: Final = "40k11 core, Shooting phase"
R_HIT: Final = "40k11 core, Hit roll"
R_WOUND: Final = "40k11 core, Wound roll"
R_SAVE: Final = "40k11 core, Saving throw"
R_ALLOCATE: Final = "40k11 core, Allocate attack"
R_DAMAGE: Final = "40k11 core, Inflict damage"
R_CHARGE: Final = "40k11 core, Charge phase"
R_FIGHT: Final = "40k11 core, Fight phase"
R_CQ: Final = "40k11 core, Close-quarters shooting"
R_RANDOM: Final = "40k11 core rules, Random characteristics"
R_RAPID_FIRE: Final = "40k11 core rules, Rapid Fire"
R_ASSAULT: Final = "40k11 core rules, Assault"
R_HEAVY: Final = "40k11 core rules, Heavy"
R_TORRENT: Final = "40k11 core rules, Torrent"
R_TWIN_LINKED: Final = "40k11 core rules, Twin-linked"
R_LETHAL_HITS: Final = "40k11 core rules, Lethal Hits"
R_SUSTAINED_HITS: Final = "40k11 core rules, Sustained Hits"
R_ANTI: Final = "40k11 core rules, Anti"
R_DEVASTATING: Final = "40k11 core rules, Devastating Wounds"
R_MELTA: Final = "40k11 core rules, Melta"
R_COVER: Final = "40k11 core rules, Benefit of Cover"
R_IGNORES_COVER: Final = "40k11 core rules, Ignores Cover"
R_LANCE: Final = "40k11 core rules, Lance"
R_HAZARDOUS: Final = "40k11 core rules, Hazardous"
R_ONE_SHOT: Final = "40k11 core rules, One Shot"
R_EXTRA_ATTACKS: Final = "40k11 core rules, Extra Attacks"
R_INDIRECT_FIRE: Final = "40k11 core rules, Indirect Fire"
R_TRANSPORTS: Final = "40k11 core rules, Transports"
R_EMBARK: Final = "40k11 core rules, Transports: Embark"
R_DISEMBARK: Final = "40k11 core rules, Transports: Disembark"
R_DESTROYED_TRANSPORT: Final = "40k11 core rules, Transports: Destroyed Transport"
R_DEADLY_DEMISE: Final = "40k11 core rules, Deadly Demise"
R_PILE_IN: Final = "40k11 core rules, Pile In"
R_CONSOLIDATE: Final = "40k11 core rules, Consolidate"
R_BATTLE_SHOCK: Final = "40k11 core rules, Battle-shock"
R_DESPERATE_ESCAPE: Final = "40k11 core rules, Battle-shock: Desperate Escape"
R_17_01: Final = "40k11 17.01 Moving Monsters and Vehicles"
R_17_02: Final = "40k11 17.02 Frame"
R_17_03: Final = "40k11 17.03 Shooting at engaged Monsters and Vehicles"
R_17_03_01: Final = "40k11 17.03.01 Shooting while engaged with Monsters/Vehicles"

# --- Engagement Range (40k11 core, Engagement Range [ext]) -----------------------------------
ENGAGEMENT_RANGE_HORIZONTAL: Final = 2.0
ENGAGEMENT_RANGE_VERTICAL: Final = 5.0
# Every model stands at ground level in this core (no model heights or terrain floors yet), so
# the vertical separation of two models is always this value [decided].
GROUND_LEVEL_SEPARATION: Final = 0.0

# --- hit rolls (40k11 core, Hit roll [ext]) --------------------------------------------------
# The total hit-roll modifier is capped at +1 / -1.
HIT_MODIFIER_CAP: Final = 1
# An unmodified 1 always fails, an unmodified 6 always succeeds (hit and wound rolls) [ext];
# an unmodified 1 always fails a saving throw [ext].
AUTO_FAIL: Final = 1
AUTO_SUCCESS: Final = 6

# --- models ----------------------------------------------------------------------------------
# A model with neither a base size nor a hull is measured as a 32 mm base [decided].
DEFAULT_BASE_MM: Final = 32.0
# 17.02 FRAME [decided]: line of sight from a FRAME model is also traced between points along its
# outline and along the target models' outlines, at most this many inches apart.
FRAME_SIGHT_STEP: Final = 0.5
# 17.02 FRAME [decided]: where sight was found from (``space.sight_from``, the table's sight tool's
# ``origin``, docs/table.md): the model's centre when its exact test sees, else the start of the
# shortest clear sampled segment (True; False: the first clear one in outline order).
FRAME_SIGHT_ORIGIN_SHORTEST: Final = True

# --- movement --------------------------------------------------------------------------------
# 17.01 grants MONSTER/VEHICLE models passage through models on these move kinds only.
MOVE_THROUGH_KINDS: Final = ("normal", "advance")
# Without 17.01, may a model move through friendly models? The seed grants it to MONSTER/VEHICLE
# models explicitly, so the baseline is read as "no" [decided].
OTHERS_MOVE_THROUGH_FRIENDLY: Final = False
# 17.01 "excluding other MONSTER/VEHICLE models" holds inside the moving unit too. A move names
# every model's route at once; the models are moved one at a time [ext], so a path may cross
# where a fellow MONSTER/VEHICLE model stood if that one moved first, or where it ends if it
# moves later: the move is legal when some order keeps every path clear [decided]. False: a path
# may cross neither where a fellow stood nor where it ends.
OWN_UNIT_MODELS_MOVE_ONE_AT_A_TIME: Final = True
# The baseline above (OTHERS_MOVE_THROUGH_FRIENDLY) holds inside the moving unit too: a model
# that is not a MONSTER/VEHICLE moves through no model of its own unit either, the models moved
# one at a time as above (False) [decided]. True: they pass through each other freely.
OWN_UNIT_OTHERS_MOVE_THROUGH_EACH_OTHER: Final = False
# Flags recording the Advance roll and the charge (Unit.turn_flags; reset as the owner's player
# turn starts). The number follows the "=".
ADVANCED: Final = "advanced"
ADVANCE_ROLL: Final = "advance_roll"
MOVED: Final = "moved"
FELL_BACK: Final = "fell_back"
SHOT: Final = "shot"
CHARGE_DECLARED: Final = "charge_declared"
CHARGE_ROLL: Final = "charge_roll"
CHARGE_TARGET: Final = "charge_target"
CHARGE_FAILED: Final = "charge_failed"
CHARGED: Final = "charged"
# State.phase_flags (reset when the phase changes): "fought:<unit>", "offered:<unit>".
FOUGHT: Final = "fought"
OFFERED: Final = "offered"

# --- Battle-shock (40k11 core rules [ext], Battle-shock; docs/rules-notes.md, 40k11) ----------
# The status of a Battle-shocked unit (Unit.statuses; missions/control.py reads it: OC 0).
BATTLE_SHOCKED: Final = "battle_shocked"
# A Battle-shock test is 2D6, passed on a total of at least the unit's Leadership (a target
# number: Ld 7 is 7+).
BATTLE_SHOCK_DICE: Final = 2
# When the tests are taken [decided]: as the player ends its Command phase (EndPhase in the
# Command phase: edition._apply_end_phase), so every test is one step of the fold, never a side
# effect of a turn change.
# How long it lasts: "until the start of your next Command phase" - the status expires at the
# end of the opponent's player turn that follows (expiry = this player turn + 1, match/turns.py
# expire_statuses), so it is gone before the player's next Command phase and its new tests.
BATTLE_SHOCK_LASTS_PLAYER_TURNS: Final = 1
# Desperate Escape: a Battle-shocked unit that Falls Back rolls one D6 per model before it moves;
# each roll of this or less destroys a model [ext]. The model destroyed is the one tested
# [decided]: the owner is not asked which (every model of the unit would be the same to most
# rules here; the choice is left out, docs/rules-notes.md).
DESPERATE_ESCAPE_FAILS_ON: Final = 2

# --- charge ----------------------------------------------------------------------------------
# A charge may target an enemy unit within 12" [ext]; the charge roll is 2D6.
CHARGE_DECLARE_RANGE: Final = 12.0
CHARGE_DICE: Final = 2
# A charging model ends in base contact with an enemy model of the target if it can [ext];
# base contact is within this many inches [decided, as 40k7 and hh3].
BASE_CONTACT: Final = 0.05
# 17.02 FRAME with core Charge, base contact where possible [ext]: a charging FRAME model is in
# base contact when any part of the whole model touches the target - its base where it sticks out
# past its hull too (True), as the target's base counts (chargecontact.py); False: its hull alone.
CHARGER_CONTACT_WHOLE_MODEL: Final = True

# --- Pile In and Consolidate (40k11 core rules [ext]: the published 10th edition core rules, which
# the 40k11 texts here do not replace; docs/rules-notes.md, 40k11 Charge and Fight) -------------
# Made by the server inside ``Fight`` [decided]: no action or decision of the player. Before its
# attacks, each live model of the fighting unit not in base contact (BASE_CONTACT) with an enemy
# model moves up to PILE_IN_DISTANCE straight toward the closest live model of the target unit
# [decided: of the target, centre to centre, heading kept]; after its attacks it Consolidates the
# same way, up to CONSOLIDATE_DISTANCE, toward the closest live model of the target still alive
# (none alive: no Consolidation [decided: the move toward an objective marker is left out]).
PILE_IN_DISTANCE: Final = 3.0
CONSOLIDATE_DISTANCE: Final = 3.0
# The move kinds (movement.check_routes): no permission to move through models (17.01 is for
# normal and Advance moves), never into impassable terrain, never off the battlefield.
PILE_IN_KIND: Final = "pile_in"
CONSOLIDATE_KIND: Final = "consolidate"
# A model stops this far short of the enemy model it moves toward: in base contact (within
# BASE_CONTACT) without touching it [decided].
PILE_IN_CONTACT_GAP: Final = 0.01
# A model whose full move is refused (another model, impassable terrain, Engagement Range of an
# enemy unit not in the fight) stops short: at the farthest legal point along its line found by
# halving to this many inches [decided]; it does not move when that is no farther than this.
PILE_IN_PRECISION: Final = 0.01
# The enemy units in the fight [decided]: the target and every enemy unit the fighting unit is
# engaged with as the move starts; no model may end within Engagement Range of any other.

# --- attacks ---------------------------------------------------------------------------------
# [BLAST]: +1 attack for every 5 models in the target unit [ext].
BLAST_MODELS_PER_EXTRA_ATTACK: Final = 5
# Critical Hit / Critical Wound: an unmodified roll of this (40k11 core rules [ext], Critical Hit,
# Critical Wound); [ANTI-KEYWORD X+] lowers the Critical Wound's number against KEYWORD units.
CRITICAL_ROLL: Final = 6
# [RAPID FIRE X] and [MELTA X] apply when the target is "within half range" [ext]: the closest
# distance from the firing model to a model of the target is at most this fraction of the range,
# measured as the target is selected (targets are fixed then [decided]).
HALF_RANGE: Final = 0.5
# [HEAVY] +1 to hit: the unit Remained Stationary - it made no move this turn (normal move, Advance
# or Fall Back) [ext]; being set up from reserves this turn is not tracked here [decided].
# [TWIN-LINKED]: the wound roll "can be re-rolled"; the server always re-rolls a failed one (never a
# successful one), at once, before the next wound roll [decided] (attacks.resolve).
# [SUSTAINED HITS X] extra hits are ordinary hits: they roll to wound and are never Critical Hits
# themselves, so [LETHAL HITS] does not apply to them [ext].
# [DEVASTATING WOUNDS] [decided, simplest faithful reading]: a Critical Wound skips the saving throw
# (of either kind) and its Damage (Random Damage rolled, Melta added) is inflicted on one allocated
# model, excess lost, as a failed save's; it does not spill over to further models as the original
# 10th edition mortal wounds did (attacks.resolve).
# Random Attacks are rolled once per weapon each time it shoots, and once per fighting model's
# weapon when it fights, before its hit rolls; Random Damage once per unsaved attack, after its
# saving throw [ext]. A rolled Attacks or Damage below 1 counts as 1 (D3-1 is not written) [decided].
MIN_RANDOM_VALUE: Final = 1
# [SUSTAINED HITS X] with a random X (``sustained_hits:d3``): X is rolled for each Critical Hit [ext],
# in the order of the hit rolls, after all of them (attacks.resolve).

# --- Benefit of Cover (40k11 core rules [ext]: the published 10th edition core rules, which the
# 40k11 texts here do not replace) ----------------------------------------------------------------
# Against a ranged attack, +1 to the armour saving throw (never the invulnerable save); not for a
# model with a Save of COVER_NO_BENEFIT_SAVE+ or better against an attack with AP 0 [ext].
COVER_SAVE_BONUS: Final = 1
COVER_NO_BENEFIT_SAVE: Final = 3
# When a target unit has the Benefit of Cover [decided, simplest faithful reading]: the published
# rule gives it per model (within a terrain area, or not fully visible because of terrain), but
# here one saving throw serves the whole unit (allocation after the save, docs/rules-notes.md), so
# the unit has it against one firing model when each of its live models is either within (its
# footprint overlaps) a terrain piece that gives cover (kind COVER_KIND, or a ``cover_save``) or
# hidden from that model by terrain that blocks line of sight (space.sees). True: every live model
# must qualify; False: one qualifying model gives the whole unit cover.
COVER_NEEDS_EVERY_MODEL: Final = True
# [INDIRECT FIRE] [ext]: a target no model of which is visible to the firing model may be shot;
# then -1 to hit and the target has the Benefit of Cover.
INDIRECT_FIRE_HIT_MODIFIER: Final = -1
# [LANCE] [ext]: +1 to the wound roll if the bearer's unit made a Charge move this turn (the CHARGED
# flag of its own player turn). The wound-roll modifier is capped at +1 / -1 as the hit roll's [ext].
LANCE_WOUND_MODIFIER: Final = 1
WOUND_MODIFIER_CAP: Final = 1
# [HAZARDOUS] [decided, simplified]: after the unit has shot (or fought), one Hazardous test (a D6)
# for each Hazardous weapon used, in the order the weapons were resolved; on a HAZARDOUS_FAIL the
# model carrying that weapon (the weapon's model) is destroyed, or, for a MONSTER/VEHICLE,
# suffers HAZARDOUS_MORTAL_WOUNDS mortal wounds (no saving throw, excess lost). There is no
# CHARACTER keyword in this core, so no CHARACTER case. A carrier already destroyed rolls no test.
HAZARDOUS_FAIL: Final = 1
HAZARDOUS_MORTAL_WOUNDS: Final = 3
# [ONE SHOT] [ext]: fired once per battle. The use is kept as a unit status ``one_shot:<weapon id>``
# with expiry 0 ("until removed": never expires), set when the weapon is resolved.
ONE_SHOT_STATUS: Final = "one_shot"
# [EXTRA ATTACKS] [ext]: a fighting model attacks with each of its Extra Attacks weapons in addition
# to its chosen melee weapon; the chosen weapon is never an Extra Attacks weapon [decided]: naming
# one picks the model's first other melee weapon (by id), and a model carrying only Extra Attacks
# weapons fights with those alone (not unarmed as well).
# A model without a melee weapon fights with its profile: A attacks, S, AP 0, Damage 1 [decided].
UNARMED_AP: Final = 0
UNARMED_DAMAGE: Final = 1

# --- transports (40k11 core rules, Transports [ext]; docs/rules-notes.md, 40k11 Transports) ---
TRANSPORT: Final = "transport"
# Who may embark [decided]: an INFANTRY unit (the datasheets' "N <FACTION> INFANTRY models"),
# of the transport's faction when both name one; the datasheets' other exclusions are not read.
EMBARK_KEYWORD: Final = INFANTRY
# Embark: every model of the unit ends its Normal, Advance or Fall Back move within 3" [ext].
EMBARK_RANGE: Final = 3.0
# Disembark and Destroyed Transport: set up wholly within 3" of the transport [ext]; a unit of a
# destroyed transport that cannot be, wholly within 6" instead [ext].
DISEMBARK_RANGE: Final = 3.0
EMERGENCY_RANGE: Final = 6.0
# Destroyed Transport: one D6 per model set up; on this roll the unit suffers 1 mortal wound [ext].
DESTROYED_TRANSPORT_WOUND_ON: Final = 1
# Destroyed Transport [decided]: the server's proposal tries spots on rings round the transport
# this far apart, and every this many inches along each ring (docs/rules-notes.md).
PLACE_RING_STEP: Final = 0.5
PLACE_STEP: Final = 0.25
PLACE_GAP: Final = 0.01
# Turn flags (reset as the owner's player turn starts; there is one Movement phase per turn, so
# "this phase" and "this turn" are one for Embark and Disembark).
EMBARKED: Final = "embarked"
DISEMBARKED: Final = "disembarked"
# Disembarked after its transport made a Normal move: it cannot move or charge this turn [ext].
NO_CHARGE: Final = "no_charge"

# Length tolerance (inches) for "within" comparisons.
EPS: Final = 1e-9

# --- Deadly Demise (40k11 core rules [ext]: the rule text the 40k11 rosters carry, as the published
# 10th edition's) -----------------------------------------------------------------------------------
# Each time a model with Deadly Demise X is destroyed, after the units embarked within it have made
# their emergency disembark moves, one D6: on DEADLY_DEMISE_ON each unit within DEADLY_DEMISE_RANGE
# of that model suffers X mortal wounds (a random X rolled separately for each unit) [ext].
# [decided]: it is resolved as the model is destroyed by an attack (as the Destroyed Transport here),
# not after the attacking unit's remaining attacks; the units hurt are the other units on the table
# (not the destroyed model's own unit, not embarked units), in unit id order; a model destroyed by
# these mortal wounds that has Deadly Demise rolls for it in turn (each model is destroyed once, so
# the chain ends) (rules/wh40k11/demise.py).
DEADLY_DEMISE_ON: Final = 6
DEADLY_DEMISE_RANGE: Final = 6.0
