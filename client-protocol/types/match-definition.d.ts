/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */

/**
 * A battlefield position in inches: ``[x, y]`` on the wire.
 *
 * @minItems 2
 * @maxItems 2
 */
export type Point = [number, number];

/**
 * A match definition: the body of POST /matches, the core of a hulldown simulate file, the examples/ files (docs/match-definition.md). units, terrain, models and weapons may each be a list of objects with an 'id' or a map keyed by id (the id may then be left out).
 */
export interface MatchDefinition {
  edition: "40k11" | "40k7" | "hh3";
  scenario: ScenarioDef;
  format?: number;
  options?: Options;
  mission?: MissionChoice | null;
}
/**
 * Where the match is played and who is on the table. ``first``: the side that plays first.
 */
export interface ScenarioDef {
  battlefield?: Battlefield;
  terrain?:
    | Terrain[]
    | {
        [k: string]: TerrainInMap;
      };
  units?:
    | UnitDef[]
    | {
        [k: string]: UnitDef;
      };
  first?: "a" | "b";
}
export interface Battlefield {
  width?: number;
  height?: number;
}
/**
 * A terrain piece: a polygon with kinds (difficult, dangerous, impassable, blocks_los, cover).
 */
export interface Terrain {
  id: string;
  points: Point[];
  kinds?: string[];
  cover_save?: number | null;
  level?: number;
  name?: string;
}
/**
 * A terrain piece: a polygon with kinds (difficult, dangerous, impassable, blocks_los, cover).
 */
export interface TerrainInMap {
  id?: string;
  points: Point[];
  kinds?: string[];
  cover_save?: number | null;
  level?: number;
  name?: string;
}
/**
 * A unit: its side, kind, profile, models, weapons and keywords; ``embarked_in`` starts it
 * inside a transport of its side.
 */
export interface UnitDef {
  side: "a" | "b";
  kind: "infantry" | "monster" | "paragon" | "vehicle" | "walker";
  id?: string;
  models:
    | ModelDef[]
    | {
        [k: string]: ModelDef;
      };
  name?: string;
  profile?: Profile;
  weapons?:
    | WeaponDef[]
    | {
        [k: string]: WeaponDef;
      };
  keywords?: string[];
  faction?: string;
  squadron?: string | null;
  embarked_in?: string | null;
  state?: UnitState | null;
}
/**
 * One model: where it stands and how big it is (a hull for baseless vehicles, else a base).
 * hh3 only: ``profile`` gives the model characteristics of its own instead of its unit's, and
 * ``kind: "paragon"`` makes it a Paragon in an Infantry unit (one that joined the unit).
 */
export interface ModelDef {
  pos: Point;
  id?: string;
  heading?: number;
  hull?: HullSize | null;
  base_mm?: number | null;
  bulky?: number;
  profile?: Profile | null;
  kind?: ("infantry" | "monster" | "paragon" | "vehicle" | "walker") | null;
  state?: ModelState | null;
}
/**
 * A baseless vehicle's hull: an oriented rectangle (length along the heading).
 */
export interface HullSize {
  length: number;
  width: number;
}
/**
 * Characteristics. Which ones matter depends on the edition and the unit kind.
 *
 * ``bs``/``ws`` are characteristics (4 = hits on 3+) in 40k7 and hh3, target numbers (3 = 3+)
 * in 40k11. ``sv``/``inv`` are target numbers (3 = 3+).
 */
export interface Profile {
  m?: number;
  ws?: number;
  bs?: number;
  s?: number;
  t?: number;
  w?: number;
  i?: number;
  a?: number;
  ld?: number;
  cool?: number;
  intelligence?: number;
  sv?: number | null;
  inv?: number | null;
  armour?: Armour | null;
  hp?: number;
  capacity?: number;
  access?: ("front" | "left" | "rear" | "right")[];
}
export interface Armour {
  front: number;
  side: number;
  rear: number;
}
/**
 * A model's condition when the match starts mid-game. ``wounds``: wounds left (default: the
 * profile's W).
 */
export interface ModelState {
  wounds?: number | null;
  alive?: boolean;
}
/**
 * A weapon profile. ``model``: the id of the model carrying it (may be left out when the unit
 * has a single model).
 */
export interface WeaponDef {
  name: string;
  range: number;
  id?: string;
  strength: number;
  model?: string;
  ap?: number | null;
  damage?: number;
  shots?: number;
  type?: "assault" | "heavy" | "melee" | "none" | "ordnance" | "pistol" | "primary" | "rapid_fire" | "salvo";
  rules?: string[];
  mount?: Mount;
  defensive?: boolean;
  state?: WeaponState | null;
}
/**
 * Where a weapon sits on its model and which way it can fire (40k7 Vehicle Weapons and Line of
 * Sight; hh3 Vehicles, Fire arcs and weapon mounts).
 */
export interface Mount {
  kind?: "centreline" | "coaxial" | "hull" | "none" | "pintle" | "sponson" | "turret";
  arc?: ("front" | "left" | "rear" | "right" | "side") | null;
  side?: ("left" | "right") | null;
  offset?: Point;
  swivel?: number;
  linked?: string | null;
  barrel?: number;
}
/**
 * A weapon's condition when the match starts mid-game.
 */
export interface WeaponState {
  destroyed?: boolean;
}
/**
 * A unit's condition when the match starts mid-game. ``hp``: Hull Points left (default: the
 * profile's HP); ``statuses``: status -> player-turn index at whose end it expires (0: until
 * removed).
 */
export interface UnitState {
  hp?: number | null;
  statuses?: {
    [k: string]: number;
  };
  destroyed?: boolean;
  wreck?: boolean;
  moved?: number;
  turn_flags?: string[];
}
/**
 * Match options agreed at creation.
 */
export interface Options {
  wrecks_remain?: boolean;
  turn_limit?: number;
  spectator_delay_events?: number;
  spectator_delay_seconds?: number;
  private_spectators?: boolean;
  auto_decide?: boolean;
}
/**
 * The match definition's ``mission``: a standard mission by ``id`` (with the ``deployment``
 * map to use, default the mission's own), or a ``custom`` mission written out in full.
 * ``warlords``: side -> its Warlord (a unit id, or a model id), for either kind of mission;
 * ``place_markers``: a standard mission's markers are placed by the players as its published
 * rules say, and the zone chosen by a roll-off where they say so (docs/missions.md).
 */
export interface MissionChoice {
  id?: string;
  deployment?: string;
  custom?: Mission | null;
  warlords?: {
    [k: string]: string;
  };
  place_markers?: boolean;
}
/**
 * One mission: deployment map, markers, first turn, game length and scoring.
 *
 * ``enemy_gap``: a model may not be deployed within this many inches of an enemy model
 * (hh3 Deployment: 2"); ``marker_clearance``: a model may not be deployed within this many
 * inches of a marker's centre (hh3: never on an Objective, a 32 mm marker); ``seize``: the side
 * going second may try to Seize the Initiative (a 6); ``reserves``: units may be declared in
 * reserve; ``flyers_in_reserve``: a Flyer may not be deployed, it starts in reserve;
 * ``warlords``: side -> the id of its Warlord, a unit or one model of a unit (Slay the Warlord);
 * ``placement``: markers the players place before deployment; ``zone_choice``: a roll-off
 * before deployment whose winner chooses the deployment zone (else the side deploying first
 * takes zone A).
 */
export interface Mission {
  id: string;
  name: string;
  edition: string;
  deployment: DeploymentMap;
  objectives?: ObjectiveMarker[];
  first_turn?: "deployed_first" | "roll_off";
  deploy_order?: "alternate" | "whole_army";
  seize?: boolean;
  game_length?: "fixed" | "random_40k7";
  turns?: number;
  enemy_gap?: number;
  marker_clearance?: number;
  reserves?: boolean;
  flyers_in_reserve?: boolean;
  scoring?: Scoring;
  rule?: string;
  custom?: boolean;
  warlords?: {
    [k: string]: string;
  };
  placement?: MarkerPlacement | null;
  zone_choice?: boolean;
}
/**
 * Two deployment zones, ``A`` (taken by the side that deploys first) and ``B``.
 */
export interface DeploymentMap {
  id: string;
  name: string;
  zones: Zone[];
  rule?: string;
}
/**
 * A deployment zone: a simple polygon (at least 3 corners).
 */
export interface Zone {
  id: string;
  points: [number, number][];
}
/**
 * A marker at ``pos`` worth ``value`` victory points each time it scores.
 */
export interface ObjectiveMarker {
  id: string;
  /**
   * @minItems 2
   * @maxItems 2
   */
  pos: [number, number];
  value?: number;
}
/**
 * How victory points are scored.
 *
 * ``objectives``: when markers score; ``from_turn``: the first battle turn they do;
 * ``max_per_turn``: a cap on marker VP per player turn (0: none); ``window_of_opportunity``:
 * hh3 Take and Hold, a marker loses 1 value each time it scores and is removed at 0;
 * ``kill_points``: VP per enemy unit destroyed, at the end of the game (40k7 Purge the Alien);
 * ``secondaries``: secondary objective -> VP.
 */
export interface Scoring {
  objectives?: "end_of_game" | "end_of_own_turn" | "never";
  from_turn?: number;
  max_per_turn?: number;
  window_of_opportunity?: boolean;
  kill_points?: number;
  secondaries?: {
    [k: string]: number;
  };
}
/**
 * Objective markers the players place in turn before deployment (the winner of a roll-off
 * first): ``count`` of them (plus a D3 when ``extra_d3``: 40k7 Crusade's D3+2), each worth
 * ``value``, at least ``edge_gap`` from every battlefield edge, ``spacing`` from every other
 * marker and ``fixed_gap`` from the mission's own markers; never on impassable terrain.
 */
export interface MarkerPlacement {
  count: number;
  value?: number;
  edge_gap?: number;
  spacing?: number;
  fixed_gap?: number;
  extra_d3?: boolean;
}
